//! What the CLI test files share: the shared traces and running the `lagoon` binary (each
//! test file uses some of it).
#![allow(dead_code)]

use std::process::Command;

pub mod fuzz;

pub const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/");

/// Run `lagoon args...`: exit code, stdout, stderr (with the default model-state limit,
/// whatever the environment sets).
pub fn lagoon(args: &[&str]) -> (i32, String, String) {
    lagoon_env(args, &[])
}

/// [`lagoon`] with environment variables set.
#[allow(dead_code)]
pub fn lagoon_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lagoon"))
        .args(args)
        .env_remove("LAGOON_MAX_STATE_GB")
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A file `name` holding `text` in a temporary directory of its own, removed with it when
/// dropped (so a test run leaves nothing behind). Not every test file writes files.
#[allow(dead_code)]
pub struct Tmp {
    _dir: tempfile::TempDir,
    path: String,
}

impl std::ops::Deref for Tmp {
    type Target = str;
    fn deref(&self) -> &str {
        &self.path
    }
}

impl AsRef<std::path::Path> for Tmp {
    fn as_ref(&self) -> &std::path::Path {
        self.path.as_ref()
    }
}

#[allow(dead_code)]
pub fn tmp(name: &str, text: &str) -> Tmp {
    let dir = tempfile::Builder::new()
        .prefix("lagoon-test-")
        .tempdir()
        .unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let path = p.to_str().unwrap().to_string();
    Tmp { _dir: dir, path }
}

/// Start `c` with SIGINT's default action and SIGINT unblocked, whatever this test process
/// inherited: a harness started in a background job (`bash -c 'scripts/test &'`) runs with
/// SIGINT ignored, which its children inherit, and `lagoon` then keeps ignoring it as POSIX
/// expects of a background job; a test that sends SIGINT wants the terminal's Ctrl-C.
#[cfg(unix)]
#[allow(dead_code)]
pub fn with_sigint(c: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

/// Wait for `child` at most `limit`; killed (and the test told so by `None`) past it, so that
/// no test runs on for hours.
#[allow(dead_code)]
pub fn wait_at_most(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let t = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return Some(s);
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
