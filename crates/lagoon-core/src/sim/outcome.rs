//! What a finished run hands to the report ([`crate::report`]): raw counters, latencies and
//! utilizations, gathered from each component when the run ends.

use super::Simulator;
use crate::host::piq::SchedulerStats;
use crate::host::Replay;
use crate::interconnect;
use crate::ssd::datapath::{check_grants, ControllerStats, Model, Timeline};
use crate::stats::FlowLatency;
use crate::time::Ps;

pub use crate::ssd::txn::FlashCounters;

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
    pub config: crate::config::SsdConfig,
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

impl Simulator {
    /// Gather the outcome from every component.
    pub(super) fn finish(self) -> Outcome {
        let Simulator {
            mut ssd,
            host,
            verify,
            ..
        } = self;
        let sim_time = ssd.last_completion;
        // Utilization is over the span in which a resource could be busy: flash work (cache
        // destage, GC) can outlast the last host completion, so the span runs to the last
        // event; dividing by `sim_time` alone reported channels above 100 %.
        let span = sim_time.max(crate::engine::Clock::now(&ssd.q));
        let (die_busy_fraction, die_array_fraction) = ssd.tsu.utilization(span);
        let conflicted_requests = host.flows.iter().map(|f| f.conflicted).sum();
        let (hits, merges) = ssd.cache.counters();
        let interconnect = ssd.net.stats(span);
        let dp = &mut ssd.datapath;
        let resource_audit = dp.dram.audit.take().map(|dram| {
            let mut lists = vec![("dram", dram)];
            if let Some(c) = dp.controller() {
                c.take_audits(&mut lists);
            }
            check_grants(&lists)
        });
        let timeline = ssd.timeline.take().map(|mut tl| {
            if let Some(s) = dp.dram.windows.take() {
                tl.dram_busy = s;
            }
            if let Some(c) = dp.controller() {
                c.take_series(&mut tl);
            }
            tl.align();
            *tl
        });
        let controller = match &mut dp.model {
            Model::Dssd(c) => Some(c.finish(span, &dp.dram)),
            Model::Direct(_) => None,
        };
        let mut latency = FlowLatency::default();
        let mut flows = host.flows;
        for f in &mut flows {
            f.latency.finish();
            latency.merge(&f.latency);
        }
        Outcome {
            controller,
            resource_audit,
            timeline,
            sim_time,
            busy_span: span,
            events: ssd.q.events_processed() + interconnect.local_events,
            interconnect,
            interconnect_name: ssd.net.name(),
            flash: ssd.flash,
            ftl: ssd.ftl.counters.clone(),
            wear: ssd.ftl.wear(),
            die_busy_fraction,
            die_array_fraction,
            cache_read_hits: hits,
            cache_write_merges: merges,
            conflicted_requests,
            state_bytes: ssd.ftl.state_bytes()
                + ssd.txns.capacity() * std::mem::size_of::<crate::ssd::txn::Txn>()
                + ssd.hil.state_bytes(),
            consistency: verify.then(|| ssd.ftl.check_consistency()),
            config: ssd.cfg,
            latency,
            flows: flows
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
