//! Building the FTL: the block table and the preconditioned layout (sequential, aged or
//! steady), and where the k-th preconditioned page of a plane lives.

use super::*;

impl Ftl {
    pub fn new(cfg: &SsdConfig, seed: u64) -> Self {
        let geo = Geometry::new(&cfg.flash, cfg.ftl.allocation);
        let f: &FtlConfig = &cfg.ftl;
        let ppb = geo.pages_per_block;
        let logical_pages_per_plane =
            (geo.pages_per_plane as f64 * (1.0 - f.overprovisioning)) as u64;
        let logical_pages = logical_pages_per_plane * geo.planes as u64;
        let pre = ((logical_pages_per_plane as f64) * cfg.precondition.occupancy).round() as u64;
        let gc_start_blocks = (f.gc_threshold * geo.blocks_per_plane as f64).floor() as u32;
        let aged = cfg.precondition.mode != PreconditionMode::Sequential;
        // Written (full) blocks of each plane, before its free ones.
        let mut full_blocks = vec![pre.div_ceil(ppb as u64) as u32; geo.planes as usize];
        let (pre_blocks, aged_start) =
            precondition_layout(cfg, &geo, pre, gc_start_blocks, seed, &mut full_blocks);
        let (blocks, planes) = block_table(&geo, &full_blocks, aged, pre, pre_blocks, &aged_start);
        let entries = (geo.page_bytes / f.translation_entry_bytes) as u64;
        let gc_urgent_blocks =
            ((f.gc_hard_threshold * geo.blocks_per_plane as f64).floor() as u32).max(1);
        Self {
            gtd: vec![IMPLICIT; logical_pages.div_ceil(entries) as usize],
            l2p: L2pMap::new(logical_pages),
            blocks,
            planes,
            p2l_pool: Vec::new(),
            p2l_free: Vec::new(),
            logical_pages_per_plane,
            logical_pages,
            precondition_pages_per_plane: pre,
            entries_per_translation_page: entries,
            gc_start_blocks,
            static_wl_threshold: f.static_wl_threshold,
            gc_urgent_blocks,
            gc_victims: f.gc_victims_per_plane.max(1),
            policy: f.gc_policy,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6c61_676f_6f6e),
            seq: 0,
            plane_valid: vec![pre; geo.planes as usize],
            gc_reserved: vec![0; geo.planes as usize],
            partial_sectors: IntMap::default(),
            full_sectors: match geo.page_bytes / 512 {
                n if n >= 64 => u64::MAX,
                n => (1u64 << n.max(1)) - 1,
            },
            aged_start,
            aged_blocks: pre_blocks,
            counters: FtlCounters::default(),
            geo,
        }
    }

    /// Physical page of the `k`-th preconditioned page of `plane` (`k` < the precondition
    /// count): sequential, or by the aged layout's prefix sums.
    #[inline]
    pub(super) fn precondition_ppa(&self, plane: u32, k: u64) -> u32 {
        let ppb = self.geo.pages_per_block as u64;
        if self.aged_start.is_empty() {
            return self.geo.ppa(plane, (k / ppb) as u32, (k % ppb) as u32);
        }
        let n = self.aged_blocks as usize;
        let s = &self.aged_start[plane as usize * (n + 1)..][..n + 1];
        // The last block whose range starts at or before k holds it.
        let b = s.partition_point(|&x| x as u64 <= k) - 1;
        self.geo.ppa(plane, b as u32, (k - s[b] as u64) as u32)
    }

    /// Plane page index held at `page` of preconditioned block `block`, if it holds one.
    #[inline]
    pub(super) fn precondition_index(&self, plane: u32, block: u32, page: u32) -> Option<u64> {
        if self.aged_start.is_empty() {
            let k = block as u64 * self.geo.pages_per_block as u64 + page as u64;
            return (k < self.precondition_pages_per_plane).then_some(k);
        }
        if block >= self.aged_blocks {
            return None;
        }
        let n = self.aged_blocks as usize;
        let s = &self.aged_start[plane as usize * (n + 1) + block as usize..][..2];
        (page < s[1] - s[0]).then_some(s[0] as u64 + page as u64)
    }
}

/// The preconditioned layout (`precondition.mode`): how many blocks of each plane `aged_start`
/// describes, and its per-plane prefix sums of valid pages (empty when sequential); the
/// written blocks of each plane in `full_blocks`.
fn precondition_layout(
    cfg: &SsdConfig,
    geo: &Geometry,
    pre: u64,
    gc_start_blocks: u32,
    seed: u64,
    full_blocks: &mut [u32],
) -> (u32, Vec<u32>) {
    let ppb = geo.pages_per_block;
    // Blocks described by `aged_start` per plane (`pre_blocks + 1` prefix sums each).
    let pre_blocks;
    let aged_start = match cfg.precondition.mode {
        PreconditionMode::Sequential => {
            pre_blocks = 0;
            Vec::new()
        }
        PreconditionMode::Aged => {
            let free = match cfg.precondition.free_blocks {
                0 => gc_start_blocks,
                n => n,
            };
            pre_blocks = geo.blocks_per_plane - free.min(geo.blocks_per_plane);
            full_blocks.fill(pre_blocks);
            aged::aged_layout(
                geo.planes,
                pre_blocks,
                ppb,
                pre,
                cfg.precondition.invalid_distribution,
                seed,
            )
        }
        PreconditionMode::Steady => {
            pre_blocks = geo.blocks_per_plane;
            let l = steady::steady_layout(cfg, geo.planes, seed);
            let mut out = Vec::with_capacity(geo.planes as usize * (pre_blocks as usize + 1));
            for (p, counts) in l.planes.iter().enumerate() {
                full_blocks[p] = counts.len() as u32;
                let mut acc = 0u32;
                out.push(0);
                for b in 0..pre_blocks as usize {
                    acc += counts.get(b).copied().unwrap_or(0);
                    out.push(acc);
                }
            }
            out
        }
    };
    (pre_blocks, aged_start)
}

/// The block table and each plane's allocation state: `full_blocks` written blocks per plane
/// (valid pages from the aged layout when `aged`, or `pre` pages in order), the rest free.
fn block_table(
    geo: &Geometry,
    full_blocks: &[u32],
    aged: bool,
    pre: u64,
    pre_blocks: u32,
    aged_start: &[u32],
) -> (Vec<Block>, Vec<PlaneAlloc>) {
    let ppb = geo.pages_per_block;
    let mut blocks = Vec::with_capacity(geo.planes as usize * geo.blocks_per_plane as usize);
    let mut planes = Vec::with_capacity(geo.planes as usize);
    for plane in 0..geo.planes {
        let full = full_blocks[plane as usize];
        for b in 0..geo.blocks_per_plane {
            blocks.push(if b < full {
                let valid = if aged {
                    let s = &aged_start[(plane * (pre_blocks + 1) + b) as usize..];
                    s[1] - s[0]
                } else {
                    (pre - b as u64 * ppb as u64).min(ppb as u64) as u32
                };
                Block {
                    valid,
                    written: ppb,
                    erase_count: 0,
                    p2l: NONE,
                    state: BlockState::Full,
                    opened_seq: 0,
                }
            } else {
                Block {
                    valid: 0,
                    written: 0,
                    erase_count: 0,
                    p2l: NONE,
                    state: BlockState::Free,
                    opened_seq: 0,
                }
            });
        }
        // Free list popped from the end: lowest block index first.
        planes.push(PlaneAlloc {
            free: (full..geo.blocks_per_plane).rev().collect(),
            user: NONE,
            gc: NONE,
            gc_running: 0,
            gc_started_at: 0,
        });
    }
    (blocks, planes)
}
