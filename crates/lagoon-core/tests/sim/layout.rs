//! The layout's rules (docs/ARCHITECTURE.md), checked on the sources: no file outside `sim/`
//! names the engine event, no source file is over 1,000 lines, and the top-level modules
//! depend on each other without a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a source file belongs to (`ssd/tsu/mod.rs` → `ssd`).
fn module(p: &Path) -> String {
    let rel = p.strip_prefix(SRC).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Code lines (comments dropped) of a file, up to its tests (a test may use any module: a
/// scheduler's unit test runs a drive, the energy model's tests run scenarios).
fn code(p: &Path) -> Vec<String> {
    if p.file_name().is_some_and(|n| n == "tests.rs") {
        return Vec::new();
    }
    let text = std::fs::read_to_string(p).unwrap();
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with("#[cfg(test)]") {
            // A test module ends the code; a test-only item (a `use`) is skipped.
            match lines.next() {
                Some(n) if n.trim_start().starts_with("mod ") => break,
                _ => continue,
            }
        }
        out.push(l.split("//").next().unwrap().to_string());
    }
    out
}

#[test]
fn the_layout_keeps_its_rules() {
    let mut files = Vec::new();
    sources(Path::new(SRC), &mut files);
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let m = module(f);
        let text = std::fs::read_to_string(f).unwrap();
        let lines = text.lines().count();
        assert!(lines <= 1_000, "{} has {lines} lines", f.display());
        for l in code(f) {
            if m != "sim" {
                assert!(
                    !l.contains("sim::Event") && !l.contains("sim::event"),
                    "{} names the engine event: {l}",
                    f.display()
                );
            }
            let mut rest = l.as_str();
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + 7..];
                let dep: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if dep != m && !dep.is_empty() {
                    deps.entry(m.clone()).or_default().insert(dep);
                }
            }
        }
    }
    // No circle: repeatedly remove modules with no remaining dependency.
    let mut left = deps.clone();
    loop {
        let leaf: Vec<String> = left
            .iter()
            .filter(|(_, d)| d.iter().all(|x| !left.contains_key(x)))
            .map(|(m, _)| m.clone())
            .collect();
        if leaf.is_empty() {
            break;
        }
        for m in leaf {
            left.remove(&m);
        }
    }
    assert!(left.is_empty(), "module circle among {:?}", left);
}
