//! Whole reports of a fixed set of runs, pinned: a change meant to be only faster or only a
//! move must leave every one byte-identical; a change meant to move results re-blesses them
//! in a commit that says which model change moved them.
//!
//! - `tests/sim/golden/<run>.json`: each run's report (the deterministic JSON without the
//!   simulator's own work counters, below), committed, so a re-bless shows what moved.
//! - `tests/sim/golden.txt`: per run, the work counters: engine events, back-end local
//!   events and `model_state_bytes` (memory layout). Checked only in strict mode
//!   (`LAGOON_GOLDEN_STRICT=1`): a pure move keeps them too; speed work may lower them.
//! - On a difference the new JSON goes to `target/golden-new/<run>.json` and the failure
//!   prints the `diff` command.
//! - `LAGOON_BLESS=1 cargo test --release -p lagoon-core --test sim golden` rewrites both.
//!
//! Runs that read `../shared/traces` are skipped with a notice when it is absent; each has a
//! twin on the repository's own trace (`tests/fixtures/mixed.trace`).

use super::common::{run, tiny, trace, FIXTURE};
use lagoon_core::config::{
    ChannelArbitration, DieScheduling, DynamicMapping, GcMappingUpdate, GcMode, GcPolicy,
    InvalidDistribution, MappingConfig, Multiplane, PreconditionMode, RoutingKind, ScoutRetry,
    SsdConfig, Switching, TopologyKind, WriteCompletion,
};
use lagoon_core::config::{Design, GcDestination};
use lagoon_core::host::piq::Scheme;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;
use std::path::{Path, PathBuf};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sim/golden");
const COUNTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sim/golden.txt");
const NEW: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/golden-new");

fn preset(name: &str) -> SsdConfig {
    SsdConfig::load(name).unwrap()
}

/// A scenario on `cfg` (validated here, as a TOML file would be).
fn scenario(cfg: &SsdConfig, arch: Arch, workloads: &[&str], seed: u64) -> Scenario {
    cfg.validate().unwrap();
    let mut s = Scenario::new(
        &cfg.name,
        cfg.clone(),
        arch,
        workloads.iter().map(|w| w.to_string()).collect(),
    );
    s.seed = seed;
    s
}

type Job = Box<dyn Fn() -> Option<Report> + Send + Sync>;

/// One pinned run: its name and how to make its report (`None`: skipped, input absent).
struct Case {
    name: String,
    job: Job,
}

fn case(name: &str, job: impl Fn() -> Option<Report> + Send + Sync + 'static) -> Case {
    Case {
        name: name.into(),
        job: Box::new(job),
    }
}

/// A run of `cfg` under `arch` on `workloads` with `seed`.
fn simple(name: &str, cfg: SsdConfig, arch: Arch, workloads: &[&str], seed: u64) -> Case {
    let w: Vec<String> = workloads.iter().map(|s| s.to_string()).collect();
    case(name, move || {
        let w: Vec<&str> = w.iter().map(|s| s.as_str()).collect();
        Some(run(&cfg, arch, &w, seed))
    })
}

/// A run on a trace of `../shared/traces` (skipped when it is absent).
fn shared_trace(name: &str, cfg: SsdConfig, arch: Arch, file: &'static str) -> Case {
    case(name, move || {
        let t = trace(file);
        Path::new(&t).exists().then(|| run(&cfg, arch, &[&t], 1))
    })
}

/// The tiny drive with `f` applied.
fn tiny_with(f: impl FnOnce(&mut SsdConfig)) -> SsdConfig {
    let mut c = tiny();
    f(&mut c);
    c
}

/// dSSD ULL (Table 1) shrunk to 64 blocks of 64 pages per plane and aged (every block full,
/// GC from the first write) under `design`: the controller model's GC paths at once.
fn dssd_aged(design: Design) -> SsdConfig {
    let mut c = preset("dssd-ull");
    c.flash.blocks_per_plane = 64;
    c.flash.pages_per_block = 64;
    c.precondition.mode = PreconditionMode::Aged;
    c.controller.enabled = true;
    c.controller.design = design;
    c
}

/// Every case: the back ends, both Venice drives, GC under each firmware option, the
/// controller model's designs, host schedulers, the network layer, traces, several seeds.
fn cases() -> Vec<Case> {
    let mixed = "syn:read=70,size=uniform:4k-16k,arrival=qd:16,count=2000";
    let reads = "syn:read=100,size=4k,arrival=qd:32,count=5000";
    let gc_writes = "syn:read=10,size=4k,arrival=qd:8,count=8000";
    let gc_mixed = "syn:read=30,size=uniform:4k-16k,addr=hotcold:80/20,arrival=qd:8,count=4000";
    let fixture = FIXTURE.to_string();
    let perf = preset("perf-optimized");
    let mut out = Vec::new();

    // The original set (names kept).
    for arch in Arch::ALL {
        out.push(simple(arch.name(), perf.clone(), arch, &[mixed], 1));
    }
    out.push(simple(
        "baseline-reads-qd32",
        perf.clone(),
        Arch::Baseline,
        &[reads],
        1,
    ));
    out.push(simple(
        "venice-reads-qd32",
        perf.clone(),
        Arch::Venice,
        &[reads],
        1,
    ));
    out.push(simple(
        "nossd-reads-qd32",
        perf.clone(),
        Arch::Nossd,
        &[reads],
        1,
    ));
    out.push(simple(
        "cost-venice-hm_0",
        preset("cost-optimized"),
        Arch::Venice,
        &["syn:hm_0,count=3000"],
        2,
    ));
    out.push(simple(
        "tiny-gc-writes",
        tiny(),
        Arch::Baseline,
        &[gc_writes],
        3,
    ));
    out.push(shared_trace(
        "tpcc-trace",
        perf.clone(),
        Arch::Baseline,
        "tpcc-small.trace",
    ));
    let mut torus = perf.clone();
    torus.network.topology = TopologyKind::Torus;
    torus.network.routing = RoutingKind::Duato;
    torus.network.vcs = 4;
    out.push(simple("net-torus-duato", torus, Arch::Net, &[mixed], 4));
    let mut circuit = preset("mqsimnet");
    circuit.network.switching = Switching::Circuit;
    out.push(simple("mqsimnet-circuit", circuit, Arch::Net, &[mixed], 5));
    let mut dssd_f = preset("dssd-ull");
    dssd_f.controller.enabled = true;
    dssd_f.controller.design = Design::DssdF;
    out.push(simple(
        "dssd-ull-dssd_f",
        dssd_f,
        Arch::Baseline,
        &["syn:read=0,size=32k,arrival=qd:64,count=2000"],
        6,
    ));
    out.push(case("piq-baseline", move || {
        let mut s = scenario(&preset("perf-optimized"), Arch::Baseline, &[mixed], 1);
        s.host_scheduler = Some((Scheme::Piq, 64));
        Some(s.run(|_| {}).unwrap())
    }));
    out.push(shared_trace(
        "piq-ssdsim-tpcc",
        preset("piq-ssdsim"),
        Arch::Baseline,
        "tpcc-small.trace",
    ));

    // The repository's own trace: twins of the shared-trace runs, timed and closed loop.
    out.push(simple(
        "fixture-baseline",
        perf.clone(),
        Arch::Baseline,
        &[&fixture],
        1,
    ));
    out.push(simple(
        "fixture-piq-ssdsim",
        preset("piq-ssdsim"),
        Arch::Baseline,
        &[&fixture],
        1,
    ));
    out.push(simple(
        "fixture-venice",
        perf.clone(),
        Arch::Venice,
        &[&fixture],
        1,
    ));
    {
        let f = fixture.clone();
        out.push(case("fixture-cost-ideal-closed-repeat", move || {
            let mut s = scenario(&preset("cost-optimized"), Arch::Ideal, &[&f], 1);
            s.replay = Some(Replay::Closed { depth: 16 });
            s.repeat = 2;
            Some(s.run(|_| {}).unwrap())
        }));
        let f = fixture.clone();
        out.push(case("fixture-nossd-timed-x4-device1", move || {
            let mut s = scenario(&preset("perf-optimized"), Arch::Nossd, &[&f], 1);
            s.replay = Some(Replay::Timed { speedup: 4.0 });
            s.device = Some(1);
            Some(s.run(|_| {}).unwrap())
        }));
    }

    // Die scheduling orders and write completion.
    let tiny_nocache = |f: fn(&mut SsdConfig)| {
        tiny_with(|c| {
            c.cache.enabled = false;
            f(c)
        })
    };
    out.push(simple(
        "tiny-fifo-dies",
        tiny_with(|c| c.ftl.die_scheduling = DieScheduling::Fifo),
        Arch::Baseline,
        &[gc_mixed],
        7,
    ));
    out.push(simple(
        "tiny-issue-order",
        tiny_with(|c| c.ftl.die_scheduling = DieScheduling::IssueOrder),
        Arch::Baseline,
        &[gc_mixed],
        7,
    ));
    out.push(simple(
        "tiny-nocache-write-transfer",
        tiny_nocache(|c| c.ftl.write_completion = WriteCompletion::Transfer),
        Arch::Baseline,
        &[gc_mixed],
        8,
    ));
    out.push(simple(
        "tiny-nocache-fifo-dies",
        tiny_nocache(|c| c.ftl.die_scheduling = DieScheduling::Fifo),
        Arch::Pssd,
        &[gc_mixed],
        8,
    ));

    // GC: copyback, modes, policies, mapping updates, wear levelling, destinations.
    out.push(simple(
        "tiny-copyback",
        tiny_with(|c| c.ftl.copyback = true),
        Arch::Baseline,
        &[gc_writes],
        9,
    ));
    for (name, mode) in [
        ("tiny-gc-preemptive", GcMode::Preemptive),
        ("tiny-gc-tiny-tail", GcMode::TinyTail),
        ("tiny-gc-parallel", GcMode::Parallel),
    ] {
        out.push(simple(
            name,
            tiny_nocache(match mode {
                GcMode::Preemptive => |c| c.ftl.gc_mode = GcMode::Preemptive,
                GcMode::TinyTail => |c| {
                    c.ftl.gc_mode = GcMode::TinyTail;
                    c.ftl.gc_partial_ops = 2;
                },
                _ => |c| c.ftl.gc_mode = GcMode::Parallel,
            }),
            Arch::Baseline,
            &[gc_mixed],
            10,
        ));
    }
    out.push(simple(
        "tiny-gc-preemptible",
        tiny_nocache(|c| c.ftl.gc_preemptible = true),
        Arch::Baseline,
        &[gc_mixed],
        10,
    ));
    out.push(simple(
        "tiny-gc-random-policy",
        tiny_with(|c| c.ftl.gc_policy = GcPolicy::Random),
        Arch::Baseline,
        &[gc_writes],
        11,
    ));
    out.push(simple(
        "tiny-gc-fifo-policy",
        tiny_with(|c| c.ftl.gc_policy = GcPolicy::Fifo),
        Arch::Baseline,
        &[gc_writes],
        11,
    ));
    out.push(simple(
        "tiny-global-per-write-gc",
        tiny_nocache(|c| {
            c.ftl.gc_destination = GcDestination::Global;
            c.ftl.gc_pacing = lagoon_core::config::GcPacing::PerWrite;
        }),
        Arch::Baseline,
        &[gc_mixed],
        12,
    ));
    out.push(simple(
        "tiny-static-wl",
        tiny_with(|c| c.ftl.static_wl_threshold = 2),
        Arch::Baseline,
        &[gc_mixed],
        13,
    ));
    // A CMT of 64 entries: mapping reads and write-backs on every path.
    for (name, update) in [
        ("tiny-small-cmt-cmt-insert", GcMappingUpdate::CmtInsert),
        ("tiny-small-cmt-cached-only", GcMappingUpdate::CachedOnly),
    ] {
        let mut c = tiny_nocache(|c| {
            c.ftl.mapping = MappingConfig::Demand {
                cmt_bytes: 512,
                entry_bytes: 8,
            }
        });
        c.ftl.gc_mapping_update = update;
        out.push(simple(name, c, Arch::Baseline, &[gc_mixed], 14));
    }

    // Multi-plane rules, channel arbitration, command timing, dynamic mapping.
    out.push(simple(
        "tiny-multiplane-any",
        tiny_with(|c| c.flash.multiplane = Multiplane::Any),
        Arch::Baseline,
        &[gc_mixed],
        15,
    ));
    let mut off = perf.clone();
    off.flash.multiplane = Multiplane::Off;
    out.push(simple(
        "perf-multiplane-off",
        off,
        Arch::Baseline,
        &[mixed],
        15,
    ));
    let mut fifo = perf.clone();
    fifo.flash.channel_arbitration = ChannelArbitration::Fifo;
    out.push(simple("perf-channel-fifo", fifo, Arch::Pssd, &[mixed], 16));
    let mut cmd_first = perf.clone();
    cmd_first.flash.channel_arbitration = ChannelArbitration::CommandFirst;
    out.push(simple(
        "perf-channel-command-first",
        cmd_first,
        Arch::Baseline,
        &[gc_mixed],
        16,
    ));
    for (name, m) in [
        ("tiny-dynamic-chip", DynamicMapping::Chip),
        ("tiny-dynamic-die", DynamicMapping::Die),
    ] {
        let mut c = tiny_nocache(|c| c.flash.dies_per_chip = 2);
        c.ftl.dynamic_mapping = m;
        out.push(simple(name, c, Arch::Baseline, &[gc_mixed], 17));
    }
    let mut mq = preset("mqsimnet");
    mq.ftl.dynamic_mapping = DynamicMapping::Die;
    mq.cache.enabled = false;
    out.push(simple(
        "mqsimnet-die-dynamic-nocache",
        mq,
        Arch::Net,
        &["syn:read=30,size=4k,arrival=qd:32,count=3000"],
        17,
    ));

    // Write caches: a small one under back-pressure; aged preconditioning (both spreads).
    let mut small = perf.clone();
    small.cache.capacity_bytes = 64 * 4096;
    out.push(simple(
        "perf-small-cache-writes",
        small,
        Arch::Baseline,
        &["syn:read=20,size=uniform:4k-64k,arrival=qd:32,count=3000"],
        18,
    ));
    // MQSim's write-back policy (issue 33): first writes in a window, an LRU, per-plane cap.
    let mut mq = perf.clone();
    mq.cache.capacity_bytes = 64 * 4096;
    mq.cache.write_policy = lagoon_core::config::WritePolicyKind::Mqsim;
    out.push(simple(
        "perf-small-cache-mqsim-policy",
        mq,
        Arch::Baseline,
        &["syn:read=20,size=uniform:4k-64k,addr=hotcold:90/10,arrival=qd:32,count=3000"],
        18,
    ));
    for (name, spread) in [
        ("tiny-aged-uniform", InvalidDistribution::Uniform),
        ("tiny-aged-equal", InvalidDistribution::Equal),
    ] {
        let mut c = tiny();
        c.precondition.mode = PreconditionMode::Aged;
        c.precondition.invalid_distribution = spread;
        out.push(simple(name, c, Arch::Baseline, &[gc_mixed], 19));
    }
    // Steady-state preconditioning (issue 33): the functional warm-up's layout.
    let mut c = tiny();
    c.precondition.mode = PreconditionMode::Steady;
    out.push(simple("tiny-steady", c, Arch::Baseline, &[gc_mixed], 19));

    // The controller model (dSSD Table 2 designs) on an aged drive, status scans, the fNoC.
    let dssd_w = "syn:read=30,size=uniform:4k-32k,arrival=qd:32,count=3000";
    for (name, d) in [
        ("dssd-aged-baseline", Design::Baseline),
        ("dssd-aged-bw", Design::Bw),
        ("dssd-aged-dssd", Design::Dssd),
        ("dssd-aged-dssd_b", Design::DssdB),
        ("dssd-aged-dssd_f", Design::DssdF),
    ] {
        out.push(simple(name, dssd_aged(d), Arch::Baseline, &[dssd_w], 20));
    }
    let mut ring = dssd_aged(Design::DssdF);
    ring.fnoc.topology = TopologyKind::Ring;
    ring.ftl.gc_mode = GcMode::Preemptive;
    out.push(simple(
        "dssd-aged-dssd_f-ring-preemptive",
        ring,
        Arch::Baseline,
        &[dssd_w],
        21,
    ));
    let mut xbar = dssd_aged(Design::DssdF);
    xbar.fnoc.topology = TopologyKind::Crossbar;
    xbar.ftl.gc_mode = GcMode::TinyTail;
    out.push(simple(
        "dssd-aged-dssd_f-crossbar-tiny-tail",
        xbar,
        Arch::Baseline,
        &[dssd_w],
        21,
    ));
    let mut tlc = preset("dssd-tlc");
    tlc.flash.blocks_per_plane = 64;
    tlc.flash.pages_per_block = 48;
    tlc.precondition.mode = PreconditionMode::Aged;
    tlc.controller.enabled = true;
    tlc.controller.design = Design::Dssd;
    tlc.ftl.copyback = false;
    out.push(case("dssd-tlc-aged-dssd-timeline", move || {
        let mut s = scenario(&tlc, Arch::Baseline, &[dssd_w], 22);
        s.timeline_window = Some(200 * lagoon_core::time::PS_PER_US);
        s.stop_at_last_completion = true;
        Some(s.run(|_| {}).unwrap())
    }));
    let mut scan = dssd_aged(Design::Baseline);
    scan.ftl.status_scan_blocks = 256;
    out.push(simple(
        "dssd-aged-status-scan",
        scan,
        Arch::Baseline,
        &[dssd_w],
        23,
    ));
    let mut scan_plain = tiny();
    scan_plain.ftl.status_scan_blocks = 32;
    out.push(simple(
        "tiny-status-scan",
        scan_plain,
        Arch::Venice,
        &[gc_mixed],
        23,
    ));
    out.push(case("superblock-remap-window", remap_window));

    // Host schedulers, several flows, several seeds.
    for scheme in [Scheme::Noop, Scheme::Rws, Scheme::PiqR, Scheme::PiqW] {
        let f = fixture.clone();
        out.push(case(&format!("fixture-piq-ssdsim-{scheme}"), move || {
            let mut s = scenario(&preset("piq-ssdsim"), Arch::Baseline, &[&f], 1);
            s.host_scheduler = Some((scheme, 32));
            Some(s.run(|_| {}).unwrap())
        }));
    }
    out.push(simple(
        "venice-mix1-flows",
        perf.clone(),
        Arch::Venice,
        &["syn:mix1,count=1000"],
        24,
    ));
    for seed in [2, 4] {
        out.push(simple(
            &format!("venice-seed{seed}"),
            perf.clone(),
            Arch::Venice,
            &[mixed],
            seed,
        ));
        out.push(simple(
            &format!("tiny-gc-writes-seed{seed}"),
            tiny(),
            Arch::Baseline,
            &[gc_writes],
            seed,
        ));
    }

    // Venice's variants and the network layer's topologies and switching modes.
    let mut v16 = perf.clone();
    v16.network.rows = 16;
    v16.network.cols = 4;
    out.push(simple("venice-16x4-reads", v16, Arch::Venice, &[reads], 25));
    let mut imm = perf.clone();
    imm.network.scout_retry = ScoutRetry::Immediate;
    imm.network.lookahead = false;
    out.push(simple(
        "venice-immediate-no-lookahead",
        imm,
        Arch::Venice,
        &[mixed],
        25,
    ));
    let mut vnet = perf.clone();
    vnet.network.routing = RoutingKind::Venice;
    vnet.network.switching = Switching::Circuit;
    out.push(simple("net-routing-venice", vnet, Arch::Net, &[mixed], 25));
    for (name, topo, routing, switching) in [
        (
            "net-mesh-saf",
            TopologyKind::Mesh,
            RoutingKind::Dor,
            Switching::Saf,
        ),
        (
            "net-mesh-vct-adaptive",
            TopologyKind::Mesh,
            RoutingKind::MinimalAdaptive,
            Switching::Vct,
        ),
        (
            "net-ring-wormhole",
            TopologyKind::Ring,
            RoutingKind::Dor,
            Switching::Wormhole,
        ),
        (
            "net-hypercube-table",
            TopologyKind::Hypercube,
            RoutingKind::Table,
            Switching::Wormhole,
        ),
        (
            "net-crossbar-circuit",
            TopologyKind::Crossbar,
            RoutingKind::Dor,
            Switching::Circuit,
        ),
    ] {
        let mut c = preset("mqsimnet");
        c.network.topology = topo;
        c.network.routing = routing;
        c.network.switching = switching;
        if matches!(switching, Switching::Saf | Switching::Vct) {
            // A whole packet per virtual channel must fit the 6 KB input buffers.
            c.network.packet_flits = 8;
        }
        out.push(simple(name, c, Arch::Net, &[mixed], 26));
    }
    let mut df = preset("mqsimnet");
    df.network.topology = TopologyKind::Dragonfly;
    df.network.routing = RoutingKind::Ugal;
    df.network.vcs = 4;
    out.push(simple("net-dragonfly-ugal", df, Arch::Net, &[mixed], 26));
    out
}

/// A drive aged by the functional lifetime model until its recycled superblocks remap
/// blocks, then timed at that age (dSSD §5, Fig. 15): remapped blocks run on other planes.
fn remap_window() -> Option<Report> {
    use lagoon_core::config::SuperblockMode;
    use lagoon_core::lifetime::{age, LifetimeSpec};
    let mut c = tiny();
    c.flash.pages_per_block = 8;
    c.wear.pe_mean = 60.0;
    c.wear.pe_sigma = 9.0;
    c.wear.superblock = SuperblockMode::Recycled;
    c.validate().unwrap();
    let spec = LifetimeSpec {
        request_bytes: 16 << 10,
        stop_bad_fraction: 0.2,
        ..Default::default()
    };
    let (life, remap) = age(&c, &spec, |_, _| {}).unwrap();
    assert!(life.remaps > 0, "the window needs remapped blocks");
    let mut s = scenario(
        &c,
        Arch::Baseline,
        &["syn:read=50,size=uniform:4k-16k,arrival=qd:8,count=3000"],
        27,
    );
    s.block_remap = Some(std::sync::Arc::new(remap));
    Some(s.run(|_| {}).unwrap())
}

/// The report as pinned: deterministic JSON without the simulator's work counters, with the
/// trace directory's absolute path taken out, and the timeline (not in the JSON) appended.
fn model_json(r: &Report) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&r.deterministic_json()).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["events", "model_state_bytes"] {
        o.remove(k);
    }
    if let Some(i) = o.get_mut("interconnect").and_then(|i| i.as_object_mut()) {
        i.remove("local_events");
    }
    if let Some(t) = &r.timeline {
        o.insert("timeline_csv".into(), t.csv().into());
    }
    let s = serde_json::to_string_pretty(&v).unwrap() + "\n";
    s.replace(super::common::TRACES, "")
        .replace(super::common::FIXTURES, "")
}

/// The work counters strict mode pins.
fn counters(name: &str, r: &Report) -> String {
    format!(
        "{name} events={} local_events={} model_state_bytes={}",
        r.events, r.interconnect.local_events, r.model_state_bytes
    )
}

/// Every case's report, in case order, on all cores (runs are independent).
fn reports(cases: &[Case]) -> Vec<Option<Report>> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: Vec<std::sync::Mutex<Option<Report>>> =
        cases.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (c.job)()));
                match r {
                    Ok(r) => *out[i].lock().unwrap() = r,
                    Err(e) => panic!("golden run {} failed: {e:?}", c.name),
                }
            });
        }
    });
    out.into_iter().map(|m| m.into_inner().unwrap()).collect()
}

#[test]
fn golden_reports_are_unchanged() {
    let cases = cases();
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    let got = reports(&cases);
    let bless = std::env::var_os("LAGOON_BLESS").is_some();
    let strict = std::env::var_os("LAGOON_GOLDEN_STRICT").is_some();
    let old_counters = std::fs::read_to_string(COUNTERS).unwrap_or_default();
    let mut new_counters = Vec::new();
    let mut changed = Vec::new();
    let mut skipped = Vec::new();
    for (c, r) in cases.iter().zip(&got) {
        let file = PathBuf::from(DIR).join(format!("{}.json", c.name));
        let Some(r) = r else {
            skipped.push(c.name.as_str());
            // Keep its pinned counters line for the next run that has the input.
            if let Some(l) = old_counters
                .lines()
                .find(|l| l.split(' ').next() == Some(&c.name))
            {
                new_counters.push(l.to_string());
            }
            continue;
        };
        let json = model_json(r);
        new_counters.push(counters(&c.name, r));
        if bless {
            std::fs::create_dir_all(DIR).unwrap();
            std::fs::write(&file, &json).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file).unwrap_or_default();
        if want != json {
            std::fs::create_dir_all(NEW).unwrap();
            let new = PathBuf::from(NEW).join(format!("{}.json", c.name));
            std::fs::write(&new, &json).unwrap();
            changed.push(format!(
                "  {}: diff -u {} {}",
                c.name,
                file.display(),
                new.display()
            ));
        }
    }
    if !skipped.is_empty() {
        eprintln!(
            "golden: skipped {} run(s) whose trace is not in ../shared/traces: {}",
            skipped.len(),
            skipped.join(", ")
        );
    }
    if bless {
        std::fs::write(COUNTERS, new_counters.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        changed.is_empty(),
        "reports changed ({} of {} runs; LAGOON_BLESS=1 regenerates if meant):\n{}",
        changed.len(),
        cases.len(),
        changed.join("\n")
    );
    // Every pinned report belongs to a case (a renamed case leaves none behind).
    for e in std::fs::read_dir(DIR).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        assert!(
            cases.iter().any(|c| c.name == stem),
            "{} pins no case",
            p.display()
        );
    }
    if strict {
        let old: Vec<&str> = old_counters.lines().collect();
        let moved: Vec<String> = new_counters
            .iter()
            .filter(|l| !old.contains(&l.as_str()))
            .map(|l| {
                let name = l.split(' ').next().unwrap();
                let was = old
                    .iter()
                    .find(|o| o.split(' ').next() == Some(name))
                    .unwrap_or(&"(none)");
                format!("  was {was}\n  now {l}")
            })
            .collect();
        assert!(
            moved.is_empty(),
            "strict: work counters changed ({} runs):\n{}",
            moved.len(),
            moved.join("\n")
        );
    }
}
