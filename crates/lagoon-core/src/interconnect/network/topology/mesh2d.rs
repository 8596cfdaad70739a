//! A 2D mesh of the layer seen by its four named ports, the view Venice's scouts
//! ([`crate::interconnect::network::switching::scout`]) route on: the layer builds the
//! topology ([`super::cube`]), numbers its links and attaches chips and controllers
//! (`network.controller_attach`); this view names a router's four mesh ports the way Venice's
//! Algorithm 1 ([`crate::interconnect::network::routing::venice`]) does and keeps them in flat
//! tables, since a scout asks for them on every hop.
//!
//! Router `r` sits at row `r / cols`, column `r % cols` (the layer's cube numbering, dimension
//! 0 = x fastest). Ports follow Venice Algorithm 1: `Up` is towards higher rows (Diff_y > 0),
//! `Right` towards higher columns; they map onto the layer's ports +y, -y, +x, -x.

use super::cube::Cube;
use super::Graph;
use crate::config::{ConfigError, SsdConfig};
use crate::engine::NONE;

pub type Port = u8;
pub const UP: Port = 0;
pub const DOWN: Port = 1;
pub const RIGHT: Port = 2;
pub const LEFT: Port = 3;
/// Ports a scout may leave a router by, in Algorithm 1's order (lines 36-43).
pub const MESH_PORTS: [Port; 4] = [UP, DOWN, RIGHT, LEFT];
/// The port by which a controller injects into its edge router (not a mesh link).
pub const INJECT: Port = 4;
/// No port: a zero difference in Algorithm 1's comparison (never a bit of a port mask).
pub const NO_PORT: Port = 7;

/// The port facing `p` across its link (ports come in pairs: Up/Down, Right/Left).
#[inline(always)]
pub fn opposite(p: Port) -> Port {
    if p < INJECT {
        p ^ 1
    } else {
        p
    }
}

/// The layer's port of `cube` (a 2D mesh) for mesh port `p` (cube port `2d` is +d, `2d + 1`
/// is -d).
pub fn layer_port(cube: &Cube, p: Port) -> u32 {
    match p {
        UP => cube.port(1, true),
        DOWN => cube.port(1, false),
        RIGHT => cube.port(0, true),
        _ => cube.port(0, false),
    }
}

#[derive(Clone, Debug)]
pub struct Mesh {
    pub rows: u32,
    pub cols: u32,
    /// Router each flash controller is attached to.
    pub fc_router: Vec<u32>,
    /// Router each flash chip is attached to.
    pub chip_router: Vec<u32>,
    /// `adj[r * 4 + port]` = (neighbour router, the layer's link id), or `(NONE, NONE)` at
    /// an edge.
    adj: Vec<(u32, u32)>,
    /// `coords[r]` = (column, row).
    coords: Vec<(u32, u32)>,
    /// The layer's undirected links: the routers each joins, by link id.
    link_ends: Vec<(u32, u32)>,
    /// `fc_order[r * controllers..][..controllers]`: controllers by (distance to router `r`,
    /// id), so the controller rule is the first free one in this list.
    fc_order: Vec<u32>,
}

impl Mesh {
    /// The drive's `[network]` topology, which must be a 2D mesh (the config's rules say so
    /// for `network.routing = venice`; `--arch venice` sets it).
    pub fn new(cfg: &SsdConfig) -> Result<Self, ConfigError> {
        let topo = super::build(cfg)?;
        let cube = topo
            .as_cube()
            .filter(|c| c.ndims() == 2 && !c.wraps())
            .ok_or_else(|| {
                crate::config::schema::key_error(
                    "network.topology",
                    topo.kind(),
                    "Venice's scouts route on a 2D mesh (Algorithm 1 uses its coordinates)",
                )
            })?;
        let graph = Graph::new(topo.as_ref(), &super::endpoint_routers(topo.as_ref(), cfg));
        let (cols, rows) = (cube.size(0), cube.size(1));
        let chips = cfg.network_chips();
        let mut link_ends = vec![(NONE, NONE); graph.links as usize];
        let adj = (0..graph.routers)
            .flat_map(|r| MESH_PORTS.map(|p| (r, p)))
            .map(|(r, p)| {
                let gp = graph.port(r, layer_port(cube, p));
                let far = graph.far(gp);
                if far == NONE {
                    return (NONE, NONE);
                }
                let (n, l) = (graph.router_of(far), graph.link(gp));
                link_ends[l as usize] = (r.min(n), r.max(n));
                (n, l)
            })
            .collect();
        let mut mesh = Self {
            rows,
            cols,
            fc_router: (0..graph.endpoints() - chips)
                .map(|i| graph.ep_router(chips + i))
                .collect(),
            chip_router: (0..chips).map(|c| graph.ep_router(c)).collect(),
            adj,
            coords: (0..graph.routers)
                .map(|r| (cube.coord(r, 0), cube.coord(r, 1)))
                .collect(),
            link_ends,
            fc_order: Vec::new(),
        };
        let n = mesh.fc_router.len() as u32;
        mesh.fc_order = (0..graph.routers)
            .flat_map(|r| {
                let mut order: Vec<u32> = (0..n).collect();
                order.sort_by_key(|&f| (mesh.fc_distance(f, r), f));
                order
            })
            .collect();
        Ok(mesh)
    }

    pub fn routers(&self) -> u32 {
        self.rows * self.cols
    }

    /// Undirected links, numbered by the layer.
    pub fn links(&self) -> u32 {
        self.link_ends.len() as u32
    }

    #[inline]
    pub fn xy(&self, r: u32) -> (u32, u32) {
        self.coords[r as usize]
    }

    /// The router across `port`, if the mesh has one there.
    #[inline]
    pub fn neighbor(&self, r: u32, port: Port) -> Option<u32> {
        let n = self.adj[(r * 4 + port as u32) as usize].0;
        (n != NONE).then_some(n)
    }

    /// The router across `port` of `r` and the link's id (caller checked it exists).
    #[inline]
    pub fn across(&self, r: u32, port: Port) -> (u32, u32) {
        self.adj[(r * 4 + port as u32) as usize]
    }

    /// Id of the link leaving `r` by `port` (caller checked it exists).
    #[inline]
    pub fn link(&self, r: u32, port: Port) -> u32 {
        self.adj[(r * 4 + port as u32) as usize].1
    }

    /// Minimal hop count between two routers.
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (ax, ay) = self.xy(a);
        let (bx, by) = self.xy(b);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }

    /// Venice §4.2's controller rule: the controller closest to `router` if it is free, else
    /// the nearest free one (ties to the lower id); `None` if none is.
    pub fn pick_controller(&self, router: u32, free: impl Fn(u32) -> bool) -> Option<u32> {
        let n = self.fc_router.len();
        let order = &self.fc_order[router as usize * n..][..n];
        order.iter().copied().find(|&f| free(f))
    }

    /// Per mesh port, what to add (wrapping) to a router's number to get the one across.
    pub fn steps(&self) -> [u32; 4] {
        let mut s = [0; 4];
        s[UP as usize] = self.cols;
        s[DOWN as usize] = self.cols.wrapping_neg();
        s[RIGHT as usize] = 1;
        s[LEFT as usize] = u32::MAX;
        s
    }

    /// The mesh ports router `r` has (a 4-bit mask by port number).
    pub fn port_mask(&self, r: u32) -> u8 {
        MESH_PORTS
            .into_iter()
            .filter(|&p| self.neighbor(r, p).is_some())
            .fold(0, |m, p| m | 1 << p)
    }

    /// The routers each link joins, by link id, and where the controllers attach: what a
    /// per-link heat map needs.
    pub fn layout(&self) -> crate::interconnect::MeshLayout {
        crate::interconnect::MeshLayout {
            rows: self.rows,
            cols: self.cols,
            controller_routers: self.fc_router.clone(),
            links: self.link_ends.clone(),
        }
    }

    /// Links from controller `fc` to router `r` on a minimal path (its own link included).
    pub fn fc_distance(&self, fc: u32, r: u32) -> u32 {
        1 + self.hops(self.fc_router[fc as usize], r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(rows: u32, cols: u32) -> Mesh {
        let mut c = SsdConfig::default();
        c.network.rows = rows;
        c.network.cols = cols;
        Mesh::new(&c).unwrap()
    }

    #[test]
    fn links_are_shared_by_both_ends_and_unique() {
        let m = mesh(4, 16);
        let mut seen = vec![0; m.links() as usize];
        for r in 0..m.routers() {
            for p in MESH_PORTS {
                if let Some(n) = m.neighbor(r, p) {
                    assert_eq!(m.link(r, p), m.link(n, opposite(p)));
                    seen[m.link(r, p) as usize] += 1;
                }
            }
        }
        assert!(
            seen.iter().all(|&n| n == 2),
            "every link seen from both ends once"
        );
        assert_eq!(m.fc_router, vec![0, 16, 32, 48]);
        assert_eq!(m.fc_distance(1, 16 + 5), 6);
    }

    #[test]
    fn controller_rule_closest_if_free_else_nearest_free() {
        let m = mesh(4, 4);
        // Router 9 = (1, 2): FC2 (router 8) at 2 links, FC1 and FC3 at 3, FC0 at 4.
        assert_eq!(m.pick_controller(9, |_| true), Some(2));
        assert_eq!(
            m.pick_controller(9, |f| f != 2),
            Some(1),
            "tie to the lower id"
        );
        assert_eq!(m.pick_controller(9, |f| f == 0), Some(0));
        assert_eq!(m.pick_controller(9, |_| false), None);
    }
}
