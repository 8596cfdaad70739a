//! Address translation as the drive runs it (`ssd/ftl/translate.rs` holds the CMT and the
//! transactions waiting for a translation page): a user transaction's entry is looked up; on
//! a miss its translation page is read (one read serves every waiter) and the entries are
//! cached; a dirty entry leaving the CMT writes its translation page back with every dirty
//! entry of that page (DFTL batch update; MQSim `Address_Mapping_Unit_Page_Level.cpp`
//! 1582-1600), after a merge read of the page's other entries (DFTL §3.3).
//!
//! ```text
//! translate ── Translate::lookup ─┬─ Hit ─▶ route (read.rs: route_read, write.rs: route_write)
//!                                 ├─ Waiting (a read of its page is in flight)
//!                                 └─ Miss ─▶ MapRead ─▶ mapping_read_done ─▶ cmt_insert, route
//! cmt_insert ── Translate::insert ─(dirty victim)─▶ [merge MapRead ─▶] MapWrite
//! ```

use crate::engine::NONE;
use crate::ssd::ftl::translate::Lookup;
use crate::ssd::txn::{DieQueue, Role, Txn, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;

impl<Q: DriveQueue> Ssd<Q> {
    /// Resolve a user transaction's mapping entry, reading its translation page on a miss.
    pub(crate) fn translate(&mut self, now: Ps, t: u32) {
        let tvpn = match self.translate.lookup(&self.ftl, &mut self.txns, t) {
            Lookup::Hit => return self.route(now, t),
            Lookup::Waiting => return,
            Lookup::Miss { tvpn } => tvpn,
        };
        let ppa = self.ftl.translation_page_location(tvpn);
        // One sector holds the entry (ECC codeword granularity); MQSim reads the same.
        let m = self.alloc_txn(
            TxnKind::MapRead,
            Role::Drive,
            tvpn,
            ppa,
            self.ftl.geo.plane_of_ppa(ppa),
            512.min(self.ftl.geo.page_bytes),
        );
        self.enqueue(now, m, DieQueue::MapRead);
    }

    /// A translation page's read finished: the merge read of a write-back (its program goes
    /// on), or a miss's read (its waiters' entries are cached and they go on).
    pub(crate) fn mapping_read_done(&mut self, now: Ps, x: &Txn) {
        self.flash.mapping_reads += 1;
        if let Role::Precedes { write } = x.role {
            return self.enqueue(now, write, DieQueue::Write);
        }
        let list = self.translate.take_waiters(x.lpa);
        let mut w = list.head;
        while w != NONE {
            let next = self.txns[w].next;
            self.cmt_insert(now, self.txns[w].lpa as u64, false);
            self.route(now, w);
            w = next;
        }
    }

    /// Cache `lpa`'s entry (`dirty`: its mapping changed). A dirty entry evicted for it has
    /// its translation page written back with every dirty entry of that page: the page's
    /// other entries are read first to be merged, unless every entry of the page is in the
    /// write-back or the page holds nothing yet; then one program.
    pub(crate) fn cmt_insert(&mut self, now: Ps, lpa: u64, dirty: bool) {
        let Some((victim, entries)) = self.translate.insert(lpa, dirty) else {
            return;
        };
        let tvpn = self.ftl.translation_page_of(victim);
        let plane = self.ftl.plane_of_translation_page(tvpn);
        self.ftl.counters.translation_writebacks += 1;
        self.ftl.counters.translation_entries_written += entries as u64;
        let t = self.alloc_txn(
            TxnKind::MapWrite,
            Role::Drive,
            tvpn,
            NONE,
            plane,
            self.ftl.geo.page_bytes,
        );
        if (entries as u64) < self.ftl.entries_per_translation_page
            && self.ftl.translation_page_holds_data(tvpn)
        {
            // MQSim reads the sectors of the page's *clean cached* entries (1587-1597),
            // the ones it already holds; the merge needs the others: the whole page.
            let ppa = self.ftl.translation_page_location(tvpn);
            let m = self.alloc_txn(
                TxnKind::MapRead,
                Role::Precedes { write: t },
                tvpn,
                ppa,
                self.ftl.geo.plane_of_ppa(ppa),
                self.ftl.geo.page_bytes,
            );
            self.enqueue(now, m, DieQueue::MapRead);
        } else {
            self.enqueue(now, t, DieQueue::Write);
        }
    }

    /// Send a translated user transaction on: a read to its page's die queue, a write to the
    /// plane it will be programmed on.
    #[inline]
    fn route(&mut self, now: Ps, t: u32) {
        match self.txns[t].kind {
            TxnKind::UserRead => self.route_read(now, t),
            TxnKind::UserWrite => self.route_write(now, t),
            _ => unreachable!("only user transactions are translated"),
        }
    }
}
