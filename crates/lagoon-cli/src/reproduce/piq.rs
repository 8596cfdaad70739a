//! `lagoon reproduce piq`: the PIQ paper's evaluation (Gao et al., §V) — the five host
//! schedulers on conflict-heavy workloads on the paper's SSDsim drive (`piq-ssdsim`), the
//! queue-length sweep 1..512, and the same schedulers in front of `venice` and `ideal`.
//!
//! Replay: the paper replays MSR traces; here the real traces in `--traces` (default
//! `../shared/traces`) are replayed by their timestamps, with two synthetic conflict-heavy
//! workloads beside them. Averages are arithmetic means over workloads of per-workload ratios
//! to RWS, as the paper reports "compared with RWS, on average".

use super::{
    bars_with_average, csv_file, finite, mean, trace_files, write, write_json, write_rows,
    ReproduceArgs, Series,
};
use crate::batch::{Job, Record, RunKey};
use crate::plot;
use anyhow::{Context, Result};
use lagoon_core::config::{DieScheduling, SsdConfig, WriteCompletion};
use lagoon_core::host::piq::Scheme;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

const DRIVE: &str = "piq-ssdsim";
/// Device models for the sensitivity table: requests the device takes at once, die order, and
/// when a write completes. The last is SSDsim 2.1's own device, as its source shows: 5 requests
/// inside the device (initialize.c: queue_length), per-chip service with reads first, a write
/// acknowledged once its data has crossed the channel (research notes in summary.md).
const DEVICES: [(u32, DieScheduling, WriteCompletion); 5] = [
    (32, DieScheduling::Priority, WriteCompletion::Program),
    (32, DieScheduling::Fifo, WriteCompletion::Program),
    (8, DieScheduling::Priority, WriteCompletion::Program),
    (8, DieScheduling::Fifo, WriteCompletion::Program),
    (5, DieScheduling::Priority, WriteCompletion::Transfer),
];

/// Requests the device takes at once, swept with piq-ssdsim's dies and write completion (out of
/// order, done at program): where between SSDsim's 5 and NCQ's 32 PIQ's gain goes.
const SLOTS: [u32; 11] = [1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32];

/// The experiment a device model's runs are under: the slot sweep's when it has that model.
fn device_exp(slots: u32, die: DieScheduling, ack: WriteCompletion) -> String {
    if (die, ack) == (DieScheduling::Priority, WriteCompletion::Program) && SLOTS.contains(&slots) {
        format!("slots {slots}")
    } else {
        format!("device {}", device_label(slots, die, ack))
    }
}

fn device_label(slots: u32, die: DieScheduling, ack: WriteCompletion) -> String {
    let order = match die {
        DieScheduling::Priority => "out-of-order dies",
        DieScheduling::Fifo => "in-order dies",
        DieScheduling::IssueOrder => "issue-order dies",
    };
    match ack {
        WriteCompletion::Program => format!("{slots} slots, {order}"),
        WriteCompletion::Transfer => {
            format!("{slots} slots, {order}, writes done at transfer (SSDsim)")
        }
    }
}
const DEFAULT_QUEUE: u32 = 64;
const SWEEP: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// Synthetic workloads with heavy conflicts: many multi-page requests over few chips' worth of
/// bandwidth, one read-heavy and one write-heavy, at about two thirds of the 8 x 40 MB/s
/// channels (Poisson arrivals keep them stable while the queue often holds more than the
/// device takes).
const SYNTHETIC: [(&str, &str); 2] = [
    (
        "syn-read-heavy",
        "syn:read=80,size=choice:2k@40/8k@40/32k@20,addr=uniform,arrival=poisson:50us",
    ),
    (
        "syn-write-heavy",
        "syn:read=20,size=choice:2k@40/8k@40/32k@20,addr=uniform,arrival=poisson:50us",
    ),
];
/// Published averages vs RWS (§V-B, PIQ): read latency −19.7 %, write −47.0 %, chip
/// utilization +24.2 %.
const PAPER_PIQ: [(&str, f64); 3] = [
    ("read_latency_vs_rws", 1.0 - 0.197),
    ("write_latency_vs_rws", 1.0 - 0.470),
    ("chip_utilization_vs_rws", 1.242),
];

pub fn run(a: &ReproduceArgs) -> Result<()> {
    let n = a.requests.unwrap_or(if a.quick { 2_000 } else { 20_000 });
    let dir = a
        .traces
        .clone()
        .unwrap_or_else(|| PathBuf::from("../shared/traces"));
    let mut workloads = trace_files(&dir).with_context(|| {
        if a.traces.is_none() {
            format!(
                "reproduce piq replays the traces in {} by default (run it from the project root with ../shared beside it), or give --traces DIR",
                dir.display()
            )
        } else {
            format!("--traces {}", dir.display())
        }
    })?;
    for (name, spec) in SYNTHETIC {
        workloads.push((name.into(), format!("{spec},count={n}")));
    }
    let drive = SsdConfig::load(DRIVE)?;
    let mut jobs = Vec::new();
    let timed = Replay::Timed { speedup: 1.0 };
    let closed = Replay::Closed {
        depth: DEFAULT_QUEUE,
    };
    #[allow(clippy::too_many_arguments)]
    let mut push = |exp: &str,
                    ssd: &str,
                    cfg: &SsdConfig,
                    w: &(String, String),
                    arch: Arch,
                    s: Scheme,
                    q: u32,
                    replay: Replay| {
        let mut sc = Scenario::new(ssd, cfg.clone(), arch, vec![w.1.clone()]);
        sc.seed = a.seed;
        sc.replay = Some(replay);
        sc.host_scheduler = Some((s, q));
        jobs.push(Job {
            key: RunKey {
                experiment: exp.into(),
                ssd: ssd.into(),
                mesh: format!("q{q}"),
                replay: replay.to_string(),
                workload: w.0.clone(),
                design: format!("{arch}/{s}"),
            },
            scenario: sc,
        });
    };
    for w in &workloads {
        for s in Scheme::ALL {
            push(
                "schemes",
                DRIVE,
                &drive,
                w,
                Arch::Baseline,
                s,
                DEFAULT_QUEUE,
                timed,
            );
        }
    }
    let sweep_w = workloads
        .iter()
        .find(|w| w.0 == "tpcc-small")
        .unwrap_or(&workloads[0])
        .clone();
    for q in SWEEP {
        for s in Scheme::ALL {
            push(
                "sweep",
                DRIVE,
                &drive,
                &sweep_w,
                Arch::Baseline,
                s,
                q,
                timed,
            );
        }
    }
    // Path diversity: the perf-optimized drive, where the back ends differ, under a read-heavy
    // conflict load kept at the queue length (closed loop), so the scheduler always has a choice.
    // The device takes 32 requests at once, as on piq-ssdsim, so the scheduler has a choice.
    let mut perf = SsdConfig::load("perf-optimized")?;
    perf.host.io_queue_depth = drive.host.io_queue_depth;
    let net_w = (
        "syn-read-heavy-perf".to_string(),
        format!("syn:read=80,size=choice:4k@40/16k@40/64k@20,addr=uniform,count={n}"),
    );
    for arch in [Arch::Baseline, Arch::Venice, Arch::Ideal] {
        for s in Scheme::ALL {
            push(
                "backends",
                "perf-optimized",
                &perf,
                &net_w,
                arch,
                s,
                DEFAULT_QUEUE,
                closed,
            );
        }
    }
    // Device sensitivity: how many requests the device takes at once (the slot sweep), and
    // whether its dies may reorder, decide how much a host scheduler can do (notes, item 2).
    let device_ws: Vec<(String, String)> = workloads
        .iter()
        .filter(|w| w.0.starts_with("syn-") || w.0 == sweep_w.0)
        .cloned()
        .collect();
    let sweep = SLOTS.map(|n| (n, DieScheduling::Priority, WriteCompletion::Program));
    let mut models: Vec<_> = sweep.to_vec();
    models.extend(DEVICES.iter().filter(|d| !sweep.contains(d)));
    for (slots, die, ack) in models {
        let mut cfg = drive.clone();
        cfg.host.io_queue_depth = slots;
        cfg.ftl.die_scheduling = die;
        cfg.ftl.write_completion = ack;
        let exp = device_exp(slots, die, ack);
        for w in &device_ws {
            for s in [Scheme::Rws, Scheme::Piq] {
                push(
                    &exp,
                    DRIVE,
                    &cfg,
                    w,
                    Arch::Baseline,
                    s,
                    DEFAULT_QUEUE,
                    timed,
                );
            }
        }
    }
    let what = format!(
        "{} workloads x 5 schedulers, queue sweep, back ends",
        workloads.len()
    );
    let (recs, wall) = a.run_jobs(jobs, &what)?;
    let out = a.out_dir();
    let names: Vec<String> = workloads.iter().map(|w| w.0.clone()).collect();
    let find = |exp: &str, w: &str, d: &str, q: u32| {
        recs.iter().find(|r| {
            r.key.experiment == exp
                && r.key.workload == w
                && r.key.design == d
                && r.key.mesh == format!("q{q}")
        })
    };
    let design = |s: Scheme| format!("baseline/{s}");
    // Per workload and scheme, a metric normalized to a reference scheme.
    let table = |f: &dyn Fn(&Record) -> f64, reference: Scheme| -> Series {
        Scheme::ALL
            .iter()
            .map(|&s| {
                let v = names
                    .iter()
                    .map(|w| {
                        match (
                            find("schemes", w, &design(s), DEFAULT_QUEUE),
                            find("schemes", w, &design(reference), DEFAULT_QUEUE),
                        ) {
                            (Some(r), Some(b)) if f(b) > 0.0 => f(r) / f(b),
                            _ => f64::NAN,
                        }
                    })
                    .collect();
                (s.to_string(), v)
            })
            .collect()
    };
    let csv_rows = |file: &str, col: &str, t: &Series| -> Result<()> {
        write_rows(&out.join(file), "scheduler", &names, &[(col, t)])
    };
    let draw = |file: &str, title: &str, y: &str, t: &Series| -> Result<()> {
        write(
            &out.join(file),
            &bars_with_average(title, y, &names, t, Some(1.0)),
        )
    };
    let read_lat = table(&|r| r.read_latency_us, Scheme::Noop);
    let write_lat = table(&|r| r.write_latency_us, Scheme::Noop);
    csv_rows("fig08_read_latency.csv", "read_latency_vs_noop", &read_lat)?;
    csv_rows(
        "fig08_write_latency.csv",
        "write_latency_vs_noop",
        &write_lat,
    )?;
    draw(
        "fig08_read_latency.svg",
        "Fig. 8a (piq-ssdsim, queue 64): read latency / NOOP",
        "read latency / NOOP",
        &read_lat,
    )?;
    draw(
        "fig08_write_latency.svg",
        "Fig. 8b (piq-ssdsim, queue 64): write latency / NOOP",
        "write latency / NOOP",
        &write_lat,
    )?;
    let read_wait = table(&|r| r.read_host_wait_us, Scheme::Rws);
    let write_wait = table(&|r| r.write_host_wait_us, Scheme::Rws);
    csv_rows("fig10_read_wait.csv", "read_host_wait_vs_rws", &read_wait)?;
    csv_rows(
        "fig10_write_wait.csv",
        "write_host_wait_vs_rws",
        &write_wait,
    )?;
    draw(
        "fig10_read_wait.svg",
        "Fig. 10a: read waiting time in the host / RWS",
        "wait / RWS",
        &read_wait,
    )?;
    draw(
        "fig10_write_wait.svg",
        "Fig. 10b: write waiting time in the host / RWS",
        "wait / RWS",
        &write_wait,
    )?;
    let chips = table(&|r| r.mean_busy_chips, Scheme::Rws);
    csv_rows("fig12_chip_utilization.csv", "busy_chips_vs_rws", &chips)?;
    draw(
        "fig12_chip_utilization.svg",
        "Fig. 12: average busy chips / RWS",
        "busy chips / RWS",
        &chips,
    )?;
    // Fig. 11: queue length sweep.
    let mut w = csv_file(
        &out.join("fig11_queue_length.csv"),
        &[
            "queue_length",
            "scheduler",
            "read_latency_us",
            "write_latency_us",
            "mean_busy_chips",
        ],
    )?;
    let mut read_lines = Vec::new();
    let mut write_lines = Vec::new();
    let mut chip_lines = Vec::new();
    for s in Scheme::ALL {
        let (mut rl, mut wl, mut cl) = (Vec::new(), Vec::new(), Vec::new());
        for q in SWEEP {
            if let Some(r) = find("sweep", &sweep_w.0, &design(s), q) {
                w.write_record([
                    q.to_string(),
                    s.to_string(),
                    format!("{:.3}", r.read_latency_us),
                    format!("{:.3}", r.write_latency_us),
                    format!("{:.3}", r.mean_busy_chips),
                ])?;
                rl.push((q as f64, r.read_latency_us));
                wl.push((q as f64, r.write_latency_us));
                cl.push((q as f64, r.mean_busy_chips));
            }
        }
        read_lines.push((s.to_string(), rl));
        write_lines.push((s.to_string(), wl));
        chip_lines.push((s.to_string(), cl));
    }
    w.flush()?;
    write(
        &out.join("fig11_read_latency_vs_queue.svg"),
        &plot::lines(
            &format!("Fig. 11a ({}): read latency vs queue length", sweep_w.0),
            "queue length (log)",
            "mean read latency (us)",
            &read_lines,
            true,
        ),
    )?;
    write(
        &out.join("fig11_write_latency_vs_queue.svg"),
        &plot::lines(
            &format!("Fig. 11b ({}): write latency vs queue length", sweep_w.0),
            "queue length (log)",
            "mean write latency (us)",
            &write_lines,
            true,
        ),
    )?;
    write(
        &out.join("fig11_busy_chips_vs_queue.svg"),
        &plot::lines(
            &format!(
                "Fig. 11c ({}): average busy chips vs queue length",
                sweep_w.0
            ),
            "queue length (log)",
            "average busy chips",
            &chip_lines,
            true,
        ),
    )?;
    // Schedulers in front of networked back ends.
    let mut w = csv_file(
        &out.join("backends.csv"),
        &[
            "arch",
            "scheduler",
            "read_latency_us",
            "write_latency_us",
            "mean_busy_chips",
            "read_vs_rws",
            "write_vs_rws",
        ],
    )?;
    let mut backends = Map::new();
    for arch in ["baseline", "venice", "ideal"] {
        let get = |s: Scheme| find("backends", &net_w.0, &format!("{arch}/{s}"), DEFAULT_QUEUE);
        let rws = get(Scheme::Rws);
        let mut m = Map::new();
        for s in Scheme::ALL {
            if let (Some(r), Some(b)) = (get(s), rws) {
                let (rr, wr) = (
                    r.read_latency_us / b.read_latency_us,
                    r.write_latency_us / b.write_latency_us,
                );
                w.write_record([
                    arch.to_string(),
                    s.to_string(),
                    format!("{:.3}", r.read_latency_us),
                    format!("{:.3}", r.write_latency_us),
                    format!("{:.3}", r.mean_busy_chips),
                    format!("{rr:.4}"),
                    format!("{wr:.4}"),
                ])?;
                m.insert(s.to_string(), json!({"read_latency_vs_rws": rr, "write_latency_vs_rws": wr, "chip_utilization_vs_rws": r.mean_busy_chips / b.mean_busy_chips}));
            }
        }
        backends.insert(arch.into(), Value::Object(m));
    }
    w.flush()?;
    // summary.json: per scheme, averages of per-workload ratios to RWS.
    let vs_rws = |f: &dyn Fn(&Record) -> f64| table(f, Scheme::Rws);
    let (rl, wl, cu) = (
        vs_rws(&|r| r.read_latency_us),
        vs_rws(&|r| r.write_latency_us),
        vs_rws(&|r| r.mean_busy_chips),
    );
    let mut summary = Map::new();
    for (k, s) in Scheme::ALL.iter().enumerate() {
        let conflicts: Vec<f64> = names
            .iter()
            .filter_map(|w| {
                find("schemes", w, &design(*s), DEFAULT_QUEUE)?.scheduler_conflict_fraction
            })
            .collect();
        summary.insert(
            s.to_string(),
            json!({
                "read_latency_vs_rws": mean(&finite(&rl[k].1)),
                "write_latency_vs_rws": mean(&finite(&wl[k].1)),
                "chip_utilization_vs_rws": mean(&finite(&cu[k].1)),
                "conflict_fraction": mean(&conflicts),
            }),
        );
    }
    summary.insert("workloads".into(), json!(names));
    summary.insert("drive".into(), json!(DRIVE));
    summary.insert("queue_length".into(), json!(DEFAULT_QUEUE));
    summary.insert(
        "mean".into(),
        json!("arithmetic mean over workloads of per-workload ratios to RWS"),
    );
    summary.insert("backends".into(), Value::Object(backends));
    // Device sensitivity: PIQ / RWS per device model and workload.
    let mut w = csv_file(
        &out.join("device_sensitivity.csv"),
        &[
            "device",
            "workload",
            "read_latency_vs_rws",
            "write_latency_vs_rws",
            "chip_utilization_vs_rws",
        ],
    )?;
    // PIQ / RWS of a device model's runs on one workload: read and write latency, busy chips.
    let piq_vs_rws = |exp: &str, wl: &str| -> Option<[f64; 3]> {
        let get = |s: Scheme| {
            recs.iter().find(|r| {
                r.key.experiment == exp && r.key.workload == wl && r.key.design == design(s)
            })
        };
        let (p, r) = (get(Scheme::Piq)?, get(Scheme::Rws)?);
        Some([
            p.read_latency_us / r.read_latency_us,
            p.write_latency_us / r.write_latency_us,
            p.mean_busy_chips / r.mean_busy_chips,
        ])
    };
    let ratios_json = |v: [f64; 3]| json!({"read_latency_vs_rws": v[0], "write_latency_vs_rws": v[1], "chip_utilization_vs_rws": v[2]});
    let mut devices = Map::new();
    for (slots, die, ack) in DEVICES {
        let label = device_label(slots, die, ack);
        let exp = device_exp(slots, die, ack);
        let mut m = Map::new();
        for wl in &device_ws {
            if let Some(v) = piq_vs_rws(&exp, &wl.0) {
                w.write_record([
                    label.clone(),
                    wl.0.clone(),
                    format!("{:.4}", v[0]),
                    format!("{:.4}", v[1]),
                    format!("{:.4}", v[2]),
                ])?;
                m.insert(wl.0.clone(), ratios_json(v));
            }
        }
        devices.insert(label, Value::Object(m));
    }
    w.flush()?;
    summary.insert("piq_by_device".into(), Value::Object(devices));
    // The slot sweep: PIQ / RWS against the requests the device takes at once.
    let mut w = csv_file(
        &out.join("slot_sweep.csv"),
        &[
            "slots",
            "workload",
            "read_latency_vs_rws",
            "write_latency_vs_rws",
            "chip_utilization_vs_rws",
        ],
    )?;
    let mut by_slots = Map::new();
    let mut lines: [plot::Lines; 3] = Default::default();
    for wl in &device_ws {
        let mut pts: [Vec<(f64, f64)>; 3] = Default::default();
        for n in SLOTS {
            let exp = device_exp(n, DieScheduling::Priority, WriteCompletion::Program);
            if let Some(v) = piq_vs_rws(&exp, &wl.0) {
                let mut row = vec![n.to_string(), wl.0.clone()];
                row.extend(v.iter().map(|x| format!("{x:.4}")));
                w.write_record(&row)?;
                for (k, x) in v.into_iter().enumerate() {
                    pts[k].push((n as f64, x));
                }
                let e = by_slots.entry(n.to_string()).or_insert_with(|| json!({}));
                e[&wl.0] = ratios_json(v);
            }
        }
        for (k, p) in pts.into_iter().enumerate() {
            lines[k].push((wl.0.clone(), p));
        }
    }
    w.flush()?;
    for (k, (file, what)) in [
        ("slot_sweep_read_latency.svg", "read latency"),
        ("slot_sweep_write_latency.svg", "write latency"),
        ("slot_sweep_busy_chips.svg", "average busy chips"),
    ]
    .into_iter()
    .enumerate()
    {
        write(
            &out.join(file),
            &plot::lines(
                &format!("PIQ / RWS against the requests the device takes at once: {what}"),
                "requests the device takes at once (slots, log)",
                &format!("{what}, PIQ / RWS"),
                &lines[k],
                true,
            ),
        )?;
    }
    summary.insert("piq_by_slots".into(), Value::Object(by_slots));
    let summary = Value::Object(summary);
    write_json(&out.join("summary.json"), &summary)?;
    let mut md = String::new();
    let _ = writeln!(md, "# PIQ (parallel issue queuing) reproduced by Lagoon\n");
    let _ = writeln!(md, "Command: `{}` — {wall:.0} s wall. Drive `{DRIVE}` (the paper's SSDsim setup, §V-A), host queue length {DEFAULT_QUEUE}, timed replay of every trace in `{}` and two synthetic conflict-heavy workloads ({n} requests each). Averages: arithmetic means over workloads of per-workload ratios to RWS.\n",
        a.command_line(), dir.display());
    let _ = writeln!(md, "## PIQ against RWS, beside the paper (SPEC §4)\n");
    let _ = writeln!(
        md,
        "| metric | paper | Lagoon | Lagoon / paper |\n|---|---|---|---|"
    );
    for (k, p) in PAPER_PIQ {
        let v = summary["piq"][k].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(md, "| {k} | {p:.3} | {v:.3} | {:.2} |", v / p);
    }
    let _ = writeln!(md, "\n## Every scheme against RWS\n\n| scheme | read latency | write latency | busy chips | requests in conflict |\n|---|---|---|---|---|");
    for s in Scheme::ALL {
        let o = &summary[s.to_string()];
        let f = |k: &str| o[k].as_f64().map_or("-".into(), |x| format!("{x:.3}"));
        let _ = writeln!(
            md,
            "| {s} | {} | {} | {} | {} |",
            f("read_latency_vs_rws"),
            f("write_latency_vs_rws"),
            f("chip_utilization_vs_rws"),
            f("conflict_fraction")
        );
    }
    let _ = writeln!(md, "\n## In front of networked back ends (perf-optimized with the device taking {} requests at once, `{}`)\n\n| back end | scheme | read latency / RWS | write latency / RWS | busy chips / RWS |\n|---|---|---|---|---|", drive.host.io_queue_depth, net_w.0);
    for arch in ["baseline", "venice", "ideal"] {
        for s in Scheme::ALL {
            let o = &summary["backends"][arch][s.to_string()];
            let f = |k: &str| o[k].as_f64().map_or("-".into(), |x| format!("{x:.3}"));
            let _ = writeln!(
                md,
                "| {arch} | {s} | {} | {} | {} |",
                f("read_latency_vs_rws"),
                f("write_latency_vs_rws"),
                f("chip_utilization_vs_rws")
            );
        }
    }
    let _ = writeln!(md, "\n## PIQ against RWS by device model (`device_sensitivity.csv`)\n\nThe device takes N requests at once; its dies serve them out of order (Lagoon's default, MQSim-like) or in arrival order (`die_scheduling = \"fifo\"`).\n\n| device | workload | read latency | write latency | busy chips |\n|---|---|---|---|---|");
    if let Some(d) = summary["piq_by_device"].as_object() {
        for (label, ws) in d {
            for (wl, o) in ws.as_object().into_iter().flatten() {
                let f = |k: &str| o[k].as_f64().map_or("-".into(), |x| format!("{x:.3}"));
                let _ = writeln!(
                    md,
                    "| {label} | {wl} | {} | {} | {} |",
                    f("read_latency_vs_rws"),
                    f("write_latency_vs_rws"),
                    f("chip_utilization_vs_rws")
                );
            }
        }
    }
    let _ = writeln!(
        md,
        "\n## PIQ against RWS by the requests the device takes at once (`slot_sweep.csv`)\n\npiq-ssdsim's device (out-of-order dies, writes done at program) taking N requests at once; each cell is PIQ / RWS read latency, write latency, busy chips.\n\n| slots | {} |\n|---|{}",
        device_ws.iter().map(|w| w.0.as_str()).collect::<Vec<_>>().join(" | "),
        "---|".repeat(device_ws.len())
    );
    for n in SLOTS {
        let cells: Vec<String> = device_ws
            .iter()
            .map(|wl| {
                let o = &summary["piq_by_slots"][n.to_string()][&wl.0];
                let f = |k: &str| o[k].as_f64().map_or("-".into(), |x| format!("{x:.3}"));
                format!(
                    "{} / {} / {}",
                    f("read_latency_vs_rws"),
                    f("write_latency_vs_rws"),
                    f("chip_utilization_vs_rws")
                )
            })
            .collect();
        let _ = writeln!(md, "| {n} | {} |", cells.join(" | "));
    }
    let _ = writeln!(md, "\n## Figures\n");
    for (f, t) in [
        ("fig08_read_latency.svg", "Fig. 8a: read latency / NOOP"),
        ("fig08_write_latency.svg", "Fig. 8b: write latency / NOOP"),
        (
            "fig10_read_wait.svg",
            "Fig. 10a: read waiting time in the host / RWS",
        ),
        (
            "fig10_write_wait.svg",
            "Fig. 10b: write waiting time in the host / RWS",
        ),
        (
            "fig11_read_latency_vs_queue.svg",
            "Fig. 11a: read latency vs queue length",
        ),
        (
            "fig11_write_latency_vs_queue.svg",
            "Fig. 11b: write latency vs queue length",
        ),
        (
            "fig11_busy_chips_vs_queue.svg",
            "Fig. 11c: average busy chips vs queue length",
        ),
        ("fig12_chip_utilization.svg", "Fig. 12: busy chips / RWS"),
        (
            "slot_sweep_read_latency.svg",
            "PIQ / RWS read latency against the device's slots",
        ),
        (
            "slot_sweep_write_latency.svg",
            "PIQ / RWS write latency against the device's slots",
        ),
        (
            "slot_sweep_busy_chips.svg",
            "PIQ / RWS busy chips against the device's slots",
        ),
    ] {
        let _ = writeln!(md, "### {t}\n\n![{t}]({f})\n");
    }
    let _ = writeln!(md, "Data: one CSV per figure (one row per scheduler × workload; `fig11_queue_length.csv` one per scheduler × queue length), `backends.csv`, every run in `runs.csv` / `runs.json`, averages in `summary.json`.");
    if let Some(p) = &a.notes {
        md.push('\n');
        md.push_str(
            &std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        );
    }
    write(&out.join("summary.md"), &md)?;
    if !a.quiet {
        eprintln!("done in {wall:.0} s: {}", out.join("summary.md").display());
    }
    Ok(())
}
