//! A host read's pages after translation: each page is read from the plane its mapping entry
//! names (a trimmed page is zeros, no flash read); the die scheduler runs the reads, the data
//! path moves the data, and the host interface completes the request.
//!
//! ```text
//! request.rs (fetched) ─▶ read_pages: cache hits from DRAM, the rest ─▶ translate (map.rs)
//!   ─▶ route_read ─▶ die queue (tsu)
//!   ─▶ array read, data out ─▶ [controller model: ECC, bus, DRAM] ─▶ hil: pages done
//! ```

use crate::engine::NONE;
use crate::ssd::ftl::TRIMMED;
use crate::ssd::hil::HilEvent;
use crate::ssd::txn::{DieQueue, Request, Role, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;

impl<Q: DriveQueue> Ssd<Q> {
    /// A translated user read goes to the die queue of the page its entry names.
    #[inline]
    pub(crate) fn route_read(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        let ppa = self.ftl.lookup(x.lpa as u64);
        if ppa == TRIMMED {
            // Deallocated: zeros, known from the mapping entry; no flash read.
            self.ftl.counters.trimmed_page_reads += 1;
            self.free_txn(t);
            let r = x.request().expect("a user read works for a request");
            return self.request_pages_done(now, r, 1);
        }
        let tx = &mut self.txns[t];
        tx.ppa = ppa;
        tx.plane = self.ftl.geo.plane_of_ppa(ppa);
        self.enqueue(now, t, DieQueue::Read);
    }

    /// A fetched read's pages `first..=last`: those the write buffer holds whole come from
    /// DRAM (one movement for all of them), the others are translated.
    pub(crate) fn read_pages(&mut self, now: Ps, id: u32, r: &Request, first: u64, last: u64) {
        let mut hit_pages = 0;
        let mut hit_bytes = 0u64;
        for i in 0..=(last - first) {
            let (lpa, mask) = self.hil.page_of(r, first + i);
            if self.cache.read_hit(lpa, mask) {
                hit_pages += 1;
                hit_bytes += mask.count_ones() as u64 * 512;
                continue;
            }
            let t = self.alloc_txn(
                TxnKind::UserRead,
                Role::Request(id),
                lpa as u32,
                NONE,
                NONE,
                mask.count_ones() * 512,
            );
            self.translate(now, t);
        }
        if hit_pages > 0 {
            let end = self.datapath.dram.reserve(now, now, hit_bytes);
            self.hil.set_dram_pages(id, hit_pages);
            self.q.schedule(end, HilEvent::DramDone { req: id });
        }
    }
}
