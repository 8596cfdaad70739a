//! Whole reports of a fixed set of runs, pinned: a change that is meant to be only faster
//! (issue 15) must leave every one byte-identical. The expected hashes live in
//! `golden.txt`; a change that is meant to move results regenerates them with
//! `LAGOON_BLESS=1 cargo test --release -p lagoon-core --test sim golden` and says why in
//! its commit.

use super::common::{run, tiny, trace};
use lagoon_core::config::{Design, RoutingKind, SsdConfig, Switching, TopologyKind};
use lagoon_core::host::piq::Scheme;
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sim/golden.txt");

/// FNV-1a, 64 bits: stable across Rust versions (unlike `DefaultHasher`).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn preset(name: &str) -> SsdConfig {
    SsdConfig::load(name).unwrap()
}

/// The fixed runs: every back end, both Venice drives, GC, a trace, a host scheduler, the
/// controller model, and the network layer under adaptive routing and circuits.
fn runs() -> Vec<(&'static str, Report)> {
    let mixed = "syn:read=70,size=uniform:4k-16k,arrival=qd:16,count=2000";
    let reads = "syn:read=100,size=4k,arrival=qd:32,count=5000";
    let mut out = Vec::new();
    for arch in Arch::ALL {
        out.push((
            arch.name(),
            run(&preset("perf-optimized"), arch, &[mixed], 1),
        ));
    }
    out.push((
        "baseline-reads-qd32",
        run(&preset("perf-optimized"), Arch::Baseline, &[reads], 1),
    ));
    out.push((
        "venice-reads-qd32",
        run(&preset("perf-optimized"), Arch::Venice, &[reads], 1),
    ));
    out.push((
        "nossd-reads-qd32",
        run(&preset("perf-optimized"), Arch::Nossd, &[reads], 1),
    ));
    out.push((
        "cost-venice-hm_0",
        run(
            &preset("cost-optimized"),
            Arch::Venice,
            &["syn:hm_0,count=3000"],
            2,
        ),
    ));
    out.push((
        "tiny-gc-writes",
        run(
            &tiny(),
            Arch::Baseline,
            &["syn:read=10,size=4k,arrival=qd:8,count=8000"],
            3,
        ),
    ));
    out.push((
        "tpcc-trace",
        run(
            &preset("perf-optimized"),
            Arch::Baseline,
            &[&trace("tpcc-small.trace")],
            1,
        ),
    ));
    let mut torus = preset("perf-optimized");
    torus.network.topology = TopologyKind::Torus;
    torus.network.routing = RoutingKind::Duato;
    torus.network.vcs = 4;
    out.push(("net-torus-duato", run(&torus, Arch::Net, &[mixed], 4)));
    let mut circuit = preset("mqsimnet");
    circuit.network.switching = Switching::Circuit;
    out.push(("mqsimnet-circuit", run(&circuit, Arch::Net, &[mixed], 5)));
    let mut dssd = preset("dssd-ull");
    dssd.controller.enabled = true;
    dssd.controller.design = Design::DssdF;
    dssd.validate().unwrap();
    out.push((
        "dssd-ull-dssd_f",
        run(
            &dssd,
            Arch::Baseline,
            &["syn:read=0,size=32k,arrival=qd:64,count=2000"],
            6,
        ),
    ));
    let mut s = Scenario::new(
        "perf-optimized",
        preset("perf-optimized"),
        Arch::Baseline,
        vec![mixed.to_string()],
    );
    s.host_scheduler = Some((Scheme::Piq, 64));
    out.push(("piq-baseline", s.run(|_| {}).unwrap()));
    // SSDsim's drive: its channel order (command-first) on a backlogged trace.
    out.push((
        "piq-ssdsim-tpcc",
        run(
            &preset("piq-ssdsim"),
            Arch::Baseline,
            &[&trace("tpcc-small.trace")],
            1,
        ),
    ));
    out
}

/// The report without the event counts (`events`, `interconnect.local_events`): they
/// measure the simulator's work, not the model, and a speed change may rightly lower them
/// (one event per bus transfer, not two).
fn model_json(r: &Report) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&r.deterministic_json()).unwrap();
    v.as_object_mut().unwrap().remove("events");
    if let Some(i) = v.get_mut("interconnect").and_then(|i| i.as_object_mut()) {
        i.remove("local_events");
    }
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn golden_reports_are_unchanged() {
    let got: Vec<String> = runs()
        .iter()
        .map(|(name, r)| {
            format!(
                "{name} {:016x} requests={} iops={:.0}",
                // The trace's absolute path depends on where the checkout is.
                fnv1a(&model_json(r).replace(super::common::TRACES, "")),
                r.requests,
                r.iops
            )
        })
        .collect();
    if std::env::var_os("LAGOON_BLESS").is_some() {
        std::fs::write(GOLDEN, got.join("\n") + "\n").unwrap();
        return;
    }
    let want = std::fs::read_to_string(GOLDEN).expect("tests/sim/golden.txt");
    let want: Vec<&str> = want.lines().collect();
    let changed: Vec<String> = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("  was {w}\n  now {g}"))
        .collect();
    assert!(
        changed.is_empty() && got.len() == want.len(),
        "reports changed ({} of {} runs; LAGOON_BLESS=1 regenerates if meant):\n{}",
        changed.len(),
        got.len(),
        changed.join("\n")
    );
}
