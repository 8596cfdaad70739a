//! The host's side of each flow during a run: where its next request comes from and when it
//! arrives (timed replay, or closed loop), the host I/O scheduler in front of its submission
//! queue (PIQ), and what the host measures (latency, counts).

use super::piq::HostScheduler;
use super::{Flow, Replay, RequestSource};
use crate::engine::Queue;
use crate::stats::FlowLatency;
use crate::time::{Ps, PS_PER_NS, PS_PER_S};
use lagoon_workload::{IoRequest, WorkloadError};
use std::collections::{HashMap, VecDeque};

/// The host's event.
#[derive(Clone, Copy, Debug)]
pub enum HostEvent {
    /// The next request of a timed flow reaches the host's submission queue.
    Arrival { flow: u16 },
}

/// Latest arrival a timed replay may schedule: 100 days of simulated time.
const ARRIVAL_LIMIT: Ps = 100 * 86_400 * PS_PER_S;

pub struct FlowState {
    pub name: String,
    source: RequestSource,
    pub replay: Replay,
    /// The next request not yet in the submission queue and its host arrival time.
    pub next: Option<(Ps, IoRequest)>,
    /// Host is holding `next` because the submission queue is full.
    pub held: bool,
    t0_ns: Option<u64>,
    last_arrival: Ps,
    pub latency: FlowLatency,
    pub completed: u64,
    pub reads: u64,
    pub writes: u64,
    pub bytes: u64,
    pub conflicted: u64,
    pub reordered_arrivals: u64,
    /// Host I/O scheduler between the flow and its submission queue (PIQ paper), if any.
    pub sched: Option<HostScheduler>,
    /// A live flow's state ([`Replay::Live`]).
    pub live: Live,
}

/// A live flow's requests: those that arrived while its submission queue was full (they enter
/// it, in arrival order, as requests complete), the caller's tag of each request in the drive,
/// and the completions not yet taken.
#[derive(Default)]
pub struct Live {
    pub backlog: VecDeque<(Ps, IoRequest, u64)>,
    pub tags: HashMap<u32, u64>,
}

/// A live request's completion ([`crate::sim::Simulator::take_live_completions`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveCompletion {
    pub flow: usize,
    /// The tag it was submitted with.
    pub tag: u64,
    /// When it arrived and when its completion reached the host, ps.
    pub arrival: Ps,
    pub completed: Ps,
}

/// Every flow of a run, and what stopped one (a malformed trace line, an arrival past the
/// simulated clock).
pub struct Host {
    pub flows: Vec<FlowState>,
    pub error: Option<WorkloadError>,
    pub fault: Option<String>,
}

impl Host {
    pub fn new(flows: Vec<Flow>) -> Self {
        Self {
            flows: flows
                .into_iter()
                .map(|f| FlowState {
                    name: f.name,
                    source: f.source,
                    replay: f.replay,
                    next: None,
                    held: false,
                    t0_ns: None,
                    last_arrival: 0,
                    latency: FlowLatency::default(),
                    completed: 0,
                    reads: 0,
                    writes: 0,
                    bytes: 0,
                    conflicted: 0,
                    reordered_arrivals: 0,
                    sched: None,
                    live: Live::default(),
                })
                .collect(),
            error: None,
            fault: None,
        }
    }

    /// The flow's next request from its source (`None` at its end, or on an error, kept).
    pub fn pull(&mut self, f: usize) -> Option<IoRequest> {
        match self.flows[f].source.next() {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                self.error = Some(e);
                None
            }
            None => None,
        }
    }

    /// Read a timed flow's next request and schedule its arrival; false if there is none.
    pub fn advance_timed(&mut self, now: Ps, f: usize, q: &mut impl Queue<HostEvent>) -> bool {
        let Some(r) = self.pull(f) else { return false };
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
            return false;
        }
        let mut t = t_f as Ps;
        if t < fl.last_arrival || r.arrival_ns < t0 {
            fl.reordered_arrivals += 1;
            t = t.max(fl.last_arrival);
        }
        fl.last_arrival = t;
        fl.next = Some((t, r));
        q.schedule(t.max(now), HostEvent::Arrival { flow: f as u16 });
        true
    }

    /// A request of flow `f` completed: what the host measures.
    pub fn record(
        &mut self,
        f: usize,
        is_read: bool,
        conflict: bool,
        size: u32,
        e2e_ns: u64,
        dev_ns: u64,
    ) {
        let fl = &mut self.flows[f];
        fl.latency.record(is_read, e2e_ns, dev_ns);
        fl.completed += 1;
        fl.bytes += size as u64;
        if is_read {
            fl.reads += 1;
        } else {
            fl.writes += 1;
        }
        if conflict {
            fl.conflicted += 1;
        }
    }

    /// Requests not yet in the drive: those on their way (timed arrivals scheduled).
    pub fn pending(&self) -> u64 {
        self.flows.iter().map(|f| f.next.is_some() as u64).sum()
    }
}
