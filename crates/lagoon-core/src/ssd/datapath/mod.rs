//! How data moves between the host interface, DRAM and the flash controllers: the data path.
//! One trait, [`DataPathModel`], with two implementations dispatched by enum:
//! [`Direct`] (no controller model: only the DRAM is a resource) and the Decoupled SSD's
//! controller ([`dssd::Controller`]: system bus, ECC per FC, dBUFs, global copyback over the
//! bus, a dedicated bus or the fNoC; ISCA 2023 §2-§4). The DRAM ([`resource::Resource`]) is
//! the data path's in both.

pub mod dssd;
pub mod resource;
pub mod timeline;

pub use dssd::{Controller, ControllerStats, C_BUS, C_DRAM, C_ECC, C_FLASH, C_LINK, C_QUEUE};
pub use resource::{check_grants, Resource};
pub use timeline::{Series, Timeline, MAX_WINDOWS};

use super::txn::{Class, Txn, TxnKind};
use crate::config::SsdConfig;
use crate::engine::Slab;
use crate::time::Ps;

/// The data path's events (the controller model's; [`Direct`] schedules none).
#[derive(Clone, Copy, Debug)]
pub enum DataPathEvent {
    /// A program's data reached its flash controller over DRAM and the system bus: the
    /// die's command and data transfer can start.
    StageDone { die: u32 },
    /// A page read reached its destination past the flash controller (DRAM, or a dBUF for
    /// global copyback): its transaction completes.
    MoveDone { txn: u32 },
    /// A global copyback page is through its source FC's ECC: it leaves for its destination
    /// FC once that FC's destination dBUF has room for it.
    DbufDepart { txn: u32 },
    /// The fNoC has events due.
    FnocWake,
}

/// What a data path decides and charges, apart from the steps that hand work back to the
/// drive's other stages (those are [`super::Ssd`]'s, in [`dssd`]).
pub trait DataPathModel {
    /// Whether the controller model is on (page reads then cross ECC, bus and DRAM).
    fn controller_on(&self) -> bool;
    /// GC pages move by global copyback (dSSD, dSSD_b, dSSD_f).
    fn global_copyback(&self) -> bool;
    /// Host data of `bytes` between the host interface and DRAM, ready now: when it is
    /// across the system bus (`now` without one); charged to breakdown class `class`.
    fn host_bus(&mut self, now: Ps, bytes: u32, class: Class) -> Ps;
    /// A write's data lands in DRAM (over the system bus) before it goes on (dSSD §2.1).
    fn write_into_dram(&mut self, dram: &mut Resource, now: Ps, bytes: u32);
    /// Stage a program's pages from DRAM to the FC; `None`: the command can go now.
    fn stage_program(
        &mut self,
        dram: &mut Resource,
        now: Ps,
        kind: TxnKind,
        picked: &[u32],
        txns: &Slab<Txn>,
    ) -> Option<Ps>;
    /// Breakdown: a page of class `c` waited `wait` in its die queue.
    fn queued(&mut self, c: Class, wait: Ps);
    /// Breakdown: a page of class `c` spent `dt` on its die; `page`: it counts as a page.
    fn on_die(&mut self, c: Class, dt: Ps, page: bool);
    /// GC reads on `fc`'s dies took `n` source dBUF slots.
    fn take_source_dbuf(&mut self, fc: u32, n: u32);
    /// Pages a GC read on FC `fc` may still put into its dBUF.
    fn dbuf_room(&self, fc: u32) -> u32;
    /// GC page operations done by the last host completion.
    fn gc_ops_during_io(&mut self, n: u64);
}

/// No controller model: data moves as soon as the interconnect delivers it.
pub struct Direct;

impl DataPathModel for Direct {
    #[inline]
    fn controller_on(&self) -> bool {
        false
    }
    #[inline]
    fn global_copyback(&self) -> bool {
        false
    }
    #[inline]
    fn host_bus(&mut self, now: Ps, _: u32, _: Class) -> Ps {
        now
    }
    #[inline]
    fn write_into_dram(&mut self, _: &mut Resource, _: Ps, _: u32) {}
    #[inline]
    fn stage_program(
        &mut self,
        _: &mut Resource,
        _: Ps,
        _: TxnKind,
        _: &[u32],
        _: &Slab<Txn>,
    ) -> Option<Ps> {
        None
    }
    #[inline]
    fn queued(&mut self, _: Class, _: Ps) {}
    #[inline]
    fn on_die(&mut self, _: Class, _: Ps, _: bool) {}
    #[inline]
    fn take_source_dbuf(&mut self, _: u32, _: u32) {}
    #[inline]
    fn dbuf_room(&self, _: u32) -> u32 {
        u32::MAX
    }
    #[inline]
    fn gc_ops_during_io(&mut self, _: u64) {}
}

/// The drive's data path model (enum dispatch).
pub enum Model {
    Direct(Direct),
    Dssd(Box<Controller>),
}

macro_rules! each {
    ($s:expr, $m:ident => $e:expr) => {
        match $s {
            Model::Direct($m) => $e,
            Model::Dssd($m) => $e,
        }
    };
}

/// The data path: the controller's DRAM (one FIFO channel, `cache.dram_mb_s` and
/// `cache.dram_access_ns`) and the model around it.
pub struct DataPath {
    pub(crate) dram: Resource,
    pub(crate) model: Model,
}

impl DataPath {
    /// The controller model if `controller.enabled`, else the direct path.
    pub fn new(cfg: &SsdConfig, seed: u64) -> Result<Self, String> {
        let mut d = Self::direct(cfg);
        if cfg.controller.enabled {
            d.model = Model::Dssd(Box::new(Controller::new(cfg, seed)?));
        }
        Ok(d)
    }

    pub fn direct(cfg: &SsdConfig) -> Self {
        Self {
            dram: Resource::new(cfg.cache.dram_mb_s, cfg.cache.dram_access_ns),
            model: Model::Direct(Direct),
        }
    }

    /// The controller model, if on.
    #[inline]
    pub fn controller(&mut self) -> Option<&mut Controller> {
        match &mut self.model {
            Model::Dssd(c) => Some(c),
            Model::Direct(_) => None,
        }
    }

    #[inline]
    pub fn controller_on(&self) -> bool {
        each!(&self.model, m => m.controller_on())
    }
    #[inline]
    pub fn global_copyback(&self) -> bool {
        each!(&self.model, m => m.global_copyback())
    }
    #[inline]
    pub fn host_bus(&mut self, now: Ps, bytes: u32, class: Class) -> Ps {
        each!(&mut self.model, m => m.host_bus(now, bytes, class))
    }
    #[inline]
    pub fn write_into_dram(&mut self, now: Ps, bytes: u32) {
        each!(&mut self.model, m => m.write_into_dram(&mut self.dram, now, bytes))
    }
    #[inline]
    pub fn stage_program(
        &mut self,
        now: Ps,
        kind: TxnKind,
        picked: &[u32],
        txns: &Slab<Txn>,
    ) -> Option<Ps> {
        each!(&mut self.model, m => m.stage_program(&mut self.dram, now, kind, picked, txns))
    }
    #[inline]
    pub fn queued(&mut self, c: Class, wait: Ps) {
        each!(&mut self.model, m => m.queued(c, wait))
    }
    #[inline]
    pub fn on_die(&mut self, c: Class, dt: Ps, page: bool) {
        each!(&mut self.model, m => m.on_die(c, dt, page))
    }
    #[inline]
    pub fn take_source_dbuf(&mut self, fc: u32, n: u32) {
        each!(&mut self.model, m => m.take_source_dbuf(fc, n))
    }
    #[inline]
    pub fn dbuf_room_of(&self, fc: u32) -> u32 {
        each!(&self.model, m => m.dbuf_room(fc))
    }
    #[inline]
    pub fn gc_ops_during_io(&mut self, n: u64) {
        each!(&mut self.model, m => m.gc_ops_during_io(n))
    }

    /// `--timeline`: busy series of DRAM, bus and dedicated bus in windows of `w`; the
    /// fNoC's link directions (to normalize its busy time), if it has one.
    pub fn set_timeline(&mut self, w: Ps) -> Option<u32> {
        self.dram.windows = Some(Series::new(w));
        self.controller().and_then(|c| c.set_timeline(w))
    }

    /// Record every grant of DRAM, system bus and dedicated bus (tests).
    pub fn set_audit(&mut self, on: bool) {
        self.dram.audit = on.then(Vec::new);
        if let Some(c) = self.controller() {
            c.set_audit(on);
        }
    }
}
