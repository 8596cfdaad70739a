use lagoon_core::config::SsdConfig;
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;

pub const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/");

/// The repository's own test inputs (`tests/fixtures/`; see its generator).
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
/// A 3,000-request mixed trace of the project's own making (`make_mixed_trace.py`).
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mixed.trace");

pub fn trace(name: &str) -> String {
    format!("{TRACES}{name}")
}

pub use lagoon_core::testing::tiny;

pub fn run(cfg: &SsdConfig, arch: Arch, workloads: &[&str], seed: u64) -> Report {
    let mut s = Scenario::new(
        &cfg.name,
        cfg.clone(),
        arch,
        workloads.iter().map(|w| w.to_string()).collect(),
    );
    s.seed = seed;
    s.run(|_| {}).unwrap()
}

/// Run synthetic workload `w` closed-loop at depth 16 on `c` with the FTL's invariant scan at
/// the end, and with `audit` the check that no bus or DRAM was granted twice.
pub fn verified_run(
    c: &SsdConfig,
    arch: Arch,
    w: &str,
    seed: u64,
    audit: bool,
) -> lagoon_core::sim::Outcome {
    let spec = lagoon_workload::SyntheticSpec::parse(w).unwrap();
    let cap = lagoon_core::sim::Simulator::flow_capacity_bytes(c, 1);
    let gen = lagoon_workload::SyntheticGenerator::new(&spec, cap, seed).unwrap();
    let flow = lagoon_core::host::Flow {
        name: w.into(),
        source: Box::new(gen.map(Ok)),
        replay: lagoon_core::host::Replay::Closed { depth: 16 },
    };
    let mut sim = lagoon_core::sim::Simulator::new(c, arch, vec![flow], seed);
    sim.set_verify(true);
    sim.set_audit(audit);
    if audit {
        // Observation only: the timeline's totals are checked against the counters.
        sim.set_timeline(lagoon_core::time::PS_PER_US * 100);
    }
    sim.run(|_| {}).unwrap()
}
