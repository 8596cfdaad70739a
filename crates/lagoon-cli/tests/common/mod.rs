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
