//! Routing functions: given a router and a packet's routing state, the candidate output ports
//! and the virtual channels (VCs) the packet may take on each. A routing function only picks
//! ports and VCs; it never sees buffers, except through [`LoadView`] (UGAL's queue lengths).
//! Which candidate and VC a packet gets is the router's VC allocation ([`super::router`]):
//! the free VC with the most credits, lower `pri` first.
//!
//! | `network.routing` | file | deadlock freedom |
//! |---|---|---|
//! | dor | [`dor`] | dimension order; dateline VC classes on wrap-around links |
//! | minimal-adaptive | [`adaptive`], [`dragonfly`] | one virtual network per direction of all but the last dimension; dragonfly: VC class = global hops |
//! | duato | [`duato`] | escape VCs routed by dor (Duato's theory), adaptive VCs on any minimal port |
//! | valiant, ugal | [`dragonfly`] | VC class = global hops taken (0, 1, 2) |
//! | table | [`table`] | up*/down* (Autonet): never a down link then an up link |
//! | venice | [`venice`] | Venice's Algorithm 1 (2D mesh, circuits only): a scout holds whole links and never waits while holding them (§4.2) |
//!
//! VC classes come from [`crate::config::network::vc_plan`], the table the configuration is
//! checked against: class `c` of `C` is every VC `v` with `v % C == c`.

pub mod adaptive;
pub mod dor;
pub mod dragonfly;
pub mod duato;
pub mod table;
pub mod venice;

use super::topology::{Graph, Topology};
use crate::config::network::vc_plan;
use crate::config::{RoutingKind, TopologyKind};
use crate::engine::NONE;

/// What a packet carries for routing (a few bytes in the packet's header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteState {
    /// Destination router.
    pub dest: u32,
    /// Valiant's intermediate dragonfly group, or NONE.
    pub inter: u32,
    /// Function-specific: Valiant 0 = to the intermediate group, 1 = to the destination,
    /// 2 = UGAL not yet decided; up*/down* 0 = may still go up, 1 = down only.
    pub phase: u8,
    /// Dragonfly global links taken so far (its VC class).
    pub globals: u8,
}

/// One way out of a router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Local output port (a network port of the router).
    pub port: u32,
    /// VCs the packet may take on it (bit v = VC v).
    pub vcs: u64,
    /// Preference: lower first (Duato: 0 adaptive, 1 escape).
    pub pri: u8,
    /// Only an empty VC: one whose output buffer and the input buffer it feeds hold no other
    /// packet (Duato's adaptive VCs; elsewhere VCs are FIFOs packets may share).
    pub atomic: bool,
    /// The packet's routing state after this hop.
    pub next: RouteState,
}

impl Candidate {
    /// A FIFO hop of preference 0: what every routing but Duato's offers.
    #[inline]
    pub fn hop(port: u32, vcs: u64, next: RouteState) -> Self {
        Self {
            port,
            vcs,
            pri: 0,
            atomic: false,
            next,
        }
    }
}

/// Router state a routing function may look at.
pub trait LoadView {
    /// Flits queued for output port `port` of router `r` (its output buffers and the
    /// downstream input buffers they feed).
    fn port_load(&self, r: u32, port: u32) -> u32;
}

/// A routing function.
pub trait Routing: Send + Sync {
    fn name(&self) -> &'static str;
    /// Routing state of a packet entering the network at router `src` for router `dest`;
    /// `rand` is a fresh random number (Valiant's intermediate group).
    fn init(&self, src: u32, dest: u32, rand: u32) -> RouteState {
        let _ = (src, rand);
        RouteState {
            dest,
            inter: NONE,
            phase: 0,
            globals: 0,
        }
    }
    /// Candidates at router `r` (never the destination router: the router ejects there).
    fn route(&self, r: u32, st: &RouteState, view: &dyn LoadView, out: &mut Vec<Candidate>);
    /// Whether [`Self::route`] always gives at most one candidate, on every VC, with the
    /// routing state unchanged (dimension order without dateline classes): the router then
    /// asks [`Self::fixed_port`] instead, with no candidate list to build and score.
    fn is_fixed(&self) -> bool {
        false
    }
    /// For a routing that [`Self::is_fixed`]: the port of `route`'s one candidate at `r`, or
    /// `None` where it gives none.
    fn fixed_port(&self, r: u32, st: &RouteState) -> Option<u32> {
        let _ = (r, st);
        None
    }
}

/// VCs of class `c` of `classes`: every `v < vcs` with `v % classes == c`.
pub fn class_mask(vcs: u32, classes: u32, c: u32) -> u64 {
    (0..vcs)
        .filter(|v| v % classes == c)
        .fold(0, |m, v| m | 1 << v)
}

/// Every VC.
pub fn all_vcs(vcs: u32) -> u64 {
    if vcs >= 64 {
        u64::MAX
    } else {
        (1 << vcs) - 1
    }
}

/// The routing function for `kind` on `topo`, with `vcs` virtual channels per port.
pub fn build(
    kind: RoutingKind,
    topo: &dyn Topology,
    graph: &Graph,
    vcs: u32,
) -> Result<Box<dyn Routing>, String> {
    let ndims = topo.as_cube().map_or(0, |c| c.ndims());
    let plan = vc_plan(topo.kind(), kind, ndims)?;
    let vcs = vcs.max(plan.min_vcs());
    if topo.kind() == TopologyKind::Crossbar {
        // One router: every packet is ejected where it enters; no routing decision is made.
        return Ok(Box::new(table::UpDown::new(graph, vcs)));
    }
    Ok(match kind {
        RoutingKind::Venice => Box::new(venice::Venice::new(cube(topo)?, vcs)?),
        RoutingKind::Table => Box::new(table::UpDown::new(graph, vcs)),
        RoutingKind::Dor => Box::new(dor::Dor::new(cube(topo)?, vcs, plan.classes)),
        RoutingKind::Duato => Box::new(duato::Duato::new(cube(topo)?, vcs, plan.classes)),
        RoutingKind::MinimalAdaptive => match topo.as_dragonfly() {
            Some(d) => Box::new(dragonfly::DragonflyRouting::new(
                *d,
                dragonfly::Mode::Minimal,
                vcs,
                plan.classes,
            )),
            None => Box::new(adaptive::MinimalAdaptive::new(
                cube(topo)?,
                vcs,
                plan.classes,
            )),
        },
        RoutingKind::Valiant | RoutingKind::Ugal => {
            let d = *topo.as_dragonfly().ok_or("needs a dragonfly")?;
            let mode = if kind == RoutingKind::Valiant {
                dragonfly::Mode::Valiant
            } else {
                dragonfly::Mode::Ugal
            };
            Box::new(dragonfly::DragonflyRouting::new(d, mode, vcs, plan.classes))
        }
    })
}

fn cube(topo: &dyn Topology) -> Result<super::topology::cube::Cube, String> {
    topo.as_cube()
        .cloned()
        .ok_or_else(|| format!("needs coordinates, which {} has not", topo.kind()))
}

/// No load anywhere (for tests and the circuit set-up).
pub struct NoLoad;
impl LoadView for NoLoad {
    fn port_load(&self, _r: u32, _port: u32) -> u32 {
        0
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;
    use crate::config::SsdConfig;

    /// Follow the first candidate from `src` to `dst`; the ports taken.
    pub fn walk(
        routing: &dyn Routing,
        topo: &dyn Topology,
        src: u32,
        dst: u32,
        rand: u32,
    ) -> Vec<(u32, u32)> {
        let mut st = routing.init(src, dst, rand);
        let mut r = src;
        let mut path = Vec::new();
        let mut out = Vec::new();
        while r != dst {
            out.clear();
            routing.route(r, &st, &NoLoad, &mut out);
            let c = *out.first().expect("a candidate");
            assert_ne!(c.vcs, 0, "no VC at router {r}");
            path.push((r, c.port));
            r = topo.neighbor(r, c.port).expect("a connected port").0;
            st = c.next;
            assert!(path.len() < 10_000, "no progress");
        }
        path
    }

    pub fn cfg(t: TopologyKind, rt: RoutingKind, vcs: u32) -> SsdConfig {
        let mut c = SsdConfig::default();
        c.network.topology = t;
        c.network.routing = rt;
        c.network.vcs = vcs;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::interconnect::network::topology;

    #[test]
    fn class_masks_partition_the_vcs() {
        assert_eq!(class_mask(4, 2, 0), 0b0101);
        assert_eq!(class_mask(4, 2, 1), 0b1010);
        assert_eq!(class_mask(3, 3, 2), 0b100);
        assert_eq!(all_vcs(64), u64::MAX);
    }

    /// Every provided pair reaches every destination from every source, only over
    /// connected ports, with a VC on each hop, and minimal functions take shortest paths
    /// (Venice's first candidate is a minimal port, so its walk is a shortest path too).
    #[test]
    fn every_provided_function_reaches_every_router() {
        for &t in TopologyKind::ALL {
            for &rt in RoutingKind::ALL {
                if t == TopologyKind::Custom {
                    continue;
                }
                let mut c = cfg(t, rt, 8);
                if rt == RoutingKind::Venice {
                    c.network.switching = crate::config::Switching::Circuit;
                }
                if c.validate().is_err() {
                    continue;
                }
                let topo = topology::build(&c).unwrap();
                let g = Graph::new(topo.as_ref(), &[]);
                let routing = build(rt, topo.as_ref(), &g, 8).unwrap();
                let n = topo.routers();
                for dst in (0..n).step_by(5) {
                    let dist = g.distances_to(dst);
                    for src in (0..n).step_by(3) {
                        let path = walk(routing.as_ref(), topo.as_ref(), src, dst, src ^ dst);
                        let len = path.len() as u32;
                        match (t, rt) {
                            (_, RoutingKind::Table) => assert!(len >= dist[src as usize]),
                            // local, global, local: not always a shortest path of the graph
                            (TopologyKind::Dragonfly, RoutingKind::MinimalAdaptive) => {
                                assert!(len <= 3, "{t} {rt} {src}->{dst}")
                            }
                            (TopologyKind::Dragonfly, _) => assert!(len <= 6),
                            _ => assert_eq!(len, dist[src as usize], "{t} {rt} {src}->{dst}"),
                        }
                    }
                }
            }
        }
    }
}
