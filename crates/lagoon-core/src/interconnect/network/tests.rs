//! The network against hand-computed formulas, and its invariants on random networks.

use super::routing::dor::Dor;
use super::topology::cube::Cube;
use super::topology::{self, Graph};
use super::*;
use crate::config::{RoutingKind, TopologyKind};
use proptest::prelude::*;

const F: Ps = 2_000; // flit time
const L: Ps = 700; // link latency
const R: Ps = 3_000; // router pipeline

fn params(switching: Switching, packet: u32, buffer: u32) -> NetParams {
    NetParams {
        switching,
        vcs: 2,
        flit_bytes: 16,
        packet_flits: packet,
        in_vc_flits: buffer,
        out_vc_flits: buffer,
        cycle: 1_000,
        flit_time: F,
        link_latency: L,
        router_delay: R,
        stall_limit: 1 << 50,
    }
}

/// A line of `hops + 1` routers, endpoint 0 on the first and endpoint 1 on the last.
fn line(hops: u32, p: NetParams) -> Network {
    let topo = Cube::new(TopologyKind::Line, vec![hops + 1], false, false);
    let mut net = Network::new(Box::new(topo), &[0, hops], p, RoutingKind::Dor, 1).unwrap();
    net.audit = Some(Default::default());
    net
}

/// Send each (time, src, dst, flits) as a message tagged by its index; run until empty.
fn run(net: &mut Network, msgs: &[(Ps, u32, u32, u32)]) -> Result<Vec<Delivery>, NetError> {
    let mut order: Vec<usize> = (0..msgs.len()).collect();
    order.sort_by_key(|&k| msgs[k].0);
    let mut out = Vec::new();
    for k in order {
        let (t, s, d, f) = msgs[k];
        if t > 0 {
            net.advance(t - 1, &mut out)?;
        }
        net.send_flits(t, s, d, f, k as u64);
    }
    while let Some(t) = net.next_event_time() {
        net.advance(t, &mut out)?;
        if let Err(e) = net.audit_credits().and_then(|()| net.check_circuits()) {
            panic!("{e}");
        }
    }
    net.advance(Ps::MAX, &mut out)?;
    if let Err(e) = net.audit_check() {
        panic!("{e}");
    }
    Ok(out)
}

/// One packet alone on a line; the same time on the input-output-queued router and on the
/// input-queued one (no output buffers: its crossbar and link are one stage).
fn one_packet(sw: Switching, hops: u32, flits: u32, buffer: u32) -> Ps {
    let times: Vec<Ps> = [buffer, 0]
        .into_iter()
        .map(|out| {
            let mut net = line(
                hops,
                NetParams {
                    out_vc_flits: out,
                    ..params(sw, flits, buffer)
                },
            );
            let done = run(&mut net, &[(0, 0, 1, flits)]).unwrap();
            assert_eq!(done.len(), 1);
            assert_eq!(done[0].hops, hops);
            done[0].delivered
        })
        .collect();
    assert_eq!(times[0], times[1], "{sw:?} H={hops} P={flits}: IOQ vs IQ");
    times[0]
}

/// Zero load, wormhole and virtual cut-through: the head pays `f + L` per link and `R` per
/// router, the body follows one flit per `f`: `(H+2)(f+L) + (H+1)R + (P-1)f`. Wormhole with
/// buffers shorter than the packet, but long enough to cover a credit's round trip
/// (`f + 2L + R` = 6.4 ns < 8 flits), is just as fast.
#[test]
fn zero_load_wormhole_and_cut_through() {
    for hops in 0..6u64 {
        for flits in [1u32, 5, 20] {
            let want = (hops + 2) * (F + L) + (hops + 1) * R + (flits as Ps - 1) * F;
            assert_eq!(
                one_packet(Switching::Vct, hops as u32, flits, 20),
                want,
                "vct H={hops} P={flits}"
            );
            assert_eq!(
                one_packet(Switching::Wormhole, hops as u32, flits, 20),
                want,
                "wormhole H={hops} P={flits}"
            );
            assert_eq!(
                one_packet(Switching::Wormhole, hops as u32, flits, 4),
                want,
                "wormhole (4-flit buffers) H={hops} P={flits}"
            );
        }
    }
}

/// Store-and-forward: every router waits for the whole packet: `(H+2)(P·f+L) + (H+1)R`.
#[test]
fn zero_load_store_and_forward() {
    for hops in 0..6u64 {
        for flits in [1u32, 5, 20] {
            let want = (hops + 2) * (flits as Ps * F + L) + (hops + 1) * R;
            assert_eq!(
                one_packet(Switching::Saf, hops as u32, flits, 20),
                want,
                "H={hops} P={flits}"
            );
        }
    }
}

/// Circuit switching: the probe sets up the path (`(H+2)(f+L) + (H+1)R`), the ack returns
/// (`(H+2)(f+L)`), the data streams with no router delay (`(H+2)(f+L) + (P-1)f`).
#[test]
fn zero_load_circuit() {
    for hops in 0..6u64 {
        for flits in [1u32, 5, 20, 300] {
            let want = 3 * (hops + 2) * (F + L) + (hops + 1) * R + (flits as Ps - 1) * F;
            assert_eq!(
                one_packet(Switching::Circuit, hops as u32, flits, 1),
                want,
                "H={hops} P={flits}"
            );
        }
    }
}

/// Buffers too short for a credit's round trip: the body stalls, the packet is slower than
/// the formula, and its flits still all arrive once.
#[test]
fn short_buffers_stall_wormhole() {
    let free = (3 + 2) * (F + L) + (3 + 1) * R + 19 * F;
    let slow = one_packet(Switching::Wormhole, 3, 20, 1);
    // One slot per VC: a flit every f + 2L + R at the input buffers.
    assert!(slow > free + 10 * F, "{slow} vs {free}");
}

/// Lockstep flits cost events per hop, not per flit: one 512-flit packet over 7 hops (4,608
/// flit-hops, buffers of 48 flits) costs as many events as a 4-flit one.
#[test]
fn lockstep_packet_costs_events_per_hop_not_per_flit() {
    let events = |flits| {
        let mut net = line(7, params(Switching::Wormhole, flits, 48));
        run(&mut net, &[(0, 0, 1, flits)]).unwrap();
        net.events()
    };
    let (long, short) = (events(512), events(4));
    assert!(
        long <= short + 2 && long <= 3 * 9,
        "{long} events vs {short}"
    );
}

/// The message API: a message longer than a packet is cut into packets and delivered once.
#[test]
fn long_message_is_cut_into_packets() {
    let mut net = line(2, params(Switching::Wormhole, 4, 8));
    let done = run(&mut net, &[(0, 0, 1, 10), (0, 1, 0, 3)]).unwrap();
    assert_eq!(done.len(), 2);
    assert_eq!(net.stats.packets_delivered, 3 + 1);
    let d = done.iter().find(|d| d.tag == 0).unwrap();
    assert_eq!((d.flits, d.src, d.dst), (10, 0, 1));
}

/// Two packets on one link: the second's head waits for the first's tail to leave the link.
#[test]
fn contention_serialises_the_shared_link() {
    let mut net = line(1, params(Switching::Vct, 5, 20));
    let topo = Cube::new(TopologyKind::Line, vec![2], false, false);
    net = {
        let mut n = Network::new(
            Box::new(topo),
            &[0, 0, 1],
            params(Switching::Vct, 5, 20),
            RoutingKind::Dor,
            1,
        )
        .unwrap();
        n.audit = net.audit.take();
        n
    };
    let done = run(&mut net, &[(0, 0, 2, 5), (0, 1, 2, 5)]).unwrap();
    let alone = 3 * (F + L) + 2 * R + 4 * F;
    let mut t: Vec<Ps> = done.iter().map(|d| d.delivered).collect();
    t.sort();
    assert_eq!(t[0], alone);
    // The second follows five flit times behind on the shared link.
    assert_eq!(t[1], alone + 5 * F);
}

/// A ring with dimension order but no dateline deadlocks under a rotation; the detector
/// stops with the cycle of routers and ports, and datelines make the same traffic drain.
#[test]
fn deadlock_is_detected_and_datelines_prevent_it() {
    let cube = Cube::new(TopologyKind::Ring, vec![4], true, false);
    let mut p = params(Switching::Wormhole, 8, 2);
    p.vcs = 1;
    let g = Graph::new(&cube, &[0, 1, 2, 3]);
    let routing = Box::new(Dor::without_dateline(cube.clone(), 1));
    let mut net = Network::with_routing(Box::new(cube.clone()), g, p.clone(), routing, 1);
    let msgs: Vec<_> = (0..4).map(|i| (0, i, (i + 2) % 4, 8)).collect();
    let e = run(&mut net, &msgs).unwrap_err().to_string();
    assert!(e.contains("wait-for cycle"), "{e}");
    for r in 0..4 {
        assert!(e.contains(&format!("router {r} ")), "{e}");
    }
    p.vcs = 2;
    let mut net = Network::new(Box::new(cube), &[0, 1, 2, 3], p, RoutingKind::Dor, 1).unwrap();
    net.audit = Some(Default::default());
    assert_eq!(run(&mut net, &msgs).unwrap().len(), 4);
}

/// The stall watchdog: a deadlock with other events still running (an endpoint keeps
/// sending) is caught once no flit has moved for `stall_limit`.
#[test]
fn stall_watchdog_fires_while_events_continue() {
    let cube = Cube::new(TopologyKind::Ring, vec![4], true, false);
    let mut p = params(Switching::Wormhole, 8, 2);
    p.vcs = 1;
    p.stall_limit = 1_000_000;
    let g = Graph::new(&cube, &[0, 1, 2, 3, 0]);
    let routing = Box::new(Dor::without_dateline(cube.clone(), 1));
    let mut net = Network::with_routing(Box::new(cube), g, p, routing, 1);
    let mut msgs: Vec<_> = (0..4).map(|i| (0, i, (i + 2) % 4, 8)).collect();
    // Endpoint 4 keeps sending to itself (its own router), every 100 ns.
    msgs.extend((1..100).map(|k| (k * 100_000, 4, 4, 1)));
    let e = run(&mut net, &msgs).unwrap_err().to_string();
    assert!(e.contains("stuck") && e.contains("wait-for cycle"), "{e}");
}

/// Venice's scouts run on the engine's queue under an SSD back end
/// (`crate::interconnect::net::NetSsd`), not on this network's: building one for
/// `routing = venice` names the key and says where they run.
#[test]
fn the_network_leaves_venice_scouts_to_the_ssd_back_end() {
    let mut cfg = SsdConfig::default();
    cfg.network.routing = RoutingKind::Venice;
    cfg.network.switching = Switching::Circuit;
    cfg.validate().unwrap();
    let e = Network::from_config(&cfg, 1)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("network.routing") && e.contains("--arch net or venice"),
        "{e}"
    );
}

/// The documented example in the module docs, on the default drive.
#[test]
fn default_network_carries_a_page_over_fourteen_hops() {
    let cfg = SsdConfig::default();
    let mut net = Network::from_config(&cfg, 1).unwrap();
    let fc0 = net.chips();
    net.send(0, fc0, 63, 4096, 7);
    let mut done = Vec::new();
    while let Some(t) = net.next_event_time() {
        net.advance(t, &mut done).unwrap();
    }
    let p = net.params().clone();
    // 64 flits of 64 B on 1-byte links: f = 64 ns.
    assert_eq!(p.flit_time, 64_000);
    let want = 16 * (p.flit_time + p.link_latency) + 15 * p.router_delay + 63 * p.flit_time;
    assert_eq!((done[0].hops, done[0].delivered), (14, want));
}

/// A random drive's network: topology, size, routing function (among those provided),
/// switching, VCs, buffers and packet size.
fn arb_config() -> impl Strategy<Value = SsdConfig> {
    (
        0..TopologyKind::ALL.len(),
        0..RoutingKind::ALL.len(),
        0..4usize,
        (1u32..4, 1u32..5),
        (0u32..3, 1u32..7, 1u32..6),
        (any::<bool>(), 0u32..4, any::<bool>()),
    )
        .prop_filter_map(
            "a provided combination",
            |(t, r, sw, (ch, cpc), (extra_vcs, packet, buf), (spread, fcs, input_queued))| {
                let mut c = SsdConfig::default();
                c.flash.channels = ch;
                c.flash.chips_per_channel = cpc;
                let n = &mut c.network;
                n.topology = TopologyKind::ALL[t];
                n.routing = RoutingKind::ALL[r];
                if !n.routing.routes_packets() {
                    return None;
                }
                n.switching = Switching::ALL[sw];
                if n.topology == TopologyKind::Custom {
                    return None;
                }
                n.controllers = fcs.min(ch);
                if spread {
                    n.controller_attach = crate::config::ControllerAttach::Spread;
                }
                n.flit_bytes = 8;
                n.link_width_bytes = 8;
                n.packet_flits = packet;
                let ndims = match c.network_shape().ok()? {
                    crate::config::network::Shape::Cube { sizes, .. } => sizes.len() as u32,
                    _ => 0,
                };
                let plan =
                    crate::config::network::vc_plan(c.network.topology, c.network.routing, ndims)
                        .ok()?;
                let n = &mut c.network;
                n.vcs = plan.min_vcs() + extra_vcs;
                let per_vc = if matches!(n.switching, Switching::Vct | Switching::Saf) {
                    packet + buf - 1
                } else {
                    buf
                };
                n.input_buffer_bytes = per_vc * n.vcs * 8;
                n.output_buffer_bytes = if input_queued { 0 } else { per_vc * n.vcs * 8 };
                c.validate().ok()?;
                Some(c)
            },
        )
}

/// A random connected custom topology file, and the temporary directory holding it (the
/// file is read when a network is built from the config, and removed with the directory).
fn custom_config(routers: u32, extra: &[(u32, u32)], sw: usize) -> (tempfile::TempDir, SsdConfig) {
    let mut links: Vec<[u32; 2]> = (1..routers).map(|r| [r / 2, r]).collect();
    links.extend(
        extra
            .iter()
            .map(|&(a, b)| [a % routers, b % routers])
            .filter(|l| l[0] != l[1]),
    );
    let text = format!(
        "routers = {routers}\nlinks = {:?}\ncontrollers = [{}]\n",
        links,
        routers - 1
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.toml");
    std::fs::write(&path, text).unwrap();
    let mut c = SsdConfig::default();
    c.flash.channels = 1;
    c.flash.chips_per_channel = routers;
    let n = &mut c.network;
    n.topology = TopologyKind::Custom;
    n.routing = RoutingKind::Table;
    n.switching = Switching::ALL[sw];
    n.controllers = 1;
    n.flit_bytes = 8;
    n.link_width_bytes = 8;
    n.packet_flits = 3;
    n.vcs = 1;
    n.input_buffer_bytes = 8 * 4;
    n.output_buffer_bytes = 8 * 4;
    n.custom_topology = path.display().to_string();
    c.validate().unwrap();
    (dir, c)
}

/// Every message delivered exactly once, every buffer within capacity at every instant (an
/// independent sweep over every flit's entry and exit), credits conserved after every event,
/// and the network empty (all credits home, no VC owned) once injection stops.
fn check_invariants(
    cfg: &SsdConfig,
    msgs: &[(u64, u32, u32, u32)],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut net = Network::from_config(cfg, seed).unwrap();
    net.audit = Some(Default::default());
    let eps = net.endpoints();
    let cycle = net.params().flit_time;
    let msgs: Vec<(Ps, u32, u32, u32)> = msgs
        .iter()
        .map(|&(t, s, d, f)| (t * cycle, s % eps, d % eps, f))
        .collect();
    let done = run(&mut net, &msgs).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let mut seen = vec![0u32; msgs.len()];
    for d in &done {
        seen[d.tag as usize] += 1;
        let m = msgs[d.tag as usize];
        prop_assert_eq!((d.src, d.dst, d.flits), (m.1, m.2, m.3));
        prop_assert!(d.delivered >= d.sent);
    }
    prop_assert!(seen.iter().all(|&s| s == 1), "{:?}", seen);
    prop_assert_eq!(net.in_flight(), 0);
    net.audit_check().map_err(TestCaseError::fail)?;
    let fab = &net.fab;
    for b in fab.inb.iter().chain(&fab.outb) {
        prop_assert!(b.avail.is_empty() && b.pkts.is_empty() && b.credit.total() == b.cap);
    }
    prop_assert!(fab.owner.iter().chain(&fab.route).all(|&o| o == NONE));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Random topologies, sizes, routing functions, switching modes, VCs and buffers under
    /// random traffic: some spread over time, some all at once (far beyond 2x saturation).
    #[test]
    fn random_networks_deliver_everything_within_capacity(
        cfg in arb_config(),
        msgs in prop::collection::vec((0u64..400, any::<u32>(), any::<u32>(), 1u32..12), 1..80),
        burst in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let msgs: Vec<_> = msgs.iter().map(|&(t, s, d, f)| (if burst { t % 8 } else { t }, s, d, f)).collect();
        check_invariants(&cfg, &msgs, seed)?;
    }

    /// Custom topologies (random trees plus random extra links) with up*/down* tables.
    #[test]
    fn custom_topologies_deliver_everything(
        routers in 2u32..10,
        extra in prop::collection::vec((0u32..10, 0u32..10), 0..6),
        sw in 0usize..4,
        msgs in prop::collection::vec((0u64..50, any::<u32>(), any::<u32>(), 1u32..8), 1..60),
        seed in any::<u64>(),
    ) {
        let (_dir, cfg) = custom_config(routers, &extra, sw);
        check_invariants(&cfg, &msgs, seed)?;
    }
}

/// Every provided topology × routing × switching combination, each at its saturation and at
/// 2x: a sustained Bernoulli load of 1 flit per endpoint per cycle for a while, then the
/// network must drain with every invariant held.
#[test]
fn every_combination_drains_after_overload() {
    let mut n = 0;
    for &t in TopologyKind::ALL {
        for &r in RoutingKind::ALL {
            for &sw in Switching::ALL {
                if t == TopologyKind::Custom || !r.routes_packets() {
                    continue;
                }
                let mut c = SsdConfig::default();
                c.flash.channels = 4;
                c.flash.chips_per_channel = 4;
                let k = &mut c.network;
                (k.topology, k.routing, k.switching) = (t, r, sw);
                k.flit_bytes = 8;
                k.link_width_bytes = 8;
                k.packet_flits = 4;
                k.vcs = 4;
                k.input_buffer_bytes = 4 * 8 * 6;
                // Every other combination on the input-queued router.
                k.output_buffer_bytes = if n % 2 == 1 { 0 } else { 4 * 8 * 6 };
                if c.validate().is_err() {
                    continue;
                }
                n += 1;
                // 300 cycles of every endpoint sending a 4-flit packet every 2 cycles.
                let eps = c.network_chips() + c.mesh_controllers();
                let msgs: Vec<_> = (0..150u64)
                    .flat_map(|k| {
                        (0..eps)
                            .map(move |e| (2 * k, e, e.wrapping_mul(7).wrapping_add(k as u32), 4))
                    })
                    .collect();
                check_invariants(&c, &msgs, n).unwrap_or_else(|e| panic!("{t} {r} {sw}: {e}"));
            }
        }
    }
    assert!(n >= 60, "{n} combinations");
}

#[test]
fn topology_sizes_hold_every_chip_and_attach_controllers() {
    for &t in TopologyKind::ALL {
        if t == TopologyKind::Custom {
            continue;
        }
        let mut c = SsdConfig::default();
        c.network.topology = t;
        c.network.routing = if t == TopologyKind::Dragonfly {
            RoutingKind::Ugal
        } else {
            RoutingKind::Dor
        };
        c.network.vcs = 3;
        let topo = topology::build(&c).unwrap();
        let eps = topology::endpoint_routers(topo.as_ref(), &c);
        assert!(eps.iter().all(|&r| r < topo.routers()), "{t}");
        // Chips on distinct routers wherever there are enough routers (not the crossbar, nor
        // the dragonfly's p endpoints per router).
        if !matches!(t, TopologyKind::Crossbar | TopologyKind::Dragonfly) {
            let mut chips = eps[..64].to_vec();
            chips.dedup();
            assert_eq!(chips.len(), 64, "{t}");
        }
    }
}

/// `Network::zero_load` is what a lone message takes, one packet or several sent back to back
/// (the SSD back end calls a transfer conflicted when it takes longer).
#[test]
fn zero_load_of_a_lone_message_of_several_packets() {
    for sw in [
        Switching::Wormhole,
        Switching::Vct,
        Switching::Saf,
        Switching::Circuit,
    ] {
        for hops in [0u32, 1, 4] {
            for flits in [1u32, 4, 5, 11] {
                // Packets of at most 4 flits: 1, 1, 2 and 3 packets.
                for out in [8, 0] {
                    let mut net = line(
                        hops,
                        NetParams {
                            out_vc_flits: out,
                            ..params(sw, 4, 8)
                        },
                    );
                    let done = run(&mut net, &[(0, 0, 1, flits)]).unwrap();
                    assert_eq!(
                        done[0].delivered - done[0].sent,
                        net.zero_load(hops, flits),
                        "{sw:?} H={hops} flits={flits} output buffer {out}"
                    );
                }
            }
        }
    }
}

/// An input-queued one-VC mesh (NoSSD's router) of random size, switching, packet and buffer
/// sizes and controllers, with dimension-order routing.
fn arb_one_vc_mesh() -> impl Strategy<Value = SsdConfig> {
    (
        (2u32..5, 1u32..6),
        0..3usize,
        (1u32..7, 1u32..6),
        (0u32..3, any::<bool>()),
    )
        .prop_filter_map(
            "a valid network",
            |((ch, cpc), sw, (packet, buf), (fcs, spread))| {
                let mut c = SsdConfig::default();
                c.flash.channels = ch;
                c.flash.chips_per_channel = cpc;
                let n = &mut c.network;
                n.topology = TopologyKind::Mesh;
                n.routing = RoutingKind::Dor;
                n.switching = [Switching::Vct, Switching::Wormhole, Switching::Saf][sw];
                n.controllers = fcs.min(ch);
                if spread {
                    n.controller_attach = crate::config::ControllerAttach::Spread;
                }
                n.vcs = 1;
                n.flit_bytes = 8;
                n.link_width_bytes = 8;
                n.packet_flits = packet;
                let per_vc = if n.switching == Switching::Wormhole {
                    buf
                } else {
                    packet + buf - 1
                };
                n.input_buffer_bytes = per_vc * 8;
                n.output_buffer_bytes = 0;
                c.validate().ok()?;
                Some(c)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The express paths (a task served directly where it would be served next; an idle
    /// link's whole-packet burst in one step; the one port of a fixed routing taken without
    /// a candidate list) change nothing: the same deliveries at the same times, the same
    /// link busy times and the same number of events as serving every task from the queue,
    /// every burst through the general plan and transfer and every allocation through the
    /// candidate list, under random and bursty loads (where links are busy, packets wait
    /// and buffers fill).
    #[test]
    fn express_paths_change_nothing(
        cfg in arb_one_vc_mesh(),
        msgs in prop::collection::vec((0u64..300, any::<u32>(), any::<u32>(), 1u32..14), 1..90),
        burst in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let outcome = |express: bool| {
            let mut net = Network::from_config(&cfg, seed).unwrap();
            net.express = express;
            if !express {
                prop_assert!(net.fixed_route, "one VC and dimension order: a fixed routing");
                net.fixed_route = false;
            }
            let eps = net.endpoints();
            let cycle = net.params().flit_time;
            let msgs: Vec<(Ps, u32, u32, u32)> = msgs
                .iter()
                .map(|&(t, s, d, f)| ((if burst { t % 6 } else { t }) * cycle, s % eps, d % eps, f))
                .collect();
            let done = run(&mut net, &msgs).unwrap();
            Ok((done, net.stats.port_busy.clone(), net.stats.packets_delivered, net.events()))
        };
        let (fast, slow) = (outcome(true)?, outcome(false)?);
        prop_assert_eq!(fast.0.len(), msgs.len());
        prop_assert_eq!(fast, slow);
    }
}
