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

use crate::config::{ControllerConfig, Design, SsdConfig};
use crate::interconnect::network::{Delivery, Network};
use crate::time::{ns, transfer_time, Ps};
use serde::Serialize;

/// A server with a bandwidth, a fixed time per grant and a calendar of booked intervals.
#[derive(Clone, Debug)]
pub struct Resource {
    bytes_per_s: f64,
    per_grant: Ps,
    free_at: Ps,
    /// Booked intervals that end after the last `now` seen, by start time.
    booked: std::collections::VecDeque<(Ps, Ps)>,
    pub busy: Ps,
    pub grants: u64,
    /// Tests: every grant's interval, to check that no two overlap.
    pub audit: Option<Vec<(Ps, Ps)>>,
    /// `--timeline`: busy time per window.
    pub windows: Option<Series>,
}

impl Resource {
    /// `mb_s` in 10^6 bytes per second; `per_grant_ns` charged once per grant.
    pub fn new(mb_s: f64, per_grant_ns: f64) -> Self {
        Self {
            bytes_per_s: mb_s * 1e6,
            per_grant: ns(per_grant_ns),
            free_at: 0,
            booked: std::collections::VecDeque::with_capacity(64),
            busy: 0,
            grants: 0,
            audit: None,
            windows: None,
        }
    }

    /// At time `now`, grant `bytes` to a movement ready at `ready` (≥ `now`); returns when
    /// it ends.
    #[inline]
    pub fn reserve(&mut self, now: Ps, ready: Ps, bytes: u64) -> Ps {
        let d = self.per_grant + transfer_time(bytes, self.bytes_per_s);
        self.reserve_for(now, ready, d)
    }

    /// At time `now`, grant the resource for `d` to a movement ready at `ready`: the earliest
    /// free interval of length `d` at or after `ready`. Returns when it ends.
    #[inline]
    pub fn reserve_for(&mut self, now: Ps, ready: Ps, d: Ps) -> Ps {
        debug_assert!(ready >= now);
        while self.booked.front().is_some_and(|b| b.1 <= now) {
            self.booked.pop_front();
        }
        let (mut start, mut at) = (ready, self.booked.len());
        for (i, &(s, e)) in self.booked.iter().enumerate() {
            if start + d <= s {
                at = i;
                break;
            }
            start = start.max(e);
        }
        let end = start + d;
        if d > 0 {
            self.booked.insert(at, (start, end));
        }
        self.free_at = self.free_at.max(end);
        self.busy += d;
        self.grants += 1;
        if let Some(a) = &mut self.audit {
            a.push((start, end));
        }
        if let Some(w) = &mut self.windows {
            w.add_busy(start, end);
        }
        end
    }

    /// When the resource is next free.
    pub fn free_at(&self) -> Ps {
        self.free_at
    }

    pub fn utilization(&self, span: Ps) -> f64 {
        if span == 0 {
            0.0
        } else {
            (self.busy as f64 / span as f64).min(1.0)
        }
    }
}

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

/// Latency classes and components of the breakdown (dSSD Fig. 9).
pub const CLASS_READ: usize = 0;
pub const CLASS_WRITE: usize = 1;
pub const CLASS_GC: usize = 2;
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
    pub design: Design,
    pub bus: Resource,
    pub link: FcLink,
    pub ecc: Vec<Resource>,
    pub ecc_page: Ps,
    pub header_bytes: u32,
    /// Global copyback: pages one FC's dBUF holds (§6.5), and pages in each FC's dBUF from
    /// their GC read until they reach the destination FC.
    pub dbuf_pages: u32,
    pub dbuf_used: Vec<u32>,
    /// Pages in each FC's destination dBUF, or on their way to it with a slot reserved, and
    /// the pages it holds (`u32::MAX`: unbounded).
    pub dbuf_in: Vec<u32>,
    pub dbuf_in_pages: u32,
    /// `controller.dram_forward_reads`.
    pub dram_forward_reads: bool,
    pub stats: ControllerStats,
    pub link_time: Ps,
    /// Breakdown sums, ps, and passages (operations that crossed the stage), by class and
    /// component; pages by class.
    pub sums: [[Ps; 6]; 3],
    pub passages: [[u64; 6]; 3],
    pub pages: [u64; 3],
    /// fNoC: deliveries of the last advance, and the times of the engine wakes pending.
    pub deliveries: Vec<Delivery>,
    pub wakes: Vec<Ps>,
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
            sums: [[0; 6]; 3],
            passages: [[0; 6]; 3],
            pages: [0; 3],
            deliveries: Vec::with_capacity(16),
            wakes: Vec::with_capacity(4),
        })
    }

    /// Breakdown: one passage of class `c` through component `k` took `v`.
    #[inline]
    pub fn add(&mut self, c: usize, k: usize, v: Ps) {
        self.sums[c][k] += v;
        self.passages[c][k] += 1;
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
                    .filter(|&p| g.far(p) != crate::interconnect::network::topology::NONE)
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
        let mean = |c: usize| {
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
        let per_passage = |c: usize| {
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
            user_read: per_passage(CLASS_READ),
            user_write: per_passage(CLASS_WRITE),
            gc_move: per_passage(CLASS_GC),
        };
        s.latency_breakdown_ns = LatencyBreakdown {
            user_read: mean(CLASS_READ),
            user_write: mean(CLASS_WRITE),
            gc_move: mean(CLASS_GC),
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

/// At most this many windows in a `--timeline` series: a longer run widens its windows (a
/// trace may leave its drive idle for days between two requests; 1 ms windows over 100 days
/// would be 8.6 G rows).
pub const MAX_WINDOWS: usize = 1 << 20;

/// Sums per time window (bytes, or busy ps). When a time falls past [`MAX_WINDOWS`] windows,
/// the window doubles and neighbouring pairs merge: exact, since every value is a sum.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub window: Ps,
    pub v: Vec<u64>,
}

impl Series {
    pub fn new(window: Ps) -> Self {
        Self {
            window: window.max(1),
            v: Vec::new(),
        }
    }

    /// The window holding `t`, widening until it is one of the first [`MAX_WINDOWS`].
    fn index(&mut self, t: Ps) -> usize {
        while t / self.window >= MAX_WINDOWS as Ps {
            self.widen();
        }
        (t / self.window) as usize
    }

    /// Double the window: window `i` becomes the sum of windows `2i` and `2i + 1`.
    fn widen(&mut self) {
        let n = self.v.len().div_ceil(2);
        for i in 0..n {
            self.v[i] = self.v[2 * i] + self.v.get(2 * i + 1).copied().unwrap_or(0);
        }
        self.v.truncate(n);
        self.window = self.window.saturating_mul(2);
    }

    /// Widen to `window` (this series' window times a power of two).
    pub fn widen_to(&mut self, window: Ps) {
        while self.window < window {
            self.widen();
        }
    }

    /// Window `i`'s sum, growing the series to hold it.
    fn slot(&mut self, i: usize) -> &mut u64 {
        if self.v.len() <= i {
            self.v.resize(i + 1, 0);
        }
        &mut self.v[i]
    }

    /// Add `x` to the window holding `t`.
    pub fn add(&mut self, t: Ps, x: u64) {
        let i = self.index(t);
        *self.slot(i) += x;
    }

    /// Spread the busy interval `[start, end)` over the windows.
    pub fn add_busy(&mut self, start: Ps, end: Ps) {
        if end > start {
            self.index(end - 1); // widen first, so the loop below sees the final window
        }
        let mut t = start;
        while t < end {
            let i = (t / self.window) as usize;
            let e = end.min((i as Ps + 1) * self.window);
            *self.slot(i) += e - t;
            t = e;
        }
    }
}

/// Per-window series of a run (`--timeline`; dSSD Fig. 2): I/O and GC bytes, and busy time
/// of the system bus, the DRAM and the FC-to-FC link. After [`Timeline::align`] every series
/// has the same window.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// The window asked for; the series' own may be wider (see [`MAX_WINDOWS`]).
    pub requested: Ps,
    /// Bytes of host requests completed in each window.
    pub io_bytes: Series,
    /// Bytes of GC page moves completed (their program, or copyback, done) in each window.
    pub gc_bytes: Series,
    /// Bytes of GC page reads completed in each window: a move's first half, so GC shows
    /// while its reads hold the channels and the bus, before any of its programs ends.
    pub gc_read_bytes: Series,
    pub bus_busy: Series,
    pub dram_busy: Series,
    /// Dedicated bus busy time, or the fNoC's link-direction busy time over its links
    /// (counted when the fNoC runs, so a little late), or 0.
    pub link_busy: Series,
    /// fNoC link directions (1 for a bus) to turn `link_busy` into a utilization.
    pub links: u32,
}

impl Timeline {
    pub fn new(window: Ps) -> Self {
        let s = Series::new(window);
        Self {
            requested: s.window,
            io_bytes: s.clone(),
            gc_bytes: s.clone(),
            gc_read_bytes: s.clone(),
            bus_busy: s.clone(),
            dram_busy: s.clone(),
            link_busy: s,
            links: 1,
        }
    }

    fn each(&self) -> [&Series; 6] {
        [
            &self.io_bytes,
            &self.gc_bytes,
            &self.gc_read_bytes,
            &self.bus_busy,
            &self.dram_busy,
            &self.link_busy,
        ]
    }

    fn each_mut(&mut self) -> [&mut Series; 6] {
        [
            &mut self.io_bytes,
            &mut self.gc_bytes,
            &mut self.gc_read_bytes,
            &mut self.bus_busy,
            &mut self.dram_busy,
            &mut self.link_busy,
        ]
    }

    /// Widen every series to the widest one's window.
    pub fn align(&mut self) {
        let w = self.each().iter().map(|s| s.window).max().unwrap_or(1);
        for s in self.each_mut() {
            s.widen_to(w);
        }
    }

    /// The series' window (after [`Self::align`]).
    pub fn window(&self) -> Ps {
        self.io_bytes.window
    }

    /// CSV: one line per window (of an aligned timeline: a run's is aligned when it ends).
    pub fn csv(&self) -> String {
        debug_assert!(
            self.each().iter().all(|s| s.window == self.window()),
            "align first"
        );
        let n = self.each().iter().map(|s| s.v.len()).max().unwrap_or(0);
        let w = self.window() as f64;
        let at = |s: &Series, i: usize| s.v.get(i).copied().unwrap_or(0) as f64;
        let mut out = String::from(
            "window_start_ms,io_mb_s,gc_mb_s,gc_read_mb_s,system_bus_utilization,dram_utilization,\
             fc_link_utilization\n",
        );
        let secs = w / 1e12;
        for i in 0..n {
            out.push_str(&format!(
                "{},{:.3},{:.3},{:.3},{:.4},{:.4},{:.4}\n",
                i as f64 * w / 1e9,
                at(&self.io_bytes, i) / secs / 1e6,
                at(&self.gc_bytes, i) / secs / 1e6,
                at(&self.gc_read_bytes, i) / secs / 1e6,
                at(&self.bus_busy, i) / w,
                at(&self.dram_busy, i) / w,
                at(&self.link_busy, i) / w / self.links.max(1) as f64,
            ));
        }
        out
    }
}

/// `Err` naming the first resource granted to two movements at once: in time order, every
/// grant must start at or after the previous one's end.
pub fn check_grants(lists: &[(&str, Vec<(Ps, Ps)>)]) -> Result<(), String> {
    for (name, g) in lists {
        let mut g = g.clone();
        g.sort_unstable();
        for w in g.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(format!(
                    "{name}: grant {:?} ps starts before the previous one {:?} ends",
                    w[1], w[0]
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4096 B at 8 GB/s = 512 ns; a second grant ready earlier waits for the first
    /// (probe at t-1 and t).
    #[test]
    fn fifo_grant_times() {
        let mut r = Resource::new(8000.0, 10.0);
        assert_eq!(r.reserve(0, 0, 4096), 522_000);
        assert_eq!(r.reserve(0, 100_000, 4096), 1_044_000);
        // Ready exactly when free: no wait; one ps later than free: starts then.
        assert_eq!(r.reserve(0, 1_044_000, 0), 1_054_000);
        assert_eq!(r.reserve(0, 1_054_001, 0), 1_064_001);
        assert_eq!(r.busy, 522_000 * 2 + 20_000);
        assert_eq!(r.grants, 4);
        // Booked for later: a grant that fits in the gap before it goes first; one that does
        // not fit waits for the end of the booking.
        let mut r = Resource::new(1000.0, 0.0);
        assert_eq!(r.reserve(0, 10_000_000, 1000), 11_000_000);
        assert_eq!(r.reserve(0, 0, 1000), 1_000_000);
        assert_eq!(r.reserve(0, 9_000_000, 1000), 10_000_000);
        assert_eq!(r.reserve(0, 9_500_000, 1000), 12_000_000);
    }

    #[test]
    fn a_series_past_its_windows_widens_exactly() {
        let mut s = Series::new(10);
        s.add(5, 1);
        s.add(15, 2);
        s.add_busy(25, 32); // 5 in window 2, 2 in window 3
        assert_eq!((s.window, s.v.clone()), (10, vec![1, 2, 5, 2]));
        // Window MAX_WINDOWS (the first one past the limit): pairs merge once.
        s.add(10 * MAX_WINDOWS as Ps, 7);
        assert_eq!(s.window, 20);
        assert_eq!(s.v.len(), MAX_WINDOWS / 2 + 1);
        assert_eq!((s.v[0], s.v[1], s.v[MAX_WINDOWS / 2]), (3, 7, 7));
        // A time 100 days in, from 1 us windows: widened until it fits, sums kept.
        let mut s = Series::new(crate::time::PS_PER_US);
        s.add_busy(0, 3);
        let far = 100 * 86_400 * crate::time::PS_PER_MS * 1000;
        s.add_busy(far, far + 4);
        assert!(s.v.len() <= MAX_WINDOWS && far / s.window < MAX_WINDOWS as Ps);
        assert_eq!(s.window % crate::time::PS_PER_US, 0);
        assert_eq!((s.v[0], s.v.iter().sum::<u64>()), (3, 7));
        // Aligning a timeline widens the others to the widest.
        let mut t = Timeline::new(10);
        t.io_bytes.add(40 * MAX_WINDOWS as Ps - 1, 1); // the last time of 40-ps windows
        t.gc_bytes.add(15, 9);
        t.align();
        assert_eq!(
            (t.window(), t.gc_bytes.window, t.gc_bytes.v.clone()),
            (40, 40, vec![9])
        );
        assert_eq!(t.requested, 10);
    }

    proptest::proptest! {
        /// Whatever the order and readiness of requests, grants never overlap, none starts
        /// before its data is ready, and each lasts its transfer time.
        #[test]
        fn grants_never_overlap(reqs in proptest::collection::vec((0u64..10_000_000, 0u64..65_536), 1..200)) {
            let mut r = Resource::new(1000.0, 5.0);
            r.audit = Some(Vec::new());
            let mut ends = Vec::new();
            for &(ready, bytes) in &reqs {
                ends.push(r.reserve(0, ready, bytes));
            }
            let g = r.audit.take().unwrap();
            proptest::prop_assert!(check_grants(&[("r", g.clone())]).is_ok());
            for (i, &(ready, bytes)) in reqs.iter().enumerate() {
                proptest::prop_assert!(g[i].0 >= ready);
                proptest::prop_assert_eq!(g[i].1 - g[i].0, 5_000 + transfer_time(bytes, 1e9));
                proptest::prop_assert_eq!(g[i].1, ends[i]);
            }
        }
    }
}
