//! Building and running one simulation from command-line style specifications: an SSD
//! (preset or TOML), a back end, one or more workloads (trace files or `syn:` specs), a replay
//! mode and a seed. Shared by the CLI, the tests and the benchmarks.

use crate::config::SsdConfig;
use crate::host::{Flow, Repeat, Replay, RequestSource};
use crate::interconnect::Arch;
use crate::report::Report;
use crate::sim::Simulator;
use lagoon_workload::{open_trace, SyntheticGenerator, SyntheticSpec, TraceFormat, WorkloadError};
use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct Scenario {
    pub ssd_name: String,
    pub ssd: SsdConfig,
    pub arch: Arch,
    /// Trace paths or `syn:` specs, one flow each.
    pub workloads: Vec<String>,
    pub format: Option<TraceFormat>,
    pub lenient: bool,
    /// Keep only this device's (volume's) requests of each trace (`--device`).
    pub device: Option<u32>,
    /// Replay mode; `None` = closed loop at a synthetic spec's `qd:` depth, else timed.
    pub replay: Option<Replay>,
    pub seed: u64,
    /// Replay each trace this many times back to back.
    pub repeat: u32,
    /// Host I/O scheduler and its queue length (PIQ paper), in front of every flow.
    pub host_scheduler: Option<(crate::host::piq::Scheme, u32)>,
    /// Record a per-window timeline with windows of this length (`Report::timeline`).
    pub timeline_window: Option<crate::time::Ps>,
    /// Stop at the last host completion; background GC is not drained.
    pub stop_at_last_completion: bool,
    /// An aged drive's block remapping (dSSD Fig. 15; from [`crate::lifetime::age`]).
    pub block_remap: Option<std::sync::Arc<crate::ssd::dynamic_superblock::BlockRemap>>,
    /// Stop when asked (Ctrl-C): see [`crate::cancel`].
    pub cancel: Option<crate::cancel::Cancel>,
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Invalid(String),
}

impl Scenario {
    pub fn new(ssd_name: &str, ssd: SsdConfig, arch: Arch, workloads: Vec<String>) -> Self {
        Self {
            ssd_name: ssd_name.into(),
            ssd,
            arch,
            workloads,
            format: None,
            lenient: false,
            device: None,
            replay: None,
            seed: 1,
            repeat: 1,
            host_scheduler: None,
            timeline_window: None,
            stop_at_last_completion: false,
            block_remap: None,
            cancel: None,
        }
    }

    /// The replay a flow runs under: the scenario's, else a synthetic `spec`'s closed loop at
    /// its `qd:` depth, else timed as generated or recorded (a trace's flow: `spec` None).
    pub fn replay_of(&self, spec: Option<&SyntheticSpec>) -> Replay {
        match (self.replay, spec.and_then(SyntheticSpec::closed_loop_depth)) {
            (Some(r), _) => r,
            (None, Some(depth)) => Replay::Closed { depth },
            (None, None) => Replay::Timed { speedup: 1.0 },
        }
    }

    /// Flows, and per flow a counter of malformed lines skipped in lenient mode.
    fn flows(&self) -> Result<(Vec<Flow>, Vec<SkipCounter>), ScenarioError> {
        if self.workloads.is_empty() {
            return Err(ScenarioError::Invalid("no workload given".into()));
        }
        // A mix preset (`syn:mix1`, Venice Table 3) is several flows.
        let mut workloads = Vec::new();
        for w in &self.workloads {
            workloads.extend(lagoon_workload::expand_workload(w)?);
        }
        let capacity = Simulator::flow_capacity_bytes(&self.ssd, workloads.len());
        let mut flows = Vec::new();
        let mut skipped = Vec::new();
        for (i, w) in workloads.iter().enumerate() {
            let seed = self.seed.wrapping_add(i as u64 * 0x9e37_79b9);
            if SyntheticSpec::is_synthetic(w) {
                let spec = SyntheticSpec::parse(w)?;
                let replay = self.replay_of(Some(&spec));
                if let Replay::Closed { depth } = replay {
                    if depth > crate::host::MAX_CLOSED_DEPTH {
                        return Err(ScenarioError::Invalid(format!(
                            "{w}: queue depth {depth} is more than {} (NVMe's largest queue)",
                            crate::host::MAX_CLOSED_DEPTH
                        )));
                    }
                }
                let (spec2, times) = (spec.clone(), self.repeat);
                let open = move || -> Result<RequestSource, WorkloadError> {
                    Ok(Box::new(
                        SyntheticGenerator::new(&spec2, capacity, seed)?.map(Ok),
                    ))
                };
                // Check the spec against the drive now, so errors come before the run.
                drop(open()?);
                flows.push(Flow {
                    name: spec.to_string(),
                    source: Box::new(Repeat::new(open, times)),
                    replay,
                });
                skipped.push(Rc::new(Cell::new(0)));
            } else {
                let path = PathBuf::from(w);
                let (format, lenient, device) = (self.format, self.lenient, self.device);
                let counter = Rc::new(Cell::new(0u64));
                let (c, base) = (counter.clone(), Rc::new(Cell::new(0u64)));
                let open = move || -> Result<RequestSource, WorkloadError> {
                    let reader = open_trace(&path, format, lenient)?.only_device(device);
                    // Each pass starts a new reader: keep the total over passes.
                    base.set(c.get());
                    let (c, base) = (c.clone(), base.clone());
                    Ok(Box::new(CountSkipped {
                        reader,
                        counter: c,
                        base,
                    }))
                };
                skipped.push(counter);
                drop(open()?);
                flows.push(Flow {
                    name: w.clone(),
                    source: Box::new(Repeat::new(open, self.repeat)),
                    replay: self.replay_of(None),
                });
            }
        }
        Ok((flows, skipped))
    }

    /// Run to completion; `progress(done)` is called now and then with completed requests.
    pub fn run(&self, progress: impl FnMut(u64)) -> Result<Report, ScenarioError> {
        // A config built in code (tests, the Python API) is checked here like a TOML file.
        self.ssd.validate()?;
        let (flows, skipped) = self.flows()?;
        let start = Instant::now();
        // Building the drive can take long (steady preconditioning): it looks at the flag,
        // and a drive built while a stop was asked is not run (it may be incomplete).
        let mut sim = crate::cancel::within(self.cancel.as_ref(), || {
            Simulator::new(&self.ssd, self.arch, flows, self.seed)
        });
        if self.cancel.as_ref().is_some_and(|c| c.is_set()) {
            return Err(crate::sim::SimError::Cancelled { time_ns: 0.0 }.into());
        }
        if let Some((scheme, len)) = self.host_scheduler {
            sim.set_host_scheduler(scheme, len)
                .map_err(ScenarioError::Invalid)?;
        }
        if let Some(w) = self.timeline_window {
            sim.set_timeline(w);
        }
        sim.set_stop_at_last_completion(self.stop_at_last_completion);
        if let Some(r) = &self.block_remap {
            sim.set_block_remap(r.clone())
                .map_err(ScenarioError::Invalid)?;
        }
        if let Some(c) = &self.cancel {
            sim.set_cancel(c.clone());
        }
        let outcome = sim.run(progress)?;
        if outcome.flows.iter().all(|f| f.completed == 0) {
            // Stopped before any request completed: nothing to report, a cancelled run.
            if self.cancel.as_ref().is_some_and(|c| c.is_set()) {
                return Err(crate::sim::SimError::Cancelled {
                    time_ns: crate::time::to_ns_f64(outcome.sim_time),
                }
                .into());
            }
            return Err(ScenarioError::Invalid(format!(
                "no request to simulate: {} gave none (e.g. count=0)",
                self.workloads.join(" + ")
            )));
        }
        let wall = start.elapsed().as_secs_f64();
        let mut report = Report::new(
            &outcome,
            &self.ssd_name,
            &self.arch.to_string(),
            &self.workloads.join(" + "),
            self.seed,
            wall,
        );
        for (f, s) in report.flows.iter_mut().zip(&skipped) {
            f.skipped_lines = s.get();
        }
        report.skipped_lines = skipped.iter().map(|s| s.get()).sum();
        Ok(report)
    }
}

type SkipCounter = Rc<Cell<u64>>;

/// A trace reader that publishes its count of skipped malformed lines.
struct CountSkipped {
    reader: lagoon_workload::TraceReader,
    counter: Rc<Cell<u64>>,
    base: Rc<Cell<u64>>,
}

impl Iterator for CountSkipped {
    type Item = Result<lagoon_workload::IoRequest, WorkloadError>;
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.reader.next();
        self.counter
            .set(self.base.get() + self.reader.skipped_lines());
        r
    }
}
