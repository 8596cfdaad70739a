//! A 2D mesh of flash nodes shared by the networked back ends: router numbering, ports,
//! undirected link ids and where flash controllers attach.
//!
//! Router `r` sits at row `r / cols`, column `r % cols`; chip `c` is attached to router `c`
//! (so with the default mesh, row *i* holds channel *i*'s chips). Ports follow Venice
//! Algorithm 1: `Up` is towards higher rows (Diff_y > 0), `Right` towards higher columns.
//! Flash controller *i* is attached to the first router (column 0) of row `i * rows / fcs`.

use crate::config::SsdConfig;

pub type Port = u8;
pub const UP: Port = 0;
pub const DOWN: Port = 1;
pub const RIGHT: Port = 2;
pub const LEFT: Port = 3;
/// Ports a scout may leave a router by, in Algorithm 1's order (lines 36-43).
pub const MESH_PORTS: [Port; 4] = [UP, DOWN, RIGHT, LEFT];
/// The port by which a controller injects into its edge router (not a mesh link).
pub const INJECT: Port = 4;

#[inline]
pub fn opposite(p: Port) -> Port {
    match p {
        UP => DOWN,
        DOWN => UP,
        RIGHT => LEFT,
        LEFT => RIGHT,
        other => other,
    }
}

#[derive(Clone, Debug)]
pub struct Mesh {
    pub rows: u32,
    pub cols: u32,
    /// Router each flash controller is attached to.
    pub fc_router: Vec<u32>,
    /// `adj[r * 4 + port]` = (neighbour router, link id), or `(NO_LINK, NO_LINK)` at an edge:
    /// routing asks this on every hop, so it is a table rather than arithmetic.
    adj: Vec<(u32, u32)>,
    /// `coords[r]` = (column, row): asked on every scout hop, so a table, not a division.
    coords: Vec<(u32, u32)>,
}

const NO_LINK: u32 = u32::MAX;

impl Mesh {
    pub fn new(cfg: &SsdConfig) -> Self {
        let (rows, cols) = cfg.mesh_dims();
        let fcs = cfg.mesh_controllers();
        let mut m = Self {
            rows,
            cols,
            fc_router: (0..fcs).map(|i| (i * rows / fcs) * cols).collect(),
            adj: Vec::new(),
            coords: (0..rows * cols).map(|r| (r % cols, r / cols)).collect(),
        };
        m.adj = (0..m.routers())
            .flat_map(|r| MESH_PORTS.map(|p| (r, p)))
            .map(|(r, p)| match m.neighbor_slow(r, p) {
                Some(n) => (n, m.link_slow(r, p)),
                None => (NO_LINK, NO_LINK),
            })
            .collect();
        m
    }

    pub fn routers(&self) -> u32 {
        self.rows * self.cols
    }

    /// Undirected mesh links: horizontal ones first, then vertical.
    pub fn links(&self) -> u32 {
        self.rows * (self.cols - 1) + (self.rows - 1) * self.cols
    }

    #[inline]
    pub fn xy(&self, r: u32) -> (u32, u32) {
        self.coords[r as usize]
    }

    /// The router across `port`, if the mesh has one there.
    #[inline]
    pub fn neighbor(&self, r: u32, port: Port) -> Option<u32> {
        let n = self.adj[(r * 4 + port as u32) as usize].0;
        (n != NO_LINK).then_some(n)
    }

    /// Id of the link leaving `r` by `port` (caller checked it exists).
    #[inline]
    pub fn link(&self, r: u32, port: Port) -> u32 {
        self.adj[(r * 4 + port as u32) as usize].1
    }

    fn neighbor_slow(&self, r: u32, port: Port) -> Option<u32> {
        let (x, y) = self.xy(r);
        match port {
            UP if y + 1 < self.rows => Some(r + self.cols),
            DOWN if y > 0 => Some(r - self.cols),
            RIGHT if x + 1 < self.cols => Some(r + 1),
            LEFT if x > 0 => Some(r - 1),
            _ => None,
        }
    }

    fn link_slow(&self, r: u32, port: Port) -> u32 {
        let (x, y) = self.xy(r);
        let h = self.rows * (self.cols - 1);
        match port {
            RIGHT => y * (self.cols - 1) + x,
            LEFT => y * (self.cols - 1) + x - 1,
            UP => h + y * self.cols + x,
            DOWN => h + (y - 1) * self.cols + x,
            _ => unreachable!("port {port} is not a mesh link"),
        }
    }

    /// Minimal hop count between two routers.
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (ax, ay) = self.xy(a);
        let (bx, by) = self.xy(b);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }

    /// Venice §4.2's controller rule, shared by the mesh designs: the controller closest to
    /// `chip` if it is free, else the nearest free one (ties to the lower id); `None` if none is.
    pub fn pick_controller(&self, chip: u32, free: impl Fn(u32) -> bool) -> Option<u32> {
        let n = self.fc_router.len() as u32;
        let d = |f: u32| (self.fc_distance(f, chip), f);
        let closest = (0..n).min_by_key(|&f| d(f))?;
        if free(closest) {
            return Some(closest);
        }
        (0..n).filter(|&f| free(f)).min_by_key(|&f| d(f))
    }

    /// Links from controller `fc` to router `r` on a minimal path (its own link included).
    /// The routers each link joins, by link id, and where the controllers attach: what a
    /// per-link heat map needs.
    pub fn layout(&self) -> super::MeshLayout {
        let mut links = vec![(0, 0); self.links() as usize];
        for r in 0..self.routers() {
            for p in [RIGHT, UP] {
                if let Some(n) = self.neighbor(r, p) {
                    links[self.link(r, p) as usize] = (r, n);
                }
            }
        }
        super::MeshLayout {
            rows: self.rows,
            cols: self.cols,
            controller_routers: self.fc_router.clone(),
            links,
        }
    }

    pub fn fc_distance(&self, fc: u32, r: u32) -> u32 {
        1 + self.hops(self.fc_router[fc as usize], r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_shared_by_both_ends_and_unique() {
        let mut c = SsdConfig::default();
        c.network.rows = 4;
        c.network.cols = 16;
        let m = Mesh::new(&c);
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
}
