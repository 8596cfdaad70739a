use super::traffic::*;
use crate::config::*;

#[test]
fn scratch_sweep() {
    for (t, r, pat) in [(TopologyKind::Torus, RoutingKind::Dor, Pattern::Uniform), (TopologyKind::Mesh, RoutingKind::Dor, Pattern::Transpose), (TopologyKind::Mesh, RoutingKind::Duato, Pattern::Transpose), (TopologyKind::Mesh, RoutingKind::MinimalAdaptive, Pattern::Transpose), (TopologyKind::Torus, RoutingKind::Duato, Pattern::Uniform)] {
    let mut cfg = SsdConfig::default();
    cfg.network.topology = t;
    cfg.network.routing = r;
    cfg.network.flit_bytes = 16;
    cfg.network.link_width_bytes = 16;
    cfg.network.packet_flits = 4;
    cfg.network.vcs = 4;
    cfg.network.input_buffer_bytes = 16 * 8 * 4;
    cfg.network.output_buffer_bytes = 16 * 8 * 4;
    let w = Windows { warmup_cycles: 2_000, sample_cycles: 8_000, drain_cycles: 8_000 };
    for load in [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0] {
        let t0 = std::time::Instant::now();
        let p = run_point(&cfg, pat, load, w, 3).unwrap();
        eprintln!("{t} {r} {pat} {load}: acc {:.3} gen {:.3} lat {:.1} p99 {:.0} hops {:.2} sat {} ev {} {:?}", p.accepted_load, p.generated_load, p.latency_cycles.mean, p.latency_cycles.p99, p.hops_mean, p.saturated, p.events, t0.elapsed());
    }
    }
}
