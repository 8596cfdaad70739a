//! Page-level flash translation layer: mapping, block management, allocation and the
//! garbage-collection victim choice. Timing lives elsewhere (the transaction scheduler);
//! this module only keeps the drive's state right.
//!
//! Invariant (checked by [`Ftl::check_consistency`] and the property tests): every
//! logical page that exists maps to exactly one valid physical page, and every block's
//! valid-page counter equals the number of pages in it that their logical page maps to.
//! A trimmed logical page ([`Ftl::trim`], NVMe deallocate / NBD TRIM) maps to none: it holds
//! no physical page until written again, so GC never moves it.

pub mod aged;
pub mod cmt;
pub mod gc;
mod layout;
pub mod mapping;
pub mod steady;
pub mod superblock;
pub mod translate;
mod trim;
pub mod wear;

use crate::config::{DynamicMapping, FtlConfig, GcPolicy, PreconditionMode, SsdConfig};
use crate::engine::NONE;
use crate::flash::Geometry;
use crate::ssd::lru::IntMap;
use mapping::{L2pMap, IMPLICIT};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Map value of a trimmed (deallocated) logical page: no physical page holds it. Physical
/// page numbers stay below 2^31 (config rule), so it names none.
pub const TRIMMED: u32 = u32::MAX - 1;
/// Tag bit in a reverse-map entry: the page holds a translation page (its number below).
pub const MAP_TAG: u32 = 1 << 31;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Open,
    Full,
    /// Chosen by GC: its valid pages are being moved, then it is erased.
    Victim,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    valid: u32,
    /// Pages programmed (or, for precondition blocks, counted as programmed).
    written: u32,
    erase_count: u32,
    /// Index of this block's reverse-map buffer in the pool, or NONE for precondition blocks
    /// (their contents follow from the home-location formula).
    p2l: u32,
    state: BlockState,
    /// When the block was opened (FIFO victim policy).
    opened_seq: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    User,
    Gc,
}

struct PlaneAlloc {
    free: Vec<u32>,
    user: u32,
    gc: u32,
    /// Victims being collected (at most `ftl.gc_victims_per_plane`).
    gc_running: u32,
    /// Free blocks when the last victim started: another starts only below it.
    gc_started_at: u32,
}

/// Counters kept by the FTL.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FtlCounters {
    pub host_page_writes: u64,
    pub gc_page_moves: u64,
    pub translation_page_writes: u64,
    /// Translation-page write-backs decided (a dirty entry left the CMT; DFTL batch update).
    pub translation_writebacks: u64,
    /// Dirty mapping entries those write-backs carried (their mean: entries per write-back).
    pub translation_entries_written: u64,
    pub erases: u64,
    pub gc_runs: u64,
    /// Victims chosen by static wear levelling (`ftl.static_wl_threshold`), also in `gc_runs`.
    pub static_wl_runs: u64,
    /// Reads of logical pages never written (served as if written in preconditioning).
    pub unwritten_page_reads: u64,
    /// User page writes placed away from their static plane (`ftl.dynamic_mapping`).
    pub dynamic_redirects: u64,
    /// Logical pages deallocated by TRIM that held data (absent from reports without TRIM).
    #[serde(skip_serializing_if = "trim::is_zero")]
    pub trimmed_pages: u64,
    /// Page reads of trimmed logical pages: answered with zeros once the mapping entry is
    /// known, without a flash read (absent from reports without them).
    #[serde(skip_serializing_if = "trim::is_zero")]
    pub trimmed_page_reads: u64,
}

pub struct Ftl {
    pub geo: Geometry,
    l2p: L2pMap,
    /// Global translation directory: physical page of each translation page, or IMPLICIT.
    gtd: Vec<u32>,
    blocks: Vec<Block>,
    planes: Vec<PlaneAlloc>,
    p2l_pool: Vec<u32>,
    p2l_free: Vec<u32>,
    pub logical_pages_per_plane: u64,
    pub logical_pages: u64,
    pub precondition_pages_per_plane: u64,
    pub entries_per_translation_page: u64,
    gc_start_blocks: u32,
    static_wl_threshold: u32,
    gc_urgent_blocks: u32,
    gc_victims: u32,
    policy: GcPolicy,
    rng: Xoshiro256PlusPlus,
    seq: u64,
    /// Aged preconditioning: per plane, `aged_blocks + 1` prefix sums of the preconditioned
    /// pages held by its first blocks (block b holds plane pages `start[b]..start[b + 1]` at
    /// its first offsets; its other pages are invalid). Empty for sequential preconditioning.
    aged_start: Vec<u32>,
    aged_blocks: u32,
    /// Valid pages per plane (sum of its blocks' counters).
    plane_valid: Vec<u64>,
    /// GC pages on their way to each plane from other planes (global GC destinations), not
    /// yet allocated: their room is kept from user writes.
    gc_reserved: Vec<u32>,
    /// Written sectors of pages not wholly written (absent: all or none, by `has_data`).
    partial_sectors: IntMap<u64, u64>,
    /// The sector mask of a whole page.
    full_sectors: u64,
    pub counters: FtlCounters,
}

impl Ftl {
    #[inline]
    fn block_index(&self, plane: u32, block: u32) -> usize {
        (plane * self.geo.blocks_per_plane + block) as usize
    }

    /// Home (precondition) location of a logical page; `true` if it was actually written
    /// in preconditioning. Pages beyond the occupancy are served from a page of their plane
    /// as if preconditioned (SPEC 1.2), but hold no space.
    #[inline]
    fn home(&self, lpa: u64) -> (u32, bool) {
        let (plane, k) = self.geo.locate(lpa);
        let pre = self.precondition_pages_per_plane;
        if k < pre {
            (self.precondition_ppa(plane, k), true)
        } else if pre > 0 {
            (self.precondition_ppa(plane, k % pre), false)
        } else {
            // Nothing preconditioned: no layout to look in (an aged or steady one would place
            // page 0 past the plane's last block); the plane's first page stands in.
            (self.geo.ppa(plane, 0, 0), false)
        }
    }

    /// Physical page to read for a logical page ([`TRIMMED`] for a trimmed one).
    #[inline]
    pub fn lookup(&mut self, lpa: u64) -> u32 {
        let p = self.l2p.get(lpa);
        if p != IMPLICIT {
            return p;
        }
        let (ppa, written) = self.home(lpa);
        if !written {
            self.counters.unwritten_page_reads += 1;
        }
        ppa
    }

    /// Whether a logical page holds data (written in the run or in preconditioning).
    #[inline]
    pub fn has_data(&self, lpa: u64) -> bool {
        match self.l2p.get(lpa) {
            IMPLICIT => self.home(lpa).1,
            TRIMMED => false,
            _ => true,
        }
    }

    /// Sectors of a logical page that hold data (sector validity, MQSim's
    /// `WrittenStateBitmap`): every sector of a preconditioned page or of one written whole,
    /// the union of what partial writes wrote on a page first written partially in the run,
    /// none of a page never written.
    #[inline]
    pub fn written_sectors(&self, lpa: u64) -> u64 {
        if let Some(&m) = self.partial_sectors.get(&lpa) {
            return m;
        }
        if self.has_data(lpa) {
            self.full_sectors
        } else {
            0
        }
    }

    /// A write of `sectors` of `lpa` was accepted (its data will be programmed).
    #[inline]
    pub fn note_written_sectors(&mut self, lpa: u64, sectors: u64) {
        let w = self.written_sectors(lpa) | sectors;
        if w == self.full_sectors {
            if !self.partial_sectors.is_empty() {
                self.partial_sectors.remove(&lpa);
            }
        } else {
            self.partial_sectors.insert(lpa, w);
        }
    }

    /// Plane a logical page is written to (static allocation).
    #[inline]
    pub fn plane_of_lpa(&self, lpa: u64) -> u32 {
        self.geo.locate(lpa).0
    }

    /// Translation page holding the mapping entry of `lpa`.
    #[inline]
    pub fn translation_page_of(&self, lpa: u64) -> u32 {
        (lpa / self.entries_per_translation_page) as u32
    }

    /// Plane a translation page is written to (static allocation over translation page numbers).
    #[inline]
    pub fn plane_of_translation_page(&self, tvpn: u32) -> u32 {
        self.geo.locate(tvpn as u64).0
    }

    /// Translation pages (of `entries_per_translation_page` entries each).
    #[inline]
    pub fn translation_pages(&self) -> usize {
        self.gtd.len()
    }

    /// Whether a translation page holds entries on flash: written in the run, or written in
    /// preconditioning (some page of the drive was).
    #[inline]
    pub fn translation_page_holds_data(&self, tvpn: u32) -> bool {
        self.gtd[tvpn as usize] != IMPLICIT || self.precondition_pages_per_plane > 0
    }

    /// Physical page of a translation page. Precondition copies live in a reserved area of
    /// their plane that is not part of the data blocks (a 1/entries_per_page share of space).
    pub fn translation_page_location(&self, tvpn: u32) -> u32 {
        let p = self.gtd[tvpn as usize];
        if p != IMPLICIT {
            p
        } else {
            self.geo.ppa(self.plane_of_translation_page(tvpn), 0, 0)
        }
    }

    /// Whether a user (or translation) write could be placed in `plane` right now; user
    /// writes leave the last free block to GC so collection can always make progress.
    #[inline]
    pub fn can_allocate(&self, plane: u32, stream: Stream) -> bool {
        let pa = &self.planes[plane as usize];
        let frontier = match stream {
            Stream::User => pa.user,
            Stream::Gc => pa.gc,
        };
        if frontier != NONE {
            return true;
        }
        match stream {
            // Besides the last free block, keep the blocks GC pages headed here still need.
            Stream::User => pa.free.len() > 1 + self.reserved_blocks(plane) as usize,
            Stream::Gc => !pa.free.is_empty(),
        }
    }

    /// Free blocks the reserved GC pages of `plane` need beyond its open GC frontier.
    #[inline]
    fn reserved_blocks(&self, plane: u32) -> u32 {
        let r = self.gc_reserved[plane as usize];
        if r == 0 {
            return 0;
        }
        let pa = &self.planes[plane as usize];
        let ppb = self.geo.pages_per_block;
        let frontier = if pa.gc == NONE {
            0
        } else {
            ppb - self.blocks[self.block_index(plane, pa.gc)].written
        };
        r.saturating_sub(frontier).div_ceil(ppb)
    }

    /// GC pages from other planes headed to `plane` and not yet written.
    #[inline]
    pub fn gc_room_reserved(&self, plane: u32) -> u64 {
        self.gc_reserved[plane as usize] as u64
    }

    /// A GC page from another plane is headed to `plane` (global GC destination).
    #[inline]
    pub fn reserve_gc(&mut self, plane: u32) {
        self.gc_reserved[plane as usize] += 1;
    }

    /// The page reserved with [`Self::reserve_gc`] was written (or its move dropped).
    #[inline]
    pub fn release_gc(&mut self, plane: u32) {
        self.gc_reserved[plane as usize] -= 1;
    }

    /// Page offset within its block that the next write of `stream` on `plane` will get
    /// (a block opened for it starts at 0): what the multi-plane rule compares.
    #[inline]
    pub fn next_page_offset(&self, plane: u32, stream: Stream) -> u32 {
        let pa = &self.planes[plane as usize];
        let frontier = match stream {
            Stream::User => pa.user,
            Stream::Gc => pa.gc,
        };
        if frontier == NONE {
            0
        } else {
            self.blocks[self.block_index(plane, frontier)].written
        }
    }

    /// The block the next write of `stream` on `plane` goes to: its open frontier, else the
    /// free block [`Self::open_block`] would take (a remapped drive's window asks which die
    /// that block is on, dSSD Fig. 15).
    #[inline]
    pub fn next_block(&self, plane: u32, stream: Stream) -> u32 {
        let pa = &self.planes[plane as usize];
        let frontier = match stream {
            Stream::User => pa.user,
            Stream::Gc => pa.gc,
        };
        if frontier != NONE || pa.free.is_empty() {
            return frontier.min(self.geo.blocks_per_plane - 1);
        }
        pa.free[self.least_erased_free(plane)]
    }

    /// Index in `plane`'s free list of its least-erased block (the last such one).
    fn least_erased_free(&self, plane: u32) -> usize {
        let base = (plane * self.geo.blocks_per_plane) as usize;
        let free = &self.planes[plane as usize].free;
        let mut best = free.len() - 1;
        for i in (0..free.len()).rev() {
            if self.blocks[base + free[i] as usize].erase_count
                < self.blocks[base + free[best] as usize].erase_count
            {
                best = i;
            }
        }
        best
    }

    fn alloc_page(&mut self, plane: u32, stream: Stream) -> u32 {
        debug_assert!(self.can_allocate(plane, stream));
        let ppb = self.geo.pages_per_block;
        let pa = &self.planes[plane as usize];
        let mut frontier = match stream {
            Stream::User => pa.user,
            Stream::Gc => pa.gc,
        };
        if frontier == NONE {
            frontier = self.open_block(plane);
            let pa = &mut self.planes[plane as usize];
            match stream {
                Stream::User => pa.user = frontier,
                Stream::Gc => pa.gc = frontier,
            }
        }
        let bi = self.block_index(plane, frontier);
        let b = &mut self.blocks[bi];
        let page = b.written;
        b.written += 1;
        if b.written == ppb {
            // A full block leaves the frontier: it may become a GC victim and be erased.
            b.state = BlockState::Full;
            let pa = &mut self.planes[plane as usize];
            match stream {
                Stream::User => pa.user = NONE,
                Stream::Gc => pa.gc = NONE,
            }
        }
        self.geo.ppa(plane, frontier, page)
    }

    /// Take the least-erased free block (dynamic wear levelling).
    fn open_block(&mut self, plane: u32) -> u32 {
        let base = (plane * self.geo.blocks_per_plane) as usize;
        let best = self.least_erased_free(plane);
        let block = self.planes[plane as usize].free.swap_remove(best);
        let buf = match self.p2l_free.pop() {
            Some(b) => b,
            None => {
                let b = (self.p2l_pool.len() / self.geo.pages_per_block as usize) as u32;
                self.p2l_pool.resize(
                    self.p2l_pool.len() + self.geo.pages_per_block as usize,
                    NONE,
                );
                b
            }
        };
        self.seq += 1;
        let blk = &mut self.blocks[base + block as usize];
        debug_assert_eq!(blk.state, BlockState::Free);
        *blk = Block {
            valid: 0,
            written: 0,
            erase_count: blk.erase_count,
            p2l: buf,
            state: BlockState::Open,
            opened_seq: self.seq,
        };
        block
    }

    #[inline]
    fn set_p2l(&mut self, ppa: u32, tag: u32) {
        let bi = self.block_index(self.geo.plane_of_ppa(ppa), self.geo.block_of_ppa(ppa));
        let b = &mut self.blocks[bi];
        b.valid += 1;
        let plane = self.geo.plane_of_ppa(ppa);
        self.plane_valid[plane as usize] += 1;
        let b = &self.blocks[bi];
        let off = (b.p2l as usize) * self.geo.pages_per_block as usize
            + (ppa % self.geo.pages_per_block) as usize;
        self.p2l_pool[off] = tag;
    }

    #[inline]
    fn invalidate(&mut self, ppa: u32) {
        let bi = self.block_index(self.geo.plane_of_ppa(ppa), self.geo.block_of_ppa(ppa));
        debug_assert!(self.blocks[bi].valid > 0);
        self.blocks[bi].valid -= 1;
        self.plane_valid[self.geo.plane_of_ppa(ppa) as usize] -= 1;
    }

    fn invalidate_current(&mut self, lpa: u64) {
        let old = self.l2p.get(lpa);
        if old == TRIMMED {
            return;
        }
        if old != IMPLICIT {
            self.invalidate(old);
        } else {
            let (ppa, written) = self.home(lpa);
            if written {
                self.invalidate(ppa);
            }
        }
    }

    /// The plane a user page write of `lpa` goes to under `mapping` (MQSimNet §IV.A): the
    /// static one, or the first die, from the static one on (wrapping), that `die_idle` says is
    /// idle and whose plane can take a user write, among the chips (`chip`: same die and plane
    /// index) or among all dies (`die`: same plane index). None such: the static plane.
    pub fn write_plane(
        &self,
        lpa: u64,
        mapping: DynamicMapping,
        die_idle: impl Fn(u32) -> bool,
    ) -> u32 {
        let fixed = self.plane_of_lpa(lpa);
        let g = &self.geo;
        let (die, p) = (g.die_of_plane(fixed), fixed % g.planes_per_die);
        let (step, count) = match mapping {
            DynamicMapping::Static => return fixed,
            DynamicMapping::Chip => (g.dies_per_chip, g.chips),
            DynamicMapping::Die => (1, g.dies),
        };
        for k in 0..count {
            let d = (die + k * step) % g.dies;
            let plane = d * g.planes_per_die + p;
            if die_idle(d) && self.can_allocate(plane, Stream::User) {
                return plane;
            }
        }
        fixed
    }

    /// Write a logical page out of place (user stream) in its static plane. Caller checked
    /// `can_allocate`.
    pub fn write(&mut self, lpa: u64) -> u32 {
        self.write_to(lpa, self.plane_of_lpa(lpa))
    }

    /// Write a logical page out of place in `plane` (dynamic mapping may choose another plane
    /// than the static one; the mapping table follows). Caller checked `can_allocate`.
    pub fn write_to(&mut self, lpa: u64, plane: u32) -> u32 {
        if plane != self.plane_of_lpa(lpa) {
            self.counters.dynamic_redirects += 1;
        }
        let ppa = self.alloc_page(plane, Stream::User);
        self.invalidate_current(lpa);
        self.l2p.set(lpa, ppa);
        self.set_p2l(ppa, lpa as u32);
        self.counters.host_page_writes += 1;
        ppa
    }

    /// Write a translation page back (user stream of its plane).
    pub fn write_translation_page(&mut self, tvpn: u32) -> u32 {
        let plane = self.plane_of_translation_page(tvpn);
        let ppa = self.alloc_page(plane, Stream::User);
        let old = self.gtd[tvpn as usize];
        if old != IMPLICIT {
            self.invalidate(old);
        }
        self.gtd[tvpn as usize] = ppa;
        self.set_p2l(ppa, MAP_TAG | tvpn);
        self.counters.translation_page_writes += 1;
        ppa
    }

    /// Reverse-map tag of a physical page if it is valid (the logical page, or
    /// `MAP_TAG | translation page`), else `None`.
    pub fn valid_tag(&self, ppa: u32) -> Option<u32> {
        let plane = self.geo.plane_of_ppa(ppa);
        let block = self.geo.block_of_ppa(ppa);
        let b = &self.blocks[self.block_index(plane, block)];
        let page = ppa % self.geo.pages_per_block;
        if page >= b.written {
            return None;
        }
        if b.p2l == NONE {
            if b.state == BlockState::Free {
                return None;
            }
            let k = self.precondition_index(plane, block, page)?;
            let lpa = self.geo.lpa_of(plane, k);
            return (self.l2p.get(lpa) == IMPLICIT).then_some(lpa as u32);
        }
        let tag = self.p2l_pool[b.p2l as usize * self.geo.pages_per_block as usize + page as usize];
        self.is_current(tag, ppa).then_some(tag)
    }

    /// Whether `tag`'s current location is `ppa` (a GC move is still needed).
    #[inline]
    pub fn is_current(&self, tag: u32, ppa: u32) -> bool {
        if tag == NONE {
            return false;
        }
        if tag & MAP_TAG != 0 {
            return self.gtd[(tag & !MAP_TAG) as usize] == ppa;
        }
        let cur = self.l2p.get(tag as u64);
        if cur != IMPLICIT {
            cur == ppa
        } else {
            let (home, written) = self.home(tag as u64);
            written && home == ppa
        }
    }

    /// Move a still-valid page during GC to the GC frontier of its plane.
    pub fn relocate(&mut self, tag: u32, from: u32) -> u32 {
        self.relocate_to(tag, from, self.geo.plane_of_ppa(from))
    }

    /// Move a still-valid page during GC to the GC frontier of `plane` (its own plane, or
    /// any plane with global free-block selection, dSSD §3); the mapping table follows.
    pub fn relocate_to(&mut self, tag: u32, from: u32, plane: u32) -> u32 {
        debug_assert!(self.is_current(tag, from));
        let ppa = self.alloc_page(plane, Stream::Gc);
        self.invalidate(from);
        if tag & MAP_TAG != 0 {
            self.gtd[(tag & !MAP_TAG) as usize] = ppa;
        } else {
            self.l2p.set(tag as u64, ppa);
        }
        self.set_p2l(ppa, tag);
        self.counters.gc_page_moves += 1;
        ppa
    }

    #[inline]
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.planes[plane as usize].free.len() as u32
    }

    /// Valid pages held by `plane`.
    #[inline]
    pub fn plane_valid(&self, plane: u32) -> u64 {
        self.plane_valid[plane as usize]
    }

    /// Pages GC may still send into `plane` from elsewhere without taking its last free
    /// block: what is left of its GC frontier plus every free block but one, less the pages
    /// already reserved there. Global GC destinations are bounded by it, so a plane's last
    /// free block stays for its own GC.
    #[inline]
    pub fn gc_room(&self, plane: u32) -> u64 {
        self.gc_room_total(plane)
            .saturating_sub(self.gc_reserved[plane as usize] as u64)
    }

    #[inline]
    fn gc_room_total(&self, plane: u32) -> u64 {
        let pa = &self.planes[plane as usize];
        let ppb = self.geo.pages_per_block as u64;
        let frontier = if pa.gc == NONE {
            0
        } else {
            ppb - self.blocks[self.block_index(plane, pa.gc)].written as u64
        };
        frontier + (pa.free.len() as u64).saturating_sub(1) * ppb
    }

    /// GC is running in `plane` (a victim is being collected).
    #[inline]
    pub fn gc_active(&self, plane: u32) -> bool {
        self.planes[plane as usize].gc_running > 0
    }

    /// Valid-page count of every block, by (plane, block), as the counters hold it.
    pub fn block_valid_counts(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        let bpp = self.geo.blocks_per_plane;
        self.blocks
            .iter()
            .enumerate()
            .map(move |(i, b)| (i as u32 / bpp, i as u32 % bpp, b.valid))
    }

    /// GC is due in `plane`: free blocks below the threshold, and no victim running, or (with
    /// `ftl.gc_victims_per_plane` > 1, MQSim's `Check_gc_required` at each block allocation,
    /// `GC_and_WL_Unit_Page_Level.cpp` 43-52) fewer than that many and fewer free blocks than
    /// when the last one started.
    #[inline]
    pub fn gc_due(&self, plane: u32) -> bool {
        let pa = &self.planes[plane as usize];
        let free = pa.free.len() as u32;
        free < self.gc_start_blocks
            && (pa.gc_running == 0 || (pa.gc_running < self.gc_victims && free < pa.gc_started_at))
    }

    /// Free blocks so low that GC work takes priority over user I/O on this plane.
    #[inline]
    pub fn gc_urgent(&self, plane: u32) -> bool {
        (self.planes[plane as usize].free.len() as u32) < self.gc_urgent_blocks
    }

    /// Choose a victim block and mark GC active. Returns `None` if no full block would free
    /// any space (every candidate fully valid).
    pub fn start_gc(&mut self, plane: u32) -> Option<u32> {
        let base = (plane * self.geo.blocks_per_plane) as usize;
        let ppb = self.geo.pages_per_block;
        let candidates = (0..self.geo.blocks_per_plane).filter(|&b| {
            let blk = &self.blocks[base + b as usize];
            blk.state == BlockState::Full && blk.valid < ppb
        });
        let victim = match self.policy {
            // Venice §2: the block with the least valid pages; ties to the least worn.
            GcPolicy::Greedy => candidates.min_by_key(|&b| {
                (
                    self.blocks[base + b as usize].valid,
                    self.blocks[base + b as usize].erase_count,
                )
            }),
            GcPolicy::Fifo => candidates.min_by_key(|&b| self.blocks[base + b as usize].opened_seq),
            GcPolicy::Random => {
                let n = candidates.clone().count();
                if n == 0 {
                    None
                } else {
                    let pick = self.rng.random_range(0..n);
                    candidates.clone().nth(pick)
                }
            }
        }?;
        self.blocks[base + victim as usize].state = BlockState::Victim;
        let pa = &mut self.planes[plane as usize];
        pa.gc_running += 1;
        pa.gc_started_at = pa.free.len() as u32;
        self.counters.gc_runs += 1;
        Some(victim)
    }

    /// Static wear levelling (MQSim `GC_and_WL_Unit_Base::run_static_wearleveling`): if no
    /// GC runs in `plane` and its erase counts differ by at least `ftl.static_wl_threshold`,
    /// make its least-erased block (ties to the lowest) a victim and mark GC active, if that
    /// block is full and its valid pages fit the GC room. `None` otherwise. One pass over the
    /// plane's blocks, after an erase (not per page).
    pub fn start_static_wl(&mut self, plane: u32) -> Option<u32> {
        if self.static_wl_threshold == 0 || self.planes[plane as usize].gc_running > 0 {
            return None;
        }
        let base = (plane * self.geo.blocks_per_plane) as usize;
        let blocks = &self.blocks[base..base + self.geo.blocks_per_plane as usize];
        let (mut victim, mut hi) = (0, 0);
        for (i, b) in blocks.iter().enumerate() {
            if b.erase_count < blocks[victim].erase_count {
                victim = i;
            }
            hi = hi.max(b.erase_count);
        }
        // The least-erased block itself, or nothing (MQSim: an unsafe candidate, free or
        // open, skips the round). Another full block would be younger than needed and could
        // level forever; this one's erase raises the plane's minimum, so rounds end.
        let blk = &blocks[victim];
        if hi - blk.erase_count < self.static_wl_threshold
            || blk.state != BlockState::Full
            || blk.valid as u64 > self.gc_room_total(plane)
        {
            return None;
        }
        self.blocks[base + victim].state = BlockState::Victim;
        let pa = &mut self.planes[plane as usize];
        pa.gc_running += 1;
        pa.gc_started_at = pa.free.len() as u32;
        self.counters.gc_runs += 1;
        self.counters.static_wl_runs += 1;
        Some(victim as u32)
    }

    /// Start loading what a lookup of `lpa`'s mapping will read (a hint: no effect on results).
    #[inline]
    pub fn prefetch_mapping(&self, lpa: u64) {
        self.l2p.prefetch(lpa);
    }

    /// Start loading the translation-directory entry a CMT miss on `lpa` reads (hundreds of
    /// KB on a large drive; a hint: no effect on results).
    #[inline]
    pub fn prefetch_translation(&self, lpa: u64) {
        if let Some(e) = self.gtd.get(self.translation_page_of(lpa) as usize) {
            crate::ssd::prefetch(e);
        }
    }

    /// Visit the valid pages of a block as (ppa, tag).
    pub fn for_each_valid(&self, plane: u32, block: u32, mut f: impl FnMut(u32, u32)) {
        for page in 0..self.geo.pages_per_block {
            let ppa = self.geo.ppa(plane, block, page);
            if let Some(tag) = self.valid_tag(ppa) {
                f(ppa, tag);
            }
        }
    }

    pub fn valid_pages(&self, plane: u32, block: u32) -> u32 {
        self.blocks[self.block_index(plane, block)].valid
    }

    /// Erase finished: the block is free again; GC of its plane is done.
    pub fn erase_done(&mut self, plane: u32, block: u32) {
        let bi = self.block_index(plane, block);
        let b = &mut self.blocks[bi];
        debug_assert_eq!(b.valid, 0, "erasing a block with valid pages");
        if b.p2l != NONE {
            let off = b.p2l as usize * self.geo.pages_per_block as usize;
            self.p2l_pool[off..off + self.geo.pages_per_block as usize].fill(NONE);
            self.p2l_free.push(b.p2l);
        }
        *b = Block {
            valid: 0,
            written: 0,
            erase_count: b.erase_count + 1,
            p2l: NONE,
            state: BlockState::Free,
            opened_seq: 0,
        };
        let pa = &mut self.planes[plane as usize];
        pa.free.push(block);
        pa.gc_running = pa.gc_running.saturating_sub(1);
        self.counters.erases += 1;
    }

    /// Erase counts over all blocks: (min, mean, max).
    pub fn wear(&self) -> (u32, f64, u32) {
        let (mut lo, mut hi, mut sum) = (u32::MAX, 0, 0u64);
        for b in &self.blocks {
            lo = lo.min(b.erase_count);
            hi = hi.max(b.erase_count);
            sum += b.erase_count as u64;
        }
        (lo, sum as f64 / self.blocks.len() as f64, hi)
    }

    /// Bytes of the state that grows as a run writes: materialized map chunks and the
    /// reverse maps of blocks written during the run (the memory guard's measure).
    pub fn grown_bytes(&self) -> usize {
        self.l2p.materialized_bytes()
            + self.p2l_pool.capacity() * 4
            + self.partial_sectors.capacity() * 17
    }

    /// Bytes of mapping and block state (for memory reporting).
    pub fn state_bytes(&self) -> usize {
        self.l2p.bytes()
            + self.gtd.len() * 4
            + self.blocks.len() * std::mem::size_of::<Block>()
            + self.p2l_pool.capacity() * 4
            + self.aged_start.capacity() * 4
            + self
                .planes
                .iter()
                .map(|p| p.free.capacity() * 4)
                .sum::<usize>()
    }

    /// Full scan of the mapping invariant. O(physical pages): for tests and `--check`.
    pub fn check_consistency(&self) -> Result<(), String> {
        let g = &self.geo;
        let mut valid_total = 0u64;
        for plane in 0..g.planes {
            for block in 0..g.blocks_per_plane {
                let b = &self.blocks[self.block_index(plane, block)];
                let mut n = 0;
                self.for_each_valid(plane, block, |_, _| n += 1);
                if n != b.valid {
                    return Err(format!(
                        "plane {plane} block {block}: counter says {} valid pages, scan finds {n}",
                        b.valid
                    ));
                }
                if b.state == BlockState::Free && n != 0 {
                    return Err(format!(
                        "plane {plane} block {block}: free block holds {n} valid pages"
                    ));
                }
                valid_total += n as u64;
            }
        }
        // Every logical page in the preconditioned range or written since has exactly one
        // valid physical page: count them independently of the scan above.
        let mut expected = 0u64;
        for plane in 0..g.planes {
            for k in 0..self.precondition_pages_per_plane {
                if self.l2p.get(g.lpa_of(plane, k)) == IMPLICIT {
                    expected += 1;
                }
            }
        }
        for (lpa, ppa) in self.l2p.written() {
            if ppa == TRIMMED {
                // Holds no page; a valid page tagged with it would fail `valid_tag` (the
                // map must point at it) and so be missing from the scan's count.
                continue;
            }
            if self.valid_tag(ppa) != Some(lpa as u32) {
                return Err(format!(
                    "logical page {lpa} maps to physical page {ppa}, which does not hold it"
                ));
            }
            expected += 1;
        }
        for (t, &ppa) in self.gtd.iter().enumerate() {
            if ppa != IMPLICIT {
                if self.valid_tag(ppa) != Some(MAP_TAG | t as u32) {
                    return Err(format!(
                        "translation page {t} maps to physical page {ppa}, which does not hold it"
                    ));
                }
                expected += 1;
            }
        }
        if expected != valid_total {
            return Err(format!(
                "{expected} live logical/translation pages but {valid_total} valid physical pages"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
