//! A host request through the host interface (`ssd/hil` holds the queue pairs, the requests
//! and the PCIe link): it is admitted into its flow's namespace, fetched round robin while the
//! controller has room, split into pages (a read's pages: [`super::read`], a write's:
//! [`super::write`]), and completed when its last page is done: a read's data, then the
//! completion entry, go to the host.
//!
//! ```text
//! host ─▶ admit ─▶ submission queue ─▶ fetch (PCIe: entry, write data) ─▶ Fetched
//!   ─▶ on_fetched ─┬─ read: read_pages (read.rs) ──┐
//!                  └─ write: write_pages (write.rs) ┴─▶ ... request_pages_done (last page)
//!   ─▶ [read: system bus, PCIe data] ─▶ completion entry (PCIe) ─▶ Completed ─▶ complete
//! ```

use crate::ssd::hil::HilEvent;
use crate::ssd::txn::{Class, Request};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;
use lagoon_workload::IoRequest;

impl<Q: DriveQueue> Ssd<Q> {
    /// A host request of flow `f` arriving at `arrival` (submitted `now`) becomes request
    /// `id` of the drive, addressed within the flow's namespace.
    pub fn admit(&mut self, now: Ps, f: usize, arrival: Ps, r: &IoRequest) -> u32 {
        let offset = self.hil.offset_in_namespace(f, r);
        // Warm the lookups `translate` will make once the command is fetched (a hint: no
        // effect on results); the first few pages cover most requests.
        for lpa in self.hil.first_lpas(f, offset, r.size_bytes) {
            if self.translate.prefetch(lpa) {
                self.ftl.prefetch_translation(lpa);
            }
            self.ftl.prefetch_mapping(lpa);
        }
        self.hil.alloc(now, f, arrival, offset, r)
    }

    /// The controller fetches submission queue entries round-robin over flows while it has
    /// room.
    pub fn fetch(&mut self, now: Ps) {
        while let Some((id, t)) = self.hil.next_fetch(now) {
            self.q.schedule(t, HilEvent::Fetched { req: id });
        }
    }

    pub fn on_hil_event(&mut self, now: Ps, ev: HilEvent) {
        match ev {
            HilEvent::Fetched { req } => self.on_fetched(now, req),
            HilEvent::DramDone { req } => {
                let pages = self.hil.dram_pages(req);
                self.request_pages_done(now, req, pages)
            }
            HilEvent::Completed { .. } => unreachable!("completions end at the host"),
        }
    }

    /// Request `id` is in the controller: its pages go on.
    fn on_fetched(&mut self, now: Ps, id: u32) {
        let (r, first, last) = self.hil.split(id);
        if r.is_read {
            self.read_pages(now, id, &r, first, last);
        } else {
            self.write_pages(now, id, &r, first, last);
        }
    }

    /// `pages` of request `id` are done; the last one sends the data (reads) and the
    /// completion entry to the host.
    pub(crate) fn request_pages_done(&mut self, now: Ps, id: u32, pages: u32) {
        let Some((is_read, size)) = self.hil.pages_done(id, pages) else {
            return;
        };
        let mut t = now;
        if is_read {
            t = self.datapath.host_bus(t, size, Class::Read);
        }
        let t = self.hil.to_host(t, is_read.then_some(size));
        // The completion entry ends on the FIFO host link: later than every earlier one.
        self.q.schedule_in_order(t, HilEvent::Completed { req: id });
    }

    /// Request `id`'s completion entry reached the host: the drive lets it go (its record is
    /// returned for the host's statistics).
    pub fn complete(&mut self, now: Ps, id: u32) -> Request {
        let r = self.hil.retire(id);
        self.last_completion = now;
        // GC performance while host I/O runs (dSSD §6.1).
        self.datapath
            .gc_ops_during_io(self.flash.gc_reads + self.flash.gc_writes);
        if let Some(tl) = &mut self.timeline {
            tl.io_bytes.add(now, r.size as u64);
        }
        r
    }
}
