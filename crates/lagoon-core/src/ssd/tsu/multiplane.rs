//! Multi-plane partners: the offset the same-offset rule compares (Venice §2: planes of a die
//! "can concurrently operate only when accessing pages (or blocks) at the same offset"), and
//! per-die counters of the reads waiting at each offset, which end a partner search at once
//! when no waiting read could match (most searches find none, and each step of one reads a
//! scattered transaction).
//!
//! Programs: a write gets its page when its die starts it (the plane's write frontier, so a
//! block's pages are programmed in order), and two planes pair only while their frontiers are
//! at the same offset. A single-plane program moves one frontier ahead of the other, and if
//! the next program again starts on the plane ahead they drift apart for good. MQSim assigns
//! the page when the transaction is created (`Address_Mapping_Unit_Page_Level.cpp`,
//! `allocate_page_in_plane_for_user_write`) and pairs any two queued at equal `PageID`
//! (`TSU_Base.cpp` 86-97), so its queued writes of two planes cover ranges of offsets and
//! pair wherever the ranges overlap, programming pages out of order within a block (which
//! NAND forbids). [`WriteOffsets`] gets the same pairs with in-order programs: when the
//! die's planes with writes waiting are at different offsets, its next program starts on the
//! plane that is behind (the one the others are fewest pages ahead of, counted around the
//! block), which brings the frontiers back in line.

use crate::ssd::ftl::{Ftl, Stream};
use crate::ssd::txn::{DieQueue, Txn, TxnKind};

/// Page offsets told apart by the counters: offsets equal modulo this share a counter, which
/// then only says a partner may wait.
pub const OFFSET_CLASSES: usize = 64;

/// The offset the same-offset rule compares: the page offset in its block that a read reads
/// or a write will program, or an erase's block offset.
#[inline]
pub fn plane_offset(ftl: &Ftl, x: &Txn) -> u32 {
    let g = &ftl.geo;
    match x.kind {
        TxnKind::UserRead
        | TxnKind::MapRead
        | TxnKind::RmwRead
        | TxnKind::GcRead
        | TxnKind::ScanRead => x.ppa % g.pages_per_block,
        TxnKind::UserWrite | TxnKind::MapWrite => ftl.next_page_offset(x.plane, Stream::User),
        TxnKind::GcWrite | TxnKind::Copyback => ftl.next_page_offset(x.plane, Stream::Gc),
        TxnKind::Erase => g.block_of_ppa(x.ppa),
    }
}

/// Reads waiting in each die's two read queues (mapping reads, user reads), counted by plane
/// in the die and page offset modulo [`OFFSET_CLASSES`]. Kept only under the same-offset rule
/// with out-of-order dies and no block remap, where the read queues hold only reads.
pub struct ReadOffsets {
    counts: Vec<u32>,
    planes_per_die: usize,
}

impl ReadOffsets {
    pub fn new(dies: usize, planes_per_die: u32, on: bool) -> Self {
        Self {
            counts: if on {
                vec![0; dies * 2 * planes_per_die as usize * OFFSET_CLASSES]
            } else {
                Vec::new()
            },
            planes_per_die: planes_per_die as usize,
        }
    }

    #[inline(always)]
    pub fn enabled(&self) -> bool {
        !self.counts.is_empty()
    }

    /// No counters from now on (a block remap may forward a read to another die).
    pub fn disable(&mut self) {
        self.counts = Vec::new();
    }

    /// Whether queue `q` is counted (the two read queues, when counters are kept).
    #[inline(always)]
    pub fn counts_queue(&self, q: DieQueue) -> bool {
        q <= DieQueue::Read && self.enabled()
    }

    #[inline]
    fn slot(&self, die: usize, q: DieQueue, local: u32, offset: u32) -> usize {
        ((die * 2 + q.idx()) * self.planes_per_die + local as usize) * OFFSET_CLASSES
            + offset as usize % OFFSET_CLASSES
    }

    /// A read at `offset` on plane `local` of `die` joined read queue `q`.
    #[inline]
    pub fn add(&mut self, die: usize, q: DieQueue, local: u32, offset: u32) {
        let i = self.slot(die, q, local, offset);
        self.counts[i] += 1;
    }

    /// It left the queue.
    #[inline]
    pub fn remove(&mut self, die: usize, q: DieQueue, local: u32, offset: u32) {
        let i = self.slot(die, q, local, offset);
        self.counts[i] -= 1;
    }

    /// Whether a read at `offset` on a plane outside `used` may wait in queue `q` of `die`.
    #[inline]
    pub fn partner_possible(&self, die: usize, q: DieQueue, used: u32, offset: u32) -> bool {
        let base = self.slot(die, q, 0, offset);
        (0..self.planes_per_die)
            .any(|p| used & (1 << p) == 0 && self.counts[base + p * OFFSET_CLASSES] > 0)
    }
}

/// Writes waiting in each die's two write queues (user and mapping writes; GC writes and
/// copybacks), counted by plane in the die. Kept only under the same-offset rule with
/// out-of-order dies and no block remap.
pub struct WriteOffsets {
    counts: Vec<u32>,
    planes_per_die: usize,
}

impl WriteOffsets {
    pub fn new(dies: usize, planes_per_die: u32, on: bool) -> Self {
        Self {
            counts: if on {
                vec![0; dies * 2 * planes_per_die as usize]
            } else {
                Vec::new()
            },
            planes_per_die: planes_per_die as usize,
        }
    }

    /// No counters from now on (a block remap may forward a write to another die).
    pub fn disable(&mut self) {
        self.counts = Vec::new();
    }

    /// The counted class of queue `q` (the stream its writes program), if counted.
    #[inline(always)]
    pub fn class(&self, q: DieQueue) -> Option<Stream> {
        if self.counts.is_empty() {
            return None;
        }
        match q {
            DieQueue::Write => Some(Stream::User),
            DieQueue::GcWrite => Some(Stream::Gc),
            _ => None,
        }
    }

    #[inline]
    fn slot(&self, die: usize, class: Stream, local: u32) -> usize {
        (die * 2 + class as usize) * self.planes_per_die + local as usize
    }

    /// A write for plane `local` of `die` joined (or, `delta` = -1, left) a counted queue.
    #[inline]
    pub fn add(&mut self, die: usize, class: Stream, local: u32, delta: i32) {
        let i = self.slot(die, class, local);
        self.counts[i] = self.counts[i].wrapping_add_signed(delta);
    }

    /// The offset the die's next program of `class` should start at, when its planes with
    /// writes waiting (and room for them, `can_allocate`) are at different offsets: the one
    /// most of them are at (the largest program now), and among those the one the others are
    /// fewest pages ahead of, counted around a block of `ppb` pages (the planes behind catch
    /// up; ties to the lower offset). With two planes, always the plane behind. `None`: at most
    /// one such plane, or all at one offset.
    pub fn target(
        &self,
        ftl: &Ftl,
        die: usize,
        stream: Stream,
        can_allocate: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let ppd = self.planes_per_die;
        let ppb = ftl.geo.pages_per_block;
        let mut offsets = [0u32; super::MAX_PLANES];
        let mut n = 0;
        let base = self.slot(die, stream, 0);
        for p in 0..ppd {
            let plane = (die * ppd + p) as u32;
            if self.counts[base + p] > 0 && can_allocate(plane) {
                offsets[n] = ftl.next_page_offset(plane, stream);
                n += 1;
            }
        }
        let offsets = &offsets[..n];
        if n < 2 || offsets.iter().all(|&o| o == offsets[0]) {
            return None;
        }
        offsets
            .iter()
            .map(|&o| {
                let at = offsets.iter().filter(|&&k| k == o).count();
                let ahead: u32 = offsets.iter().map(|&k| (k + ppb - o) % ppb).sum();
                (std::cmp::Reverse(at), ahead, o)
            })
            .min()
            .map(|(_, _, o)| o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partner_may_wait_only_on_an_unused_plane_at_the_offset_class() {
        let mut r = ReadOffsets::new(2, 2, true);
        assert!(r.counts_queue(DieQueue::Read) && !r.counts_queue(DieQueue::Write));
        r.add(1, DieQueue::Read, 1, 5);
        assert!(r.partner_possible(1, DieQueue::Read, 0b01, 5));
        assert!(
            !r.partner_possible(1, DieQueue::Read, 0b10, 5),
            "its plane is used"
        );
        assert!(
            !r.partner_possible(0, DieQueue::Read, 0b01, 5),
            "another die"
        );
        assert!(
            !r.partner_possible(1, DieQueue::MapRead, 0b01, 5),
            "another queue"
        );
        // Offsets 64 apart share a counter: it says a partner may wait, no more.
        assert!(r.partner_possible(1, DieQueue::Read, 0b01, 5 + OFFSET_CLASSES as u32));
        r.remove(1, DieQueue::Read, 1, 5);
        assert!(!r.partner_possible(1, DieQueue::Read, 0b01, 5));
        r.disable();
        assert!(!r.enabled() && !r.counts_queue(DieQueue::MapRead));
    }

    #[test]
    fn the_next_program_starts_on_the_plane_that_is_behind_around_the_block() {
        let cfg = crate::testing::tiny();
        let mut ftl = Ftl::new(&cfg, 1);
        let g = ftl.geo.clone();
        let on = |plane: u32, n: usize| -> Vec<u64> {
            (0u64..)
                .filter(|&l| g.locate(l).0 == plane)
                .take(n)
                .collect()
        };
        let mut w = WriteOffsets::new(g.dies as usize, g.planes_per_die, true);
        assert_eq!(w.class(DieQueue::Write), Some(Stream::User));
        assert_eq!(w.class(DieQueue::GcWrite), Some(Stream::Gc));
        assert_eq!(w.class(DieQueue::Read), None);
        // Die 0: writes wait for both planes, frontiers at 0 and 0: no constraint.
        w.add(0, Stream::User, 0, 1);
        w.add(0, Stream::User, 1, 1);
        assert_eq!(w.target(&ftl, 0, Stream::User, |_| true), None);
        // Plane 1 three pages ahead: start on plane 0 (offset 0).
        for l in on(1, 3) {
            ftl.write(l);
        }
        assert_eq!(w.target(&ftl, 0, Stream::User, |_| true), Some(0));
        // Plane 0 at 15 (one short of the end of its 16-page block), plane 1 at 3: plane 0 is
        // behind by 4 pages around the block, plane 1 ahead of it; start on plane 0.
        for l in on(0, 15) {
            ftl.write(l);
        }
        assert_eq!(w.target(&ftl, 0, Stream::User, |_| true), Some(15));
        // A plane with nothing waiting, or no room, is not a candidate.
        w.add(0, Stream::User, 0, -1);
        assert_eq!(w.target(&ftl, 0, Stream::User, |_| true), None);
        w.add(0, Stream::User, 0, 1);
        assert_eq!(w.target(&ftl, 0, Stream::User, |p| p != 0), None);
        // GC writes are counted apart.
        assert_eq!(w.target(&ftl, 0, Stream::Gc, |_| true), None);
    }
}
