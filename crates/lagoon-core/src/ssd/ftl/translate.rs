//! Address translation for user transactions: the cached mapping table (demand-based, as
//! DFTL and MQSim's CMT; none with the ideal table), transactions waiting for a translation
//! page's read (one read serves every waiter), the plane a user write goes to (static or
//! MQSimNet §IV.A's dynamic chip/die mapping) and read-modify-write of partial pages.
//!
//! A dirty entry leaving the CMT writes its translation page back with every other dirty
//! entry of that page (DFTL batch update): one merge read of the page's other entries, then
//! one program. The stage decides ([`Translate::lookup`], [`Translate::insert`]); the flow
//! that issues the reads and programs is `crate::ssd::flows::map`.

use super::cmt::{Cmt, Evicted};
use super::Ftl;
use crate::config::{MappingConfig, SsdConfig};
use crate::engine::{List, Slab};
use crate::ssd::lru::IntMap;
use crate::ssd::txn::Txn;

/// What looking a user transaction's entry up found ([`Translate::lookup`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Cached (or no CMT): the transaction goes on.
    Hit,
    /// Its translation page's read is in flight: the transaction waits for it.
    Waiting,
    /// Its translation page must be read: the transaction waits, first.
    Miss { tvpn: u32 },
}

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

    /// Look transaction `t`'s entry up (`t` is a user transaction of `txns`): a hit (or no
    /// CMT), or a miss that waits for its translation page's read, in flight already or to
    /// be issued now ([`Lookup::Miss`]: `t` is its first waiter).
    #[inline]
    pub fn lookup(&mut self, ftl: &Ftl, txns: &mut Slab<Txn>, t: u32) -> Lookup {
        let lpa = txns[t].lpa as u64;
        let Some(cmt) = &mut self.cmt else {
            return Lookup::Hit;
        };
        if cmt.hit(lpa) {
            return Lookup::Hit;
        }
        let tvpn = ftl.translation_page_of(lpa);
        if let Some(list) = self.waiters.get_mut(&tvpn) {
            list.push_back(txns.items(), t);
            return Lookup::Waiting;
        }
        let mut list = List::EMPTY;
        list.push_back(txns.items(), t);
        self.waiters.insert(tvpn, list);
        Lookup::Miss { tvpn }
    }

    /// The transactions that waited for translation page `tvpn`'s read (it finished).
    #[inline]
    pub fn take_waiters(&mut self, tvpn: u32) -> List {
        self.waiters
            .remove(&tvpn)
            .expect("mapping read without waiters")
    }

    /// Cache `lpa`'s entry (`dirty`: its mapping changed): the dirty entry evicted for it, if
    /// any, with the number of dirty entries of its translation page written back with it
    /// (DFTL batch update). `None` without a CMT.
    #[inline]
    pub fn insert(&mut self, lpa: u64, dirty: bool) -> Option<(u64, u32)> {
        match self.cmt.as_mut()?.insert(lpa, dirty) {
            Evicted::Dirty { lpa, entries } => Some((lpa, entries)),
            _ => None,
        }
    }

    /// Heap bytes the CMT holds (it grows as entries are cached).
    pub fn bytes(&self) -> usize {
        self.cmt.as_ref().map_or(0, |c| c.bytes())
    }
}
