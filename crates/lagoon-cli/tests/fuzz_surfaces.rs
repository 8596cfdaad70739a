//! In-process fuzzers for the surfaces issue 32 names (docs/ROBUSTNESS.md): network
//! configurations run under the SSD, `lagoon net` points, lifetimes, and the MQSim importer.
//! Every case must end in time (a watchdog cancels it: a case still running then is a hang),
//! without a panic; a value outside a key's declared range must be refused by name (never
//! accepted); every report must pass `lagoon_lab::invariants`, every `lagoon net` point flit
//! conservation and every lifetime its own invariants.
//!
//! Cases per surface: `LAGOON_FUZZ_CASES` (default 40, what CI runs), seed `LAGOON_FUZZ_SEED`
//! (default 1); `LAGOON_FUZZ_SURFACE` picks one (network, net, lifetime, mqsim). The long
//! runs behind docs/ROBUSTNESS.md use, e.g.,
//! `LAGOON_FUZZ_CASES=20000 cargo test --release -p lagoon-cli --test fuzz_surfaces -- --nocapture`.

use lagoon_core::cancel::Cancel;
use lagoon_core::config::schema::Range;
use lagoon_core::config::SsdConfig;
use lagoon_core::interconnect::network::traffic::{run_point, Pattern, Windows};
use lagoon_core::interconnect::Arch;
use lagoon_core::lifetime::{self, LifetimeSpec, Pattern as LifePattern};
use lagoon_core::scenario::{Scenario, ScenarioError};
use lagoon_core::sim::SimError;
use lagoon_lab::invariants;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

mod common;
use common::fuzz::{env, Rng};

fn surface_on(name: &str) -> bool {
    std::env::var("LAGOON_FUZZ_SURFACE").map_or(true, |s| s == name)
}

/// What the cases of a surface did.
#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    ok: u64,
    refused: u64,
    failures: Vec<String>,
    /// Cases stopped at the time limit while their simulated time moved on.
    slow: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        if self.failures.len() < 20 {
            self.failures.push(what);
        } else if self.failures.len() == 20 {
            self.failures.push("(further failures left out)".into());
        }
    }
    fn finish(self, surface: &str, seed: u64) {
        eprintln!(
            "fuzz {surface} (seed {seed}): {} cases, {} ran, {} refused with a message, {} stopped at the time limit while simulating, {} failures",
            self.cases,
            self.ok,
            self.refused,
            self.slow.len(),
            self.failures.len()
        );
        for s in &self.slow {
            eprintln!("  slow: {s}");
        }
        assert!(self.failures.is_empty(), "{surface}: {:#?}", self.failures);
    }
}

/// Cancel a case still running after `limit` (a hang), on a thread of its own.
fn watchdog(limit: Duration) -> (Cancel, std::sync::mpsc::Sender<()>) {
    let c = Cancel::new();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let cc = c.clone();
    std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            cc.abort();
        }
    });
    (c, tx)
}

/// A value for a numeric key: in its range (its bounds, log-spread values between), or out of
/// it (below, above, NaN, infinite, negative); and whether it is in range.
fn value(rng: &mut Rng, range: &Range) -> (String, bool) {
    let out = rng.below(4) == 0;
    match *range {
        Range::Int { min, max } => {
            if out {
                let v: Vec<String> = [
                    (min > 0).then(|| (min - 1).to_string()),
                    (max < u64::MAX).then(|| (max as u128 + 1).min(i64::MAX as u128).to_string()),
                    Some("-1".into()),
                ]
                .into_iter()
                .flatten()
                .collect();
                let s = rng.pick(&v).clone();
                // max + 1 beyond i64 cannot be written in TOML: then it is not "out of range"
                // but unrepresentable, and the parser refuses it too.
                (s, false)
            } else {
                let hi = max.min(1 << 20).max(min);
                let v = match rng.below(3) {
                    0 => min,
                    1 => hi,
                    _ => {
                        let span = (hi - min) as f64;
                        min + (span * rng.unit().powi(3)) as u64
                    }
                };
                (v.to_string(), true)
            }
        }
        Range::Real { min, max, open_min } => {
            if out {
                let cands = [
                    "nan".to_string(),
                    "inf".to_string(),
                    "-inf".to_string(),
                    format!("{:e}", if min > 0.0 { min / 2.0 } else { min - 1.0 }),
                    format!("{:e}", max * 2.0 + 1.0),
                ];
                let mut s = rng.pick(&cands).clone();
                if open_min && rng.below(3) == 0 {
                    s = format!("{:e}", min);
                }
                if s.contains('e') && !s.contains('.') {
                    s = s.replace('e', ".0e");
                }
                (s, false)
            } else {
                let hi = max.min(1e6).max(min);
                let lo = if open_min {
                    min + (hi - min) * 1e-3
                } else {
                    min
                };
                let v = match rng.below(3) {
                    0 => lo,
                    1 => hi,
                    _ => lo + (hi - lo) * rng.unit().powi(3),
                };
                (format!("{v:?}"), true)
            }
        }
    }
}

/// Network configurations under the SSD (`--arch net`): random `[network]` keys, in and out
/// of their ranges, and random topology / routing / switching words.
#[test]
fn network_configurations() {
    if !surface_on("network") {
        return;
    }
    let (cases, seed) = (env("LAGOON_FUZZ_CASES", 40), env("LAGOON_FUZZ_SEED", 1));
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let base = SsdConfig::load("mqsimnet").unwrap();
    let keys: Vec<_> = base
        .keys()
        .into_iter()
        .filter(|k| k.key.starts_with("network."))
        .collect();
    let choices: Vec<_> = base
        .choice_keys()
        .into_iter()
        .filter(|c| c.key.starts_with("network."))
        .collect();
    let mut t = Tally::default();
    for case in 0..cases {
        t.cases += 1;
        // Key -> (line, in range); a key drawn twice keeps its last value (TOML refuses
        // duplicates).
        let mut set = std::collections::BTreeMap::new();
        for _ in 0..1 + rng.below(4) {
            if rng.below(3) == 0 && !choices.is_empty() {
                let c = rng.pick(&choices);
                let mut words = c.choices.clone();
                words.push("bogus".into());
                let w = rng.pick(&words).clone();
                let k = c.key.trim_start_matches("network.").to_string();
                set.insert(k.clone(), (format!("{k} = \"{w}\""), w != "bogus"));
            } else {
                let k = rng.pick(&keys);
                let (v, ok) = value(&mut rng, &k.range);
                let k = k.key.trim_start_matches("network.").to_string();
                set.insert(k.clone(), (format!("{k} = {v}"), ok));
            }
        }
        let all_in_range = set.values().all(|x| x.1);
        let lines: Vec<String> = set.values().map(|x| x.0.clone()).collect();
        let text = format!("base = \"mqsimnet\"\n[network]\n{}\n", lines.join("\n"));
        let parsed = catch_unwind(|| SsdConfig::from_toml(&text, "fuzz.toml"));
        let cfg = match parsed {
            Err(_) => {
                t.fail(format!("case {case}: panic parsing\n{text}"));
                continue;
            }
            Ok(Err(e)) => {
                if e.to_string().trim().is_empty() {
                    t.fail(format!("case {case}: an error without a message\n{text}"));
                }
                t.refused += 1;
                continue;
            }
            Ok(Ok(c)) => c,
        };
        if !all_in_range {
            t.fail(format!(
                "case {case}: a value outside its range was accepted\n{text}"
            ));
            continue;
        }
        let (cancel, done) = watchdog(Duration::from_secs(30));
        let mut sc = Scenario::new(
            "fuzz",
            cfg,
            Arch::Net,
            vec![format!(
                "syn:read={},size={},addr=uniform,arrival=qd:{},count=300",
                rng.below(101),
                rng.pick(&["4k", "16k", "64k", "uniform:4k-128k"][..]),
                1 + rng.below(32)
            )],
        );
        sc.seed = rng.next() % 1000;
        sc.cancel = Some(cancel.clone());
        let start = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| sc.run(|_| {})));
        let _ = done.send(());
        match r {
            Err(_) => t.fail(format!("case {case}: panic running\n{text}")),
            // Stopped at the limit by the cancellation, simulated time having moved on: slow
            // work (the engine's watchdog ends a run whose time stops moving with an error of
            // its own), counted apart and listed.
            Ok(Err(ScenarioError::Sim(SimError::Cancelled { time_ns })))
                if cancel.is_set() && time_ns > 0.0 =>
            {
                t.slow.push(format!(
                    "case {case}: stopped at {:?} at {time_ns:.0} ns simulated\n{text}",
                    start.elapsed()
                ));
            }
            Ok(_) if cancel.is_set() => t.fail(format!(
                "case {case}: no end in {:?}\n{text}",
                start.elapsed()
            )),
            Ok(Err(e)) => {
                if e.to_string().trim().is_empty() {
                    t.fail(format!("case {case}: an error without a message\n{text}"));
                }
                t.refused += 1;
            }
            Ok(Ok(report)) => {
                let e = invariants::check(&report);
                if e.is_empty() {
                    t.ok += 1;
                } else {
                    t.fail(format!("case {case}: invariants {e:?}\n{text}"));
                }
            }
        }
    }
    t.finish("network", seed);
}

/// `lagoon net` points: random networks (as above, in range), patterns, loads over 15
/// decades and windows; a point ends, and conserves flits.
#[test]
fn net_points() {
    if !surface_on("net") {
        return;
    }
    let (cases, seed) = (env("LAGOON_FUZZ_CASES", 40), env("LAGOON_FUZZ_SEED", 1));
    let mut rng = Rng(seed.wrapping_mul(0xbf58_476d_1ce4_e5b9) | 1);
    let mut t = Tally::default();
    for case in 0..cases {
        t.cases += 1;
        let presets: [&str; 2] = ["mqsimnet", "perf-optimized"];
        let preset = *rng.pick(&presets);
        let mut cfg = SsdConfig::load(preset).unwrap();
        cfg.network.packet_flits = *rng.pick(&[1, 4, 16, 512]);
        cfg.network.vcs = *rng.pick(&[1, 2, 4]);
        let pattern = *rng.pick(&Pattern::ALL);
        let load = 10f64.powf(-15.0 * rng.unit().powi(2));
        let w = Windows {
            warmup_cycles: *rng.pick(&[0, 100, 1_000, 10_000]),
            sample_cycles: *rng.pick(&[1, 10, 1_000, 5_000]),
            drain_cycles: *rng.pick(&[0, 1_000, 20_000]),
            max_samples: *rng.pick(&[1, 2, 10]),
            min_packets: *rng.pick(&[1, 100, 1_000]),
            converge: *rng.pick(&[0.01, 0.05, 0.5]),
        };
        let what = format!(
            "{pattern} load {load:e} {w:?} packet_flits {} vcs {}",
            cfg.network.packet_flits, cfg.network.vcs
        );
        let (cancel, done) = watchdog(Duration::from_secs(60));
        let r = catch_unwind(AssertUnwindSafe(|| {
            run_point(&cfg, pattern, load, w, rng.next() % 100, Some(&cancel))
        }));
        let _ = done.send(());
        match r {
            Err(_) => t.fail(format!("case {case}: panic: {what}")),
            Ok(Ok(p)) if p.unmeasured.as_deref() == Some("interrupted (a cancel request)") => {
                t.fail(format!("case {case}: no end in 60 s: {what}"))
            }
            Ok(Err(e)) => {
                if e.to_string().trim().is_empty() {
                    t.fail(format!("case {case}: an error without a message: {what}"));
                }
                t.refused += 1;
            }
            Ok(Ok(p)) => {
                let cells = 64.0 * (p.samples as u64 * w.sample_cycles) as f64;
                let mut bad = Vec::new();
                if p.unmeasured.is_none() {
                    if p.accepted_load
                        > p.generated_load + p.backlog_flits_start as f64 / cells + 1e-9
                    {
                        bad.push("accepted > generated + backlog at the start");
                    }
                    if p.packets_measured < w.min_packets {
                        bad.push("fewer packets than the minimum");
                    }
                    let l = p.latency_cycles;
                    let ordered = l.p50 <= l.p99 && l.p99 <= l.max && l.mean <= l.max + 1e-9;
                    if !ordered {
                        bad.push("latency percentiles out of order");
                    }
                } else if p.saturated || p.accepted_load != 0.0 || p.generated_load != 0.0 {
                    bad.push("an unmeasured point with numbers");
                } else if p.packets_measured >= w.min_packets {
                    bad.push("flagged unmeasured with enough packets");
                }
                if bad.is_empty() {
                    t.ok += 1;
                } else {
                    t.fail(format!("case {case}: {bad:?}: {what}: {p:?}"));
                }
            }
        }
    }
    t.finish("net", seed);
}

/// Lifetimes: tiny drives, random wear and spec values in and out of range; a lifetime ends
/// (watchdog), and its report is consistent.
#[test]
fn lifetimes() {
    if !surface_on("lifetime") {
        return;
    }
    let (cases, seed) = (env("LAGOON_FUZZ_CASES", 40), env("LAGOON_FUZZ_SEED", 1));
    let mut rng = Rng(seed.wrapping_mul(0x94d0_49bb_1331_11eb) | 1);
    let mut t = Tally::default();
    for case in 0..cases {
        t.cases += 1;
        let mut text = String::from("base = \"dssd-superblock\"\n[flash]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 1\nblocks_per_plane = 48\npages_per_block = 8\n[ftl]\ngc_threshold = 0.05\n[wear]\n");
        let base = SsdConfig::from_toml(&text, "fuzz").unwrap();
        let wear: Vec<_> = base
            .keys()
            .into_iter()
            .filter(|k| k.key.starts_with("wear."))
            .collect();
        let mut set = std::collections::BTreeMap::new();
        set.insert("pe_mean".to_string(), ("pe_mean = 60.0".to_string(), true));
        for _ in 0..1 + rng.below(3) {
            let k = rng.pick(&wear);
            let (v, ok) = value(&mut rng, &k.range);
            // Keep lifetimes short: P/E limits below 200.
            let v = if k.key == "wear.pe_mean" && ok {
                format!("{:?}", 5.0 + 195.0 * rng.unit())
            } else {
                v
            };
            let name = k.key.trim_start_matches("wear.").to_string();
            set.insert(name.clone(), (format!("{name} = {v}"), ok));
        }
        let in_range = set.values().all(|x| x.1);
        let mode = *rng.pick(&["static", "recycled", "reserv"]);
        set.insert(
            "superblock".into(),
            (format!("superblock = \"{mode}\""), true),
        );
        let lines: Vec<String> = set.values().map(|x| x.0.clone()).collect();
        text.push_str(&lines.join("\n"));
        text.push('\n');
        let text = text;
        let cfg = match catch_unwind(|| SsdConfig::from_toml(&text, "fuzz.toml")) {
            Err(_) => {
                t.fail(format!("case {case}: panic parsing\n{text}"));
                continue;
            }
            Ok(Err(_)) => {
                t.refused += 1;
                continue;
            }
            Ok(Ok(c)) => c,
        };
        if !in_range {
            t.fail(format!(
                "case {case}: a value outside its range was accepted\n{text}"
            ));
            continue;
        }
        let spec = LifetimeSpec {
            request_bytes: *rng.pick(&[4096, 16384, 32768, 128 << 10, 1000, 0]),
            pattern: *rng.pick(&[LifePattern::Random, LifePattern::Sequential]),
            utilization: *rng.pick(&[0.5, 0.9, 0.99, 0.0, 1.0, f64::NAN]),
            stop_bad_fraction: *rng.pick(&[1.0, 0.1, 0.5]),
            stop_srt_active: *rng.pick(&[None, Some(1), Some(8)]),
            seed: rng.next() % 1000,
        };
        let (cancel, done) = watchdog(Duration::from_secs(60));
        let r = catch_unwind(AssertUnwindSafe(|| {
            lifetime::age_cancellable(&cfg, &spec, Some(&cancel), |_, _| {})
        }));
        let _ = done.send(());
        match r {
            Err(_) => t.fail(format!("case {case}: panic\n{text}{spec:?}")),
            Ok(Err(e)) if e == lifetime::CANCELLED => {
                t.fail(format!("case {case}: no end in 60 s\n{text}{spec:?}"))
            }
            Ok(Err(e)) => {
                if e.trim().is_empty() {
                    t.fail(format!("case {case}: an error without a message"));
                }
                t.refused += 1;
            }
            Ok(Ok((r, _))) => {
                let mut bad = Vec::new();
                if r.bad_curve.windows(2).any(|w| {
                    w[0].host_bytes > w[1].host_bytes
                        || w[0].bad_superblocks >= w[1].bad_superblocks
                }) {
                    bad.push("bad-superblock curve not increasing");
                }
                if r.first_bad_superblock_bytes
                    .is_some_and(|b| b > r.host_bytes_written)
                {
                    bad.push("first bad superblock after the end");
                }
                if !(r.min_erases as f64 <= r.mean_erases + 1e-9
                    && r.mean_erases <= r.max_erases as f64 + 1e-9)
                {
                    bad.push("erases min <= mean <= max fails");
                }
                if r.bad_curve.len() as u32 > r.superblocks {
                    bad.push("more bad superblocks than superblocks");
                }
                if bad.is_empty() {
                    t.ok += 1;
                } else {
                    t.fail(format!("case {case}: {bad:?}\n{text}{spec:?}"));
                }
            }
        }
    }
    t.finish("lifetime", seed);
}

/// The MQSim importer on mutations of the shared configuration and workload: values swapped
/// for hostile numbers and words, elements duplicated, removed, nested or renamed, text cut
/// short. Every case is an import or one error (no panic); a non-finite or out-of-i64 value
/// never imports.
#[test]
fn mqsim_imports() {
    if !surface_on("mqsim") {
        return;
    }
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/validation/mqsim/"
    );
    let (Ok(cfg), Ok(wl)) = (
        std::fs::read_to_string(format!("{dir}ssdconfig-perf-optimized.xml")),
        std::fs::read_to_string(format!("{dir}workload-tpcc.xml")),
    ) else {
        eprintln!("../shared/validation/mqsim is absent: skipped");
        return;
    };
    let (cases, seed) = (env("LAGOON_FUZZ_CASES", 40), env("LAGOON_FUZZ_SEED", 1));
    let mut rng = Rng(seed.wrapping_mul(0xd6e8_feb8_6659_fd93) | 1);
    let tmp = tempfile::tempdir().unwrap();
    let hostile = [
        "NaN",
        "nan",
        "inf",
        "-inf",
        "1e309",
        "99999999999999999999",
        "18446744073709551615",
        "9223372036854775808",
        "-1",
        "0",
        "1e-300",
        "",
        " ",
        "x",
        "TRUE",
        "0x10",
        "1.5",
        "-0",
    ];
    // The parameters whose values are numbers in the shared files (a path stays text, and
    // "NaN" there is a name).
    let numeric: std::collections::HashSet<String> = [&cfg, &wl]
        .iter()
        .flat_map(|text| {
            text.split('<')
                .filter_map(|piece| {
                    let (tag, rest) = piece.split_once('>')?;
                    (!tag.starts_with('/')
                        && !tag.contains(' ')
                        && rest.trim().parse::<f64>().is_ok())
                    .then(|| tag.to_string())
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut t = Tally::default();
    for case in 0..cases {
        t.cases += 1;
        let mutate = |rng: &mut Rng, text: &str| -> (String, Vec<String>) {
            let mut s = text.to_string();
            let mut non_finite = Vec::new();
            for _ in 0..1 + rng.below(3) {
                // The value of a random leaf element.
                let opens: Vec<usize> = s.match_indices('<').map(|m| m.0).collect();
                let i = *rng.pick(&opens);
                let Some(gt) = s[i..].find('>') else { continue };
                let tag = s[i + 1..i + gt].to_string();
                if tag.starts_with('/') || tag.starts_with('?') || tag.contains(' ') {
                    continue;
                }
                let close = format!("</{tag}>");
                let Some(end) = s[i..].find(&close) else {
                    continue;
                };
                let inner = &s[i + gt + 1..i + end];
                if inner.contains('<') {
                    continue;
                }
                let v = match rng.below(6) {
                    0 => format!("{}{}", "<x>".repeat(200), "</x>".repeat(200)),
                    1 => String::new(),
                    _ => rng.pick(&hostile).to_string(),
                };
                // Only numbers planted where a number is (a path is text: "NaN" is a name).
                if numeric.contains(&tag)
                    && [
                        "NaN",
                        "nan",
                        "inf",
                        "-inf",
                        "1e309",
                        "99999999999999999999",
                        "18446744073709551615",
                        "9223372036854775808",
                    ]
                    .contains(&v.as_str())
                {
                    non_finite.push(tag.clone());
                }
                s = format!("{}{v}{}", &s[..i + gt + 1], &s[i + end..]);
            }
            if rng.below(10) == 0 {
                let cut = rng.below(s.len());
                s.truncate(
                    s.char_indices()
                        .map(|c| c.0)
                        .take_while(|&c| c <= cut)
                        .last()
                        .unwrap_or(0),
                );
            }
            (s, non_finite)
        };
        let (c, bad_c) = mutate(&mut rng, &cfg);
        let (w, bad_w) = if rng.below(2) == 0 {
            mutate(&mut rng, &wl)
        } else {
            (wl.clone(), Vec::new())
        };
        let (pc, pw) = (tmp.path().join("c.xml"), tmp.path().join("w.xml"));
        std::fs::write(&pc, &c).unwrap();
        std::fs::write(&pw, &w).unwrap();
        match catch_unwind(|| lagoon_cli::import::mqsim::import(&pc, Some(&pw))) {
            Err(_) => t.fail(format!("case {case}: panic\n{c}\n{w}")),
            Ok(Err(e)) => {
                if format!("{e:#}").trim().is_empty() {
                    t.fail(format!("case {case}: an error without a message"));
                }
                t.refused += 1;
            }
            Ok(Ok(imp)) => {
                // A non-finite or out-of-range number imports only on a parameter the
                // importer lists as not modelled (kept as text, never used as a number).
                let listed = |tag: &String| imp.not_modelled.iter().any(|(p, _, _)| p == tag);
                let used: Vec<&String> =
                    bad_c.iter().chain(&bad_w).filter(|t| !listed(t)).collect();
                if used.is_empty() {
                    t.ok += 1;
                } else {
                    t.fail(format!(
                        "case {case}: {used:?} imported with a non-finite or out-of-range value"
                    ));
                }
            }
        }
    }
    t.finish("mqsim", seed);
}
