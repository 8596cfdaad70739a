//! The controller's internals as contended resources (Decoupled SSD, ISCA 2023, §2.1, §3,
//! §4; SPEC §1.6): the system bus, the DRAM, one ECC engine per flash controller (FC), and
//! the link between FCs of the decoupled designs (the system bus itself for `dssd`, a
//! dedicated bus for `dssd_b`, the fNoC for `dssd_f`).
//!
//! Every data movement crosses them according to its path (store and forward, one page at
//! a time; each resource grants in request order, FIFO):
//! ```text
//! host write        PCIe → bus → DRAM ·· (destage) DRAM → bus → FC → flash   (§2.1)
//! host read         flash → FC (ECC) → bus → DRAM → PCIe
//! conventional GC   flash → FC (ECC) → bus → DRAM → DRAM → bus → FC → flash   (§3, Fig. 1)
//! copyback          inside the die                                             (§2.2)
//! global copyback   flash → FC (ECC, dBUF) → [bus | dedicated bus | fNoC] → FC (dBUF) → flash
//!                   (§4.2, Fig. 4; same channel: FC → flash directly)
//! ```
//! A [`Resource`] is a server with a calendar: a grant takes the earliest free interval, at or
//! after its data is ready, long enough for `grant latency + bytes / bandwidth`. Grants are
//! made when a movement's data is (or will be) ready; a grant booked for later does not block
//! a movement ready now if the gap before it is long enough (an arbiter serves whoever is
//! ready; a plain FIFO of bookings would make a page ready now wait behind one booked for
//! later). With ready times that never decrease this is exactly FIFO.

use super::resource::Resource;
use super::timeline::Series;
use super::{DataPath, DataPathEvent, DataPathModel, Model};
use crate::config::{ControllerConfig, Design, SsdConfig};
use crate::engine::{Slab, NONE};
use crate::interconnect::network::{Delivery, Network};
use crate::ssd::txn::{Class, Role, Txn, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::{ns, Ps};
use serde::Serialize;

/// How GC pages move between flash controllers in the decoupled designs.
pub enum FcLink {
    /// Baseline, BW: through DRAM (no FC-to-FC link).
    None,
    /// dSSD: FC → system bus → FC (§6.1: "the total on-chip bandwidth is used by the system
    /// bus but dSSD provides the ability for the flash controllers to directly communicate").
    SystemBus,
    /// dSSD_b: a separate bus between FCs (Table 2).
    Dedicated(Resource),
    /// dSSD_f: the fNoC, one endpoint per FC (§4.1, Table 1).
    Fnoc(Box<Network>),
}

/// Components of the latency breakdown (dSSD Fig. 9; its classes are [`Class`]).
pub const C_QUEUE: usize = 0;
pub const C_FLASH: usize = 1;
pub const C_ECC: usize = 2;
pub const C_BUS: usize = 3;
pub const C_DRAM: usize = 4;
pub const C_LINK: usize = 5;

/// Mean time per page in each stage, ns (dSSD Fig. 9): `queue` in die queues, `flash` on the
/// die (command, data on the channel, array), `ecc`, `system_bus`, `dram` (waiting included),
/// `fc_link` (dedicated bus or fNoC). User reads and writes per page; a GC move counts its
/// read and its write.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BreakdownNs {
    pub pages: u64,
    pub queue: f64,
    pub flash: f64,
    pub ecc: f64,
    pub system_bus: f64,
    pub dram: f64,
    pub fc_link: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LatencyBreakdown {
    pub user_read: BreakdownNs,
    pub user_write: BreakdownNs,
    pub gc_move: BreakdownNs,
}

/// Counters of the controller model, in the JSON report as `controller`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ControllerStats {
    pub design: String,
    pub system_bus_mb_s: f64,
    pub system_bus_utilization: f64,
    pub system_bus_grants: u64,
    pub dram_utilization: f64,
    pub dram_grants: u64,
    pub ecc_utilization: Vec<f64>,
    /// Busy fraction of the FC-to-FC link: dedicated bus, or the fNoC's mean link direction.
    pub fc_link_utilization: f64,
    /// GC page reads plus GC page programs finished by the last host completion (half of it
    /// in page moves): GC work done while host I/O runs (dSSD §6.1 "we compare the
    /// performance when GC is performed"). Reads and programs both count because a design
    /// may read a GC batch before it programs any of it.
    pub gc_page_ops_during_io: u64,
    /// GC page moves by path.
    pub gc_moves_through_dram: u64,
    pub gc_moves_copyback: u64,
    pub gc_moves_global_same_channel: u64,
    pub gc_moves_global_cross_channel: u64,
    /// Global copyback pages that waited at their source for room in the destination dBUF.
    pub dbuf_destination_waits: u64,
    /// Mean time a global copyback page spent between its source FC's ECC and its
    /// destination FC, ns (waiting for a destination dBUF slot, then fNoC or buses).
    pub mean_fc_link_ns: f64,
    pub latency_breakdown_ns: LatencyBreakdown,
    /// Mean time of one passage through each stage, ns: every operation that crossed it
    /// counts once (a GC move's read and write each pass the die queue), finished or not.
    /// Unbiased when a run stops with work in flight (dSSD Fig. 9).
    pub stage_passage_ns: LatencyBreakdown,
}

pub struct Controller {
    design: Design,
    bus: Resource,
    link: FcLink,
    ecc: Vec<Resource>,
    ecc_page: Ps,
    header_bytes: u32,
    /// Global copyback: pages one FC's dBUF holds (§6.5), and pages in each FC's dBUF from
    /// their GC read until they reach the destination FC.
    dbuf_pages: u32,
    dbuf_used: Vec<u32>,
    /// Pages in each FC's destination dBUF, or on their way to it with a slot reserved, and
    /// the pages it holds (`u32::MAX`: unbounded).
    dbuf_in: Vec<u32>,
    dbuf_in_pages: u32,
    /// `controller.dram_forward_reads`.
    dram_forward_reads: bool,
    stats: ControllerStats,
    link_time: Ps,
    /// Breakdown sums, ps, and passages (operations that crossed the stage), by class and
    /// component; pages by class.
    sums: [[Ps; 6]; Class::COUNT],
    passages: [[u64; 6]; Class::COUNT],
    pages: [u64; Class::COUNT],
    /// fNoC: deliveries of the last advance, and the times of the engine wakes pending.
    deliveries: Vec<Delivery>,
    wakes: Vec<Ps>,
    /// fNoC busy time already put into the timeline.
    fnoc_busy_seen: Ps,
}

impl Controller {
    pub fn new(cfg: &SsdConfig, seed: u64) -> Result<Self, String> {
        let c: &ControllerConfig = &cfg.controller;
        let link = match c.design {
            Design::Baseline | Design::Bw => FcLink::None,
            Design::Dssd => FcLink::SystemBus,
            Design::DssdB => FcLink::Dedicated(Resource::new(c.dedicated_bus_mb_s, 0.0)),
            Design::DssdF => FcLink::Fnoc(Box::new(
                Network::from_config(&cfg.fnoc_view(), seed ^ 0x666e_6f63)
                    .map_err(|e| format!("fnoc: {e}"))?,
            )),
        };
        Ok(Self {
            design: c.design,
            bus: Resource::new(c.bus_mb_s(), c.system_bus_grant_ns),
            link,
            ecc: vec![Resource::new(1e8, 0.0); cfg.flash.channels as usize],
            ecc_page: ns(c.ecc_ns_per_page),
            dbuf_pages: (c.dbuf_bytes / cfg.flash.page_bytes).max(1),
            dbuf_used: vec![0; cfg.flash.channels as usize],
            dbuf_in: vec![0; cfg.flash.channels as usize],
            dbuf_in_pages: match c.dbuf_destination_bytes {
                0 => u32::MAX,
                b => (b / cfg.flash.page_bytes).max(1),
            },
            dram_forward_reads: c.dram_forward_reads,
            header_bytes: cfg.fnoc.header_bytes,
            stats: ControllerStats {
                design: c.design.to_string(),
                system_bus_mb_s: c.bus_mb_s(),
                ..Default::default()
            },
            link_time: 0,
            sums: [[0; 6]; Class::COUNT],
            passages: [[0; 6]; Class::COUNT],
            pages: [0; Class::COUNT],
            deliveries: Vec::with_capacity(16),
            wakes: Vec::with_capacity(4),
            fnoc_busy_seen: 0,
        })
    }

    /// `--timeline`: busy series of the bus and a dedicated bus in windows of `w`; the
    /// fNoC's link directions, if the link is one.
    pub fn set_timeline(&mut self, w: Ps) -> Option<u32> {
        self.bus.windows = Some(Series::new(w));
        match &mut self.link {
            FcLink::Dedicated(r) => r.windows = Some(Series::new(w)),
            FcLink::Fnoc(n) => {
                let g = n.graph();
                let links = (0..g.total_ports()).filter(|&p| g.far(p) != NONE).count();
                return Some(links as u32);
            }
            _ => {}
        }
        None
    }

    /// Record every grant of the bus and a dedicated bus (tests).
    pub fn set_audit(&mut self, on: bool) {
        self.bus.audit = on.then(Vec::new);
        if let FcLink::Dedicated(r) = &mut self.link {
            r.audit = on.then(Vec::new);
        }
    }

    /// The bus's grants recorded so far (probe runs).
    pub fn take_bus_grants(&mut self) -> Vec<(Ps, Ps)> {
        self.bus.audit.take().unwrap_or_default()
    }

    /// Every recorded grant list, named, for [`super::check_grants`]; `None` if not asked.
    pub fn take_audits(&mut self, lists: &mut Vec<(&'static str, Vec<(Ps, Ps)>)>) {
        lists.push(("system bus", self.bus.audit.take().unwrap_or_default()));
        if let FcLink::Dedicated(r) = &mut self.link {
            lists.push(("dedicated bus", r.audit.take().unwrap_or_default()));
        }
    }

    /// The bus's and a dedicated bus's busy series into the timeline.
    pub fn take_series(&mut self, tl: &mut super::Timeline) {
        if let Some(s) = self.bus.windows.take() {
            tl.bus_busy = s;
        }
        if let FcLink::Dedicated(r) = &mut self.link {
            if let Some(s) = r.windows.take() {
                tl.link_busy = s;
            }
        }
    }

    /// Breakdown: one passage of class `c` through component `k` took `v`.
    #[inline]
    pub fn add(&mut self, c: Class, k: usize, v: Ps) {
        self.sums[c.idx()][k] += v;
        self.passages[c.idx()][k] += 1;
    }

    /// ECC of one page at flash controller `fc`, data ready now; returns its end.
    #[inline]
    pub fn ecc(&mut self, fc: u32, now: Ps) -> Ps {
        if self.ecc_page == 0 {
            return now;
        }
        self.ecc[fc as usize].reserve_for(now, now, self.ecc_page)
    }

    /// Final counters over `span`, with the DRAM's.
    pub fn finish(&mut self, span: Ps, dram: &Resource) -> ControllerStats {
        let mut s = std::mem::take(&mut self.stats);
        s.system_bus_utilization = self.bus.utilization(span);
        s.system_bus_grants = self.bus.grants;
        s.dram_utilization = dram.utilization(span);
        s.dram_grants = dram.grants;
        s.ecc_utilization = self.ecc.iter().map(|e| e.utilization(span)).collect();
        s.fc_link_utilization = match &self.link {
            FcLink::None => 0.0,
            FcLink::SystemBus => s.system_bus_utilization,
            FcLink::Dedicated(r) => r.utilization(span),
            FcLink::Fnoc(n) => {
                let busy = &n.stats.port_busy;
                let g = n.graph();
                let net_ports: Vec<usize> = (0..g.total_ports())
                    .filter(|&p| g.far(p) != NONE)
                    .map(|p| p as usize)
                    .collect();
                if net_ports.is_empty() || span == 0 {
                    0.0
                } else {
                    net_ports
                        .iter()
                        .map(|&p| (busy[p] as f64 / span as f64).min(1.0))
                        .sum::<f64>()
                        / net_ports.len() as f64
                }
            }
        };
        let mean = |c: Class| {
            let c = c.idx();
            let n = self.pages[c].max(1) as f64 * 1e3;
            let v = &self.sums[c];
            BreakdownNs {
                pages: self.pages[c],
                queue: v[C_QUEUE] as f64 / n,
                flash: v[C_FLASH] as f64 / n,
                ecc: v[C_ECC] as f64 / n,
                system_bus: v[C_BUS] as f64 / n,
                dram: v[C_DRAM] as f64 / n,
                fc_link: v[C_LINK] as f64 / n,
            }
        };
        let per_passage = |c: Class| {
            let c = c.idx();
            let v = &self.sums[c];
            let m = |k: usize| v[k] as f64 / 1e3 / self.passages[c][k].max(1) as f64;
            BreakdownNs {
                pages: self.pages[c],
                queue: m(C_QUEUE),
                flash: m(C_FLASH),
                ecc: m(C_ECC),
                system_bus: m(C_BUS),
                dram: m(C_DRAM),
                fc_link: m(C_LINK),
            }
        };
        s.stage_passage_ns = LatencyBreakdown {
            user_read: per_passage(Class::Read),
            user_write: per_passage(Class::Write),
            gc_move: per_passage(Class::Gc),
        };
        s.latency_breakdown_ns = LatencyBreakdown {
            user_read: mean(Class::Read),
            user_write: mean(Class::Write),
            gc_move: mean(Class::Gc),
        };
        let global = s.gc_moves_global_cross_channel + s.gc_moves_global_same_channel;
        s.mean_fc_link_ns = if global > 0 {
            self.link_time as f64 / 1e3 / global as f64
        } else {
            0.0
        };
        s
    }
}

impl DataPathModel for Controller {
    #[inline]
    fn controller_on(&self) -> bool {
        true
    }
    #[inline]
    fn global_copyback(&self) -> bool {
        self.design.global_copyback()
    }
    /// Host data between the host interface and DRAM crosses the system bus (dSSD §2.1: "The
    /// DRAM and system-bus are utilized if I/O requests result in a hit"; Fig. 1, Fig. 7(b)).
    #[inline]
    fn host_bus(&mut self, now: Ps, bytes: u32, class: Class) -> Ps {
        let e = self.bus.reserve(now, now, bytes as u64);
        self.add(class, C_BUS, e - now);
        e
    }
    /// dSSD §2.1: write data lands in DRAM (over the system bus) before it goes to the flash
    /// controller.
    #[inline]
    fn write_into_dram(&mut self, dram: &mut Resource, now: Ps, bytes: u32) {
        let b = self.host_bus(now, bytes, Class::Write);
        dram.reserve(now, b, bytes as u64);
    }
    /// dSSD §2.1, §3: program data goes DRAM → system bus → FC, page by page; a global
    /// copyback page is already in the destination FC's dBUF (§4.2).
    fn stage_program(
        &mut self,
        dram: &mut Resource,
        now: Ps,
        kind: TxnKind,
        picked: &[u32],
        txns: &Slab<Txn>,
    ) -> Option<Ps> {
        if kind == TxnKind::GcWrite && self.design.global_copyback() {
            return None;
        }
        let mut end = now;
        for &t in picked {
            let x = &txns[t];
            let b = x.bytes as u64;
            let d = if self.dram_forward_reads {
                dram.reserve(now, now, b)
            } else {
                now
            };
            let e = self.bus.reserve(now, d, b);
            if let Some(c) = x.kind.breakdown_class() {
                self.add(c, C_DRAM, d - now);
                self.add(c, C_BUS, e - d);
            }
            end = end.max(e);
        }
        Some(end)
    }
    #[inline]
    fn queued(&mut self, c: Class, wait: Ps) {
        self.add(c, C_QUEUE, wait);
    }
    #[inline]
    fn on_die(&mut self, c: Class, dt: Ps, page: bool) {
        self.add(c, C_FLASH, dt);
        if page {
            self.pages[c.idx()] += 1;
        }
    }
    #[inline]
    fn take_source_dbuf(&mut self, fc: u32, n: u32) {
        self.dbuf_used[fc as usize] += n;
    }
    /// Pages a GC read may still put into its FC's dBUF (dSSD §6.5: two 32 KB dBUFs per FC);
    /// unbounded without global copyback.
    #[inline]
    fn dbuf_room(&self, fc: u32) -> u32 {
        if self.design.global_copyback() {
            self.dbuf_pages.saturating_sub(self.dbuf_used[fc as usize])
        } else {
            u32::MAX
        }
    }
    #[inline]
    fn gc_ops_during_io(&mut self, n: u64) {
        // GC performance while host I/O runs (dSSD §6.1).
        self.stats.gc_page_ops_during_io = n;
    }
}

impl<Q: DriveQueue> Ssd<Q> {
    pub fn on_datapath_event(&mut self, now: Ps, ev: DataPathEvent) {
        match ev {
            DataPathEvent::StageDone { die } => self.submit_command(now, die as usize),
            DataPathEvent::MoveDone { txn } => self.move_done(now, txn),
            DataPathEvent::DbufDepart { txn } => self.dbuf_depart(now, txn),
            DataPathEvent::FnocWake => self.fnoc_wake(now),
        }
    }

    /// Pages a GC read on `die` may still put into its FC's dBUF.
    #[inline]
    pub(crate) fn dbuf_room(&self, die: usize) -> u32 {
        self.datapath.dbuf_room_of(self.fc_of_die(die as u32))
    }

    /// A global copyback GC read about to be dispatched with a bounded destination dBUF
    /// (`dbuf_destination_bytes`): choose its destination (once) and take a slot in that FC's
    /// dBUF, or leave the read queued (false). Reserving at dispatch, not when the page is
    /// ready to leave, means no page holds its source dBUF and the die while it waits for a
    /// slot that only a GC program (which may need that die's GC) frees.
    pub(crate) fn claim_destination_slot(&mut self, t: u32) -> bool {
        match self.datapath.controller() {
            Some(c) if c.design.global_copyback() && c.dbuf_in_pages != u32::MAX => {}
            _ => return true,
        }
        let (d, first) = match self.txns[t].gc_destination() {
            Some(d) => (d, false),
            None => {
                let d = self.gc_destination(self.txns[t].plane);
                self.txns[t].role = Role::GcTo { plane: d };
                (d, true)
            }
        };
        let dst = self.fc_of_plane(d) as usize;
        let ctl = self.datapath.controller().expect("controller model on");
        if ctl.dbuf_in[dst] < ctl.dbuf_in_pages {
            ctl.dbuf_in[dst] += 1;
            true
        } else {
            if first {
                ctl.stats.dbuf_destination_waits += 1;
            }
            false
        }
    }

    /// A page read left its die (controller model): ECC at its FC, then along its path
    /// (module doc) to DRAM or to the destination FC's dBUF.
    pub(crate) fn move_read(&mut self, now: Ps, t: u32, fc: u32) {
        let x = self.txns[t];
        let bytes = x.bytes as u64;
        let global = x.kind == TxnKind::GcRead && self.datapath.global_copyback();
        let dst_fc = if global {
            // Chosen at dispatch with a bounded destination dBUF.
            let d = match x.gc_destination() {
                Some(d) => d,
                None => self.gc_destination(x.plane),
            };
            self.txns[t].role = Role::GcTo { plane: d };
            self.fc_of_plane(d)
        } else {
            NONE
        };
        let DataPath { dram, model } = &mut self.datapath;
        let Model::Dssd(ctl) = model else {
            unreachable!("controller model on")
        };
        let e = ctl.ecc(fc, now);
        let class = x.kind.breakdown_class();
        if let Some(c) = class {
            ctl.add(c, C_ECC, e - now);
            if c == Class::Read {
                ctl.pages[c.idx()] += 1;
            }
        }
        if !global {
            // dSSD §3, Fig. 1: FC → system bus → DRAM; a read miss is then read out of DRAM
            // for the host (charged with `dram_forward_reads`).
            let b = ctl.bus.reserve(now, e, bytes);
            let mut end = dram.reserve(now, b, bytes);
            if x.kind == TxnKind::UserRead && ctl.dram_forward_reads {
                end = dram.reserve(now, end, bytes);
            }
            if let Some(c) = class {
                ctl.add(c, C_BUS, b - e);
                ctl.add(c, C_DRAM, end - b);
            }
            if x.kind == TxnKind::GcRead {
                ctl.stats.gc_moves_through_dram += 1;
            }
            self.q.schedule(end, DataPathEvent::MoveDone { txn: t });
            return;
        }
        // Global copyback (§4.2, Fig. 4): dBUF → [bus | dedicated bus | fNoC] → dBUF, once the
        // destination dBUF has room.
        if dst_fc == fc {
            ctl.stats.gc_moves_global_same_channel += 1;
        } else {
            ctl.stats.gc_moves_global_cross_channel += 1;
        }
        self.q.schedule(e, DataPathEvent::DbufDepart { txn: t });
    }

    /// A global copyback page through its source ECC goes to its destination FC's dBUF
    /// (§4.2; §6.5: the dBUFs are 32 KB). A bounded dBUF's slot was taken at dispatch.
    fn dbuf_depart(&mut self, now: Ps, t: u32) {
        let dst = self.fc_of_plane(self.txns[t].gc_destination().expect("chosen")) as usize;
        let ctl = self.datapath.controller().expect("controller model on");
        if ctl.dbuf_in_pages == u32::MAX {
            ctl.dbuf_in[dst] += 1;
        }
        self.dbuf_go(now, t);
    }

    /// `k` pages left the destination dBUF of `fc` (their program moved them into the chip,
    /// or they were dropped): if it was full, GC reads waiting for its slots may start.
    pub(crate) fn dbuf_release(&mut self, now: Ps, fc: u32, k: u32) {
        let ctl = self.datapath.controller().expect("controller model on");
        let was_full = ctl.dbuf_in[fc as usize] >= ctl.dbuf_in_pages;
        ctl.dbuf_in[fc as usize] -= k;
        if was_full {
            for die in 0..self.tsu.die_count() {
                self.try_dispatch(now, die);
            }
        }
    }

    /// A global copyback page with its destination slot: to the destination FC over the
    /// design's link (same channel: none).
    fn dbuf_go(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        let to = x
            .gc_destination()
            .expect("chosen when the page left its FC");
        let (fc, dst) = (self.fc_of_plane(x.plane), self.fc_of_plane(to));
        let ctl = self.datapath.controller().expect("controller model on");
        if fc == dst {
            self.q.schedule(now, DataPathEvent::MoveDone { txn: t });
            return;
        }
        let bytes = x.bytes as u64;
        let end = match &mut ctl.link {
            FcLink::None => unreachable!("global copyback needs an FC link"),
            FcLink::SystemBus => {
                let b = ctl.bus.reserve(now, now, bytes);
                ctl.add(Class::Gc, C_BUS, b - now);
                b
            }
            FcLink::Dedicated(r) => {
                let b = r.reserve(now, now, bytes);
                ctl.add(Class::Gc, C_LINK, b - now);
                b
            }
            FcLink::Fnoc(net) => {
                // The page enters the fNoC at its source FC (endpoint = FC index).
                let bytes = bytes + ctl.header_bytes as u64;
                net.send(now, fc, dst, bytes, t as u64);
                self.fnoc_arm();
                return;
            }
        };
        ctl.link_time += end - now;
        self.q.schedule(end, DataPathEvent::MoveDone { txn: t });
    }

    /// A page read reached DRAM or its destination FC: free its source dBUF slot (global
    /// copyback), let that FC's dies read again, and complete the transaction.
    fn move_done(&mut self, now: Ps, t: u32) {
        let x = self.txns[t];
        if x.kind == TxnKind::GcRead && self.datapath.global_copyback() {
            let g = &self.ftl.geo;
            let cpc = self.cfg.flash.chips_per_channel;
            let dpc = g.dies_per_chip;
            let fc = g.chip_of_die(g.die_of_plane(x.plane)) / cpc;
            let c = self.datapath.controller().expect("controller model on");
            let was_full = c.dbuf_used[fc as usize] >= c.dbuf_pages;
            c.dbuf_used[fc as usize] -= 1;
            self.complete_txn(now, t);
            if was_full {
                let first = fc * cpc * dpc;
                for die in first..first + cpc * dpc {
                    self.try_dispatch(now, die as usize);
                }
            }
            return;
        }
        self.complete_txn(now, t);
    }

    /// Keep one `FnocWake` in the queue at or before the fNoC's next event.
    fn fnoc_arm(&mut self) {
        let ctl = self.datapath.controller().expect("controller model on");
        let FcLink::Fnoc(net) = &ctl.link else { return };
        if let Some(t) = net.next_event_time() {
            if ctl.wakes.first().is_none_or(|&w| t < w) {
                self.q.schedule(t, DataPathEvent::FnocWake);
                ctl.wakes.insert(0, t);
            }
        }
    }

    fn fnoc_wake(&mut self, now: Ps) {
        let ctl = self.datapath.controller().expect("controller model on");
        ctl.wakes.remove(0);
        let FcLink::Fnoc(net) = &mut ctl.link else {
            return;
        };
        if let Err(e) = net.advance(now, &mut ctl.deliveries) {
            self.fault = Some(format!("fnoc: {e}"));
            return;
        }
        if let Some(tl) = &mut self.timeline {
            let busy: Ps = net.stats.port_busy.iter().sum();
            tl.link_busy.add(now, busy - ctl.fnoc_busy_seen);
            ctl.fnoc_busy_seen = busy;
        }
        let mut deliveries = std::mem::take(&mut ctl.deliveries);
        for d in deliveries.drain(..) {
            ctl.link_time += d.delivered - d.sent;
            ctl.add(Class::Gc, C_LINK, d.delivered - d.sent);
            self.q
                .schedule(d.delivered, DataPathEvent::MoveDone { txn: d.tag as u32 });
        }
        ctl.deliveries = deliveries;
        self.fnoc_arm();
    }
}
