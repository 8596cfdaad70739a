//! Building and running one simulation from command-line style specifications: an SSD
//! (preset or TOML), a back end, one or more workloads (trace files or `syn:` specs), a replay
//! mode and a seed. Shared by the CLI, the tests and the benchmarks.

use crate::config::SsdConfig;
use crate::host::{Flow, Repeat, Replay, RequestSource};
use crate::interconnect::Arch;
use crate::report::Report;
use crate::sim::Simulator;
use lagoon_workload::{open_trace, SyntheticGenerator, SyntheticSpec, TraceFormat, WorkloadError};
use std::path::PathBuf;
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
    /// Replay mode; `None` = closed loop at a synthetic spec's `qd:` depth, else timed.
    pub replay: Option<Replay>,
    pub seed: u64,
    /// Replay each trace this many times back to back.
    pub repeat: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error("{0}")]
    Invalid(String),
}

impl Scenario {
    pub fn new(ssd_name: &str, ssd: SsdConfig, arch: Arch, workloads: Vec<String>) -> Self {
        Self { ssd_name: ssd_name.into(), ssd, arch, workloads, format: None, lenient: false, replay: None, seed: 1, repeat: 1 }
    }

    fn flows(&self) -> Result<Vec<Flow>, ScenarioError> {
        if self.workloads.is_empty() {
            return Err(ScenarioError::Invalid("no workload given".into()));
        }
        let capacity = Simulator::flow_capacity_bytes(&self.ssd, self.workloads.len());
        let mut flows = Vec::new();
        for (i, w) in self.workloads.iter().enumerate() {
            let seed = self.seed.wrapping_add(i as u64 * 0x9e37_79b9);
            if SyntheticSpec::is_synthetic(w) {
                let spec = SyntheticSpec::parse(w)?;
                let replay = match (self.replay, spec.closed_loop_depth()) {
                    (Some(r), _) => r,
                    (None, Some(d)) => Replay::Closed { depth: d },
                    (None, None) => Replay::Timed { speedup: 1.0 },
                };
                let (spec2, times) = (spec.clone(), self.repeat);
                let open = move || -> Result<RequestSource, WorkloadError> {
                    Ok(Box::new(SyntheticGenerator::new(&spec2, capacity, seed)?.map(Ok)))
                };
                // Check the spec against the drive now, so errors come before the run.
                drop(open()?);
                flows.push(Flow { name: spec.to_string(), source: Box::new(Repeat::new(open, times)), replay });
            } else {
                let path = PathBuf::from(w);
                let (format, lenient) = (self.format, self.lenient);
                let open = move || -> Result<RequestSource, WorkloadError> { Ok(Box::new(open_trace(&path, format, lenient)?)) };
                drop(open()?);
                flows.push(Flow {
                    name: w.clone(),
                    source: Box::new(Repeat::new(open, self.repeat)),
                    replay: self.replay.unwrap_or(Replay::Timed { speedup: 1.0 }),
                });
            }
        }
        Ok(flows)
    }

    /// Run to completion; `progress(done)` is called now and then with completed requests.
    pub fn run(&self, progress: impl FnMut(u64)) -> Result<Report, ScenarioError> {
        let flows = self.flows()?;
        let start = Instant::now();
        let sim = Simulator::new(&self.ssd, self.arch, flows, self.seed);
        let outcome = sim.run(progress)?;
        let wall = start.elapsed().as_secs_f64();
        Ok(Report::new(&outcome, &self.ssd_name, &self.arch.to_string(), &self.workloads.join(" + "), self.seed, wall))
    }
}
