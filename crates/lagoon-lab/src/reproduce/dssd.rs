//! `lagoon reproduce dssd`: the Decoupled SSD paper (Kim, Jung, Kim, ISCA 2023) on its Table 1
//! drive (`dssd-ull`), with the controller's system bus and DRAM as resources. Every figure of
//! §3 and §6.2-6.3 (one CSV and SVGs each; see [`run`]):
//! - Fig. 2: I/O and GC bandwidth and system-bus utilization over time (1 ms windows), 4 KB
//!   and 32 KB sequential writes at QD 64, Baseline, write cache on.
//! - Fig. 7: I/O and GC performance of the five Table 2 designs over Baseline, 4 KB ("low")
//!   and 128 KB ("high") writes, "DRAM hit" (write cache on, no more bytes than it holds) and
//!   "DRAM miss" (write cache off, §6.1); system-bus utilization of both.
//! - Fig. 8: Baseline with the system bus x1..x4 and dSSD_f with the total on-chip bandwidth
//!   x1.25..x4 (the extra as fNoC links), low and high, DRAM hit.
//! - Fig. 9: latency breakdown of user writes and GC page moves against planes per die.
//!   Figures 8-13 use DRAM-hit 128 KB writes (4 KB too for Fig. 8), where I/O and GC run
//!   together in Lagoon.
//! - Fig. 10: (a) DRAM-hit writes with GC (Fig. 7's high runs): bandwidth and p99; (b) mean
//!   I/O latency of Fig. 11's designs on the workload stand-ins, over Baseline's.
//! - Fig. 11 (stand-ins): p99 of Baseline, BW, PreemptiveGC, Tiny-Tail and dSSD_f on `syn:`
//!   stand-ins of MSR workloads (the paper's traces are not in ../shared): (a) prn_0,
//!   (b) every design's p99 over dSSD_f's per workload and on average.
//! - Fig. 12: dSSD_f GC against the router/flash channel bandwidth ratio, (a) 4/8/16 channels
//!   of one way, (b) 8 channels of 1/2/4 ways.
//! - Fig. 13: (a) line, ring and crossbar fNoCs at equal bisection bandwidth, (b) router
//!   buffer size.
//!
//! GC runs from the start: aged preconditioning (§6.1). Runs stop at the last host
//! completion. I/O performance is host bandwidth over the run; GC performance is GC page
//! reads and programs (as page moves) per second over the same time (GC while I/O runs).

use super::book::{self, Fig, FigKind, Headlines, Manifest, Y};
use super::claims;
use super::{csv_rows, mean, seeded_table, write, write_json, ReproduceArgs};
use crate::batch::{Job, Record, RunKey};
use anyhow::Result;
use lagoon_core::config::{Design, GcMode, SsdConfig, TopologyKind};
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use serde_json::{json, Map, Value};

const DRIVE: &str = "dssd-ull";
const DEPTH: u32 = 64;
/// §6.1: "I/O requests of 4kB and 128kB to model both low and high I/O request demands".
const SIZES: [(&str, &str); 2] = [("low", "4k"), ("high", "128k")];
/// Fig. 10(b) and 11: `syn:` stand-ins of MSR traces (prn_0 is Fig. 11(a)'s workload).
const STAND_INS: [&str; 4] = ["hm_0", "prn_0", "prxy_0", "src1_0"];
/// Fig. 10(b) and 11: the designs (label, design, GC mode); dSSD_f last, the reference.
const FIG11_DESIGNS: [(&str, Design, GcMode); 5] = [
    ("baseline", Design::Baseline, GcMode::Parallel),
    ("bw", Design::Bw, GcMode::Parallel),
    ("preemptive", Design::Baseline, GcMode::Preemptive),
    ("tiny-tail", Design::Baseline, GcMode::TinyTail),
    ("dssd_f", Design::DssdF, GcMode::Parallel),
];
/// Fig. 11(a)'s workload.
const FIG11A: &str = "prn_0";
/// Fig. 8: on-chip bandwidth multipliers (x1 is Fig. 7's Baseline; dSSD_f x1.25 its dSSD_f).
const FIG8_SCALES: [f64; 3] = [1.5, 2.0, 4.0];
/// Fig. 9: planes per die.
const FIG9_PLANES: [u32; 3] = [1, 2, 4];
/// Fig. 12: router channel bandwidth over flash channel bandwidth (1 GB/s).
const FIG12_RATIOS: [f64; 4] = [0.5, 1.0, 2.0, 4.0];
/// Fig. 13: fNoC bisection bandwidth, MB/s per direction, and router buffers, bytes.
const FIG13_BISECTION: [f64; 4] = [500.0, 1000.0, 2000.0, 4000.0];
const FIG13_BUFFERS: [u32; 4] = [64, 256, 1024, 4096];
const TOPOLOGIES: [(&str, TopologyKind); 3] = [
    ("line", TopologyKind::Line),
    ("ring", TopologyKind::Ring),
    ("crossbar", TopologyKind::Crossbar),
];

/// Fig. 7(a) in the steady state: writes of this many times the write cache's bytes through
/// it (write cache on), so the cache is full and host writes go at the rate its write-back and
/// GC leave them. Chosen: the dSSD/Baseline ratios settle by 8 fills (128 KB, dssd-ull: I/O
/// 1.35x, 1.30x, 1.28x and GC 1.34x, 1.30x, 1.27x at 8, 16, 32 fills; 1.79x and 0.44x at 4).
const STEADY_CACHE_FILLS: u64 = 8;

/// Requests per run: `n` 4 KB writes, or the same bytes in larger ones, for DRAM-miss runs;
/// `hit_bytes` (at most the write cache) for DRAM-hit runs; `steady_bytes` through the cache.
struct Sizes {
    n: u64,
    hit_bytes: u64,
    steady_bytes: u64,
}

impl Sizes {
    fn count(&self, size: &str) -> u64 {
        match size {
            "128k" => (self.n / 32).max(16),
            "32k" => (self.n / 8).max(16),
            _ => self.n,
        }
    }
    /// Sequential writes that all go to the flash (write cache off: "DRAM miss", §6.1).
    fn miss(&self, size: &str) -> String {
        format!("syn:read=0,size={size},addr=seq,count={}", self.count(size))
    }
    /// Sequential writes of no more than the 256 MB write cache holds: every write lands in
    /// DRAM and completes there while GC runs ("DRAM hit", §6.1, Fig. 7(b), Fig. 10).
    fn hit(&self, size: &str) -> String {
        Self::writes(size, self.hit_bytes)
    }
    /// Sequential writes of [`STEADY_CACHE_FILLS`] write caches, through it.
    fn steady(&self, size: &str) -> String {
        Self::writes(size, self.steady_bytes)
    }
    fn writes(size: &str, bytes: u64) -> String {
        let b = if size == "128k" { 131_072 } else { 4_096 };
        format!(
            "syn:read=0,size={size},addr=seq,count={}",
            (bytes / b).max(16)
        )
    }
}

/// Bisection links of an 8-endpoint fNoC per direction: line 1, ring 2, crossbar N/2.
fn bisection_links(t: TopologyKind, fcs: u32) -> f64 {
    match t {
        TopologyKind::Ring => 2.0,
        TopologyKind::Crossbar => (fcs / 2) as f64,
        _ => 1.0,
    }
}

struct Plan {
    jobs: Vec<Job>,
    seeds: Vec<u64>,
}

/// The experiments whose runs feed headlines: they run on every seed.
const HEADLINE_EXPERIMENTS: [&str; 3] = ["fig07", "fig08", "fig11"];

impl Plan {
    fn push(&mut self, exp: &str, label: &str, cfg: SsdConfig, w: &str, replay: Option<Replay>) {
        self.push_with(exp, label, cfg, w, replay, false)
    }
    fn push_with(
        &mut self,
        exp: &str,
        label: &str,
        cfg: SsdConfig,
        w: &str,
        replay: Option<Replay>,
        timeline: bool,
    ) {
        let mesh = format!("{}x{}", cfg.flash.channels, cfg.flash.chips_per_channel);
        let n = if HEADLINE_EXPERIMENTS.contains(&exp) {
            self.seeds.len()
        } else {
            1
        };
        for &seed in &self.seeds[..n] {
            let mut sc = Scenario::new(DRIVE, cfg.clone(), Arch::Baseline, vec![w.to_string()]);
            sc.seed = seed;
            sc.replay = replay;
            sc.stop_at_last_completion = true;
            if timeline {
                sc.timeline_window = Some(lagoon_core::time::PS_PER_MS);
            }
            self.jobs.push(Job {
                key: RunKey {
                    experiment: exp.into(),
                    ssd: DRIVE.into(),
                    mesh: mesh.clone(),
                    replay: replay.map_or("own".into(), |r| r.to_string()),
                    workload: w.to_string(),
                    design: label.into(),
                },
                scenario: sc,
            });
        }
    }
}

fn drive_with(drive: &SsdConfig, d: Design, mode: GcMode, cache: bool) -> SsdConfig {
    let mut c = drive.clone();
    c.controller.design = d;
    c.ftl.gc_mode = mode;
    c.cache.enabled = cache;
    c
}

/// dSSD_f with a total on-chip bandwidth of `scale` x the Baseline bus: the bus stays x1 and
/// the rest goes to the fNoC's links (x1.25: 2 GB/s links, §6.1).
fn dssd_f_total(drive: &SsdConfig, scale: f64) -> SsdConfig {
    let mut c = drive_with(drive, Design::DssdF, GcMode::Parallel, true);
    c.fnoc.link_mb_s = (scale - 1.0) * c.controller.system_bus_mb_s;
    c
}

fn baseline_bus(drive: &SsdConfig, scale: f64) -> SsdConfig {
    let mut c = drive_with(drive, Design::Baseline, GcMode::Parallel, true);
    c.controller.system_bus_mb_s *= scale;
    c
}

pub fn run(a: &ReproduceArgs) -> Result<()> {
    let n = a.requests.unwrap_or(if a.quick { 4_000 } else { 50_000 });
    let mut drive = SsdConfig::load(DRIVE)?;
    if a.tiny_drive {
        // Tests: the aged GC backlog scales with the blocks; the figure code is the same.
        drive.flash.blocks_per_plane = 48;
        drive.flash.pages_per_block = 16;
        drive.cache.capacity_bytes = 1 << 20;
    }
    let cache = drive.cache.capacity_bytes;
    let sz = Sizes {
        n,
        // 16 KB per 4 KB miss request: 64 MB quick, 256 MB (the write cache) in full.
        hit_bytes: match a.knob_f64("dram_hit_fraction")? {
            // A sensitivity reading: that fraction of the write cache per DRAM-hit run.
            Some(f) => (f * cache as f64) as u64,
            None => (n * 16_384).min(cache),
        },
        steady_bytes: STEADY_CACHE_FILLS * cache,
    };
    let closed = Some(Replay::Closed { depth: DEPTH });
    let mut p = Plan {
        jobs: Vec::new(),
        seeds: a.seeds(),
    };
    // Fig. 2: Baseline timelines (write cache on, as §3's drive).
    for size in ["4k", "32k"] {
        let w = format!("syn:read=0,size={size},addr=seq,count={}", sz.count(size));
        let c = drive_with(&drive, Design::Baseline, GcMode::Parallel, true);
        p.push_with("fig02", size, c, &w, closed, true);
    }
    // Fig. 7 and 10: five designs, DRAM hit (write cache on), DRAM miss (off) and the steady
    // state (on, 8 caches through it).
    for (level, size) in SIZES {
        for d in Design::ALL {
            let cached = drive_with(&drive, d, GcMode::Parallel, true);
            p.push(
                "fig07",
                &format!("hit/{level}/{d}"),
                cached.clone(),
                &sz.hit(size),
                closed,
            );
            // DRAM miss: the Baseline's run is its whole GC backlog; --quick keeps the high
            // case, of both.
            if !a.quick || level == "high" {
                let c = drive_with(&drive, d, GcMode::Parallel, false);
                p.push(
                    "fig07",
                    &format!("miss/{level}/{d}"),
                    c,
                    &sz.miss(size),
                    closed,
                );
                p.push(
                    "fig07",
                    &format!("steady/{level}/{d}"),
                    cached,
                    &sz.steady(size),
                    closed,
                );
            }
        }
    }
    // Fig. 8: on-chip bandwidth.
    for (level, size) in SIZES {
        for s in FIG8_SCALES {
            p.push(
                "fig08",
                &format!("{level}/baseline/x{s}"),
                baseline_bus(&drive, s),
                &sz.hit(size),
                closed,
            );
            p.push(
                "fig08",
                &format!("{level}/dssd_f/x{s}"),
                dssd_f_total(&drive, s),
                &sz.hit(size),
                closed,
            );
        }
    }
    // Fig. 9: planes per die (8 is Fig. 7's high runs).
    for planes in FIG9_PLANES {
        for d in [Design::Baseline, Design::DssdF] {
            let mut c = drive_with(&drive, d, GcMode::Parallel, true);
            c.flash.planes_per_die = planes;
            p.push(
                "fig09",
                &format!("{d}/{planes}"),
                c,
                &sz.hit("128k"),
                closed,
            );
        }
    }
    // Fig. 11 stand-ins.
    let stand_in_count = (sz.n / 8).max(250);
    for s in STAND_INS {
        let w = format!("syn:{s},count={stand_in_count}");
        for (name, d, mode) in FIG11_DESIGNS {
            p.push(
                "fig11",
                &format!("{s}/{name}"),
                drive_with(&drive, d, mode, true),
                &w,
                None,
            );
        }
    }
    // Fig. 12: router bandwidth against channels (one way) and ways (8 channels).
    let fig12_shapes: Vec<(String, u32, u32)> = [(4, 1), (8, 1), (16, 1), (8, 2), (8, 4)]
        .iter()
        .map(|&(ch, w)| (format!("{ch}x{w}"), ch, w))
        .collect();
    for (shape, ch, ways) in &fig12_shapes {
        for r in FIG12_RATIOS {
            let mut c = drive_with(&drive, Design::DssdF, GcMode::Parallel, true);
            c.flash.channels = *ch;
            c.flash.chips_per_channel = *ways;
            c.fnoc.link_mb_s = r * c.flash.channel_mb_s;
            p.push("fig12", &format!("{shape}/{r}"), c, &sz.hit("128k"), closed);
        }
    }
    // Fig. 13: topologies at equal bisection bandwidth; router buffers.
    for (t, kind) in TOPOLOGIES {
        for b in FIG13_BISECTION {
            let mut c = drive_with(&drive, Design::DssdF, GcMode::Parallel, true);
            c.fnoc.topology = kind;
            c.fnoc.link_mb_s = b / bisection_links(kind, c.flash.channels);
            p.push("fig13", &format!("{t}/{b}"), c, &sz.hit("128k"), closed);
        }
    }
    for b in [FIG13_BISECTION[0], FIG13_BISECTION[2]] {
        for buf in FIG13_BUFFERS {
            let mut c = drive_with(&drive, Design::DssdF, GcMode::Parallel, true);
            c.fnoc.link_mb_s = b;
            c.fnoc.input_buffer_bytes = buf;
            c.fnoc.output_buffer_bytes = buf;
            p.push("fig13b", &format!("{b}/{buf}"), c, &sz.hit("128k"), closed);
        }
    }
    let seeds = p.seeds.clone();
    let ran = a.run_jobs(
        p.jobs,
        "Fig. 2, 7-13: timelines, designs, bandwidth, planes, DRAM hits, p99 stand-ins, fNoC",
    )?;
    let r = Results {
        recs: &ran.recs,
        seeds: &seeds,
    };
    let out = a.out_dir();
    let mut m = Manifest::new("dssd");
    let mut h = Headlines::default();
    let mut summary = Map::new();
    fig02(&r, out, &mut m)?;
    fig07(&r, out, &mut m, &mut h, &mut summary)?;
    fig08(&r, out, &mut m, &mut h)?;
    fig09(&r, out, &mut m)?;
    fig10(&r, out, &mut m, &mut h)?;
    fig10b(&r, out, &mut m, &mut h)?;
    fig11(&r, out, &mut m, &mut h, &mut summary)?;
    fig12(&r, out, &mut m, &fig12_shapes)?;
    fig13(&r, out, &mut m)?;
    summary.insert("seeds".into(), json!(seeds));
    write_json(&out.join("summary.json"), &Value::Object(summary))?;
    m.method("Drive: `dssd-ull` (Table 1; chosen values in docs/MODEL.md), aged preconditioning, GC from the start, runs stopped at the last host completion.");
    m.method("I/O performance is host bandwidth over the run; GC performance is GC page reads and programs (as page moves) per second over the same time (GC while I/O runs).");
    m.method(format!("Fig. 7a, the headline: DRAM-hit writes (write cache on, no more bytes than it holds: {} MB), 128 KB at QD {DEPTH} (the paper's high case). Reading `steady`: {STEADY_CACHE_FILLS} write caches of writes through the cache. DRAM miss: write cache off, {n} 4 KB writes or the same bytes in larger ones.", sz.hit_bytes / 1_000_000));
    m.method(format!("Fig. 8-10(a), 12, 13 use DRAM-hit writes; Fig. 10(b) and 11 the `syn:` stand-ins of {} MSR traces ({}; the paper's traces are not in ../shared; prn_0's is built from published characteristics, see crates/lagoon-workload/src/presets.rs), {stand_in_count} requests each, own arrivals.", STAND_INS.len(), STAND_INS.join(", ")));
    m.method("Seeds: Fig. 7, 8 and 11 run on every seed; the others on the first.");
    let prov = a.provenance(
        "the synthetic request streams (for the sequential writes of Fig. 7-10, 12 and 13 a seed changes no request; for Fig. 11's stand-ins, arrivals, sizes and addresses) and the simulator's own random draws",
        &[DRIVE],
        &ran,
    )?;
    a.finish(&m, &h, prov)
}

struct Results<'a> {
    recs: &'a [Record],
    seeds: &'a [u64],
}

impl Results<'_> {
    fn get(&self, exp: &str, label: &str, seed: u64) -> Option<&Record> {
        self.recs
            .iter()
            .find(|r| r.key.experiment == exp && r.key.design == label && r.seed == seed)
    }
    fn val(&self, exp: &str, label: &str, seed: u64, f: impl Fn(&Record) -> Option<f64>) -> f64 {
        self.get(exp, label, seed).and_then(f).unwrap_or(f64::NAN)
    }
    fn io(&self, exp: &str, label: &str, seed: u64) -> f64 {
        self.val(exp, label, seed, |r| r.bandwidth_mb_s)
    }
    fn gc(&self, exp: &str, label: &str, seed: u64) -> f64 {
        self.val(exp, label, seed, |r| r.gc_mb_s)
    }
    fn bus(&self, exp: &str, label: &str, seed: u64) -> f64 {
        self.val(exp, label, seed, |r| r.system_bus_utilization)
    }
    fn p99(&self, exp: &str, label: &str, seed: u64) -> f64 {
        self.val(exp, label, seed, |r| Some(r.p99_latency_us))
    }
    fn mean_latency(&self, exp: &str, label: &str, seed: u64) -> f64 {
        self.val(exp, label, seed, |r| Some(r.mean_latency_us))
    }
    fn first(&self) -> u64 {
        self.seeds[0]
    }
    /// `f(seed)` on every seed, as a [`claims::Stat`] and the per-seed values.
    fn over_seeds(&self, f: impl Fn(u64) -> f64) -> (claims::Stat, Vec<(u64, f64)>) {
        let v: Vec<(u64, f64)> = self.seeds.iter().map(|&s| (s, f(s))).collect();
        (claims::stat(&v.iter().map(|x| x.1).collect::<Vec<_>>()), v)
    }
}

fn fig02(r: &Results, out: &std::path::Path, m: &mut Manifest) -> Result<()> {
    for size in ["4k", "32k"] {
        let Some(csv) = r
            .get("fig02", size, r.first())
            .and_then(|r| r.timeline_csv.clone())
        else {
            continue;
        };
        let file = format!("fig02_{size}_timeline.csv");
        write(&out.join(&file), &csv)?;
        // A series lying on the axis is said to, not left for the reader to find.
        let t = book::Table::read(out, &file)?;
        let none = t
            .rows
            .iter()
            .all(|row| t.num(row, "gc_mb_s").is_ok_and(|v| v == 0.0));
        m.fig(
            Fig::new(
                &format!("fig02_{size}_io_bandwidth.svg"),
                &file,
                FigKind::Lines,
                &format!(
                    "Fig. 2 (dssd-ull Baseline, {size} sequential writes, QD 64): I/O and GC bandwidth"
                ),
                "time (ms)",
                "bandwidth (GB/s)",
            )
            .x("window_start_ms")
            .y(Y::labelled("io_mb_s", "I/O"))
            .y(Y::labelled("gc_read_mb_s", "GC reads"))
            .y(Y::labelled(
                "gc_mb_s",
                if none {
                    "GC programs (none ends in the run)"
                } else {
                    "GC programs"
                },
            ))
            .y_div(1e3),
        );
        m.fig(
            Fig::new(
                &format!("fig02_{size}_bus_utilization.svg"),
                &file,
                FigKind::Lines,
                &format!("Fig. 2 (dssd-ull Baseline, {size}): system-bus utilization"),
                "time (ms)",
                "utilization (fraction of time busy)",
            )
            .x("window_start_ms")
            .y(Y::labelled("system_bus_utilization", "system bus")),
        );
    }
    Ok(())
}

/// Fig. 7: I/O and GC over Baseline per regime, level and design, with intervals over seeds;
/// the headline ratios (DRAM hit, high; `@steady` in the steady state) and the bus ratios.
fn fig07(
    r: &Results,
    out: &std::path::Path,
    m: &mut Manifest,
    h: &mut Headlines,
    summary: &mut Map<String, Value>,
) -> Result<()> {
    let mut head: Vec<String> = [
        "regime",
        "level",
        "writes",
        "design",
        "bandwidth_mb_s",
        "gc_mb_s",
    ]
    .map(String::from)
    .to_vec();
    head.extend(book::ci_cols("io_vs_baseline"));
    head.extend(book::ci_cols("gc_vs_baseline"));
    head.extend(book::ci_cols("system_bus_utilization"));
    head.extend(["mean_busy_chips".into(), "dbuf_destination_waits".into()]);
    let mut rows = Vec::new();
    for regime in ["hit", "miss", "steady"] {
        let (mut io_m, mut gc_m) = (Map::new(), Map::new());
        for (level, size) in SIZES {
            let base = format!("{regime}/{level}/baseline");
            for d in Design::ALL {
                let l = format!("{regime}/{level}/{d}");
                let Some(rec) = r.get("fig07", &l, r.first()) else {
                    continue;
                };
                let (io, io_v) = r.over_seeds(|s| r.io("fig07", &l, s) / r.io("fig07", &base, s));
                let (gc, gc_v) = r.over_seeds(|s| r.gc("fig07", &l, s) / r.gc("fig07", &base, s));
                let (bus, _) = r.over_seeds(|s| r.bus("fig07", &l, s));
                let mut row = vec![
                    regime.to_string(),
                    level.to_string(),
                    format!("{level} ({size})"),
                    d.to_string(),
                    format!("{:.3}", r.io("fig07", &l, r.first())),
                    format!("{:.3}", r.gc("fig07", &l, r.first())),
                ];
                row.extend(book::ci_cells(&io, 4));
                row.extend(book::ci_cells(&gc, 4));
                row.extend(book::ci_cells(&bus, 4));
                row.push(format!("{:.2}", rec.mean_busy_chips));
                row.push(
                    rec.controller
                        .as_ref()
                        .map_or(0, |c| c.dbuf_destination_waits)
                        .to_string(),
                );
                rows.push(row);
                if level == "high" && d != Design::Baseline {
                    io_m.insert(d.name().into(), json!(io.mean));
                    gc_m.insert(d.name().into(), json!(gc.mean));
                    let reading = match regime {
                        "hit" => "",
                        "steady" => "@steady",
                        _ => continue,
                    };
                    if matches!(d, Design::Dssd | Design::Bw) {
                        for (k, v) in [("io", &io_v), ("gc", &gc_v)] {
                            for &(s, x) in v {
                                h.add(&format!("{k}_{}{reading}", d.name()), s, x);
                            }
                        }
                    }
                }
            }
        }
        let what = match regime {
            "hit" => "DRAM-hit",
            "miss" => "DRAM-miss",
            _ => "steady-state",
        };
        for (k, y) in [
            ("io", "I/O bandwidth / Baseline (x)"),
            ("gc", "GC bandwidth / Baseline (x)"),
        ] {
            m.fig(
                Fig::new(
                    &format!("fig07a_{k}_{regime}.svg"),
                    "fig07_configurations.csv",
                    FigKind::Bars,
                    &if k == "io" {
                        format!("Fig. 7a (dssd-ull, {what} sequential writes, QD 64): I/O performance / Baseline")
                    } else {
                        format!("Fig. 7a ({what} writes): GC performance while I/O runs / Baseline")
                    },
                    "request size",
                    y,
                )
                .x("writes")
                .series("design")
                .y(Y::ci(&format!("{k}_vs_baseline")))
                .filter("regime", regime)
                .reference(1.0),
            );
        }
        let key = match regime {
            "hit" => ("io_improvement".to_string(), "gc_improvement".to_string()),
            "miss" => (
                "io_improvement_dram_miss".into(),
                "gc_improvement_dram_miss".into(),
            ),
            _ => (
                "io_improvement_steady".into(),
                "gc_improvement_steady".into(),
            ),
        };
        summary.insert(key.0, Value::Object(io_m));
        summary.insert(key.1, Value::Object(gc_m));
    }
    csv_rows(&out.join("fig07_configurations.csv"), &head, &rows)?;
    // Fig. 7b: bus utilization of dSSD_f over Baseline's, DRAM hit and miss (128 KB).
    for (regime, id) in [("hit", "bus_dssd_f_hit"), ("miss", "bus_dssd_f_miss")] {
        let (_, v) = r.over_seeds(|s| {
            r.bus("fig07", &format!("{regime}/high/dssd_f"), s)
                / r.bus("fig07", &format!("{regime}/high/baseline"), s)
        });
        for (s, x) in v {
            h.add(id, s, x);
        }
    }
    m.fig(
        Fig::new(
            "fig07b_bus.svg",
            "fig07_configurations.csv",
            FigKind::Bars,
            "Fig. 7b (128 KB writes with GC): system-bus utilization",
            "writes (hit: into DRAM; miss: to flash, write cache off)",
            "utilization (fraction of time busy)",
        )
        .x("regime")
        .series("design")
        .y(Y::ci("system_bus_utilization"))
        .filter("level", "high")
        .filter_not("regime", "steady"),
    );
    Ok(())
}

/// Fig. 8: I/O and GC over Baseline x1 against the on-chip bandwidth.
fn fig08(r: &Results, out: &std::path::Path, m: &mut Manifest, h: &mut Headlines) -> Result<()> {
    let mut head: Vec<String> = ["level", "design", "onchip_bandwidth_x"]
        .map(String::from)
        .to_vec();
    head.extend(book::ci_cols("io_vs_baseline"));
    head.extend(book::ci_cols("gc_vs_baseline"));
    let mut rows = Vec::new();
    for (level, size) in SIZES {
        let base = format!("hit/{level}/baseline");
        for d in ["baseline", "dssd_f"] {
            let first = if d == "baseline" { 1.0 } else { 1.25 };
            let mut pts = vec![(first, format!("hit/{level}/{d}"), "fig07")];
            for s in FIG8_SCALES {
                pts.push((s, format!("{level}/{d}/x{s}"), "fig08"));
            }
            for (s, label, exp) in pts {
                let (io, io_v) = r.over_seeds(|x| r.io(exp, &label, x) / r.io("fig07", &base, x));
                let (gc, gc_v) = r.over_seeds(|x| r.gc(exp, &label, x) / r.gc("fig07", &base, x));
                let mut row = vec![level.to_string(), d.to_string(), format!("{s}")];
                row.extend(book::ci_cells(&io, 4));
                row.extend(book::ci_cells(&gc, 4));
                rows.push(row);
                let id = if (level, d, s) == ("low", "baseline", 2.0) {
                    Some("fig8_low_bus2")
                } else if (level, d, s) == ("high", "baseline", 1.5) {
                    Some("fig8_high_bus15")
                } else if (level, d, s) == ("high", "dssd_f", 1.5) {
                    Some("fig8_high_dssd15")
                } else {
                    None
                };
                if let Some(id) = id {
                    for (k, v) in [("io", &io_v), ("gc", &gc_v)] {
                        for &(seed, x) in v {
                            h.add(&format!("{id}_{k}"), seed, x);
                        }
                    }
                }
            }
        }
        m.fig(
            Fig::new(
                &format!("fig08_{level}.svg"),
                "fig08_onchip_bandwidth.csv",
                FigKind::Lines,
                &format!("Fig. 8 ({level}, {size} DRAM-hit writes): performance / Baseline x1"),
                "total on-chip bandwidth (x Baseline's 8 GB/s bus)",
                "performance / Baseline x1 (x)",
            )
            .x("onchip_bandwidth_x")
            .series("design")
            .y(Y {
                label: Some("I/O".into()),
                ..Y::ci("io_vs_baseline")
            })
            .y(Y {
                label: Some("GC".into()),
                ..Y::ci("gc_vs_baseline")
            })
            .filter("level", level),
        );
    }
    csv_rows(&out.join("fig08_onchip_bandwidth.csv"), &head, &rows)
}

const COMPONENTS: [&str; 6] = ["queue", "flash", "ecc", "system_bus", "dram", "fc_link"];

/// Fig. 9: mean time of one passage through each stage against planes per die. A stage of a
/// class with no page moved and no time is missing (an empty cell), not zero.
fn fig09(r: &Results, out: &std::path::Path, m: &mut Manifest) -> Result<()> {
    let mut head: Vec<String> = ["design", "planes", "class", "pages"]
        .map(String::from)
        .to_vec();
    head.extend(COMPONENTS.iter().map(|c| format!("{c}_us")));
    let mut rows = Vec::new();
    let planes: Vec<u32> = FIG9_PLANES.iter().copied().chain([8]).collect();
    for d in [Design::Baseline, Design::DssdF] {
        for (class, file, title) in [
            ("user_write", "io", "user write pages"),
            ("gc_move", "copyback", "GC page moves (copyback)"),
        ] {
            let mut used = [false; 6];
            for &pl in &planes {
                let rec = if pl == 8 {
                    r.get("fig07", &format!("hit/high/{d}"), r.first())
                } else {
                    r.get("fig09", &format!("{d}/{pl}"), r.first())
                };
                let b = rec.and_then(|x| x.controller.as_ref()).map(|c| {
                    let l = &c.stage_passage_ns;
                    if class == "user_write" {
                        l.user_write.clone()
                    } else {
                        l.gc_move.clone()
                    }
                });
                let pages = b.as_ref().map_or(0, |b| b.pages);
                let v = b.as_ref().map_or([f64::NAN; 6], |b| {
                    [b.queue, b.flash, b.ecc, b.system_bus, b.dram, b.fc_link].map(|x| x / 1e3)
                });
                let mut row = vec![
                    d.to_string(),
                    pl.to_string(),
                    class.to_string(),
                    pages.to_string(),
                ];
                for (k, x) in v.iter().enumerate() {
                    used[k] |= *x > 0.0;
                    row.push(if !x.is_finite() || (pages == 0 && *x == 0.0) {
                        String::new()
                    } else {
                        format!("{x:.3}")
                    });
                }
                rows.push(row);
            }
            // Stages that take no time in any run are left out of the figure.
            let mut f = Fig::new(
                &format!("fig09_{file}_{d}.svg"),
                "fig09_latency_breakdown.csv",
                FigKind::Bars,
                &format!("Fig. 9 ({d}, 128 KB DRAM-hit writes): time per stage of {title}"),
                "planes per die",
                "mean time per passage (us)",
            )
            .x("planes")
            .filter("design", &d.to_string())
            .filter("class", class);
            for (k, c) in COMPONENTS.iter().enumerate() {
                if used[k] {
                    f = f.y(Y::labelled(&format!("{c}_us"), c));
                }
            }
            m.fig(f);
        }
    }
    csv_rows(&out.join("fig09_latency_breakdown.csv"), &head, &rows)
}

/// Fig. 10: DRAM-hit writes with GC (Fig. 7's DRAM-hit 128 KB runs).
fn fig10(r: &Results, out: &std::path::Path, m: &mut Manifest, h: &mut Headlines) -> Result<()> {
    let mut head: Vec<String> = ["group", "design", "bandwidth_mb_s"]
        .map(String::from)
        .to_vec();
    head.extend(book::ci_cols("p99_latency_us"));
    head.push("system_bus_utilization".into());
    let mut rows = Vec::new();
    let l = |d: &str| format!("hit/high/{d}");
    for d in Design::ALL {
        let (p, _) = r.over_seeds(|s| r.p99("fig07", &l(d.name()), s));
        let mut row = vec![
            "128 KB DRAM-hit writes".to_string(),
            d.to_string(),
            format!("{:.3}", r.io("fig07", &l(d.name()), r.first())),
        ];
        row.extend(book::ci_cells(&p, 3));
        row.push(format!("{:.4}", r.bus("fig07", &l(d.name()), r.first())));
        rows.push(row);
    }
    csv_rows(&out.join("fig10_dram_hit.csv"), &head, &rows)?;
    for (d, id) in [
        ("bw", "fig10_p99_bw_over_dssd_f"),
        ("dssd_b", "fig10_p99_dssd_b_over_dssd_f"),
    ] {
        let (_, v) = r.over_seeds(|s| r.p99("fig07", &l(d), s) / r.p99("fig07", &l("dssd_f"), s));
        for (s, x) in v {
            h.add(id, s, x);
        }
    }
    m.fig(
        Fig::new(
            "fig10_bandwidth.svg",
            "fig10_dram_hit.csv",
            FigKind::Bars,
            &format!(
                "Fig. 10a (dssd-ull, DRAM-hit writes with GC): I/O bandwidth (seed {})",
                r.first()
            ),
            "",
            "I/O bandwidth (GB/s)",
        )
        .x("group")
        .series("design")
        .y(Y::col("bandwidth_mb_s"))
        .y_div(1e3),
    );
    m.fig(
        Fig::new(
            "fig10_p99.svg",
            "fig10_dram_hit.csv",
            FigKind::Bars,
            "Fig. 10a: p99 latency of DRAM-hit writes with GC",
            "",
            "p99 latency (us)",
        )
        .x("group")
        .series("design")
        .y(Y::ci("p99_latency_us")),
    );
    Ok(())
}

/// The stand-ins' names as Fig. 10(b) and 11's CSVs write them (`syn:hm_0`).
fn stand_in_names() -> Vec<String> {
    STAND_INS.iter().map(|s| format!("syn:{s}")).collect()
}

/// `design`'s value over `reference`'s on the stand-in `wl` (`syn:` name) and `seed`.
fn stand_in_ratio(
    r: &Results,
    f: impl Fn(&Results, &str, &str, u64) -> f64,
    design: &str,
    reference: &str,
    wl: &str,
    seed: u64,
) -> f64 {
    let s = wl.strip_prefix("syn:").unwrap_or(wl);
    f(r, "fig11", &format!("{s}/{design}"), seed) / f(r, "fig11", &format!("{s}/{reference}"), seed)
}

/// Fig. 10(b): mean I/O latency of Fig. 11's designs on the stand-ins (Fig. 11's runs), over
/// Baseline's of the same seed, per workload and on average; the headlines are dSSD_f's mean
/// latency over Baseline's, BW's and Tiny-Tail's (each the mean over workloads of the
/// per-workload ratio, per seed).
fn fig10b(r: &Results, out: &std::path::Path, m: &mut Manifest, h: &mut Headlines) -> Result<()> {
    let workloads = stand_in_names();
    let designs: Vec<String> = FIG11_DESIGNS.iter().map(|d| d.0.to_string()).collect();
    let lat = |r: &Results, e: &str, l: &str, s: u64| r.mean_latency(e, l, s);
    let avg = seeded_table(
        &out.join("fig10b_mean_latency.csv"),
        "design",
        "mean_latency_vs_baseline",
        &workloads,
        &designs,
        r.seeds,
        4,
        |d, wl, seed| stand_in_ratio(r, lat, d, "baseline", wl, seed),
    )?;
    for &(s, x) in &avg["dssd_f"] {
        h.add("fig10b_lat_dssd_f_over_baseline", s, x);
    }
    for (d, id) in [
        ("bw", "fig10b_lat_dssd_f_over_bw"),
        ("tiny-tail", "fig10b_lat_dssd_f_over_tiny_tail"),
    ] {
        let (_, v) = r.over_seeds(|seed| {
            let x: Vec<f64> = workloads
                .iter()
                .map(|wl| stand_in_ratio(r, lat, "dssd_f", d, wl, seed))
                .collect();
            mean(&super::finite(&x))
        });
        for (s, x) in v {
            h.add(id, s, x);
        }
    }
    m.fig(
        Fig::new(
            "fig10b_mean_latency.svg",
            "fig10b_mean_latency.csv",
            FigKind::BarsLog,
            "Fig. 10b (stand-ins for the MSR traces, dssd-ull): mean I/O latency / Baseline's",
            "workload",
            "mean latency / Baseline's (log scale)",
        )
        .x("workload")
        .series("design")
        .y(Y::ci("mean_latency_vs_baseline")),
    );
    Ok(())
}

/// Fig. 11: p99 of every design on every stand-in (fig11_p99.csv; (a) prn_0 drawn alone) and
/// (b) each design's p99 over dSSD_f's, per workload and on average (the 31.4x and 5.17x
/// headlines); prn_0's ratios are Fig. 11(a)'s headlines.
fn fig11(
    r: &Results,
    out: &std::path::Path,
    m: &mut Manifest,
    h: &mut Headlines,
    summary: &mut Map<String, Value>,
) -> Result<()> {
    let mut head: Vec<String> = ["workload", "design"].map(String::from).to_vec();
    head.extend(book::ci_cols("p99_latency_us"));
    head.push("p99_vs_dssd_f".into());
    let mut rows = Vec::new();
    for s in STAND_INS {
        for (d, _, _) in FIG11_DESIGNS {
            let label = format!("{s}/{d}");
            let (p, _) = r.over_seeds(|x| r.p99("fig11", &label, x));
            let mut row = vec![format!("syn:{s}"), d.to_string()];
            row.extend(book::ci_cells(&p, 3));
            row.push(format!(
                "{:.4}",
                r.p99("fig11", &label, r.first())
                    / r.p99("fig11", &format!("{s}/dssd_f"), r.first())
            ));
            rows.push(row);
        }
    }
    csv_rows(&out.join("fig11_p99.csv"), &head, &rows)?;
    let workloads = stand_in_names();
    let others: Vec<String> = FIG11_DESIGNS[..FIG11_DESIGNS.len() - 1]
        .iter()
        .map(|d| d.0.to_string())
        .collect();
    let p99 = |r: &Results, e: &str, l: &str, s: u64| r.p99(e, l, s);
    let avg = seeded_table(
        &out.join("fig11b_p99_over_dssd_f.csv"),
        "design",
        "p99_over_dssd_f",
        &workloads,
        &others,
        r.seeds,
        4,
        |d, wl, seed| stand_in_ratio(r, p99, d, "dssd_f", wl, seed),
    )?;
    for (d, id) in [
        ("baseline", "p99_baseline_over_dssd_f"),
        ("tiny-tail", "p99_tiny_tail_over_dssd_f"),
    ] {
        for &(s, x) in &avg[d] {
            h.add(id, s, x);
        }
    }
    for d in &others {
        let id = format!("fig11a_p99_{}_over_dssd_f", d.replace('-', "_"));
        let (_, v) = r
            .over_seeds(|seed| stand_in_ratio(r, p99, d, "dssd_f", &format!("syn:{FIG11A}"), seed));
        for (s, x) in v {
            h.add(&id, s, x);
        }
    }
    let st = claims::stat(&avg["baseline"].iter().map(|x| x.1).collect::<Vec<_>>());
    summary.insert(
        "p99_reduction_vs_baseline".into(),
        json!({"dssd_f": st.mean}),
    );
    // Log axes: PreemptiveGC and Tiny-Tail are orders of magnitude below the PaGC designs.
    m.fig(
        Fig::new(
            "fig11_p99.svg",
            "fig11_p99.csv",
            FigKind::BarsLog,
            "Fig. 11 (stand-ins for the MSR traces, dssd-ull): p99 latency",
            "workload",
            "p99 latency (ms, log scale)",
        )
        .x("workload")
        .series("design")
        .y(Y::ci("p99_latency_us"))
        .y_div(1e3),
    );
    m.fig(
        Fig::new(
            &format!("fig11a_{FIG11A}.svg"),
            "fig11_p99.csv",
            FigKind::BarsLog,
            &format!("Fig. 11a (syn:{FIG11A}, a stand-in for MSR {FIG11A}, dssd-ull): p99 latency"),
            "design",
            "p99 latency (ms, log scale)",
        )
        .x("design")
        .y(Y {
            label: Some("p99".into()),
            ..Y::ci("p99_latency_us")
        })
        .filter("workload", &format!("syn:{FIG11A}"))
        .y_div(1e3),
    );
    m.fig(
        Fig::new(
            "fig11b_p99_over_dssd_f.svg",
            "fig11b_p99_over_dssd_f.csv",
            FigKind::BarsLog,
            "Fig. 11b (stand-ins, dssd-ull): p99 latency / dSSD_f's",
            "workload",
            "p99 / dSSD_f's (log scale)",
        )
        .x("workload")
        .series("design")
        .y(Y::ci("p99_over_dssd_f"))
        .reference(1.0),
    );
    Ok(())
}

fn fig12(
    r: &Results,
    out: &std::path::Path,
    m: &mut Manifest,
    shapes: &[(String, u32, u32)],
) -> Result<()> {
    let head: Vec<String> = [
        "channels",
        "ways",
        "shape",
        "router_over_flash_bandwidth",
        "gc_mb_s",
        "gc_vs_ratio_4",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for (shape, ch, ways) in shapes {
        let top = r.gc(
            "fig12",
            &format!("{shape}/{}", FIG12_RATIOS[FIG12_RATIOS.len() - 1]),
            r.first(),
        );
        for x in FIG12_RATIOS {
            let g = r.gc("fig12", &format!("{shape}/{x}"), r.first());
            rows.push(vec![
                ch.to_string(),
                ways.to_string(),
                format!(
                    "{ch} channels, {ways} way{}",
                    if *ways > 1 { "s" } else { "" }
                ),
                format!("{x}"),
                format!("{g:.3}"),
                format!("{:.4}", g / top),
            ]);
        }
    }
    csv_rows(&out.join("fig12_router_bandwidth.csv"), &head, &rows)?;
    for (file, title, col, v) in [
        (
            "fig12a_channels.svg",
            "Fig. 12a (dSSD_f, 128 KB DRAM hit): GC against router bandwidth",
            "ways",
            "1",
        ),
        (
            "fig12b_ways.svg",
            "Fig. 12b: GC against router bandwidth, ways per channel",
            "channels",
            "8",
        ),
    ] {
        m.fig(
            Fig::new(
                file,
                "fig12_router_bandwidth.csv",
                FigKind::LinesLogX,
                title,
                "router channel / flash channel bandwidth (x)",
                "GC bandwidth (GB/s)",
            )
            .x("router_over_flash_bandwidth")
            .series("shape")
            .y(Y::col("gc_mb_s"))
            .filter(col, v)
            .y_div(1e3),
        );
    }
    Ok(())
}

fn fig13(r: &Results, out: &std::path::Path, m: &mut Manifest) -> Result<()> {
    let head: Vec<String> = [
        "figure",
        "series",
        "topology",
        "bisection_mb_s",
        "link_mb_s",
        "buffer_bytes",
        "gc_mb_s",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for (t, kind) in TOPOLOGIES {
        for b in FIG13_BISECTION {
            let g = r.gc("fig13", &format!("{t}/{b}"), r.first());
            rows.push(vec![
                "13a".into(),
                t.to_string(),
                t.to_string(),
                format!("{b}"),
                format!("{}", b / bisection_links(kind, 8)),
                "512".into(),
                format!("{g:.3}"),
            ]);
        }
    }
    for b in [FIG13_BISECTION[0], FIG13_BISECTION[2]] {
        for buf in FIG13_BUFFERS {
            let g = r.gc("fig13b", &format!("{b}/{buf}"), r.first());
            rows.push(vec![
                "13b".into(),
                format!("line, {:.1} GB/s bisection", b / 1e3),
                "line".into(),
                format!("{b}"),
                format!("{b}"),
                buf.to_string(),
                format!("{g:.3}"),
            ]);
        }
    }
    csv_rows(&out.join("fig13_topology_buffers.csv"), &head, &rows)?;
    m.fig(
        Fig::new(
            "fig13a_topology.svg",
            "fig13_topology_buffers.csv",
            FigKind::LinesLogX,
            "Fig. 13a (dSSD_f, 128 KB DRAM hit): GC against bisection bandwidth",
            "bisection bandwidth per direction (GB/s, log)",
            "GC bandwidth (GB/s)",
        )
        .x("bisection_mb_s")
        .series("series")
        .y(Y::col("gc_mb_s"))
        .filter("figure", "13a")
        .x_div(1e3)
        .y_div(1e3),
    );
    m.fig(
        Fig::new(
            "fig13b_buffers.svg",
            "fig13_topology_buffers.csv",
            FigKind::LinesLogX,
            "Fig. 13b: GC against router buffer size",
            "input and output buffer per port (bytes, log)",
            "GC bandwidth (GB/s)",
        )
        .x("buffer_bytes")
        .series("series")
        .y(Y::col("gc_mb_s"))
        .filter("figure", "13b")
        .y_div(1e3),
    );
    Ok(())
}
