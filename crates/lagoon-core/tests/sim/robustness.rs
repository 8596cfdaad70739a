//! Hostile configurations (issue 9): every case found by the attack on the networked back
//! ends' config handling is one error naming the key, and a model that cannot make progress
//! is stopped by the watchdog instead of hanging.

use super::common::tiny;
use lagoon_core::config::SsdConfig;
use lagoon_core::host::{Flow, Replay};
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use lagoon_core::sim::{SimError, Simulator};
use lagoon_workload::{IoRequest, Op};

fn err(toml: &str) -> String {
    SsdConfig::from_toml(toml, "hostile.toml")
        .expect_err(toml)
        .to_string()
}

#[test]
fn mesh_smaller_than_the_flash_array_is_named() {
    for (t, key) in [
        ("[network]\nrows = 2\n", "network.rows"),
        ("[network]\ncols = 3\n", "network.cols"),
        ("[network]\nrows = 4294967295\n", "network.rows"),
        ("[network]\ncols = 4294967295\n", "network.cols"),
        (
            "[network]\nrows = 8\ncols = 8\ncontrollers = 9\n",
            "network.controllers",
        ),
    ] {
        let e = err(t);
        assert!(e.contains(key), "{t}: {e}");
    }
    // The message says why: routers against chips.
    let e = err("[network]\nrows = 2\n");
    assert_eq!(e, "invalid configuration: network.rows x network.cols = 2x8: 16 routers but the flash array has 64 chips (flash.channels x flash.chips_per_channel); the network needs a router per chip");
}

#[test]
fn meaningless_network_values_are_named_with_their_range() {
    for (t, key) in [
        (
            "[network]\nlink_width_bytes = 0\n",
            "network.link_width_bytes",
        ),
        (
            "[network]\nnossd_buffer_bytes = 0\n",
            "network.nossd_buffer_bytes",
        ),
        (
            "[network]\nmax_router_visits = 0\n",
            "network.max_router_visits",
        ),
        ("[network]\nlink_cycle_ns = nan\n", "network.link_cycle_ns"),
        ("[network]\nlink_cycle_ns = -1.0\n", "network.link_cycle_ns"),
        ("[network]\nlink_cycle_ns = 0.0\n", "network.link_cycle_ns"),
        ("[network]\nlink_cycle_ns = inf\n", "network.link_cycle_ns"),
        (
            "[network]\nnossd_link_mb_s = nan\n",
            "network.nossd_link_mb_s",
        ),
        (
            "[network]\nnossd_link_mb_s = -5.0\n",
            "network.nossd_link_mb_s",
        ),
        ("[flash]\nchannel_mb_s = 1e-300\n", "flash.channel_mb_s"),
        ("[flash]\nread_ns = 1e300\n", "flash.read_ns"),
        ("[host]\npcie_lanes = 0\n", "host.pcie_lanes"),
        ("[ftl]\ngc_threshold = nan\n", "ftl.gc_threshold"),
        (
            "[ftl]\nstatic_wl_threshold = 1000001\n",
            "ftl.static_wl_threshold",
        ),
    ] {
        let e = err(t);
        assert!(e.contains(key) && e.contains("must be"), "{t}: {e}");
    }
    let e = err("[network]\nlink_cycle_ns = nan\n");
    assert_eq!(
        e,
        "invalid configuration: network.link_cycle_ns = NaN: must be a finite number in [0.001, 1000000] (ns)"
    );
}

/// Every key that takes a name (the schema's table lists the numeric ones): an unknown name is
/// one error naming the file, the key and every valid name.
#[test]
fn an_unknown_name_lists_the_valid_ones() {
    for (section, key, valid) in [
        ("flash", "command_timing", "`venice` or `onfi`"),
        ("flash", "multiplane", "`same-offset`, `any`, `off`"),
        ("ftl", "write_completion", "`program` or `transfer`"),
        ("ftl", "dynamic_mapping", "`static`, `chip`, `die`"),
        ("ftl", "die_scheduling", "`priority`, `fifo`, `issue-order`"),
        ("ftl", "gc_pacing", "`backlog` or `per-write`"),
        ("ftl", "gc_mapping_update", "`cmt-insert` or `cached-only`"),
        (
            "network",
            "switching",
            "`circuit`, `saf`, `vct`, `wormhole`",
        ),
        ("network", "controller_attach", "`edge` or `spread`"),
        (
            "ftl",
            "gc_mode",
            "`per-plane`, `parallel`, `preemptive`, `tiny-tail`",
        ),
        ("ftl", "gc_destination", "`same-plane` or `global`"),
        ("precondition", "mode", "`sequential`, `aged`, `steady`"),
        (
            "precondition",
            "invalid_distribution",
            "`uniform` or `equal`",
        ),
        (
            "controller",
            "design",
            "`baseline`, `bw`, `dssd`, `dssd_b`, `dssd_f`",
        ),
        ("fnoc", "switching", "`circuit`, `saf`, `vct`, `wormhole`"),
        ("network", "topology", "`line`, `ring`, `mesh`, `torus`"),
        ("network", "routing", "`dor`, `minimal-adaptive`, `duato`"),
        ("fnoc", "topology", "`line`, `ring`, `mesh`, `torus`"),
        ("fnoc", "routing", "`dor`, `minimal-adaptive`, `duato`"),
        ("wear", "superblock", "`static`, `recycled`, `reserv`"),
        ("wear", "superblock_width", "`plane`, `die`, `channel`"),
        ("wear", "rbt_pick", "`same-plane` or `newest`"),
    ] {
        let t = format!("[{section}]\n{key} = \"nonsense\"\n");
        let e = err(&t);
        assert!(
            e.contains("hostile.toml")
                && e.contains(&format!("{section}.{key}"))
                && e.contains(valid),
            "{t}: {e}"
        );
    }
}

#[test]
fn a_wrong_type_names_the_file_and_key() {
    let e = err("[network]\nrows = \"eight\"\n");
    assert!(e.contains("hostile.toml") && e.contains("rows"), "{e}");
    let e = err("[network]\nrows = -1\n");
    assert!(e.contains("hostile.toml") && e.contains("rows"), "{e}");
    for v in ["-1", "1.5", "\"often\"", "1e12"] {
        let e = err(&format!("[ftl]\nstatic_wl_threshold = {v}\n"));
        assert!(
            e.contains("static_wl_threshold") && e.lines().count() <= 3,
            "{v}: {e}"
        );
    }
    // `ftl.status_scan_blocks`: a count of blocks (u32), at most the drive's.
    for v in ["-1", "1.5", "\"all\"", "4294967296", "1e12", "nan"] {
        let e = err(&format!("[ftl]\nstatus_scan_blocks = {v}\n"));
        assert!(
            e.contains("status_scan_blocks") && e.lines().count() <= 3,
            "{v}: {e}"
        );
    }
    let e = err("[ftl]\nstatus_scan_blocks = 4294967295\n");
    assert!(
        e.contains("ftl.status_scan_blocks") && e.contains("blocks (flash geometry)"),
        "{e}"
    );
    let e = err("[ftl]\ngc_mapping_update = 3\n");
    assert!(
        e.contains("hostile.toml") && e.contains("gc_mapping_update"),
        "{e}"
    );
}

#[test]
fn a_geometry_too_large_for_memory_is_rejected_before_allocation() {
    let e = err("[flash]\nchannels = 4096\nchips_per_channel = 4096\ndies_per_chip = 4\nblocks_per_plane = 8\npages_per_block = 1\nplanes_per_die = 1\n[ftl]\ngc_threshold = 0.3\noverprovisioning = 0.8\n");
    assert!(e.contains("GB of model state"), "{e}");
}

#[test]
fn a_huge_cmt_runs_in_the_memory_it_uses() {
    let c = SsdConfig::from_toml(
        "[ftl.mapping]\ntype = \"demand\"\ncmt_bytes = 4294967295\nentry_bytes = 8\n",
        "big-cmt.toml",
    )
    .unwrap();
    let s = Scenario::new(
        "big-cmt",
        c,
        Arch::Baseline,
        vec!["syn:read=50,size=4k,arrival=qd:8,count=2000".into()],
    );
    let r = s.run(|_| {}).unwrap();
    assert_eq!(r.requests, 2000);
}

#[test]
fn configs_built_in_code_are_validated_before_a_run() {
    let mut c = tiny();
    c.network.link_width_bytes = 0;
    let s = Scenario::new(
        "x",
        c,
        Arch::Venice,
        vec!["syn:read=100,size=4k,arrival=qd:1,count=10".into()],
    );
    let e = s.run(|_| {}).unwrap_err().to_string();
    assert!(e.contains("network.link_width_bytes"), "{e}");
}

/// NoSSD derives the layer's packet size, link cycle and link latency from other keys; values
/// valid on their own that make a derived one invalid (found by the long config fuzz of
/// 2026-11-23) are named by the key the user set, with the derived key beside it.
#[test]
fn nossd_derived_keys_name_the_key_the_user_set() {
    let cases: [(&str, &str, &str); 4] = [
        (
            "[network]\nnossd_buffer_bytes = 16777215",
            "network.nossd_buffer_bytes = 16777215",
            "network.packet_flits",
        ),
        (
            "[flash]\nchannel_mb_s = 1e8",
            "flash.channel_mb_s = 100000000",
            "network.link_cycle_ns",
        ),
        (
            "[network]\nnossd_link_mb_s = 5e7",
            "network.nossd_link_mb_s = 50000000",
            "network.link_cycle_ns",
        ),
        (
            "[network]\nrouter_delay_cycles = 1000000\nlink_cycle_ns = 100.0",
            "network.router_delay_cycles = 1000000 (with network.link_cycle_ns = 100)",
            "network.link_latency_ns",
        ),
    ];
    for (toml, names, derived) in cases {
        let c = SsdConfig::from_toml(toml, "nossd.toml").expect("valid on its own");
        let s = Scenario::new(
            "x",
            c,
            Arch::Nossd,
            vec!["syn:read=100,size=4k,arrival=qd:1,count=10".into()],
        );
        let e = s.run(|_| {}).unwrap_err().to_string();
        assert!(e.contains(names) && e.contains(derived), "{toml}: {e}");
    }
}

/// `max_router_visits = 0` (now rejected by the schema) turned every Venice scout back at its
/// first router forever: the watchdog must stop such a model with an error naming it.
#[test]
fn watchdog_stops_a_livelocked_venice() {
    let mut c = tiny();
    c.network.max_router_visits = 0;
    let reads = (0..4u64).map(|i| {
        Ok(IoRequest {
            arrival_ns: 0,
            device: 0,
            offset_bytes: i * 4096,
            size_bytes: 4096,
            op: Op::Read,
        })
    });
    let flow = Flow {
        name: "reads".into(),
        source: Box::new(reads.collect::<Vec<_>>().into_iter()),
        replay: Replay::Closed { depth: 4 },
    };
    let mut sim = Simulator::new(&c, Arch::Venice, vec![flow], 1);
    sim.set_watchdog(200_000);
    match sim.run(|_| {}) {
        Err(SimError::Stalled { reason, .. }) => {
            assert!(reason.contains("venice"), "{reason}");
            assert!(reason.contains("200000 events in a row"), "{reason}");
        }
        Err(e) => panic!("expected a stall, got {e}"),
        Ok(_) => panic!("expected a stall, the run finished"),
    }
}

/// The memory guard: random writes materialize map chunks and reverse maps as they go; with
/// the limit 2 MB above what the drive allocates up front, the run stops with one error that
/// names the geometry and what grew, instead of growing on. Unlimited, the same run finishes.
#[test]
fn memory_guard_stops_a_run_whose_state_outgrows_the_limit() {
    let c = SsdConfig::default();
    let run = |limit: u64| {
        let mut x = 12345u64;
        let writes = (0..200_000u64).map(move |_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Ok(IoRequest {
                arrival_ns: 0,
                device: 0,
                offset_bytes: (x >> 20) % (1 << 24) * 4096,
                size_bytes: 4096,
                op: Op::Write,
            })
        });
        let flow = Flow {
            name: "writes".into(),
            source: Box::new(writes),
            replay: Replay::Closed { depth: 32 },
        };
        let mut sim = Simulator::new(&c, Arch::Baseline, vec![flow], 1);
        sim.set_state_limit(limit);
        sim.run(|_| {})
    };
    let base = c.preallocated_state_bytes();
    match run(base + (2 << 20)) {
        Err(SimError::Input(why)) => {
            assert!(
                why.starts_with("flash (geometry): the model's state reached"),
                "{why}"
            );
            assert!(why.contains("mapping tables written during it"), "{why}");
            assert!(why.contains(&format!("{:.2} GB allocated before", base as f64 / 1e9)));
        }
        Err(e) => panic!("expected the memory guard, got {e}"),
        Ok(_) => panic!("expected the memory guard, the run finished"),
    }
    let done = run(u64::MAX).expect("no limit");
    assert_eq!(done.flows[0].completed, 200_000);
}

/// Found by the config fuzzer (seed 20261124, case 23,535): static wear levelling at a
/// threshold of 1 on an aged TLC drive levelled forever after the last request (each round's
/// moves cost erases elsewhere, so the spread never closed) and the run never ended. Rounds
/// now start only while the host has requests in the drive or to come; this one levels
/// during the run and then ends.
#[test]
fn eager_static_wear_levelling_ends_with_the_host() {
    let mut c = SsdConfig::load("dssd-tlc").unwrap();
    c.flash.chips_per_channel = 2;
    c.ftl.static_wl_threshold = 1;
    let w = "syn:read=70,size=uniform:4k-64k,arrival=qd:4,count=40".to_string();
    // On a thread, so a regression fails here instead of hanging the suite (0.5 s now).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Scenario::new("dssd-tlc", c, Arch::Nossd, vec![w]).run(|_| {}));
    });
    let r = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the run did not end in 120 s")
        .expect("the run succeeds");
    assert_eq!(r.requests, 40);
    assert!(r.ftl.static_wl_runs > 0, "it levels while the host runs");
}

/// Ctrl-C's mechanism: a stop asked before the run starts ends it before its first event
/// (`Cancelled` at time 0; nothing to report for a finish either); one asked at a look (65,536
/// events; here from the progress callback, called at a look just before the flag is) ends
/// it there: an abort with `Cancelled`, a finish with a report of what was done.
#[test]
fn a_cancelled_run_stops_at_the_next_look() {
    use lagoon_core::cancel::Cancel;
    use lagoon_core::scenario::ScenarioError;
    let cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    let w = "syn:read=100,size=4k,arrival=qd:32,count=1000000";
    let mut s =
        lagoon_core::scenario::Scenario::new("perf-optimized", cfg, Arch::Baseline, vec![w.into()]);
    for before in [Cancel::abort, Cancel::finish] {
        let c = Cancel::new();
        s.cancel = Some(c.clone());
        before(&c);
        assert!(matches!(
            s.run(|_| {}),
            Err(ScenarioError::Sim(SimError::Cancelled { time_ns })) if time_ns == 0.0
        ));
    }
    let c = Cancel::new();
    s.cancel = Some(c.clone());
    match s.run(|_| c.abort()) {
        Err(ScenarioError::Sim(SimError::Cancelled { time_ns })) => assert!(time_ns > 0.0),
        other => panic!(
            "expected a cancelled run, got {:?}",
            other.map(|r| r.requests)
        ),
    }
    let c = Cancel::new();
    s.cancel = Some(c.clone());
    let r = s.run(|_| c.finish()).unwrap();
    assert!(r.requests > 0 && r.requests < 1_000_000, "{}", r.requests);
}

/// Steady preconditioning (a functional warm-up before the first event, 20 s here without
/// a stop) looks at the flag: a stop asked during it ends the run within a second, cancelled.
#[test]
fn a_stop_during_steady_preconditioning_ends_it() {
    use lagoon_core::cancel::Cancel;
    let mut cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    cfg.precondition.mode = lagoon_core::config::PreconditionMode::Steady;
    cfg.precondition.warmup_overwrites = 100.0;
    let mut s = lagoon_core::scenario::Scenario::new(
        "steady",
        cfg,
        Arch::Baseline,
        vec!["syn:count=1000".into()],
    );
    let c = Cancel::new();
    s.cancel = Some(c.clone());
    let stopper = {
        let c = c.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            c.finish();
            std::time::Instant::now()
        })
    };
    let r = s.run(|_| {});
    let took = stopper.join().unwrap().elapsed();
    assert!(
        matches!(
            r,
            Err(lagoon_core::scenario::ScenarioError::Sim(
                SimError::Cancelled { .. }
            ))
        ),
        "{:?}",
        r.map(|r| r.requests)
    );
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
}

/// A network of 1-byte flits and 1-flit packets runs millions of its own events per engine
/// event: a stop request is looked at between them (every 65,536), so a finish asked at the
/// first look ends it long before its 300 requests (it used to run them all, 90 s of CPU).
#[test]
fn a_network_of_tiny_flits_answers_a_stop_between_its_own_events() {
    use lagoon_core::cancel::Cancel;
    let mut cfg = lagoon_core::config::SsdConfig::load("mqsimnet").unwrap();
    cfg.network.flit_bytes = 1;
    cfg.network.packet_flits = 1;
    cfg.validate().unwrap();
    let w = "syn:read=50,size=64k,addr=uniform,arrival=qd:32,count=300";
    let mut s = lagoon_core::scenario::Scenario::new("tiny-flits", cfg, Arch::Net, vec![w.into()]);
    let c = Cancel::new();
    s.cancel = Some(c.clone());
    match s.run(|_| c.finish()) {
        Ok(r) => assert!(r.requests < 300, "{}", r.requests),
        Err(e) => assert!(
            matches!(
                e,
                lagoon_core::scenario::ScenarioError::Sim(SimError::Cancelled { .. })
            ),
            "{e}"
        ),
    }
    let c = Cancel::new();
    s.cancel = Some(c.clone());
    assert!(matches!(
        s.run(|_| c.abort()),
        Err(lagoon_core::scenario::ScenarioError::Sim(
            SimError::Cancelled { .. }
        ))
    ));
}
