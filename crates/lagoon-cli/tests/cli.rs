//! The `lagoon` command as a user sees it: outputs, and one clear error with exit code 2
//! for every kind of bad input.

use std::process::Command;

mod common;
use common::{lagoon, lagoon_env, tmp, TRACES};

/// `lagoon trace stats` reproduces the table of shared/traces/README.md.
#[test]
fn trace_stats_reproduce_readme_table() {
    let expected = [
        ("tpcc-small.trace", 6_999u64, 62.6, 8.33, 19.5, 0.136),
        ("wsrch-small.trace", 24_783, 100.0, 15.06, 2_423.0, 60.1),
        ("msr-cut-105.trace", 10_000, 20.2, 5.35, 24_293.0, 242.9),
        ("fiu-cheetah-mail.trace", 9_998, 89.0, 4.00, 2_358.0, 23.6),
    ];
    for (name, n, read, kb, gap, span) in expected {
        let path = format!("{TRACES}{name}");
        let (code, out, err) = lagoon(&["trace", "stats", &path, "--json", "-"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["requests"].as_u64().unwrap(), n, "{name}");
        let close = |key: &str, want: f64, places: i32| {
            let got = v[key].as_f64().unwrap();
            let scale = 10f64.powi(places);
            assert_eq!((got * scale).round() / scale, want, "{name} {key}: {got}");
        };
        close("read_pct", read, 1);
        close("avg_size_kb", kb, 2);
        close("avg_interarrival_us", gap, if gap > 100.0 { 0 } else { 1 });
        close("span_s", span, if span < 1.0 { 3 } else { 1 });
    }
}

#[test]
fn run_writes_json_with_required_keys() {
    let (code, out, err) = lagoon(&[
        "run",
        "--ssd",
        "perf-optimized",
        "--arch",
        "ideal",
        "--workload",
        "syn:read=100,size=4k,arrival=qd:8,count=2000",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in [
        "requests",
        "reads",
        "writes",
        "sim_time_ns",
        "iops",
        "bandwidth_mb_s",
        "latency_ns",
        "read_latency_ns",
        "write_latency_ns",
        "path_conflict_fraction",
        "wall_time_s",
        "events",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    for k in ["mean", "p50", "p90", "p99", "p999", "max"] {
        assert!(v["latency_ns"].get(k).is_some(), "missing latency_ns.{k}");
    }
    assert_eq!(v["requests"], 2000);
    assert_eq!(v["path_conflict_fraction"], 0.0);
}

#[test]
fn run_prints_summary_and_cdf() {
    let cdf = tmp("cdf.csv", "");
    let (code, out, err) = lagoon(&[
        "run",
        "--workload",
        &format!("{TRACES}tpcc-small.trace"),
        "--replay",
        "timed:4",
        "--cdf",
        &cdf,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("requests     6999"), "{out}");
    assert!(out.contains("replay=timed:4"), "{out}");
    let text = std::fs::read_to_string(&cdf).unwrap();
    assert!(text.starts_with("class,latency_ns,cumulative_fraction"));
    assert!(text
        .lines()
        .any(|l| l.starts_with("read,") && l.ends_with(",1.000000")));
}

fn assert_error(args: &[&str], needles: &[&str]) {
    let (code, _, err) = lagoon(args);
    assert_eq!(code, 2, "exit code for {args:?}: stderr {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr for {args:?} lacks '{n}': {err}");
    }
}

#[test]
fn errors_are_one_clear_message() {
    let wl = "syn:count=10";
    assert_error(
        &["run", "--ssd", "perf-optimised", "--workload", wl],
        &["unknown SSD preset 'perf-optimised'", "perf-optimized"],
    );
    let bad_key = tmp("bad.toml", "[flash]\nchanels = 4\n");
    assert_error(
        &["run", "--ssd", &bad_key, "--workload", wl],
        &["bad.toml", "chanels"],
    );
    let geometry = tmp("geo.toml", "[flash]\nblocks_per_plane = 0\n");
    assert_error(
        &["run", "--ssd", &geometry, "--workload", wl],
        &["flash.blocks_per_plane"],
    );
    let trace = tmp("bad.trace", "0 0 0 8 1\n10 0 8 8 1\n20 0 x 8 1\n");
    assert_error(
        &["run", "--workload", &trace, "--format", "mqsim"],
        &["bad.trace:3"],
    );
    assert_error(
        &["trace", "stats", &trace, "--format", "mqsim"],
        &["bad.trace:3"],
    );
    assert_error(
        &["run", "--workload", "/no/such/file.trace"],
        &["/no/such/file.trace"],
    );
    assert_error(&["run", "--workload", "syn:reed=5"], &["reed"]);
    assert_error(&["run", "--workload", wl, "--arch", "venus"], &["venus"]);
    assert_error(
        &["run", "--workload", wl, "--replay", "closed:0"],
        &["closed:0"],
    );
}

#[test]
fn lenient_parsing_skips_bad_lines() {
    let trace = tmp(
        "lenient.trace",
        "0 0 0 8 1\n10 0 8 8 1\n20 0 x 8 1\n30 0 16 8 0\n",
    );
    let (code, out, err) = lagoon(&[
        "run",
        "--workload",
        &trace,
        "--format",
        "mqsim",
        "--lenient",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"], 3);
    assert_eq!(v["skipped_lines"], 1);
}

/// Venice Fig. 15 sensitivity: 4x16, 8x8 and 16x4 meshes of the same 64 chips.
#[test]
fn mesh_sensitivity_runs_from_the_command_line() {
    for mesh in ["4x16", "8x8", "16x4"] {
        let (code, out, err) = lagoon(&[
            "run",
            "--arch",
            "venice",
            "--mesh",
            mesh,
            "--workload",
            "syn:read=100,size=4k,arrival=qd:8,count=500",
            "--json",
            "-",
        ]);
        assert_eq!(code, 0, "{mesh}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["requests"], 500);
        let rows: usize = mesh.split('x').next().unwrap().parse().unwrap();
        assert_eq!(
            v["interconnect"]["venice"]["controller_utilization"]
                .as_array()
                .unwrap()
                .len(),
            rows
        );
        for k in [
            "first_try_fraction",
            "scout_retries",
            "mean_path_hops",
            "nonminimal_fraction",
            "backtracks",
        ] {
            assert!(v["venice"].get(k).is_some(), "{mesh}: venice.{k}");
        }
    }
}

/// `lagoon compare`: one record per chosen design, baseline's speed-up exactly 1.
#[test]
fn compare_runs_every_chosen_design() {
    let (code, out, err) = lagoon(&[
        "compare",
        "--workload",
        "syn:read=100,size=4k,arrival=qd:8,count=300",
        "--arch",
        "baseline,venice,ideal",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let recs = v.as_array().unwrap();
    let designs: Vec<&str> = recs.iter().map(|r| r["design"].as_str().unwrap()).collect();
    assert_eq!(designs, ["baseline", "venice", "ideal"]);
    for r in recs {
        assert_eq!(r["requests"], 300);
    }
    let (code, _, err) = lagoon(&["compare", "--workload", "syn:count=5", "--arch", "bus"]);
    assert_eq!(code, 2);
    assert!(err.contains("--arch 'bus'"), "{err}");
}

/// `lagoon compare` over several `--ssd`: every (drive, design) pair, drive by drive, named by
/// preset or file stem (the path when two stems collide), speed-up over baseline on the same
/// drive; one `--ssd` keeps its table without the `ssd` column; same seed, same output.
#[test]
fn compare_runs_every_drive_and_design() {
    let wl = "syn:read=100,size=4k,arrival=qd:8,count=2000";
    let small = tmp(
        "small-drive.toml",
        "[flash]\nchannels = 4\nchips_per_channel = 4\n",
    );
    let args = |ssds: &[&str], extra: &[&str]| {
        let mut v = vec![
            "compare",
            "--arch",
            "baseline,venice",
            "--workload",
            wl,
            "--quiet",
        ];
        for s in ssds {
            v.extend(["--ssd", s]);
        }
        v.extend_from_slice(extra);
        lagoon(&v)
    };
    let (code, two, err) = args(&["perf-optimized", &small], &[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = two.lines().collect();
    assert_eq!(
        lines[0],
        format!("perf-optimized (8x8), small-drive (4x4), workload {wl}")
    );
    let head: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(head[..3], ["ssd", "design", "exec"], "{two}");
    // The rows, then the legend (speedup:, conflict-free:, maybe a note:).
    let rows: Vec<Vec<&str>> = lines[2..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(
        two.contains("\nconflict-free: requests none of whose flash transfers waited"),
        "{two}"
    );
    let pairs: Vec<(&str, &str)> = rows.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        pairs,
        [
            ("perf-optimized", "baseline"),
            ("perf-optimized", "venice"),
            ("small-drive", "baseline"),
            ("small-drive", "venice"),
        ],
        "{two}"
    );
    // Each drive's baseline is its own reference.
    assert_eq!((rows[0][3], rows[2][3]), ("1.00", "1.00"), "{two}");
    assert_ne!(
        rows[0][2], rows[2][2],
        "different drives, same time:\n{two}"
    );

    // One --ssd: the table as before, and the same numbers as that drive's rows above.
    let (code, one, err) = args(&["perf-optimized"], &[]);
    assert_eq!(code, 0, "{err}");
    let one: Vec<&str> = one.lines().collect();
    // Heading, column heads, two rows, the two lines of the legend.
    assert_eq!(one.len(), 6, "{one:?}");
    assert!(one[4].starts_with("speedup: ") && one[5].starts_with("conflict-free: "));
    assert_eq!(one[0], format!("perf-optimized (8x8), workload {wl}"));
    assert!(one[1].starts_with("  design "), "{}", one[1]);
    for (single, row) in one[2..4].iter().zip(&rows[..2]) {
        let fields: Vec<&str> = single.split_whitespace().collect();
        assert_eq!(fields, row[1..], "{single}");
    }

    // JSON: the drive's name on every record; any thread count gives the same bytes.
    let (code, json, err) = args(&["perf-optimized", &small], &["--json", "-", "--jobs", "1"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let recs: Vec<(&str, &str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["requests"], 2000);
            (
                r["ssd"].as_str().unwrap(),
                r["mesh"].as_str().unwrap(),
                r["design"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recs,
        [
            ("perf-optimized", "8x8", "baseline"),
            ("perf-optimized", "8x8", "venice"),
            ("small-drive", "4x4", "baseline"),
            ("small-drive", "4x4", "venice"),
        ]
    );
    let (_, again, _) = args(&["perf-optimized", &small], &["--json", "-", "--jobs", "4"]);
    assert_eq!(json, again);

    // Two files with one stem go by their paths.
    let other = std::path::Path::new(&*small)
        .parent()
        .unwrap()
        .join("other/small-drive.toml");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "[flash]\nchannels = 2\nchips_per_channel = 8\n").unwrap();
    let other = other.to_str().unwrap();
    let (code, out, err) = lagoon(&[
        "compare",
        "--ssd",
        &small,
        "--ssd",
        other,
        "--arch",
        "ideal",
        "--workload",
        wl,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, [&*small, other], "{out}");
}

/// A bad `--ssd` among several is one error naming it, before anything runs.
#[test]
fn compare_names_a_bad_ssd_once() {
    let wl = "syn:read=100,size=4k,arrival=qd:8,count=2000";
    let bad_key = tmp("bad-drive.toml", "[flash]\nchanels = 4\n");
    let geometry = tmp("geo-drive.toml", "[flash]\nblocks_per_plane = 0\n");
    let cases: [(&str, &[&str]); 4] = [
        (
            "cost-optimised",
            &["unknown SSD preset 'cost-optimised'", "cost-optimized"],
        ),
        (&bad_key, &["bad-drive.toml", "chanels"]),
        (
            &geometry,
            &["--ssd ", "geo-drive.toml", "flash.blocks_per_plane"],
        ),
        ("perf-optimized", &["--ssd perf-optimized is given twice"]),
    ];
    for (second, needles) in cases {
        let (code, out, err) = lagoon(&[
            "compare",
            "--ssd",
            "perf-optimized",
            "--ssd",
            second,
            "--arch",
            "baseline,venice",
            "--workload",
            wl,
        ]);
        assert_eq!(code, 2, "{second}: {err}");
        assert!(out.is_empty(), "{second}: {out}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{second}: {err}"
        );
        for n in needles {
            assert!(err.contains(n), "stderr for {second} lacks '{n}': {err}");
        }
        assert_eq!(err.matches(second).count(), 1, "named once: {err}");
    }
}

fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect()
}

/// `lagoon reproduce venice` (tiny runs, two seeds): every figure's data file holds one row
/// per design × workload plus a per-design average, with intervals over the seeds; every
/// figure is drawn; headlines.json holds every headline of the paper's file with an interval
/// and a verdict by the rule; the summary re-renders identically from the files and says
/// nothing about notes when none were given.
#[test]
fn reproduce_venice_writes_every_figure() {
    let dir = tempfile::Builder::new()
        .prefix("lagoon-repro-venice-")
        .tempdir()
        .unwrap();
    let out = dir.path().join("out");
    let d = out.to_str().unwrap();
    let (code, _, err) = lagoon(&[
        "reproduce",
        "venice",
        "--quick",
        "--requests",
        "150",
        "--out",
        d,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let workloads = 19;
    for (file, n_designs, n_rows_per_design) in [
        ("fig09_perf_timed.csv", 5, workloads + 1),
        ("fig09_perf_closed.csv", 5, workloads + 1),
        ("fig09_cost_timed.csv", 5, workloads + 1),
        ("fig09_cost_closed.csv", 5, workloads + 1),
        ("fig10_perf.csv", 6, workloads + 1),
        ("fig10_cost.csv", 6, workloads + 1),
        ("fig11_p99.csv", 6, workloads + 1),
        ("fig12_mixes.csv", 5, 6 + 1),
        ("fig13_conflicts.csv", 6, workloads + 1),
        ("fig14_energy.csv", 5, workloads + 1),
        ("fig15_sensitivity.csv", 4, 3),
    ] {
        let rows = csv_rows(&out.join(file));
        assert_eq!(rows.len(), n_designs * n_rows_per_design, "{file}");
        let mut seen: Vec<String> = rows.iter().map(|r| r[..2].join("/")).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), rows.len(), "{file}: a row repeats");
    }
    // The timed runs have two seeds: every cell has n = 2 and an interval around its mean.
    for r in csv_rows(&out.join("fig09_perf_timed.csv")) {
        let v: Vec<f64> = r[2..5].iter().map(|x| x.parse().unwrap()).collect();
        assert_eq!(r[5], "2", "{r:?}");
        assert!(v[1] <= v[0] && v[0] <= v[2], "{r:?}");
    }
    // The closed-loop runs have one seed: no interval.
    for r in csv_rows(&out.join("fig09_perf_closed.csv")) {
        assert_eq!(
            (r[3].as_str(), r[4].as_str(), r[5].as_str()),
            ("", "", "1"),
            "{r:?}"
        );
    }
    for f in [
        "fig09_perf_timed.svg",
        "fig09_cost_closed.svg",
        "fig09_perf32gbs_closed.svg",
        "fig10_perf.svg",
        "fig11_cdf_src1_0.svg",
        "fig11_cdf_hm_0.svg",
        "fig12_mixes.svg",
        "fig13_conflicts.svg",
        "fig14_energy.svg",
        "fig14_power.svg",
        "fig15_sensitivity.svg",
        "venice_links_closed.svg",
    ] {
        let s = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(s.starts_with("<svg") && s.contains("</svg>"), "{f}");
    }
    assert!(
        std::fs::read_to_string(out.join("fig09_perf_timed.svg"))
            .unwrap()
            .contains(r#"class="ci""#),
        "the timed speed-ups draw their intervals"
    );
    let runs = csv_rows(&out.join("runs.csv"));
    // Two seeds on the timed runs of both drives, the mixes and the 4x16 array; one on the
    // closed-loop, lifted-link and 16x4 runs.
    assert_eq!(
        runs.len(),
        2 * (2 * 19 * 6) + 2 * 19 * 6 + 19 * 6 + 2 * 6 * 6 + 2 * 19 * 5 + 19 * 5
    );
    // Every run carries its seed and the hash of the drive it simulated.
    assert!(runs.iter().all(|r| r[1] == "1" || r[1] == "2"));
    assert!(runs
        .iter()
        .all(|r| r.last().unwrap().starts_with("fnv1a64:")));
    let h = headlines(&out);
    let paper = lagoon_lab::reproduce::claims::paper("venice").unwrap();
    let ids: Vec<&str> = paper
        .numbers
        .iter()
        .filter(|n| n.headline)
        .map(|n| n.id.as_str())
        .collect();
    assert_eq!(
        h["headlines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ids
    );
    assert_rule_holds(&h, 2);
    assert_eq!(h["provenance"]["seeds"], serde_json::json!([1, 2]));
    assert!(h["provenance"]["configs"]["perf-optimized"]
        .as_str()
        .unwrap()
        .starts_with("fnv1a64:"));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.to_lowercase().contains("notes"), "{md}");
    assert_numbers_come_from_the_files(&out);
    assert_render_only_reproduces(&out, "venice", None);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for d in ["pssd", "pnssd", "nossd", "venice", "ideal"] {
        assert!(
            s["speedup_over_baseline"]["perf-optimized"][d].is_number(),
            "{d}"
        );
        assert!(
            s["speedup_over_baseline"]["cost-optimized"][d].is_number(),
            "{d}"
        );
        assert!(s["energy_vs_baseline"][d].is_number(), "{d}");
        assert!(s["speedup_over_baseline_lifted_link"][d].is_number(), "{d}");
    }
    for d in ["baseline", "pssd", "pnssd", "nossd", "venice", "ideal"] {
        let f = s["first_try_conflict_free"][d].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f), "{d}: {f}");
    }
}

/// headlines.json of a reproduction's directory.
fn headlines(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("headlines.json")).unwrap()).unwrap()
}

/// Every measured headline has `seeds` values, a 95 % interval around its mean, and the
/// verdict and outside-interval flag the rule gives from its numbers (recomputed here from the
/// rule's definition, not from the code that wrote them).
fn assert_rule_holds(h: &serde_json::Value, seeds: u64) {
    for x in h["headlines"].as_array().unwrap() {
        if x["verdict"] == "not-measured" {
            assert!(x["lagoon"].is_null(), "{x}");
            continue;
        }
        let l = &x["lagoon"];
        let (m, n) = (l["mean"].as_f64().unwrap(), l["n"].as_u64().unwrap());
        assert_eq!(n, seeds, "{x}");
        // One seed has no interval: the value itself stands for it.
        let ci: Vec<f64> = match l["ci95"].as_array() {
            Some(a) => a.iter().map(|v| v.as_f64().unwrap()).collect(),
            None => {
                assert_eq!(seeds, 1, "{x}");
                vec![m, m]
            }
        };
        assert!(ci[0] <= m && m <= ci[1], "{x}");
        let p = x["paper"]["value"].as_f64().unwrap();
        let ok = match x["paper"]["kind"].as_str().unwrap() {
            "ratio" => {
                let (el, ep) = (m - 1.0, p - 1.0);
                el.signum() == ep.signum() && el != 0.0 && (el - ep).abs() <= 0.25 * ep.abs()
            }
            "rate" => ((1.0 - m) - (1.0 - p)).abs() <= 0.25 * (1.0 - p),
            _ => (m - p).abs() <= 0.25 * p.abs(),
        };
        assert_eq!(
            x["verdict"],
            if ok { "reproduced" } else { "not-reproduced" },
            "{x}"
        );
        assert_eq!(x["outside_ci"], !(ci[0] <= p && p <= ci[1]), "{x}");
    }
}

/// Every number with a decimal point in summary.md is one of the directory's files' numbers
/// (a CSV cell or a JSON number) as written or rounded to the decimals shown.
fn assert_numbers_come_from_the_files(dir: &std::path::Path) {
    let mut known: Vec<f64> = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
        if ext != "csv" && ext != "json" {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for tok in text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e')) {
            if let Ok(v) = tok.parse::<f64>() {
                known.push(v);
                known.push(100.0 * v); // rates shown as percentages
            }
        }
    }
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    // The notes (given with --notes) are text written by hand, not rendered from the files.
    let md = md
        .split("\n## Notes (written by hand")
        .next()
        .unwrap_or_default();
    for tok in md.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')) {
        let Some((_, frac)) = tok.split_once('.') else {
            continue;
        };
        let Ok(v) = tok.parse::<f64>() else { continue };
        let d = frac.len() as i32;
        let found = known
            .iter()
            .any(|k| ((k * 10f64.powi(d)).round() - v * 10f64.powi(d)).abs() < 0.5 + 1e-6);
        assert!(
            found,
            "{}: {tok} in summary.md is in none of its files",
            dir.display()
        );
    }
}

/// `lagoon reproduce PAPER --render-only` on a copy of `dir` writes every figure and the
/// summary byte for byte as they are.
fn assert_render_only_reproduces(dir: &std::path::Path, paper: &str, notes: Option<&str>) {
    let copy = tempfile::Builder::new()
        .prefix("lagoon-render-")
        .tempdir()
        .unwrap();
    let to = copy.path().join("r");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
        // The rendered files are removed first, so they must all be drawn again.
        if ext != "svg" && p.file_name().unwrap() != "summary.md" {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    let mut args = vec![
        "reproduce",
        paper,
        "--render-only",
        "--out",
        to.to_str().unwrap(),
    ];
    if let Some(n) = notes {
        args.extend(["--notes", n]);
    }
    let (code, verdict, err) = lagoon(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        verdict.contains("published headline numbers reproduced"),
        "{verdict}"
    );
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        let (a, b) = (std::fs::read(&p).unwrap(), std::fs::read(to.join(name)));
        assert!(
            b.as_ref().is_ok_and(|b| *b == a),
            "{}: re-rendered {} differs or is missing",
            dir.display(),
            name.to_string_lossy()
        );
    }
    let errs = lagoon_lab::reproduce::book::check_headlines(dir).unwrap();
    assert!(errs.is_empty(), "{errs:?}");
}

/// The committed reproductions (docs/results/*/headlines.json): each re-renders byte for byte
/// from its files (with its notes.md), its headlines agree with its per-seed values and the
/// rule, every number of its summary is in its files, and the README's verdict lines are the
/// ones its headlines.json gives (scripts/readme-verdicts writes them).
#[test]
fn committed_results_re_render_and_the_readme_agrees() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("docs/results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("headlines.json").is_file())
        .collect();
    dirs.sort();
    assert!(
        !dirs.is_empty(),
        "no committed reproduction with a headlines.json"
    );
    let mut lines = Vec::new();
    for dir in &dirs {
        let h = headlines(dir);
        let paper = h["paper"].as_str().unwrap().to_string();
        let notes = dir.join("notes.md");
        let notes = notes.is_file().then(|| notes.to_str().unwrap().to_string());
        assert_render_only_reproduces(dir, &paper, notes.as_deref());
        assert_numbers_come_from_the_files(dir);
        let n = h["provenance"]["seeds"].as_array().unwrap().len() as u64;
        assert_rule_holds(&h, n);
        let name = dir.file_name().unwrap().to_string_lossy();
        let parsed = lagoon_lab::reproduce::claims::read_headlines(dir).unwrap();
        lines.push(format!(
            "- {}",
            lagoon_lab::reproduce::book::verdict_line(&parsed, &format!("docs/results/{name}"))
        ));
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("<!-- verdicts:begin -->\n")
        .nth(1)
        .and_then(|s| s.split("<!-- verdicts:end -->").next())
        .expect("README has the verdicts block");
    assert_eq!(
        block,
        lines.join("\n") + "\n",
        "run scripts/readme-verdicts"
    );
}

/// Every committed sensitivity search (docs/results/sensitivity/PAPER) re-renders byte for
/// byte from its sensitivity.json with `--sensitivity --render-only`, and every number its
/// summary gives of a headline is one of the search's points.
#[test]
fn committed_sensitivity_searches_re_render() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("docs/results/sensitivity");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let copy = tempfile::Builder::new()
        .prefix("lagoon-sensitivity-")
        .tempdir()
        .unwrap();
    let mut n = 0;
    for e in entries {
        let from = e.unwrap().path();
        if !from.join("sensitivity.json").is_file() {
            continue;
        }
        let paper = from.file_name().unwrap().to_string_lossy().into_owned();
        let to = copy.path().join(&paper);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(from.join("sensitivity.json"), to.join("sensitivity.json")).unwrap();
        let (code, _, err) = lagoon(&[
            "reproduce",
            &paper,
            "--sensitivity",
            "--render-only",
            "--out",
            to.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{paper}: {err}");
        for f in std::fs::read_dir(&from).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap();
            let ext = f.extension().and_then(|x| x.to_str()).unwrap_or("");
            if ext == "svg" || name == "summary.md" {
                assert_eq!(
                    std::fs::read(&f).unwrap(),
                    std::fs::read(to.join(name)).unwrap_or_default(),
                    "{paper}: {} does not re-render (lagoon reproduce {paper} --sensitivity --render-only --out docs/results/sensitivity/{paper})",
                    name.to_string_lossy()
                );
            }
        }
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(from.join("sensitivity.json")).unwrap())
                .unwrap();
        let points = s["points"].as_array().unwrap();
        for h in s["headlines"].as_array().unwrap() {
            let id = h["id"].as_str().unwrap();
            let vals: Vec<f64> = points
                .iter()
                .filter_map(|p| p["values"][id]["mean"].as_f64())
                .collect();
            let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(
                (h["low"].as_f64(), h["high"].as_f64()),
                (Some(lo), Some(hi)),
                "{paper}: {id}"
            );
            assert_eq!(
                h["as_built"].as_f64(),
                points[0]["values"][id]["mean"].as_f64(),
                "{paper}: {id}"
            );
            // Every point the reproduction's own per-reading file records.
            for p in points {
                let own: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(
                        from.join("points")
                            .join(format!("{}.json", p["id"].as_str().unwrap())),
                    )
                    .unwrap(),
                )
                .unwrap();
                let mine = own["headlines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["id"] == id)
                    .map(|x| x["lagoon"]["mean"].clone());
                assert_eq!(
                    mine,
                    Some(p["values"][id]["mean"].clone()),
                    "{paper}: {id} at point {}",
                    p["id"]
                );
            }
        }
        n += 1;
    }
    assert!(n > 0 || !dir.exists());
}

/// docs/results/FIDELITY.md comes out byte for byte from the committed papers' files with
/// `lagoon reproduce all --render-only` (and every paper's summary with it); its counts and
/// rows agree with each headlines.json (read here as plain JSON); every evidence file a
/// committed headline names is in the repository, with the authors' simulator's value in it.
#[test]
fn fidelity_md_re_renders_from_the_committed_results() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let results = root.join("docs/results");
    let copy = tempfile::Builder::new()
        .prefix("lagoon-fidelity-")
        .tempdir()
        .unwrap();
    let to = copy.path().join("r");
    let papers = ["venice", "piq", "mqsimnet", "dssd", "superblocks"];
    let mut present = Vec::new();
    for paper in papers {
        let dir = results.join(paper);
        if !dir.join("headlines.json").is_file() {
            continue;
        }
        present.push(paper);
        std::fs::create_dir_all(to.join(paper)).unwrap();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if p.is_file() && ext != "svg" && p.file_name().unwrap() != "summary.md" {
                std::fs::copy(&p, to.join(paper).join(p.file_name().unwrap())).unwrap();
            }
        }
        let search = results
            .join("sensitivity")
            .join(paper)
            .join("sensitivity.json");
        if search.is_file() {
            let dir = to.join("sensitivity").join(paper);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(&search, dir.join("sensitivity.json")).unwrap();
        }
    }
    assert!(!present.is_empty());
    let (code, out, err) = lagoon(&[
        "reproduce",
        "all",
        "--render-only",
        "--out",
        to.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.matches("published headline numbers reproduced").count(),
        present.len(),
        "{out}"
    );
    let md = std::fs::read_to_string(to.join("FIDELITY.md")).unwrap();
    assert_eq!(
        md,
        std::fs::read_to_string(results.join("FIDELITY.md")).unwrap(),
        "docs/results/FIDELITY.md: run lagoon reproduce all --render-only --out docs/results"
    );
    for paper in &present {
        assert_eq!(
            std::fs::read(to.join(paper).join("summary.md")).unwrap(),
            std::fs::read(results.join(paper).join("summary.md")).unwrap(),
            "{paper}: summary.md re-rendered by reproduce all differs"
        );
    }
    let mut total = [0usize; 7];
    let mut rows = 0;
    for paper in &present {
        let h = headlines(&results.join(paper));
        let hs = h["headlines"].as_array().unwrap();
        let n = |f: &dyn Fn(&serde_json::Value) -> bool| hs.iter().filter(|x| f(x)).count();
        let c = [
            hs.len(),
            n(&|x| x["verdict"] == "reproduced"),
            n(&|x| x["verdict"] == "not-reproduced"),
            n(&|x| x["verdict"] == "not-measured"),
            n(&|x| x["evidence"] == "authors-simulator"),
            n(&|x| x["evidence"] == "sensitivity"),
            n(&|x| x["evidence"] == "lagoon-only"),
        ];
        let cells = |c: &[usize; 7]| {
            c.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" | ")
        };
        assert!(
            md.contains(&format!("\n| `{paper}` | {} |\n", cells(&c))),
            "FIDELITY.md: no counts row {paper} {c:?}"
        );
        for (t, x) in total.iter_mut().zip(c) {
            *t += x;
        }
        for x in hs {
            let verdict = x["verdict"].as_str().unwrap().replace('-', " ");
            let row = format!("| `{paper}` | `{}` |", x["id"].as_str().unwrap());
            let line = md
                .lines()
                .find(|l| l.starts_with(&row))
                .unwrap_or_else(|| panic!("FIDELITY.md: no row {row}"));
            assert!(line.contains(&format!("| {verdict} |")), "{line}");
            rows += 1;
            // Issue 34: a headline the runs do not reproduce is settled by the authors'
            // simulator or a sensitivity search, never left at Lagoon's word alone.
            assert!(
                !(x["verdict"] == "not-reproduced" && x["evidence"] == "lagoon-only"),
                "{paper}: {} is not reproduced with Lagoon-only evidence",
                x["id"]
            );
            if x["evidence"] == "sensitivity" {
                let f = format!("docs/results/sensitivity/{paper}/summary.md");
                assert_eq!(x["evidence_file"].as_str(), Some(f.as_str()), "{x}");
                let search: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(
                        results
                            .join("sensitivity")
                            .join(paper)
                            .join("sensitivity.json"),
                    )
                    .unwrap(),
                )
                .unwrap();
                let id = x["id"].as_str().unwrap();
                assert!(
                    search["headlines"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|r| r["id"] == id),
                    "{paper}: the sensitivity search has no {id}"
                );
            }
            if let Some(f) = x["evidence_file"].as_str() {
                let text = std::fs::read_to_string(root.join(f))
                    .unwrap_or_else(|e| panic!("{paper}: evidence_file {f}: {e}"));
                assert!(line.contains(&format!("[{f}](/{f})")), "{line}");
                if let Some(v) = x["authors"]["value"].as_f64() {
                    assert_eq!(x["evidence"], "authors-simulator", "{x}");
                    assert!(text.contains(&format!("{v}")), "{paper}: {v} is not in {f}");
                }
            }
        }
        assert!(md.contains(&format!(
            "`{}`",
            h["provenance"]["command"].as_str().unwrap()
        )));
    }
    let cells = total
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" | ");
    assert!(
        md.contains(&format!("\n| all | {cells} |\n")),
        "all: {total:?}"
    );
    assert_eq!(rows, total[0]);
}

/// `--refresh-evidence` rewrites only the evidence: the committed PIQ headlines with their
/// evidence taken away come back as committed, numbers and verdicts untouched.
#[test]
fn refresh_evidence_restores_the_committed_evidence() {
    use lagoon_lab::reproduce::book;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("docs/results/piq");
    let copy = tempfile::Builder::new()
        .prefix("lagoon-evidence-")
        .tempdir()
        .unwrap();
    let to = copy.path().join("piq");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
    // The evidence taken away in the text itself (parsing and writing the file again could
    // move a number's last digit).
    let text = std::fs::read_to_string(to.join("headlines.json")).unwrap();
    let (mut out, mut in_authors, mut stripped) = (String::new(), false, 0);
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if in_authors {
            in_authors = !t.starts_with('}');
        } else if t.starts_with("\"authors\": {") {
            in_authors = true;
        } else if t.starts_with("\"evidence\": ") {
            stripped += usize::from(!t.contains("lagoon-only"));
            out.push_str("      \"evidence\": \"lagoon-only\",\n");
        } else if t.starts_with("\"evidence_file\": ") {
            out.push_str("      \"evidence_file\": null,\n");
        } else if let Some((base, _)) = line.split_once("; the authors' simulator, ") {
            out.push_str(base);
            out.push_str(if line.ends_with('\n') { "\"\n" } else { "\"" });
        } else {
            out.push_str(line);
        }
    }
    assert!(stripped >= 3, "{stripped} PIQ headlines with evidence");
    std::fs::write(to.join("headlines.json"), out).unwrap();
    assert!(!book::check_headlines(&to).unwrap().is_empty());
    let notes = to.join("notes.md");
    let (code, _, err) = lagoon(&[
        "reproduce",
        "piq",
        "--refresh-evidence",
        "--out",
        to.to_str().unwrap(),
        "--notes",
        notes.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("evidence rewritten for {stripped} of")),
        "{err}"
    );
    for f in ["headlines.json", "summary.md"] {
        assert_eq!(
            std::fs::read_to_string(to.join(f)).unwrap(),
            std::fs::read_to_string(dir.join(f)).unwrap(),
            "{f}"
        );
    }
}

/// `reproduce all` takes only what every paper shares, and checks it before simulating.
#[test]
fn reproduce_all_refuses_one_papers_options() {
    for (flag, value) in [
        ("--traces", TRACES),
        ("--requests", "10"),
        ("--notes", "x.md"),
    ] {
        let (code, _, err) = lagoon(&["reproduce", "all", flag, value, "--out", "-"]);
        assert_eq!(code, 2, "{flag}: {err}");
        let (code, _, err) = lagoon(&["reproduce", "all", flag, value]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains(flag) && err.contains("reproduce PAPER"),
            "{err}"
        );
    }
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = lagoon(&[
        "reproduce",
        "all",
        "--render-only",
        "--out",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no paper's directory"), "{err}");
}

/// Every time claim of the README is CPU seconds, the figure docs/BENCHMARKS.md's "Command
/// times" table gives for that very command; `--help` makes none.
#[test]
fn every_time_claim_is_cpu_seconds_from_the_benchmarks() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let bench = std::fs::read_to_string(root.join("docs/BENCHMARKS.md")).unwrap();
    let mut claims = 0;
    for line in readme.lines().filter(|l| l.starts_with("lagoon ")) {
        let (cmd, comment) = line.split_once(" #").unwrap_or((line, ""));
        let cmd = cmd.trim();
        // A number of seconds, minutes or hours anywhere but as CPU seconds is a claim the
        // table cannot check.
        let words: Vec<&str> = comment
            .split(|c: char| c.is_whitespace() || "(),;".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            let next = words.get(i + 1).copied().unwrap_or("");
            let number = w
                .trim_start_matches('~')
                .replace(',', "")
                .parse::<f64>()
                .is_ok();
            if number && ["s", "min", "minutes", "h", "hours", "seconds"].contains(&next) {
                panic!("README: a time that is not CPU-s: {line}");
            }
            if number && next == "CPU-s" {
                claims += 1;
                let row = format!("| `{cmd}` | {} |", w.trim_start_matches('~'));
                assert!(
                    bench.lines().any(|b| b.starts_with(&row)),
                    "README: {line}\nBENCHMARKS.md has no row starting {row}"
                );
            }
        }
    }
    assert!(claims >= 5, "{claims} CPU-s claims in the README");
    for args in [
        &["reproduce", "--help"][..],
        &["lifetime", "--help"],
        &["net", "--help"],
        &["--help"],
    ] {
        let (_, out, _) = lagoon(args);
        for w in out.split_whitespace().collect::<Vec<_>>().windows(2) {
            let number = w[0].trim_start_matches(['~', '(']).parse::<f64>().is_ok();
            assert!(
                !(number && ["s", "s)", "min", "minutes", "seconds"].contains(&w[1])),
                "{args:?} --help claims a time: {} {}",
                w[0],
                w[1]
            );
        }
    }
}

/// The same experiment on a directory of the user's traces: the headlines the traces cannot
/// measure (mixes, sensitivity) are listed as not measured.
#[test]
fn reproduce_venice_on_trace_files() {
    let dir = std::env::temp_dir().join(format!("lagoon-repro-traces-{}", std::process::id()));
    let traces = dir.join("in");
    std::fs::create_dir_all(&traces).unwrap();
    let mut t = String::new();
    for i in 0..200u64 {
        // MQSim ASCII: time(ns) device lba(sectors) size(sectors) type(1 = read)
        t.push_str(&format!(
            "{} 0 {} 8 {}\n",
            i * 5_000,
            i * 977 % 100_000 * 8,
            i % 3 % 2
        ));
    }
    std::fs::write(traces.join("tiny.trace"), t).unwrap();
    let out = dir.join("out");
    let (code, _, err) = lagoon(&[
        "reproduce",
        "venice",
        "--traces",
        traces.to_str().unwrap(),
        "--seeds",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows = csv_rows(&out.join("fig09_perf_timed.csv"));
    assert_eq!(rows.len(), 5 * 2);
    assert_eq!(rows.iter().filter(|r| r[0] == "tiny").count(), 5);
    let h = headlines(&out);
    let verdict = |id: &str| {
        h["headlines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap()["verdict"]
            .clone()
    };
    assert_eq!(verdict("mixes_venice"), "not-measured");
    assert_eq!(verdict("sensitivity_4x16_venice"), "not-measured");
    assert_rule_holds(&h, 2);
    let (code, _, err) = lagoon(&["reproduce", "nopaper", "--quiet"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown paper 'nopaper'"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `lagoon reproduce piq` on a directory of traces: one row per scheduler × workload (and an
/// average per scheduler) in every figure's data file, the queue sweep 1..512, the headlines
/// with intervals over two seeds and the per-scheme averages in summary.json.
#[test]
fn reproduce_piq_writes_every_figure() {
    let (dir, out) = reproduce_on_tiny_trace("piq", "200", |i| i % 3 % 2);
    let workloads = 3; // the trace and the two synthetic workloads
    for f in [
        "fig08_read_latency.csv",
        "fig08_write_latency.csv",
        "fig10_read_wait.csv",
        "fig10_write_wait.csv",
        "fig12_chip_utilization.csv",
    ] {
        assert_eq!(csv_rows(&out.join(f)).len(), 5 * (workloads + 1), "{f}");
    }
    assert_eq!(csv_rows(&out.join("fig11_queue_length.csv")).len(), 5 * 10);
    assert_eq!(csv_rows(&out.join("backends.csv")).len(), 3 * 5);
    // 11 slot counts x 3 workloads, the device table's 5 models x 3 (two from the sweep).
    assert_eq!(csv_rows(&out.join("slot_sweep.csv")).len(), 11 * workloads);
    assert_eq!(
        csv_rows(&out.join("device_sensitivity.csv")).len(),
        5 * workloads
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for scheme in ["noop", "rws", "piq-r", "piq-w", "piq"] {
        for k in [
            "read_latency_vs_rws",
            "write_latency_vs_rws",
            "busy_chips_vs_rws",
        ] {
            assert!(s[k][scheme].is_number(), "{scheme}.{k}");
        }
    }
    // RWS against itself, every seed and workload.
    assert_eq!(s["read_latency_vs_rws"]["rws"], 1.0);
    // One slot: one request in the device at a time, whatever the order, so PIQ keeps as many
    // chips busy as RWS (latencies may differ with the order).
    for w in s["piq_by_slots"]["1"].as_object().unwrap().values() {
        assert!(
            (w["chip_utilization_vs_rws"].as_f64().unwrap() - 1.0).abs() < 1e-9,
            "{w}"
        );
    }
    // Figs. 1, 2a, 2b and 9: a row per series x workload and an average per series (Fig. 1:
    // NOOP; Fig. 2: reads and writes; Fig. 9: NOOP and RWS); NOOP never puts a read ahead.
    for (f, series) in [
        ("fig01_chip_utilization.csv", 1),
        ("fig02a_conflicts.csv", 2),
        ("fig02b_degradation.csv", 2),
        ("fig09_prioritized_reads.csv", 2),
    ] {
        assert_eq!(
            csv_rows(&out.join(f)).len(),
            series * (workloads + 1),
            "{f}"
        );
    }
    for r in csv_rows(&out.join("fig09_prioritized_reads.csv")) {
        if r[1] == "noop" {
            assert_eq!(r[2], "0.0000", "{r:?}");
        }
    }
    assert_eq!(
        csv_rows(&out.join("table1_trace_characteristics.csv")).len(),
        workloads
    );
    let h = headlines(&out);
    assert_eq!(h["headlines"].as_array().unwrap().len(), 9);
    assert_rule_holds(&h, 2);
    // The headline runs model SSDsim's device (5 requests inside, writes done at transfer).
    assert_eq!(
        s["headline_device"],
        "5 slots, out-of-order dies, writes done at transfer (SSDsim)"
    );
    for f in [
        "fig01_chip_utilization.svg",
        "fig02a_conflicts.svg",
        "fig02b_degradation.svg",
        "fig09_prioritized_reads.svg",
        "fig08_read_latency.svg",
        "fig11_read_latency_vs_queue.svg",
        "fig12_chip_utilization.svg",
        "slot_sweep_read_latency.svg",
        "slot_sweep_busy_chips.svg",
    ] {
        assert!(
            std::fs::read_to_string(out.join(f))
                .unwrap()
                .starts_with("<svg"),
            "{f}"
        );
    }
    assert_render_only_reproduces(&out, "piq", None);
    std::fs::remove_dir_all(&dir).ok();
}

/// `--host-scheduler` on `run`: the flow reports its scheduler, and a bad name is one clear error.
#[test]
fn run_with_a_host_scheduler() {
    let (code, out, err) = lagoon(&[
        "run",
        "--ssd",
        "piq-ssdsim",
        "--workload",
        "syn:read=50,size=8k,arrival=qd:16,count=400",
        "--host-scheduler",
        "piq",
        "--host-queue",
        "8",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"], 400);
    let h = &v["flows"][0]["host_scheduler"];
    assert_eq!(h["scheme"], "piq");
    assert_eq!(h["queue_length"], 8);
    assert_eq!(
        h["reads"].as_u64().unwrap() + h["writes"].as_u64().unwrap(),
        400
    );
    assert!(v["mean_busy_chips"].as_f64().unwrap() > 0.0);
    let (code, _, err) = lagoon(&[
        "run",
        "--workload",
        "syn:count=5",
        "--host-scheduler",
        "cfq",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'cfq'") && err.contains("piq-r"),
        "{err}"
    );
    // A queue length without a scheduler, or of 0, is an error, not silently ignored.
    let (code, _, err) = lagoon(&["run", "--workload", "syn:count=5", "--host-queue", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("--host-scheduler"), "{err}");
    let (code, _, err) = lagoon(&[
        "run",
        "--workload",
        "syn:count=5",
        "--host-scheduler",
        "piq",
        "--host-queue",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--host-queue") && err.contains("1..=65536"),
        "{err}"
    );
}

/// Help lists come from the code's own lists: every back end, preset and scheduler.
#[test]
fn help_lists_every_back_end_preset_and_scheduler() {
    let (code, out, _) = lagoon(&["run", "--help"]);
    assert_eq!(code, 0);
    for name in ["baseline", "pssd", "pnssd", "nossd", "venice", "ideal"] {
        assert!(out.contains(&format!("- {name}:")), "{name} in:\n{out}");
    }
    for name in ["perf-optimized", "cost-optimized", "piq-ssdsim"] {
        assert!(out.contains(name), "{name} in:\n{out}");
    }
    for name in ["noop", "rws", "piq-r", "piq-w", "piq"] {
        assert!(out.contains(&format!("- {name}:")), "{name} in:\n{out}");
    }
    let (code, out, _) = lagoon(&["config", "--keys"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("network.max_router_visits") && out.contains("1..=255"),
        "{out}"
    );
    // Keys that take a word, with every word: found from the parser, so a new one shows.
    for line in [
        "flash.channel_arbitration          data-out-first   fifo | data-out-first | command-first",
        "flash.multiplane                   same-offset      same-offset | any | off",
        "ftl.mapping.type                   demand           ideal | demand",
    ] {
        assert!(out.lines().any(|l| l == line), "{line} in:\n{out}");
    }
    assert!(
        !out.lines().any(|l| l.starts_with("name ")),
        "free text is not a choice"
    );
}

/// `lagoon` alone (the README's first command): every back end in two tables.
#[test]
fn demo_runs_every_back_end() {
    let (code, out, err) = lagoon(&[]);
    assert_eq!(code, 0, "{err}");
    for d in ["baseline", "pssd", "pnssd", "nossd", "venice", "ideal"] {
        let rows = out
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("{d} ")))
            .count();
        assert_eq!(rows, 2, "{d} in both tables:\n{out}");
    }
    // The columns are explained where they are printed; the note about Venice follows the
    // numbers (printed only when Venice's IOPS are below Baseline's).
    assert!(out.contains("\nconflict-free: requests none of whose flash transfers waited"));
    let iops = |d: &str| -> f64 {
        out.lines()
            .filter(|l| l.trim_start().starts_with(&format!("{d} ")))
            .map(|l| l.split_whitespace().nth(3).unwrap().parse::<f64>().unwrap())
            .sum()
    };
    assert_eq!(
        out.contains("Venice trails Baseline here"),
        iops("venice") < iops("baseline"),
        "{out}"
    );
}

/// `run --heatmap`: one coloured line per mesh link (112 on 8x8) and a box per controller; a
/// back end without mesh links is one clear error.
#[test]
fn heatmap_of_venice_links() {
    let path = std::env::temp_dir().join(format!("lagoon-heat-{}.svg", std::process::id()));
    let p = path.to_str().unwrap();
    let w = "syn:read=100,size=4k,arrival=qd:16,count=500";
    let (code, _, err) = lagoon(&[
        "run",
        "--arch",
        "venice",
        "--workload",
        w,
        "--heatmap",
        p,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&path).unwrap();
    assert_eq!(svg.matches("% busy</title></line>").count(), 112);
    assert_eq!(svg.matches("<title>FC").count(), 8);
    let (code, _, err) = lagoon(&[
        "run",
        "--arch",
        "baseline",
        "--workload",
        w,
        "--heatmap",
        p,
        "--quiet",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--heatmap: the baseline back end"), "{err}");
    std::fs::remove_file(&path).ok();
}

/// Every `lagoon` command in the README's "Using it" block runs as written (exit 0), from a
/// working directory whose `../shared` is the real one, so relative trace paths resolve.
#[test]
fn every_readme_example_runs_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("## Using it")
        .nth(1)
        .and_then(|s| s.split("```sh").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("README has a ```sh block under 'Using it'");
    let mut commands = Vec::new();
    let mut acc = String::new();
    for line in block.lines() {
        let line = line.trim_end();
        match line.strip_suffix('\\') {
            Some(head) => acc.push_str(head),
            None => {
                acc.push_str(line);
                let cmd = acc.trim().to_string();
                acc.clear();
                if cmd.starts_with("lagoon ") {
                    commands.push(cmd);
                }
            }
        }
    }
    assert!(commands.len() >= 10, "{commands:?}");
    let base = std::env::temp_dir().join(format!("lagoon-readme-{}", std::process::id()));
    let work = base.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let shared = root.join("../shared").canonicalize().unwrap();
    let link = base.join("shared");
    if !link.exists() {
        std::os::unix::fs::symlink(&shared, &link).unwrap();
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_lagoon"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for cmd in &commands {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{cmd} 2>&1 >/dev/null"))
            .current_dir(&work)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README example failed: {cmd}\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// `reproduce --requests 0` or `--jobs 0` is one error naming the flag, before any run.
#[test]
fn reproduce_counts_of_zero_are_named() {
    for flag in ["--requests", "--jobs"] {
        let (code, _, err) = lagoon(&["reproduce", "piq", flag, "0", "--quiet"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(flag) && !err.contains("panicked"), "{err}");
    }
}

/// A workload with no request is an error, not "requests 0".
#[test]
fn an_empty_workload_is_an_error() {
    let (code, _, err) = lagoon(&["run", "--workload", "syn:count=0"]);
    assert_eq!(code, 2, "{err}");
    // Issue 43: refused where `count` is declared (at least 1).
    assert!(
        err.contains("bad value `0` for `count`: expected a whole number of requests, at least 1"),
        "{err}"
    );
    // An empty trace says so (issue 32: it said "cannot detect the format"), with or without
    // --format, in `run` and in `trace`.
    let empty = tmp("comments.trace", "# nothing\n\n");
    for args in [
        vec!["run", "--workload", &empty, "--format", "mqsim"],
        vec!["run", "--workload", &empty],
        vec!["trace", "stats", &empty],
        vec!["trace", "convert", &empty, "--to", "msr"],
    ] {
        let (code, _, err) = lagoon(&args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("the trace is empty (no request lines, only blank lines and comments)"),
            "{args:?}: {err}"
        );
    }
    let zero = tmp("zero.trace", "");
    let (code, _, err) = lagoon(&["trace", "stats", &zero]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the trace is empty (no request lines, 0 bytes)"),
        "{err}"
    );
}

/// Odd flags and files from the robustness attack (issue 9): each is one line on stderr, exit
/// code 2, no panic and no unbounded read.
#[test]
fn hostile_flags_are_one_clear_error() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--ssd", "/dev/zero"],
            "/dev/zero: larger than 1048576 bytes",
        ),
        (&["--ssd", "/dev/urandom"], "/dev/urandom: cannot read"),
        (
            &["--ssd", "/"],
            "/: cannot read: Is a directory (os error 21)",
        ),
        (&["--mesh", "0x0"], "the chip count must stay the same"),
        (
            &["--replay", "closed:99999999"],
            "closed:<queue depth 1..=65536>",
        ),
        (&["--replay", "timed:nan"], "invalid replay mode"),
        (&["--repeat", "0"], "--repeat must be at least 1"),
        (&["--workload", "syn:arrival=qd:99999999"], "65536"),
        (
            &["--workload", "nope.trace"],
            "nope.trace: cannot open trace: No such file or directory (os error 2)",
        ),
        (
            &["--workload", "/dev/zero"],
            "/dev/zero:1: looks like binary data",
        ),
        (
            &["--lenient", "--workload", "/dev/zero"],
            "/dev/zero:1: looks like binary data",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["run"];
        if !extra.contains(&"--workload") {
            args.extend(["--workload", "syn:count=5"]);
        }
        args.extend_from_slice(extra);
        let (code, _, err) = lagoon(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        // One error line (clap may add its "For more information, try '--help'." hint).
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{extra:?}: {err}"
        );
        // The OS message is not repeated by the error chain.
        if let Some(i) = err.find("(os error") {
            assert!(!err[i + 1..].contains("(os error"), "{err}");
        }
    }
}

/// `lagoon net`: JSON points with the issue's fields, the overloaded point flagged saturated,
/// a plot with a line per configuration; bad loads and nonsense combinations are one error.
#[test]
fn net_reports_points_and_plots_a_line_per_configuration() {
    let small = |name: &str, topo: &str| {
        tmp(
            name,
            &format!(
                "[flash]\nchannels = 4\nchips_per_channel = 4\n[network]\ntopology = \"{topo}\"\n\
                 flit_bytes = 16\nlink_width_bytes = 16\npacket_flits = 4\nvcs = 2\n\
                 input_buffer_bytes = 256\noutput_buffer_bytes = 256\n"
            ),
        )
    };
    let (mesh, torus) = (
        small("net-mesh.toml", "mesh"),
        small("net-torus.toml", "torus"),
    );
    let svg = tmp("net.svg", "");
    let (code, out, err) = lagoon(&[
        "net",
        "--ssd",
        &mesh,
        "--ssd",
        &torus,
        "--load",
        "0.1,1.0",
        "--json",
        "-",
        "--plot",
        &svg,
        "--warmup-cycles",
        "1000",
        "--sample-cycles",
        "4000",
        "--drain-cycles",
        "4000",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        for k in ["offered_load", "accepted_load", "hops_mean", "saturated"] {
            assert!(!p[k].is_null(), "{k} in {p}");
        }
        for k in ["mean", "p50", "p99", "max"] {
            assert!(p["latency_cycles"][k].as_f64().unwrap() > 0.0);
        }
    }
    let light = &points[0];
    assert_eq!(light["config"], "net-mesh");
    assert_eq!(light["saturated"], false);
    assert!(
        (light["accepted_load"].as_f64().unwrap() - 0.1).abs() < 0.02,
        "{light}"
    );
    assert_eq!(points[1]["saturated"], true, "{}", points[1]);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(svg.matches("<path").count(), 2);
    assert!(svg.contains("net-torus"));
    // Issue 42: every measured load is drawn, the saturated ones ringed and said so.
    assert_eq!(svg.matches(r#"class="flagged""#).count(), 2, "{svg}");
    assert!(svg.contains("ringed: saturated"), "{svg}");

    let (code, _, err) = lagoon(&["net", "--load", "1.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("--load 1.5"), "{err}");
    let bad = tmp(
        "net-bad.toml",
        "[network]\ntopology = \"dragonfly\"\nrouting = \"dor\"\n",
    );
    let (code, _, err) = lagoon(&["net", "--ssd", &bad, "--load", "0.1"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("network.routing") && err.contains("network.topology = dragonfly"),
        "{err}"
    );
}

/// `lagoon reproduce mqsimnet` on a directory with one trace: Fig. 3's data file has one row
/// per mapping x workload, Table II one per workload with the paper's value where the
/// workload is one of its traces, and summary.json the keys issue 11 names.
#[test]
fn reproduce_mqsimnet_writes_every_figure() {
    let (dir, out) = reproduce_on_tiny_trace("mqsimnet", "300", |i| i % 2);
    let workloads = 11 + 1; // Table II's 11 stand-ins and the trace
    assert_eq!(
        csv_rows(&out.join("fig03a_throughput.csv")).len(),
        3 * (workloads + 1)
    );
    let t2 = csv_rows(&out.join("table2_network_latency.csv"));
    assert_eq!(t2.len(), workloads + 1);
    assert_eq!(t2[0][0], "hm_0");
    // The paper's column holds the paper's file's values, for the names it has.
    let paper = lagoon_lab::reproduce::claims::paper("mqsimnet").unwrap();
    let num = |s: &str| s.parse::<f64>().unwrap();
    assert_eq!(num(&t2[0][9]), paper.value("table2_hm_0_dor"));
    assert_eq!(num(&t2[0][10]), paper.value("table2_hm_0_duato"));
    // hm_1, prn_0 and proj_0 (no Venice Table 2 row) have stand-ins and the paper's values.
    assert_eq!(t2[1][0], "hm_1");
    assert_eq!(num(&t2[1][9]), paper.value("table2_hm_1_dor"));
    assert_eq!(t2[11][9], "", "the trace has no paper value");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for m in ["static", "chip", "die"] {
        assert!(s["fig03_speedup_mean"][m].as_f64().unwrap() > 0.0, "{m}");
    }
    for r in ["dor", "duato"] {
        assert!(s["network_latency_ns"][r].as_f64().unwrap() > 0.0, "{r}");
    }
    let h = headlines(&out);
    assert_rule_holds(&h, 2);
    for f in [
        "fig03a_throughput.svg",
        "fig03d_speedup_no_write_cache.svg",
        "table2_network_latency.svg",
    ] {
        assert!(
            std::fs::read_to_string(out.join(f))
                .unwrap()
                .contains("</svg>"),
            "{f}"
        );
    }
    assert_render_only_reproduces(&out, "mqsimnet", None);
    std::fs::remove_dir_all(&dir).ok();
}

/// `lagoon reproduce PAPER --requests N` on a directory holding one 300-request trace
/// (request i a write when `write(i)` is 1) in a fresh temporary directory; it must succeed.
/// Returns (the temporary directory, the output directory).
fn reproduce_on_tiny_trace(
    paper: &str,
    requests: &str,
    write: fn(u64) -> u64,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("lagoon-repro-{paper}-{}", std::process::id()));
    let traces = dir.join("in");
    std::fs::create_dir_all(&traces).unwrap();
    let mut t = String::new();
    for i in 0..300u64 {
        t.push_str(&format!(
            "{} 0 {} 16 {}\n",
            i * 20_000,
            i * 7_919 % 50_000 * 16,
            write(i)
        ));
    }
    std::fs::write(traces.join("tiny.trace"), t).unwrap();
    let out = dir.join("out");
    let (code, _, err) = lagoon(&[
        "reproduce",
        paper,
        "--traces",
        traces.to_str().unwrap(),
        "--requests",
        requests,
        "--seeds",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    (dir, out)
}

/// `lagoon reproduce PAPER --tiny-drive ARGS` into a fresh directory: it exits 0 and writes
/// every one of `files`; its directory and summary.json.
fn reproduce_tiny(
    paper: &str,
    args: &[&str],
    files: &[&str],
) -> (tempfile::TempDir, serde_json::Value) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("lagoon-repro-{paper}-"))
        .tempdir()
        .unwrap();
    let out = dir.path();
    let out_s = out.to_str().unwrap().to_string();
    let mut all = vec![
        "reproduce",
        paper,
        "--tiny-drive",
        "--out",
        &out_s,
        "--quiet",
    ];
    all.extend_from_slice(args);
    let (code, _, err) = lagoon(&all);
    assert_eq!(code, 0, "{err}");
    for f in files {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let s =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    (dir, s)
}

/// `reproduce dssd` writes every figure's CSV and SVG and a summary with the keys the issue
/// names, the paper's numbers beside Lagoon's and a reason for each one more than 25 % away
/// (on a drive of few, small blocks: the figure code is the same).
#[test]
fn reproduce_dssd_writes_figures_and_summary() {
    let (out, s) = reproduce_tiny(
        "dssd",
        &["--requests", "200", "--seeds", "2"],
        &[
            "fig02_32k_timeline.csv",
            "fig02_4k_io_bandwidth.svg",
            "fig07_configurations.csv",
            "fig07a_io_hit.svg",
            "fig07a_gc_miss.svg",
            "fig07a_io_steady.svg",
            "fig07a_gc_steady.svg",
            "fig07b_bus.svg",
            "fig08_onchip_bandwidth.csv",
            "fig08_high.svg",
            "fig09_latency_breakdown.csv",
            "fig09_copyback_dssd_f.svg",
            "fig10_dram_hit.csv",
            "fig10_p99.svg",
            "fig11_p99.csv",
            "fig12_router_bandwidth.csv",
            "fig12a_channels.svg",
            "fig12b_ways.svg",
            "fig13_topology_buffers.csv",
            "fig13a_topology.svg",
            "fig13b_buffers.svg",
            "summary.md",
        ],
    );
    for csv in [
        "fig07_configurations.csv",
        "fig09_latency_breakdown.csv",
        "fig12_router_bandwidth.csv",
    ] {
        let t = std::fs::read_to_string(out.path().join(csv)).unwrap();
        assert!(t.lines().count() > 5 && !t.contains("NaN"), "{csv}: {t}");
    }
    for d in ["bw", "dssd", "dssd_b", "dssd_f"] {
        assert!(s["io_improvement"][d].as_f64().unwrap() > 0.0, "{d}");
        assert!(s["gc_improvement"][d].as_f64().unwrap() > 0.0, "{d}");
        for k in ["io_improvement_steady", "gc_improvement_steady"] {
            assert!(s[k][d].as_f64().unwrap() > 0.0, "{k} {d}");
        }
    }
    assert!(s["p99_reduction_vs_baseline"]["dssd_f"].as_f64().unwrap() > 0.0);
    // Every published number gets a verdict by the rule; the steady state is a second
    // reading of Fig. 7(a)'s four ratios.
    let h = headlines(out.path());
    let ids: Vec<&str> = h["headlines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    let paper = lagoon_lab::reproduce::claims::paper("dssd").unwrap();
    for n in paper.numbers.iter().filter(|n| n.headline) {
        assert!(ids.contains(&n.id.as_str()), "{}", n.id);
    }
    for id in ["io_dssd", "gc_dssd", "io_bw", "gc_bw"] {
        assert!(
            ids.contains(&format!("{id}@steady").as_str()),
            "{id}@steady"
        );
    }
    assert_rule_holds(&h, 2);
    // Fig. 9: a stage of a class with no page and no time is an empty cell (missing), never
    // a zero drawn as a bar.
    for r in csv_rows(&out.path().join("fig09_latency_breakdown.csv")) {
        if r[3] == "0" {
            for c in &r[4..] {
                assert_ne!(c, "0.000", "{r:?}");
            }
        }
    }
    assert_render_only_reproduces(out.path(), "dssd", None);
}

/// Found by issue 31's seeds: on the tests' tiny drive, a Fig. 15(b) window over a RESERV
/// drive aged with the `newest` RBT pick stalled (the watchdog: "1 die queues hold
/// transactions") for seeds 5 and 6: a write waiting for room in its plane sat on the die of
/// its remapped block, which the erase that freed a block did not wake
/// (`Ssd::wake_after_erase`).
#[test]
fn superblocks_windows_on_every_seed_of_the_tiny_drive() {
    for seed in ["5", "6"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, _, err) = lagoon(&[
            "reproduce",
            "superblocks",
            "--tiny-drive",
            "--seeds",
            "1",
            "--seed",
            seed,
            "--out",
            dir.path().to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(code, 0, "seed {seed}: {err}");
    }
}

/// `run --design` turns the controller model on and reports it; `--timeline` writes its CSV;
/// an unknown design is one error listing the known ones.
#[test]
fn run_design_and_timeline() {
    let dir = std::env::temp_dir().join(format!("lagoon-dssd-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tl = dir.join("t.csv");
    let (code, out, err) = lagoon(&[
        "run",
        "--design",
        "dssd_f",
        "--workload",
        "syn:read=0,size=4k,addr=seq,count=200",
        "--replay",
        "closed:8",
        "--timeline",
        tl.to_str().unwrap(),
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["controller"]["design"], "dssd_f");
    let csv = std::fs::read_to_string(&tl).unwrap();
    assert!(csv.starts_with(
        "window_start_ms,io_mb_s,gc_mb_s,gc_read_mb_s,system_bus_utilization,dram_utilization,\
         fc_link_utilization\n"
    ));
    assert!(csv.lines().count() >= 2);
    let (code, _, err) = lagoon(&["run", "--design", "dssd_x", "--workload", "syn:count=1"]);
    assert_ne!(code, 0);
    assert!(err.contains("dssd_x") && err.contains("dssd_b"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trace that leaves the drive idle for 99 days between two requests: `--timeline` at
/// its default 1 ms would be 8.6 G rows (it aborted on a 68 GB allocation); the windows
/// widen to stay within `MAX_WINDOWS`, and a note says so.
#[test]
fn timeline_over_a_long_idle_gap_widens_its_windows() {
    let trace = tmp("far.txt", "0 0 0 4096 1\n8553600000 0 4096 4096 1\n");
    let out = std::env::temp_dir().join(format!("lagoon-far-tl-{}.csv", std::process::id()));
    let (code, _, err) = lagoon(&[
        "run",
        "--workload",
        &trace,
        "--format",
        "msr-ms",
        "--timeline",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("windows are 8192 ms instead of the 1 ms asked for"),
        "{err}"
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(
        rows.len() <= lagoon_core::ssd::datapath::MAX_WINDOWS,
        "{}",
        rows.len()
    );
    // Both requests' bytes are in the CSV: first and last windows, 4096 B over 8.192 s.
    let io = |r: &str| r.split(',').nth(1).unwrap().parse::<f64>().unwrap();
    assert_eq!(rows[0].split(',').next(), Some("0"));
    assert!(
        (io(rows[0]) - 4096.0 / 8.192 / 1e6).abs() < 1e-3,
        "{}",
        rows[0]
    );
    assert!((io(rows[rows.len() - 1]) - 4096.0 / 8.192 / 1e6).abs() < 1e-3);
    let _ = std::fs::remove_file(&out);
}

/// A 2^31-page drive: its full mapping tables (16 GB) exceed the 4 GiB state limit. Lifetime
/// mode, which holds them from the start, refuses it with one message (it aborted on an
/// 8.6 GB allocation); a timed run says up front where it would stop, then runs.
#[test]
fn a_drive_whose_mapping_tables_outgrow_the_limit_is_named() {
    let ssd = tmp(
        "huge.toml",
        "base = \"perf-optimized\"\n[flash]\nblocks_per_plane = 21800\n",
    );
    let (code, _, err) = lagoon(&["lifetime", "--ssd", &ssd, "--quiet"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("flash (geometry): lifetime mode holds every page's map")
            && err.contains("16.27 GB")
            && err.contains("4.29 GB limit"),
        "{err}"
    );
    let (code, _, err) = lagoon(&["run", "--ssd", &ssd, "--workload", "syn:read=0,count=100"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: this drive's mapping tables grow to 16.27 GB"),
        "{err}"
    );
    // LAGOON_MAX_STATE_GB moves the limit: above the full maps, no note; below the drive's
    // own tables, the configuration is refused; not a number, it is named.
    let runs = |gb: &str| {
        lagoon_env(
            &["run", "--ssd", &ssd, "--workload", "syn:read=0,count=100"],
            &[("LAGOON_MAX_STATE_GB", gb)],
        )
    };
    let (code, _, err) = runs("17");
    assert!(code == 0 && !err.contains("note:"), "{err}");
    let (code, _, err) = runs("0.1");
    assert!(
        code != 0 && err.contains("more than the 0.10 GB limit (LAGOON_MAX_STATE_GB moves it)"),
        "{err}"
    );
    let (code, _, err) = runs("lots");
    assert!(
        code != 0 && err.contains("LAGOON_MAX_STATE_GB = lots"),
        "{err}"
    );
}

/// A drive that wears out in a fraction of a second: 2 ch x 1 way x 1 die x 2 planes of 48
/// blocks of 8 pages, P/E limits Normal(200, 30).
const TINY_WEAR: &str = "base = \"dssd-superblock\"\nname = \"tiny-wear\"\n[flash]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 1\nblocks_per_plane = 48\npages_per_block = 8\n[ftl]\ngc_threshold = 0.05\n[wear]\npe_mean = 200.0\npe_sigma = 30.0\n";

/// `lagoon lifetime --json -`: one JSON document on stdout with the wear counters and
/// bad-block counts; same seed, same life.
#[test]
fn lifetime_json_has_wear_and_bad_block_counts() {
    let ssd = tmp("tiny-wear.toml", TINY_WEAR);
    let run = || {
        lagoon(&[
            "lifetime", "--ssd", &ssd, "--mode", "recycled", "--json", "-",
        ])
    };
    let (code, out, err) = run();
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON only");
    assert_eq!(r["superblock_mode"], "recycled");
    assert_eq!(r["end"], "worn-out");
    assert!(r["bad_blocks"].as_u64().unwrap() > 0);
    assert!(r["counters"]["bad_superblocks"].as_u64().unwrap() > 0);
    assert!(r["remaps"].as_u64().unwrap() > 0);
    let (lo, hi) = (
        r["min_erases"].as_u64().unwrap(),
        r["max_erases"].as_u64().unwrap(),
    );
    assert!(lo > 100 && hi >= lo && hi < 400, "{lo}..{hi}");
    let strip = |v: &mut serde_json::Value| {
        v["wall_s"] = 0.into();
        v["page_programs_per_s"] = 0.into();
    };
    let mut a = r.clone();
    let mut b: serde_json::Value = serde_json::from_str(&run().1).unwrap();
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b);
}

/// Bad `[wear]` input: one message naming the key, exit code 2.
#[test]
fn lifetime_bad_wear_input_is_one_clear_error() {
    for (text, needle) in [
        ("pe_men = 5.0", "pe_men"),
        ("srt_entries = 99999999", "wear.srt_entries"),
        ("reserve_fraction = 0.9", "wear.reserve_fraction"),
        ("rbt_pick = \"oldest\"", "oldest"),
        ("superblock = \"dynamic\"", "dynamic"),
    ] {
        let ssd = tmp("bad-wear.toml", &format!("{TINY_WEAR}{text}\n"));
        let (code, _, err) = lagoon(&["lifetime", "--ssd", &ssd, "--quiet"]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(
            err.contains(needle) && err.lines().count() <= 3,
            "{text}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = lagoon(&[
        "lifetime",
        "--ssd",
        &tmp("w.toml", TINY_WEAR),
        "--mode",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--mode"), "{err}");
}

/// `reproduce superblocks` writes every figure and the summary keys the issue names (on a
/// drive of few, small blocks: the figure code is the same).
#[test]
fn reproduce_superblocks_writes_figures_and_summary() {
    // One seed: other seeds stall a Fig. 15(b) window on this tiny drive (the ignored test
    // below, a core issue).
    let (dir, s) = reproduce_tiny(
        "superblocks",
        &["--seeds", "1"],
        &[
            "fig14a_bad_superblocks.csv",
            "fig14a_bad_superblocks.svg",
            "fig14a_lifetimes.csv",
            "fig14b_gain_vs_sigma.svg",
            "fig14c_was_latency.csv",
            "fig14c_was_latency_ull.svg",
            "fig14c_was_latency_tlc.svg",
            "fig15a_perf_vs_srt.csv",
            "fig15a_perf_vs_srt_ull.svg",
            "fig15a_perf_vs_srt_tlc.svg",
            "fig15b_traces.csv",
            "fig15b_traces.svg",
            "fig16a_gain_vs_srt.svg",
            "fig16b_active_srt.svg",
            "summary.md",
            "headlines.json",
        ],
    );
    let h = headlines(dir.path());
    // 8 published numbers, the lifetime one with its RESERV reading.
    assert_eq!(h["headlines"].as_array().unwrap().len(), 9);
    let ids: Vec<&str> = h["headlines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"lifetime") && ids.contains(&"lifetime@reserv"),
        "{ids:?}"
    );
    assert_rule_holds(&h, 1);
    assert_render_only_reproduces(dir.path(), "superblocks", None);
    // Results made before the lifetime headline get it from fig14a_lifetimes.csv alone.
    let seeds = dir.path().join("headline_seeds.csv");
    let full = std::fs::read_to_string(&seeds).unwrap();
    let without: String = full
        .lines()
        .filter(|l| !l.starts_with("lifetime"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(without, full);
    std::fs::write(&seeds, without).unwrap();
    let out = dir.path().to_str().unwrap();
    let (code, _, err) = lagoon(&["reproduce", "superblocks", "--render-only", "--out", out]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&seeds).unwrap(), full);
    assert_eq!(headlines(dir.path()), h);
    for m in ["baseline", "recycled", "reserv"] {
        assert!(
            s["first_bad_superblock_tb"][m].as_f64().unwrap() > 0.0,
            "{m}"
        );
    }
    for m in ["recycled", "reserv"] {
        assert!(s["endurance_gain"][m].as_f64().is_some(), "{m}");
    }
    // Fig. 14(c): per drive and workload, the unscanned run is the reference (1.0) of its
    // scans; every ratio is its latency over that one's; a scan moves its pages' bytes.
    let c = s["fig14c"].as_array().unwrap();
    assert_eq!(c.len(), 2 * 2 * 3);
    for group in c.chunks(3) {
        let f = |p: &serde_json::Value, k: &str| p[k].as_f64().unwrap();
        assert_eq!(
            (
                group[0]["scanned_blocks"].as_u64(),
                f(&group[0], "latency_vs_no_scan")
            ),
            (Some(0), 1.0)
        );
        for p in group {
            assert_eq!(p["drive"], group[0]["drive"]);
            let want = f(p, "mean_latency_us") / f(&group[0], "mean_latency_us");
            assert!((f(p, "latency_vs_no_scan") - want).abs() < 1e-12, "{p}");
            assert_eq!(
                f(p, "scan_bytes"),
                f(p, "scanned_blocks") * 4096.0 * if p["drive"] == "TLC" { 4.0 } else { 1.0 }
            );
        }
        // 64 blocks of scan reads ahead of the host's at every die cost the host time.
        assert!(f(&group[2], "latency_vs_no_scan") > 1.0, "{group:?}");
    }
    // The fresh drive is the reference of every Fig. 15(a) case.
    let f15 = s["fig15a"].as_array().unwrap();
    assert_eq!(f15.iter().filter(|p| p["rbt_pick"] == "fresh").count(), 4);
    assert!(f15.iter().all(|p| p["normalized"].as_f64().unwrap() > 0.0));
    // Fig. 15(b): the ten MSR stand-ins x two RBT picks, each metric (1 + RESERV's gain) x
    // IOPS aged / fresh, and a mean per class and pick.
    let b = &s["fig15b"];
    let gain = s["endurance_gain"]["reserv"].as_f64().unwrap();
    assert_eq!(b["endurance_gain"].as_f64().unwrap(), gain);
    for pick in ["same-plane", "newest"] {
        assert!(b["active_srt_per_controller"][pick].as_f64().unwrap() > 0.0);
    }
    let rows = b["workloads"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    for r in rows {
        let f = |k: &str| r[k].as_f64().unwrap();
        assert!(f("iops_fresh") > 0.0 && f("iops_aged") > 0.0, "{r}");
        let want = (1.0 + gain) * f("iops_aged") / f("iops_fresh");
        assert!((f("metric") - want).abs() < 1e-9 * want, "{r}");
        let read = r["class"] == "read";
        assert_eq!(read, f("read_percent") > 50.0, "{r}");
    }
    for class in ["read", "write"] {
        for pick in ["same-plane", "newest"] {
            let of: Vec<f64> = rows
                .iter()
                .filter(|r| r["class"] == class && r["rbt_pick"] == pick)
                .map(|r| r["metric"].as_f64().unwrap())
                .collect();
            let mean = of.iter().sum::<f64>() / of.len() as f64;
            let got = b["mean_metric"][class][pick].as_f64().unwrap();
            assert!(
                (got - mean).abs() < 1e-12,
                "{class} {pick}: {got} vs {mean}"
            );
        }
    }
}

/// `reproduce superblocks --sensitivity` on the tiny test drive: the as-built reading is the
/// reproduction itself (its headlines are a plain run's, number for number); every one-at-a-
/// time reading and every pair ran once; each headline's range is its points' extremes; the
/// summary and figures re-render from sensitivity.json; a paper without a search, or a wrong
/// --render-only directory, is one clear error.
#[test]
fn a_sensitivity_search_runs_every_reading_and_starts_from_the_reproduction() {
    let dir = tempfile::Builder::new()
        .prefix("lagoon-sens-")
        .tempdir()
        .unwrap();
    let out = dir.path().join("search");
    let plain = dir.path().join("plain");
    let common = ["--tiny-drive", "--quick", "--quiet", "--jobs", "2"];
    let mut args = vec![
        "reproduce",
        "superblocks",
        "--sensitivity",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(common);
    let (code, _, err) = lagoon(&args);
    assert_eq!(code, 0, "{err}");
    let mut args = vec![
        "reproduce",
        "superblocks",
        "--seeds",
        "1",
        "--out",
        plain.to_str().unwrap(),
    ];
    args.extend(common);
    let (code, _, err) = lagoon(&args);
    assert_eq!(code, 0, "{err}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sensitivity.json")).unwrap())
            .unwrap();
    let h = headlines(&plain);
    let points = s["points"].as_array().unwrap();
    assert_eq!(points[0]["readings"], serde_json::json!({}));
    for x in h["headlines"].as_array().unwrap() {
        let id = x["id"].as_str().unwrap();
        assert_eq!(
            points[0]["values"][id]["mean"], x["lagoon"]["mean"],
            "{id}: the as-built reading is not the reproduction"
        );
    }
    let axes = s["axes"].as_array().unwrap();
    let singles: usize = axes
        .iter()
        .map(|a| a["readings"].as_array().unwrap().len())
        .sum();
    let pairs: usize = s["pairwise"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let n = |name: &serde_json::Value| {
                axes.iter().find(|a| a["name"] == *name).unwrap()["readings"]
                    .as_array()
                    .unwrap()
                    .len()
            };
            n(&p["axes"][0]) * n(&p["axes"][1])
        })
        .sum();
    assert_eq!(points.len(), 1 + singles + pairs);
    let mut seen = std::collections::BTreeSet::new();
    for p in points {
        assert!(
            seen.insert(p["readings"].to_string()),
            "{} ran twice",
            p["readings"]
        );
        assert!(out
            .join("points")
            .join(format!("{}.json", p["id"].as_str().unwrap()))
            .is_file());
    }
    for r in s["headlines"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        let v: Vec<f64> = points
            .iter()
            .filter_map(|p| p["values"][id]["mean"].as_f64())
            .collect();
        assert_eq!(
            r["low"].as_f64().unwrap(),
            v.iter().copied().fold(f64::INFINITY, f64::min)
        );
        assert_eq!(
            r["high"].as_f64().unwrap(),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        );
    }
    let summary = std::fs::read(out.join("summary.md")).unwrap();
    let svg = std::fs::read(out.join("sensitivity_ratios.svg")).unwrap();
    std::fs::remove_file(out.join("summary.md")).unwrap();
    std::fs::remove_file(out.join("sensitivity_ratios.svg")).unwrap();
    let (code, _, err) = lagoon(&[
        "reproduce",
        "superblocks",
        "--sensitivity",
        "--render-only",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(out.join("summary.md")).unwrap(), summary);
    assert_eq!(
        std::fs::read(out.join("sensitivity_ratios.svg")).unwrap(),
        svg
    );
    let (code, _, err) = lagoon(&[
        "reproduce",
        "venice",
        "--sensitivity",
        "--render-only",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("a search of superblocks, not venice"), "{err}");
    let (code, _, err) = lagoon(&[
        "reproduce",
        "nopaper",
        "--sensitivity",
        "--out",
        dir.path().join("p").to_str().unwrap(),
    ]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("unknown paper 'nopaper'") && !err.contains("panicked"),
        "{err}"
    );
    // A directory that holds something else is refused before any run.
    let (code, _, err) = lagoon(&[
        "reproduce",
        "superblocks",
        "--sensitivity",
        "--tiny-drive",
        "--out",
        plain.to_str().unwrap(),
    ]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("not a sensitivity search's output"), "{err}");
}
