//! Superblock FTL (Decoupled SSD §5.1): page mapping, allocation one superblock at a time
//! (its pages striped over its sub-blocks), greedy GC of whole superblocks, dynamic wear
//! levelling (the least-erased free superblock is opened next), and bad-block handling: a
//! program into a worn-out block fails; the flash controller replaces the block if it can
//! ([`DynamicSuperblocks`], transparent to the FTL), otherwise the FTL moves the
//! superblock's valid pages elsewhere and retires it (Fig. 6(a) ①).
//!
//! Functional only (no timing): what the lifetime mode runs millions of page writes per
//! second through. Virtual page address (VPA) = `sb * pages_per_superblock + offset`; offset
//! `o` is page `o / width` of sub-block `o % width`.

use super::wear::Endurance;
use crate::config::SsdConfig;
use crate::engine::NONE;
use crate::ssd::dynamic_superblock::DynamicSuperblocks;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    Open,
    Full,
    Retired,
}

#[derive(Clone, Copy, Debug)]
struct Superblock {
    valid: u32,
    written: u32,
    erases: u32,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    User,
    Gc,
}

/// Counters of a lifetime run; pages are flash pages.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SuperblockCounters {
    pub host_page_writes: u64,
    pub gc_page_moves: u64,
    /// Valid pages the FTL moved out of superblocks it retired.
    pub retire_page_moves: u64,
    /// Valid pages a controller copied from a failed sub-block to its replacement (§5.2,
    /// global copyback).
    pub copyback_pages: u64,
    pub superblock_erases: u64,
    pub program_failures: u64,
    pub bad_superblocks: u64,
}

/// A superblock retirement: host pages written and controller remaps done until then.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BadSuperblock {
    pub host_pages: u64,
    pub remaps: u64,
}

/// The drive cannot place a page: every superblock is full of valid data or retired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WornOut;

pub struct SuperblockFtl {
    pub width: u32,
    pub pages_per_superblock: u32,
    pub logical_pages: u64,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    sbs: Vec<Superblock>,
    free: Vec<u32>,
    user: u32,
    gc: u32,
    /// GC keeps this many superblocks free before a user superblock is opened.
    gc_free: u32,
    pub ctl: DynamicSuperblocks,
    pub wear: Endurance,
    pub counters: SuperblockCounters,
    /// Every superblock retired, in order.
    pub bad_log: Vec<BadSuperblock>,
    pub read_only: bool,
}

impl SuperblockFtl {
    /// A fresh (never written) drive holding `logical_pages` of host data at most.
    pub fn new(cfg: &SsdConfig, logical_pages: u64, seed: u64) -> Self {
        let ctl = DynamicSuperblocks::new(cfg);
        let ppb = cfg.flash.pages_per_block;
        let pages_per_superblock = ctl.width * ppb;
        let n = ctl.superblocks;
        let gc_free = ((cfg.ftl.gc_threshold * n as f64).floor() as u32).max(2);
        let wear = Endurance::new(
            ctl.physical_blocks(),
            cfg.wear.pe_mean,
            cfg.wear.pe_sigma,
            seed,
        );
        Self {
            width: ctl.width,
            pages_per_superblock,
            logical_pages,
            l2p: vec![NONE; logical_pages as usize],
            p2l: vec![NONE; n as usize * pages_per_superblock as usize],
            sbs: vec![
                Superblock {
                    valid: 0,
                    written: 0,
                    erases: 0,
                    state: State::Free,
                };
                n as usize
            ],
            // Popped from the end: superblock 0 first.
            free: (0..n).rev().collect(),
            user: NONE,
            gc: NONE,
            gc_free,
            ctl,
            wear,
            counters: SuperblockCounters::default(),
            bad_log: Vec::new(),
            read_only: false,
        }
    }

    pub fn superblocks(&self) -> u32 {
        self.ctl.superblocks
    }

    /// Write logical page `lpa` (host write). `Err`: the drive is worn out and read-only
    /// from now on (a page a retirement could not move stays readable where it is: a bad
    /// block fails programs, not reads).
    pub fn write(&mut self, lpa: u64) -> Result<(), WornOut> {
        if self.read_only {
            return Err(WornOut);
        }
        let vpa = self
            .place(Stream::User, lpa as u32)
            .inspect_err(|_| self.read_only = true)?;
        // Read the old location only now: retiring a superblock may have moved it.
        let old = self.l2p[lpa as usize];
        if old != NONE {
            self.invalidate(old);
        }
        self.l2p[lpa as usize] = vpa;
        self.counters.host_page_writes += 1;
        Ok(())
    }

    #[inline]
    fn invalidate(&mut self, vpa: u32) {
        self.p2l[vpa as usize] = NONE;
        self.sbs[(vpa / self.pages_per_superblock) as usize].valid -= 1;
    }

    /// Program the next page of `stream`'s open superblock with `lpa`; open one if needed.
    fn place(&mut self, stream: Stream, lpa: u32) -> Result<u32, WornOut> {
        loop {
            let sb = match stream {
                Stream::User => self.user,
                Stream::Gc => self.gc,
            };
            let sb = if sb == NONE {
                let s = self.open(stream)?;
                match stream {
                    Stream::User => self.user = s,
                    Stream::Gc => self.gc = s,
                }
                s
            } else {
                sb
            };
            let off = self.sbs[sb as usize].written;
            let slot = off % self.width;
            let pb = self.ctl.block(sb, slot);
            if self.wear.worn_out(pb) {
                self.program_failed(sb, slot)?;
                continue;
            }
            let s = &mut self.sbs[sb as usize];
            s.written += 1;
            s.valid += 1;
            if s.written == self.pages_per_superblock {
                s.state = State::Full;
                match stream {
                    Stream::User => self.user = NONE,
                    Stream::Gc => self.gc = NONE,
                }
            }
            let vpa = sb * self.pages_per_superblock + off;
            self.p2l[vpa as usize] = lpa;
            return Ok(vpa);
        }
    }

    /// Open the least-erased free superblock (dynamic wear levelling); a user superblock
    /// first lets GC refill the free pool.
    fn open(&mut self, stream: Stream) -> Result<u32, WornOut> {
        if stream == Stream::User {
            while self.free.len() as u32 <= self.gc_free {
                if !self.collect()? {
                    break;
                }
            }
        }
        if self.free.is_empty() || (stream == Stream::User && self.free.len() < 2) {
            // The last free superblock stays for GC and retirement moves.
            return Err(WornOut);
        }
        let mut best = self.free.len() - 1;
        for i in (0..self.free.len()).rev() {
            if self.sbs[self.free[i] as usize].erases < self.sbs[self.free[best] as usize].erases {
                best = i;
            }
        }
        let sb = self.free.swap_remove(best);
        self.sbs[sb as usize].state = State::Open;
        Ok(sb)
    }

    /// Greedy GC of one superblock: the full one with the fewest valid pages, ties to the
    /// least erased (so no empty superblock waits out the others' wear). `false` if none
    /// would free anything.
    fn collect(&mut self) -> Result<bool, WornOut> {
        let mut victim = NONE;
        let mut least = (self.pages_per_superblock, 0);
        for (i, s) in self.sbs.iter().enumerate() {
            if s.state == State::Full && s.valid < self.pages_per_superblock {
                let key = (s.valid, s.erases);
                if victim == NONE || key < least {
                    least = key;
                    victim = i as u32;
                }
            }
        }
        if victim == NONE {
            return Ok(false);
        }
        self.move_valid(victim, false)?;
        if self.sbs[victim as usize].state == State::Retired {
            // A program failure while moving cannot retire a full superblock, but be safe.
            return Ok(true);
        }
        for slot in 0..self.width {
            let pb = self.ctl.block(victim, slot);
            self.wear.erase(pb);
        }
        let s = &mut self.sbs[victim as usize];
        *s = Superblock {
            valid: 0,
            written: 0,
            erases: s.erases + 1,
            state: State::Free,
        };
        self.free.push(victim);
        self.counters.superblock_erases += 1;
        Ok(true)
    }

    /// Move every valid page of `sb` to the GC stream.
    fn move_valid(&mut self, sb: u32, retiring: bool) -> Result<(), WornOut> {
        let base = sb * self.pages_per_superblock;
        for off in 0..self.sbs[sb as usize].written {
            let vpa = base + off;
            let lpa = self.p2l[vpa as usize];
            if lpa == NONE {
                continue;
            }
            let to = self.place(Stream::Gc, lpa)?;
            self.invalidate(vpa);
            self.l2p[lpa as usize] = to;
            if retiring {
                self.counters.retire_page_moves += 1;
            } else {
                self.counters.gc_page_moves += 1;
            }
        }
        Ok(())
    }

    /// A program into sub-block `slot` of `sb` failed: the block is bad. The controller
    /// replaces it if it can (copying its valid pages, §5.2 ⑤); else the FTL retires `sb`.
    fn program_failed(&mut self, sb: u32, slot: u32) -> Result<(), WornOut> {
        self.counters.program_failures += 1;
        let failed = self.ctl.block(sb, slot);
        self.wear.mark_bad(failed);
        while let Some(r) = self.ctl.replace(sb, slot) {
            if !self.wear.worn_out(r) {
                let s = &self.sbs[sb as usize];
                let base = sb * self.pages_per_superblock;
                let copied = (slot..s.written)
                    .step_by(self.width as usize)
                    .filter(|&o| self.p2l[(base + o) as usize] != NONE)
                    .count();
                self.counters.copyback_pages += copied as u64;
                return Ok(());
            }
            // A recycled block past its own limit fails its first program as well.
            self.counters.program_failures += 1;
            self.wear.mark_bad(r);
        }
        self.retire(sb)
    }

    /// Fig. 6(a) ①: move the superblock's valid pages to another one; never use it again.
    fn retire(&mut self, sb: u32) -> Result<(), WornOut> {
        self.sbs[sb as usize].state = State::Retired;
        if self.user == sb {
            self.user = NONE;
        }
        if self.gc == sb {
            self.gc = NONE;
        }
        self.counters.bad_superblocks += 1;
        self.bad_log.push(BadSuperblock {
            host_pages: self.counters.host_page_writes,
            remaps: self.ctl.remaps,
        });
        // Worn out mid-move: the rest stays readable in place; the tables still let go of it.
        let moved = self.move_valid(sb, true);
        let wear = &self.wear;
        self.ctl.retire(sb, |pb| !wear.is_bad(pb));
        moved
    }

    /// Physical block holding logical page `lpa`, if written.
    pub fn block_of(&self, lpa: u64) -> Option<u32> {
        let vpa = self.l2p[lpa as usize];
        (vpa != NONE).then(|| {
            let off = vpa % self.pages_per_superblock;
            self.ctl
                .block(vpa / self.pages_per_superblock, off % self.width)
        })
    }

    /// Superblocks holding no data and usable, and those retired.
    pub fn free_superblocks(&self) -> usize {
        self.free.len()
    }

    /// Full scan: every written logical page has exactly one valid page, in a live
    /// superblock and on a good block; every counter matches; the controllers' tables
    /// hold every physical block at most once. O(pages): for tests.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.sbs.len()];
        for (vpa, &lpa) in self.p2l.iter().enumerate() {
            if lpa == NONE {
                continue;
            }
            if self.l2p[lpa as usize] != vpa as u32 {
                return Err(format!(
                    "page {vpa} holds logical {lpa}, which maps elsewhere"
                ));
            }
            valid[vpa / self.pages_per_superblock as usize] += 1;
        }
        for (lpa, &vpa) in self.l2p.iter().enumerate() {
            if vpa == NONE {
                continue;
            }
            if self.p2l[vpa as usize] != lpa as u32 {
                return Err(format!(
                    "logical {lpa} maps to page {vpa}, which does not hold it"
                ));
            }
            let sb = vpa / self.pages_per_superblock;
            let state = self.sbs[sb as usize].state;
            if state == State::Retired && self.read_only {
                continue; // left in place when the drive wore out; still readable
            }
            if matches!(state, State::Free | State::Retired) {
                return Err(format!(
                    "logical {lpa} in superblock {sb}, which is {:?}",
                    self.sbs[sb as usize].state
                ));
            }
            let pb = self.block_of(lpa as u64).expect("written");
            if self.wear.is_bad(pb) {
                return Err(format!("logical {lpa} on bad block {pb}"));
            }
        }
        for (i, s) in self.sbs.iter().enumerate() {
            if s.valid != valid[i] {
                return Err(format!(
                    "superblock {i}: counter {} valid, scan {}",
                    s.valid, valid[i]
                ));
            }
        }
        self.ctl
            .check(|sb| self.sbs[sb as usize].state != State::Retired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{SuperblockMode, SuperblockWidth};
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// 2 channels x 2 ways x 1 die x 2 planes (8 planes), `blocks` blocks of 4 pages.
    fn small(mode: SuperblockMode, sigma: f64, mean: f64, blocks: u32) -> SsdConfig {
        let mut c = SsdConfig::default();
        c.flash.channels = 2;
        c.flash.chips_per_channel = 2;
        c.flash.dies_per_chip = 1;
        c.flash.planes_per_die = 2;
        c.flash.blocks_per_plane = blocks;
        c.flash.pages_per_block = 4;
        c.ftl.gc_threshold = 0.05;
        c.wear.pe_mean = mean;
        c.wear.pe_sigma = sigma;
        c.wear.superblock = mode;
        c.wear.superblock_width = SuperblockWidth::Plane;
        c.wear.srt_entries = 1 << 20;
        c.wear.reserve_fraction = 0.1;
        c.validate().unwrap();
        c
    }

    /// Host pages written (sequentially, over `u` superblocks' worth of logical pages)
    /// when the first superblock is retired.
    fn first_bad_sequential(c: &SsdConfig, u: u64) -> (u64, SuperblockFtl) {
        let probe = SuperblockFtl::new(c, 1, 1);
        let logical = u * probe.pages_per_superblock as u64;
        let mut ftl = SuperblockFtl::new(c, logical, 1);
        let mut lpa = 0;
        while ftl.bad_log.is_empty() {
            if ftl.write(lpa).is_err() {
                break; // with sigma = 0 the whole drive wears out at once
            }
            lpa = (lpa + 1) % logical;
        }
        (
            ftl.bad_log
                .first()
                .expect("a superblock went bad")
                .host_pages,
            ftl,
        )
    }

    /// sigma = 0: every block endures exactly L cycles. Sequential writes move no page in
    /// GC and wear levelling fills every superblock in turn, so each of the S superblocks is
    /// filled L times before one is opened a (L+1)-th time and fails at its first page:
    /// the first bad superblock comes after L x S x pages_per_superblock host pages.
    #[test]
    fn sigma_zero_first_bad_superblock_after_hand_computed_data() {
        let (l, blocks, u) = (7u64, 40u32, 30u64);
        for mode in [SuperblockMode::Static, SuperblockMode::Recycled] {
            let c = small(mode, 0.0, l as f64, blocks);
            let (pages, ftl) = first_bad_sequential(&c, u);
            // 8 planes x 4 pages = 32 pages per superblock, 40 superblocks.
            assert_eq!(ftl.pages_per_superblock, 32);
            assert_eq!(pages, l * 40 * 32, "{mode}");
            assert_eq!(ftl.counters.gc_page_moves, 0);
            let (lo, _, hi) = ftl.wear.erase_stats();
            assert_eq!((lo, hi), (l as u32 - 1, l as u32), "{mode}");
        }
        // RESERV: 10 % of 40 = 4 blocks per plane reserved, 36 superblocks visible. In round
        // L each of the first 4 superblocks opened has all 8 sub-blocks replaced by reserved
        // (fresh) blocks; the 5th finds the RBTs empty: (L x 36 + 4) x 32 pages.
        let c = small(SuperblockMode::Reserv, 0.0, l as f64, blocks);
        let (pages, ftl) = first_bad_sequential(&c, u);
        assert_eq!(ftl.superblocks(), 36);
        assert_eq!(pages, (l * 36 + 4) * 32);
        assert_eq!(ftl.bad_log[0].remaps, 4 * 8);
        ftl.check_consistency().unwrap();
    }

    #[test]
    fn full_srt_falls_back_to_retiring() {
        let mut c = small(SuperblockMode::Reserv, 0.0, 7.0, 40);
        // Two entries per controller: the first superblock of round L needs 4 per controller.
        c.wear.srt_entries = 2;
        let (pages, ftl) = first_bad_sequential(&c, 30);
        // Slots 0-3 are controller 0's: slots 0 and 1 are remapped and written, slot 2
        // finds the SRT full, and the superblock is retired after 2 pages of round L.
        assert_eq!(pages, 7 * 36 * 32 + 2);
        assert_eq!(ftl.bad_log[0].remaps, 2);
        assert!(ftl.ctl.srt_full >= 1);
        ftl.check_consistency().unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// Random overwrites through many bad blocks: no logical page is lost, every one
        /// lives on a good block of a live superblock, and the SRTs and RBTs never hold one
        /// physical block twice.
        #[test]
        // `is_multiple_of` is newer than the workspace's rust-version (1.80).
        #[allow(clippy::manual_is_multiple_of)]
        fn no_page_lost_and_no_block_in_two_superblocks(
            seed in 0u64..1000,
            mode in 0usize..3,
            width in 0usize..3,
        ) {
            let mut c = small(SuperblockMode::ALL[mode], 3.0, 12.0, 48);
            c.wear.superblock_width =
                [SuperblockWidth::Plane, SuperblockWidth::Die, SuperblockWidth::Channel][width];
            c.wear.srt_entries = 6;
            let probe = SuperblockFtl::new(&c, 1, seed);
            let logical = (probe.superblocks() as u64 * probe.pages_per_superblock as u64) * 7 / 10;
            let mut ftl = SuperblockFtl::new(&c, logical, seed);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut written = vec![false; logical as usize];
            let mut i = 0u64;
            loop {
                let lpa = rng.random_range(0..logical);
                if ftl.write(lpa).is_err() {
                    break;
                }
                written[lpa as usize] = true;
                i += 1;
                if i % 5000 == 0 {
                    prop_assert_eq!(ftl.check_consistency(), Ok(()));
                    for (l, &w) in written.iter().enumerate() {
                        prop_assert_eq!(ftl.block_of(l as u64).is_some(), w);
                    }
                }
            }
            prop_assert!(ftl.counters.bad_superblocks > 0);
            prop_assert!(ftl.wear.bad_blocks > 0);
            // Static never remaps; RESERV remaps at its first failure (its RBTs start full);
            // RECYCLED's RBTs start empty, so its first failure retires a superblock, and
            // whether it remaps later depends on where failures fall (seed 517 wears out
            // first).
            let remaps = ftl.ctl.remaps;
            match SuperblockMode::ALL[mode] {
                SuperblockMode::Static => prop_assert_eq!(remaps, 0),
                SuperblockMode::Recycled => prop_assert_eq!(ftl.bad_log[0].remaps, 0),
                SuperblockMode::Reserv => prop_assert!(remaps > 0, "remaps {}", remaps),
            }
            prop_assert_eq!(ftl.check_consistency(), Ok(()));
            for (l, &w) in written.iter().enumerate() {
                prop_assert_eq!(ftl.block_of(l as u64).is_some(), w);
            }
        }
    }
}
