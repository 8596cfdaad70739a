//! `lagoon reproduce mqsimnet`: MQSimNet's two case studies (§IV) on its Table I drive
//! (`mqsimnet` preset):
//! - Figure 3: static vs chip-level vs die-level dynamic address mapping on the networked back
//!   end (`--arch net`), normalized to the bus-based baseline with static mapping: throughput,
//!   device response time, end-to-end time, and speed-up (baseline execution time / design's).
//! - Table II: average network latency under dimension-order and Duato routing.
//!
//! Workloads: `syn:` stand-ins of Table II's 11 MSR traces, and the real traces in `--traces`
//! (default ../shared/traces). Eight stand-ins are Venice Table 2's (published read %, mean
//! size and mean inter-arrival time); hm_1, prn_0 and proj_0, which Venice does not
//! characterize, are lagoon-workload's MSR stand-ins (`presets::msr_stand_ins`): approximate
//! read % and mean size that could not be checked against a primary table, and the median
//! inter-arrival time of Venice's MSR rows (82.5 µs) for want of a comparable published one. Figure 3 replays closed-loop at queue depth 32 (throughput is
//! what the figure shows); Table II replays each workload by its own arrival times, as the
//! paper's "traces not large enough to generate high traffic" implies.

use super::book::{self, Fig, FigKind, Headlines, Manifest, Y};
use super::claims;
use super::{
    csv_file, finite, mean, seed_means, seeded_table, trace_files, write_json, ReproduceArgs,
};
use crate::batch::{Job, Record, RunKey};
use anyhow::{Context, Result};
use lagoon_core::config::{DynamicMapping, RoutingKind, SsdConfig};
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use lagoon_workload::presets::{msr_stand_ins, MSR_STAND_IN_INTER_ARRIVAL_US};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

const DRIVE: &str = "mqsimnet";
/// Table II's traces, in its order (the paper's values are in papers/mqsimnet.toml), each run
/// as its `syn:` stand-in.
const TABLE2: [&str; 11] = [
    "hm_0", "hm_1", "mds_0", "prn_0", "proj_0", "proj_3", "prxy_0", "rsrch_0", "usr_0", "wdev_0",
    "web_1",
];
const DEPTH: u32 = 32;
const MAPPINGS: [(&str, DynamicMapping); 3] = [
    ("static", DynamicMapping::Static),
    ("chip", DynamicMapping::Chip),
    ("die", DynamicMapping::Die),
];

pub fn run(a: &ReproduceArgs) -> Result<()> {
    let n = a.requests.unwrap_or(if a.quick { 5_000 } else { 100_000 });
    let dir = a
        .traces
        .clone()
        .unwrap_or_else(|| PathBuf::from("../shared/traces"));
    let mut workloads: Vec<(String, String)> = TABLE2
        .iter()
        .map(|w| (w.to_string(), format!("syn:{w},count={n}")))
        .collect();
    let traces = trace_files(&dir).with_context(|| {
        format!(
            "reproduce mqsimnet replays the traces in {} besides the syn: stand-ins (run it from the project root with ../shared beside it, or give --traces DIR)",
            dir.display()
        )
    })?;
    workloads.extend(traces);
    let drive = SsdConfig::load(DRIVE)?;
    let seeds = a.seeds();
    let base = seeds[..1].to_vec();
    let mut jobs = Vec::new();
    let closed = Replay::Closed { depth: DEPTH };
    let timed = Replay::Timed { speedup: 1.0 };
    let mut push = |exp: &str,
                    design: &str,
                    cfg: SsdConfig,
                    arch: Arch,
                    w: &(String, String),
                    replay: Replay,
                    seeds: &[u64]| {
        for &seed in seeds {
            let mut sc = Scenario::new(DRIVE, cfg.clone(), arch, vec![w.1.clone()]);
            sc.seed = seed;
            sc.replay = Some(replay);
            jobs.push(Job {
                key: RunKey {
                    experiment: exp.into(),
                    ssd: DRIVE.into(),
                    mesh: "8x8".into(),
                    replay: replay.to_string(),
                    workload: w.0.clone(),
                    design: design.into(),
                },
                scenario: sc,
            });
        }
    };
    for w in &workloads {
        // Figure 3: MQSim's bus back end with static mapping, and the network with each policy.
        // Also without the write cache, where every write waits for its die.
        for (exp, cache) in [("fig3", true), ("fig3-nocache", false)] {
            let mut b = drive.clone();
            b.cache.enabled = cache;
            push(exp, "baseline", b.clone(), Arch::Baseline, w, closed, &base);
            for (name, m) in MAPPINGS {
                let mut c = b.clone();
                c.ftl.dynamic_mapping = m;
                push(exp, name, c, Arch::Net, w, closed, &base);
            }
        }
        // Table II: the network with static mapping, DOR against Duato (2 VCs on a mesh: one
        // escape class routed by DOR, one adaptive); every seed.
        for (name, r) in [("dor", RoutingKind::Dor), ("duato", RoutingKind::Duato)] {
            let mut c = drive.clone();
            c.network.routing = r;
            push("table2", name, c, Arch::Net, w, timed, &seeds);
        }
    }
    let what = format!(
        "{} workloads x (2 x 4 mappings + 2 routings)",
        workloads.len()
    );
    let ran = a.run_jobs(jobs, &what)?;
    let recs = &ran.recs;
    let out = a.out_dir();
    let names: Vec<String> = workloads.iter().map(|w| w.0.clone()).collect();
    let find = |exp: &str, w: &str, d: &str, seed: u64| {
        recs.iter().find(|r| {
            r.key.experiment == exp && r.key.workload == w && r.key.design == d && r.seed == seed
        })
    };
    let mut m = Manifest::new("mqsimnet");
    let mut h = Headlines::default();
    let mappings: Vec<String> = MAPPINGS.iter().map(|(n, _)| n.to_string()).collect();
    let mut summary = Map::new();
    // Figure 3: per workload, a mapping's metric over the bus baseline's (first seed).
    for (file, exp, col, f, title, y, invert) in [
        (
            "fig03a_throughput",
            "fig3",
            "iops_vs_baseline",
            (|r: &Record| r.iops) as fn(&Record) -> f64,
            "Fig. 3a (mqsimnet, closed loop QD 32): throughput of the networked SSD / bus baseline",
            "IOPS / baseline (x)",
            false,
        ),
        (
            "fig03b_device_response",
            "fig3",
            "device_response_vs_baseline",
            |r: &Record| r.device_latency_us,
            "Fig. 3b: device response time / bus baseline",
            "device response time / baseline (x)",
            false,
        ),
        (
            "fig03c_end_to_end",
            "fig3",
            "end_to_end_vs_baseline",
            |r: &Record| r.mean_latency_us,
            "Fig. 3c: end-to-end request time / bus baseline",
            "end-to-end time / baseline (x)",
            false,
        ),
        (
            "fig03_speedup",
            "fig3",
            "speedup_vs_baseline",
            |r: &Record| r.sim_time_ns,
            "Fig. 3 (write cache on): speed-up in execution time over the bus baseline",
            "speed-up over baseline (x)",
            true,
        ),
        (
            "fig03d_speedup_no_write_cache",
            "fig3-nocache",
            "speedup_vs_baseline",
            |r: &Record| r.sim_time_ns,
            "Fig. 3, write cache off (every write waits for its die): speed-up over the bus baseline",
            "speed-up over baseline (x)",
            true,
        ),
    ] {
        let csv = format!("{file}.csv");
        let avg = seeded_table(
            &out.join(&csv),
            "mapping",
            col,
            &names,
            &mappings,
            &base,
            6,
            |mp, w, seed| match (find(exp, w, mp, seed), find(exp, w, "baseline", seed)) {
                (Some(r), Some(b)) if f(b) > 0.0 && f(r) > 0.0 => {
                    if invert {
                        f(b) / f(r)
                    } else {
                        f(r) / f(b)
                    }
                }
                _ => f64::NAN,
            },
        )?;
        summary.insert(format!("{file}_mean"), seed_means(&avg));
        m.fig(
            Fig::new(&format!("{file}.svg"), &csv, FigKind::Bars, title, "workload", y)
                .x("workload")
                .series("mapping")
                .y(Y::col(col))
                .reference(1.0),
        );
    }
    // Table II: network latency per workload over seeds, the paper's beside it.
    let paper = claims::paper("mqsimnet")?;
    let published = |w: &str, r: &str| paper.value(&format!("table2_{w}_{r}"));
    let lat = |w: &str, d: &str, seed: u64| {
        find("table2", w, d, seed)
            .and_then(|r| r.network_latency_ns)
            .unwrap_or(f64::NAN)
    };
    let mut head: Vec<String> = vec!["workload".into()];
    head.extend(book::ci_cols("lagoon_dor_ns"));
    head.extend(book::ci_cols("lagoon_duato_ns"));
    head.extend(["paper_dor_ns".into(), "paper_duato_ns".into()]);
    let mut w = csv_file(
        &out.join("table2_network_latency.csv"),
        &head.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    let paper_cell = |w: &str, r: &str| {
        if TABLE2.contains(&w) {
            format!("{}", published(w, r))
        } else {
            String::new()
        }
    };
    for wl in &names {
        let mut row = vec![wl.clone()];
        for d in ["dor", "duato"] {
            let v: Vec<f64> = seeds.iter().map(|&s| lat(wl, d, s)).collect();
            row.extend(book::ci_cells(&claims::stat(&v), 2));
        }
        row.extend([paper_cell(wl, "dor"), paper_cell(wl, "duato")]);
        w.write_record(&row)?;
    }
    // Per seed, the mean over workloads: the headline values.
    let per_seed = |d: &str| -> Vec<(u64, f64)> {
        seeds
            .iter()
            .map(|&s| {
                let v: Vec<f64> = names.iter().map(|wl| lat(wl, d, s)).collect();
                (s, mean(&finite(&v)))
            })
            .collect()
    };
    let (dor, duato) = (per_seed("dor"), per_seed("duato"));
    let mut row = vec![format!(
        "average (Lagoon: these {}; paper: its {})",
        names.len(),
        TABLE2.len()
    )];
    for v in [&dor, &duato] {
        row.extend(book::ci_cells(
            &claims::stat(&v.iter().map(|x| x.1).collect::<Vec<_>>()),
            2,
        ));
    }
    row.extend([
        format!("{}", paper.value("network_latency_dor")),
        format!("{}", paper.value("network_latency_duato")),
    ]);
    w.write_record(&row)?;
    w.flush()?;
    for (&(s, d), &(_, u)) in dor.iter().zip(&duato) {
        h.add("network_latency_dor", s, d);
        h.add("network_latency_duato", s, u);
        h.add("duato_over_dor", s, u / d);
    }
    m.fig(
        Fig::new(
            "table2_network_latency.svg",
            "table2_network_latency.csv",
            FigKind::Bars,
            "Table II (mqsimnet, each workload at its own arrival times): mean network latency",
            "workload",
            "mean network latency (us)",
        )
        .x("workload")
        .y(Y {
            label: Some("Lagoon DOR".into()),
            ..Y::ci("lagoon_dor_ns")
        })
        .y(Y {
            label: Some("Lagoon Duato".into()),
            ..Y::ci("lagoon_duato_ns")
        })
        .y(Y::labelled("paper_dor_ns", "paper DOR"))
        .y(Y::labelled("paper_duato_ns", "paper Duato"))
        .y_div(1e3),
    );
    m.table(
        "Table II: mean network latency per workload (ns), 95 % intervals over seeds",
        "table2_network_latency.csv",
        &[],
    );
    let mean_of = |v: &[(u64, f64)]| claims::stat(&v.iter().map(|x| x.1).collect::<Vec<_>>()).mean;
    summary.insert("workloads".into(), json!(names));
    summary.insert("seeds".into(), json!(seeds));
    summary.insert(
        "network_latency_ns".into(),
        json!({"dor": mean_of(&dor), "duato": mean_of(&duato)}),
    );
    write_json(&out.join("summary.json"), &Value::Object(summary))?;
    m.method(format!("Drive: `{DRIVE}` (MQSimNet Table I; unstated values and their reasons in the preset file); the networked back end is `--arch net`, the bus baseline `--arch baseline` with static mapping."));
    let (venice, outside): (Vec<&str>, Vec<&str>) = TABLE2
        .iter()
        .partition(|w| !msr_stand_ins().iter().any(|p| p.name == **w));
    m.method(format!("Workloads: `syn:` stand-ins of Table II's 11 MSR traces, {n} requests each, and the traces in `{}`. {} are Venice Table 2's (published read %, mean size, mean inter-arrival time); {} are not in Venice Table 2: their read % and mean size are approximate values that could not be checked against a primary table, their mean inter-arrival time the median of Venice's MSR rows ({MSR_STAND_IN_INTER_ARRIVAL_US} us), so they differ only in read % and size (lagoon-workload presets, `syn:hm_1` etc.).", dir.display(), venice.join(", "), outside.join(", ")));
    m.method(format!("Fig. 3: closed loop at queue depth {DEPTH}, first seed. Table II: each workload at its own arrival times, every seed; the paper's averages are over its 11 traces, Lagoon's over the workloads above."));
    let prov = a.provenance(
        "the syn: stand-ins' request streams and the simulator's own random draws (Duato's adaptive choices among them); the traces are replayed as recorded",
        &[DRIVE],
        &ran,
    )?;
    a.finish(&m, &h, prov)
}
