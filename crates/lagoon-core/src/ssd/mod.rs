//! The drive: one request's walk through its stages, each a folder that owns its state and
//! its events.
//!
//! ```text
//! host ─▶ hil (NVMe fetch, pages, PCIe) ─▶ cache (write buffer) ─▶ ftl/translate (CMT,
//!   mapping reads, read-modify-write) ─▶ tsu (die queues, die state machine, multi-plane)
//!   ─▶ interconnect ─▶ flash ─▶ tsu ─▶ datapath (direct, or dSSD: ECC, bus, DRAM, dBUF,
//!   global copyback) ─▶ hil (completion) ─▶ host
//!                                  ftl/gc (victims, moves, erases, wear levelling) ─▶ tsu
//! ```
//! [`Ssd`] holds the stages; each stage's module holds its state (private fields) and returns
//! decisions; the flows ([`flows`]: request, read, write, map, GC, suspend) are the code that
//! touches two stages, handing work to the next one in the order the hardware does (that
//! order is what keeps same-time events in a fixed sequence). The die scheduler
//! ([`tsu`]) and the dSSD data path ([`datapath::dssd`]) still hold their flows as methods
//! of [`Ssd`]. Flows schedule sub-events into the engine's queue through [`DriveQueue`]; the
//! drive never names the engine's event type.

pub mod cache;
pub mod datapath;
pub mod dynamic_superblock;
pub mod flows;
pub mod ftl;
pub mod hil;
pub mod lru;
pub mod probe;
pub mod tsu;
pub mod txn;

use crate::config::SsdConfig;
use crate::engine::{Queue, Slab};
use crate::interconnect::{self, Arch, IcEvent, Interconnect};
use crate::time::Ps;
use datapath::{DataPath, DataPathEvent, Timeline};
use ftl::gc::Gc;
use ftl::translate::Translate;
use ftl::Ftl;
use hil::{Hil, HilEvent};
use tsu::{Tsu, TsuEvent};
use txn::{DieQueue, FlashCounters, Role, Txn, TxnKind};

/// What the drive schedules into: a queue that takes every stage's sub-event.
pub trait DriveQueue:
    Queue<HilEvent> + Queue<TsuEvent> + Queue<DataPathEvent> + Queue<IcEvent> + 'static
{
}

impl<Q> DriveQueue for Q where
    Q: Queue<HilEvent> + Queue<TsuEvent> + Queue<DataPathEvent> + Queue<IcEvent> + 'static
{
}

/// The drive: its stages, the back end and the engine's queue they schedule into.
pub struct Ssd<Q> {
    pub(crate) q: Q,
    pub(crate) cfg: SsdConfig,
    pub(crate) ftl: Ftl,
    /// Flash transactions in flight, linked into die queues and waiting lists.
    pub(crate) txns: Slab<Txn>,
    pub(crate) hil: Hil,
    pub(crate) cache: cache::WriteBuffer,
    pub(crate) translate: Translate,
    pub(crate) gc: Gc,
    pub(crate) tsu: Tsu,
    pub(crate) datapath: DataPath,
    pub(crate) net: Box<dyn Interconnect<Q>>,
    pub(crate) flash: FlashCounters,
    /// `--timeline`: I/O and GC bytes per window (resources keep their own busy series).
    pub(crate) timeline: Option<Box<Timeline>>,
    /// Probe runs: operations injected at the die queues and when they completed.
    pub(crate) probe: probe::ProbeLog,
    pub(crate) last_completion: Ps,
    /// An input the model cannot represent, or a back end that failed, as a message.
    pub(crate) fault: Option<String>,
}

impl<Q: DriveQueue> Ssd<Q> {
    /// The drive `cfg` under back end `arch`, its requests coming from `flows` host flows.
    pub fn new(cfg: &SsdConfig, arch: Arch, flows: usize, seed: u64, q: Q) -> Self {
        let ftl = Ftl::new(cfg, seed);
        // Validation has built the network once; a failure here (a custom topology file
        // changed since) ends the run with its message before any event.
        let (net, mut fault) = match interconnect::build(arch, cfg, seed) {
            Ok(n) => (n, None),
            Err(e) => (
                Box::new(interconnect::shared_bus::SharedBus::ideal(cfg))
                    as Box<dyn Interconnect<Q>>,
                Some(e),
            ),
        };
        let datapath = match DataPath::new(cfg, seed) {
            Ok(d) => d,
            Err(e) => {
                fault = fault.or(Some(e));
                DataPath::direct(cfg)
            }
        };
        Self {
            q,
            hil: Hil::new(cfg, &ftl, flows),
            cache: cache::WriteBuffer::new(cfg, ftl.geo.page_bytes),
            translate: Translate::new(cfg, &ftl),
            gc: Gc::new(&ftl.geo, cfg.ftl.gc_victims_per_plane),
            tsu: Tsu::new(cfg, &ftl.geo),
            datapath,
            net,
            txns: Slab::with_capacity(4096),
            flash: FlashCounters::default(),
            timeline: None,
            probe: probe::ProbeLog::default(),
            last_completion: 0,
            fault,
            cfg: cfg.clone(),
            ftl,
        }
    }

    /// A new transaction in the slab.
    #[inline]
    pub(crate) fn alloc_txn(
        &mut self,
        kind: TxnKind,
        role: Role,
        lpa: u32,
        ppa: u32,
        plane: u32,
        bytes: u32,
    ) -> u32 {
        self.txns
            .alloc(Txn::new(kind, role, lpa, ppa, plane, bytes))
    }

    #[inline]
    pub(crate) fn free_txn(&mut self, t: u32) {
        self.txns.free(t);
    }

    /// FC (channel) of `die`.
    #[inline]
    pub(crate) fn fc_of_die(&self, die: u32) -> u32 {
        self.ftl.geo.chip_of_die(die) / self.cfg.flash.chips_per_channel
    }

    /// FC of the die holding `plane`.
    #[inline]
    pub(crate) fn fc_of_plane(&self, plane: u32) -> u32 {
        self.fc_of_die(self.ftl.geo.die_of_plane(plane))
    }

    /// A finished transaction goes back to the stage it works for.
    pub(crate) fn complete_txn(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        self.free_txn(t);
        if let Role::Probe(i) = x.role {
            self.probe.done.push((i, now));
            return;
        }
        match x.kind {
            TxnKind::UserRead => {
                let r = x.request().expect("a user read works for a request");
                self.request_pages_done(now, r, 1)
            }
            TxnKind::RmwRead => {
                self.flash.rmw_reads += 1;
                let Role::Precedes { write } = x.role else {
                    unreachable!("a read-modify-write read precedes its write")
                };
                self.enqueue(now, write, DieQueue::Write);
            }
            TxnKind::ScanRead => self.flash.scan_reads += 1,
            TxnKind::MapRead => self.mapping_read_done(now, &x),
            TxnKind::UserWrite => self.user_program_done(now, &x),
            TxnKind::MapWrite => self.flash.mapping_writes += 1,
            TxnKind::GcRead => self.gc_read_done(now, t, &x),
            TxnKind::GcWrite | TxnKind::Copyback => self.gc_write_done(now, t, &x),
            TxnKind::Erase => self.erase_done(now, &x),
        }
    }
}

/// Ask for the cache line holding `x` (a hint: no effect on results).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even for an invalid address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            x as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
