//! Topologies: a topology knows only its routers, their router-to-router ports, the links
//! between them, coordinates, and where flash chips and controllers attach by default. It
//! does not route (that is [`super::routing`]) and holds no state (that is [`super::router`]).
//!
//! | `network.topology` | type | sized from N chips |
//! |---|---|---|
//! | line, ring, mesh, torus, mesh3d, hypercube | [`cube::Cube`] | N; rows × cols; ⌈∛N⌉²×…; 2^⌈log₂N⌉ |
//! | dragonfly | [`dragonfly::Dragonfly`] | smallest balanced a = 2p, h = p with a·p·(a·h+1) ≥ N |
//! | crossbar | [`crossbar::Crossbar`] | one router, N + controllers ports |
//! | custom | [`custom::Custom`] | the file |
//!
//! The network turns a topology into a flat [`Graph`]: global port ids, far ends, link ids and
//! an endpoint port per attached chip or controller (endpoint ports follow the network ports).
//! [`mesh2d::Mesh`] is a 2D mesh's view by four named ports (Venice's scouts route on it).

pub mod crossbar;
pub mod cube;
pub mod custom;
pub mod dragonfly;
pub mod mesh2d;

use crate::config::network::Shape;
use crate::config::{ConfigError, ControllerAttach, SsdConfig, TopologyKind};
use crate::engine::NONE;

/// A network topology: routers and their router-to-router ports.
pub trait Topology: std::fmt::Debug + Send + Sync {
    fn kind(&self) -> TopologyKind;
    fn routers(&self) -> u32;
    /// Router-to-router ports of router `r` (some may be unconnected, as on a mesh edge, so
    /// that a port number means the same direction on every router).
    fn network_ports(&self, r: u32) -> u32;
    /// The router and port at the far end of `(r, port)`, if the port is connected.
    fn neighbor(&self, r: u32, port: u32) -> Option<(u32, u32)>;
    /// Router of flash chip `c` when nothing else is said.
    fn chip_router(&self, c: u32) -> u32 {
        c % self.routers()
    }
    /// Router of controller `i` of `n` on the topology's west edge, if it has one.
    fn edge_router(&self, _i: u32, _n: u32) -> Option<u32> {
        None
    }
    /// Router of controller `i` of `n` under `mode`.
    fn controller_router(&self, i: u32, n: u32, mode: ControllerAttach) -> u32 {
        let spread = (i as u64 * self.routers() as u64 / n.max(1) as u64) as u32;
        match mode {
            ControllerAttach::Edge => self.edge_router(i, n).unwrap_or(spread),
            ControllerAttach::Spread => spread,
        }
    }
    /// A router's name for messages, with its coordinates where the topology has them.
    fn describe(&self, r: u32) -> String {
        format!("router {r}")
    }
    fn as_cube(&self) -> Option<&cube::Cube> {
        None
    }
    fn as_dragonfly(&self) -> Option<&dragonfly::Dragonfly> {
        None
    }
}

/// The topology of a drive's `[network]` section.
pub fn build(cfg: &SsdConfig) -> Result<Box<dyn Topology>, ConfigError> {
    let kind = cfg.network.topology;
    Ok(match cfg.network_shape()? {
        Shape::Cube {
            sizes,
            wrap,
            binary,
        } => Box::new(cube::Cube::new(kind, sizes, wrap, binary)),
        Shape::Dragonfly { a, h, p } => Box::new(dragonfly::Dragonfly::new(a, h, p)),
        Shape::Crossbar => Box::new(crossbar::Crossbar),
        Shape::Custom(c) => Box::new(custom::Custom::new(c)),
    })
}

/// A topology flattened for the router model: every port of every router has a global id
/// (`port_base[r] + local port`), and endpoint ports follow each router's network ports.
#[derive(Clone, Debug)]
pub struct Graph {
    pub routers: u32,
    port_base: Vec<u32>,
    net_ports: Vec<u32>,
    port_router: Vec<u32>,
    /// Far end of each global output port: the global input port it feeds (NONE if the
    /// port is unconnected or an endpoint port).
    far: Vec<u32>,
    /// Endpoint on each global port, or NONE.
    endpoint: Vec<u32>,
    /// Undirected link id of each connected network port (both ends share it), or NONE.
    link: Vec<u32>,
    pub links: u32,
    /// Global port of each endpoint.
    ep_port: Vec<u32>,
}

impl Graph {
    /// Flatten `topo`, attaching endpoint `e` to router `endpoint_router[e]`.
    pub fn new(topo: &dyn Topology, endpoint_router: &[u32]) -> Self {
        let routers = topo.routers();
        let mut eps_at = vec![0u32; routers as usize];
        for &r in endpoint_router {
            eps_at[r as usize] += 1;
        }
        let net_ports: Vec<u32> = (0..routers).map(|r| topo.network_ports(r)).collect();
        let mut port_base = Vec::with_capacity(routers as usize + 1);
        let mut total = 0u32;
        for r in 0..routers as usize {
            port_base.push(total);
            total += net_ports[r] + eps_at[r];
        }
        port_base.push(total);
        let mut g = Graph {
            routers,
            port_router: (0..routers)
                .flat_map(|r| {
                    std::iter::repeat_n(
                        r,
                        (port_base[r as usize + 1] - port_base[r as usize]) as usize,
                    )
                })
                .collect(),
            far: vec![NONE; total as usize],
            endpoint: vec![NONE; total as usize],
            link: vec![NONE; total as usize],
            links: 0,
            ep_port: Vec::with_capacity(endpoint_router.len()),
            port_base,
            net_ports,
        };
        for r in 0..routers {
            for p in 0..g.net_ports[r as usize] {
                if let Some((n, q)) = topo.neighbor(r, p) {
                    let (a, b) = (g.port(r, p), g.port(n, q));
                    g.far[a as usize] = b;
                    if g.link[a as usize] == NONE {
                        g.link[a as usize] = g.links;
                        g.link[b as usize] = g.links;
                        g.links += 1;
                    }
                }
            }
        }
        let mut next = vec![0u32; routers as usize];
        for (e, &r) in endpoint_router.iter().enumerate() {
            let gp = g.port(r, g.net_ports[r as usize] + next[r as usize]);
            next[r as usize] += 1;
            g.endpoint[gp as usize] = e as u32;
            g.ep_port.push(gp);
        }
        g
    }

    /// Global id of local port `p` of router `r`.
    #[inline]
    pub fn port(&self, r: u32, p: u32) -> u32 {
        self.port_base[r as usize] + p
    }
    /// Every port of router `r`, network ports first.
    #[inline]
    pub fn ports(&self, r: u32) -> std::ops::Range<u32> {
        self.port_base[r as usize]..self.port_base[r as usize + 1]
    }
    pub fn total_ports(&self) -> u32 {
        *self.port_base.last().unwrap()
    }
    #[inline]
    pub fn router_of(&self, gp: u32) -> u32 {
        self.port_router[gp as usize]
    }
    #[inline]
    pub fn local(&self, gp: u32) -> u32 {
        gp - self.port_base[self.port_router[gp as usize] as usize]
    }
    /// The global input port fed by output port `gp` (NONE: unconnected or endpoint).
    #[inline]
    pub fn far(&self, gp: u32) -> u32 {
        self.far[gp as usize]
    }
    /// The endpoint on port `gp`, or NONE.
    #[inline]
    pub fn endpoint(&self, gp: u32) -> u32 {
        self.endpoint[gp as usize]
    }
    #[inline]
    pub fn link(&self, gp: u32) -> u32 {
        self.link[gp as usize]
    }
    pub fn endpoints(&self) -> u32 {
        self.ep_port.len() as u32
    }
    /// Global port of endpoint `e`.
    #[inline]
    pub fn ep_port(&self, e: u32) -> u32 {
        self.ep_port[e as usize]
    }
    #[inline]
    pub fn ep_router(&self, e: u32) -> u32 {
        self.router_of(self.ep_port[e as usize])
    }
    pub fn net_ports(&self, r: u32) -> u32 {
        self.net_ports[r as usize]
    }

    /// Router-to-router hops of a shortest path from every router to `dst` (BFS).
    pub fn distances_to(&self, dst: u32) -> Vec<u32> {
        let mut d = vec![NONE; self.routers as usize];
        let mut queue = std::collections::VecDeque::from([dst]);
        d[dst as usize] = 0;
        while let Some(r) = queue.pop_front() {
            for gp in self.ports(r) {
                let f = self.far(gp);
                if f != NONE {
                    let n = self.router_of(f);
                    if d[n as usize] == NONE {
                        d[n as usize] = d[r as usize] + 1;
                        queue.push_back(n);
                    }
                }
            }
        }
        d
    }
}

/// Where the flash chips and controllers of a drive attach: endpoints `0..chips` are the
/// chips, `chips..chips + controllers` the controllers.
pub fn endpoint_routers(topo: &dyn Topology, cfg: &SsdConfig) -> Vec<u32> {
    let chips = cfg.network_chips();
    let fcs = cfg.mesh_controllers();
    (0..chips)
        .map(|c| topo.chip_router(c))
        .chain((0..fcs).map(|i| topo.controller_router(i, fcs, cfg.network.controller_attach)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every topology: links are symmetric (the far end of the far end is the port itself),
    /// ids are shared by both ends and unique, and every router is reachable.
    #[test]
    fn every_topology_is_a_symmetric_connected_graph() {
        for t in TopologyKind::ALL {
            if *t == TopologyKind::Custom {
                continue;
            }
            let mut cfg = SsdConfig::default();
            cfg.network.topology = *t;
            if *t == TopologyKind::Dragonfly {
                cfg.network.routing = crate::config::RoutingKind::Ugal;
                cfg.network.vcs = 3;
            }
            cfg.validate().unwrap();
            let topo = build(&cfg).unwrap();
            let g = Graph::new(topo.as_ref(), &endpoint_routers(topo.as_ref(), &cfg));
            assert_eq!(g.endpoints(), 64 + 8, "{t}");
            let mut seen = vec![0; g.links as usize];
            for gp in 0..g.total_ports() {
                let f = g.far(gp);
                if f != NONE {
                    assert_eq!(g.far(f), gp, "{t}: port {gp}");
                    assert_eq!(g.link(f), g.link(gp));
                    seen[g.link(gp) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 2), "{t}");
            assert!(
                g.distances_to(0).iter().all(|&d| d != NONE),
                "{t} connected"
            );
        }
    }

    #[test]
    fn controllers_attach_on_the_west_edge_or_spread() {
        let mut cfg = SsdConfig::default();
        let topo = build(&cfg).unwrap();
        let at = endpoint_routers(topo.as_ref(), &cfg);
        // Chips on their own router; FC i on the first router of row i (Venice Fig. 5).
        assert_eq!(&at[..3], &[0, 1, 2]);
        assert_eq!(&at[64..], &[0, 8, 16, 24, 32, 40, 48, 56]);
        cfg.network.controller_attach = ControllerAttach::Spread;
        cfg.network.controllers = 4;
        let at = endpoint_routers(topo.as_ref(), &cfg);
        assert_eq!(&at[64..], &[0, 16, 32, 48]);
    }
}
