//! The lab's layout (docs/ARCHITECTURE.md), checked on the sources: the modules of
//! `reproduce/` depend on each other without a circle (issue 44 broke `book ↔ evidence`: the
//! papers' numbers and headlines.json's types are `claims`, below both), and the crate's
//! top-level modules too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Code of a file up to its test module, comments dropped.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        if l.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        out.push_str(l.split("//").next().unwrap());
        out.push('\n');
    }
    out
}

/// Names `prefix` is followed by in `code` (`super::book::x` with prefix `super::` → `book`).
fn after(code: &str, prefix: &str) -> BTreeSet<String> {
    code.match_indices(prefix)
        .map(|(i, _)| {
            code[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// The modules of `dir` (files and folders) and what each names among the others through
/// `prefixes`.
fn graph(dir: &Path, prefixes: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            let mut text = String::new();
            for f in walk(&p) {
                text += &code(&f);
            }
            files.insert(name, text);
        } else if p.extension().is_some_and(|x| x == "rs") && name != "mod" && name != "lib" {
            files.insert(name, code(&p));
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(m, text)| {
            let deps = prefixes
                .iter()
                .flat_map(|p| after(text, p))
                .filter(|d| d != m && names.contains(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The modules left in a circle (empty when there is none): leaves removed until none is left.
fn circle(deps: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let mut left = deps.clone();
    loop {
        let leaves: Vec<String> = left
            .iter()
            .filter(|(_, d)| d.iter().all(|x| !left.contains_key(x)))
            .map(|(m, _)| m.clone())
            .collect();
        if leaves.is_empty() {
            return left;
        }
        for m in leaves {
            left.remove(&m);
        }
    }
}

#[test]
fn the_reproduce_modules_have_no_circle() {
    let deps = graph(
        &Path::new(SRC).join("reproduce"),
        &["super::", "crate::reproduce::"],
    );
    assert!(deps["evidence"].contains("claims"), "{deps:?}");
    assert!(!deps["claims"].contains("book") && !deps["claims"].contains("evidence"));
    let left = circle(&deps);
    assert!(left.is_empty(), "a circle among {left:?}");
}

#[test]
fn the_lab_modules_have_no_circle() {
    let deps = graph(Path::new(SRC), &["crate::"]);
    let left = circle(&deps);
    assert!(left.is_empty(), "a circle among {left:?}");
}
