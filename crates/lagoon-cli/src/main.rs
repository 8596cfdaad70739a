//! The `lagoon` command (the commands themselves are in the library, `lib.rs`).

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`lagoon config --keys | head`)
    // would panic; end quietly as other command-line tools do.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    lagoon_lab::interrupt::install();
    let cli: lagoon_cli::Cli =
        lagoon_lab::help::parse(std::env::args_os()).unwrap_or_else(|e| e.exit());
    std::process::exit(lagoon_cli::exit_code(lagoon_cli::dispatch(cli)));
}
