//! `lagoon reproduce mqsimnet`: MQSimNet's two case studies (§IV) on its Table I drive
//! (`mqsimnet` preset):
//! - Figure 3: static vs chip-level vs die-level dynamic address mapping on the networked back
//!   end (`--arch net`), normalized to the bus-based baseline with static mapping: throughput,
//!   device response time, end-to-end time, and speed-up (baseline execution time / design's).
//! - Table II: average network latency under dimension-order and Duato routing.
//!
//! Workloads: the `syn:` stand-ins of the MSR traces the paper names that Venice Table 2
//! characterizes (hm_1, prn_0 and proj_0 have none), and the real traces in `--traces`
//! (default ../shared/traces). Figure 3 replays closed-loop at queue depth 32 (throughput is
//! what the figure shows); Table II replays each workload by its own arrival times, as the
//! paper's "traces not large enough to generate high traffic" implies.

use super::{
    bars_with_average, finite, mean, trace_files, write, write_json, ReproduceArgs, Series,
};
use crate::batch::{Job, Record, RunKey};
use anyhow::{Context, Result};
use lagoon_core::config::{DynamicMapping, RoutingKind, SsdConfig};
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

const DRIVE: &str = "mqsimnet";
/// MSR traces of Table II with a Venice Table 2 stand-in.
const STAND_INS: [&str; 8] = [
    "hm_0", "mds_0", "proj_3", "prxy_0", "rsrch_0", "usr_0", "wdev_0", "web_1",
];
/// Table II: average network latency (ns), dimension-order and Duato routing.
const TABLE2: [(&str, f64, f64); 11] = [
    ("hm_0", 17625.76, 17350.71),
    ("hm_1", 2712.50, 2612.55),
    ("mds_0", 31324.61, 31068.56),
    ("prn_0", 24571.76, 24222.59),
    ("proj_0", 51125.79, 50725.80),
    ("proj_3", 2232.99, 2211.89),
    ("prxy_0", 55084.71, 54709.74),
    ("rsrch_0", 44259.83, 43776.13),
    ("usr_0", 5161.83, 4996.53), // printed "urs_0"
    ("wdev_0", 25923.49, 25566.43),
    ("web_1", 3243.74, 3213.14),
];
const TABLE2_AVERAGE: (f64, f64) = (23933.36, 23677.64);
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
    let mut workloads: Vec<(String, String)> = STAND_INS
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
    let mut jobs = Vec::new();
    let closed = Replay::Closed { depth: DEPTH };
    let timed = Replay::Timed { speedup: 1.0 };
    let mut push = |exp: &str,
                    design: &str,
                    cfg: SsdConfig,
                    arch: Arch,
                    w: &(String, String),
                    replay: Replay| {
        let mut sc = Scenario::new(DRIVE, cfg, arch, vec![w.1.clone()]);
        sc.seed = a.seed;
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
    };
    for w in &workloads {
        // Figure 3: MQSim's bus back end with static mapping, and the network with each policy.
        // Also without the write cache, where every write waits for its die (notes.md).
        for (exp, cache) in [("fig3", true), ("fig3-nocache", false)] {
            let mut base = drive.clone();
            base.cache.enabled = cache;
            push(exp, "baseline", base.clone(), Arch::Baseline, w, closed);
            for (name, m) in MAPPINGS {
                let mut c = base.clone();
                c.ftl.dynamic_mapping = m;
                push(exp, name, c, Arch::Net, w, closed);
            }
        }
        // Table II: the network with static mapping, DOR against Duato (2 VCs on a mesh: one
        // escape class routed by DOR, one adaptive).
        for (name, r) in [("dor", RoutingKind::Dor), ("duato", RoutingKind::Duato)] {
            let mut c = drive.clone();
            c.network.routing = r;
            push("table2", name, c, Arch::Net, w, timed);
        }
    }
    let what = format!(
        "{} workloads x (2 x 4 mappings + 2 routings)",
        workloads.len()
    );
    let (recs, wall) = a.run_jobs(jobs, &what)?;
    let out = a.out_dir();
    let names: Vec<String> = workloads.iter().map(|w| w.0.clone()).collect();
    let find = |exp: &str, w: &str, d: &str| {
        recs.iter()
            .find(|r| r.key.experiment == exp && r.key.workload == w && r.key.design == d)
    };
    // Per workload, `f(design) / f(baseline)` for each mapping.
    let vs_baseline = |exp: &str, f: &dyn Fn(&Record) -> f64| -> Series {
        MAPPINGS
            .iter()
            .map(|(m, _)| {
                let v = names
                    .iter()
                    .map(|w| match (find(exp, w, m), find(exp, w, "baseline")) {
                        (Some(r), Some(b)) if f(b) > 0.0 => f(r) / f(b),
                        _ => f64::NAN,
                    })
                    .collect();
                (m.to_string(), v)
            })
            .collect()
    };
    let iops = vs_baseline("fig3", &|r| r.iops);
    let device = vs_baseline("fig3", &|r| r.device_latency_us);
    let e2e = vs_baseline("fig3", &|r| r.mean_latency_us);
    // Speed-up: baseline execution time over the design's (the inverse of the time ratio).
    let speedup_of = |exp: &str| -> Series {
        vs_baseline(exp, &|r| r.sim_time_ns)
            .into_iter()
            .map(|(m, v)| (m, v.iter().map(|x| 1.0 / x).collect()))
            .collect()
    };
    let speedup = speedup_of("fig3");
    let speedup_nc = speedup_of("fig3-nocache");
    let mut csv = String::from("workload,mapping,iops_vs_baseline,speedup_vs_baseline,device_response_vs_baseline,end_to_end_vs_baseline\n");
    for (k, (m, _)) in iops.iter().enumerate() {
        for (i, w) in names.iter().enumerate() {
            let _ = writeln!(
                csv,
                "{w},{m},{:.6},{:.6},{:.6},{:.6}",
                iops[k].1[i], speedup[k].1[i], device[k].1[i], e2e[k].1[i]
            );
        }
    }
    write(&out.join("fig03_mapping.csv"), &csv)?;
    for (file, title, y, s) in [
        (
            "fig03a_throughput.svg",
            "Fig. 3a (mqsimnet, closed loop QD 32): throughput of the networked SSD / bus baseline",
            "IOPS / baseline (x)",
            &iops,
        ),
        (
            "fig03b_device_response.svg",
            "Fig. 3b: device response time / bus baseline",
            "device response time / baseline (x)",
            &device,
        ),
        (
            "fig03c_end_to_end.svg",
            "Fig. 3c: end-to-end request time / bus baseline",
            "end-to-end time / baseline (x)",
            &e2e,
        ),
        (
            "fig03d_speedup_no_write_cache.svg",
            "Fig. 3, write cache off (every write waits for its die): speed-up over the bus baseline",
            "speed-up over baseline (x)",
            &speedup_nc,
        ),
    ] {
        write(
            &out.join(file),
            &bars_with_average(title, y, &names, s, Some(1.0)),
        )?;
    }
    // Table II.
    let lat = |d: &str| -> Vec<f64> {
        names
            .iter()
            .map(|w| {
                find("table2", w, d)
                    .and_then(|r| r.network_latency_ns)
                    .unwrap_or(f64::NAN)
            })
            .collect()
    };
    let (dor, duato) = (lat("dor"), lat("duato"));
    let paper = |w: &str| TABLE2.iter().find(|t| t.0 == w);
    let mut csv =
        String::from("workload,lagoon_dor_ns,lagoon_duato_ns,paper_dor_ns,paper_duato_ns\n");
    for (i, w) in names.iter().enumerate() {
        let (pd, pu) = paper(w).map_or((String::new(), String::new()), |t| {
            (format!("{}", t.1), format!("{}", t.2))
        });
        let _ = writeln!(csv, "{w},{:.2},{:.2},{pd},{pu}", dor[i], duato[i]);
    }
    write(&out.join("table2_network_latency.csv"), &csv)?;
    let series: Series = vec![
        ("Lagoon DOR".into(), dor.iter().map(|x| x / 1e3).collect()),
        (
            "Lagoon Duato".into(),
            duato.iter().map(|x| x / 1e3).collect(),
        ),
        (
            "paper DOR".into(),
            names
                .iter()
                .map(|w| paper(w).map_or(f64::NAN, |t| t.1 / 1e3))
                .collect(),
        ),
        (
            "paper Duato".into(),
            names
                .iter()
                .map(|w| paper(w).map_or(f64::NAN, |t| t.2 / 1e3))
                .collect(),
        ),
    ];
    write(
        &out.join("table2_network_latency.svg"),
        &bars_with_average(
            "Table II (mqsimnet, each workload at its own arrival times): mean network latency",
            "mean network latency (us)",
            &names,
            &series,
            None,
        ),
    )?;
    // Summary.
    let means = |s: &Series| -> Map<String, Value> {
        s.iter()
            .map(|(m, v)| (m.clone(), json!(mean(&finite(v)))))
            .collect()
    };
    let common: Vec<usize> = (0..names.len())
        .filter(|&i| paper(&names[i]).is_some())
        .collect();
    let pick = |v: &[f64]| -> Vec<f64> { common.iter().map(|&i| v[i]).collect() };
    let summary = json!({
        "command": a.command_line(),
        "wall_time_s": wall,
        "runs": recs.len(),
        "workloads": names,
        "mapping_speedup": means(&speedup),
        "mapping_speedup_no_write_cache": means(&speedup_nc),
        "mapping_iops_vs_baseline": means(&iops),
        "mapping_device_response_vs_baseline": means(&device),
        "mapping_end_to_end_vs_baseline": means(&e2e),
        "network_latency_ns": {"dor": mean(&finite(&dor)), "duato": mean(&finite(&duato))},
        "network_latency_ns_table2_workloads": {
            "dor": mean(&finite(&pick(&dor))),
            "duato": mean(&finite(&pick(&duato))),
            "paper_dor": mean(&common.iter().map(|&i| paper(&names[i]).unwrap().1).collect::<Vec<_>>()),
            "paper_duato": mean(&common.iter().map(|&i| paper(&names[i]).unwrap().2).collect::<Vec<_>>()),
        },
        "paper": {
            "network_latency_ns": {"dor": TABLE2_AVERAGE.0, "duato": TABLE2_AVERAGE.1},
            "mapping": "Fig. 3 gives no numbers in the text: dynamic mapping 'significantly enhances throughput' over the bus baseline",
        },
    });
    write_json(&out.join("summary.json"), &summary)?;
    let mut md = String::new();
    let _ = writeln!(md, "# MQSimNet reproduced (`{}`)\n", a.command_line());
    let _ = writeln!(
        md,
        "Drive: `mqsimnet` preset (Table I; unstated values and their reasons in the preset file). {} runs in {wall:.0} s.\n",
        recs.len()
    );
    let _ = writeln!(md, "## Figure 3: address mapping (closed loop, queue depth {DEPTH}), means over {} workloads\n", names.len());
    let _ = writeln!(md, "| mapping | speed-up | IOPS / baseline | device response / baseline | end-to-end / baseline |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    for (k, (m, _)) in MAPPINGS.iter().enumerate() {
        let f = |s: &Series| mean(&finite(&s[k].1));
        let _ = writeln!(
            md,
            "| {m} | {:.3} | {:.3} | {:.3} | {:.3} |",
            f(&speedup),
            f(&iops),
            f(&device),
            f(&e2e)
        );
    }
    let nc: Vec<String> = speedup_nc
        .iter()
        .map(|(_, v)| format!("{:.3}", mean(&finite(v))))
        .collect();
    let _ = writeln!(
        md,
        "\nWith the write cache off (every write waits for its die), speed-up (static, chip, die): {}.",
        nc.join(", ")
    );
    let _ = writeln!(md, "\nThe paper (Fig. 3) shows dynamic mapping raising throughput well above the bus baseline; it gives no numbers in the text.\n");
    let _ = writeln!(md, "Per workload (speed-up over the bus baseline):\n");
    let _ = writeln!(md, "| workload | static | chip | die | static, no write cache | chip, no write cache | die, no write cache |\n|---|---|---|---|---|---|---|");
    for (i, w) in names.iter().enumerate() {
        let _ = writeln!(
            md,
            "| {w} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
            speedup[0].1[i],
            speedup[1].1[i],
            speedup[2].1[i],
            speedup_nc[0].1[i],
            speedup_nc[1].1[i],
            speedup_nc[2].1[i]
        );
    }
    let _ = writeln!(
        md,
        "\n## Table II: mean network latency (ns), each workload at its own arrival times\n"
    );
    let _ = writeln!(md, "| workload | Lagoon DOR | Lagoon Duato | Duato / DOR | paper DOR | paper Duato | paper Duato / DOR |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for (i, w) in names.iter().enumerate() {
        let p = paper(w);
        let _ = writeln!(
            md,
            "| {w} | {:.0} | {:.0} | {:.3} | {} | {} | {} |",
            dor[i],
            duato[i],
            duato[i] / dor[i],
            p.map_or("-".into(), |t| format!("{:.0}", t.1)),
            p.map_or("-".into(), |t| format!("{:.0}", t.2)),
            p.map_or("-".into(), |t| format!("{:.3}", t.2 / t.1)),
        );
    }
    let _ = writeln!(
        md,
        "| average | {:.0} | {:.0} | {:.3} | {:.0} | {:.0} | {:.3} |",
        mean(&finite(&dor)),
        mean(&finite(&duato)),
        mean(&finite(&duato)) / mean(&finite(&dor)),
        TABLE2_AVERAGE.0,
        TABLE2_AVERAGE.1,
        TABLE2_AVERAGE.1 / TABLE2_AVERAGE.0
    );
    let _ = writeln!(md, "\nThe paper's average is over its 11 traces; Lagoon's over the workloads above (the 8 stand-ins share names with the paper's traces, the real traces do not).");
    if let Some(p) = &a.notes {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("--notes {}", p.display()))?;
        md.push('\n');
        md.push_str(&text);
    }
    write(&out.join("summary.md"), &md)?;
    if !a.quiet {
        eprintln!("{md}");
    }
    Ok(())
}
