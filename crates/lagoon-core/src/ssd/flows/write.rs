//! A host write through the write buffer (`cache.enabled`): its pages are buffered as slots
//! allow ([`WriteBuffer::admit`](crate::ssd::cache::WriteBuffer::admit)), the rest waits;
//! the buffer's destages become user programs that go to translation; a finished destage
//! frees its slot (or programs the page again) and wakes the writes waiting for one.
//!
//! ```text
//! request.rs (fetched) ─▶ write_pages ─▶ [no buffer: DRAM, translate each page]
//!   ─▶ buffer_write ─▶ cache.admit ─┬─ Full: wait for a slot ◀── wake_buffer_waiters
//!                                   └─ Buffered: destage (evicted, then own page)
//!   ─▶ data over the system bus into DRAM ─▶ DramDone (hil completes the request's pages)
//! destage (or a written-through page) ─▶ translate (map.rs) ─▶ route_write: plane, [RMW read]
//!   ─▶ die queue (tsu) ... program done ─▶ user_program_done
//! ```

use crate::engine::NONE;
use crate::ssd::cache::Admitted;
use crate::ssd::hil::HilEvent;
use crate::ssd::txn::{Class, DieQueue, Request, Role, Txn, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;

impl<Q: DriveQueue> Ssd<Q> {
    /// A fetched write's pages `first..=last`: into the write buffer, or (no buffer) into
    /// DRAM and on to translation, each page programmed for the request (written through).
    pub(crate) fn write_pages(&mut self, now: Ps, id: u32, r: &Request, first: u64, last: u64) {
        if self.cache.enabled() {
            return self.buffer_write(now, id);
        }
        self.datapath.write_into_dram(now, r.size);
        for i in 0..=(last - first) {
            let (lpa, mask) = self.hil.page_of(r, first + i);
            let t = self.alloc_txn(
                TxnKind::UserWrite,
                Role::Request(id),
                lpa as u32,
                NONE,
                NONE,
                mask.count_ones() * 512,
            );
            self.translate(now, t);
        }
    }

    /// Buffer a write's pages in DRAM, as far as slots allow; the rest waits.
    pub(crate) fn buffer_write(&mut self, now: Ps, id: u32) {
        let r = *self.hil.request(id);
        let n = r.pending;
        let mut k = r.next_page;
        while k < n {
            let (lpa, mask) = self.hil.page(id, k as u64);
            match self.cache.admit(now, lpa, mask) {
                Admitted::Full => {
                    self.hil.wait_for_buffer(self.cache.waiters(), id, k);
                    return;
                }
                Admitted::Buffered { evicted, program } => {
                    if let Some((v, counted)) = evicted {
                        self.destage(now, v, counted);
                    }
                    if let Some(counted) = program {
                        self.destage(now, lpa, counted);
                    }
                }
            }
            k += 1;
        }
        self.hil.set_next_page(id, n);
        let b = self.write_bus(now, r.size);
        let end = self.datapath.dram.reserve(now, b, r.size as u64);
        self.hil.set_dram_pages(id, n);
        crate::engine::Queue::schedule(&mut self.q, end, HilEvent::DramDone { req: id });
    }

    /// Program buffered page `lpa` (a destage); `counted`: the sectors it holds against the
    /// policy's back-pressure, kept on the transaction until it ends.
    fn destage(&mut self, now: Ps, lpa: u64, counted: Option<u32>) {
        let role = Role::Destage {
            sectors: counted.unwrap_or(0),
        };
        let t = self.alloc_txn(TxnKind::UserWrite, role, lpa as u32, NONE, NONE, 0);
        self.translate(now, t);
    }

    /// A flush arrived: pages the policy keeps dirty without a program (MQSim's rewrites in
    /// DRAM) are written back now, so the flush can complete. Lagoon's policy has none.
    pub(crate) fn write_back_dirty(&mut self, now: Ps) {
        let Some(dirty) = self.cache.take_dirty() else {
            return;
        };
        for (lpa, sectors) in dirty {
            self.destage(now, lpa, Some(sectors.count_ones()));
        }
    }

    /// Writes parked for a slot retry, oldest first, while the first finds room.
    fn wake_buffer_waiters(&mut self, now: Ps) {
        while let Some(id) = self.cache.first_waiter() {
            let k = self.hil.request(id).next_page;
            let (lpa, _) = self.hil.page(id, k as u64);
            if !self.cache.has_room(lpa) {
                return;
            }
            self.hil.pop_waiter(self.cache.waiters());
            self.buffer_write(now, id);
        }
    }

    /// A user page program finished: its request's page is done (written through), or its
    /// buffer slot is released (or programmed again if newer data arrived meanwhile).
    pub(crate) fn user_program_done(&mut self, now: Ps, x: &Txn) {
        let sectors = match x.role {
            // Acknowledged when its data reached the chip.
            Role::Acked => return,
            Role::Request(r) => return self.request_pages_done(now, r, 1),
            Role::Destage { sectors } => sectors,
            r => unreachable!("a user program for {r:?}"),
        };
        if self.cache.program_done(now, x.lpa as u64, sectors as u64) {
            let role = Role::Destage { sectors: 0 };
            let n = self.alloc_txn(TxnKind::UserWrite, role, x.lpa, NONE, NONE, 0);
            self.translate(now, n);
        } else {
            self.wake_buffer_waiters(now);
        }
    }

    /// A translated user write goes to the plane it will be programmed on; sectors written
    /// before that it does not cover are read first (read-modify-write), then the merged
    /// full page is programmed.
    #[inline]
    pub(crate) fn route_write(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        let lpa = x.lpa as u64;
        let page = self.ftl.geo.page_bytes;
        // New data: the buffered sectors (destage) or the request's (no cache).
        let new = match x.role {
            Role::Request(r) => self.hil.sectors_of(r, lpa),
            _ => self.cache.buffered_sectors(lpa),
        };
        let covered = new.count_ones() * 512;
        let plane = self.write_plane(lpa);
        self.txns[t].plane = plane;
        // Sectors written before that this write does not cover (MQSim's
        // WrittenStateBitmap & ~write_sectors_bitmap).
        let missing = self.ftl.written_sectors(lpa) & !new;
        self.ftl.note_written_sectors(lpa, new);
        if missing != 0 {
            // Read them first, then program the merged full page (read-modify-write).
            self.txns[t].bytes = page;
            let old = self.ftl.lookup(lpa);
            let rd = self.alloc_txn(
                TxnKind::RmwRead,
                Role::Precedes { write: t },
                x.lpa,
                old,
                self.ftl.geo.plane_of_ppa(old),
                missing.count_ones() * 512,
            );
            self.enqueue(now, rd, DieQueue::Read);
        } else {
            self.txns[t].bytes = covered;
            self.enqueue(now, t, DieQueue::Write);
        }
    }

    /// Host data between the host interface and DRAM of a write (`Class::Write`).
    pub(crate) fn write_bus(&mut self, now: Ps, bytes: u32) -> Ps {
        self.datapath.host_bus(now, bytes, Class::Write)
    }

    /// The plane a user page write goes to ([`crate::ssd::ftl::Ftl::write_plane`], MQSimNet
    /// §IV.A). Idle (our reading of "an idle plane and die"): no operation in progress and
    /// nothing queued.
    fn write_plane(&self, lpa: u64) -> u32 {
        let tsu = &self.tsu;
        self.ftl
            .write_plane(lpa, self.cfg.ftl.dynamic_mapping, |d| tsu.die_idle(d))
    }
}
