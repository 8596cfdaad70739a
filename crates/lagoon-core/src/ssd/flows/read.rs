//! A host read's pages after translation: each page is read from the plane its mapping entry
//! names (a trimmed page is zeros, no flash read); the die scheduler runs the reads, the data
//! path moves the data, and the host interface completes the request.
//!
//! ```text
//! hil (fetched; cache hits from DRAM) ─▶ translate (map.rs) ─▶ route_read ─▶ die queue (tsu)
//!   ─▶ array read, data out ─▶ [controller model: ECC, bus, DRAM] ─▶ hil: pages done
//! ```

use crate::ssd::ftl::TRIMMED;
use crate::ssd::txn::DieQueue;
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
}
