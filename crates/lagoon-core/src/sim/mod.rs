//! The composition root: builds the host flows and the drive ([`crate::ssd::Ssd`], whose
//! stages own their state and events), runs the one event loop, hands each event to its
//! owner ([`Simulator::dispatch`], shared by runs and probe runs), joins the host to the
//! drive's host interface, and guards the run (stuck-model watchdog, memory guard,
//! cancellation).
//!
//! Per-request and per-transaction state live in slabs addressed by `u32`; die queues are
//! intrusive linked lists through the transaction slab, so the steady state allocates nothing.

pub mod event;
pub mod outcome;
pub mod probe;

pub use crate::ssd::probe::ProbeOp;
pub use event::Event;
pub use outcome::{FlashCounters, FlowOutcome, Outcome};
pub use probe::ProbeExtra;

use crate::config::SsdConfig;
use crate::engine::EventQueue;
use crate::host::flows::{Host, HostEvent, LiveCompletion};
use crate::host::piq::{ChipSet, HostScheduler, Scheme};
use crate::host::{Flow, Replay};
use crate::interconnect::{Arch, IcEvent};
use crate::ssd::dynamic_superblock::BlockRemap;
use crate::ssd::ftl::{Ftl, Stream};
use crate::ssd::hil::HilEvent;
use crate::ssd::Ssd;
use crate::time::{Ps, PS_PER_NS};
use lagoon_workload::{IoRequest, WorkloadError};

/// The watchdog's default bound: this many events in a row at one simulated instant, or
/// inside the interconnect with no flash, host or completion event between them, is a stuck
/// model, not a busy one. Real runs stay far below it (Venice at saturation: ~160 events per
/// request; docs/BENCHMARKS.md), so only a livelock reaches it, after a few seconds.
pub const WATCHDOG_EVENTS: u64 = 50_000_000;

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

/// The engine's queue.
type Engine = EventQueue<Event>;

pub struct Simulator {
    ssd: Ssd<Engine>,
    host: Host,
    verify: bool,
    watchdog_events: u64,
    /// The memory guard's limit ([`Simulator::state_over_limit`]).
    state_limit: u64,
    /// End the run at the last host completion ([`Simulator::set_stop_at_last_completion`]).
    stop_at_last_completion: bool,
    /// Asked to stop ([`Simulator::set_cancel`]).
    cancel: Option<crate::cancel::Cancel>,
    /// Live completions not yet taken ([`Simulator::take_live_completions`]).
    live_done: Vec<LiveCompletion>,
}

/// Why the event loop returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopEnd {
    /// No event left.
    Drained,
    /// The next event is after the bound (a live run).
    Reached,
    /// An error, a fault or the last host completion stopped it.
    Stopped,
    /// Asked to finish now ([`crate::cancel::Cancel::finish`]).
    Finish,
}

impl Simulator {
    pub fn new(cfg: &SsdConfig, arch: Arch, flows: Vec<Flow>, seed: u64) -> Self {
        Self {
            ssd: Ssd::new(cfg, arch, flows.len().max(1), seed, EventQueue::new()),
            host: Host::new(flows),
            verify: false,
            watchdog_events: WATCHDOG_EVENTS,
            // A validated configuration has read the limit already.
            state_limit: crate::config::schema::model_state_limit()
                .unwrap_or(crate::config::schema::MODEL_STATE_LIMIT_BYTES),
            stop_at_last_completion: false,
            cancel: None,
            live_done: Vec::new(),
        }
    }

    /// Put a host I/O scheduler (PIQ paper §IV) with queue length `queue_length` between every
    /// flow and its submission queue.
    pub fn set_host_scheduler(&mut self, scheme: Scheme, queue_length: u32) -> Result<(), String> {
        let cfg = &self.ssd.cfg;
        let chips = cfg.flash.channels * cfg.flash.chips_per_channel;
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
        let slots = cfg.host.io_queue_depth;
        for f in &mut self.host.flows {
            f.sched = Some(HostScheduler::new(scheme, queue_length, slots));
        }
        Ok(())
    }

    /// Logical page capacity one flow addresses, in bytes (for sizing synthetic workloads).
    pub fn flow_capacity_bytes(cfg: &SsdConfig, nflows: usize) -> u64 {
        let ftl_pages = {
            let g = crate::flash::Geometry::new(&cfg.flash, cfg.ftl.allocation);
            (g.pages_per_plane as f64 * (1.0 - cfg.ftl.overprovisioning)) as u64 * g.planes as u64
        };
        ftl_pages / nflows.max(1) as u64 * cfg.flash.page_bytes as u64
    }

    pub fn ftl(&self) -> &Ftl {
        &self.ssd.ftl
    }

    /// Bound of the stuck-model watchdog (see [`WATCHDOG_EVENTS`]); tests lower it.
    pub fn set_watchdog(&mut self, events: u64) {
        self.watchdog_events = events.max(1);
    }

    /// Record per-window I/O and GC bandwidth and bus, DRAM and FC-link busy time
    /// (`Outcome::timeline`; dSSD Fig. 2). Windows of `window` ps (at least 1 us).
    pub fn set_timeline(&mut self, window: Ps) {
        let w = window.max(crate::time::PS_PER_US);
        let mut tl = Box::new(crate::ssd::datapath::Timeline::new(w));
        if let Some(links) = self.ssd.datapath.set_timeline(w) {
            tl.links = links;
        }
        self.ssd.timeline = Some(tl);
    }

    /// Record every grant of the system bus, DRAM and dedicated bus and check at the end
    /// that no two overlap (`Outcome::resource_audit`). Memory grows with the run: tests only.
    pub fn set_audit(&mut self, on: bool) {
        self.ssd.datapath.set_audit(on);
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
        let g = &self.ssd.ftl.geo;
        if remap.planes() != g.planes || remap.blocks_per_plane() != g.blocks_per_plane {
            return Err(format!(
                "block remap of {} planes x {} blocks on a drive of {} x {}",
                remap.planes(),
                remap.blocks_per_plane(),
                g.planes,
                g.blocks_per_plane
            ));
        }
        self.ssd.tsu.set_block_remap(remap);
        Ok(())
    }

    /// Look at `c` every 65,536 events (a few ms): `abort` ends the run with
    /// [`SimError::Cancelled`]; `finish` ends it at once and reports what was done.
    pub fn set_cancel(&mut self, c: crate::cancel::Cancel) {
        self.ssd.net.set_cancel(&c);
        self.cancel = Some(c);
    }

    /// Tests: a lower limit for the memory guard.
    pub fn set_state_limit(&mut self, bytes: u64) {
        self.state_limit = bytes;
    }

    /// Hand an event to its owner: the one dispatch of runs and probe runs.
    #[inline(always)]
    fn dispatch(&mut self, now: Ps, ev: Event) {
        match ev {
            Event::Host(HostEvent::Arrival { flow }) => self.on_arrival(now, flow as usize),
            Event::Hil(HilEvent::Completed { req }) => self.on_completed(now, req),
            Event::Hil(e) => self.ssd.on_hil_event(now, e),
            Event::Ic(IcEvent::TransferDone { die, conflict }) => {
                self.ssd.on_transfer_done(now, die, conflict);
                self.ssd.net.transfer_done(now, die, &mut self.ssd.q);
            }
            Event::Tsu(e) => self.ssd.on_tsu_event(now, e),
            Event::Ic(IcEvent::Net(e)) => self.ssd.net.on_event(now, e, &mut self.ssd.q),
            Event::DataPath(e) => self.ssd.on_datapath_event(now, e),
            Event::Probe { op } => self.probe_event(now, op),
            Event::Horizon => {}
        }
    }

    /// Run to completion (every request of every flow served), calling `progress` with the
    /// number of completed requests now and then.
    pub fn run(mut self, mut progress: impl FnMut(u64)) -> Result<Outcome, SimError> {
        self.start()?;
        if self.event_loop::<false>(Ps::MAX, &mut progress)? == LoopEnd::Finish {
            return Ok(self.finish());
        }
        self.end()
    }

    /// Before the first event: a fault found while building, the status scan, every flow's
    /// first requests.
    fn start(&mut self) -> Result<(), SimError> {
        if let Some(e) = self.ssd.fault.take() {
            return Err(SimError::Input(e));
        }
        self.ssd.start_status_scan();
        for f in 0..self.host.flows.len() {
            self.start_flow(f);
        }
        Ok(())
    }

    /// Handle events in order, up to and including time `until` when `BOUNDED` (a live run),
    /// else until none is left; stop early on an error, a fault, a cancellation or (runs that
    /// ask for it) the last host completion.
    #[inline(always)]
    fn event_loop<const BOUNDED: bool>(
        &mut self,
        until: Ps,
        progress: &mut impl FnMut(u64),
    ) -> Result<LoopEnd, SimError> {
        let mut completed_seen = 0u64;
        // Watchdog: events since simulated time last moved, and since the last event outside
        // the interconnect.
        let (mut instant, mut same_instant, mut net_only) = (0 as Ps, 0u64, 0u64);
        let mut local_seen = self.ssd.net.local_events();
        loop {
            if BOUNDED && self.ssd.q.peek_time().is_none_or(|t| t > until) {
                return Ok(LoopEnd::Reached);
            }
            let Some((now, ev)) = self.ssd.q.pop() else {
                return Ok(LoopEnd::Drained);
            };
            if now != instant {
                instant = now;
                same_instant = 0;
            }
            same_instant += 1;
            // A Net event that ran past a multiple of 65,536 of the back end's own events
            // (looked at after it, below) also triggers the periodic checks.
            let mut local_tick = false;
            if let Event::Ic(IcEvent::Net(_)) = ev {
                // Local events happen only inside Net events: the delta is the last one's.
                let l = self.ssd.net.local_events();
                net_only += 1 + (l - local_seen);
                local_tick = (l >> 16) != (local_seen >> 16);
                local_seen = l;
            } else {
                net_only = 0;
            }
            if same_instant > self.watchdog_events || net_only > self.watchdog_events {
                return Err(self.stuck(now, same_instant > self.watchdog_events, ev));
            }
            let completion = matches!(ev, Event::Hil(HilEvent::Completed { .. }));
            self.dispatch(now, ev);
            if completion && self.stop_at_last_completion && self.host_done() {
                return Ok(LoopEnd::Stopped);
            }
            if self.host.error.is_some() || self.host.fault.is_some() || self.ssd.fault.is_some() {
                return Ok(LoopEnd::Stopped);
            }
            if self.ssd.q.events_processed() & 0xffff == 0 || local_tick {
                let done: u64 = self.host.flows.iter().map(|f| f.completed).sum();
                if done != completed_seen {
                    completed_seen = done;
                    progress(done);
                }
                // The memory guard, as often as the progress bar: 65,536 events grow the
                // state by a few hundred MB at most.
                if let Some(why) = self.state_over_limit(now, done) {
                    self.ssd.fault = Some(why);
                    return Ok(LoopEnd::Stopped);
                }
                match self.cancel.as_ref().map(|c| c.request()) {
                    Some(crate::cancel::Request::Abort) => {
                        return Err(SimError::Cancelled {
                            time_ns: crate::time::to_ns_f64(now),
                        })
                    }
                    Some(crate::cancel::Request::Finish) => return Ok(LoopEnd::Finish),
                    _ => {}
                }
            }
        }
    }

    /// After the loop: the error that stopped it, or a stall, or the outcome.
    fn end(mut self) -> Result<Outcome, SimError> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        let outstanding = self.outstanding();
        if outstanding > 0 {
            let queued = self.ssd.tsu.busy_queues();
            let full = (0..self.ssd.ftl.geo.planes)
                .filter(|&p| !self.ssd.ftl.can_allocate(p, Stream::User))
                .count();
            return Err(SimError::Stalled {
                time_ns: crate::time::to_ns_f64(crate::engine::Clock::now(&self.ssd.q)),
                outstanding,
                reason: format!("{queued} die queues hold transactions; {full} planes have no free page for user writes and nothing GC can reclaim"),
            });
        }
        Ok(self.finish())
    }

    /// What stopped the run, if anything did: a workload error, an input fault, a back end
    /// that failed (a deadlocked network stops working and its queue drains).
    fn error(&mut self) -> Option<SimError> {
        if let Some(e) = self.host.error.take() {
            return Some(e.into());
        }
        self.host
            .fault
            .take()
            .or_else(|| self.ssd.fault.take())
            .or_else(|| self.ssd.net.take_error())
            .map(SimError::Input)
    }

    // ------------------------------------------------------------------- live runs

    /// Begin a live run: requests of [`Replay::Live`] flows come from
    /// [`Self::submit_live`] while the caller moves the clock with [`Self::advance_to`];
    /// other flows run as in [`Self::run`].
    pub fn start_live(&mut self) -> Result<(), SimError> {
        self.ssd.cache.flush = Some(Box::default());
        self.start()
    }

    /// Every flow addresses the drive's whole logical space (one namespace shared by every
    /// queue pair, as the connections of one NBD export are) instead of a share each. Before
    /// the first request.
    pub fn share_namespace(&mut self) {
        self.ssd.hil.share_namespace(self.ssd.ftl.logical_pages);
    }

    /// Deallocate (TRIM) the whole pages within `bytes` at byte `offset` of live flow `f`'s
    /// namespace now: the FTL unmaps them (no flash work, no simulated time; GC no longer
    /// moves them, and reads of them are answered without a flash read). Partial pages are
    /// left as they are. Returns the pages that held data.
    pub fn trim_live(&mut self, f: usize, offset: u64, bytes: u64) -> u64 {
        let page = self.ssd.ftl.geo.page_bytes as u64;
        let (first, end) = (offset.div_ceil(page), (offset + bytes) / page);
        let mut held = 0;
        for p in first..end {
            let lpa = self.ssd.hil.lpa_of(f, p * page);
            held += self.ssd.ftl.trim(lpa) as u64;
        }
        held
    }

    /// A flush of live flow `f` arrives now: it completes (a [`LiveCompletion`] with `tag`)
    /// once every page of data the write buffer held at this moment has been programmed, at
    /// once if none. It takes no submission queue slot.
    pub fn flush_live(&mut self, f: usize, tag: u64) {
        let now = self.now();
        let fl = crate::ssd::cache::flush::Flush {
            flow: f,
            tag,
            arrival: now,
        };
        self.ssd
            .cache
            .flush
            .get_or_insert_with(Box::default)
            .flush(fl, now);
        self.ssd.write_back_dirty(now);
    }

    /// Handle every event at or before `t`, then set the clock to `t` (never back). A request
    /// submitted next arrives after all of them.
    pub fn advance_to(&mut self, t: Ps) -> Result<(), SimError> {
        let t = t.max(crate::engine::Clock::now(&self.ssd.q));
        // Venice's lookahead handles its own events up to the next engine event: one at `t`
        // keeps it from running past the next submission.
        self.ssd.q.schedule(t, Event::Horizon);
        let end = self.event_loop::<true>(t, &mut |_| {})?;
        if let Some(e) = self.error() {
            return Err(e);
        }
        if end == LoopEnd::Reached || end == LoopEnd::Drained {
            self.ssd.q.advance_to(t);
        }
        Ok(())
    }

    /// Simulated time now, ps.
    pub fn now(&self) -> Ps {
        crate::engine::Clock::now(&self.ssd.q)
    }

    /// When the next event is due, if any (a live driver sleeps until then).
    pub fn next_event_time(&self) -> Option<Ps> {
        self.ssd.q.peek_time()
    }

    /// A request of live flow `f` arrives now; `tag` names it in its completion. It enters
    /// the flow's submission queue now, or, with the queue full, after the requests before it.
    pub fn submit_live(&mut self, f: usize, r: IoRequest, tag: u64) {
        let now = self.now();
        assert_eq!(
            self.host.flows[f].replay,
            Replay::Live,
            "submit_live on a flow that is not live"
        );
        if !self.host.flows[f].live.backlog.is_empty() || self.queue_full(f) {
            self.host.flows[f].live.backlog.push_back((now, r, tag));
            return;
        }
        self.submit_tagged(now, f, now, r, tag);
    }

    /// Live completions since the last call: requests in completion order, then flushes
    /// ([`Self::flush_live`]; each with its own completion time).
    pub fn take_live_completions(&mut self, out: &mut Vec<LiveCompletion>) {
        out.append(&mut self.live_done);
        if let Some(t) = &mut self.ssd.cache.flush {
            out.extend(t.done.drain(..).map(|(f, at)| LiveCompletion {
                flow: f.flow,
                tag: f.tag,
                arrival: f.arrival,
                completed: at,
            }));
        }
    }

    /// End a live run now: what was served so far (requests still in the drive are not in it).
    pub fn finish_live(self) -> Outcome {
        self.finish()
    }

    /// Requests submitted and not completed, and those on their way.
    fn outstanding(&self) -> u64 {
        self.ssd.hil.outstanding_total() + self.host.pending()
    }

    /// The state a run grows (map chunks, reverse maps, CMT, data cache) on top of what was
    /// allocated before it, if that passes the limit: the error then says what grew.
    fn state_over_limit(&self, now: Ps, done: u64) -> Option<String> {
        let (map, cmt, cache) = (
            self.ssd.ftl.grown_bytes() as u64,
            self.ssd.translate.bytes() as u64,
            self.ssd.cache.bytes() as u64,
        );
        let cfg = &self.ssd.cfg;
        let base = cfg.preallocated_state_bytes();
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
            gb(cfg.full_map_bytes()),
        ))
    }

    /// Every flow's requests have completed and none is left to come.
    fn host_done(&self) -> bool {
        self.ssd.hil.idle()
    }

    /// The watchdog's error: what was stuck, and where the requests were.
    fn stuck(&self, now: Ps, same_instant: bool, ev: Event) -> SimError {
        let what = if same_instant {
            format!(
                "{} events in a row at one instant without simulated time advancing",
                self.watchdog_events
            )
        } else {
            format!(
                "{} events in a row inside the {} back end without any transfer, flash operation or completion",
                self.watchdog_events,
                self.ssd.net.name()
            )
        };
        SimError::Stalled {
            time_ns: crate::time::to_ns_f64(now),
            outstanding: self.outstanding(),
            reason: format!(
                "{what} (last event: {ev:?}); {}",
                self.ssd.net.describe_state()
            ),
        }
    }

    // ------------------------------------------------ the host and the host interface

    fn start_flow(&mut self, f: usize) {
        match self.host.flows[f].replay {
            Replay::Closed { depth } => {
                for _ in 0..depth {
                    match self.host.pull(f) {
                        Some(r) => {
                            self.submit(0, f, 0, r);
                        }
                        None => break,
                    }
                }
            }
            Replay::Timed { .. } => self.advance_timed(0, f),
            Replay::Live => {}
        }
    }

    /// Read a timed flow's next request and schedule its arrival.
    fn advance_timed(&mut self, now: Ps, f: usize) {
        if self.host.advance_timed(now, f, &mut self.ssd.q) {
            self.ssd.hil.arrival_pending(true);
        }
    }

    fn on_arrival(&mut self, now: Ps, f: usize) {
        if self.queue_full(f) {
            self.host.flows[f].held = true;
            return;
        }
        let fl = &mut self.host.flows[f];
        let (t, r) = fl.next.take().expect("arrival without a pending request");
        self.ssd.hil.arrival_pending(false);
        self.submit(now, f, t, r);
        self.advance_timed(now, f);
    }

    /// Whether flow `f`'s host side is full: with a host scheduler, its queue length bounds
    /// the host side (and its device slots, the queue depth, the device side); without, the
    /// submission queue's depth.
    #[inline]
    fn queue_full(&self, f: usize) -> bool {
        match self.host.flows[f].sched.as_ref() {
            Some(s) => s.is_full(),
            None => self.ssd.hil.outstanding(f) >= self.ssd.cfg.host.io_queue_depth,
        }
    }

    /// A live request enters the drive, its tag kept for its completion.
    fn submit_tagged(&mut self, now: Ps, f: usize, arrival: Ps, r: IoRequest, tag: u64) {
        let id = self.submit(now, f, arrival, r);
        self.host.flows[f].live.tags.insert(id, tag);
    }

    /// Put a request into its flow's submission queue (or its host scheduler) and ring the
    /// doorbell; returns its id.
    fn submit(&mut self, now: Ps, f: usize, arrival: Ps, r: IoRequest) -> u32 {
        let id = self.ssd.admit(now, f, arrival, &r);
        if self.host.flows[f].sched.is_some() {
            let req = *self.ssd.hil.request(id);
            let v = ChipSet::of_request(
                &self.ssd.ftl.geo,
                self.ssd.hil.lpa_base(f),
                req.offset,
                req.size,
            );
            let s = self.host.flows[f].sched.as_mut().expect("checked");
            s.enqueue(id, req.is_read, v, now / PS_PER_NS);
            self.issue_scheduled(now, f);
            return id;
        }
        self.ssd.hil.sq_push(f, id);
        self.ssd.fetch(now);
        id
    }

    /// Move the requests the flow's host scheduler released into its submission queue.
    fn issue_scheduled(&mut self, now: Ps, f: usize) {
        let Some(s) = self.host.flows[f].sched.as_mut() else {
            return;
        };
        let mut any = false;
        for id in s.drain_ready() {
            self.ssd.hil.set_enqueued(id, now);
            self.ssd.hil.sq_push(f, id);
            any = true;
        }
        if any {
            self.ssd.fetch(now);
        }
    }

    fn on_completed(&mut self, now: Ps, id: u32) {
        let r = self.ssd.complete(now, id);
        let f = r.flow as usize;
        self.host.record(
            f,
            r.is_read,
            r.conflict,
            r.size,
            (now - r.arrival) / PS_PER_NS,
            (now - r.enqueued) / PS_PER_NS,
        );
        if let Some(s) = self.host.flows[f].sched.as_mut() {
            s.complete(id, now / PS_PER_NS);
            self.issue_scheduled(now, f);
        }
        match self.host.flows[f].replay {
            Replay::Closed { .. } => {
                if let Some(r) = self.host.pull(f) {
                    self.submit(now, f, now, r);
                }
            }
            Replay::Timed { .. } => {
                if self.host.flows[f].held {
                    self.host.flows[f].held = false;
                    self.on_arrival(now, f);
                }
            }
            Replay::Live => {
                let live = &mut self.host.flows[f].live;
                let tag = live.tags.remove(&id).expect("a live request has a tag");
                self.live_done.push(LiveCompletion {
                    flow: f,
                    tag,
                    arrival: r.arrival,
                    completed: now,
                });
                if !self.host.flows[f].live.backlog.is_empty() && !self.queue_full(f) {
                    let (arrival, r, tag) = self.host.flows[f]
                        .live
                        .backlog
                        .pop_front()
                        .expect("not empty");
                    self.submit_tagged(now, f, arrival, r, tag);
                }
            }
        }
        self.ssd.fetch(now);
    }
}
