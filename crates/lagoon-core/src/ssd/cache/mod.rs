//! The DRAM write buffer (MQSim-class data cache in write-cache mode) and the writes waiting
//! for room in it.
//!
//! The buffer's decisions — whether a page written now needs a program (destage), merges
//! into one, evicts another page, or must wait (back-pressure), and whether a finished
//! program frees its slot — sit behind one interface, [`WritePolicy`], picked by
//! `cache.write_policy`: Lagoon's own [`slots::DataCache`] (eager destage: every newly
//! buffered page is queued for programming at once; see its module doc) or MQSim's
//! [`mqsim::MqsimCache`] (first write in a window to flash, hot pages kept in an LRU, one page
//! per plane of write-back in flight). The stage around it admits a write's pages in order,
//! parks a write whose page finds no room, and wakes parked writes as programs end.

pub mod flush;
pub mod mqsim;
pub mod slots;

use super::txn::{Role, Txn};
use crate::config::{SsdConfig, WritePolicyKind};
use crate::engine::{List, NONE};
use crate::time::{Ps, PS_PER_MS};
pub use mqsim::MqsimCache;
pub use slots::{Admit, DataCache};

/// What buffering one page of a write did.
pub enum Buffered {
    /// No room now: the write waits (back-pressure).
    Full,
    /// Buffered. `program`: the page is to be programmed now (its destage). `evicted`: a page
    /// pushed out for it, to be programmed with these sectors.
    Done {
        program: bool,
        evicted: Option<(u64, u64)>,
    },
}

/// What the write buffer stage did with one page of a write ([`WriteBuffer::admit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// No room now: the write waits for a slot ([`WriteBuffer::waiters`]).
    Full,
    /// Buffered. The programs to issue now, in this order: a page evicted for it (and the
    /// sectors counted against back-pressure, `None`: the policy counts none), then the page
    /// itself (its destage), with its counted sectors.
    Buffered {
        evicted: Option<(u64, Option<u32>)>,
        program: Option<Option<u32>>,
    },
}

/// A write buffer's destage and back-pressure decisions.
pub trait WritePolicy {
    /// Buffer `sectors` of page `lpa` written at `now`.
    fn admit(&mut self, now: Ps, lpa: u64, sectors: u64) -> Buffered;
    /// Whether a write to `lpa` would find room (a parked write may retry).
    fn has_room(&self, lpa: u64) -> bool;
    /// Buffered sectors of a page (0 if absent).
    fn sectors(&self, lpa: u64) -> u64;
    /// The page's program was dispatched to a die.
    fn program_started(&mut self, lpa: u64);
    /// The page's program finished (`counted`: the sectors it was issued with, see
    /// [`WritePolicy::counts_sectors`]): true if newer data needs another program (the slot
    /// is kept); otherwise the slot may be released.
    fn program_done(&mut self, lpa: u64, counted: u64) -> bool;
    /// Whether programs are counted against the back-pressure by their sectors when issued
    /// (the stage then records them on the program).
    fn counts_sectors(&self) -> bool;
}

impl WritePolicy for DataCache {
    #[inline]
    fn admit(&mut self, _now: Ps, lpa: u64, sectors: u64) -> Buffered {
        match DataCache::admit(self, lpa, sectors) {
            Admit::Full => Buffered::Full,
            Admit::Merged => Buffered::Done {
                program: false,
                evicted: None,
            },
            Admit::NeedsProgram => Buffered::Done {
                program: true,
                evicted: None,
            },
        }
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
    fn program_done(&mut self, lpa: u64, _counted: u64) -> bool {
        DataCache::program_done(self, lpa)
    }
    #[inline]
    fn counts_sectors(&self) -> bool {
        false
    }
}

impl WritePolicy for MqsimCache {
    #[inline]
    fn admit(&mut self, now: Ps, lpa: u64, sectors: u64) -> Buffered {
        match MqsimCache::admit(self, now, lpa, sectors) {
            None => Buffered::Full,
            Some(b) => Buffered::Done {
                program: b.program,
                evicted: b.evicted,
            },
        }
    }
    #[inline]
    fn has_room(&self, _lpa: u64) -> bool {
        MqsimCache::has_room(self)
    }
    #[inline]
    fn sectors(&self, lpa: u64) -> u64 {
        MqsimCache::sectors(self, lpa)
    }
    #[inline]
    fn program_started(&mut self, lpa: u64) {
        MqsimCache::program_started(self, lpa)
    }
    #[inline]
    fn program_done(&mut self, lpa: u64, counted: u64) -> bool {
        MqsimCache::program_done(self, lpa, counted);
        false
    }
    #[inline]
    fn counts_sectors(&self) -> bool {
        true
    }
}

/// The configured policy (enum dispatch: a match per call, no virtual call on the hot path).
pub enum Policy {
    Lagoon(DataCache),
    Mqsim(MqsimCache),
}

macro_rules! each {
    ($p:expr, $c:ident => $e:expr) => {
        match $p {
            Policy::Lagoon($c) => $e,
            Policy::Mqsim($c) => $e,
        }
    };
}

impl WritePolicy for Policy {
    #[inline]
    fn admit(&mut self, now: Ps, lpa: u64, sectors: u64) -> Buffered {
        each!(self, c => WritePolicy::admit(c, now, lpa, sectors))
    }
    #[inline]
    fn has_room(&self, lpa: u64) -> bool {
        each!(self, c => WritePolicy::has_room(c, lpa))
    }
    #[inline]
    fn sectors(&self, lpa: u64) -> u64 {
        each!(self, c => WritePolicy::sectors(c, lpa))
    }
    #[inline]
    fn program_started(&mut self, lpa: u64) {
        each!(self, c => WritePolicy::program_started(c, lpa))
    }
    #[inline]
    fn program_done(&mut self, lpa: u64, counted: u64) -> bool {
        each!(self, c => WritePolicy::program_done(c, lpa, counted))
    }
    #[inline]
    fn counts_sectors(&self) -> bool {
        each!(self, c => WritePolicy::counts_sectors(c))
    }
}

impl Policy {
    fn counters(&self) -> (u64, u64) {
        each!(self, c => (c.read_hits, c.write_merges))
    }
    fn count_read_hit(&mut self) {
        each!(self, c => c.read_hits += 1)
    }
    fn bytes(&self) -> usize {
        each!(self, c => c.bytes())
    }
}

/// The write buffer stage: the policy's state (none with `cache.enabled = false`) and the
/// writes waiting for a slot.
pub struct WriteBuffer {
    slots: Option<Policy>,
    wait: List,
    /// Flushes of the buffer (live runs only; [`flush`]).
    pub(crate) flush: Option<Box<flush::FlushTracker>>,
}

impl WriteBuffer {
    pub fn new(cfg: &SsdConfig, page_bytes: u32) -> Self {
        let c = &cfg.cache;
        Self {
            slots: c.enabled.then(|| match c.write_policy {
                WritePolicyKind::Lagoon => Policy::Lagoon(DataCache::new(c, page_bytes)),
                WritePolicyKind::Mqsim => {
                    let f = &cfg.flash;
                    let planes = f.channels as u64
                        * f.chips_per_channel as u64
                        * f.dies_per_chip as u64
                        * f.planes_per_die as u64;
                    Policy::Mqsim(MqsimCache::new(
                        ((c.capacity_bytes / page_bytes as u64) as usize).max(1),
                        // SSD_Device.cpp 339: a page of sectors per plane.
                        planes * (page_bytes as u64 / 512).max(1),
                        (c.hot_window_ms * PS_PER_MS as f64) as Ps,
                    ))
                }
            }),
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
                c.count_read_hit();
                true
            }
            _ => false,
        }
    }

    /// Buffered sectors of page `lpa` (0 without a buffer): what a destage program carries.
    #[inline]
    pub fn buffered_sectors(&self, lpa: u64) -> u64 {
        self.slots.as_ref().map_or(0, |c| c.sectors(lpa))
    }

    /// A destage program of `lpa` was dispatched (no-op for written-through pages).
    #[inline]
    pub fn program_started(&mut self, x: &Txn) {
        if let Some(c) = &mut self.slots {
            if let Role::Destage { .. } = x.role {
                c.program_started(x.lpa as u64);
                if let Some(f) = &mut self.flush {
                    f.program_started(x.lpa as u64);
                }
            }
        }
    }

    /// Buffer `sectors` of page `lpa` of a write at `now` ([`WritePolicy::admit`]): the
    /// programs it asks for, with the sectors each holds against the policy's back-pressure.
    #[inline]
    pub fn admit(&mut self, now: Ps, lpa: u64, sectors: u64) -> Admitted {
        let cache = self
            .slots
            .as_mut()
            .expect("buffered write without a buffer");
        match WritePolicy::admit(cache, now, lpa, sectors) {
            Buffered::Full => Admitted::Full,
            Buffered::Done { program, evicted } => {
                let counts = cache.counts_sectors();
                let held = cache.sectors(lpa).count_ones();
                if let Some(f) = &mut self.flush {
                    f.admitted(lpa);
                }
                Admitted::Buffered {
                    evicted: evicted.map(|(v, s)| (v, counts.then_some(s.count_ones()))),
                    program: program.then_some(counts.then_some(held)),
                }
            }
        }
    }

    /// The writes waiting for a slot (requests of the host interface, oldest first).
    #[inline]
    pub fn waiters(&mut self) -> &mut List {
        &mut self.wait
    }

    /// The oldest write waiting for a slot, if any.
    #[inline]
    pub fn first_waiter(&self) -> Option<u32> {
        (self.wait.head != NONE).then_some(self.wait.head)
    }

    /// Whether a write to page `lpa` would find room now (a parked write may retry).
    #[inline]
    pub fn has_room(&self, lpa: u64) -> bool {
        let cache = self.slots.as_ref().expect("waiters without a buffer");
        WritePolicy::has_room(cache, lpa)
    }

    /// Pages the policy keeps dirty without a program (MQSim's rewrites in DRAM), taken for a
    /// write-back, with their sectors; `None` for a policy that keeps none (Lagoon's).
    pub fn take_dirty(&mut self) -> Option<Vec<(u64, u64)>> {
        match &mut self.slots {
            Some(Policy::Mqsim(c)) => Some(c.take_dirty()),
            _ => None,
        }
    }

    /// A destage program of `lpa` issued with `counted` sectors finished: true if newer data
    /// needs another program (the slot is kept); otherwise its slot may be released.
    #[inline]
    pub fn program_done(&mut self, now: Ps, lpa: u64, counted: u64) -> bool {
        if let Some(f) = &mut self.flush {
            f.program_done(lpa, now);
        }
        let cache = self.slots.as_mut().expect("destage without a buffer");
        cache.program_done(lpa, counted)
    }

    /// Read hits and write merges.
    pub fn counters(&self) -> (u64, u64) {
        self.slots.as_ref().map_or((0, 0), |c| c.counters())
    }

    /// Heap bytes the buffer holds (it grows as pages are buffered).
    pub fn bytes(&self) -> usize {
        self.slots.as_ref().map_or(0, |c| c.bytes())
    }
}
