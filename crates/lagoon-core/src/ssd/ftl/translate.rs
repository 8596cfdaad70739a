//! Address translation for user transactions: the cached mapping table (demand-based, as
//! DFTL and MQSim's CMT; none with the ideal table), transactions waiting for a translation
//! page's read (one read serves every waiter), the plane a user write goes to (static or
//! MQSimNet §IV.A's dynamic chip/die mapping) and read-modify-write of partial pages.
//!
//! A dirty entry leaving the CMT writes its translation page back with every other dirty
//! entry of that page (DFTL batch update): one merge read of the page's other entries, then
//! one program ([`Ssd::cmt_insert`]).

use super::cmt::{Cmt, Evicted};
use super::Ftl;
use crate::config::{MappingConfig, SsdConfig};
use crate::engine::{List, NONE};
use crate::ssd::lru::IntMap;
use crate::ssd::txn::{DieQueue, Role, Txn, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;

pub struct Translate {
    cmt: Option<Cmt>,
    /// Translation page → transactions waiting for its read.
    waiters: IntMap<u32, List>,
}

impl Translate {
    pub fn new(cfg: &SsdConfig, ftl: &Ftl) -> Self {
        Self {
            cmt: match cfg.ftl.mapping {
                MappingConfig::Ideal => None,
                MappingConfig::Demand {
                    cmt_bytes,
                    entry_bytes,
                } => Some(Cmt::new(
                    (cmt_bytes / entry_bytes as u64) as usize,
                    ftl.translation_pages(),
                    ftl.entries_per_translation_page,
                )),
            },
            waiters: IntMap::with_capacity_and_hasher(1024, Default::default()),
        }
    }

    /// Warm a lookup of `lpa` (a hint); false without a CMT.
    #[inline]
    pub fn prefetch(&self, lpa: u64) -> bool {
        match &self.cmt {
            Some(c) => {
                c.prefetch(lpa);
                true
            }
            None => false,
        }
    }

    /// Mark a cached entry dirty (a GC relocation of a cached entry).
    #[inline]
    pub fn mark_dirty(&mut self, lpa: u64) {
        if let Some(c) = &mut self.cmt {
            c.mark_dirty(lpa);
        }
    }

    /// Heap bytes the CMT holds (it grows as entries are cached).
    pub fn bytes(&self) -> usize {
        self.cmt.as_ref().map_or(0, |c| c.bytes())
    }
}

impl<Q: DriveQueue> Ssd<Q> {
    /// Resolve a user transaction's mapping entry, reading its translation page on a miss.
    pub(crate) fn translate(&mut self, now: Ps, t: u32) {
        let lpa = self.txns[t].lpa as u64;
        let Some(cmt) = &mut self.translate.cmt else {
            return self.route(now, t);
        };
        if cmt.hit(lpa) {
            return self.route(now, t);
        }
        let tvpn = self.ftl.translation_page_of(lpa);
        if let Some(list) = self.translate.waiters.get_mut(&tvpn) {
            list.push_back(self.txns.items(), t);
            return;
        }
        let mut list = List::EMPTY;
        list.push_back(self.txns.items(), t);
        self.translate.waiters.insert(tvpn, list);
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
        let list = self
            .translate
            .waiters
            .remove(&x.lpa)
            .expect("mapping read without waiters");
        let mut w = list.head;
        while w != NONE {
            let next = self.txns[w].next;
            self.cmt_insert(now, self.txns[w].lpa as u64, false);
            self.route(now, w);
            w = next;
        }
    }

    /// Cache `lpa`'s entry (`dirty`: its mapping changed). A dirty entry evicted for it has
    /// its translation page written back with every dirty entry of that page (DFTL batch
    /// update; MQSim `Address_Mapping_Unit_Page_Level.cpp` 1582-1600): the page's other
    /// entries are read first to be merged (DFTL §3.3), unless every entry of the page is in
    /// the write-back or the page holds nothing yet; then one program.
    pub(crate) fn cmt_insert(&mut self, now: Ps, lpa: u64, dirty: bool) {
        let Some(cmt) = &mut self.translate.cmt else {
            return;
        };
        if let Evicted::Dirty {
            lpa: victim,
            entries,
        } = cmt.insert(lpa, dirty)
        {
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
    }

    /// Send a translated user transaction to its die queue.
    fn route(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        match x.kind {
            TxnKind::UserRead => {
                let ppa = self.ftl.lookup(x.lpa as u64);
                if ppa == super::TRIMMED {
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
            TxnKind::UserWrite => {
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
            _ => unreachable!("only user transactions are translated"),
        }
    }

    /// The plane a user page write goes to ([`super::Ftl::write_plane`], MQSimNet §IV.A). Idle
    /// (our reading of "an idle plane and die"): no operation in progress and nothing queued.
    fn write_plane(&self, lpa: u64) -> u32 {
        let tsu = &self.tsu;
        self.ftl
            .write_plane(lpa, self.cfg.ftl.dynamic_mapping, |d| tsu.die_idle(d))
    }
}
