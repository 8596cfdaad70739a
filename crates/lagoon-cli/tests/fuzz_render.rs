//! The render fuzzer (issue 42): `lagoon reproduce ... --render-only` (one paper, `all`, and a
//! sensitivity search) on copies of the committed results in docs/results, tampered with:
//! names in figures.json that lead outside the folder, links in the folder to files outside
//! it, numbers that are not finite, means outside their intervals, duplicated entries, kinds
//! Lagoon does not know, files far too large, pipes, and cut or garbled files.
//!
//! Each case runs in this process (a panic is caught and counted) under a time limit, in a
//! directory of its own: `r/` the results folder, `outside/` files a tampered folder points
//! at. The fuzzer checks on the file system that nothing outside the folder was read or
//! written: an inotify watch on the case's directory and on `outside/` (any open, read, write
//! or new entry there but the folder itself fails the case) and a snapshot of `outside/`
//! (names, sizes, times, bytes) before and after. A case tampered so that its data are invalid
//! must be refused (exit 2, an error under 2,000 bytes naming the file, and no figure or
//! summary drawn from that folder); exit 0 there is a silent render of invalid data. An
//! untampered case must render, and no rendered figure or summary may show `NaN` or `inf`.
//!
//! Cases: `LAGOON_FUZZ_CASES` (default 40, what CI runs), seed `LAGOON_FUZZ_SEED` (default 1).
//! The long run behind docs/ROBUSTNESS.md:
//! `LAGOON_FUZZ_CASES=10000 cargo test --release -p lagoon-cli --test fuzz_render -- --nocapture`.

#![cfg(target_os = "linux")]

use clap::Parser;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod common;
use common::fuzz::{env, Rng};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---------------------------------------------------------------------------------------
// What a case is
// ---------------------------------------------------------------------------------------

/// An entry of the folder as the case writes it.
#[derive(Clone)]
enum Entry {
    Bytes(Vec<u8>),
    /// A symbolic link to this target.
    Link(PathBuf),
    /// A sparse file of this many bytes.
    Sparse(u64),
    Fifo,
    Dir,
}

/// What the case must end in.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// Rendered (exit 0).
    Ok,
    /// Refused: exit 2, the error naming this file.
    Refuse(String),
    /// Either, with a message when refused.
    Any,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    One,
    All,
    Search,
}

struct Case {
    mode: Mode,
    paper: &'static str,
    /// Entries by path relative to the folder (`piq/figures.json` under `all`).
    files: BTreeMap<String, Entry>,
    /// The paper folder the tampering hit (relative; "" for the folder itself).
    hit: String,
    expect: Expect,
    what: String,
}

/// A paper's committed files that rendering reads (no SVG, summary or runs).
fn base(paper: &str) -> BTreeMap<String, Entry> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(root().join("docs/results").join(paper)).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".svg") || name == "summary.md" || name.starts_with("runs.") {
            continue;
        }
        m.insert(name, Entry::Bytes(std::fs::read(&p).unwrap()));
    }
    m
}

fn search_json(paper: &str) -> Option<Vec<u8>> {
    std::fs::read(
        root()
            .join("docs/results/sensitivity")
            .join(paper)
            .join("sensitivity.json"),
    )
    .ok()
}

fn bytes(files: &BTreeMap<String, Entry>, k: &str) -> Vec<u8> {
    match files.get(k) {
        Some(Entry::Bytes(b)) => b.clone(),
        _ => panic!("{k} is not a file of the case"),
    }
}

fn json_of(files: &BTreeMap<String, Entry>, k: &str) -> Value {
    serde_json::from_slice(&bytes(files, k)).unwrap()
}

fn put_json(files: &mut BTreeMap<String, Entry>, k: &str, v: &Value) {
    files.insert(
        k.to_string(),
        Entry::Bytes(serde_json::to_string_pretty(v).unwrap().into_bytes()),
    );
}

/// A CSV as header and rows.
fn csv_of(files: &BTreeMap<String, Entry>, k: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let b = bytes(files, k);
    let mut r = csv::ReaderBuilder::new().from_reader(b.as_slice());
    let head = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (head, rows)
}

fn put_csv(files: &mut BTreeMap<String, Entry>, k: &str, head: &[String], rows: &[Vec<String>]) {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(head).unwrap();
    for r in rows {
        w.write_record(r).unwrap();
    }
    files.insert(k.to_string(), Entry::Bytes(w.into_inner().unwrap()));
}

/// The CSVs rendering reads in a paper folder (`dir` prefix included).
fn read_csvs(files: &BTreeMap<String, Entry>, dir: &str) -> Vec<String> {
    let m = json_of(files, &format!("{dir}figures.json"));
    let mut v: Vec<String> = m["figures"]
        .as_array()
        .unwrap()
        .iter()
        .chain(m["tables"].as_array().unwrap())
        .map(|f| format!("{dir}{}", f["csv"].as_str().unwrap()))
        .chain([format!("{dir}headline_seeds.csv")])
        .collect();
    if files.contains_key(&format!("{dir}fig14a_lifetimes.csv")) {
        v.push(format!("{dir}fig14a_lifetimes.csv"));
    }
    v.sort();
    v.dedup();
    v
}

/// Whether `row` passes a figure's filter (`[col, value]`, `!value` for not).
fn passes(head: &[String], row: &[String], filter: &Value) -> bool {
    filter.as_array().is_none_or(|f| {
        f.iter().all(|p| {
            let (c, v) = (p[0].as_str().unwrap(), p[1].as_str().unwrap());
            let cell = head
                .iter()
                .position(|h| h == c)
                .map_or("", |i| row[i].as_str());
            match v.strip_prefix('!') {
                Some(not) => cell != not,
                None => cell == v,
            }
        })
    })
}

const NON_FINITE: [&str; 8] = [
    "NaN", "nan", "inf", "-inf", "Infinity", "1e999", "-1e400", "+inf",
];

/// Tamper with a paper folder's files (keys prefixed `dir`): returns what was done and what
/// must come of it.
fn tamper(
    rng: &mut Rng,
    files: &mut BTreeMap<String, Entry>,
    dir: &str,
    outside: &Path,
) -> (String, Expect) {
    let refuse = |f: &str| Expect::Refuse(f.rsplit('/').next().unwrap().to_string());
    let figs = format!("{dir}figures.json");
    let heads = format!("{dir}headlines.json");
    match rng.below(16) {
        // 0: nothing (the control: must render).
        0 => ("untouched".into(), Expect::Ok),
        // 1: a name in figures.json that leads outside, or is no plain name.
        1 => {
            let mut m = json_of(files, &figs);
            let long = "é".repeat(128 + rng.below(150_000));
            let names = [
                "../outside/victim.csv".to_string(),
                "../outside/victim.svg".to_string(),
                "../outside/victim.txt".to_string(),
                outside.join("victim.csv").to_string_lossy().into_owned(),
                outside.join("victim.svg").to_string_lossy().into_owned(),
                outside
                    .parent()
                    .unwrap()
                    .join("beside.svg")
                    .to_string_lossy()
                    .into_owned(),
                "../beside.csv".into(),
                "..".into(),
                ".".into(),
                String::new(),
                "sub/fig.csv".into(),
                "..\\outside\\victim.csv".into(),
                "fig\n.svg".into(),
                "fig\0.csv".into(),
                format!("{long}.svg"),
                "headlines.json".into(),
                "summary.md".into(),
            ];
            let name = rng.pick(&names).clone();
            let (list, field) = if rng.below(5) == 0 && !m["tables"].as_array().unwrap().is_empty()
            {
                ("tables", "csv")
            } else {
                ("figures", *rng.pick(&["svg", "csv"]))
            };
            let n = m[list].as_array().unwrap().len();
            let i = rng.below(n);
            m[list][i][field] = name.clone().into();
            put_json(files, &figs, &m);
            (
                format!("{list}[{i}].{field} = {:.40?}", name),
                refuse(&figs),
            )
        }
        // 2: a file of the folder replaced by a link to a copy outside (an old Lagoon renders
        // from it) or written through; or by a link to a file beside it (fine).
        2 => {
            let m = json_of(files, &figs);
            let svg = m["figures"][0]["svg"].as_str().unwrap().to_string();
            let mut names = vec![
                "headlines.json".to_string(),
                "figures.json".into(),
                "headline_seeds.csv".into(),
                "summary.md".into(),
                "notes.md".into(),
                svg,
            ];
            names.extend(
                read_csvs(files, dir)
                    .iter()
                    .map(|c| c[dir.len()..].to_string()),
            );
            let name = rng.pick(&names).clone();
            let key = format!("{dir}{name}");
            if rng.below(5) == 0 {
                if let Some(Entry::Bytes(b)) = files.get(&key).cloned() {
                    files.insert(format!("{dir}alias.data"), Entry::Bytes(b));
                    files.insert(key, Entry::Link("alias.data".into()));
                    return (format!("{name} a link to alias.data beside it"), Expect::Ok);
                }
            }
            let target = outside.join(format!("copy-{}", name.replace('/', "_")));
            if let Some(Entry::Bytes(b)) = files.get(&key) {
                std::fs::write(&target, b).unwrap();
            } else {
                std::fs::write(&target, "written by hand\n").unwrap();
            }
            let link = if rng.below(2) == 0 {
                target
            } else {
                Path::new("..")
                    .join(if dir.is_empty() { "" } else { ".." })
                    .join("outside")
                    .join(target.file_name().unwrap())
            };
            files.insert(key.clone(), Entry::Link(link));
            (format!("{name} a link to outside"), refuse(&key))
        }
        // 3: a number that is not finite in a CSV rendering reads.
        3 => {
            let csvs = read_csvs(files, dir);
            let k = rng.pick(&csvs).clone();
            let (head, mut rows) = csv_of(files, &k);
            let cells: Vec<(usize, usize)> = rows
                .iter()
                .enumerate()
                .flat_map(|(i, r)| {
                    r.iter()
                        .enumerate()
                        .filter(|(_, c)| c.parse::<f64>().is_ok())
                        .map(move |(j, _)| (i, j))
                })
                .collect();
            if cells.is_empty() {
                return ("no number to spoil".into(), Expect::Ok);
            }
            let (i, j) = *rng.pick(&cells);
            let t = *rng.pick(&NON_FINITE);
            rows[i][j] = t.into();
            put_csv(files, &k, &head, &rows);
            (format!("{k} row {i} {} = {t}", head[j]), refuse(&k))
        }
        // 4: a value outside its interval, or an interval upside down or halved.
        4 => {
            let csvs = read_csvs(files, dir);
            let mut cands = Vec::new();
            for k in &csvs {
                let (head, rows) = csv_of(files, k);
                for (c, name) in head.iter().enumerate() {
                    let (Some(lo), Some(hi)) = (
                        head.iter().position(|h| *h == format!("{name}_ci95_lo")),
                        head.iter().position(|h| *h == format!("{name}_ci95_hi")),
                    ) else {
                        continue;
                    };
                    for (i, r) in rows.iter().enumerate() {
                        if !r[lo].is_empty() && !r[c].is_empty() {
                            cands.push((k.clone(), i, c, lo, hi));
                        }
                    }
                }
            }
            if cands.is_empty() {
                return ("no interval".into(), Expect::Ok);
            }
            let (k, i, c, lo, hi) = rng.pick(&cands).clone();
            let (head, mut rows) = csv_of(files, &k);
            let (l, h): (f64, f64) = (rows[i][lo].parse().unwrap(), rows[i][hi].parse().unwrap());
            let how = match rng.below(4) {
                0 => {
                    rows[i][c] = format!("{}", h + (h - l).abs() + 1.0);
                    "value above"
                }
                1 => {
                    rows[i][c] = format!("{}", l - (h - l).abs() - 1.0);
                    "value below"
                }
                2 => {
                    rows[i][lo] = format!("{}", h + 1.0);
                    "low end above the high"
                }
                _ => {
                    rows[i][hi] = String::new();
                    "half an interval"
                }
            };
            put_csv(files, &k, &head, &rows);
            (format!("{k} row {i} {}: {how}", head[c]), refuse(&k))
        }
        // 5: headlines.json with an invalid entry.
        5 => {
            let mut h = json_of(files, &heads);
            let n = h["headlines"].as_array().unwrap().len();
            let i = rng.below(n);
            let x = &mut h["headlines"][i];
            let measured = !x["lagoon"].is_null();
            let with_ci = measured && !x["lagoon"]["ci95"].is_null();
            let how = match rng.below(12) {
                0 if with_ci => {
                    let hi = x["lagoon"]["ci95"][1].as_f64().unwrap();
                    x["lagoon"]["mean"] = (hi + hi.abs() + 1.0).into();
                    "mean above its interval"
                }
                1 if with_ci => {
                    let c = x["lagoon"]["ci95"].clone();
                    x["lagoon"]["ci95"] = json!([c[1].as_f64().unwrap() + 1.0, c[0]]);
                    "interval upside down"
                }
                2 if measured => {
                    x["lagoon"]["n"] = 0.into();
                    "n = 0"
                }
                3 if measured => {
                    x["verdict"] = if x["verdict"] == "reproduced" {
                        "not-reproduced"
                    } else {
                        "reproduced"
                    }
                    .into();
                    "verdict flipped"
                }
                4 if measured => {
                    x["outside_ci"] = (!x["outside_ci"].as_bool().unwrap()).into();
                    "outside_ci flipped"
                }
                5 => {
                    let dup = x.clone();
                    h["headlines"].as_array_mut().unwrap().push(dup);
                    "a headline twice"
                }
                6 => {
                    x["id"] = "not_a_headline".into();
                    "an unknown id"
                }
                7 => {
                    x["paper"]["kind"] = "speed".into();
                    "an unknown kind"
                }
                8 => {
                    x["evidence_file"] = (*rng.pick(&[
                        "../../../etc/passwd",
                        "/etc/passwd",
                        "a/../../b.md",
                        "x y.md",
                    ]))
                    .into();
                    "a hostile evidence file"
                }
                9 => {
                    h["provenance"]["seeds"] = (0..1000).collect::<Vec<u64>>().into();
                    "1000 seeds"
                }
                10 => {
                    x["colour"] = "red".into();
                    "an unknown field"
                }
                _ => {
                    x["lagoon"] = json!({"mean": null, "ci95": null, "n": 2});
                    "a null mean"
                }
            };
            put_json(files, &heads, &h);
            (format!("headlines[{i}]: {how}"), refuse(&heads))
        }
        // 6: figures.json with an invalid entry.
        6 => {
            let mut m = json_of(files, &figs);
            let n = m["figures"].as_array().unwrap().len();
            let i = rng.below(n);
            let f = &mut m["figures"][i];
            let how = match rng.below(8) {
                0 => {
                    f["kind"] = "pie".into();
                    "an unknown kind"
                }
                1 => {
                    f["kind"] = json!({"heatmap": {"rows": 100_000, "cols": 100_000}});
                    "a heat map of 10^10 routers"
                }
                2 => {
                    f["y_div"] = (*rng.pick(&[0.0, -1.0])).into();
                    "a divisor not above 0"
                }
                3 => {
                    f["colour"] = "red".into();
                    "an unknown field"
                }
                4 => {
                    let dup = f.clone();
                    m["figures"].as_array_mut().unwrap().push(dup);
                    "a figure twice"
                }
                5 => {
                    f["ys"][0]["col"] = "no_such_column".into();
                    "a column the CSV has not"
                }
                6 => {
                    m["paper"] = "other".into();
                    "an unknown paper"
                }
                _ => {
                    f["reference"] = json!(null);
                    f["marks"] = json!([[null, "x"]]);
                    "a mark that is no number"
                }
            };
            put_json(files, &figs, &m);
            (format!("figures[{i}]: {how}"), refuse(&figs))
        }
        // 7: an entry twice (a bar, a per-seed value) or a kind no one knows in a CSV.
        7 => {
            let m = json_of(files, &figs);
            let mut cands: Vec<(String, usize)> = Vec::new();
            for f in m["figures"].as_array().unwrap() {
                if !matches!(f["kind"].as_str(), Some("bars" | "bars_log")) {
                    continue;
                }
                let k = format!("{dir}{}", f["csv"].as_str().unwrap());
                let (head, rows) = csv_of(files, &k);
                cands.extend(
                    rows.iter()
                        .enumerate()
                        .filter(|(_, r)| passes(&head, r, &f["filter"]))
                        .map(|(i, _)| (k.clone(), i)),
                );
            }
            let seeds = format!("{dir}headline_seeds.csv");
            let (sh, srows) = csv_of(files, &seeds);
            cands.extend((0..srows.len()).map(|i| (seeds.clone(), i)));
            let _ = sh;
            let kinds: Vec<String> = [
                format!("{dir}fig14a_lifetimes.csv"),
                format!("{dir}venice_links_closed.csv"),
            ]
            .into_iter()
            .filter(|k| files.contains_key(k))
            .collect();
            if !kinds.is_empty() && rng.below(3) == 0 {
                let k = rng.pick(&kinds).clone();
                let (head, mut rows) = csv_of(files, &k);
                let c = head
                    .iter()
                    .position(|h| h == "mode" || h == "kind")
                    .unwrap();
                let i = rng.below(rows.len());
                rows[i][c] = "wire".into();
                put_csv(files, &k, &head, &rows);
                return (format!("{k} row {i}: an unknown kind"), refuse(&k));
            }
            let (k, i) = rng.pick(&cands).clone();
            let (head, mut rows) = csv_of(files, &k);
            let dup = rows[i].clone();
            rows.insert(i + 1, dup);
            put_csv(files, &k, &head, &rows);
            (format!("{k} row {i} twice"), refuse(&k))
        }
        // 8: a file far larger than results are (sparse), or a pipe, or a directory.
        8 => {
            let mut names = read_csvs(files, dir);
            names.extend([figs.clone(), heads.clone(), format!("{dir}notes.md")]);
            let k = rng.pick(&names).clone();
            let e = match rng.below(4) {
                0 => Entry::Fifo,
                1 => Entry::Dir,
                _ => Entry::Sparse((17 << 20) + rng.next() % (4 << 30)),
            };
            let how = match e {
                Entry::Fifo => "a pipe",
                Entry::Dir => "a directory",
                _ => "a sparse file of gigabytes",
            };
            files.insert(k.clone(), e);
            (format!("{k}: {how}"), refuse(&k))
        }
        // 9: an SVG or the summary's name taken by a directory.
        9 => {
            let m = json_of(files, &figs);
            let svg = rng.pick(m["figures"].as_array().unwrap())["svg"]
                .as_str()
                .unwrap()
                .to_string();
            let name = if rng.below(3) == 0 {
                "summary.md".to_string()
            } else {
                svg
            };
            files.insert(format!("{dir}{name}"), Entry::Dir);
            (format!("{name}: a directory"), refuse(&name))
        }
        // 10, 11: a file cut short, or a few bytes garbled: anything but a crash.
        10 | 11 => {
            let keys: Vec<String> = files
                .iter()
                .filter(|(k, e)| k.starts_with(dir) && matches!(e, Entry::Bytes(_)))
                .map(|(k, _)| k.clone())
                .collect();
            let k = rng.pick(&keys).clone();
            let mut b = bytes(files, &k);
            let how = if rng.below(2) == 0 {
                b.truncate(rng.below(b.len() + 1));
                "cut short"
            } else {
                for _ in 0..1 + rng.below(3) {
                    let i = rng.below(b.len());
                    if !b.is_empty() {
                        b[i] = rng.next() as u8;
                    }
                }
                "garbled"
            };
            files.insert(k.clone(), Entry::Bytes(b));
            (format!("{k} {how}"), Expect::Any)
        }
        // 12: a notes.md that is not text, or too long.
        12 => {
            let k = format!("{dir}notes.md");
            if rng.below(2) == 0 {
                files.insert(k.clone(), Entry::Bytes(vec![0xff, 0xfe, 0x00, 0x41]));
                (format!("{k}: not UTF-8"), refuse(&k))
            } else {
                files.insert(k.clone(), Entry::Bytes(vec![b'x'; (1 << 20) + 1]));
                (format!("{k}: over 1 MiB"), refuse(&k))
            }
        }
        // 13: a file removed.
        13 => {
            let keys: Vec<String> = files
                .keys()
                .filter(|k| k.starts_with(dir))
                .cloned()
                .collect();
            let k = rng.pick(&keys).clone();
            files.remove(&k);
            (format!("{k} removed"), Expect::Any)
        }
        // 14: a column of a CSV renamed (what draws from it names it).
        14 => {
            let csvs = read_csvs(files, dir);
            let k = rng.pick(&csvs).clone();
            let (mut head, rows) = csv_of(files, &k);
            let j = rng.below(head.len());
            head[j] = format!("{}_renamed", head[j]);
            put_csv(files, &k, &head, &rows);
            (format!("{k} column {j} renamed"), Expect::Any)
        }
        // 15: a huge title, method and label (sizes of text, not of data): fine.
        _ => {
            let mut m = json_of(files, &figs);
            m["figures"][0]["title"] = "T".repeat(1 << 20).into();
            m["method"] = vec!["a line of method"; 10_000].into();
            put_json(files, &figs, &m);
            ("a 1 MiB title and 10,000 method lines".into(), Expect::Ok)
        }
    }
}

/// Tamper with a sensitivity.json.
fn tamper_search(rng: &mut Rng, files: &mut BTreeMap<String, Entry>, k: &str) -> (String, Expect) {
    let refuse = Expect::Refuse("sensitivity.json".into());
    let mut s = json_of(files, k);
    let how = match rng.below(10) {
        0 => return ("untouched".into(), Expect::Ok),
        1 => {
            let h = &mut s["headlines"][0];
            let lo = h["low"].as_f64().unwrap();
            h["high"] = (lo - 1.0).into();
            "a range upside down"
        }
        2 => {
            let dup = s["points"][0].clone();
            s["points"].as_array_mut().unwrap().push(dup);
            "a point twice"
        }
        3 => {
            let dup = s["headlines"][0].clone();
            s["headlines"].as_array_mut().unwrap().push(dup);
            "a headline twice"
        }
        4 => {
            s["headlines"][0]["kind"] = "speed".into();
            "an unknown kind"
        }
        5 => {
            let p = s["points"].as_array_mut().unwrap().last_mut().unwrap();
            let (id, st) = p["values"]
                .as_object_mut()
                .unwrap()
                .iter_mut()
                .next()
                .unwrap();
            let id = id.clone();
            st["mean"] = (-1e9).into();
            put_json(files, k, &s);
            return (
                format!("a point's {id} outside its headline's range"),
                refuse,
            );
        }
        6 => {
            s["seeds"] = json!([]);
            "no seeds"
        }
        7 => {
            files.insert(k.into(), Entry::Sparse(1 << 31));
            return ("a 2 GiB sensitivity.json".into(), refuse);
        }
        8 => {
            let mut b = bytes(files, k);
            b.truncate(rng.below(b.len()));
            files.insert(k.into(), Entry::Bytes(b));
            return ("cut short".into(), refuse);
        }
        _ => {
            s["paper"] = "other".into();
            "an unknown paper"
        }
    };
    put_json(files, k, &s);
    (how.into(), refuse)
}

fn make_case(rng: &mut Rng, outside: &Path) -> Case {
    const PAPERS: [&str; 5] = ["venice", "piq", "mqsimnet", "dssd", "superblocks"];
    let mode = match rng.below(10) {
        0 => Mode::All,
        1 => Mode::Search,
        _ => Mode::One,
    };
    match mode {
        Mode::One => {
            let paper = *rng.pick(&PAPERS);
            let mut files = base(paper);
            let (what, expect) = tamper(rng, &mut files, "", outside);
            Case {
                mode,
                paper,
                files,
                hit: String::new(),
                expect,
                what,
            }
        }
        Mode::All => {
            // Two small papers and a search: the hit one of them.
            let mut files = BTreeMap::new();
            for p in ["piq", "mqsimnet"] {
                for (k, v) in base(p) {
                    files.insert(format!("{p}/{k}"), v);
                }
            }
            for p in ["piq", "venice"] {
                if let Some(b) = search_json(p) {
                    files.insert(format!("sensitivity/{p}/sensitivity.json"), Entry::Bytes(b));
                }
            }
            let paper = *rng.pick(&["piq", "mqsimnet", "sensitivity"]);
            let (hit, (what, expect)) = if paper == "sensitivity" {
                let k = "sensitivity/piq/sensitivity.json";
                (
                    "sensitivity/piq/".to_string(),
                    tamper_search(rng, &mut files, k),
                )
            } else {
                let dir = format!("{paper}/");
                let t = tamper(rng, &mut files, &dir, outside);
                (dir, t)
            };
            Case {
                mode,
                paper: "all",
                files,
                hit,
                expect,
                what,
            }
        }
        Mode::Search => {
            let paper = *rng.pick(&["piq", "venice", "dssd", "mqsimnet", "superblocks"]);
            let mut files = BTreeMap::new();
            files.insert(
                "sensitivity.json".to_string(),
                Entry::Bytes(search_json(paper).unwrap()),
            );
            let (what, expect) = if rng.below(4) == 0 {
                let target = outside.join("copy-sensitivity.json");
                std::fs::write(&target, bytes(&files, "sensitivity.json")).unwrap();
                let name = *rng.pick(&["sensitivity.json", "summary.md", "sensitivity_ratios.svg"]);
                files.insert(name.into(), Entry::Link(target));
                (
                    format!("{name} a link to outside"),
                    Expect::Refuse(name.into()),
                )
            } else {
                tamper_search(rng, &mut files, "sensitivity.json")
            };
            Case {
                mode,
                paper,
                files,
                hit: String::new(),
                expect,
                what,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running a case and checking the file system
// ---------------------------------------------------------------------------------------

/// An inotify watch (IN_ALL_EVENTS) on some directories.
struct Watch(i32);

impl Watch {
    fn on(dirs: &[&Path]) -> Self {
        use std::os::unix::ffi::OsStrExt;
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(fd >= 0, "inotify_init1");
        for d in dirs {
            let c = std::ffi::CString::new(d.as_os_str().as_bytes()).unwrap();
            let wd = unsafe { libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_ALL_EVENTS) };
            assert!(wd >= 0, "inotify_add_watch {}", d.display());
        }
        Watch(fd)
    }

    /// Events since the watch began: (mask, name).
    fn events(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut i = 0;
            let head = std::mem::size_of::<libc::inotify_event>();
            while i + head <= n as usize {
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf.as_ptr().add(i).cast()) };
                let name = &buf[i + head..i + head + ev.len as usize];
                let name = String::from_utf8_lossy(name)
                    .trim_end_matches('\0')
                    .to_string();
                out.push((ev.mask, name));
                i += head + ev.len as usize;
            }
        }
        out
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        unsafe { libc::close(self.0) };
    }
}

/// `outside/` as it stands: name -> (length, modified time, bytes).
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, std::time::SystemTime, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let m = p.symlink_metadata().unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                (
                    m.len(),
                    m.modified().unwrap(),
                    std::fs::read(&p).unwrap_or_default(),
                ),
            )
        })
        .collect()
}

fn lay_out(dir: &Path, files: &BTreeMap<String, Entry>) {
    for (k, e) in files {
        let p = dir.join(k);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        match e {
            Entry::Bytes(b) => std::fs::write(&p, b).unwrap(),
            Entry::Link(t) => std::os::unix::fs::symlink(t, &p).unwrap(),
            Entry::Sparse(n) => std::fs::File::create(&p).unwrap().set_len(*n).unwrap(),
            Entry::Dir => std::fs::create_dir_all(&p).unwrap(),
            Entry::Fifo => {
                let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }
        }
    }
}

/// Regular files under `dir` (recursively) whose names end with `ext`.
fn drawn(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return v;
    };
    for e in rd {
        let p = e.unwrap().path();
        let m = p.symlink_metadata().unwrap();
        if m.is_dir() {
            v.extend(drawn(&p, ext));
        } else if m.is_file() && p.to_string_lossy().ends_with(ext) {
            v.push(p);
        }
    }
    v
}

/// Run `lagoon args` in this process: exit status and error message; a panic is Err.
fn run(args: Vec<String>, limit: Duration) -> Option<std::thread::Result<(i32, String)>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(|| {
            let cli = lagoon_cli::Cli::try_parse_from(&args).expect("a valid command line");
            match lagoon_cli::dispatch(cli) {
                Ok(()) => (0, String::new()),
                Err(e) => (2, format!("{e:#}")),
            }
        });
        let _ = tx.send(r);
    });
    rx.recv_timeout(limit).ok()
}

/// Failures of one kind: how many, and the first few.
#[derive(Default, Debug)]
struct Fails {
    n: u64,
    first: Vec<String>,
}

#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    rendered: u64,
    refused: u64,
    by_mode: BTreeMap<String, u64>,
    invalid: u64,
    crashes: Fails,
    hangs: Fails,
    outside: Fails,
    silent: Fails,
    wrong: Fails,
}

impl Tally {
    fn note(f: &mut Fails, s: String) {
        f.n += 1;
        if f.first.len() < 10 {
            f.first.push(s);
        }
    }
}

#[test]
fn render_only_stays_inside_the_folder_and_refuses_invalid_data() {
    let cases = env("LAGOON_FUZZ_CASES", 40);
    let seed = env("LAGOON_FUZZ_SEED", 1);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut t = Tally::default();
    let start = Instant::now();
    let work = tempfile::Builder::new()
        .prefix("lagoon-fuzz-render-")
        .tempdir()
        .unwrap();
    for n in 0..cases {
        let case_dir = work.path().join(format!("c{n}"));
        let outside = case_dir.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.txt"), "written by hand\n").unwrap();
        std::fs::write(outside.join("victim.csv"), "a,b\n1,2\n").unwrap();
        std::fs::write(outside.join("victim.svg"), "<svg/>\n").unwrap();
        let c = make_case(&mut rng, &outside);
        let folder = case_dir.join("r");
        std::fs::create_dir_all(&folder).unwrap();
        lay_out(&folder, &c.files);
        let before = snapshot(&outside);
        let mut args: Vec<String> = vec!["lagoon".into(), "reproduce".into(), c.paper.into()];
        if c.mode == Mode::Search {
            args.push("--sensitivity".into());
        }
        args.extend([
            "--render-only".into(),
            "--out".into(),
            folder.to_string_lossy().into(),
        ]);
        let label = format!("case {n} ({:?} {}): {}", c.mode, c.paper, c.what);
        *t.by_mode.entry(format!("{:?}", c.mode)).or_default() += 1;
        t.cases += 1;
        if matches!(c.expect, Expect::Refuse(_)) {
            t.invalid += 1;
        }

        let watch = Watch::on(&[&case_dir, &outside]);
        let r = run(args, Duration::from_secs(60));
        let events = watch.events();
        drop(watch);

        let strange: Vec<String> = events
            .iter()
            .filter(|(mask, name)| {
                !(name == "r"
                    && mask & libc::IN_ISDIR != 0
                    && mask & (libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVE | libc::IN_MODIFY)
                        == 0)
            })
            .map(|(mask, name)| format!("{name:?} {mask:#x}"))
            .collect();
        if !strange.is_empty() {
            Tally::note(&mut t.outside, format!("{label}: {strange:?}"));
        }
        if snapshot(&outside) != before {
            Tally::note(&mut t.outside, format!("{label}: outside/ changed"));
        }
        let names: Vec<String> = std::fs::read_dir(&case_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        if names.len() != 2 {
            Tally::note(
                &mut t.outside,
                format!("{label}: beside the folder: {names:?}"),
            );
        }
        match r {
            None => Tally::note(&mut t.hangs, label.clone()),
            Some(Err(_)) => Tally::note(&mut t.crashes, label.clone()),
            Some(Ok((0, _))) => {
                t.rendered += 1;
                match &c.expect {
                    Expect::Refuse(f) => {
                        Tally::note(&mut t.silent, format!("{label}: rendered, should name {f}"))
                    }
                    _ => {
                        for p in drawn(&folder, ".svg")
                            .into_iter()
                            .chain(drawn(&folder, ".md"))
                        {
                            let text = std::fs::read_to_string(&p).unwrap_or_default();
                            let bad = text
                                .split(|ch: char| !ch.is_ascii_alphanumeric())
                                .any(|w| matches!(w, "NaN" | "inf" | "Infinity"));
                            if bad {
                                Tally::note(
                                    &mut t.silent,
                                    format!("{label}: {} shows NaN or inf", p.display()),
                                );
                            }
                        }
                    }
                }
            }
            Some(Ok((_, err))) => {
                t.refused += 1;
                if err.is_empty() || err.len() > 2_000 {
                    Tally::note(
                        &mut t.wrong,
                        format!("{label}: an error of {} bytes", err.len()),
                    );
                }
                match &c.expect {
                    Expect::Ok => Tally::note(&mut t.wrong, format!("{label}: refused: {err}")),
                    Expect::Refuse(f) if !err.contains(f.as_str()) => Tally::note(
                        &mut t.wrong,
                        format!(
                            "{label}: the error does not name {f}: {}",
                            &err[..err.len().min(400)]
                        ),
                    ),
                    Expect::Refuse(_) => {
                        // Nothing drawn from the refused folder.
                        let hit = folder.join(&c.hit);
                        let svgs = drawn(&hit, ".svg");
                        let summary = hit
                            .join("summary.md")
                            .symlink_metadata()
                            .is_ok_and(|m| m.is_file());
                        if !svgs.is_empty() || summary {
                            Tally::note(
                                &mut t.silent,
                                format!(
                                    "{label}: refused, yet {} SVGs and summary {summary} drawn",
                                    svgs.len()
                                ),
                            );
                        }
                    }
                    Expect::Any => {}
                }
            }
        }
        let _ = std::fs::remove_dir_all(&case_dir);
    }
    let peak_kb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0);
    eprintln!(
        "fuzz render (seed {seed}): {} cases ({:?}) in {:.1} s, peak RSS {} MB: {} rendered, {} refused; {} tampered to be invalid; {} reading or writing outside the folder, {} crashes, {} hangs, {} silent renders of invalid data, {} wrong refusals or messages",
        t.cases,
        t.by_mode,
        start.elapsed().as_secs_f64(),
        peak_kb / 1024,
        t.rendered,
        t.refused,
        t.invalid,
        t.outside.n,
        t.crashes.n,
        t.hangs.n,
        t.silent.n,
        t.wrong.n
    );
    let fails: Vec<&String> = t
        .outside
        .first
        .iter()
        .chain(&t.crashes.first)
        .chain(&t.hangs.first)
        .chain(&t.silent.first)
        .chain(&t.wrong.first)
        .collect();
    assert!(fails.is_empty(), "{fails:#?}");
}
