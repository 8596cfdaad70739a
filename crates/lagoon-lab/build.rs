//! The commit a `lagoon` binary was built from (`LAGOON_COMMIT`), for the provenance of every
//! result: `git rev-parse HEAD`, with `-dirty` when tracked files differ from it, or `unknown`
//! outside a git checkout (a source archive, a crate from a registry).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            // Rebuilt when HEAD moves (a commit, a checkout) or the index changes.
            for p in ["HEAD", "index", "packed-refs"] {
                if let Some(path) = git(&["rev-parse", "--git-path", p]) {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
            if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                if let Some(path) = git(&["rev-parse", "--git-path", &r]) {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        }
        _ => "unknown".to_string(),
    };
    // The lab's and the command's sources too, so `-dirty` follows edits there (edits
    // elsewhere in the workspace show once the index or HEAD changes).
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../lagoon-cli/src");
    println!("cargo:rustc-env=LAGOON_COMMIT={commit}");
}
