//! Hostile configurations against every config key (issue 9): for each case a preset is
//! overlaid with one to three keys set to zero, negative, huge, tiny, NaN, infinite, wrong-type
//! or boundary values, on a random back end. Every case must end in one of two ways: an error
//! that names the key (or the file), or a run that completes every request. No panic, no hang
//! (the run happens on a thread with a deadline), and the process stays under 500 MB.
//!
//! Default: 3,000 cases (a few seconds, in CI). Long run, recorded in docs/ROBUSTNESS.md:
//!
//! ```sh
//! LAGOON_FUZZ_CASES=100000 [LAGOON_FUZZ_SEED=N] cargo test --release -p lagoon-core --test fuzz_config -- --nocapture
//! ```

use lagoon_core::config::schema::{Range, Value};
use lagoon_core::config::{presets, SsdConfig};
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A run slower than this is counted as a hang.
const DEADLINE: Duration = Duration::from_secs(60);
/// Drives whose up-front model state exceeds this are validated but not run: they are
/// legitimately large (the fuzz bar is 500 MB per process), not hostile.
const RUN_STATE_LIMIT: u64 = 256 << 20;
const MEMORY_LIMIT_KB: u64 = 500 * 1024;

/// Values thrown at a key: the schema's boundaries and their neighbours, then nonsense.
fn hostile(range: Range, rng: &mut Xoshiro256PlusPlus) -> String {
    let nonsense = [
        "\"eight\"",
        "true",
        "[1, 2]",
        "{ a = 1 }",
        "-1",
        "0",
        "-0.0",
    ];
    if rng.random_ratio(1, 8) {
        return nonsense[rng.random_range(0..nonsense.len())].to_string();
    }
    match range {
        Range::Int { min, max } => {
            let i64max = i64::MAX as u64;
            let picks = [
                min.saturating_sub(1),
                min,
                min + 1,
                max.saturating_sub(1),
                max,
                max.saturating_add(1),
                (max / 2).max(min),
                u32::MAX as u64,
                u32::MAX as u64 + 1,
                i64max,
                rng.random_range(min..=max.min(i64max)),
                rng.random_range(0..=64),
            ];
            picks[rng.random_range(0..picks.len())]
                .min(i64max)
                .to_string()
        }
        Range::Real { min, max, .. } => {
            let picks = [
                "nan".to_string(),
                "inf".to_string(),
                "-inf".to_string(),
                "1e-300".to_string(),
                "1e300".to_string(),
                "-1e300".to_string(),
                format!("{min:?}"),
                format!("{max:?}"),
                format!("{:?}", max * 2.0 + 1.0),
                format!("{:?}", min - 1.0),
                format!("{:?}", rng.random_range(min..=max)),
                format!("{:?}", rng.random_range(0.0..4.0)),
            ];
            picks[rng.random_range(0..picks.len())].clone()
        }
    }
}

/// `base = PRESET` plus `key = value` lines grouped by their TOML table.
fn toml_for(preset: &str, sets: &[(String, String)]) -> String {
    let mut t = format!("base = \"{preset}\"\n");
    for (key, v) in sets {
        let (table, name) = key.rsplit_once('.').expect("dotted key");
        if table == "ftl.mapping" {
            // The tagged mapping table needs its type with its fields.
            t.push_str(&format!("[{table}]\ntype = \"demand\"\n{name} = {v}\n"));
        } else {
            t.push_str(&format!("[{table}]\n{name} = {v}\n"));
        }
    }
    t
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    rejected: u64,
    ran: u64,
    large_not_run: u64,
    run_errors: u64,
    panics: u64,
    hangs: u64,
    unnamed_errors: u64,
}

#[test]
fn hostile_values_for_every_config_key() {
    let cases: u64 = std::env::var("LAGOON_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed: u64 = std::env::var("LAGOON_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x1a60_0f22);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let keys: Vec<_> = SsdConfig::default().keys();
    let start = Instant::now();
    let mut t = Tally::default();
    let mut failures = Vec::new();
    // Runs are short and use a small workload so that the long mode stays within minutes.
    let workloads = [
        "syn:read=70,size=uniform:4k-64k,arrival=qd:4,count=40",
        "syn:read=0,size=4k,addr=sequential,arrival=qd:2,count=40",
        "syn:read=100,size=16k,arrival=poisson:5us,count=40",
    ];
    for case in 0..cases {
        t.cases += 1;
        let preset = presets::NAMES[rng.random_range(0..presets::NAMES.len())];
        let n = rng.random_range(1..=3);
        let sets: Vec<(String, String)> = (0..n)
            .map(|_| {
                let k = &keys[rng.random_range(0..keys.len())];
                (k.key.clone(), hostile(k.range, &mut rng))
            })
            .collect();
        let text = toml_for(preset, &sets);
        let arch = Arch::ALL[rng.random_range(0..Arch::ALL.len())];
        let cfg = match SsdConfig::from_toml(&text, "fuzz.toml") {
            Err(e) => {
                t.rejected += 1;
                let msg = e.to_string();
                let named = msg.contains("fuzz.toml")
                    || sets.iter().any(|(k, _)| msg.contains(k.as_str()))
                    || msg.contains("flash (geometry)");
                if !named {
                    t.unnamed_errors += 1;
                    failures.push(format!("case {case}: error names no key: {msg}\n{text}"));
                }
                continue;
            }
            Ok(c) => c,
        };
        // Every accepted value must also be inside the schema (no key escapes validation).
        for k in cfg.keys() {
            if let Err(e) = k.range.check(k.value) {
                failures.push(format!(
                    "case {case}: accepted {} = {}: {e}",
                    k.key, k.value
                ));
            }
        }
        if cfg.model_state_bytes() > RUN_STATE_LIMIT {
            t.large_not_run += 1;
            continue;
        }
        let w = workloads[rng.random_range(0..workloads.len())].to_string();
        let seed = rng.random::<u64>();
        let (tx, rx) = mpsc::channel();
        let handle = std::thread::spawn(move || {
            let mut s = Scenario::new("fuzz", cfg, arch, vec![w]);
            s.seed = seed;
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.run(|_| {})));
            let _ = tx.send(r.map(|r| r.map(|rep| rep.requests).map_err(|e| e.to_string())));
        });
        match rx.recv_timeout(DEADLINE) {
            Ok(Ok(Ok(requests))) => {
                t.ran += 1;
                if requests != 40 {
                    failures.push(format!("case {case}: {requests} of 40 requests\n{text}"));
                }
            }
            Ok(Ok(Err(msg))) => {
                // A back end that derives its own keys (NoSSD's network) must still name one
                // the case set, not the derived one.
                t.run_errors += 1;
                let named = !msg.starts_with("invalid configuration")
                    || sets.iter().any(|(k, _)| msg.contains(k.as_str()));
                if !named {
                    t.unnamed_errors += 1;
                    failures.push(format!(
                        "case {case}: run error on {arch} names no key the case set: {msg}\n{text}"
                    ));
                }
            }
            Ok(Err(_)) => {
                t.panics += 1;
                failures.push(format!("case {case}: panic on {arch}\n{text}"));
            }
            Err(_) => {
                t.hangs += 1;
                failures.push(format!(
                    "case {case}: no result in {DEADLINE:?} on {arch}\n{text}"
                ));
                continue;
            }
        }
        let _ = handle.join();
    }
    let rss = peak_rss_kb();
    eprintln!(
        "fuzz_config: {t:?}, peak RSS {:.0} MB, {:.1} s",
        rss as f64 / 1024.0,
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(rss < MEMORY_LIMIT_KB, "peak RSS {rss} kB over 500 MB");
    assert!(t.ran > 0 && t.rejected > 0, "{t:?}");
}

/// The schema's own ranges are sane: each accepts its preset value and rejects NaN.
#[test]
fn every_preset_value_lies_in_its_declared_range() {
    for name in presets::NAMES {
        let c = presets::by_name(name).unwrap();
        for k in c.keys() {
            k.range
                .check(k.value)
                .unwrap_or_else(|e| panic!("{name} {}: {e}", k.key));
            if let Range::Real { .. } = k.range {
                assert!(k.range.check(Value::Real(f64::NAN)).is_err(), "{}", k.key);
            }
        }
    }
}
