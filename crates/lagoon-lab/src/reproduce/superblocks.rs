//! `lagoon reproduce superblocks`: the Decoupled SSD's dynamic superblocks (§5, §6.4) in the
//! functional lifetime mode, on the footnote-10 drive (`dssd-superblock`: 8 ch x 4 ways x
//! 2 dies x 2 planes, TLC, 32 pages per block), continuous 128 KB random writes over 90 % of
//! the superblocks until the drive wears out:
//! - Figure 14(a): bad superblocks against data written, BASELINE / RECYCLED / RESERV;
//! - Figure 14(b): endurance gain over BASELINE against the sigma of the P/E limits;
//! - Figure 16(a): endurance gain of RECYCLED against SRT entries per controller, for two
//!   drive sizes; Figure 16(b): active SRT entries of one controller against remaps.
//!
//! - Figure 15(a): performance against SRT entries: RESERV drives aged in the lifetime mode
//!   until their SRTs hold that many entries, then a timed window (ULL and TLC flash, random
//!   read and write) over the aged drive's block remapping: conflicts are simulated.
//!
//! - Figure 15(b): the MSR trace stand-ins over the most aged RESERV drive of 15(a) against
//!   the fresh drive: endurance improvement over performance overhead, BASELINE = 1.
//!
//! - Figure 14(c): WAS's status scan (a page read per block) through the conventional
//!   controller, against the unscanned drive.
//!
//! Endurance at "a small number of bad superblocks" (§6.4): host data written when
//! `AT_BAD` of BASELINE's superblocks have gone bad (our choice; the paper gives no count).
//!
//! Seeds: the Fig. 14(a) lifetimes (the paper's sigma) and the timed windows of Fig. 14(c)
//! and 15 run on every seed; the other lifetimes, and the aging of Fig. 15's drives, on the
//! first.

use super::book::{self, Fig, FigKind, Headlines, Manifest, Y};
use super::claims::{self, Stat};
use super::{csv_rows, write_json, ReproduceArgs};
use crate::batch::AgeJob;
use anyhow::{bail, Context, Result};
use lagoon_core::config::{RbtPick, SsdConfig, SuperblockMode};
use lagoon_core::lifetime::{LifetimeReport, LifetimeSpec, Pattern};
use lagoon_core::ssd::dynamic_superblock::BlockRemap;
use lagoon_core::workload::presets::{trace_presets, TracePreset};
use serde_json::json;
use std::collections::BTreeMap;

const DRIVE: &str = "dssd-superblock";
/// Fraction of BASELINE's superblocks bad at which endurance is compared.
const AT_BAD: f64 = 0.02;
struct Run {
    exp: &'static str,
    label: String,
    cfg: SsdConfig,
    /// Age to this many active SRT entries per controller (Fig. 15(a)), else to death.
    stop_srt: Option<u32>,
    seed: u64,
}

/// Per-seed values of one quantity.
type PerSeed = Vec<(u64, f64)>;

fn stat_of(v: &PerSeed) -> Stat {
    claims::stat(&v.iter().map(|x| x.1).collect::<Vec<_>>())
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The tests' drive (`--tiny-drive`): 2 channels of `ways` chips, 1 die, 2 planes of 48
/// blocks of 8 pages, 2 of them the GC reserve: every figure in seconds.
fn tiny(c: &mut SsdConfig, ways: u32) {
    c.flash.channels = 2;
    c.flash.chips_per_channel = ways;
    c.flash.dies_per_chip = 1;
    c.flash.blocks_per_plane = 48;
    c.flash.pages_per_block = 8;
    c.ftl.gc_threshold = 2.0 / 48.0;
}

/// Fig. 15(a) ages its drives with the P/E limits scaled by this (mean and sigma alike: the
/// same distribution shape, so the same order of failures and remaps, 10x fewer programs).
const AGE_PE_SCALE: f64 = 0.1;

pub fn run(a: &ReproduceArgs) -> Result<()> {
    // A sensitivity reading may count "a few" bad superblocks otherwise (knob `at_bad`).
    let at_bad = a.knob_f64("at_bad")?.unwrap_or(AT_BAD);
    let mut base = SsdConfig::load(DRIVE)?;
    // Quick: 16-block superblocks (8 ch x 1 way x 1 die x 2 planes) of 128 blocks per plane;
    // full: the footnote-10 superblock (128 blocks) on 256 blocks per plane (docs/MODEL.md).
    let (blocks, sizes, sigmas, srts): (u32, [u32; 2], Vec<f64>, Vec<u32>) = if a.tiny_drive {
        // Tests: every figure in seconds (2 ch x 1 way x 1 die x 2 planes, 48 blocks).
        tiny(&mut base, 1);
        base.wear.pe_mean = 200.0;
        base.wear.pe_sigma = 30.0;
        (48, [48, 64], vec![0.0, 30.0], vec![1, 4])
    } else if a.quick {
        base.flash.chips_per_channel = 1;
        base.flash.dies_per_chip = 1;
        // Validation wants 2 free blocks per plane of GC reserve: 2 of 64.
        base.ftl.gc_threshold = 2.0 / 64.0;
        (
            128,
            [64, 256],
            vec![0.0, 400.0, 826.9, 1200.0, 1600.0],
            vec![1, 4, 16, 64],
        )
    } else {
        (
            256,
            [256, 512],
            vec![0.0, 400.0, 826.9, 1200.0, 1600.0],
            vec![16, 64, 256, 1024, 4096],
        )
    };
    base.flash.blocks_per_plane = blocks;
    let with = |m: SuperblockMode, sigma: f64, srt: u32, bpp: u32| {
        let mut c = base.clone();
        c.wear.superblock = m;
        c.wear.pe_sigma = sigma;
        c.wear.srt_entries = srt;
        c.flash.blocks_per_plane = bpp;
        c
    };
    let default_srt = base.wear.srt_entries;
    // The paper's sigma (the tiny test drive's own).
    let sigma = base.wear.pe_sigma;
    if !sigmas.contains(&sigma) {
        anyhow::bail!("internal: the paper's sigma {sigma} is not among Fig. 14(b)'s");
    }
    let seeds = a.seeds();
    let first = seeds[0];
    let mut runs = Vec::new();
    for &s in &sigmas {
        for m in SuperblockMode::ALL {
            runs.push(Run {
                exp: "fig14",
                label: format!("{}|{s}", m.name()),
                cfg: with(m, s, default_srt, blocks),
                stop_srt: None,
                seed: first,
            });
        }
    }
    // Fig. 14(a)'s lifetimes (the paper's sigma) on the other seeds too: the headlines.
    for &seed in &seeds[1..] {
        for m in SuperblockMode::ALL {
            runs.push(Run {
                exp: "fig14",
                label: format!("{}|{sigma}", m.name()),
                cfg: with(m, sigma, default_srt, blocks),
                stop_srt: None,
                seed,
            });
        }
    }
    for &bpp in &sizes {
        runs.push(Run {
            exp: "fig16a",
            label: format!("baseline|{bpp}|0"),
            cfg: with(SuperblockMode::Static, sigma, 0, bpp),
            stop_srt: None,
            seed: first,
        });
        for &e in &srts {
            runs.push(Run {
                exp: "fig16a",
                label: format!("recycled|{bpp}|{e}"),
                cfg: with(SuperblockMode::Recycled, sigma, e, bpp),
                stop_srt: None,
                seed: first,
            });
        }
    }
    for m in [SuperblockMode::Recycled, SuperblockMode::Reserv] {
        runs.push(Run {
            exp: "fig16b",
            label: m.name().into(),
            cfg: with(m, sigma, u32::MAX >> 8, blocks),
            stop_srt: None,
            seed: first,
        });
    }
    // Fig. 15(a): RESERV aged until its SRTs hold `e` entries per controller, on channels
    // of footnote 10's 4 ways x 2 dies x 2 planes (a remap may then change die): 8 of them
    // of 256 blocks per plane; --quick 2 of 64 blocks; tests 2 x 2 ways x 1 die x 2 planes.
    let mut f15 = SsdConfig::load(DRIVE)?;
    f15.wear.pe_sigma = sigma;
    f15.wear.pe_mean = base.wear.pe_mean;
    f15.flash.pages_per_block = base.flash.pages_per_block;
    if a.tiny_drive {
        tiny(&mut f15, 2);
    } else if a.quick {
        f15.flash.channels = 2;
        f15.flash.blocks_per_plane = 64;
        f15.ftl.gc_threshold = 2.0 / 64.0;
    } else {
        f15.flash.blocks_per_plane = 256;
    }
    let fig15_srts: Vec<u32> = srts.iter().copied().filter(|&e| e > 0).collect();
    for pick in RbtPick::ALL {
        for &e in &fig15_srts {
            let mut cfg = f15.clone();
            cfg.wear.superblock = SuperblockMode::Reserv;
            cfg.wear.srt_entries = e;
            cfg.wear.pe_mean *= AGE_PE_SCALE;
            cfg.wear.pe_sigma *= AGE_PE_SCALE;
            cfg.wear.rbt_pick = pick;
            runs.push(Run {
                exp: "fig15a",
                label: format!("{}|{e}", pick.name()),
                cfg,
                stop_srt: Some(e),
                seed: first,
            });
        }
    }
    for r in runs.iter_mut() {
        for x in &a.reading {
            r.cfg = x.apply_config(&r.cfg)?;
        }
        r.cfg
            .validate()
            .with_context(|| format!("{} {}", r.exp, r.label))?;
    }
    let spec = LifetimeSpec {
        request_bytes: 128 << 10,
        pattern: Pattern::Random,
        utilization: 0.9,
        stop_bad_fraction: 1.0,
        stop_srt_active: None,
        seed: first,
    };
    let per_life = runs
        .iter()
        .map(|r| r.cfg.preallocated_state_bytes() + r.cfg.full_map_bytes())
        .max()
        .unwrap_or(0);
    let executor = a.executor_for(per_life);
    let out = a.out_dir().to_path_buf();
    if !a.quiet {
        eprintln!(
            "reproduce superblocks: {} lifetimes on {} -> {}",
            runs.len(),
            executor.describe(),
            a.out.as_deref().unwrap_or(&out).display()
        );
    }
    let start = std::time::Instant::now();
    let lives = runs
        .iter()
        .map(|r| AgeJob {
            name: format!("{} {} seed {}", r.exp, r.label, r.seed),
            cfg: r.cfg.clone(),
            spec: LifetimeSpec {
                stop_srt_active: r.stop_srt,
                seed: r.seed,
                ..spec.clone()
            },
            cancel: a.cancel.clone(),
        })
        .collect();
    let (results, remaps): (Vec<LifetimeReport>, Vec<BlockRemap>) =
        executor.age(lives, a.quiet)?.into_iter().unzip();
    let get_i = |exp: &str, label: &str, seed: u64| {
        runs.iter()
            .position(|r| r.exp == exp && r.label == label && r.seed == seed)
            .expect("every run is listed")
    };
    let get = |exp: &str, label: &str| -> &LifetimeReport { &results[get_i(exp, label, first)] };
    let get_s = |exp: &str, label: &str, seed: u64| -> &LifetimeReport {
        &results[get_i(exp, label, seed)]
    };
    let tb = |b: Option<u64>| b.map_or(f64::NAN, |b| b as f64 / 1e12);
    let runs_json: Vec<_> = runs
        .iter()
        .zip(&results)
        .map(|(r, x)| json!({"experiment": r.exp, "label": r.label, "seed": r.seed, "report": x}))
        .collect();
    write_json(&out.join("runs.json"), &runs_json)?;
    let mut m = Manifest::new("superblocks");
    let mut h = Headlines::default();

    // Figure 14(a): the steps of each mode's bad-superblock count (first seed).
    let mut rows = Vec::new();
    for md in SuperblockMode::ALL {
        let r = get("fig14", &format!("{}|{sigma}", md.name()));
        let mut pt = |x: f64, y: u64| {
            rows.push(vec![
                md.name().to_string(),
                format!("{x:.6}"),
                y.to_string(),
            ])
        };
        pt(0.0, 0);
        for p in &r.bad_curve {
            let x = p.host_bytes as f64 / 1e12;
            pt(x, p.bad_superblocks.saturating_sub(1));
            pt(x, p.bad_superblocks);
        }
        pt(r.host_bytes_written as f64 / 1e12, r.bad_curve.len() as u64);
    }
    csv_rows(
        &out.join("fig14a_bad_superblocks.csv"),
        &strings(&["mode", "host_tb", "bad_superblocks"]),
        &rows,
    )?;
    let b = get("fig14", &format!("baseline|{sigma}"));
    m.fig(
        Fig::new(
            "fig14a_bad_superblocks.svg",
            "fig14a_bad_superblocks.csv",
            FigKind::Lines,
            &format!(
                "Fig. 14(a): bad superblocks ({} superblocks of {} blocks, seed {first})",
                b.superblocks, b.blocks_per_superblock
            ),
            "host data written (TB)",
            "bad superblocks",
        )
        .x("host_tb")
        .series("mode")
        .y(Y::col("bad_superblocks")),
    );
    let k = ((at_bad * b.superblocks as f64).ceil() as u64).max(1);
    let gain = |r: &LifetimeReport, b: &LifetimeReport| {
        tb(r.bytes_at_bad(k)) / tb(b.bytes_at_bad(k)) - 1.0
    };
    // The headlines, per seed: endurance at k bad superblocks and the first bad one, over
    // BASELINE's of the same seed.
    let mut gains: BTreeMap<&str, PerSeed> = BTreeMap::new();
    let mut delay: PerSeed = Vec::new();
    for &seed in &seeds {
        let bs = get_s("fig14", &format!("baseline|{sigma}"), seed);
        for md in ["recycled", "reserv"] {
            let g = gain(get_s("fig14", &format!("{md}|{sigma}"), seed), bs);
            gains.entry(md).or_default().push((seed, g));
            h.add(&format!("endurance_{md}"), seed, 1.0 + g);
        }
        let rv = get_s("fig14", &format!("reserv|{sigma}"), seed);
        let d = tb(rv.first_bad_superblock_bytes) / tb(bs.first_bad_superblock_bytes);
        delay.push((seed, d - 1.0));
        h.add("first_bad_reserv", seed, d);
    }
    // The lifetimes of the paper's sigma, one row per mode and seed.
    let mut rows = Vec::new();
    for &seed in &seeds {
        for md in SuperblockMode::ALL {
            let r = get_s("fig14", &format!("{}|{sigma}", md.name()), seed);
            rows.push(vec![
                md.name().to_string(),
                seed.to_string(),
                format!("{:.6}", tb(r.first_bad_superblock_bytes)),
                format!("{:.6}", tb(r.bytes_at_bad(k))),
                format!("{:.6}", r.host_bytes_written as f64 / 1e12),
                r.bad_curve.len().to_string(),
                r.remaps.to_string(),
            ]);
        }
    }
    csv_rows(
        &out.join("fig14a_lifetimes.csv"),
        &strings(&[
            "mode",
            "seed",
            "first_bad_tb",
            "tb_at_k_bad",
            "end_tb",
            "bad_superblocks",
            "remaps",
        ]),
        &rows,
    )?;
    m.table(
        &format!("Fig. 14(a) lifetimes at the paper's sigma ({sigma}), every seed: first bad superblock, data written at {k} bad superblocks ({:.0} % of BASELINE's {}), end of life", at_bad * 100.0, b.superblocks),
        "fig14a_lifetimes.csv",
        &[],
    );
    let reserv_gain = gains["reserv"].clone();
    let (fig15, fig15b) = fig15(
        a,
        &f15,
        &fig15_srts,
        &reserv_gain,
        &mut m,
        &mut h,
        |pick, e| {
            let i = get_i("fig15a", &format!("{}|{e}", pick.name()), first);
            (&results[i], &remaps[i])
        },
    )?;
    let fig14c = fig14c(a, &mut m, &mut h)?;
    let wall = start.elapsed().as_secs_f64();

    // Figure 14(b): endurance over BASELINE's (1 + gain) on a log axis from 1: at the largest
    // sigma the weakest of 128 blocks can fail at once, and the ratio runs into the hundreds.
    let mut rows = Vec::new();
    for &s in &sigmas {
        let bs = get("fig14", &format!("baseline|{s}"));
        for md in SuperblockMode::ALL {
            let r = get("fig14", &format!("{}|{s}", md.name()));
            let g = gain(r, bs);
            let f = |x: f64| {
                if x.is_finite() {
                    format!("{x:.6}")
                } else {
                    String::new()
                }
            };
            rows.push(vec![
                s.to_string(),
                md.name().to_string(),
                f(tb(r.first_bad_superblock_bytes)),
                f(tb(r.bytes_at_bad(k))),
                f(g),
                f(1.0 + g),
                f(r.host_bytes_written as f64 / 1e12),
            ]);
        }
    }
    csv_rows(
        &out.join("fig14b_gain_vs_sigma.csv"),
        &strings(&[
            "sigma",
            "mode",
            "first_bad_tb",
            "tb_at_k_bad",
            "gain_vs_baseline",
            "endurance_vs_baseline",
            "end_tb",
        ]),
        &rows,
    )?;
    m.fig(
        Fig::new(
            "fig14b_gain_vs_sigma.svg",
            "fig14b_gain_vs_sigma.csv",
            FigKind::BarsLog,
            &format!("Fig. 14(b): endurance over BASELINE's at {k} bad superblocks (seed {first})"),
            "sigma of the P/E limit (cycles)",
            "endurance / BASELINE's (log scale)",
        )
        .x("sigma")
        .series("mode")
        .y(Y::col("endurance_vs_baseline"))
        .filter_not("mode", "baseline")
        .reference(1.0),
    );

    // Figure 16(a).
    let mut rows = Vec::new();
    for &bpp in &sizes {
        let bs = get("fig16a", &format!("baseline|{bpp}|0"));
        let kk = ((at_bad * bs.superblocks as f64).ceil() as u64).max(1);
        for &e in &srts {
            let r = get("fig16a", &format!("recycled|{bpp}|{e}"));
            let g = tb(r.bytes_at_bad(kk)) / tb(bs.bytes_at_bad(kk)) - 1.0;
            rows.push(vec![
                bpp.to_string(),
                bs.superblocks.to_string(),
                format!("{} superblocks", bs.superblocks),
                e.to_string(),
                format!("{g:.4}"),
                format!("{:.2}", g * 100.0),
            ]);
        }
    }
    csv_rows(
        &out.join("fig16a_gain_vs_srt.csv"),
        &strings(&[
            "blocks_per_plane",
            "superblocks",
            "drive",
            "srt_entries",
            "gain_vs_baseline",
            "gain_pct",
        ]),
        &rows,
    )?;
    m.fig(
        Fig::new(
            "fig16a_gain_vs_srt.svg",
            "fig16a_gain_vs_srt.csv",
            FigKind::LinesLogX,
            "Fig. 16(a): RECYCLED endurance gain against SRT size",
            "SRT entries per flash controller (log)",
            "endurance gain (%)",
        )
        .x("srt_entries")
        .series("drive")
        .y(Y::col("gain_pct")),
    );

    // Figure 16(b).
    let mut rows = Vec::new();
    for md in ["recycled", "reserv"] {
        for &(x, y) in &get("fig16b", md).srt_active_curve {
            rows.push(vec![md.to_string(), x.to_string(), y.to_string()]);
        }
    }
    csv_rows(
        &out.join("fig16b_active_srt.csv"),
        &strings(&["mode", "remaps", "active_srt_entries_controller0"]),
        &rows,
    )?;
    m.fig(
        Fig::new(
            "fig16b_active_srt.svg",
            "fig16b_active_srt.csv",
            FigKind::Lines,
            "Fig. 16(b): active SRT entries of controller 0 (unbounded SRT)",
            "remap events (whole drive)",
            "active SRT entries",
        )
        .x("remaps")
        .series("mode")
        .y(Y::col("active_srt_entries_controller0")),
    );

    let rate: f64 = results.iter().map(|r| r.page_programs as f64).sum::<f64>()
        / results.iter().map(|r| r.wall_s).sum::<f64>();
    let first_bad: serde_json::Map<String, serde_json::Value> = SuperblockMode::ALL
        .iter()
        .map(|md| {
            let r = get("fig14", &format!("{}|{sigma}", md.name()));
            (
                md.name().to_string(),
                json!(tb(r.first_bad_superblock_bytes)),
            )
        })
        .collect();
    let summary = json!({
        "seeds": seeds,
        "page_programs_per_s_per_thread": rate,
        "bad_superblocks_compared": k,
        "first_bad_superblock_tb": first_bad,
        "endurance_gain": gains.iter().map(|(m, v)| (m.to_string(), json!(stat_of(v).mean))).collect::<serde_json::Map<_, _>>(),
        "reserv_first_bad_delay": stat_of(&delay).mean,
        "fig14c": fig14c,
        "fig15a": fig15,
        "fig15b": fig15b,
    });
    write_json(&out.join("summary.json"), &summary)?;
    m.method(format!(
        "Drive: `{DRIVE}` with {blocks} blocks per plane: {} superblocks of {} blocks ({} pages of {} KB), P/E limits Normal({}, {sigma}), 128 KB random writes over 90 % of the FTL's superblocks until worn out (the functional lifetime mode, no timing).",
        b.superblocks,
        b.blocks_per_superblock,
        b.blocks_per_superblock * base.flash.pages_per_block,
        base.flash.page_bytes / 1024,
        base.wear.pe_mean,
    ));
    m.method(format!("Endurance = host data written when {k} superblocks ({:.0} % of BASELINE's) are bad; the paper gives no count.", at_bad * 100.0));
    m.method("Fig. 14(c): one status read per scanned block at the start of a window of random page-sized I/O, closed loop at queue depth 64, on the conventional (Baseline) controller of each Table 1 drive with the write cache off and a sequential precondition (no GC).");
    m.method(format!("Fig. 15: RESERV drives aged (P/E limits scaled by {AGE_PE_SCALE}, same shape) until their SRTs hold the entries asked for, then timed windows of random page I/O (a) and of the ten MSR stand-ins of Venice Table 2 (b), closed loop at queue depth 64, dSSD design, write cache off. Fig. 15(b)'s metric: (1 + RESERV's endurance gain of the same seed) x IOPS aged / IOPS fresh."));
    m.method(format!(
        "{} lifetimes (every one's report in runs.json), then the timed windows.",
        runs.len()
    ));
    let ran = super::Ran {
        recs: Vec::new(),
        wall,
        executor: executor.describe(),
    };
    let mut prov = a.provenance(
        "the P/E limit drawn for every block (the lifetimes), and the timed windows' request streams",
        &[DRIVE, "dssd-ull", "dssd-tlc"],
        &ran,
    )?;
    prov.runs = runs.len();
    a.finish(&m, &h, prov)?;
    lifetime_headlines(&out)
}

/// The lifetime headline (the abstract's "approximately 23% improvement in lifetime"),
/// computed from `dir`'s files alone: per seed, the host data written by the end of life
/// (fig14a_lifetimes.csv `end_tb`) of RECYCLED over BASELINE's (`lifetime`) and of RESERV
/// (`lifetime@reserv`). Merged into headline_seeds.csv and headlines.json (provenance kept,
/// every headline judged again from the per-seed values and the paper's file), so
/// `--render-only` gives it for results whose lifetimes ran before it existed. A directory
/// without fig14a_lifetimes.csv is left as it is.
pub fn lifetime_headlines(dir: &std::path::Path) -> Result<()> {
    const FILE: &str = "fig14a_lifetimes.csv";
    if std::fs::symlink_metadata(super::folder::path(dir, FILE)?).is_err() {
        return Ok(());
    }
    let t = book::Table::read(dir, FILE)?;
    // (mode, seed) -> end of life, TB: each once, a mode Lagoon knows, a number above 0.
    let mut end: BTreeMap<(String, u64), f64> = BTreeMap::new();
    for r in &t.rows {
        let (mode, seed, tb) = (t.cell(r, "mode")?, t.whole(r, "seed")?, t.num(r, "end_tb")?);
        if !SuperblockMode::ALL.iter().any(|m| m.name() == mode) {
            bail!(
                "{}: mode {}: not a superblock mode",
                t.at(r),
                super::folder::shown(mode)
            );
        }
        if tb.is_nan() || tb <= 0.0 {
            bail!("{}: end_tb {tb}: not a number of TB above 0", t.at(r));
        }
        if end.insert((mode.to_string(), seed), tb).is_some() {
            bail!("{}: mode and seed given twice", t.at(r));
        }
    }
    let mut values = book::read_seed_values(dir)?;
    for (id, mode) in [("lifetime", "recycled"), ("lifetime@reserv", "reserv")] {
        let v: Vec<(u64, f64)> = end
            .iter()
            .filter(|((m, _), _)| m == mode)
            .filter_map(|((_, seed), x)| {
                let b = end.get(&("baseline".to_string(), *seed))?;
                Some((*seed, x / b)).filter(|p| p.1.is_finite())
            })
            .collect();
        values.insert(id.to_string(), v);
    }
    let prov = claims::read_headlines(dir)?.provenance;
    Headlines::from_values(values).write(dir, &claims::paper("superblocks")?, prov)?;
    Ok(())
}

/// Figure 14(c): software superblock management (WAS) reads a page of every block to update
/// its wear status, through the conventional controller's system bus and DRAM; the decoupled
/// SSD's hardware management reads none. Mean host latency with `ftl.status_scan_blocks` =
/// N over N = 0, for random page-sized reads and writes on each Table 1 drive (Baseline
/// controller, DRAM miss, sequential precondition so no GC runs), on every seed. Writes the
/// CSV and registers the figures; the headline is each seed's largest write ratio.
fn fig14c(a: &ReproduceArgs, m: &mut Manifest, h: &mut Headlines) -> Result<serde_json::Value> {
    use crate::batch::{Job, RunKey};
    use lagoon_core::config::PreconditionMode;
    use lagoon_core::interconnect::Arch;
    use lagoon_core::scenario::Scenario;
    let out = a.out_dir();
    let seeds = a.seeds();
    let (count, scans): (u64, &[u32]) = if a.tiny_drive {
        (300, &[0, 16, 64])
    } else if a.quick {
        (2_000, &[0, 1_024, 4_096, 16_384, 65_536])
    } else {
        (
            20_000,
            &[
                0, 1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536, 131_072,
            ],
        )
    };
    // A sensitivity reading of the window the scan is amortized over (knob `was_window`: a
    // factor on the host I/Os per window).
    let count = match a.knob_f64("was_window")? {
        Some(f) => ((count as f64 * f).round() as u64).max(1),
        None => count,
    };
    let mut drives = Vec::new();
    for (name, preset) in [("ULL", "dssd-ull"), ("TLC", "dssd-tlc")] {
        let mut d = SsdConfig::load(preset)?;
        if a.tiny_drive {
            tiny(&mut d, 2);
        }
        crate::set_design(&mut d, "baseline").with_context(|| format!("fig14c {name} drive"))?;
        d.cache.enabled = false;
        d.precondition.mode = PreconditionMode::Sequential;
        drives.push((name, d));
    }
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for (name, d) in &drives {
        let blocks = d.physical_pages() / d.flash.pages_per_block as u64;
        let kib = d.flash.page_bytes / 1024;
        for (rw, read) in [("read", 100), ("write", 0)] {
            let w = format!("syn:read={read},size={kib}k,addr=uniform,arrival=qd:64,count={count}");
            for &n in scans.iter().filter(|&&n| n as u64 <= blocks) {
                cases.push((*name, rw, n, d.flash.page_bytes as u64));
                let mut c = d.clone();
                c.ftl.status_scan_blocks = n;
                for &seed in &seeds {
                    let mut sc = Scenario::new(name, c.clone(), Arch::Baseline, vec![w.clone()]);
                    sc.seed = seed;
                    sc.cancel = a.cancel.clone();
                    jobs.push(Job {
                        key: RunKey {
                            experiment: "fig14c".into(),
                            ssd: name.to_string(),
                            mesh: String::new(),
                            replay: "closed:64".into(),
                            workload: w.clone(),
                            design: format!("baseline|scan {n}"),
                        },
                        scenario: sc,
                    });
                }
            }
        }
    }
    super::sensitivity::apply_all(&a.reading, &mut jobs)?;
    let recs = a.executor().run(jobs, a.quiet)?;
    let latency = |case: usize, k: usize| recs[case * seeds.len() + k].mean_latency_us;
    let mut head = strings(&[
        "drive",
        "workload",
        "scanned_blocks",
        "scan_bytes",
        "host_bytes",
        "mean_latency_us",
    ]);
    head.extend(book::ci_cols("latency_vs_no_scan"));
    let mut rows = Vec::new();
    let mut pts = Vec::new();
    // Each drive and workload's cases start with the unscanned run; per seed the largest
    // write ratio is the headline.
    let mut unscanned = 0;
    let mut worst: Vec<f64> = vec![f64::NAN; seeds.len()];
    for (i, &(name, rw, n, page)) in cases.iter().enumerate() {
        if n == 0 {
            unscanned = i;
        }
        let ratios: Vec<f64> = (0..seeds.len())
            .map(|k| latency(i, k) / latency(unscanned, k))
            .collect();
        if rw == "write" && n > 0 {
            for (w, r) in worst.iter_mut().zip(&ratios) {
                *w = if w.is_nan() { *r } else { w.max(*r) };
            }
        }
        let st = claims::stat(&ratios);
        let mut row = vec![
            name.to_string(),
            rw.to_string(),
            n.to_string(),
            (n as u64 * page).to_string(),
            (page * count).to_string(),
            format!("{:.3}", latency(i, 0)),
        ];
        row.extend(book::ci_cells(&st, 4));
        rows.push(row);
        pts.push(json!({"drive": name, "workload": rw, "scanned_blocks": n,
            "scan_bytes": n as u64 * page, "host_bytes": page * count,
            "mean_latency_us": latency(i, 0), "latency_vs_no_scan": latency(i, 0) / latency(unscanned, 0)}));
    }
    for (k, &seed) in seeds.iter().enumerate() {
        h.add("was_latency", seed, worst[k]);
    }
    csv_rows(&out.join("fig14c_was_latency.csv"), &head, &rows)?;
    // One chart per drive (fig15a's layout): both drives' read lines nearly coincide.
    for (name, _) in &drives {
        m.fig(
            Fig::new(
                &format!("fig14c_was_latency_{}.svg", name.to_lowercase()),
                "fig14c_was_latency.csv",
                FigKind::LinesLogX,
                &format!(
                    "Fig. 14(c), {name}: WAS status scan before {count} random page I/Os (QD 64)"
                ),
                "blocks scanned (one page each, log)",
                "mean I/O latency / without the scan",
            )
            .x("scanned_blocks")
            .series("workload")
            .y(Y::ci("latency_vs_no_scan"))
            .filter("drive", name)
            .filter_not("scanned_blocks", "0"),
        );
    }
    Ok(json!(pts))
}

/// A drive of Fig. 15's timed windows: fresh (no remap) or RESERV aged to `srt` entries
/// with an RBT pick (`active` SRT entries per controller on average, `moved` blocks off their
/// plane).
struct Point {
    pick: &'static str,
    srt: u32,
    active: f64,
    moved: usize,
    remap: Option<std::sync::Arc<BlockRemap>>,
}

/// Read-intensive (Fig. 15(b)'s grouping): more than half the requests are reads.
fn read_intensive(t: &TracePreset) -> bool {
    t.read_pct > 50.0
}

/// Figure 15(b) from its records (per workload and point, one per seed, the fresh drive
/// first): the CSV, the figure, the headlines (per seed, the mean metric of the read- and
/// write-intensive workloads with the preset's RBT pick) and the summary's entry.
#[allow(clippy::too_many_arguments)]
fn fig15b(
    out: &std::path::Path,
    msr: &[&TracePreset],
    points: &[&Point],
    iops: &dyn Fn(usize, usize, usize) -> f64,
    seeds: &[u64],
    reserv_gain: &PerSeed,
    srt: u32,
    headline_pick: &str,
    m: &mut Manifest,
    h: &mut Headlines,
) -> Result<serde_json::Value> {
    let mut head = strings(&[
        "workload",
        "class",
        "read_percent",
        "rbt_pick",
        "srt_entries",
        "active_srt_per_controller",
        "iops_fresh",
        "iops_aged",
    ]);
    head.extend(book::ci_cols("performance"));
    head.extend(book::ci_cols("metric"));
    let mut rows = Vec::new();
    let mut json_rows = Vec::new();
    // (class, pick, seed) -> metrics, for the means.
    let mut by: BTreeMap<(&str, &str, u64), Vec<f64>> = BTreeMap::new();
    for (wi, t) in msr.iter().enumerate() {
        let class = if read_intensive(t) { "read" } else { "write" };
        for (pi, p) in points.iter().enumerate().skip(1) {
            let perf: Vec<f64> = (0..seeds.len())
                .map(|k| iops(wi, pi, k) / iops(wi, 0, k))
                .collect();
            // §6.4: endurance over performance overhead; BASELINE (fresh timing, no gain) = 1.
            let metric: Vec<f64> = perf
                .iter()
                .zip(reserv_gain)
                .map(|(x, g)| (1.0 + g.1) * x)
                .collect();
            for (k, &seed) in seeds.iter().enumerate() {
                by.entry((class, p.pick, seed)).or_default().push(metric[k]);
            }
            let mut row = vec![
                format!("{} ({:.0} % rd)", t.name, t.read_pct),
                class.to_string(),
                format!("{:.0}", t.read_pct),
                p.pick.to_string(),
                p.srt.to_string(),
                format!("{:.1}", p.active),
                format!("{:.1}", iops(wi, 0, 0)),
                format!("{:.1}", iops(wi, pi, 0)),
            ];
            row.extend(book::ci_cells(&claims::stat(&perf), 4));
            row.extend(book::ci_cells(&claims::stat(&metric), 4));
            rows.push(row);
            json_rows.push(
                json!({"workload": t.name, "class": class, "read_percent": t.read_pct,
                "rbt_pick": p.pick, "srt_entries": p.srt, "active_srt_per_controller": p.active,
                "iops_fresh": iops(wi, 0, 0), "iops_aged": iops(wi, pi, 0),
                "performance": perf[0], "endurance_gain": reserv_gain[0].1, "metric": metric[0]}),
            );
        }
    }
    csv_rows(&out.join("fig15b_traces.csv"), &head, &rows)?;
    m.fig(
        Fig::new(
            "fig15b_traces.svg",
            "fig15b_traces.csv",
            FigKind::Bars,
            &format!(
                "Fig. 15(b): RESERV aged toward {srt} SRT entries, endurance / performance overhead (BASELINE = 1)"
            ),
            "MSR workload stand-in (read share)",
            "metric over BASELINE's",
        )
        .x("workload")
        .series("rbt_pick")
        .y(Y::ci("metric"))
        .reference(1.0),
    );
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut means = serde_json::Map::new();
    for ((class, pick, seed), v) in &by {
        if *seed == seeds[0] {
            means
                .entry(class.to_string())
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("an object")
                .insert(pick.to_string(), json!(mean(v)));
        }
        if *pick == headline_pick {
            h.add(&format!("fig15b_{class}"), *seed, mean(v));
        }
    }
    // A drive ages until its SRTs hold the entries asked for or it wears out: what it holds.
    let active: serde_json::Map<String, serde_json::Value> = points[1..]
        .iter()
        .map(|p| (p.pick.to_string(), json!(p.active)))
        .collect();
    Ok(
        json!({"srt_entries": srt, "active_srt_per_controller": active,
        "endurance_gain": reserv_gain[0].1, "mean_metric": means, "workloads": json_rows}),
    )
}

/// Figure 15: the timed simulator over each aged drive's block remapping (RESERV aged to
/// `srts` active SRT entries per controller, with each RBT pick; a fresh drive, no remap, is
/// the reference: BASELINE's static superblocks are never remapped), under the dSSD design in
/// §6.1's DRAM "miss" case (cache off), closed loop at queue depth 64 (§6.1), every seed.
/// - (a) ULL and TLC flash on the aged geometry, random page-sized reads and writes;
///   performance = IOPS over the fresh drive's.
/// - (b) the MSR trace stand-ins (Venice Table 2's `syn:` presets; the paper's traces are
///   not in ../shared) on the TLC drive aged to the largest SRT: §6.4's metric, endurance
///   improvement over performance overhead, `(1 + reserv_gain) x IOPS_aged / IOPS_fresh`
///   (BASELINE's is 1).
///
/// Writes their CSVs and registers the figures; returns the summary's entries for (a), (b).
#[allow(clippy::too_many_arguments)]
fn fig15<'a>(
    a: &ReproduceArgs,
    base: &SsdConfig,
    srts: &[u32],
    reserv_gain: &PerSeed,
    m: &mut Manifest,
    h: &mut Headlines,
    aged: impl Fn(RbtPick, u32) -> (&'a LifetimeReport, &'a BlockRemap),
) -> Result<(serde_json::Value, serde_json::Value)> {
    use crate::batch::{Job, RunKey};
    use lagoon_core::interconnect::Arch;
    use lagoon_core::scenario::Scenario;
    use std::sync::Arc;
    let out = a.out_dir();
    let seeds = a.seeds();
    let ns = seeds.len();
    let count = if a.tiny_drive {
        300
    } else if a.quick {
        2_000
    } else {
        20_000
    };
    let mut ull = SsdConfig::load("dssd-ull")?;
    let f = &base.flash;
    ull.flash.channels = f.channels;
    ull.flash.chips_per_channel = f.chips_per_channel;
    ull.flash.dies_per_chip = f.dies_per_chip;
    ull.flash.planes_per_die = f.planes_per_die;
    ull.flash.blocks_per_plane = f.blocks_per_plane;
    ull.flash.pages_per_block = f.pages_per_block;
    ull.ftl.gc_threshold = base.ftl.gc_threshold;
    let mut drives = [("ULL", ull), ("TLC", base.clone())];
    for (name, d) in &mut drives {
        crate::set_design(d, "dssd").with_context(|| format!("fig15a {name} drive"))?;
        // §6.1's DRAM "miss" case: every access goes to the flash.
        d.cache.enabled = false;
    }
    let mut points = vec![Point {
        pick: "fresh",
        srt: 0,
        active: 0.0,
        moved: 0,
        remap: None,
    }];
    for pick in RbtPick::ALL {
        for &e in srts {
            let (r, m) = aged(pick, e);
            let act = &r.srt_active_per_controller;
            points.push(Point {
                pick: pick.name(),
                srt: e,
                active: act.iter().map(|&x| x as f64).sum::<f64>() / act.len().max(1) as f64,
                moved: m.moved_blocks(),
                remap: Some(Arc::new(m.clone())),
            });
        }
    }
    let mut jobs = Vec::new();
    let push = |jobs: &mut Vec<Job>, ssd: &str, cfg: &SsdConfig, w: &str, p: &Point, exp: &str| {
        for &seed in &seeds {
            let mut sc = Scenario::new(ssd, cfg.clone(), Arch::Baseline, vec![w.to_string()]);
            sc.seed = seed;
            sc.block_remap = p.remap.clone();
            sc.cancel = a.cancel.clone();
            jobs.push(Job {
                key: RunKey {
                    experiment: exp.into(),
                    ssd: ssd.to_string(),
                    mesh: String::new(),
                    replay: "closed:64".into(),
                    workload: w.to_string(),
                    design: format!("dssd|{}|srt {}", p.pick, p.srt),
                },
                scenario: sc,
            });
        }
    };
    let mut cases = Vec::new();
    for (name, d) in &drives {
        let kib = d.flash.page_bytes / 1024;
        for (rw, read) in [("read", 100), ("write", 0)] {
            cases.push((*name, rw));
            let w = format!("syn:read={read},size={kib}k,addr=uniform,arrival=qd:64,count={count}");
            for p in &points {
                push(&mut jobs, name, d, &w, p, "fig15a");
            }
        }
    }
    // Fig. 15(b): each MSR stand-in on the TLC drive, fresh and at the largest SRT per pick.
    let tlc = drives[1].1.clone();
    let top = srts.iter().copied().max().unwrap_or(0);
    let msr: Vec<&TracePreset> = trace_presets()
        .iter()
        .filter(|t| t.source.starts_with("MSR"))
        .collect();
    let b_points: Vec<&Point> = points
        .iter()
        .filter(|p| p.remap.is_none() || p.srt == top)
        .collect();
    let fig15a_jobs = jobs.len();
    for t in &msr {
        let w = format!("syn:{},arrival=qd:64,count={count}", t.name);
        for p in &b_points {
            push(&mut jobs, "TLC", &tlc, &w, p, "fig15b");
        }
    }
    // The timed windows go to the command's executor too (the remap travels with the job).
    super::sensitivity::apply_all(&a.reading, &mut jobs)?;
    let mut recs = a.executor().run(jobs, a.quiet)?;
    let recs_b = recs.split_off(fig15a_jobs);
    let np = b_points.len();
    let iops_b = |w: usize, p: usize, k: usize| recs_b[(w * np + p) * ns + k].iops;
    let fig15b = fig15b(
        out,
        &msr,
        &b_points,
        &iops_b,
        &seeds,
        reserv_gain,
        top,
        base.wear.rbt_pick.name(),
        m,
        h,
    )?;
    let mut head = strings(&[
        "drive",
        "workload",
        "rbt_pick",
        "series",
        "srt_entries",
        "active_srt_per_controller",
        "blocks_off_their_plane",
        "iops",
    ]);
    head.extend(book::ci_cols("normalized"));
    let mut rows = Vec::new();
    let mut json_pts = Vec::new();
    let npt = points.len();
    let iops = |c: usize, p: usize, k: usize| recs[(c * npt + p) * ns + k].iops;
    let mut worst: Vec<f64> = vec![f64::NAN; ns];
    for (c, &(name, rw)) in cases.iter().enumerate() {
        let norm =
            |p: usize| -> Vec<f64> { (0..ns).map(|k| iops(c, p, k) / iops(c, 0, k)).collect() };
        for (pi, p) in points.iter().enumerate() {
            let v = norm(pi);
            // The fresh drive starts every pick's line.
            let series: Vec<String> = if pi == 0 {
                RbtPick::ALL
                    .iter()
                    .map(|x| format!("{rw} {}", x.name()))
                    .collect()
            } else {
                vec![format!("{rw} {}", p.pick)]
            };
            for sname in series {
                let mut row = vec![
                    name.to_string(),
                    rw.to_string(),
                    p.pick.to_string(),
                    sname,
                    p.srt.to_string(),
                    format!("{:.1}", p.active),
                    p.moved.to_string(),
                    format!("{:.1}", iops(c, pi, 0)),
                ];
                row.extend(book::ci_cells(&claims::stat(&v), 4));
                rows.push(row);
            }
            json_pts.push(json!({"drive": name, "workload": rw, "rbt_pick": p.pick,
                "srt_entries": p.srt, "active_srt_per_controller": p.active,
                "blocks_off_their_plane": p.moved, "iops": iops(c, pi, 0), "normalized": v[0]}));
            // The headline: TLC writes at the largest SRT fill, the worse RBT pick.
            if (name, rw) == ("TLC", "write") && p.srt == top && pi > 0 {
                for (w, x) in worst.iter_mut().zip(&v) {
                    *w = if w.is_nan() { *x } else { w.min(*x) };
                }
            }
        }
    }
    for (k, &seed) in seeds.iter().enumerate() {
        h.add("srt_tlc_write_perf", seed, worst[k]);
    }
    csv_rows(&out.join("fig15a_perf_vs_srt.csv"), &head, &rows)?;
    for (name, _) in &drives {
        m.fig(
            Fig::new(
                &format!("fig15a_perf_vs_srt_{}.svg", name.to_lowercase()),
                "fig15a_perf_vs_srt.csv",
                FigKind::Lines,
                &format!("Fig. 15(a), {name}: aged RESERV drives, timed random I/O (RBT pick)"),
                "active SRT entries per flash controller (mean)",
                "IOPS / fresh drive's",
            )
            .x("active_srt_per_controller")
            .series("series")
            .y(Y::ci("normalized"))
            .filter("drive", name),
        );
    }
    Ok((json!(json_pts), fig15b))
}
