//! The layout's rules (docs/ARCHITECTURE.md), checked on the sources: no file outside `sim/`
//! names the engine event, one `NONE`, no source file is over 1,000 lines, the top-level
//! modules depend on each other without a circle, and so do the modules inside each folder
//! (`ssd::tsu`, `ssd::ftl`, ...; `interconnect::network::router`, ...), in `lagoon-core` and
//! `lagoon-workload`.

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
            assert!(
                !l.contains("const NONE") || f.ends_with("engine/slab.rs"),
                "{} defines its own NONE (use crate::engine::NONE): {l}",
                f.display()
            );
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

/// A source file's module path below the crate root (`ssd/tsu/mod.rs` → `[ssd, tsu]`,
/// `ssd/tsu/order.rs` → `[ssd, tsu, order]`, `lib.rs` → `[]`).
fn module_path(src: &Path, p: &Path) -> Vec<String> {
    let mut v: Vec<String> = p
        .strip_prefix(src)
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = v.pop().unwrap();
    if !matches!(last.as_str(), "mod.rs" | "lib.rs" | "main.rs") {
        v.push(last.trim_end_matches(".rs").to_string());
    }
    v
}

/// The paths a code line names from `crate::`, `super::` or `self::`, one per item of a
/// `{...}` group, resolved against module `m`.
fn named_paths(m: &[String], line: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        if !line.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &line[i..];
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let root = ["crate", "super", "self"]
            .into_iter()
            .find(|r| rest.starts_with(r) && rest[r.len()..].starts_with("::"));
        let Some(root) = root.filter(|_| word_start) else {
            i += 1;
            continue;
        };
        // The chain of `::ident` after the root.
        let mut comps = vec![root.to_string()];
        let mut j = i + root.len();
        while line[j..].starts_with("::") {
            let n = ident(&line[j + 2..]);
            if n == 0 {
                break;
            }
            comps.push(line[j + 2..j + 2 + n].to_string());
            j += 2 + n;
        }
        let mut group = Vec::new();
        if line[j..].starts_with("::{") {
            // One path per item of the group (its first component is enough).
            let mut depth = 0;
            let mut item = String::new();
            for c in line[j + 3..].chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        group.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            group.push(item);
        }
        let resolve = |comps: &[String]| -> Vec<String> {
            let mut base: Vec<String> = if comps[0] == "crate" {
                Vec::new()
            } else {
                m.to_vec()
            };
            let mut k = usize::from(comps[0] == "crate");
            while k < comps.len() && (comps[k] == "super" || comps[k] == "self") {
                if comps[k] == "super" {
                    base.pop();
                }
                k += 1;
            }
            base.extend_from_slice(&comps[k..]);
            base
        };
        if group.is_empty() {
            if comps.len() > 1 {
                out.push(resolve(&comps));
            }
        } else {
            for it in group {
                let it = it.trim();
                let first = &it[..ident(it)];
                let mut c = comps.clone();
                if !first.is_empty() && first != "self" {
                    c.push(first.to_string());
                }
                out.push(resolve(&c));
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// Dependencies between sibling modules (children of one folder, at any depth): an edge
/// `a → b` when code in `a` (or below it) names `b` (or something below it).
fn sibling_edges(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mods: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(src, f)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in &files {
        let m = module_path(src, f);
        for l in code(f) {
            for full in named_paths(&m, &l) {
                // The longest module the path names (the rest is an item inside it).
                let Some(target) = (1..=full.len())
                    .rev()
                    .map(|k| full[..k].to_vec())
                    .find(|p| mods.contains(p))
                else {
                    continue;
                };
                let common = m.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if common < m.len() && common < target.len() {
                    edges
                        .entry(m[..=common].to_vec())
                        .or_default()
                        .insert(target[..=common].to_vec());
                }
            }
        }
    }
    edges
}

/// Modules on a circle of `edges`, or between two (empty: none): what is left once modules
/// that depend on none left, and modules none left depends on, are taken away.
fn on_a_circle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let mut left = edges.clone();
    loop {
        let named: BTreeSet<Vec<String>> = left.values().flatten().cloned().collect();
        let out: Vec<_> = left
            .iter()
            .filter(|(m, d)| d.iter().all(|x| !left.contains_key(x)) || !named.contains(*m))
            .map(|(m, _)| m.clone())
            .collect();
        if out.is_empty() {
            break;
        }
        for m in out {
            left.remove(&m);
        }
    }
    left.keys().map(|m| m.join("::")).collect()
}

#[test]
fn modules_inside_each_folder_depend_on_each_other_without_a_circle() {
    for krate in ["lagoon-core", "lagoon-workload"] {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(krate)
            .join("src");
        let edges = sibling_edges(&src);
        let circle = on_a_circle(&edges);
        assert!(circle.is_empty(), "{krate}: module circle among {circle:?}");
    }
}

#[test]
fn the_layout_check_sees_a_circle_between_siblings() {
    // ssd::txn naming ssd::datapath's class, and ssd::datapath naming ssd::txn: a circle;
    // a parent naming its child (or the child its parent) is none.
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let txn = m("ssd::txn");
    assert_eq!(
        named_paths(&txn, "use super::datapath::{CLASS_GC, Txn};"),
        vec![m("ssd::datapath::CLASS_GC"), m("ssd::datapath::Txn")]
    );
    assert_eq!(
        named_paths(
            &m("ssd::tsu::order"),
            "use crate::{engine::List, ssd::txn};"
        ),
        vec![m("engine"), m("ssd")]
    );
    assert_eq!(
        named_paths(&m("ssd::tsu::order"), "x = super::super::ftl::NONE; self.q"),
        vec![m("ssd::ftl::NONE")]
    );
    let mut edges = BTreeMap::new();
    edges.insert(m("ssd::txn"), BTreeSet::from([m("ssd::datapath")]));
    edges.insert(m("ssd::datapath"), BTreeSet::from([m("ssd::txn")]));
    edges.insert(m("ssd::tsu"), BTreeSet::from([m("ssd::txn")]));
    assert_eq!(on_a_circle(&edges), vec!["ssd::datapath", "ssd::txn"]);
    edges.remove(&m("ssd::txn"));
    assert!(on_a_circle(&edges).is_empty());
}

/// Stage files that still name the drive (`Ssd`, `DriveQueue`): the flows in them have not
/// moved to `ssd/flows/` yet (issue 45, step 2). The list only shrinks.
const STAGES_NAMING_THE_DRIVE: &[&str] = &["ssd/datapath/dssd.rs", "ssd/tsu/mod.rs"];

/// Whether a code line names the drive type (`Ssd` or `DriveQueue` as a word).
fn names_the_drive(l: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    ["Ssd", "DriveQueue"].iter().any(|w| {
        l.match_indices(w)
            .any(|(i, _)| !l[..i].ends_with(word) && !l[i + w.len()..].starts_with(word))
    })
}

#[test]
fn stages_do_not_name_the_drive() {
    assert!(names_the_drive("impl<Q: DriveQueue> Ssd<Q> {"));
    assert!(names_the_drive("use crate::ssd::{Ssd};"));
    assert!(!names_the_drive("let c: SsdConfig = ssd(DriveQueues);"));
    let mut files = Vec::new();
    for stage in ["hil", "cache", "ftl", "tsu", "datapath"] {
        sources(&Path::new(SRC).join("ssd").join(stage), &mut files);
    }
    let naming: BTreeSet<String> = files
        .iter()
        .filter(|f| code(f).iter().any(|l| names_the_drive(l)))
        .map(|f| {
            let rel = f.strip_prefix(SRC).unwrap();
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let allowed: BTreeSet<String> = STAGES_NAMING_THE_DRIVE
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        naming, allowed,
        "stage files naming the drive type (Ssd, DriveQueue): a stage owns its state and \
         returns decisions; the code that touches two stages is a flow (ssd/flows/)"
    );
}

/// Lines of each function of a file's code (its signature to its closing brace).
fn function_lengths(lines: &[String]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let Some(rest) = t.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i32;
        for (j, m) in lines[i..].iter().enumerate() {
            if depth == 0 && m.trim_end().ends_with(';') && !m.contains('{') {
                break; // a trait method without a body
            }
            depth += m.matches('{').count() as i32 - m.matches('}').count() as i32;
            if depth == 0 && m.contains('}') {
                out.push((name.clone(), j + 1));
                break;
            }
        }
    }
    out
}

#[test]
fn no_function_of_the_drive_is_over_100_lines() {
    let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        function_lengths(&lines(
            "fn a() {\n    if x {\n    }\n}\nfn b(); \npub fn c() {}"
        )),
        vec![("a".to_string(), 4), ("c".to_string(), 1)]
    );
    let mut files = Vec::new();
    sources(&Path::new(SRC).join("ssd"), &mut files);
    for f in &files {
        for (name, n) in function_lengths(&code(f)) {
            assert!(n <= 100, "{}: {name} has {n} lines", f.display());
        }
    }
}
