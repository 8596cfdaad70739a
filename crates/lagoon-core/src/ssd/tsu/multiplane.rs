//! Multi-plane partners: the offset the same-offset rule compares (Venice §2: planes of a die
//! "can concurrently operate only when accessing pages (or blocks) at the same offset"), and
//! per-die counters of the reads waiting at each offset, which end a partner search at once
//! when no waiting read could match (most searches find none, and each step of one reads a
//! scattered transaction).

use super::Q_READ;
use crate::ssd::ftl::{Ftl, Stream};
use crate::ssd::txn::{Txn, TxnKind};

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
    pub fn counts_queue(&self, q: usize) -> bool {
        q <= Q_READ && self.enabled()
    }

    #[inline]
    fn slot(&self, die: usize, q: usize, local: u32, offset: u32) -> usize {
        ((die * 2 + q) * self.planes_per_die + local as usize) * OFFSET_CLASSES
            + offset as usize % OFFSET_CLASSES
    }

    /// A read at `offset` on plane `local` of `die` joined read queue `q`.
    #[inline]
    pub fn add(&mut self, die: usize, q: usize, local: u32, offset: u32) {
        let i = self.slot(die, q, local, offset);
        self.counts[i] += 1;
    }

    /// It left the queue.
    #[inline]
    pub fn remove(&mut self, die: usize, q: usize, local: u32, offset: u32) {
        let i = self.slot(die, q, local, offset);
        self.counts[i] -= 1;
    }

    /// Whether a read at `offset` on a plane outside `used` may wait in queue `q` of `die`.
    #[inline]
    pub fn partner_possible(&self, die: usize, q: usize, used: u32, offset: u32) -> bool {
        let base = self.slot(die, q, 0, offset);
        (0..self.planes_per_die)
            .any(|p| used & (1 << p) == 0 && self.counts[base + p * OFFSET_CLASSES] > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partner_may_wait_only_on_an_unused_plane_at_the_offset_class() {
        let mut r = ReadOffsets::new(2, 2, true);
        assert!(r.counts_queue(Q_READ) && !r.counts_queue(Q_READ + 1));
        r.add(1, Q_READ, 1, 5);
        assert!(r.partner_possible(1, Q_READ, 0b01, 5));
        assert!(!r.partner_possible(1, Q_READ, 0b10, 5), "its plane is used");
        assert!(!r.partner_possible(0, Q_READ, 0b01, 5), "another die");
        assert!(!r.partner_possible(1, 0, 0b01, 5), "another queue");
        // Offsets 64 apart share a counter: it says a partner may wait, no more.
        assert!(r.partner_possible(1, Q_READ, 0b01, 5 + OFFSET_CLASSES as u32));
        r.remove(1, Q_READ, 1, 5);
        assert!(!r.partner_possible(1, Q_READ, 0b01, 5));
        r.disable();
        assert!(!r.enabled() && !r.counts_queue(0));
    }
}
