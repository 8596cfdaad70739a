//! The `lagoon` command (the commands themselves are in the library, `lib.rs`).

use clap::Parser;

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`lagoon config --keys | head`)
    // would panic; end quietly as other command-line tools do.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    lagoon_cli::interrupt::install();
    std::process::exit(lagoon_cli::exit_code(lagoon_cli::dispatch(
        lagoon_cli::Cli::parse(),
    )));
}
