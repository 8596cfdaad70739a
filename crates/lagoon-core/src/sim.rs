//! The simulation: host flows, NVMe host interface, DRAM write buffer, FTL with cached
//! mapping table and GC, per-die transaction scheduling, flash dies, and an interconnect,
//! driven by one event queue.
//!
//! Life of a request (events in capitals):
//! ```text
//! host ARRIVAL ─▶ submission queue ─▶ fetch (PCIe: SQE [+ write data]) ─▶ FETCHED
//!   write: buffer pages in DRAM ─▶ DRAM_DONE ─▶ CQE ─▶ COMPLETED   (pages destaged later)
//!   read : per page: cache hit (DRAM) | CMT lookup [─▶ mapping read] ─▶ die queue
//! die: command TRANSFER_DONE ─▶ ARRAY_DONE (tR/tPROG/tBERS) [─▶ data-out TRANSFER_DONE]
//!   all pages done ─▶ PCIe read data + CQE ─▶ COMPLETED
//! ```
//! Per-request and per-transaction state live in slabs addressed by `u32`; die queues are
//! intrusive linked lists through the transaction slab, so the steady state allocates nothing.

use crate::config::{
    DieScheduling, GcDestination, GcMappingUpdate, GcMode, GcPacing, MappingConfig, Multiplane,
    SsdConfig, WriteCompletion,
};
use crate::engine::EventQueue;
use crate::flash::{FlashOp, FlashTiming};
use crate::host::piq::{ChipSet, HostScheduler, SchedulerStats, Scheme};
use crate::host::{Flow, Replay};
use crate::interconnect::{self, Arch, IcEvent, Interconnect, Transfer};
use crate::ssd::cache::{Admit, DataCache};
use crate::ssd::controller::{
    Controller, ControllerStats, FcLink, Resource, Series, Timeline, CLASS_GC, CLASS_READ,
    CLASS_WRITE, C_BUS, C_DRAM, C_ECC, C_FLASH, C_LINK, C_QUEUE,
};
use crate::ssd::dynamic_superblock::BlockRemap;
use crate::ssd::ftl::cmt::{Cmt, Evicted};
use crate::ssd::ftl::{Ftl, Stream, MAP_TAG, NONE};
use crate::ssd::hil::PcieLink;
use crate::ssd::lru::IntMap;
use crate::stats::FlowLatency;
use crate::time::{Ps, PS_PER_NS, PS_PER_S};
use lagoon_workload::{IoRequest, Op, WorkloadError};

/// Everything that can happen. Small and `Copy`: ordered by (time, sequence) in the queue.
/// A 64-bit tag and an 8-byte payload, so it moves as two whole words: at 12 bytes, align
/// 4, it was copied as overlapping pieces that stalled store forwarding in the event loop.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Event {
    /// The next request of a timed flow reaches the host's submission queue.
    Arrival { flow: u16 },
    /// A request's submission queue entry (and write data) reached the controller.
    Fetched { req: u32 },
    /// DRAM finished moving `pages` pages of a request (buffered write or cache-hit read).
    DramDone { req: u32, pages: u32 },
    /// A die's array operation (tR, tPROG, tBERS) ended.
    ArrayDone { die: u32 },
    /// The completion entry reached the host.
    Completed { req: u32 },
    /// A program's data reached its flash controller over DRAM and the system bus
    /// (`controller.enabled`): the die's command and data transfer can start.
    StageDone { die: u32 },
    /// A page read reached its destination past the flash controller (DRAM, or a dBUF for
    /// global copyback): its transaction completes.
    MoveDone { txn: u32 },
    /// A global copyback page is through its source FC's ECC: it leaves for its destination
    /// FC once that FC's destination dBUF has room for it.
    DbufDepart { txn: u32 },
    /// The fNoC has events due.
    FnocWake,
    /// A probe operation is injected (timing tests).
    Probe { op: u32 },
    /// The back end's report or internal event.
    Ic(IcEvent),
}

impl From<IcEvent> for Event {
    #[inline(always)]
    fn from(e: IcEvent) -> Self {
        Event::Ic(e)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxnKind {
    UserRead,
    UserWrite,
    MapRead,
    MapWrite,
    /// Read of the sectors a partial-page write does not cover (read-modify-write).
    RmwRead,
    GcRead,
    GcWrite,
    Copyback,
    Erase,
    /// A page read for software superblock management's wear status (`ftl.status_scan_blocks`).
    ScanRead,
}

/// Die queues, by scheduling class.
const Q_MAP_READ: usize = 0;
const Q_READ: usize = 1;
const Q_WRITE: usize = 2;
const Q_GC_READ: usize = 3;
const Q_GC_WRITE: usize = 4;
const Q_ERASE: usize = 5;
const NQ: usize = 6;
/// GC first (MQSim PRIORITY_OUT_OF_ORDER with non-preemptible GC): mapping reads, GC, then user.
const ORDER_GC_FIRST: [usize; NQ] = [Q_MAP_READ, Q_GC_READ, Q_GC_WRITE, Q_ERASE, Q_READ, Q_WRITE];
/// User first (preemptible GC outside the hard threshold): reads before writes before GC.
const ORDER_USER_FIRST: [usize; NQ] = [Q_MAP_READ, Q_READ, Q_WRITE, Q_GC_READ, Q_GC_WRITE, Q_ERASE];
/// How far down a queue the scheduler looks for out-of-order or multi-plane partners.
const SCAN_LIMIT: usize = 64;
/// Page offsets told apart by the read-partner counters (`Simulator::read_offsets`): offsets
/// equal modulo this share a counter, which then only says a partner may wait.
const OFFSET_CLASSES: usize = 64;
const MAX_PLANES: usize = 16;

#[derive(Clone, Copy, Debug)]
struct Txn {
    kind: TxnKind,
    /// Owning request, or NONE (cache destage, mapping and GC traffic).
    req: u32,
    /// Logical page; for GC moves the reverse-map tag; for mapping traffic the translation page.
    lpa: u32,
    /// Physical page read (reads, GC source) or written (after dispatch).
    ppa: u32,
    /// Plane the transaction executes on.
    plane: u32,
    /// Bytes moved over the interconnect for this page.
    bytes: u32,
    /// Next transaction in a die queue or waiting list.
    next: u32,
    /// RmwRead: the write it precedes.
    link: u32,
}

#[derive(Clone, Copy, Debug)]
struct Request {
    flow: u16,
    is_read: bool,
    conflict: bool,
    arrival: Ps,
    enqueued: Ps,
    offset: u64,
    size: u32,
    /// Pages not yet done.
    pending: u32,
    /// Writes waiting for buffer space: next page to buffer.
    next_page: u32,
    /// Intrusive list link (submission queue, buffer wait list, free list).
    next: u32,
    /// In use (not on the free list): guards against completing a request twice.
    live: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Dispatching,
    Command,
    Array,
    DataOut,
}

#[derive(Clone, Copy)]
struct Die {
    phase: Phase,
    op: FlashOp,
    txns: [u32; MAX_PLANES],
    n: u8,
    bytes: u32,
    started: Ps,
    busy_time: Ps,
    array_time: Ps,
    /// GC operations started since the die last started a user one (`tiny-tail`).
    gc_streak: u32,
    /// When its command went to the interconnect (after any data staging).
    stage_end: Ps,
}

#[derive(Clone, Copy, Default)]
struct List {
    head: u32,
    tail: u32,
}

impl List {
    const EMPTY: List = List {
        head: NONE,
        tail: NONE,
    };
}

struct FlowState {
    name: String,
    source: crate::host::RequestSource,
    replay: Replay,
    /// The next request not yet in the submission queue and its host arrival time.
    next: Option<(Ps, IoRequest)>,
    /// Host is holding `next` because the submission queue is full.
    held: bool,
    t0_ns: Option<u64>,
    last_arrival: Ps,
    in_sq: u32,
    sq: List,
    /// Logical pages this flow addresses: [base, base + span).
    lpa_base: u64,
    lpa_span: u64,
    latency: FlowLatency,
    completed: u64,
    reads: u64,
    writes: u64,
    bytes: u64,
    conflicted: u64,
    reordered_arrivals: u64,
    /// Host I/O scheduler between the flow and its submission queue (PIQ paper), if any.
    sched: Option<HostScheduler>,
}

/// Counters of flash commands.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FlashCounters {
    pub read_commands: u64,
    pub program_commands: u64,
    pub erase_commands: u64,
    pub copyback_commands: u64,
    pub multiplane_commands: u64,
    pub page_reads: u64,
    pub page_programs: u64,
    pub mapping_reads: u64,
    pub mapping_writes: u64,
    pub rmw_reads: u64,
    pub gc_reads: u64,
    pub gc_writes: u64,
    /// Wear-status page reads (`ftl.status_scan_blocks`; absent from reports without them).
    #[serde(skip_serializing_if = "is_zero")]
    pub scan_reads: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Raw results of a finished run; `report` turns them into the published statistics.
pub struct Outcome {
    pub sim_time: Ps,
    /// Span over which utilizations are measured: to the later of the last completion and
    /// the last flash or interconnect event.
    pub busy_span: Ps,
    pub events: u64,
    pub flows: Vec<FlowOutcome>,
    pub latency: FlowLatency,
    pub flash: FlashCounters,
    pub ftl: crate::ssd::ftl::FtlCounters,
    pub wear: (u32, f64, u32),
    pub interconnect: interconnect::InterconnectStats,
    pub interconnect_name: &'static str,
    pub die_busy_fraction: f64,
    pub die_array_fraction: f64,
    pub cache_read_hits: u64,
    pub cache_write_merges: u64,
    pub conflicted_requests: u64,
    pub state_bytes: usize,
    /// The controller model's counters (`controller.enabled`).
    pub controller: Option<ControllerStats>,
    /// Per-window series, when requested with `set_timeline`.
    pub timeline: Option<Timeline>,
    /// Whether the system bus, DRAM and dedicated bus were ever granted to two movements at
    /// once, when requested with `set_audit`.
    pub resource_audit: Option<Result<(), String>>,
    /// Result of the FTL invariant scan, when requested with `set_verify`.
    pub consistency: Option<Result<(), String>>,
    /// The drive that was simulated (the energy and area model reads it).
    pub config: SsdConfig,
}

pub struct FlowOutcome {
    pub name: String,
    pub replay: Replay,
    pub completed: u64,
    pub reads: u64,
    pub writes: u64,
    pub bytes: u64,
    pub conflicted: u64,
    pub reordered_arrivals: u64,
    pub latency: FlowLatency,
    pub scheduler: Option<SchedulerStats>,
}

pub struct Simulator {
    q: EventQueue<Event>,
    ftl: Ftl,
    cmt: Option<Cmt>,
    cache: Option<DataCache>,
    net: Box<dyn Interconnect<EventQueue<Event>>>,
    timing: FlashTiming,
    pcie: PcieLink,
    cfg: SsdConfig,
    txns: Vec<Txn>,
    free_txn: u32,
    reqs: Vec<Request>,
    free_req: u32,
    dies: Vec<Die>,
    queues: Vec<[List; NQ]>,
    flows: Vec<FlowState>,
    /// Controller-wide requests fetched and not completed.
    in_device: u32,
    rr_flow: usize,
    /// Writes waiting for a free buffer slot.
    buffer_wait: List,
    /// Translation page → transactions waiting for its read.
    map_waiters: IntMap<u32, List>,
    gc_moves: Vec<u32>,
    gc_victim: Vec<u32>,
    scratch: Vec<(u32, u32)>,
    sectors_per_page: u32,
    flash: FlashCounters,
    last_completion: Ps,
    error: Option<WorkloadError>,
    verify: bool,
    probe_done: Vec<(u32, Ps)>,
    watchdog_events: u64,
    /// The memory guard's limit ([`Simulator::state_over_limit`]).
    state_limit: u64,
    /// An input the model cannot represent (reported as [`SimError::Input`]).
    fault: Option<String>,
    /// The controller's DRAM: one FIFO channel (`cache.dram_mb_s`, `cache.dram_access_ns`).
    dram: Resource,
    /// System bus, ECC and FC-to-FC link (`controller.enabled`; dSSD), else `None`.
    ctl: Option<Controller>,
    /// Rotating start of the global GC destination scan.
    gc_rr: u32,
    /// Probe runs: the operations, the die last injected on, GC moves (probe index) in
    /// injection order, and where their pages went.
    probe_ops: Vec<ProbeOp>,
    probe_die: usize,
    probe_gc: Vec<u32>,
    probe_gc_dest: Vec<u32>,
    /// `--timeline`: I/O and GC bytes per window (resources keep their own busy series).
    timeline: Option<Box<Timeline>>,
    /// fNoC busy time already put into the timeline.
    fnoc_busy_seen: Ps,
    /// End the run at the last host completion ([`Simulator::set_stop_at_last_completion`]).
    stop_at_last_completion: bool,
    /// Controller model: when each transaction last entered a die queue, by slab index.
    queued_at: Vec<Ps>,
    /// Asked to stop ([`Simulator::set_cancel`]).
    cancel: Option<crate::cancel::Cancel>,
    /// Dynamic superblocks (dSSD §5, Fig. 15): the plane each block the FTL addresses is on;
    /// `None` = every block on its own plane (every run but an aged drive's window).
    remap: Option<std::sync::Arc<BlockRemap>>,
    /// Dies a dispatch scan handed remapped transactions to (dispatched after the scan).
    forwarded: Vec<u32>,
    /// Reads waiting in each die's two read queues, counted by plane in the die and page
    /// offset modulo [`OFFSET_CLASSES`]: a multi-plane partner search stops at once when no waiting read
    /// could match (most searches find none, and each step reads a scattered transaction).
    /// Kept only under the same-offset rule with out-of-order dies and no block remap, where
    /// the read queues hold only reads; empty otherwise.
    read_offsets: Vec<u32>,
}

/// The watchdog's default bound: this many events in a row at one simulated instant, or
/// inside the interconnect with no flash, host or completion event between them, is a stuck
/// model, not a busy one. Real runs stay far below it (Venice at saturation: ~160 events per
/// request; docs/BENCHMARKS.md), so only a livelock reaches it, after a few seconds.
pub const WATCHDOG_EVENTS: u64 = 50_000_000;

/// Latest arrival a timed replay may schedule: 100 days of simulated time.
const ARRIVAL_LIMIT: Ps = 100 * 86_400 * PS_PER_S;

/// Why a run could not finish.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// Input the model cannot represent (e.g. arrivals past the simulated clock's range).
    #[error("{0}")]
    Input(String),
    /// Stopped by [`crate::cancel::Cancel::abort`] (Ctrl-C) at this simulated time.
    #[error("cancelled at {time_ns:.0} ns of simulated time")]
    Cancelled { time_ns: f64 },
    /// No event is left but requests are unfinished: the model cannot make progress.
    #[error(
        "simulation stalled at {time_ns:.0} ns with {outstanding} requests unfinished: {reason}"
    )]
    Stalled {
        time_ns: f64,
        outstanding: u64,
        reason: String,
    },
}

/// `req` value of transactions injected by [`Simulator::probe_flash`].
const PROBE: u32 = u32::MAX - 1;
/// `req` of a user write already acknowledged to its request when its data reached the chip
/// (`ftl.write_completion = "transfer"`); its program completes nothing more.
const ACKED: u32 = u32::MAX - 2;

/// A flash operation injected directly at the die scheduler (for timing tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOp {
    /// Read one page at a physical page address.
    Read { ppa: u32 },
    /// Program one logical page (full page of data).
    Program { lpa: u32 },
    /// Erase a block (state is not changed; only timing is measured).
    Erase { plane: u32, block: u32 },
    /// Move one valid logical page as GC does (read + program, or copyback), along the
    /// configured path; completes when its program does. At most one per probe run.
    GcMove { lpa: u32 },
}

/// What a probe run observed besides completion times.
#[derive(Clone, Debug, Default)]
pub struct ProbeExtra {
    /// Destination plane of each GC move, in completion order.
    pub gc_destinations: Vec<u32>,
    /// Every system-bus and DRAM grant (start, end), in grant order.
    pub bus_grants: Vec<(Ps, Ps)>,
    pub dram_grants: Vec<(Ps, Ps)>,
}

#[inline]
fn sector_mask(first: u32, count: u32) -> u64 {
    (if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }) << first
}

impl Simulator {
    pub fn new(cfg: &SsdConfig, arch: Arch, flows: Vec<Flow>, seed: u64) -> Self {
        let ftl = Ftl::new(cfg, seed);
        let g = ftl.geo.clone();
        let cmt = match cfg.ftl.mapping {
            MappingConfig::Ideal => None,
            MappingConfig::Demand {
                cmt_bytes,
                entry_bytes,
            } => Some(Cmt::new((cmt_bytes / entry_bytes as u64) as usize)),
        };
        let nflows = flows.len().max(1) as u64;
        let span = ftl.logical_pages / nflows;
        let flows = flows
            .into_iter()
            .enumerate()
            .map(|(i, f)| FlowState {
                name: f.name,
                source: f.source,
                replay: f.replay,
                next: None,
                held: false,
                t0_ns: None,
                last_arrival: 0,
                in_sq: 0,
                sq: List::EMPTY,
                lpa_base: i as u64 * span,
                lpa_span: span,
                latency: FlowLatency::default(),
                completed: 0,
                reads: 0,
                writes: 0,
                bytes: 0,
                conflicted: 0,
                reordered_arrivals: 0,
                sched: None,
            })
            .collect();
        let spp = g.page_bytes / 512;
        // Validation has built the network once; a failure here (a custom topology file
        // changed since) ends the run with its message before any event.
        let (net, mut fault) = match interconnect::build(arch, cfg, seed) {
            Ok(n) => (n, None),
            Err(e) => (
                Box::new(interconnect::shared_bus::SharedBus::ideal(cfg))
                    as Box<dyn Interconnect<EventQueue<Event>>>,
                Some(e),
            ),
        };
        let ctl = if cfg.controller.enabled {
            match Controller::new(cfg, seed) {
                Ok(c) => Some(c),
                Err(e) => {
                    fault = fault.or(Some(e));
                    None
                }
            }
        } else {
            None
        };
        Self {
            q: EventQueue::new(),
            cmt,
            cache: cfg
                .cache
                .enabled
                .then(|| DataCache::new(&cfg.cache, g.page_bytes)),
            net,
            timing: FlashTiming::new(&cfg.flash),
            pcie: PcieLink::new(&cfg.host),
            txns: Vec::with_capacity(4096),
            free_txn: NONE,
            reqs: Vec::with_capacity(1024),
            free_req: NONE,
            dies: vec![
                Die {
                    phase: Phase::Idle,
                    op: FlashOp::Read,
                    txns: [NONE; MAX_PLANES],
                    n: 0,
                    bytes: 0,
                    started: 0,
                    busy_time: 0,
                    array_time: 0,
                    gc_streak: 0,
                    stage_end: 0,
                };
                g.dies as usize
            ],
            queues: vec![[List::EMPTY; NQ]; g.dies as usize],
            flows,
            in_device: 0,
            rr_flow: 0,
            buffer_wait: List::EMPTY,
            map_waiters: IntMap::with_capacity_and_hasher(1024, Default::default()),
            gc_moves: vec![0; g.planes as usize],
            gc_victim: vec![NONE; g.planes as usize],
            scratch: Vec::with_capacity(g.pages_per_block as usize),
            sectors_per_page: spp,
            flash: FlashCounters::default(),
            last_completion: 0,
            error: None,
            verify: false,
            probe_done: Vec::new(),
            watchdog_events: WATCHDOG_EVENTS,
            // A validated configuration has read the limit already.
            state_limit: crate::config::schema::model_state_limit()
                .unwrap_or(crate::config::schema::MODEL_STATE_LIMIT_BYTES),
            fault,
            dram: Resource::new(cfg.cache.dram_mb_s, cfg.cache.dram_access_ns),
            ctl,
            gc_rr: 0,
            probe_ops: Vec::new(),
            probe_die: 0,
            probe_gc: Vec::new(),
            probe_gc_dest: Vec::new(),
            timeline: None,
            fnoc_busy_seen: 0,
            stop_at_last_completion: false,
            remap: None,
            forwarded: Vec::new(),
            read_offsets: if cfg.flash.multiplane == Multiplane::SameOffset
                && cfg.ftl.die_scheduling != DieScheduling::Fifo
            {
                vec![0; g.dies as usize * 2 * g.planes_per_die as usize * OFFSET_CLASSES]
            } else {
                Vec::new()
            },
            queued_at: Vec::new(),
            cancel: None,
            cfg: cfg.clone(),
            ftl,
        }
    }

    /// Logical page capacity one flow addresses, in bytes (for sizing synthetic workloads).
    /// Put a host I/O scheduler (PIQ paper §IV) with queue length `queue_length` between every
    /// flow and its submission queue.
    pub fn set_host_scheduler(&mut self, scheme: Scheme, queue_length: u32) -> Result<(), String> {
        let chips = self.cfg.flash.channels * self.cfg.flash.chips_per_channel;
        if chips > ChipSet::MAX_CHIPS {
            return Err(format!(
                "host scheduler: location vectors hold at most {} chips, the drive has {chips}",
                ChipSet::MAX_CHIPS
            ));
        }
        if !(1..=65_536).contains(&queue_length) {
            return Err(format!(
                "host queue length {queue_length}: expected 1 to 65536"
            ));
        }
        let slots = self.cfg.host.io_queue_depth;
        for f in &mut self.flows {
            f.sched = Some(HostScheduler::new(scheme, queue_length, slots));
        }
        Ok(())
    }

    /// PIQ Formula 1 on this drive: the chips holding the request's pages under the static
    /// allocation (the chip of a logical page never changes: GC and wear levelling move data
    /// within a chip only in the PIQ paper's SSD; in Lagoon a page's plane is fixed by its LPA).
    fn location_vector(&self, lpa_base: u64, offset: u64, size: u32) -> ChipSet {
        let geo = &self.ftl.geo;
        let page = geo.page_bytes as u64;
        let (first, last) = (offset / page, (offset + size as u64 - 1) / page);
        let mut v = ChipSet::EMPTY;
        let chips = self.cfg.flash.channels * self.cfg.flash.chips_per_channel;
        for p in first
            ..=last.min(first + chips as u64 * geo.dies_per_chip as u64 * geo.planes_per_die as u64)
        {
            let (plane, _) = geo.locate(lpa_base + p);
            v.insert(geo.chip_of_die(geo.die_of_plane(plane)));
        }
        v
    }

    pub fn flow_capacity_bytes(cfg: &SsdConfig, nflows: usize) -> u64 {
        let ftl_pages = {
            let g = crate::flash::Geometry::new(&cfg.flash, cfg.ftl.allocation);
            (g.pages_per_plane as f64 * (1.0 - cfg.ftl.overprovisioning)) as u64 * g.planes as u64
        };
        ftl_pages / nflows.max(1) as u64 * cfg.flash.page_bytes as u64
    }

    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Bound of the stuck-model watchdog (see [`WATCHDOG_EVENTS`]); tests lower it.
    pub fn set_watchdog(&mut self, events: u64) {
        self.watchdog_events = events.max(1);
    }

    /// Record per-window I/O and GC bandwidth and bus, DRAM and FC-link busy time
    /// (`Outcome::timeline`; dSSD Fig. 2). Windows of `window` ps (at least 1 us).
    pub fn set_timeline(&mut self, window: Ps) {
        let w = window.max(crate::time::PS_PER_US);
        self.timeline = Some(Box::new(Timeline::new(w)));
        self.dram.windows = Some(Series::new(w));
        if let Some(c) = &mut self.ctl {
            c.bus.windows = Some(Series::new(w));
            match &mut c.link {
                FcLink::Dedicated(r) => r.windows = Some(Series::new(w)),
                FcLink::Fnoc(n) => {
                    let g = n.graph();
                    let links = (0..g.total_ports())
                        .filter(|&p| g.far(p) != crate::interconnect::network::topology::NONE)
                        .count();
                    self.timeline.as_mut().unwrap().links = links as u32;
                }
                _ => {}
            }
        }
    }

    /// Record every grant of the system bus, DRAM and dedicated bus and check at the end
    /// that no two overlap (`Outcome::resource_audit`). Memory grows with the run: tests only.
    pub fn set_audit(&mut self, on: bool) {
        let a = || on.then(Vec::new);
        self.dram.audit = a();
        if let Some(c) = &mut self.ctl {
            c.bus.audit = a();
            if let FcLink::Dedicated(r) = &mut c.link {
                r.audit = a();
            }
        }
    }

    /// Check the FTL mapping invariant (a full scan) when the run ends; see `Outcome::consistency`.
    pub fn set_verify(&mut self, on: bool) {
        self.verify = on;
    }

    /// Stop at the last host completion instead of letting background work (GC) drain:
    /// for measurements of the host run only (the report's flash and FTL counters then stop
    /// there too).
    pub fn set_stop_at_last_completion(&mut self, on: bool) {
        self.stop_at_last_completion = on;
    }

    /// Run over an aged drive's block remapping (dSSD §5, Fig. 15: the timing model switched
    /// on at an age of the lifetime mode): every command for a remapped block runs on the
    /// plane, and so the die, it was remapped to. Its geometry must be the drive's.
    pub fn set_block_remap(&mut self, remap: std::sync::Arc<BlockRemap>) -> Result<(), String> {
        let g = &self.ftl.geo;
        if remap.planes() != g.planes || remap.blocks_per_plane() != g.blocks_per_plane {
            return Err(format!(
                "block remap of {} planes x {} blocks on a drive of {} x {}",
                remap.planes(),
                remap.blocks_per_plane(),
                g.planes,
                g.blocks_per_plane
            ));
        }
        self.remap = Some(remap);
        // A remapped read may be forwarded to another die: no read counters (set before the
        // run, with every queue empty).
        self.read_offsets = Vec::new();
        Ok(())
    }

    /// The plane transaction `x` runs on: its own, or with a block remap the plane of the
    /// block it reads or erases, or of the block its write will be placed in now.
    #[inline]
    fn exec_plane(&self, x: &Txn) -> u32 {
        let Some(r) = &self.remap else {
            return x.plane;
        };
        let g = &self.ftl.geo;
        match x.kind {
            TxnKind::UserRead
            | TxnKind::MapRead
            | TxnKind::RmwRead
            | TxnKind::GcRead
            | TxnKind::ScanRead
            | TxnKind::Erase => r.plane(g.plane_of_ppa(x.ppa), g.block_of_ppa(x.ppa)),
            TxnKind::UserWrite | TxnKind::MapWrite => {
                r.plane(x.plane, self.ftl.next_block(x.plane, Stream::User))
            }
            TxnKind::GcWrite | TxnKind::Copyback => {
                r.plane(x.plane, self.ftl.next_block(x.plane, Stream::Gc))
            }
        }
    }

    /// Inject flash operations at time 0 straight into the die queues (no host, no mapping
    /// lookups) and return each one's completion time in picoseconds, in input order.
    pub fn probe_flash(cfg: &SsdConfig, arch: Arch, ops: &[ProbeOp]) -> Vec<Ps> {
        let timed: Vec<(Ps, ProbeOp)> = ops.iter().map(|&o| (0, o)).collect();
        Self::probe_flash_at(cfg, arch, &timed).0
    }

    /// As [`Self::probe_flash`], each operation injected at its own time; also returns the
    /// simulator's controller counters (with `controller.enabled`) and the plane each
    /// [`ProbeOp::GcMove`] wrote its page to.
    pub fn probe_flash_at(
        cfg: &SsdConfig,
        arch: Arch,
        ops: &[(Ps, ProbeOp)],
    ) -> (Vec<Ps>, ProbeExtra) {
        Self::probe_flash_remapped(cfg, arch, ops, None)
    }

    /// As [`Self::probe_flash_at`] over a block remapping ([`Self::set_block_remap`]).
    pub fn probe_flash_remapped(
        cfg: &SsdConfig,
        arch: Arch,
        ops: &[(Ps, ProbeOp)],
        remap: Option<std::sync::Arc<BlockRemap>>,
    ) -> (Vec<Ps>, ProbeExtra) {
        let mut s = Simulator::new(cfg, arch, Vec::new(), 0);
        if let Some(r) = remap {
            s.set_block_remap(r).expect("remap of the drive's geometry");
        }
        s.probe_ops = ops.iter().map(|o| o.1).collect();
        if let Some(c) = &mut s.ctl {
            c.bus.audit = Some(Vec::new());
        }
        s.dram.audit = Some(Vec::new());
        s.start_status_scan();
        for (i, &(at, _)) in ops.iter().enumerate() {
            if at == 0 {
                s.probe_inject(0, i);
            } else {
                s.q.schedule(at, Event::Probe { op: i as u32 });
            }
        }
        // All operations at time 0 are queued before any die picks: multi-plane pairs form.
        for die in 0..s.dies.len() {
            s.try_dispatch(0, die);
        }
        while let Some((now, ev)) = s.q.pop() {
            match ev {
                Event::Ic(IcEvent::TransferDone { die, conflict }) => {
                    s.on_transfer_done(now, die, conflict);
                    s.net.transfer_done(now, die, &mut s.q);
                }
                Event::ArrayDone { die } => s.on_array_done(now, die),
                Event::Ic(IcEvent::Net(e)) => s.net.on_event(now, e, &mut s.q),
                Event::StageDone { die } => s.submit_command(now, die as usize),
                Event::MoveDone { txn } => s.move_done(now, txn),
                Event::DbufDepart { txn } => s.dbuf_depart(now, txn),
                Event::FnocWake => s.fnoc_wake(now),
                Event::Probe { op } => {
                    s.probe_inject(now, op as usize);
                    let die = s.probe_die;
                    s.try_dispatch(now, die);
                }
                _ => unreachable!("probe runs have no host events"),
            }
        }
        let mut out = vec![0; ops.len()];
        for &(i, t) in &s.probe_done {
            out[i as usize] = t;
        }
        let extra = ProbeExtra {
            gc_destinations: std::mem::take(&mut s.probe_gc_dest),
            bus_grants: s
                .ctl
                .as_mut()
                .and_then(|c| c.bus.audit.take())
                .unwrap_or_default(),
            dram_grants: s.dram.audit.take().unwrap_or_default(),
        };
        (out, extra)
    }

    /// Queue probe operation `i` on its die (dispatch is the caller's).
    fn probe_inject(&mut self, now: Ps, i: usize) {
        let page = self.ftl.geo.page_bytes;
        let (t, q) = match self.probe_ops[i] {
            ProbeOp::Read { ppa } => {
                let plane = self.ftl.geo.plane_of_ppa(ppa);
                (
                    self.alloc_txn(TxnKind::UserRead, PROBE, 0, ppa, plane, page),
                    Q_READ,
                )
            }
            ProbeOp::Program { lpa } => {
                let plane = self.ftl.plane_of_lpa(lpa as u64);
                (
                    self.alloc_txn(TxnKind::UserWrite, PROBE, lpa, NONE, plane, page),
                    Q_WRITE,
                )
            }
            ProbeOp::Erase { plane, block } => (
                self.alloc_txn(
                    TxnKind::Erase,
                    PROBE,
                    NONE,
                    self.ftl.geo.ppa(plane, block, 0),
                    plane,
                    0,
                ),
                Q_ERASE,
            ),
            ProbeOp::GcMove { lpa } => {
                // A GC move of one valid page that belongs to no victim (no erase follows):
                // read + program (or copyback), along the configured path.
                let ppa = self.ftl.lookup(lpa as u64);
                let plane = self.ftl.geo.plane_of_ppa(ppa);
                self.gc_moves[plane as usize] += 1 << 30;
                let (kind, q, bytes) = if self.cfg.ftl.copyback {
                    (TxnKind::Copyback, Q_GC_WRITE, 0)
                } else {
                    (TxnKind::GcRead, Q_GC_READ, page)
                };
                (self.alloc_txn(kind, NONE, lpa, ppa, plane, bytes), q)
            }
        };
        if !matches!(self.probe_ops[i], ProbeOp::GcMove { .. }) {
            self.txns[t as usize].link = i as u32;
        } else {
            self.probe_gc.push(i as u32);
        }
        self.probe_die = self.queue_on_die(now, t, q);
    }

    /// Run to completion (every request of every flow served), calling `progress` with the
    /// number of completed requests now and then.
    pub fn run(mut self, mut progress: impl FnMut(u64)) -> Result<Outcome, SimError> {
        if let Some(e) = self.fault.take() {
            return Err(SimError::Input(e));
        }
        self.start_status_scan();
        for f in 0..self.flows.len() {
            self.start_flow(f);
        }
        let mut completed_seen = 0u64;
        // Watchdog: events since simulated time last moved, and since the last event outside
        // the interconnect.
        let (mut instant, mut same_instant, mut net_only) = (0 as Ps, 0u64, 0u64);
        let mut local_seen = self.net.local_events();
        while let Some((now, ev)) = self.q.pop() {
            if now != instant {
                instant = now;
                same_instant = 0;
            }
            same_instant += 1;
            if let Event::Ic(IcEvent::Net(_)) = ev {
                // Local events happen only inside Net events: the delta is the last one's.
                let l = self.net.local_events();
                net_only += 1 + (l - local_seen);
                local_seen = l;
            } else {
                net_only = 0;
            }
            if same_instant > self.watchdog_events || net_only > self.watchdog_events {
                return Err(self.stuck(now, same_instant > self.watchdog_events, ev));
            }
            match ev {
                Event::Arrival { flow } => self.on_arrival(now, flow as usize),
                Event::Fetched { req } => self.on_fetched(now, req),
                Event::DramDone { req, pages } => self.request_pages_done(now, req, pages),
                Event::Ic(IcEvent::TransferDone { die, conflict }) => {
                    self.on_transfer_done(now, die, conflict);
                    self.net.transfer_done(now, die, &mut self.q);
                }
                Event::ArrayDone { die } => self.on_array_done(now, die),
                Event::Completed { req } => {
                    self.on_completed(now, req);
                    if self.stop_at_last_completion && self.host_done() {
                        break;
                    }
                }
                Event::Ic(IcEvent::Net(e)) => self.net.on_event(now, e, &mut self.q),
                Event::StageDone { die } => self.submit_command(now, die as usize),
                Event::MoveDone { txn } => self.move_done(now, txn),
                Event::DbufDepart { txn } => self.dbuf_depart(now, txn),
                Event::FnocWake => self.fnoc_wake(now),
                Event::Probe { .. } => unreachable!("only probe runs inject operations"),
            }
            if self.error.is_some() || self.fault.is_some() {
                break;
            }
            if self.q.events_processed() & 0xffff == 0 {
                let done: u64 = self.flows.iter().map(|f| f.completed).sum();
                if done != completed_seen {
                    completed_seen = done;
                    progress(done);
                }
                // The memory guard, as often as the progress bar: 65,536 events grow the
                // state by a few hundred MB at most.
                if let Some(why) = self.state_over_limit(now, done) {
                    self.fault = Some(why);
                    break;
                }
                match self.cancel.as_ref().map(|c| c.request()) {
                    Some(crate::cancel::Request::Abort) => {
                        return Err(SimError::Cancelled {
                            time_ns: crate::time::to_ns_f64(now),
                        })
                    }
                    Some(crate::cancel::Request::Finish) => return Ok(self.finish()),
                    _ => {}
                }
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        // A back end that failed (a deadlocked network) stopped working; the queue drained.
        if let Some(e) = self.fault.take().or_else(|| self.net.take_error()) {
            return Err(SimError::Input(e));
        }
        let outstanding: u64 = self
            .flows
            .iter()
            .map(|f| f.in_sq as u64 + f.next.is_some() as u64)
            .sum();
        if outstanding > 0 {
            let queued: usize = self
                .queues
                .iter()
                .map(|q| q.iter().filter(|l| l.head != NONE).count())
                .sum();
            let full = (0..self.ftl.geo.planes)
                .filter(|&p| !self.ftl.can_allocate(p, Stream::User))
                .count();
            return Err(SimError::Stalled {
                time_ns: crate::time::to_ns_f64(self.q.now()),
                outstanding,
                reason: format!("{queued} die queues hold transactions; {full} planes have no free page for user writes and nothing GC can reclaim"),
            });
        }
        Ok(self.finish())
    }

    /// The state a run grows (map chunks, reverse maps, CMT, data cache) on top of what was
    /// allocated before it, if that passes the limit: the error then says what grew.
    fn state_over_limit(&self, now: Ps, done: u64) -> Option<String> {
        let (map, cmt, cache) = (
            self.ftl.grown_bytes() as u64,
            self.cmt.as_ref().map_or(0, |c| c.bytes()) as u64,
            self.cache.as_ref().map_or(0, |c| c.bytes()) as u64,
        );
        let base = self.cfg.preallocated_state_bytes();
        let total = base + map + cmt + cache;
        if total <= self.state_limit {
            return None;
        }
        let gb = |b: u64| b as f64 / 1e9;
        Some(format!(
            "flash (geometry): the model's state reached {:.2} GB at t = {:.3} ms after {done} \
             requests ({:.2} GB allocated before the run; mapping tables written during it \
             {:.2} GB, cached mapping table {:.2} GB, data cache {:.2} GB), {}: the workload \
             writes across more of this drive than the limit allows (its full mapping tables \
             would be {:.2} GB); use a smaller drive (flash.blocks_per_plane, flash.channels), \
             larger pages (flash.page_bytes), a smaller ftl.mapping.cmt_bytes or \
             cache.capacity_bytes, or fewer requests",
            gb(total),
            crate::time::to_ns_f64(now) / 1e6,
            gb(base),
            gb(map),
            gb(cmt),
            gb(cache),
            crate::config::schema::over_state_limit(self.state_limit),
            gb(self.cfg.full_map_bytes()),
        ))
    }

    /// Look at `c` every 65,536 events (a few ms): `abort` ends the run with
    /// [`SimError::Cancelled`]; `finish` ends it at once and reports what was done.
    pub fn set_cancel(&mut self, c: crate::cancel::Cancel) {
        self.cancel = Some(c);
    }

    /// Tests: a lower limit for the memory guard.
    pub fn set_state_limit(&mut self, bytes: u64) {
        self.state_limit = bytes;
    }

    /// `ftl.status_scan_blocks` (WAS, dSSD §6.4 Fig. 14(c)): the first page of block `i /
    /// planes` of plane `i % planes`, for each scanned block `i`, queued at time 0 behind
    /// nothing, in the background (GC read) queues.
    fn start_status_scan(&mut self) {
        let (planes, page) = (self.ftl.geo.planes, self.ftl.geo.page_bytes);
        for i in 0..self.cfg.ftl.status_scan_blocks {
            let (plane, block) = (i % planes, i / planes);
            let ppa = self.ftl.geo.ppa(plane, block, 0);
            let t = self.alloc_txn(TxnKind::ScanRead, NONE, 0, ppa, plane, page);
            self.enqueue(0, t, Q_GC_READ);
        }
    }

    /// Every flow's requests have completed and none is left to come.
    fn host_done(&self) -> bool {
        self.in_device == 0 && self.flows.iter().all(|f| f.in_sq == 0 && f.next.is_none())
    }

    /// The watchdog's error: what was stuck, and where the requests were.
    fn stuck(&self, now: Ps, same_instant: bool, ev: Event) -> SimError {
        let outstanding: u64 = self
            .flows
            .iter()
            .map(|f| f.in_sq as u64 + f.next.is_some() as u64)
            .sum();
        let what = if same_instant {
            format!(
                "{} events in a row at one instant without simulated time advancing",
                self.watchdog_events
            )
        } else {
            format!(
                "{} events in a row inside the {} back end without any transfer, flash operation or completion",
                self.watchdog_events,
                self.net.name()
            )
        };
        SimError::Stalled {
            time_ns: crate::time::to_ns_f64(now),
            outstanding,
            reason: format!("{what} (last event: {ev:?}); {}", self.net.describe_state()),
        }
    }

    // ---------------------------------------------------------------- host side

    fn pull(&mut self, f: usize) -> Option<IoRequest> {
        match self.flows[f].source.next() {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                self.error = Some(e);
                None
            }
            None => None,
        }
    }

    fn start_flow(&mut self, f: usize) {
        match self.flows[f].replay {
            Replay::Closed { depth } => {
                for _ in 0..depth {
                    match self.pull(f) {
                        Some(r) => self.submit(0, f, 0, r),
                        None => break,
                    }
                }
            }
            Replay::Timed { .. } => self.advance_timed(0, f),
        }
    }

    /// Read the flow's next request and schedule its arrival.
    fn advance_timed(&mut self, now: Ps, f: usize) {
        let Some(r) = self.pull(f) else { return };
        let fl = &mut self.flows[f];
        let Replay::Timed { speedup } = fl.replay else {
            unreachable!()
        };
        let t0 = *fl.t0_ns.get_or_insert(r.arrival_ns);
        let t_f = (r.arrival_ns.saturating_sub(t0)) as f64 * PS_PER_NS as f64 / speedup;
        // Picosecond time spans 213 days; arrivals past the first 100 leave no room to serve.
        if t_f > ARRIVAL_LIMIT as f64 {
            self.fault = Some(format!(
                "flow '{}': a request arrives {:.0} days after the first (after --replay timed:{speedup}); the simulated clock covers {} days",
                fl.name,
                t_f / (PS_PER_S as f64 * 86_400.0),
                ARRIVAL_LIMIT / (PS_PER_S * 86_400)
            ));
            return;
        }
        let mut t = t_f as Ps;
        if t < fl.last_arrival || r.arrival_ns < t0 {
            fl.reordered_arrivals += 1;
            t = t.max(fl.last_arrival);
        }
        fl.last_arrival = t;
        fl.next = Some((t, r));
        self.q
            .schedule(t.max(now), Event::Arrival { flow: f as u16 });
    }

    fn on_arrival(&mut self, now: Ps, f: usize) {
        let fl = &mut self.flows[f];
        // With a host scheduler, its queue length bounds the host side and its device slots
        // (the queue depth) the device side.
        let full = match fl.sched.as_ref() {
            Some(s) => s.is_full(),
            None => fl.in_sq >= self.cfg.host.io_queue_depth,
        };
        if full {
            fl.held = true;
            return;
        }
        let (t, r) = fl.next.take().expect("arrival without a pending request");
        self.submit(now, f, t, r);
        self.advance_timed(now, f);
    }

    /// Put a request into its flow's submission queue and ring the doorbell.
    fn submit(&mut self, now: Ps, f: usize, arrival: Ps, r: IoRequest) {
        let fl = &mut self.flows[f];
        let page = self.ftl.geo.page_bytes as u64;
        // Flow-relative address, wrapped into the flow's share of the logical space.
        let first_lpa = r.offset_bytes / page;
        let offset = (first_lpa % fl.lpa_span) * page + r.offset_bytes % page;
        // Warm the lookups `translate` will make once the command is fetched (a hint: no
        // effect on results); the first few pages cover most requests.
        let pages = (offset % page + r.size_bytes.max(1) as u64).div_ceil(page);
        for k in 0..pages.min(4) {
            let lpa = fl.lpa_base + (offset / page + k) % fl.lpa_span;
            if let Some(cmt) = &self.cmt {
                cmt.prefetch(lpa);
                self.ftl.prefetch_translation(lpa);
            }
            self.ftl.prefetch_mapping(lpa);
        }
        let req = Request {
            flow: f as u16,
            is_read: r.op == Op::Read,
            conflict: false,
            arrival,
            enqueued: now,
            offset,
            size: r.size_bytes.max(1),
            pending: 0,
            next_page: 0,
            next: NONE,
            live: true,
        };
        let id = self.alloc_req(req);
        if self.flows[f].sched.is_some() {
            let v = self.location_vector(self.flows[f].lpa_base, offset, req.size);
            let s = self.flows[f].sched.as_mut().expect("checked");
            s.enqueue(id, req.is_read, v, now / PS_PER_NS);
            self.issue_scheduled(now, f);
            return;
        }
        let fl = &mut self.flows[f];
        fl.in_sq += 1;
        push_back(&mut self.reqs, &mut fl.sq, id);
        self.fetch(now);
    }

    /// Move the requests the flow's host scheduler released into its submission queue.
    fn issue_scheduled(&mut self, now: Ps, f: usize) {
        let fl = &mut self.flows[f];
        let Some(s) = fl.sched.as_mut() else { return };
        let mut any = false;
        for id in s.drain_ready() {
            self.reqs[id as usize].enqueued = now;
            fl.in_sq += 1;
            push_back(&mut self.reqs, &mut fl.sq, id);
            any = true;
        }
        if any {
            self.fetch(now);
        }
    }

    /// The controller fetches submission queue entries round-robin over flows while it has room.
    fn fetch(&mut self, now: Ps) {
        let n = self.flows.len();
        while self.in_device < self.cfg.host.fetch_size {
            let mut found = None;
            for k in 0..n {
                let f = (self.rr_flow + k) % n;
                if self.flows[f].sq.head != NONE {
                    found = Some(f);
                    break;
                }
            }
            let Some(f) = found else { return };
            self.rr_flow = (f + 1) % n;
            let id = pop_front(&mut self.reqs, &mut self.flows[f].sq);
            self.in_device += 1;
            let r = self.reqs[id as usize];
            let mut t = self.pcie.to_device(now, self.cfg.host.sqe_bytes);
            if !r.is_read {
                t = self.pcie.to_device(t, r.size);
            }
            self.q.schedule(t, Event::Fetched { req: id });
        }
    }

    fn on_completed(&mut self, now: Ps, id: u32) {
        let r = self.reqs[id as usize];
        assert!(
            r.live && r.pending == 0,
            "request {id} completed twice or early"
        );
        let e2e = (now - r.arrival) / PS_PER_NS;
        let dev = (now - r.enqueued) / PS_PER_NS;
        let f = r.flow as usize;
        let fl = &mut self.flows[f];
        fl.latency.record(r.is_read, e2e, dev);
        fl.completed += 1;
        fl.bytes += r.size as u64;
        if r.is_read {
            fl.reads += 1;
        } else {
            fl.writes += 1;
        }
        if r.conflict {
            fl.conflicted += 1;
        }
        fl.in_sq -= 1;
        self.in_device -= 1;
        self.last_completion = now;
        if let Some(c) = &mut self.ctl {
            // GC performance while host I/O runs (dSSD §6.1).
            c.stats.gc_page_ops_during_io = self.flash.gc_reads + self.flash.gc_writes;
        }
        if let Some(tl) = &mut self.timeline {
            tl.io_bytes.add(now, r.size as u64);
        }
        self.free_req(id);
        if let Some(s) = self.flows[f].sched.as_mut() {
            s.complete(id, now / PS_PER_NS);
            self.issue_scheduled(now, f);
        }
        match self.flows[f].replay {
            Replay::Closed { .. } => {
                if let Some(r) = self.pull(f) {
                    self.submit(now, f, now, r);
                }
            }
            Replay::Timed { .. } => {
                if self.flows[f].held {
                    self.flows[f].held = false;
                    self.on_arrival(now, f);
                }
            }
        }
        self.fetch(now);
    }

    // ------------------------------------------------------------ controller front end

    fn on_fetched(&mut self, now: Ps, id: u32) {
        let r = self.reqs[id as usize];
        let page = self.ftl.geo.page_bytes as u64;
        let first = r.offset / page;
        let last = (r.offset + r.size as u64 - 1) / page;
        self.reqs[id as usize].pending = (last - first + 1) as u32;
        if r.is_read {
            let mut hit_pages = 0;
            let mut hit_bytes = 0u64;
            for i in 0..=(last - first) {
                let (lpa, mask) = self.page_of(&r, first + i);
                if let Some(c) = &mut self.cache {
                    if c.sectors(lpa) & mask == mask {
                        c.read_hits += 1;
                        hit_pages += 1;
                        hit_bytes += mask.count_ones() as u64 * 512;
                        continue;
                    }
                }
                let t = self.alloc_txn(
                    TxnKind::UserRead,
                    id,
                    lpa as u32,
                    NONE,
                    NONE,
                    mask.count_ones() * 512,
                );
                self.translate(now, t);
            }
            if hit_pages > 0 {
                let end = self.dram.reserve(now, now, hit_bytes);
                self.q.schedule(
                    end,
                    Event::DramDone {
                        req: id,
                        pages: hit_pages,
                    },
                );
            }
        } else if self.cache.is_some() {
            self.buffer_write(now, id);
        } else {
            if self.ctl.is_some() {
                // dSSD §2.1: write data lands in DRAM (over the system bus) before it goes to
                // the flash controller.
                let b = self.host_bus(now, r.size, CLASS_WRITE);
                self.dram.reserve(now, b, r.size as u64);
            }
            for i in 0..=(last - first) {
                let (lpa, mask) = self.page_of(&r, first + i);
                let t = self.alloc_txn(
                    TxnKind::UserWrite,
                    id,
                    lpa as u32,
                    NONE,
                    NONE,
                    mask.count_ones() * 512,
                );
                self.translate(now, t);
            }
        }
    }

    /// Logical page number (device-wide) and sector mask of the `k`-th page of a request.
    #[inline]
    fn page_of(&self, r: &Request, page_index: u64) -> (u64, u64) {
        let page = self.ftl.geo.page_bytes as u64;
        let fl = &self.flows[r.flow as usize];
        let lpa = fl.lpa_base + page_index % fl.lpa_span;
        let start = r.offset.max(page_index * page);
        let end = (r.offset + r.size as u64).min((page_index + 1) * page);
        let first_sector = ((start % page) / 512) as u32;
        let sectors = (end - start).div_ceil(512) as u32;
        (
            lpa,
            sector_mask(
                first_sector,
                sectors.min(self.sectors_per_page - first_sector),
            ),
        )
    }

    /// Buffer a write's pages in DRAM, as far as slots allow.
    fn buffer_write(&mut self, now: Ps, id: u32) {
        let r = self.reqs[id as usize];
        let page = self.ftl.geo.page_bytes as u64;
        let first = r.offset / page;
        let n = r.pending;
        let mut k = r.next_page;
        while k < n {
            let (lpa, mask) = self.page_of(&r, first + k as u64);
            let cache = self.cache.as_mut().unwrap();
            match cache.admit(lpa, mask) {
                Admit::Full => {
                    self.reqs[id as usize].next_page = k;
                    push_back(&mut self.reqs, &mut self.buffer_wait, id);
                    return;
                }
                Admit::Merged => {}
                Admit::NeedsProgram => {
                    let t = self.alloc_txn(TxnKind::UserWrite, NONE, lpa as u32, NONE, NONE, 0);
                    self.translate(now, t);
                }
            }
            k += 1;
        }
        self.reqs[id as usize].next_page = n;
        let b = self.host_bus(now, r.size, CLASS_WRITE);
        let end = self.dram.reserve(now, b, r.size as u64);
        self.q.schedule(end, Event::DramDone { req: id, pages: n });
    }

    /// Host data between the host interface and DRAM crosses the system bus (dSSD §2.1: "The
    /// DRAM and system-bus are utilized if I/O requests result in a hit"; Fig. 1, Fig. 7(b)):
    /// ready now, returns when it is across (`now` without the controller model). Its time
    /// counts in the breakdown of `class`.
    fn host_bus(&mut self, now: Ps, bytes: u32, class: usize) -> Ps {
        let Some(ctl) = &mut self.ctl else {
            return now;
        };
        let e = ctl.bus.reserve(now, now, bytes as u64);
        ctl.add(class, C_BUS, e - now);
        e
    }

    fn request_pages_done(&mut self, now: Ps, id: u32, pages: u32) {
        let r = &mut self.reqs[id as usize];
        debug_assert!(r.pending >= pages);
        r.pending -= pages;
        if r.pending > 0 {
            return;
        }
        let (is_read, size) = (r.is_read, r.size);
        let mut t = now;
        if is_read {
            t = self.host_bus(t, size, CLASS_READ);
            t = self.pcie.to_host(t, size);
        }
        t = self.pcie.to_host(t, self.cfg.host.cqe_bytes);
        // The completion entry ends on the FIFO host link: later than every earlier one.
        self.q.schedule_in_order(t, Event::Completed { req: id });
    }

    // ------------------------------------------------------------------ translation

    /// Resolve a user transaction's mapping entry, reading its translation page on a miss.
    fn translate(&mut self, now: Ps, t: u32) {
        let lpa = self.txns[t as usize].lpa as u64;
        let Some(cmt) = &mut self.cmt else {
            return self.route(now, t);
        };
        if cmt.hit(lpa) {
            return self.route(now, t);
        }
        let tvpn = self.ftl.translation_page_of(lpa);
        if let Some(list) = self.map_waiters.get_mut(&tvpn) {
            push_back(&mut self.txns, list, t);
            return;
        }
        let mut list = List::EMPTY;
        push_back(&mut self.txns, &mut list, t);
        self.map_waiters.insert(tvpn, list);
        let ppa = self.ftl.translation_page_location(tvpn);
        // One sector holds the entry (ECC codeword granularity); MQSim reads the same.
        let m = self.alloc_txn(
            TxnKind::MapRead,
            NONE,
            tvpn,
            ppa,
            self.ftl.geo.plane_of_ppa(ppa),
            512.min(self.ftl.geo.page_bytes),
        );
        self.enqueue(now, m, Q_MAP_READ);
    }

    fn cmt_insert(&mut self, now: Ps, lpa: u64, dirty: bool) {
        let Some(cmt) = &mut self.cmt else { return };
        if let Evicted::Dirty { lpa: victim } = cmt.insert(lpa, dirty) {
            // Write the evicted entry's translation page back (Demand FTL write-back).
            let tvpn = self.ftl.translation_page_of(victim);
            let plane = self.ftl.plane_of_translation_page(tvpn);
            let t = self.alloc_txn(
                TxnKind::MapWrite,
                NONE,
                tvpn,
                NONE,
                plane,
                self.ftl.geo.page_bytes,
            );
            self.enqueue(now, t, Q_WRITE);
        }
    }

    /// Send a translated user transaction to its die queue.
    fn route(&mut self, now: Ps, t: u32) {
        let x = self.txns[t as usize];
        match x.kind {
            TxnKind::UserRead => {
                let ppa = self.ftl.lookup(x.lpa as u64);
                let tx = &mut self.txns[t as usize];
                tx.ppa = ppa;
                tx.plane = self.ftl.geo.plane_of_ppa(ppa);
                self.enqueue(now, t, Q_READ);
            }
            TxnKind::UserWrite => {
                let lpa = x.lpa as u64;
                let page = self.ftl.geo.page_bytes;
                // Bytes of new data: the buffered sectors (destage) or the request's (no cache).
                let covered = match &self.cache {
                    Some(c) if x.req == NONE => c.sectors(lpa).count_ones() * 512,
                    _ => x.bytes,
                };
                let plane = self.write_plane(lpa);
                self.txns[t as usize].plane = plane;
                if covered < page && self.ftl.has_data(lpa) {
                    // Partial page over existing data: read the missing sectors first, then
                    // program the merged full page (read-modify-write).
                    self.txns[t as usize].bytes = page;
                    let old = self.ftl.lookup(lpa);
                    let rd = self.alloc_txn(
                        TxnKind::RmwRead,
                        NONE,
                        x.lpa,
                        old,
                        self.ftl.geo.plane_of_ppa(old),
                        page - covered,
                    );
                    self.txns[rd as usize].link = t;
                    self.enqueue(now, rd, Q_READ);
                } else {
                    self.txns[t as usize].bytes = covered;
                    self.enqueue(now, t, Q_WRITE);
                }
            }
            _ => unreachable!("only user transactions are translated"),
        }
    }

    /// The plane a user page write goes to ([`Ftl::write_plane`], MQSimNet §IV.A). Idle (our
    /// reading of "an idle plane and die"): no operation in progress and nothing queued.
    fn write_plane(&self, lpa: u64) -> u32 {
        let (dies, queues) = (&self.dies, &self.queues);
        self.ftl
            .write_plane(lpa, self.cfg.ftl.dynamic_mapping, |d| {
                matches!(dies[d as usize].phase, Phase::Idle)
                    && queues[d as usize].iter().all(|l| l.head == NONE)
            })
    }

    // ------------------------------------------------------------- die scheduling

    fn enqueue(&mut self, now: Ps, t: u32, q: usize) {
        // In-order dies: user writes share the read queue, so neither overtakes the other.
        let q = if q == Q_WRITE && self.cfg.ftl.die_scheduling == DieScheduling::Fifo {
            Q_READ
        } else {
            q
        };
        let die = self.queue_on_die(now, t, q);
        self.try_dispatch(now, die);
    }

    /// Put transaction `t` at the back of queue `q` of the die it runs on; returns the die.
    #[inline]
    fn queue_on_die(&mut self, now: Ps, t: u32, q: usize) -> usize {
        let die = self
            .ftl
            .geo
            .die_of_plane(self.exec_plane(&self.txns[t as usize])) as usize;
        if self.ctl.is_some() || self.issue_order() {
            // Latency breakdown and issue order: when each transaction entered its die queue.
            self.mark_queued(t, now);
        }
        push_back(&mut self.txns, &mut self.queues[die][q], t);
        if q <= Q_READ && !self.read_offsets.is_empty() {
            // A queued read's plane and page never change.
            let x = &self.txns[t as usize];
            let g = &self.ftl.geo;
            let i = self.read_offset_slot(
                die,
                q,
                x.plane % g.planes_per_die,
                x.ppa % g.pages_per_block,
            );
            self.read_offsets[i] += 1;
        }
        die
    }

    /// Counter of [`Self::read_offsets`] for a read on plane `local` of `die` at page
    /// `offset`, waiting in read queue `q`.
    #[inline]
    fn read_offset_slot(&self, die: usize, q: usize, local: u32, offset: u32) -> usize {
        let ppd = self.ftl.geo.planes_per_die as usize;
        ((die * 2 + q) * ppd + local as usize) * OFFSET_CLASSES + offset as usize % OFFSET_CLASSES
    }

    /// Whether a read at `offset` on a plane outside `used` may wait in queue `q` of `die`.
    #[inline]
    fn read_partner_possible(&self, die: usize, q: usize, used: u32, offset: u32) -> bool {
        let ppd = self.ftl.geo.planes_per_die as usize;
        let base = self.read_offset_slot(die, q, 0, offset);
        let possible = (0..ppd)
            .any(|p| used & (1 << p) == 0 && self.read_offsets[base + p * OFFSET_CLASSES] > 0);
        debug_assert!(
            possible || {
                // The counters against the queue itself.
                let mut t = self.queues[die][q].head;
                let mut none = true;
                while t != NONE {
                    let x = &self.txns[t as usize];
                    none &= used & (1 << (x.plane % ppd as u32)) != 0
                        || x.ppa % self.ftl.geo.pages_per_block != offset;
                    t = x.next;
                }
                none
            }
        );
        possible
    }

    /// When transaction `t` started waiting (a side table, so that `Txn` and the other back
    /// ends' memory stay as they were; controller model and issue-order dies only).
    #[inline]
    fn mark_queued(&mut self, t: u32, now: Ps) {
        if self.queued_at.len() <= t as usize {
            self.queued_at
                .resize(self.txns.len().max(t as usize + 1), 0);
        }
        self.queued_at[t as usize] = now;
    }

    fn gc_first(&self, die: usize) -> bool {
        match self.cfg.ftl.gc_mode {
            // Tiny-Tail (partial GC): after `gc_partial_ops` GC operations, one user operation.
            GcMode::TinyTail => {
                if self.dies[die].gc_streak < self.cfg.ftl.gc_partial_ops {
                    return true;
                }
                let q = &self.queues[die];
                if q[Q_READ].head == NONE && q[Q_WRITE].head == NONE {
                    return true;
                }
            }
            GcMode::Preemptive => {}
            GcMode::PerPlane | GcMode::Parallel
                if !self.cfg.ftl.gc_preemptible && !self.issue_order() =>
            {
                return true
            }
            GcMode::PerPlane | GcMode::Parallel => {}
        }
        let p0 = die as u32 * self.ftl.geo.planes_per_die;
        (p0..p0 + self.ftl.geo.planes_per_die).any(|p| self.ftl.gc_urgent(p))
    }

    /// Dies serve GC and user queues in issue order (`die_scheduling = "issue-order"`, GC
    /// neither preemptible nor partial): SimpleSSD's PAL books each operation's die time in
    /// the order operations are issued, GC's and the host's alike.
    #[inline]
    fn issue_order(&self) -> bool {
        let f = &self.cfg.ftl;
        f.die_scheduling == DieScheduling::IssueOrder
            && matches!(f.gc_mode, GcMode::PerPlane | GcMode::Parallel)
            && !f.gc_preemptible
    }

    /// The die's queues by the time their oldest transaction was queued (ties in user-first
    /// order); empty queues last.
    fn queues_by_issue(&self, die: usize) -> [usize; NQ] {
        let mut order = ORDER_USER_FIRST;
        let q = &self.queues[die];
        order.sort_by_key(|&i| {
            let h = q[i].head;
            if h == NONE {
                Ps::MAX
            } else {
                self.queued_at[h as usize]
            }
        });
        order
    }

    /// If the die is idle, start its next operation: the first queue in priority order that
    /// has an executable transaction, plus same-kind partners on the die's other planes.
    fn try_dispatch(&mut self, now: Ps, die: usize) {
        self.dispatch_scan(now, die);
        // Only with a block remap: dies that were handed transactions by the scan.
        while let Some(d) = self.forwarded.pop() {
            self.try_dispatch(now, d as usize);
        }
    }

    fn dispatch_scan(&mut self, now: Ps, die: usize) {
        if self.dies[die].phase != Phase::Idle {
            return;
        }
        // Block re-entry while scanning: dropping a stale GC move can enqueue an erase here.
        self.dies[die].phase = Phase::Dispatching;
        let mut dropped = false;
        let order = if self.gc_first(die) {
            ORDER_GC_FIRST
        } else if self.issue_order() {
            self.queues_by_issue(die)
        } else {
            ORDER_USER_FIRST
        };
        for q in order {
            if self.queues[die][q].head == NONE {
                continue;
            }
            let mut picked = [NONE; MAX_PLANES];
            let mut n = 0usize;
            let mut used_planes = 0u32;
            let rule = self.cfg.flash.multiplane;
            let multi = match rule {
                Multiplane::SameOffset => true,
                Multiplane::Any => q != Q_ERASE,
                Multiplane::Off => false,
            };
            let mut offset0 = 0u32;
            // In-order user queue: only its head may start; partners must be the same kind.
            let fifo = q == Q_READ && self.cfg.ftl.die_scheduling == DieScheduling::Fifo;
            let writes = |k: TxnKind| {
                matches!(
                    k,
                    TxnKind::UserWrite | TxnKind::MapWrite | TxnKind::GcWrite | TxnKind::Copyback
                )
            };
            // A user/mapping write's fate depends on its plane only (the plane's write
            // frontier gives its offset and room): once a plane is turned down, the rest of
            // its writes would be too, and with every plane picked or turned down the scan
            // can stop (the write queue holds nothing a scan drops or forwards).
            let by_plane = q == Q_WRITE && !fifo && self.remap.is_none();
            // The read queues hold only reads (user, mapping and read-modify-write) unless
            // dies are in order (writes join the read queue) or blocks are remapped.
            let by_offset = q <= Q_READ && !self.read_offsets.is_empty();
            let all_planes = (1u32 << self.ftl.geo.planes_per_die) - 1;
            let mut refused = 0u32;
            let mut prev = NONE;
            let mut cur = self.queues[die][q].head;
            let mut scanned = 0;
            while cur != NONE && scanned < SCAN_LIMIT {
                if by_plane && (used_planes | refused) == all_planes {
                    break;
                }
                scanned += 1;
                let x = self.txns[cur as usize];
                let next = x.next;
                if matches!(
                    x.kind,
                    TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Copyback
                ) && !self.ftl.is_current(x.lpa, x.ppa)
                {
                    // The page was overwritten since GC chose it: nothing to move.
                    remove_linked(&mut self.txns, &mut self.queues[die][q], prev, cur);
                    debug_assert!(q > Q_READ, "GC moves wait in their own queues");
                    if x.kind == TxnKind::GcWrite && self.global_copyback() {
                        self.dbuf_release(now, self.fc_of_plane(x.plane), 1);
                    }
                    if x.kind == TxnKind::GcRead && x.link != NONE && x.link != x.plane {
                        // Its destination was chosen at an earlier dispatch attempt.
                        self.ftl.release_gc(x.link);
                    }
                    self.free_txn(cur);
                    self.gc_arrived(&x);
                    self.gc_move_done(now, gc_source_plane(&x));
                    dropped = true;
                    cur = next;
                    continue;
                }
                if fifo && n == 0 && scanned > 1 {
                    break;
                }
                let exec = self.exec_plane(&x);
                if self.remap.is_some() && self.ftl.geo.die_of_plane(exec) as usize != die {
                    // Remapped onto another die (its write frontier moved to a remapped
                    // block since it was queued): the controller sends it there.
                    debug_assert!(self.read_offsets.is_empty(), "kept only without a remap");
                    remove_linked(&mut self.txns, &mut self.queues[die][q], prev, cur);
                    let to = self.ftl.geo.die_of_plane(exec);
                    push_back(&mut self.txns, &mut self.queues[to as usize][q], cur);
                    self.forwarded.push(to);
                    cur = next;
                    continue;
                }
                let same_kind =
                    !fifo || n == 0 || writes(x.kind) == writes(self.txns[picked[0] as usize].kind);
                let local = exec % self.ftl.geo.planes_per_die;
                let offset = if rule == Multiplane::SameOffset {
                    self.plane_offset(&x)
                } else {
                    0
                };
                let ok = same_kind
                    && used_planes & (1 << local) == 0
                    && (n == 0 || offset == offset0)
                    && match x.kind {
                        TxnKind::UserWrite | TxnKind::MapWrite => {
                            self.ftl.can_allocate(x.plane, Stream::User)
                        }
                        TxnKind::GcWrite | TxnKind::Copyback => {
                            self.ftl.can_allocate(x.plane, Stream::Gc)
                        }
                        TxnKind::GcRead => self.dbuf_room(die) > n as u32,
                        _ => true,
                    }
                    && (x.kind != TxnKind::GcRead || self.claim_destination_slot(cur));
                if ok {
                    remove_linked(&mut self.txns, &mut self.queues[die][q], prev, cur);
                    if by_offset {
                        let i = self.read_offset_slot(die, q, local, offset);
                        self.read_offsets[i] -= 1;
                    }
                    picked[n] = cur;
                    if n == 0 {
                        offset0 = offset;
                    }
                    n += 1;
                    used_planes |= 1 << local;
                    if !multi || n == self.ftl.geo.planes_per_die as usize {
                        break;
                    }
                    // Only reads can join a read, at its offset; none waits: the rest of the
                    // scan would turn every transaction down and change nothing.
                    if by_offset
                        && next != NONE
                        && !self.read_partner_possible(die, q, used_planes, offset0)
                    {
                        break;
                    }
                } else {
                    refused |= 1 << local;
                    prev = cur;
                }
                cur = next;
            }
            if n > 0 {
                self.start_op(now, die, &picked[..n]);
                return;
            }
        }
        self.dies[die].phase = Phase::Idle;
        if dropped {
            self.try_dispatch(now, die);
        }
    }

    /// The offset the same-offset multi-plane rule compares (Venice §2): the page offset in
    /// its block that a read reads or a write will program, or an erase's block offset.
    #[inline]
    fn plane_offset(&self, x: &Txn) -> u32 {
        let g = &self.ftl.geo;
        match x.kind {
            TxnKind::UserRead
            | TxnKind::MapRead
            | TxnKind::RmwRead
            | TxnKind::GcRead
            | TxnKind::ScanRead => x.ppa % g.pages_per_block,
            TxnKind::UserWrite | TxnKind::MapWrite => {
                self.ftl.next_page_offset(x.plane, Stream::User)
            }
            TxnKind::GcWrite | TxnKind::Copyback => self.ftl.next_page_offset(x.plane, Stream::Gc),
            TxnKind::Erase => g.block_of_ppa(x.ppa),
        }
    }

    fn start_op(&mut self, now: Ps, die: usize, picked: &[u32]) {
        let kind = self.txns[picked[0] as usize].kind;
        let op = match kind {
            TxnKind::UserRead
            | TxnKind::MapRead
            | TxnKind::RmwRead
            | TxnKind::GcRead
            | TxnKind::ScanRead => FlashOp::Read,
            TxnKind::UserWrite | TxnKind::MapWrite | TxnKind::GcWrite => FlashOp::Program,
            TxnKind::Copyback => FlashOp::Copyback,
            TxnKind::Erase => FlashOp::Erase,
        };
        self.dies[die].phase = Phase::Command;
        let mut bytes = 0u32;
        for &t in picked {
            let x = self.txns[t as usize];
            // Writes get their physical page now, when the die is ready to program it.
            let ppa = match x.kind {
                TxnKind::UserWrite => {
                    let lpa = x.lpa as u64;
                    let ppa = self.ftl.write_to(lpa, x.plane);
                    if let Some(c) = &mut self.cache {
                        if x.req == NONE {
                            c.program_started(lpa);
                        }
                    }
                    self.cmt_insert(now, lpa, true);
                    self.maybe_gc(now, x.plane, true);
                    ppa
                }
                TxnKind::MapWrite => {
                    let ppa = self.ftl.write_translation_page(x.lpa);
                    self.maybe_gc(now, x.plane, true);
                    ppa
                }
                TxnKind::GcWrite | TxnKind::Copyback => {
                    let ppa = self.ftl.relocate_to(x.lpa, x.ppa, x.plane);
                    self.gc_arrived(&x);
                    if x.plane != gc_source_plane(&x) {
                        // A page imported from another plane may start this plane's GC: with
                        // per-plane thresholds it takes the plane's space as a host write does.
                        self.maybe_gc(now, x.plane, true);
                    }
                    if x.lpa & MAP_TAG == 0 {
                        let lpa = x.lpa as u64;
                        match self.cfg.ftl.gc_mapping_update {
                            // MQSim Allocate_new_page_for_gc: into the CMT, dirty (a no-op
                            // without a CMT).
                            GcMappingUpdate::CmtInsert => self.cmt_insert(now, lpa, true),
                            GcMappingUpdate::CachedOnly => {
                                if let Some(c) = &mut self.cmt {
                                    c.mark_dirty(lpa);
                                }
                            }
                        }
                    }
                    ppa
                }
                _ => x.ppa,
            };
            self.txns[t as usize].ppa = ppa;
            bytes += x.bytes;
        }
        let c = &mut self.flash;
        match op {
            FlashOp::Read => {
                c.read_commands += 1;
                c.page_reads += picked.len() as u64;
            }
            FlashOp::Program => {
                c.program_commands += 1;
                c.page_programs += picked.len() as u64;
            }
            FlashOp::Erase => c.erase_commands += 1,
            FlashOp::Copyback => {
                c.copyback_commands += 1;
                c.page_reads += picked.len() as u64;
                c.page_programs += picked.len() as u64;
            }
        }
        if picked.len() > 1 {
            c.multiplane_commands += 1;
        }
        let d = &mut self.dies[die];
        d.phase = Phase::Command;
        d.op = op;
        d.n = picked.len() as u8;
        d.txns[..picked.len()].copy_from_slice(picked);
        d.bytes = bytes;
        d.started = now;
        if matches!(kind, TxnKind::GcRead | TxnKind::ScanRead)
            && self
                .ctl
                .as_ref()
                .is_some_and(|c| c.design.global_copyback())
        {
            // The GC reads take source dBUF slots; a status-scan read may share their
            // multi-plane read and takes none.
            let gc = picked
                .iter()
                .filter(|&&t| self.txns[t as usize].kind == TxnKind::GcRead)
                .count() as u32;
            let fc = self.fc_of_die(die as u32);
            if let Some(c) = &mut self.ctl {
                c.dbuf_used[fc as usize] += gc;
            }
        }
        let d = &mut self.dies[die];
        d.gc_streak = match kind {
            TxnKind::GcRead
            | TxnKind::GcWrite
            | TxnKind::Copyback
            | TxnKind::Erase
            | TxnKind::ScanRead => d.gc_streak.saturating_add(1),
            _ => 0,
        };
        if let Some(ctl) = &mut self.ctl {
            for &t in picked {
                let x = &self.txns[t as usize];
                if let Some(c) = breakdown_class(x.kind) {
                    let q = self.queued_at.get(t as usize).copied().unwrap_or(now);
                    ctl.add(c, C_QUEUE, now.saturating_sub(q));
                }
            }
        }
        if op == FlashOp::Program {
            if let Some(ctl) = &mut self.ctl {
                // dSSD §2.1, §3: program data goes DRAM → system bus → FC, page by page; a
                // global copyback page is already in the destination FC's dBUF (§4.2).
                let global = kind == TxnKind::GcWrite && ctl.design.global_copyback();
                if !global {
                    let mut end = now;
                    for &t in picked {
                        let x = &self.txns[t as usize];
                        let b = x.bytes as u64;
                        let d = if ctl.dram_forward_reads {
                            self.dram.reserve(now, now, b)
                        } else {
                            now
                        };
                        let e = ctl.bus.reserve(now, d, b);
                        if let Some(c) = breakdown_class(x.kind) {
                            ctl.add(c, C_DRAM, d - now);
                            ctl.add(c, C_BUS, e - d);
                        }
                        end = end.max(e);
                    }
                    self.q.schedule(end, Event::StageDone { die: die as u32 });
                    return;
                }
            }
        }
        self.submit_command(now, die);
    }

    /// Hand a die's operation (command, and program data) to the interconnect.
    fn submit_command(&mut self, now: Ps, die: usize) {
        self.dies[die].stage_end = now;
        let d = &self.dies[die];
        let (op, bytes, n) = (d.op, d.bytes, d.n as u32);
        let chip = self.ftl.geo.chip_of_die(die as u32);
        // Programs carry their data with the command; reads send data after tR.
        let payload = if op == FlashOp::Program { bytes } else { 0 };
        self.net.submit(
            now,
            Transfer {
                die: die as u32,
                chip,
                commands: 1,
                command_ps: self.timing.command_time(op, n),
                bytes: payload,
            },
            &mut self.q,
        );
    }

    fn mark_conflict(&mut self, die: usize) {
        let d = self.dies[die];
        for &t in &d.txns[..d.n as usize] {
            let r = self.txns[t as usize].req;
            if r != NONE && r != PROBE && r != ACKED {
                self.reqs[r as usize].conflict = true;
            }
        }
    }

    fn on_transfer_done(&mut self, now: Ps, die: u32, conflict: bool) {
        let die = die as usize;
        if conflict {
            self.mark_conflict(die);
        }
        let d = &mut self.dies[die];
        match d.phase {
            Phase::Command => {
                if d.op == FlashOp::Program
                    && self.cfg.ftl.write_completion == WriteCompletion::Transfer
                {
                    self.ack_writes(now, die);
                }
                if self.dies[die].op == FlashOp::Program {
                    self.gc_writes_left_dbuf(now, die);
                }
                let d = &mut self.dies[die];
                d.phase = Phase::Array;
                let t = if self.timing.by_page_type() {
                    // TLC page types (dSSD Table 1): the slowest page of the operation.
                    let ppb = self.ftl.geo.pages_per_block;
                    let txns = &self.txns;
                    self.timing.array_time_at(
                        d.op,
                        d.txns[..d.n as usize]
                            .iter()
                            .map(|&t| txns[t as usize].ppa % ppb),
                    )
                } else {
                    self.timing.array_time(d.op)
                };
                d.array_time += t;
                self.q
                    .schedule(now + t, Event::ArrayDone { die: die as u32 });
            }
            Phase::DataOut => self.finish_op(now, die),
            p => unreachable!("transfer done in phase {p:?}"),
        }
    }

    /// The controller model moves GC pages by global copyback (dSSD, dSSD_b, dSSD_f).
    #[inline]
    fn global_copyback(&self) -> bool {
        self.ctl
            .as_ref()
            .is_some_and(|c| c.design.global_copyback())
    }

    /// A program's data is in its chip: its global copyback pages leave the destination dBUF.
    fn gc_writes_left_dbuf(&mut self, now: Ps, die: usize) {
        if !self.global_copyback() {
            return;
        }
        let d = &self.dies[die];
        let k = d.txns[..d.n as usize]
            .iter()
            .filter(|&&t| self.txns[t as usize].kind == TxnKind::GcWrite)
            .count() as u32;
        if k > 0 {
            self.dbuf_release(now, self.fc_of_die(die as u32), k);
        }
    }

    /// SSDsim's write completion: the host is told as soon as the data is in the chip.
    fn ack_writes(&mut self, now: Ps, die: usize) {
        let d = self.dies[die];
        for &t in &d.txns[..d.n as usize] {
            let x = self.txns[t as usize];
            if x.kind == TxnKind::UserWrite && x.req != NONE && x.req != PROBE {
                self.txns[t as usize].req = ACKED;
                self.request_pages_done(now, x.req, 1);
            }
        }
    }

    fn on_array_done(&mut self, now: Ps, die: u32) {
        let die = die as usize;
        let d = &mut self.dies[die];
        if d.op == FlashOp::Read {
            d.phase = Phase::DataOut;
            let t = Transfer {
                die: die as u32,
                chip: self.ftl.geo.chip_of_die(die as u32),
                commands: 0,
                command_ps: 0,
                bytes: d.bytes,
            };
            self.net.submit(now, t, &mut self.q);
        } else {
            self.finish_op(now, die);
        }
    }

    fn finish_op(&mut self, now: Ps, die: usize) {
        let d = self.dies[die];
        if let Some(ctl) = &mut self.ctl {
            for &t in &d.txns[..d.n as usize] {
                let k = self.txns[t as usize].kind;
                if let Some(c) = breakdown_class(k) {
                    ctl.add(c, C_FLASH, now - d.stage_end);
                    if matches!(k, TxnKind::UserWrite | TxnKind::GcWrite | TxnKind::Copyback) {
                        ctl.pages[c] += 1;
                    }
                }
            }
        }
        if d.op == FlashOp::Read && self.ctl.is_some() {
            let fc = self.fc_of_die(die as u32);
            for &t in &d.txns[..d.n as usize] {
                self.move_read(now, t, fc);
            }
        } else {
            for &t in &d.txns[..d.n as usize] {
                self.complete_txn(now, t);
            }
        }
        let d = &mut self.dies[die];
        d.busy_time += now - d.started;
        d.phase = Phase::Idle;
        d.n = 0;
        self.try_dispatch(now, die);
    }

    fn complete_txn(&mut self, now: Ps, t: u32) {
        let x = self.txns[t as usize];
        self.free_txn(t);
        if x.req == PROBE {
            self.probe_done.push((x.link, now));
            return;
        }
        match x.kind {
            TxnKind::UserRead => self.request_pages_done(now, x.req, 1),
            TxnKind::RmwRead => {
                self.flash.rmw_reads += 1;
                self.enqueue(now, x.link, Q_WRITE);
            }
            TxnKind::ScanRead => self.flash.scan_reads += 1,
            TxnKind::MapRead => {
                self.flash.mapping_reads += 1;
                let list = self
                    .map_waiters
                    .remove(&x.lpa)
                    .expect("mapping read without waiters");
                let mut w = list.head;
                while w != NONE {
                    let next = self.txns[w as usize].next;
                    self.cmt_insert(now, self.txns[w as usize].lpa as u64, false);
                    self.route(now, w);
                    w = next;
                }
            }
            TxnKind::UserWrite => {
                if x.req == ACKED {
                    // Acknowledged when its data reached the chip.
                } else if x.req != NONE {
                    self.request_pages_done(now, x.req, 1);
                } else if self.cache.as_mut().unwrap().program_done(x.lpa as u64) {
                    let n = self.alloc_txn(TxnKind::UserWrite, NONE, x.lpa, NONE, NONE, 0);
                    self.translate(now, n);
                } else {
                    self.wake_buffer_waiters(now);
                }
            }
            TxnKind::MapWrite => self.flash.mapping_writes += 1,
            TxnKind::GcRead => {
                self.flash.gc_reads += 1;
                if let Some(tl) = &mut self.timeline {
                    let b = self.ftl.geo.page_bytes as u64;
                    tl.gc_read_bytes.add(now, b);
                }
                // The destination was chosen when the page left its FC (global copyback).
                let dest = if x.link != NONE {
                    x.link
                } else {
                    self.gc_destination(x.plane)
                };
                let g = self.alloc_txn(
                    TxnKind::GcWrite,
                    NONE,
                    x.lpa,
                    x.ppa,
                    dest,
                    self.ftl.geo.page_bytes,
                );
                self.txns[g as usize].link = x.plane;
                self.enqueue(now, g, Q_GC_WRITE);
            }
            TxnKind::GcWrite | TxnKind::Copyback => {
                self.flash.gc_writes += 1;
                if let Some(tl) = &mut self.timeline {
                    let b = self.ftl.geo.page_bytes as u64;
                    tl.gc_bytes.add(now, b);
                }
                if !self.probe_gc.is_empty() {
                    let i = self.probe_gc.remove(0);
                    self.probe_done.push((i, now));
                    self.probe_gc_dest.push(x.plane);
                }
                self.gc_move_done(now, gc_source_plane(&x));
            }
            TxnKind::Erase => {
                self.ftl
                    .erase_done(x.plane, self.ftl.geo.block_of_ppa(x.ppa));
                self.gc_victim[x.plane as usize] = NONE;
                self.maybe_gc(now, x.plane, false);
                // MQSim checks static wear levelling after each erase (GC_and_WL_Unit_Base),
                // while the host has requests in the drive or to come. After the last one no
                // round starts (a MQSim run ends with its requests): at a threshold of 1 every
                // round's moves cost erases elsewhere, so levelling would never end the run.
                if !self.host_done() {
                    if let Some(victim) = self.ftl.start_static_wl(x.plane) {
                        self.collect(now, x.plane, victim);
                    }
                }
            }
        }
    }

    fn wake_buffer_waiters(&mut self, now: Ps) {
        while self.buffer_wait.head != NONE {
            let id = self.buffer_wait.head;
            let r = self.reqs[id as usize];
            let page = self.ftl.geo.page_bytes as u64;
            let (lpa, _) = self.page_of(&r, r.offset / page + r.next_page as u64);
            if !self.cache.as_ref().unwrap().has_room(lpa) {
                return;
            }
            pop_front(&mut self.reqs, &mut self.buffer_wait);
            self.buffer_write(now, id);
        }
    }

    // ------------------------------------------------------------------------ GC

    /// Start GC in `plane` if it is due; `write`: a page was just placed there (a host or
    /// mapping write, or a GC page from another plane). With `gc_pacing = "per-write"` only
    /// such a write starts a victim (SimpleSSD: GC is triggered inside a write and reclaims
    /// GCReclaimBlocks = 1 block), not the erase that ends the last one, unless the plane is
    /// below the hard threshold or too low for the next user write.
    fn maybe_gc(&mut self, now: Ps, plane: u32, write: bool) {
        if !self.ftl.gc_due(plane) {
            return;
        }
        if !write
            && self.cfg.ftl.gc_pacing == GcPacing::PerWrite
            && !self.ftl.gc_urgent(plane)
            && self.ftl.can_allocate(plane, Stream::User)
        {
            return;
        }
        if !self.start_plane_gc(now, plane) {
            return;
        }
        if self.cfg.ftl.gc_mode == GcMode::Parallel {
            // PaGC (dSSD §6.1, Shahidi et al. SC'16): the die's other planes collect at the
            // same time, so their GC reads and programs can go as multi-plane operations.
            let ppd = self.ftl.geo.planes_per_die;
            let p0 = plane / ppd * ppd;
            for p in p0..p0 + ppd {
                if p != plane && !self.ftl.gc_active(p) {
                    self.start_plane_gc(now, p);
                }
            }
        }
    }

    /// Choose a victim in `plane` and queue its page moves; false if none would free space.
    fn start_plane_gc(&mut self, now: Ps, plane: u32) -> bool {
        let Some(victim) = self.ftl.start_gc(plane) else {
            return false;
        };
        self.collect(now, plane, victim);
        true
    }

    /// Queue the page moves of `victim` (chosen by GC or static wear levelling), then its
    /// erase.
    fn collect(&mut self, now: Ps, plane: u32, victim: u32) {
        self.gc_victim[plane as usize] = victim;
        let mut moves = std::mem::take(&mut self.scratch);
        moves.clear();
        self.ftl
            .for_each_valid(plane, victim, |ppa, tag| moves.push((ppa, tag)));
        self.gc_moves[plane as usize] = moves.len() as u32;
        let copyback = self.cfg.ftl.copyback;
        for &(ppa, tag) in &moves {
            let (kind, q, bytes) = if copyback {
                (TxnKind::Copyback, Q_GC_WRITE, 0)
            } else {
                (TxnKind::GcRead, Q_GC_READ, self.ftl.geo.page_bytes)
            };
            let t = self.alloc_txn(kind, NONE, tag, ppa, plane, bytes);
            self.enqueue(now, t, q);
        }
        let none = moves.is_empty();
        self.scratch = moves;
        if none {
            self.issue_erase(now, plane);
        }
    }

    /// Pages a GC read on `die` may still put into its FC's dBUF (dSSD §6.5: two 32 KB
    /// dBUFs per FC); unbounded without global copyback.
    #[inline]
    fn dbuf_room(&self, die: usize) -> u32 {
        match &self.ctl {
            Some(c) if c.design.global_copyback() => {
                let fc = self.fc_of_die(die as u32);
                c.dbuf_pages.saturating_sub(c.dbuf_used[fc as usize])
            }
            _ => u32::MAX,
        }
    }

    /// Plane a GC page from `src` is written to (`ftl.gc_destination`): its own, or (global
    /// free-block selection, dSSD §3) the plane holding the fewest valid pages (those headed
    /// there counted) among those with room for one more GC page short of their last free
    /// block ([`Ftl::gc_room`]), scanned from a rotating start (ties to the first, so equal
    /// planes take turns); its own if none has room. Fewest valid keeps the planes equally
    /// full: any imbalance raises write amplification at high utilization.
    fn gc_destination(&mut self, src: u32) -> u32 {
        if self.cfg.ftl.gc_destination == GcDestination::SamePlane {
            return src;
        }
        let n = self.ftl.geo.planes;
        let start = self.gc_rr;
        self.gc_rr = (start + 1) % n;
        let (mut best, mut best_valid) = (src, u64::MAX);
        for i in 0..n {
            let p = (start + i) % n;
            if p == src {
                continue;
            }
            // Less the pages its own victim still has to move: they may land there (its own
            // plane is their fallback) and must not find the room promised to imports.
            let room = self
                .ftl
                .gc_room(p)
                .saturating_sub(self.gc_moves[p as usize] as u64);
            // Pages reserved there count as valid: they will be.
            let valid = self.ftl.plane_valid(p) + self.ftl.gc_room_reserved(p);
            if room > 0 && valid < best_valid {
                best = p;
                best_valid = valid;
            }
        }
        // Its own plane is the victim's fallback (the last free block is kept for it).
        if best != src && self.ftl.plane_valid(src) + self.ftl.gc_room_reserved(src) < best_valid {
            best = src;
        }
        if best != src {
            self.ftl.reserve_gc(best);
        }
        best
    }

    /// A GC write to another plane was allocated (or dropped): its reservation ends.
    #[inline]
    fn gc_arrived(&mut self, x: &Txn) {
        if x.kind == TxnKind::GcWrite && x.link != NONE && x.link != x.plane {
            self.ftl.release_gc(x.plane);
        }
    }

    /// A page read left its die (`controller.enabled`): ECC at its FC, then along its path
    /// (module doc of `ssd::controller`) to DRAM or to the destination FC's dBUF.
    fn move_read(&mut self, now: Ps, t: u32, fc: u32) {
        let x = self.txns[t as usize];
        let bytes = x.bytes as u64;
        let global = {
            let ctl = self.ctl.as_ref().expect("controller model on");
            x.kind == TxnKind::GcRead && ctl.design.global_copyback()
        };
        let dst_fc = if global {
            // Chosen at dispatch with a bounded destination dBUF.
            let d = if x.link != NONE {
                x.link
            } else {
                self.gc_destination(x.plane)
            };
            self.txns[t as usize].link = d;
            self.fc_of_plane(d)
        } else {
            NONE
        };
        let ctl = self.ctl.as_mut().expect("controller model on");
        let e = ctl.ecc(fc, now);
        let class = breakdown_class(x.kind);
        if let Some(c) = class {
            ctl.add(c, C_ECC, e - now);
            if c == CLASS_READ {
                ctl.pages[c] += 1;
            }
        }
        if !global {
            // dSSD §3, Fig. 1: FC → system bus → DRAM; a read miss is then read out of DRAM
            // for the host (charged with `dram_forward_reads`).
            let b = ctl.bus.reserve(now, e, bytes);
            let mut end = self.dram.reserve(now, b, bytes);
            if x.kind == TxnKind::UserRead && ctl.dram_forward_reads {
                end = self.dram.reserve(now, end, bytes);
            }
            if let Some(c) = class {
                ctl.add(c, C_BUS, b - e);
                ctl.add(c, C_DRAM, end - b);
            }
            if x.kind == TxnKind::GcRead {
                ctl.stats.gc_moves_through_dram += 1;
            }
            self.q.schedule(end, Event::MoveDone { txn: t });
            return;
        }
        // Global copyback (§4.2, Fig. 4): dBUF → [bus | dedicated bus | fNoC] → dBUF, once the
        // destination dBUF has room.
        if dst_fc == fc {
            ctl.stats.gc_moves_global_same_channel += 1;
        } else {
            ctl.stats.gc_moves_global_cross_channel += 1;
        }
        self.q.schedule(e, Event::DbufDepart { txn: t });
    }

    /// FC of the die holding `plane`.
    #[inline]
    fn fc_of_plane(&self, plane: u32) -> u32 {
        self.fc_of_die(self.ftl.geo.die_of_plane(plane))
    }

    /// FC (channel) of `die`.
    #[inline]
    fn fc_of_die(&self, die: u32) -> u32 {
        self.ftl.geo.chip_of_die(die) / self.cfg.flash.chips_per_channel
    }

    /// A global copyback GC read about to be dispatched with a bounded destination dBUF
    /// (`dbuf_destination_bytes`): choose its destination (once) and take a slot in that FC's
    /// dBUF, or leave the read queued (false). Reserving at dispatch, not when the page is
    /// ready to leave, means no page holds its source dBUF and the die while it waits for a
    /// slot that only a GC program (which may need that die's GC) frees.
    fn claim_destination_slot(&mut self, t: u32) -> bool {
        match &self.ctl {
            Some(c) if c.design.global_copyback() && c.dbuf_in_pages != u32::MAX => {}
            _ => return true,
        }
        let first = self.txns[t as usize].link == NONE;
        if first {
            let d = self.gc_destination(self.txns[t as usize].plane);
            self.txns[t as usize].link = d;
        }
        let dst = self.fc_of_plane(self.txns[t as usize].link) as usize;
        let ctl = self.ctl.as_mut().expect("controller model on");
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

    /// A global copyback page through its source ECC goes to its destination FC's dBUF
    /// (§4.2; §6.5: the dBUFs are 32 KB). A bounded dBUF's slot was taken at dispatch.
    fn dbuf_depart(&mut self, now: Ps, t: u32) {
        let dst = self.fc_of_plane(self.txns[t as usize].link) as usize;
        let ctl = self.ctl.as_mut().expect("controller model on");
        if ctl.dbuf_in_pages == u32::MAX {
            ctl.dbuf_in[dst] += 1;
        }
        self.dbuf_go(now, t);
    }

    /// `k` pages left the destination dBUF of `fc` (their program moved them into the chip,
    /// or they were dropped): if it was full, GC reads waiting for its slots may start.
    fn dbuf_release(&mut self, now: Ps, fc: u32, k: u32) {
        let ctl = self.ctl.as_mut().expect("controller model on");
        let was_full = ctl.dbuf_in[fc as usize] >= ctl.dbuf_in_pages;
        ctl.dbuf_in[fc as usize] -= k;
        if was_full {
            for die in 0..self.dies.len() {
                self.try_dispatch(now, die);
            }
        }
    }

    /// A global copyback page with its destination slot: to the destination FC over the
    /// design's link (same channel: none).
    fn dbuf_go(&mut self, now: Ps, t: u32) {
        let x = self.txns[t as usize];
        let (fc, dst) = (self.fc_of_plane(x.plane), self.fc_of_plane(x.link));
        let ctl = self.ctl.as_mut().expect("controller model on");
        if fc == dst {
            self.q.schedule(now, Event::MoveDone { txn: t });
            return;
        }
        let bytes = x.bytes as u64;
        let end = match &mut ctl.link {
            FcLink::None => unreachable!("global copyback needs an FC link"),
            FcLink::SystemBus => {
                let b = ctl.bus.reserve(now, now, bytes);
                ctl.add(CLASS_GC, C_BUS, b - now);
                b
            }
            FcLink::Dedicated(r) => {
                let b = r.reserve(now, now, bytes);
                ctl.add(CLASS_GC, C_LINK, b - now);
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
        self.q.schedule(end, Event::MoveDone { txn: t });
    }

    /// A page read reached DRAM or its destination FC: free its source dBUF slot (global
    /// copyback), let that FC's dies read again, and complete the transaction.
    fn move_done(&mut self, now: Ps, t: u32) {
        let x = self.txns[t as usize];
        if x.kind == TxnKind::GcRead {
            if let Some(c) = &mut self.ctl {
                if c.design.global_copyback() {
                    let g = &self.ftl.geo;
                    let cpc = self.cfg.flash.chips_per_channel;
                    let dpc = g.dies_per_chip;
                    let fc = g.chip_of_die(g.die_of_plane(x.plane)) / cpc;
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
            }
        }
        self.complete_txn(now, t);
    }

    /// Keep one `FnocWake` in the queue at or before the fNoC's next event.
    fn fnoc_arm(&mut self) {
        let ctl = self.ctl.as_mut().expect("controller model on");
        let FcLink::Fnoc(net) = &ctl.link else { return };
        if let Some(t) = net.next_event_time() {
            if ctl.wakes.first().is_none_or(|&w| t < w) {
                self.q.schedule(t, Event::FnocWake);
                ctl.wakes.insert(0, t);
            }
        }
    }

    fn fnoc_wake(&mut self, now: Ps) {
        let ctl = self.ctl.as_mut().expect("controller model on");
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
            tl.link_busy.add(now, busy - self.fnoc_busy_seen);
            self.fnoc_busy_seen = busy;
        }
        let mut deliveries = std::mem::take(&mut ctl.deliveries);
        for d in deliveries.drain(..) {
            ctl.link_time += d.delivered - d.sent;
            ctl.add(CLASS_GC, C_LINK, d.delivered - d.sent);
            self.q
                .schedule(d.delivered, Event::MoveDone { txn: d.tag as u32 });
        }
        ctl.deliveries = deliveries;
        self.fnoc_arm();
    }

    fn gc_move_done(&mut self, now: Ps, plane: u32) {
        let m = &mut self.gc_moves[plane as usize];
        *m -= 1;
        if *m == 0 {
            self.issue_erase(now, plane);
        }
    }

    fn issue_erase(&mut self, now: Ps, plane: u32) {
        let victim = self.gc_victim[plane as usize];
        debug_assert_eq!(self.ftl.valid_pages(plane, victim), 0);
        let ppa = self.ftl.geo.ppa(plane, victim, 0);
        let t = self.alloc_txn(TxnKind::Erase, NONE, NONE, ppa, plane, 0);
        self.enqueue(now, t, Q_ERASE);
    }

    // ---------------------------------------------------------------------- slabs

    fn alloc_txn(
        &mut self,
        kind: TxnKind,
        req: u32,
        lpa: u32,
        ppa: u32,
        plane: u32,
        bytes: u32,
    ) -> u32 {
        let x = Txn {
            kind,
            req,
            lpa,
            ppa,
            plane,
            bytes,
            next: NONE,
            link: NONE,
        };
        slab_alloc(&mut self.txns, &mut self.free_txn, x)
    }

    fn free_txn(&mut self, t: u32) {
        slab_free(&mut self.txns, &mut self.free_txn, t);
    }

    fn alloc_req(&mut self, r: Request) -> u32 {
        slab_alloc(&mut self.reqs, &mut self.free_req, r)
    }

    fn free_req(&mut self, id: u32) {
        self.reqs[id as usize].live = false;
        slab_free(&mut self.reqs, &mut self.free_req, id);
    }

    // -------------------------------------------------------------------- results

    fn finish(mut self) -> Outcome {
        let sim_time = self.last_completion;
        // Utilization is over the span in which a resource could be busy: flash work (cache
        // destage, GC) can outlast the last host completion, so the span runs to the last
        // event; dividing by `sim_time` alone reported channels above 100 %.
        let span = sim_time.max(self.q.now());
        let nd = self.dies.len() as f64;
        let frac = |x: Ps| {
            if span > 0 {
                x as f64 / span as f64
            } else {
                0.0
            }
        };
        let die_busy_fraction = self.dies.iter().map(|d| frac(d.busy_time)).sum::<f64>() / nd;
        let die_array_fraction = self.dies.iter().map(|d| frac(d.array_time)).sum::<f64>() / nd;
        let conflicted_requests = self.flows.iter().map(|f| f.conflicted).sum();
        let (hits, merges) = self
            .cache
            .as_ref()
            .map_or((0, 0), |c| (c.read_hits, c.write_merges));
        let interconnect = self.net.stats(span);
        let resource_audit = self.dram.audit.take().map(|dram| {
            let mut lists = vec![("dram", dram)];
            if let Some(c) = &mut self.ctl {
                lists.push(("system bus", c.bus.audit.take().unwrap_or_default()));
                if let FcLink::Dedicated(r) = &mut c.link {
                    lists.push(("dedicated bus", r.audit.take().unwrap_or_default()));
                }
            }
            crate::ssd::controller::check_grants(&lists)
        });
        let timeline = self.timeline.take().map(|mut tl| {
            if let Some(s) = self.dram.windows.take() {
                tl.dram_busy = s;
            }
            if let Some(c) = &mut self.ctl {
                if let Some(s) = c.bus.windows.take() {
                    tl.bus_busy = s;
                }
                if let FcLink::Dedicated(r) = &mut c.link {
                    if let Some(s) = r.windows.take() {
                        tl.link_busy = s;
                    }
                }
            }
            tl.align();
            *tl
        });
        let controller = self.ctl.as_mut().map(|c| c.finish(span, &self.dram));
        let mut latency = FlowLatency::default();
        for f in &mut self.flows {
            f.latency.finish();
            latency.merge(&f.latency);
        }
        Outcome {
            controller,
            resource_audit,
            timeline,
            sim_time,
            busy_span: span,
            events: self.q.events_processed() + interconnect.local_events,
            interconnect,
            interconnect_name: self.net.name(),
            flash: self.flash,
            ftl: self.ftl.counters.clone(),
            wear: self.ftl.wear(),
            die_busy_fraction,
            die_array_fraction,
            cache_read_hits: hits,
            cache_write_merges: merges,
            conflicted_requests,
            state_bytes: self.ftl.state_bytes()
                + self.txns.capacity() * std::mem::size_of::<Txn>()
                + self.reqs.capacity() * std::mem::size_of::<Request>(),
            consistency: self.verify.then(|| self.ftl.check_consistency()),
            config: self.cfg,
            latency,
            flows: self
                .flows
                .into_iter()
                .map(|f| FlowOutcome {
                    name: f.name,
                    replay: f.replay,
                    completed: f.completed,
                    reads: f.reads,
                    writes: f.writes,
                    bytes: f.bytes,
                    conflicted: f.conflicted,
                    reordered_arrivals: f.reordered_arrivals,
                    latency: f.latency,
                    scheduler: f.sched.map(|mut s| s.finish_stats()),
                })
                .collect(),
        }
    }
}

/// Latency breakdown class of a transaction (user page reads, user page programs, GC moves).
#[inline]
fn breakdown_class(k: TxnKind) -> Option<usize> {
    match k {
        TxnKind::UserRead => Some(CLASS_READ),
        TxnKind::UserWrite => Some(CLASS_WRITE),
        TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Copyback => Some(CLASS_GC),
        _ => None,
    }
}

/// The plane a GC move's victim is in: a GC write records it in `link` (its own `plane` is
/// the destination, which global free-block selection may place elsewhere).
#[inline]
fn gc_source_plane(x: &Txn) -> u32 {
    if x.kind == TxnKind::GcWrite && x.link != NONE {
        x.link
    } else {
        x.plane
    }
}

// Slabs of `Copy` records addressed by index, with free lists and intrusive lists threaded
// through their `next` fields (no allocation per request or transaction).

trait Linked {
    fn next(&self) -> u32;
    fn set_next(&mut self, n: u32);
}

impl Linked for Txn {
    #[inline(always)]
    fn next(&self) -> u32 {
        self.next
    }
    #[inline(always)]
    fn set_next(&mut self, n: u32) {
        self.next = n;
    }
}

impl Linked for Request {
    #[inline(always)]
    fn next(&self) -> u32 {
        self.next
    }
    #[inline(always)]
    fn set_next(&mut self, n: u32) {
        self.next = n;
    }
}

/// Store `x` in a free slot (or a new one) and return its index.
fn slab_alloc<T: Linked>(slab: &mut Vec<T>, free: &mut u32, x: T) -> u32 {
    if *free != NONE {
        let id = *free;
        *free = slab[id as usize].next();
        slab[id as usize] = x;
        id
    } else {
        slab.push(x);
        (slab.len() - 1) as u32
    }
}

fn slab_free<T: Linked>(slab: &mut [T], free: &mut u32, id: u32) {
    slab[id as usize].set_next(*free);
    *free = id;
}

fn push_back<T: Linked>(slab: &mut [T], l: &mut List, t: u32) {
    slab[t as usize].set_next(NONE);
    if l.tail == NONE {
        l.head = t;
    } else {
        slab[l.tail as usize].set_next(t);
    }
    l.tail = t;
}

/// Unlink `t`, whose predecessor in `l` is `prev` (`NONE` at the head).
fn remove_linked<T: Linked>(slab: &mut [T], l: &mut List, prev: u32, t: u32) {
    let next = slab[t as usize].next();
    if prev == NONE {
        l.head = next;
    } else {
        slab[prev as usize].set_next(next);
    }
    if l.tail == t {
        l.tail = prev;
    }
    slab[t as usize].set_next(NONE);
}

fn pop_front<T: Linked>(slab: &mut [T], l: &mut List) -> u32 {
    let id = l.head;
    l.head = slab[id as usize].next();
    if l.head == NONE {
        l.tail = NONE;
    }
    id
}

#[cfg(test)]
mod tests {
    /// The engine event moves as two whole words (see [`super::Event`]).
    #[test]
    fn the_event_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<super::Event>(), 16);
        assert_eq!(std::mem::align_of::<super::Event>(), 8);
        assert_eq!(std::mem::size_of::<crate::interconnect::IcEvent>(), 8);
    }
}
