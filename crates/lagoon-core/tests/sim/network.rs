//! `--arch net`: the SSD on the general network layer, on every provided topology, routing
//! and switching.

use super::common::run;
use lagoon_core::config::{RoutingKind, SsdConfig, Switching, TopologyKind};
use lagoon_core::interconnect::Arch;

/// Every topology × routing × switching that validates on an 8 × 8 drive runs a mixed
/// workload to the end: every request completes, every transfer is one delivered message,
/// and the utilizations are fractions.
#[test]
fn every_valid_combination_serves_every_request() {
    let w = "syn:read=60,size=uniform:4k-16k,arrival=qd:16,count=600";
    let mut ran = 0;
    for &t in TopologyKind::ALL {
        if t == TopologyKind::Custom {
            continue;
        }
        for &r in RoutingKind::ALL {
            for sw in [
                Switching::Wormhole,
                Switching::Vct,
                Switching::Saf,
                Switching::Circuit,
            ] {
                let mut c = SsdConfig::load("perf-optimized").unwrap();
                c.network.topology = t;
                c.network.routing = r;
                c.network.switching = sw;
                // Packets of 16 flits (a 4 KB page is 4 packets) and room for one per VC, so
                // cut-through and store-and-forward are legal; minimal adaptive routing on
                // a 6-cube needs 2^5 VC classes.
                let hyper_adaptive =
                    t == TopologyKind::Hypercube && r == RoutingKind::MinimalAdaptive;
                c.network.vcs = if hyper_adaptive { 32 } else { 4 };
                c.network.packet_flits = 16;
                c.network.input_buffer_bytes = c.network.vcs * 16 * 64;
                c.network.output_buffer_bytes = c.network.vcs * 16 * 64;
                if c.validate().is_err() {
                    continue;
                }
                let rep = run(&c, Arch::Net, &[w], 3);
                let what = format!("{t} {r} {sw:?}");
                assert_eq!(rep.requests, 600, "{what}");
                let n = rep.interconnect.network.as_ref().expect("network stats");
                assert_eq!(n.messages, rep.interconnect.transfers, "{what}");
                assert!(rep.interconnect.transfers >= 600, "{what}");
                assert!(
                    rep.interconnect
                        .channel_utilization
                        .iter()
                        .all(|&u| (0.0..=1.0).contains(&u)),
                    "{what}"
                );
                ran += 1;
            }
        }
    }
    // Of 6 routings, a dragonfly takes 4 (no dimensions for dor and duato), the others
    // all but valiant and ugal, and ring and torus not minimal-adaptive (wrap-around links
    // without escape VCs): 6 x 4 + 2 x 3 = 30, in 4 switching modes; and venice, on the
    // mesh with circuits only.
    assert_eq!(ran, 30 * 4 + 1, "combinations run");
}

/// Same seed, same output; the layer is deterministic under adaptive routing too.
#[test]
fn net_runs_are_reproducible() {
    let mut c = SsdConfig::load("perf-optimized").unwrap();
    c.network.topology = TopologyKind::Torus;
    c.network.routing = RoutingKind::Duato;
    c.network.vcs = 4;
    let w = "syn:read=70,size=4k,arrival=qd:32,count=3000";
    let a = run(&c, Arch::Net, &[w], 9).deterministic_json();
    let b = run(&c, Arch::Net, &[w], 9).deterministic_json();
    assert_eq!(a, b);
}

/// `routing = venice` is Venice's scout protocol as the layer's circuit set-up: `--arch net`
/// with the mesh, venice routing and circuits is `--arch venice`, report for report, and the
/// back end honours the layer's controller attachment.
#[test]
fn venice_is_the_layer_with_venice_routing() {
    let mut c = SsdConfig::load("perf-optimized").unwrap();
    c.network.routing = RoutingKind::Venice;
    c.network.switching = Switching::Circuit;
    c.validate().unwrap();
    let w = "syn:read=70,size=uniform:4k-16k,arrival=qd:32,count=3000";
    let mut net = run(&c, Arch::Net, &[w], 4);
    let venice = run(
        &SsdConfig::load("perf-optimized").unwrap(),
        Arch::Venice,
        &[w],
        4,
    );
    net.arch = venice.arch.clone();
    assert_eq!(net.deterministic_json(), venice.deterministic_json());
    let n = venice
        .interconnect
        .network
        .as_ref()
        .expect("network counters");
    assert_eq!(n.messages, venice.interconnect.transfers);
    assert_eq!((n.routers, n.links), (64, 2 * 8 * 7));
    assert!(n.mean_hops >= 1.0 && n.mean_latency_ns > 0.0);

    // Three controllers spread over the routers (i x 64 / 3) instead of on the west edge
    // (the first router of row i x 8 / 3: 0, 16, 40).
    c.network.controllers = 3;
    c.network.controller_attach = lagoon_core::config::ControllerAttach::Spread;
    let spread = run(&c, Arch::Net, &[w], 4);
    assert_eq!(spread.requests, 3000);
    let routers = &spread
        .interconnect
        .mesh
        .as_ref()
        .unwrap()
        .controller_routers;
    assert_eq!(routers, &[0, 21, 42]);
}

/// Venice's routing is named with the key that makes it impossible.
#[test]
fn venice_routing_needs_a_mesh_and_circuits() {
    let mut c = SsdConfig::load("perf-optimized").unwrap();
    c.network.routing = RoutingKind::Venice;
    c.network.switching = Switching::Wormhole;
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("network.switching") && e.contains("circuit"),
        "{e}"
    );
    c.network.switching = Switching::Circuit;
    c.network.topology = TopologyKind::Torus;
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("network.routing") && e.contains("network.topology = mesh"),
        "{e}"
    );
}
