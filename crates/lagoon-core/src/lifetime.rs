//! Fast functional lifetime mode (`lagoon lifetime`): a fresh drive written to death by a
//! continuous stream of host writes through the superblock FTL, GC, wear and the flash
//! controllers' dynamic superblocks ([`SuperblockFtl`]), with no timing model. What the
//! Decoupled SSD's Figures 14 and 16 plot: bad superblocks against data written (§6.4).
//!
//! End of life: the FTL can no longer place a page (every usable superblock full of valid
//! data), or a requested fraction of the superblocks has gone bad.

use crate::config::SsdConfig;
use crate::ssd::dynamic_superblock::BlockRemap;
use crate::ssd::ftl::superblock::{SuperblockCounters, SuperblockFtl};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Request-aligned offsets drawn uniformly over the logical space.
    Random,
    /// Offsets in order, wrapping at the end of the logical space.
    Sequential,
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(Pattern::Random),
            "seq" | "sequential" => Ok(Pattern::Sequential),
            _ => Err(format!("unknown pattern '{s}' (random | seq)")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LifetimeSpec {
    /// Bytes per host write (§6.4: 128 KB).
    pub request_bytes: u64,
    pub pattern: Pattern,
    /// Logical space as a fraction of the superblocks the FTL sees (§6.4: writes "until
    /// 90 % of the superblocks are used").
    pub utilization: f64,
    /// Stop once this fraction of the superblocks is bad (1 = until worn out).
    pub stop_bad_fraction: f64,
    /// Stop once the SRTs hold this many active entries per controller on average (an age
    /// for a timed window, Fig. 15(a)); `None`: never.
    pub stop_srt_active: Option<u32>,
    pub seed: u64,
}

impl Default for LifetimeSpec {
    fn default() -> Self {
        Self {
            request_bytes: 128 << 10,
            pattern: Pattern::Random,
            utilization: 0.9,
            stop_bad_fraction: 1.0,
            stop_srt_active: None,
            seed: 1,
        }
    }
}

/// One bad superblock: how many were bad and how much host data had been written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BadPoint {
    pub bad_superblocks: u64,
    pub host_bytes: u64,
    pub remaps: u64,
}

/// Why a lifetime ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LifetimeEnd {
    /// No page could be placed.
    WornOut,
    /// The stop fraction of bad superblocks was reached.
    BadFraction,
    /// The SRTs reached `stop_srt_active`.
    SrtActive,
    /// Asked to finish early ([`crate::cancel::Cancel::finish`]): the report covers the data
    /// written until then.
    Interrupted,
}

impl std::fmt::Display for LifetimeEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LifetimeEnd::WornOut => "worn-out",
            LifetimeEnd::BadFraction => "bad-fraction",
            LifetimeEnd::SrtActive => "srt-active",
            LifetimeEnd::Interrupted => "interrupted",
        })
    }
}

/// A lifetime's results; it travels to and from Dask workers (`Deserialize`), so every field
/// comes back as it was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LifetimeReport {
    pub drive: String,
    pub superblock_mode: String,
    pub superblocks: u32,
    pub blocks_per_superblock: u32,
    pub reserved_blocks_per_plane: u32,
    pub srt_entries_per_controller: u32,
    pub pe_mean: f64,
    pub pe_sigma: f64,
    pub pattern: Pattern,
    pub request_bytes: u64,
    pub logical_bytes: u64,
    pub page_bytes: u32,
    pub end: LifetimeEnd,
    pub host_bytes_written: u64,
    pub first_bad_superblock_bytes: Option<u64>,
    /// Every retirement, in order.
    pub bad_curve: Vec<BadPoint>,
    pub counters: SuperblockCounters,
    /// Flash page programs (host, GC, retirement moves, controller copies) per host page.
    pub write_amplification: f64,
    pub bad_blocks: u64,
    pub remaps: u64,
    pub srt_full_refusals: u64,
    pub rbt_empty_refusals: u64,
    /// Remaps onto another plane than the failed block's (two sub-blocks on one plane).
    pub plane_conflict_remaps: u64,
    pub srt_active_per_controller: Vec<u32>,
    /// (remap events, active SRT entries of controller 0) after each remap (Fig. 16(b)).
    pub srt_active_curve: Vec<(u64, u32)>,
    pub min_erases: u32,
    pub mean_erases: f64,
    pub max_erases: u32,
    pub page_programs: u64,
    pub wall_s: f64,
    pub page_programs_per_s: f64,
}

impl LifetimeReport {
    /// Host bytes written when `n` superblocks had gone bad (None if fewer did).
    pub fn bytes_at_bad(&self, n: u64) -> Option<u64> {
        self.bad_curve
            .iter()
            .find(|p| p.bad_superblocks >= n)
            .map(|p| p.host_bytes)
    }

    /// Deterministic JSON (wall time and rate zeroed).
    pub fn deterministic_json(&self) -> String {
        let mut r = self.clone();
        r.wall_s = 0.0;
        r.page_programs_per_s = 0.0;
        serde_json::to_string_pretty(&r).expect("serializable")
    }
}

/// Page programs a lifetime's progress counts to: physical pages x mean P/E limit.
pub fn expected_programs(cfg: &SsdConfig) -> u64 {
    let f = &cfg.flash;
    (f.channels * f.chips_per_channel * f.dies_per_chip * f.planes_per_die) as u64
        * f.blocks_per_plane as u64
        * f.pages_per_block as u64
        * cfg.wear.pe_mean as u64
}

/// Write a fresh drive until it wears out (or `spec.stop_bad_fraction` of its superblocks
/// are bad). `progress(done, total)` is called now and then with page programs done and
/// the expected total (physical pages x mean P/E limit).
pub fn run(
    cfg: &SsdConfig,
    spec: &LifetimeSpec,
    progress: impl FnMut(u64, u64),
) -> Result<LifetimeReport, String> {
    age(cfg, spec, progress).map(|(r, _)| r)
}

/// As [`run`], and the aged drive's block remapping as the flash sees it, for a timed
/// window at that age (`Scenario::block_remap`; dSSD Fig. 15).
pub fn age(
    cfg: &SsdConfig,
    spec: &LifetimeSpec,
    progress: impl FnMut(u64, u64),
) -> Result<(LifetimeReport, BlockRemap), String> {
    age_cancellable(cfg, spec, None, progress)
}

/// How many `spec.request_bytes` requests the logical space holds: `spec.utilization` of
/// the superblocks the FTL sees; an error (naming the utilization and the least that works)
/// when that is not one whole request (1e-300 was run on a space of one request). Allocates
/// the FTL's per-block state: call it after the memory check of [`age_cancellable`].
fn logical_requests(cfg: &SsdConfig, spec: &LifetimeSpec) -> Result<u64, String> {
    let page = cfg.flash.page_bytes as u64;
    let per_req = (spec.request_bytes / page).max(1);
    let probe = SuperblockFtl::new(cfg, 0, spec.seed);
    let capacity = probe.superblocks() as u64 * probe.pages_per_superblock as u64;
    let chunks = (capacity as f64 * spec.utilization) as u64 / per_req;
    if chunks == 0 {
        let u = spec.utilization;
        let u = if u < 1e-3 {
            format!("{u:e}")
        } else {
            u.to_string()
        };
        return Err(format!(
            "utilization {u}: the logical space ({} of {capacity} pages) holds no whole request of {per_req} pages; give at least {:.3e}",
            (capacity as f64 * spec.utilization) as u64,
            // rounded up, so the value printed is enough
            per_req as f64 / capacity as f64 * 1.001,
        ));
    }
    Ok(chunks)
}

/// The error of a lifetime stopped by [`crate::cancel::Cancel::abort`].
pub const CANCELLED: &str = "cancelled";

/// As [`age`], looking at `cancel` every 16,384 host writes (a few milliseconds): an abort
/// ends it with the error [`CANCELLED`], a finish with the report so far
/// ([`LifetimeEnd::Interrupted`]).
pub fn age_cancellable(
    cfg: &SsdConfig,
    spec: &LifetimeSpec,
    cancel: Option<&crate::cancel::Cancel>,
    mut progress: impl FnMut(u64, u64),
) -> Result<(LifetimeReport, BlockRemap), String> {
    let page = cfg.flash.page_bytes as u64;
    if spec.request_bytes == 0 || !spec.request_bytes.is_multiple_of(page) {
        return Err(format!(
            "request size {} bytes is not a positive multiple of flash.page_bytes ({page})",
            spec.request_bytes
        ));
    }
    if !(spec.utilization > 0.0 && spec.utilization < 1.0) {
        return Err(format!(
            "utilization {} must be in (0, 1)",
            spec.utilization
        ));
    }
    // Lifetime mode holds the whole map and reverse map from the start.
    let need = cfg.preallocated_state_bytes() + cfg.full_map_bytes();
    let limit = crate::config::schema::model_state_limit().map_err(|e| e.to_string())?;
    if need > limit {
        return Err(format!(
            "flash (geometry): lifetime mode holds every page's map and reverse-map entry, \
             {:.2} GB of state for this drive, {}; use fewer blocks (flash.blocks_per_plane), \
             channels or chips, or larger pages (flash.page_bytes)",
            need as f64 / 1e9,
            crate::config::schema::over_state_limit(limit)
        ));
    }
    let start = std::time::Instant::now();
    let per_req = spec.request_bytes / page;
    let chunks = logical_requests(cfg, spec)?;
    let logical = chunks * per_req;
    let mut ftl = SuperblockFtl::new(cfg, logical, spec.seed);
    let n = ftl.superblocks() as u64;
    let stop_bad = ((spec.stop_bad_fraction * n as f64).ceil() as u64).max(1);
    let total = expected_programs(cfg);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed ^ 0x6c69_6665);
    let mut next = 0u64;
    let mut end = LifetimeEnd::BadFraction;
    let mut srt_curve = Vec::new();
    let mut last_remaps = 0;
    let mut req = 0u64;
    let programs = |f: &SuperblockFtl| {
        let c = &f.counters;
        c.host_page_writes + c.gc_page_moves + c.retire_page_moves + c.copyback_pages
    };
    'life: while ftl.counters.bad_superblocks < stop_bad {
        let chunk = match spec.pattern {
            Pattern::Random => rng.random_range(0..chunks),
            Pattern::Sequential => {
                let c = next;
                next = (next + 1) % chunks;
                c
            }
        };
        for lpa in chunk * per_req..(chunk + 1) * per_req {
            if ftl.write(lpa).is_err() {
                end = LifetimeEnd::WornOut;
                break 'life;
            }
        }
        if ftl.ctl.remaps != last_remaps {
            last_remaps = ftl.ctl.remaps;
            let active = ftl.ctl.srt_active();
            srt_curve.push((last_remaps, active[0]));
            if let Some(stop) = spec.stop_srt_active {
                let sum: u64 = active.iter().map(|&a| a as u64).sum();
                if sum >= stop as u64 * active.len() as u64 {
                    end = LifetimeEnd::SrtActive;
                    break 'life;
                }
            }
        }
        req += 1;
        if req.is_multiple_of(1 << 14) {
            progress(programs(&ftl), total);
            match cancel.map(|c| c.request()) {
                Some(crate::cancel::Request::Abort) => return Err(CANCELLED.into()),
                Some(crate::cancel::Request::Finish) => {
                    end = LifetimeEnd::Interrupted;
                    break 'life;
                }
                _ => {}
            }
        }
    }
    progress(programs(&ftl), total);
    let wall = start.elapsed().as_secs_f64();
    let (lo, mean, hi) = ftl.wear.erase_stats();
    let c = ftl.counters.clone();
    let prog = programs(&ftl);
    let bad_curve: Vec<BadPoint> = ftl
        .bad_log
        .iter()
        .enumerate()
        .map(|(i, b)| BadPoint {
            bad_superblocks: i as u64 + 1,
            host_bytes: b.host_pages * page,
            remaps: b.remaps,
        })
        .collect();
    let remap = ftl.ctl.block_remap();
    let report = LifetimeReport {
        drive: cfg.name.clone(),
        superblock_mode: cfg.wear.superblock.name().into(),
        superblocks: ftl.superblocks(),
        blocks_per_superblock: ftl.width,
        reserved_blocks_per_plane: cfg.reserved_blocks_per_plane(),
        srt_entries_per_controller: cfg.wear.srt_entries,
        pe_mean: cfg.wear.pe_mean,
        pe_sigma: cfg.wear.pe_sigma,
        pattern: spec.pattern,
        request_bytes: spec.request_bytes,
        logical_bytes: logical * page,
        page_bytes: cfg.flash.page_bytes,
        end,
        host_bytes_written: c.host_page_writes * page,
        first_bad_superblock_bytes: bad_curve.first().map(|p| p.host_bytes),
        bad_curve,
        write_amplification: prog as f64 / c.host_page_writes.max(1) as f64,
        bad_blocks: ftl.wear.bad_blocks,
        remaps: ftl.ctl.remaps,
        srt_full_refusals: ftl.ctl.srt_full,
        rbt_empty_refusals: ftl.ctl.rbt_empty,
        plane_conflict_remaps: ftl.ctl.plane_conflicts,
        srt_active_per_controller: ftl.ctl.srt_active().to_vec(),
        srt_active_curve: srt_curve,
        min_erases: lo,
        mean_erases: mean,
        max_erases: hi,
        page_programs: prog,
        counters: c,
        wall_s: wall,
        page_programs_per_s: prog as f64 / wall.max(1e-9),
    };
    Ok((report, remap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SuperblockMode;

    /// The tiny drive with 8-page blocks, worn out after about 60 erases a block.
    fn tiny(mode: SuperblockMode) -> SsdConfig {
        let mut c = crate::testing::tiny();
        c.flash.pages_per_block = 8;
        c.wear.pe_mean = 60.0;
        c.wear.pe_sigma = 9.0;
        c.wear.superblock = mode;
        c
    }

    #[test]
    fn same_seed_same_life_and_recycling_helps() {
        let spec = LifetimeSpec {
            request_bytes: 16 << 10,
            ..Default::default()
        };
        let a = run(&tiny(SuperblockMode::Static), &spec, |_, _| {}).unwrap();
        let b = run(&tiny(SuperblockMode::Static), &spec, |_, _| {}).unwrap();
        assert_eq!(a.deterministic_json(), b.deterministic_json());
        assert_eq!(a.end, LifetimeEnd::WornOut);
        let r = run(&tiny(SuperblockMode::Recycled), &spec, |_, _| {}).unwrap();
        // §6.4: the first bad superblock is the same; afterwards recycling delays the rest.
        assert_eq!(a.first_bad_superblock_bytes, r.first_bad_superblock_bytes);
        assert!(r.host_bytes_written > a.host_bytes_written);
        assert!(r.remaps > 0);
        let e = run(&tiny(SuperblockMode::Reserv), &spec, |_, _| {}).unwrap();
        assert!(e.first_bad_superblock_bytes > a.first_bad_superblock_bytes);
    }

    #[test]
    fn bad_request_size_is_an_error() {
        let spec = LifetimeSpec {
            request_bytes: 1000,
            ..Default::default()
        };
        let e = run(&tiny(SuperblockMode::Static), &spec, |_, _| {}).unwrap_err();
        assert!(e.contains("flash.page_bytes"), "{e}");
    }

    /// Issue 43: `--utilization 1e-300` ran on a logical space of one request (rounded up
    /// from none); a utilization whose space holds no whole request is named, with the least.
    #[test]
    fn a_utilization_whose_space_holds_no_request_is_named() {
        let cfg = tiny(SuperblockMode::Static);
        let spec = |u: f64| LifetimeSpec {
            request_bytes: 16 << 10,
            utilization: u,
            ..Default::default()
        };
        let e = run(&cfg, &spec(1e-300), |_, _| {}).unwrap_err();
        assert!(
            e.starts_with("utilization 1e-300: the logical space (0 of ")
                && e.contains("give at least"),
            "{e}"
        );
        let least: f64 = e.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(
            run(&cfg, &spec(least), |_, _| {}).is_ok(),
            "the least named runs"
        );
    }
}
