//! `lagoon reproduce piq`: the PIQ paper's evaluation (Gao et al., §V) — the five host
//! schedulers on conflict-heavy workloads on the paper's SSDsim drive (`piq-ssdsim`), the
//! queue-length sweep 1..512, and the same schedulers in front of `venice` and `ideal`.
//!
//! The motivation and characteristics (Figs. 1, 2, 9 and Table I) come from the same runs
//! under NOOP and RWS, plus, for Fig. 2b's "un-impacted response time", each workload's
//! requests issued one at a time (closed loop at depth 1, NOOP), so none waits for another.
//!
//! Replay: the paper replays MSR traces; here the real traces in `--traces` (default
//! `../shared/traces`) are replayed by their timestamps, with two synthetic conflict-heavy
//! workloads beside them. Averages are arithmetic means over workloads of per-workload ratios
//! to RWS, as the paper reports "compared with RWS, on average".

use super::book::{self, Fig, FigKind, Headlines, Manifest, Y};
use super::claims;
use super::{csv_file, mean, seed_means, seeded_table, trace_files, write_json, ReproduceArgs};
use crate::batch::{Job, Record, RunKey};
use anyhow::{Context, Result};
use lagoon_core::config::{DieScheduling, SsdConfig, WriteCompletion};
use lagoon_core::host::piq::Scheme;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use serde_json::{json, Map, Value};
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
/// The device the headline runs model: SSDsim 2.1's own (`DEVICES`' last entry), as the paper
/// ran SSDsim.
const HEADLINE_DEVICE: (u32, DieScheduling, WriteCompletion) =
    (5, DieScheduling::Priority, WriteCompletion::Transfer);

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
    let seeds = a.seeds();
    let base = seeds[..1].to_vec();
    let preset = SsdConfig::load(DRIVE)?;
    // The headline drive: the preset with SSDsim's device model.
    let mut drive = preset.clone();
    (
        drive.host.io_queue_depth,
        drive.ftl.die_scheduling,
        drive.ftl.write_completion,
    ) = HEADLINE_DEVICE;
    let mut jobs = Vec::new();
    let timed = Replay::Timed { speedup: 1.0 };
    let closed = Replay::Closed {
        depth: DEFAULT_QUEUE,
    };
    // Fig. 2b's un-impacted response time: one request at a time.
    let alone = Replay::Closed { depth: 1 };
    #[allow(clippy::too_many_arguments)]
    let mut push = |exp: &str,
                    ssd: &str,
                    cfg: &SsdConfig,
                    w: &(String, String),
                    arch: Arch,
                    s: Scheme,
                    q: u32,
                    replay: Replay,
                    seeds: &[u64]| {
        for &seed in seeds {
            let mut sc = Scenario::new(ssd, cfg.clone(), arch, vec![w.1.clone()]);
            sc.seed = seed;
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
        }
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
                &seeds,
            );
        }
    }
    for w in &workloads {
        push(
            "alone",
            DRIVE,
            &drive,
            w,
            Arch::Baseline,
            Scheme::Noop,
            DEFAULT_QUEUE,
            alone,
            &seeds,
        );
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
                &base,
            );
        }
    }
    // Path diversity: the perf-optimized drive, where the back ends differ, under a read-heavy
    // conflict load kept at the queue length (closed loop), so the scheduler always has a
    // choice. The device takes 32 requests at once (NCQ's depth).
    let mut perf = SsdConfig::load("perf-optimized")?;
    perf.host.io_queue_depth = 32;
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
                &base,
            );
        }
    }
    // Device sensitivity: how many requests the device takes at once (the slot sweep), and
    // whether its dies may reorder, decide how much a host scheduler can do.
    let device_ws: Vec<(String, String)> = workloads
        .iter()
        .filter(|w| w.0.starts_with("syn-") || w.0 == sweep_w.0)
        .cloned()
        .collect();
    let sweep = SLOTS.map(|n| (n, DieScheduling::Priority, WriteCompletion::Program));
    let mut models: Vec<_> = sweep.to_vec();
    models.extend(DEVICES.iter().filter(|d| !sweep.contains(d)));
    for (slots, die, ack) in models {
        let mut cfg = preset.clone();
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
                    &base,
                );
            }
        }
    }
    let what = format!(
        "{} workloads x 5 schedulers, queue sweep, back ends, device models",
        workloads.len()
    );
    let ran = a.run_jobs(jobs, &what)?;
    let recs = &ran.recs;
    let out = a.out_dir();
    let names: Vec<String> = workloads.iter().map(|w| w.0.clone()).collect();
    let schemes: Vec<String> = Scheme::ALL.iter().map(|s| s.to_string()).collect();
    let find = |exp: &str, w: &str, d: &str, q: u32, seed: u64| {
        recs.iter().find(|r| {
            r.key.experiment == exp
                && r.key.workload == w
                && r.key.design == d
                && r.key.mesh == format!("q{q}")
                && r.seed == seed
        })
    };
    let design = |s: &str| format!("baseline/{s}");
    // A scheme's metric over a reference scheme's, per workload and seed (headline runs).
    let vs = |f: fn(&Record) -> f64, reference: Scheme| {
        move |s: &str, w: &str, seed: u64| match (
            find("schemes", w, &design(s), DEFAULT_QUEUE, seed),
            find(
                "schemes",
                w,
                &design(&reference.to_string()),
                DEFAULT_QUEUE,
                seed,
            ),
        ) {
            (Some(r), Some(b)) if f(b) > 0.0 => f(r) / f(b),
            _ => f64::NAN,
        }
    };
    let mut m = Manifest::new("piq");
    let mut h = Headlines::default();
    let table = |file: &str, col: &str, f: &dyn Fn(&str, &str, u64) -> f64| {
        seeded_table(
            &out.join(file),
            "scheduler",
            col,
            &names,
            &schemes,
            &seeds,
            4,
            f,
        )
    };
    let bars = |svg: &str, csv: &str, col: &str, title: &str, y: &str| {
        Fig::new(svg, csv, FigKind::Bars, title, "workload", y)
            .x("workload")
            .series("scheduler")
            .y(Y::ci(col))
            .reference(1.0)
    };
    let headline_device = device_label(HEADLINE_DEVICE.0, HEADLINE_DEVICE.1, HEADLINE_DEVICE.2);
    // Fig. 8 (latency over NOOP, as the figure), Fig. 10 (host wait over RWS), Fig. 12.
    let mut summary = Map::new();
    let mut per_metric = Vec::new();
    for (file, col, f, reference, title, y, id) in [
        (
            "fig08_read_latency",
            "read_latency_vs_noop",
            (|r: &Record| r.read_latency_us) as fn(&Record) -> f64,
            Scheme::Noop,
            "Fig. 8a: read latency / NOOP",
            "read latency / NOOP",
            None,
        ),
        (
            "fig08_write_latency",
            "write_latency_vs_noop",
            |r: &Record| r.write_latency_us,
            Scheme::Noop,
            "Fig. 8b: write latency / NOOP",
            "write latency / NOOP",
            None,
        ),
        (
            "read_latency_vs_rws",
            "read_latency_vs_rws",
            |r: &Record| r.read_latency_us,
            Scheme::Rws,
            "",
            "",
            Some("piq_read_latency"),
        ),
        (
            "write_latency_vs_rws",
            "write_latency_vs_rws",
            |r: &Record| r.write_latency_us,
            Scheme::Rws,
            "",
            "",
            Some("piq_write_latency"),
        ),
        (
            "fig10_read_wait",
            "read_host_wait_vs_rws",
            |r: &Record| r.read_host_wait_us,
            Scheme::Rws,
            "Fig. 10a: read waiting time in the host / RWS",
            "wait / RWS",
            Some("piq_read_wait"),
        ),
        (
            "fig10_write_wait",
            "write_host_wait_vs_rws",
            |r: &Record| r.write_host_wait_us,
            Scheme::Rws,
            "Fig. 10b: write waiting time in the host / RWS",
            "wait / RWS",
            Some("piq_write_wait"),
        ),
        (
            "fig12_chip_utilization",
            "busy_chips_vs_rws",
            |r: &Record| r.mean_busy_chips,
            Scheme::Rws,
            "Fig. 12: average busy chips / RWS",
            "busy chips / RWS",
            Some("piq_chip_utilization"),
        ),
    ] {
        let csv = format!("{file}.csv");
        let avg = table(&csv, col, &vs(f, reference))?;
        if !title.is_empty() {
            m.fig(bars(
                &format!("{file}.svg"),
                &csv,
                col,
                &format!("{title} ({DRIVE} with {headline_device}, queue {DEFAULT_QUEUE})"),
                y,
            ));
        }
        if let Some(id) = id {
            for &(seed, x) in &avg["piq"] {
                h.add(id, seed, x);
            }
        }
        if reference == Scheme::Rws {
            per_metric.push((col.to_string(), avg.clone()));
        }
        summary.insert(col.into(), seed_means(&avg));
    }
    motivation(
        out,
        &mut m,
        &mut h,
        &names,
        &seeds,
        &|exp, w, s, seed| find(exp, w, &design(&s.to_string()), DEFAULT_QUEUE, seed),
        (preset.flash.channels * preset.flash.chips_per_channel) as f64,
        &headline_device,
    )?;
    // Every scheme against RWS, one table.
    let mut w = csv_file(
        &out.join("schemes_vs_rws.csv"),
        &{
            let mut head = vec!["scheduler".to_string()];
            for (c, _) in &per_metric {
                head.extend(book::ci_cols(c));
            }
            head.push("requests_in_conflict".into());
            head
        }
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    )?;
    for s in &schemes {
        let mut row = vec![s.clone()];
        for (_, avg) in &per_metric {
            let v: Vec<f64> = avg[s].iter().map(|x| x.1).collect();
            row.extend(book::ci_cells(&claims::stat(&v), 4));
        }
        let conflicts: Vec<f64> = names
            .iter()
            .filter_map(|w| {
                find("schemes", w, &design(s), DEFAULT_QUEUE, seeds[0])?.scheduler_conflict_fraction
            })
            .collect();
        row.push(format!("{:.4}", mean(&conflicts)));
        w.write_record(&row)?;
    }
    w.flush()?;
    m.table(
        "Every scheme against RWS: means over workloads of per-workload ratios, 95 % intervals over seeds",
        "schemes_vs_rws.csv",
        &[],
    );
    // Fig. 11: queue length sweep (first seed).
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
    for s in &schemes {
        for q in SWEEP {
            if let Some(r) = find("sweep", &sweep_w.0, &design(s), q, seeds[0]) {
                w.write_record([
                    q.to_string(),
                    s.clone(),
                    format!("{:.3}", r.read_latency_us),
                    format!("{:.3}", r.write_latency_us),
                    format!("{:.3}", r.mean_busy_chips),
                ])?;
            }
        }
    }
    w.flush()?;
    for (svg, col, what, y) in [
        (
            "fig11_read_latency_vs_queue.svg",
            "read_latency_us",
            "Fig. 11a",
            "mean read latency (us)",
        ),
        (
            "fig11_write_latency_vs_queue.svg",
            "write_latency_us",
            "Fig. 11b",
            "mean write latency (us)",
        ),
        (
            "fig11_busy_chips_vs_queue.svg",
            "mean_busy_chips",
            "Fig. 11c",
            "average busy chips",
        ),
    ] {
        m.fig(
            Fig::new(
                svg,
                "fig11_queue_length.csv",
                FigKind::LinesLogX,
                &format!("{what} ({}): {y} against queue length", sweep_w.0),
                "host queue length (log)",
                y,
            )
            .x("queue_length")
            .series("scheduler")
            .y(Y::col(col)),
        );
    }
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
            "busy_chips_vs_rws",
        ],
    )?;
    for arch in ["baseline", "venice", "ideal"] {
        let get = |s: &str| {
            find(
                "backends",
                &net_w.0,
                &format!("{arch}/{s}"),
                DEFAULT_QUEUE,
                seeds[0],
            )
        };
        let rws = get("rws");
        for s in &schemes {
            if let (Some(r), Some(b)) = (get(s), rws) {
                w.write_record([
                    arch.to_string(),
                    s.clone(),
                    format!("{:.3}", r.read_latency_us),
                    format!("{:.3}", r.write_latency_us),
                    format!("{:.3}", r.mean_busy_chips),
                    format!("{:.4}", r.read_latency_us / b.read_latency_us),
                    format!("{:.4}", r.write_latency_us / b.write_latency_us),
                    format!("{:.4}", r.mean_busy_chips / b.mean_busy_chips),
                ])?;
            }
        }
    }
    w.flush()?;
    m.table(
        &format!("In front of networked back ends (perf-optimized, the device taking 32 requests at once, `{}`, closed loop at {DEFAULT_QUEUE})", net_w.0),
        "backends.csv",
        &[],
    );
    // PIQ / RWS of a device model's runs on one workload: read and write latency, busy chips.
    let piq_vs_rws = |exp: &str, wl: &str| -> Option<[f64; 3]> {
        let get = |s: Scheme| {
            recs.iter().find(|r| {
                r.key.experiment == exp
                    && r.key.workload == wl
                    && r.key.design == design(&s.to_string())
                    && r.seed == seeds[0]
            })
        };
        let (p, r) = (get(Scheme::Piq)?, get(Scheme::Rws)?);
        Some([
            p.read_latency_us / r.read_latency_us,
            p.write_latency_us / r.write_latency_us,
            p.mean_busy_chips / r.mean_busy_chips,
        ])
    };
    let ratio_cols = [
        "read_latency_vs_rws",
        "write_latency_vs_rws",
        "chip_utilization_vs_rws",
    ];
    let mut w = csv_file(&out.join("device_sensitivity.csv"), &{
        let mut h = vec!["device", "workload"];
        h.extend(ratio_cols);
        h
    })?;
    let mut devices = Map::new();
    for (slots, die, ack) in DEVICES {
        let label = device_label(slots, die, ack);
        let mut by_w = Map::new();
        for wl in &device_ws {
            if let Some(v) = piq_vs_rws(&device_exp(slots, die, ack), &wl.0) {
                let mut row = vec![label.clone(), wl.0.clone()];
                row.extend(v.iter().map(|x| format!("{x:.4}")));
                w.write_record(&row)?;
                by_w.insert(wl.0.clone(), json!(v));
            }
        }
        devices.insert(label, Value::Object(by_w));
    }
    w.flush()?;
    summary.insert("piq_by_device".into(), Value::Object(devices));
    m.table(
        "PIQ / RWS by device model (requests the device takes at once; dies out of order as MQSim, or in arrival order; writes done at program or at transfer as SSDsim)",
        "device_sensitivity.csv",
        &[],
    );
    // The slot sweep: PIQ / RWS against the requests the device takes at once.
    let mut w = csv_file(&out.join("slot_sweep.csv"), &{
        let mut h = vec!["slots", "workload"];
        h.extend(ratio_cols);
        h
    })?;
    let mut by_slots = Map::new();
    for wl in &device_ws {
        for n in SLOTS {
            let exp = device_exp(n, DieScheduling::Priority, WriteCompletion::Program);
            if let Some(v) = piq_vs_rws(&exp, &wl.0) {
                let mut row = vec![n.to_string(), wl.0.clone()];
                row.extend(v.iter().map(|x| format!("{x:.4}")));
                w.write_record(&row)?;
                let e = by_slots.entry(n.to_string()).or_insert_with(|| json!({}));
                e[&wl.0] = json!({"read_latency_vs_rws": v[0], "write_latency_vs_rws": v[1], "chip_utilization_vs_rws": v[2]});
            }
        }
    }
    w.flush()?;
    summary.insert("piq_by_slots".into(), Value::Object(by_slots));
    for (k, (svg, what)) in [
        ("slot_sweep_read_latency.svg", "read latency"),
        ("slot_sweep_write_latency.svg", "write latency"),
        ("slot_sweep_busy_chips.svg", "average busy chips"),
    ]
    .into_iter()
    .enumerate()
    {
        m.fig(
            Fig::new(
                svg,
                "slot_sweep.csv",
                FigKind::LinesLogX,
                &format!("PIQ / RWS against the requests the device takes at once: {what}"),
                "requests the device takes at once (slots, log)",
                &format!("{what}, PIQ / RWS"),
            )
            .x("slots")
            .series("workload")
            .y(Y::col(ratio_cols[k])),
        );
    }
    summary.insert("workloads".into(), json!(names));
    summary.insert("drive".into(), json!(DRIVE));
    summary.insert("headline_device".into(), json!(headline_device));
    summary.insert("queue_length".into(), json!(DEFAULT_QUEUE));
    summary.insert("seeds".into(), json!(seeds));
    write_json(&out.join("summary.json"), &Value::Object(summary))?;
    m.method(format!("Drive: `{DRIVE}` (the paper's SSDsim setup, §V-A) with SSDsim 2.1's device model for the headline runs and the queue sweep: {headline_device}."));
    m.method(format!(
        "Workloads: every trace in `{}` replayed by its timestamps, and two synthetic conflict-heavy ones ({n} requests each); host queue length {DEFAULT_QUEUE}.",
        dir.display()
    ));
    m.method("Averages: arithmetic means over workloads of per-workload ratios to RWS (the paper's \"compared with RWS, on average\"); Fig. 8 is drawn against NOOP as in the paper.");
    m.method(format!(
        "The queue sweep ({}), back ends and device models run on the first seed.",
        sweep_w.0
    ));
    let prov = a.provenance(
        "the two synthetic workloads' request streams and the simulator's own random draws; the traces are replayed as recorded",
        &[DRIVE, "perf-optimized"],
        &ran,
    )?;
    a.finish(&m, &h, prov)
}

/// Figs. 1, 2 and 9 and Table I: the workloads as they run under NOOP (the paper collects
/// Table I's conflicts and chips with NOOP), RWS's prioritized reads, and Fig. 2b's increase
/// of response time over each request issued alone. `find(experiment, workload, scheme,
/// seed)` is a run of the headline drive.
#[allow(clippy::too_many_arguments)]
fn motivation<'a>(
    out: &std::path::Path,
    m: &mut Manifest,
    h: &mut Headlines,
    names: &[String],
    seeds: &[u64],
    find: &dyn Fn(&str, &str, Scheme, u64) -> Option<&'a Record>,
    chips: f64,
    device: &str,
) -> Result<()> {
    let paper = claims::paper("piq")?;
    let noop = |w: &str, seed: u64| find("schemes", w, Scheme::Noop, seed);
    let setting = format!("{DRIVE} with {device}, NOOP, queue {DEFAULT_QUEUE}");
    let pct = |id: &str| 100.0 * paper.value(id);
    // Fig. 1: chip utilization under NOOP.
    seeded_table(
        &out.join("fig01_chip_utilization.csv"),
        "scheduler",
        "chip_utilization",
        names,
        &["noop".to_string()],
        seeds,
        4,
        |_, w, seed| noop(w, seed).map_or(f64::NAN, |r| r.mean_busy_chips / chips),
    )?;
    m.fig(
        Fig::new(
            "fig01_chip_utilization.svg",
            "fig01_chip_utilization.csv",
            FigKind::Bars,
            &format!("Fig. 1: chip utilization, busy chips / {chips} ({setting})"),
            "workload",
            "chip utilization (busy chips / chips)",
        )
        .x("workload")
        .series("scheduler")
        .y(Y::ci("chip_utilization"))
        .cap(1.0)
        .mark(
            paper.value("fig1_chip_utilization_bound"),
            &format!(
                "paper: mostly below {:.0} % (MSR traces)",
                pct("fig1_chip_utilization_bound")
            ),
        ),
    );
    let kinds = ["read".to_string(), "write".to_string()];
    // Fig. 2a: requests in conflict on entering the host queue, per kind.
    let conflicts = seeded_table(
        &out.join("fig02a_conflicts.csv"),
        "request",
        "conflict_fraction",
        names,
        &kinds,
        seeds,
        4,
        |k, w, seed| {
            noop(w, seed)
                .and_then(|r| {
                    if k == "read" {
                        r.read_conflict_fraction
                    } else {
                        r.write_conflict_fraction
                    }
                })
                .unwrap_or(f64::NAN)
        },
    )?;
    m.fig(
        Fig::new(
            "fig02a_conflicts.svg",
            "fig02a_conflicts.csv",
            FigKind::Bars,
            &format!("Fig. 2a: requests in conflict on entering the queue ({setting})"),
            "workload",
            "requests in conflict / requests of the kind",
        )
        .x("workload")
        .series("request")
        .y(Y::ci("conflict_fraction"))
        .cap(1.0)
        .mark(
            paper.value("piq_read_conflicts"),
            &format!("paper: reads {:.1} % on average", pct("piq_read_conflicts")),
        )
        .mark(
            paper.value("piq_write_conflicts"),
            &format!(
                "paper: writes {:.1} % on average",
                pct("piq_write_conflicts")
            ),
        ),
    );
    for (k, id) in [
        ("read", "piq_read_conflicts"),
        ("write", "piq_write_conflicts"),
    ] {
        for &(seed, x) in &conflicts[k] {
            h.add(id, seed, x);
        }
    }
    // Fig. 2b: response time over the un-impacted one (each request alone); the paper's
    // "increased by N times" is this ratio - 1.
    let lat = |r: &Record, k: &str| {
        if k == "read" {
            r.read_latency_us
        } else {
            r.write_latency_us
        }
    };
    let degradation = seeded_table(
        &out.join("fig02b_degradation.csv"),
        "request",
        "response_time_over_alone",
        names,
        &kinds,
        seeds,
        3,
        |k, w, seed| match (noop(w, seed), find("alone", w, Scheme::Noop, seed)) {
            (Some(r), Some(a)) if lat(a, k) > 0.0 => lat(r, k) / lat(a, k),
            _ => f64::NAN,
        },
    )?;
    let mark = |id: &str, what: &str| {
        let v = paper.value(id);
        (
            v,
            format!("paper, mean: {what} {v:.1}x (+{:.1} times)", v - 1.0),
        )
    };
    let (r, w) = (
        mark("piq_read_degradation", "reads"),
        mark("piq_write_degradation", "writes"),
    );
    m.fig(
        Fig::new(
            "fig02b_degradation.svg",
            "fig02b_degradation.csv",
            FigKind::BarsLog,
            &format!("Fig. 2b: response time / each request alone ({setting})"),
            "workload",
            "response time / un-impacted (x, log)",
        )
        .x("workload")
        .series("request")
        .y(Y::ci("response_time_over_alone"))
        .reference(1.0)
        .mark(r.0, &r.1)
        .mark(w.0, &w.1),
    );
    for (k, id) in [
        ("read", "piq_read_degradation"),
        ("write", "piq_write_degradation"),
    ] {
        for &(seed, x) in &degradation[k] {
            h.add(id, seed, x);
        }
    }
    // Fig. 9: reads put ahead of an earlier write, NOOP against RWS.
    seeded_table(
        &out.join("fig09_prioritized_reads.csv"),
        "scheduler",
        "prioritized_read_fraction",
        names,
        &["noop".to_string(), "rws".to_string()],
        seeds,
        4,
        |s, w, seed| {
            let scheme = if s == "rws" {
                Scheme::Rws
            } else {
                Scheme::Noop
            };
            find("schemes", w, scheme, seed)
                .and_then(|r| r.prioritized_read_fraction)
                .unwrap_or(f64::NAN)
        },
    )?;
    m.fig(
        Fig::new(
            "fig09_prioritized_reads.svg",
            "fig09_prioritized_reads.csv",
            FigKind::Bars,
            &format!("Fig. 9: reads dispatched ahead of an earlier write ({DRIVE} with {device}, queue {DEFAULT_QUEUE})"),
            "workload",
            "prioritized reads / reads",
        )
        .x("workload")
        .series("scheduler")
        .y(Y::ci("prioritized_read_fraction"))
        .cap(1.0)
        .mark(
            paper.value("fig9_prioritized_reads_bound"),
            &format!(
                "paper: within {:.0} % for most traces",
                pct("fig9_prioritized_reads_bound")
            ),
        ),
    );
    // Table I: the workloads' characteristics under NOOP.
    let cols = [
        "read_ios",
        "write_ios",
        "read_conflicts",
        "write_conflicts",
        "utilized_chips",
    ];
    let mut head = vec!["workload".to_string()];
    for c in cols {
        head.extend(book::ci_cols(c));
    }
    let mut w = csv_file(
        &out.join("table1_trace_characteristics.csv"),
        &head.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    for wl in names {
        let mut row = vec![wl.clone()];
        for c in cols {
            let v: Vec<f64> = seeds
                .iter()
                .map(|&seed| {
                    noop(wl, seed)
                        .and_then(|r| {
                            let (reads, writes) = (r.host_reads? as f64, r.host_writes? as f64);
                            Some(match c {
                                "read_ios" => reads,
                                "write_ios" => writes,
                                "read_conflicts" => reads * r.read_conflict_fraction?,
                                "write_conflicts" => writes * r.write_conflict_fraction?,
                                _ => r.mean_busy_chips,
                            })
                        })
                        .unwrap_or(f64::NAN)
                })
                .collect();
            let digits = if c == "utilized_chips" { 2 } else { 0 };
            row.extend(book::ci_cells(&claims::stat(&v), digits));
        }
        w.write_record(&row)?;
    }
    w.flush()?;
    m.table(
        &format!("Table I: the workloads' characteristics as Lagoon runs them ({setting}; conflicts: requests that conflicted with one already in the queue when they entered it; utilized chips: mean busy chips), 95 % intervals over seeds. The paper's Table I is of 15 MSR traces of 500,000 requests each, which ../shared/traces does not hold"),
        "table1_trace_characteristics.csv",
        &[
            "workload",
            "read_ios",
            "write_ios",
            "read_conflicts",
            "read_conflicts_ci95_lo",
            "read_conflicts_ci95_hi",
            "write_conflicts",
            "write_conflicts_ci95_lo",
            "write_conflicts_ci95_hi",
            "utilized_chips",
            "utilized_chips_ci95_lo",
            "utilized_chips_ci95_hi",
        ],
    );
    Ok(())
}
