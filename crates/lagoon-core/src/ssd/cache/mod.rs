//! The DRAM write buffer (MQSim-class data cache in write-cache mode) and the writes waiting
//! for room in it.
//!
//! The buffer's decisions — whether a page written now needs a program (destage), merges
//! into one, or must wait (back-pressure), and whether a finished program frees its slot —
//! sit behind one interface, [`WritePolicy`]; Lagoon's own policy is [`slots::DataCache`]
//! (eager destage: every newly buffered page is queued for programming at once; see its
//! module doc). The stage around it admits a write's pages in order, parks a write whose
//! page finds no room, and wakes parked writes as programs free slots.

pub mod flush;
pub mod slots;

use super::txn::{Txn, TxnKind, ACKED};
use super::{DriveQueue, Ssd};
use crate::config::SsdConfig;
use crate::engine::{List, NONE};
use crate::time::Ps;
pub use slots::{Admit, DataCache};

/// A write buffer's destage and back-pressure decisions.
pub trait WritePolicy {
    /// Buffer `sectors` of page `lpa` written now.
    fn admit(&mut self, lpa: u64, sectors: u64) -> Admit;
    /// Whether a write to `lpa` would find room (a parked write may retry).
    fn has_room(&self, lpa: u64) -> bool;
    /// Buffered sectors of a page (0 if absent).
    fn sectors(&self, lpa: u64) -> u64;
    /// The page's program was dispatched to a die.
    fn program_started(&mut self, lpa: u64);
    /// The page's program finished: true if newer data needs another program (the slot is
    /// kept); otherwise the slot may be released.
    fn program_done(&mut self, lpa: u64) -> bool;
}

impl WritePolicy for DataCache {
    #[inline]
    fn admit(&mut self, lpa: u64, sectors: u64) -> Admit {
        DataCache::admit(self, lpa, sectors)
    }
    #[inline]
    fn has_room(&self, lpa: u64) -> bool {
        DataCache::has_room(self, lpa)
    }
    #[inline]
    fn sectors(&self, lpa: u64) -> u64 {
        DataCache::sectors(self, lpa)
    }
    #[inline]
    fn program_started(&mut self, lpa: u64) {
        DataCache::program_started(self, lpa)
    }
    #[inline]
    fn program_done(&mut self, lpa: u64) -> bool {
        DataCache::program_done(self, lpa)
    }
}

/// The write buffer stage: the policy's state (none with `cache.enabled = false`) and the
/// writes waiting for a slot.
pub struct WriteBuffer {
    slots: Option<DataCache>,
    wait: List,
    /// Flushes of the buffer (live runs only; [`flush`]).
    pub(crate) flush: Option<Box<flush::FlushTracker>>,
}

impl WriteBuffer {
    pub fn new(cfg: &SsdConfig, page_bytes: u32) -> Self {
        Self {
            slots: cfg
                .cache
                .enabled
                .then(|| DataCache::new(&cfg.cache, page_bytes)),
            wait: List::EMPTY,
            flush: None,
        }
    }

    #[inline]
    pub fn enabled(&self) -> bool {
        self.slots.is_some()
    }

    /// A read of `sectors` of `lpa` served entirely from the buffer (counted).
    #[inline]
    pub fn read_hit(&mut self, lpa: u64, sectors: u64) -> bool {
        match &mut self.slots {
            Some(c) if c.sectors(lpa) & sectors == sectors => {
                c.read_hits += 1;
                true
            }
            _ => false,
        }
    }

    /// Bytes of new data a destage program of `x` carries: its buffered sectors (a destage)
    /// or its request's (written through).
    #[inline]
    pub fn covered_bytes(&self, x: &Txn) -> u32 {
        match &self.slots {
            Some(c) if x.req == NONE => c.sectors(x.lpa as u64).count_ones() * 512,
            _ => x.bytes,
        }
    }

    /// A destage program of `lpa` was dispatched (no-op for written-through pages).
    #[inline]
    pub fn program_started(&mut self, x: &Txn) {
        if let Some(c) = &mut self.slots {
            if x.req == NONE {
                c.program_started(x.lpa as u64);
                if let Some(f) = &mut self.flush {
                    f.program_started(x.lpa as u64);
                }
            }
        }
    }

    /// Read hits and write merges.
    pub fn counters(&self) -> (u64, u64) {
        self.slots
            .as_ref()
            .map_or((0, 0), |c| (c.read_hits, c.write_merges))
    }

    /// Heap bytes the buffer holds (it grows as pages are buffered).
    pub fn bytes(&self) -> usize {
        self.slots.as_ref().map_or(0, |c| c.bytes())
    }
}

impl<Q: DriveQueue> Ssd<Q> {
    /// Buffer a write's pages in DRAM, as far as slots allow; the rest waits.
    pub(crate) fn buffer_write(&mut self, now: Ps, id: u32) {
        let r = *self.hil.request(id);
        let n = r.pending;
        let mut k = r.next_page;
        while k < n {
            let (lpa, mask) = self.hil.page(id, k as u64);
            let cache = self
                .cache
                .slots
                .as_mut()
                .expect("buffered write without a buffer");
            match WritePolicy::admit(cache, lpa, mask) {
                Admit::Full => {
                    self.hil.wait_for_buffer(&mut self.cache.wait, id, k);
                    return;
                }
                Admit::Merged => self.flush_admitted(lpa),
                Admit::NeedsProgram => {
                    self.flush_admitted(lpa);
                    let t = self.alloc_txn(TxnKind::UserWrite, NONE, lpa as u32, NONE, NONE, 0);
                    self.translate(now, t);
                }
            }
            k += 1;
        }
        self.hil.set_next_page(id, n);
        let b = self.write_bus(now, r.size);
        let end = self.datapath.dram.reserve(now, b, r.size as u64);
        self.hil.set_dram_pages(id, n);
        crate::engine::Queue::schedule(
            &mut self.q,
            end,
            super::hil::HilEvent::DramDone { req: id },
        );
    }

    #[inline]
    fn flush_admitted(&mut self, lpa: u64) {
        if let Some(f) = &mut self.cache.flush {
            f.admitted(lpa);
        }
    }

    /// Writes parked for a slot retry, oldest first, while the first finds room.
    fn wake_buffer_waiters(&mut self, now: Ps) {
        while self.cache.wait.head != NONE {
            let id = self.cache.wait.head;
            let k = self.hil.request(id).next_page;
            let (lpa, _) = self.hil.page(id, k as u64);
            let cache = self.cache.slots.as_ref().expect("waiters without a buffer");
            if !WritePolicy::has_room(cache, lpa) {
                return;
            }
            self.hil.pop_waiter(&mut self.cache.wait);
            self.buffer_write(now, id);
        }
    }

    /// A user page program finished: its request's page is done (written through), or its
    /// buffer slot is released (or programmed again if newer data arrived meanwhile).
    pub(crate) fn user_program_done(&mut self, now: Ps, x: &Txn) {
        if x.req == ACKED {
            // Acknowledged when its data reached the chip.
            return;
        }
        if x.req != NONE {
            return self.request_pages_done(now, x.req, 1);
        }
        if let Some(f) = &mut self.cache.flush {
            f.program_done(x.lpa as u64, now);
        }
        let cache = self.cache.slots.as_mut().expect("destage without a buffer");
        if cache.program_done(x.lpa as u64) {
            let n = self.alloc_txn(TxnKind::UserWrite, NONE, x.lpa, NONE, NONE, 0);
            self.translate(now, n);
        } else {
            self.wake_buffer_waiters(now);
        }
    }
}
