//! The k-ary n-cube family: line (1D mesh), ring (1D torus), 2D mesh, 2D torus, 3D mesh and
//! the binary hypercube.
//!
//! Router ids are mixed-radix numbers, dimension 0 fastest: router `r` has coordinate
//! `(r / stride[d]) % size[d]` in dimension `d` (a 2D mesh: x = column = `r % cols`, y = row,
//! as Venice numbers its mesh, [`super::mesh2d`]). Port `2d` leads towards +d, port `2d + 1`
//! towards -d; a hypercube has one port per dimension (`d`: flip bit d). With `wrap`, the +
//! port of the last router of a dimension leads to its first router (the wrap-around link).
//!
//! ```text
//!   mesh 3x3            port 0: +x (right)   port 1: -x (left)
//!   6 - 7 - 8           port 2: +y (up)      port 3: -y (down)
//!   |   |   |
//!   3 - 4 - 5           torus: 2 -> 0 and 0 -> 6 close the rings
//!   |   |   |
//!   0 - 1 - 2
//! ```

use super::Topology;
use crate::config::TopologyKind;

#[derive(Clone, Debug)]
pub struct Cube {
    kind: TopologyKind,
    sizes: Vec<u32>,
    strides: Vec<u32>,
    wrap: bool,
    binary: bool,
    routers: u32,
}

impl Cube {
    pub fn new(kind: TopologyKind, sizes: Vec<u32>, wrap: bool, binary: bool) -> Self {
        let mut strides = Vec::with_capacity(sizes.len());
        let mut s = 1u32;
        for &k in &sizes {
            strides.push(s);
            s *= k;
        }
        Self {
            kind,
            sizes,
            strides,
            wrap,
            binary,
            routers: s,
        }
    }

    pub fn ndims(&self) -> u32 {
        self.sizes.len() as u32
    }
    #[inline]
    pub fn size(&self, d: u32) -> u32 {
        self.sizes[d as usize]
    }
    pub fn wraps(&self) -> bool {
        self.wrap
    }
    #[inline]
    pub fn coord(&self, r: u32, d: u32) -> u32 {
        (r / self.strides[d as usize]) % self.sizes[d as usize]
    }
    /// The router with coordinate `c` in dimension `d` and `r`'s elsewhere.
    #[inline]
    pub fn with_coord(&self, r: u32, d: u32, c: u32) -> u32 {
        r - self.coord(r, d) * self.strides[d as usize] + c * self.strides[d as usize]
    }
    /// The port of dimension `d` in direction + (`plus`) or -.
    #[inline]
    pub fn port(&self, d: u32, plus: bool) -> u32 {
        if self.binary {
            d
        } else {
            2 * d + (!plus) as u32
        }
    }
    /// Dimension of a network port and whether it leads towards + from router `r`.
    #[inline]
    pub fn port_dim(&self, r: u32, port: u32) -> (u32, bool) {
        if self.binary {
            (port, self.coord(r, port) == 0)
        } else {
            (port / 2, port.is_multiple_of(2))
        }
    }
    /// Whether leaving `r` in dimension `d` towards `plus` crosses the wrap-around link.
    #[inline]
    pub fn is_wrap(&self, r: u32, d: u32, plus: bool) -> bool {
        let (c, k) = (self.coord(r, d), self.size(d));
        self.wrap && if plus { c + 1 == k } else { c == 0 }
    }
    /// Minimal hops from coordinate `a` to `b` in dimension `d` going + and going -
    /// (`None` where the direction is not available without wrap-around).
    #[inline]
    pub fn offsets(&self, d: u32, a: u32, b: u32) -> (Option<u32>, Option<u32>) {
        let k = self.size(d);
        if self.wrap {
            ((Some((b + k - a) % k)), Some((a + k - b) % k))
        } else if b >= a {
            (Some(b - a), None)
        } else {
            (None, Some(a - b))
        }
    }
    /// Minimal router-to-router hops between two routers.
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        (0..self.ndims())
            .map(|d| {
                let (p, m) = self.offsets(d, self.coord(a, d), self.coord(b, d));
                p.unwrap_or(u32::MAX).min(m.unwrap_or(u32::MAX))
            })
            .sum()
    }
}

impl Topology for Cube {
    fn kind(&self) -> TopologyKind {
        self.kind
    }
    fn routers(&self) -> u32 {
        self.routers
    }
    fn network_ports(&self, _r: u32) -> u32 {
        if self.binary {
            self.ndims()
        } else {
            2 * self.ndims()
        }
    }
    fn neighbor(&self, r: u32, port: u32) -> Option<(u32, u32)> {
        let (d, plus) = self.port_dim(r, port);
        let (c, k) = (self.coord(r, d), self.size(d));
        if self.binary {
            return (k == 2).then(|| (self.with_coord(r, d, 1 - c), port));
        }
        let next = if plus {
            if c + 1 < k {
                c + 1
            } else if self.wrap && k > 1 {
                0
            } else {
                return None;
            }
        } else if c > 0 {
            c - 1
        } else if self.wrap && k > 1 {
            k - 1
        } else {
            return None;
        };
        Some((self.with_coord(r, d, next), self.port(d, !plus)))
    }
    fn edge_router(&self, i: u32, n: u32) -> Option<u32> {
        match self.kind {
            // The first router of row i x rows / n (Venice Fig. 5).
            TopologyKind::Mesh | TopologyKind::Torus => {
                let rows = self.size(1);
                Some((i * rows / n.max(1)) * self.size(0))
            }
            // The x = 0 face, spread over its routers.
            TopologyKind::Mesh3d => {
                let face = self.size(1) * self.size(2);
                let j = (i as u64 * face as u64 / n.max(1) as u64) as u32;
                Some(j * self.size(0))
            }
            _ => None,
        }
    }
    fn describe(&self, r: u32) -> String {
        let c: Vec<String> = (0..self.ndims())
            .map(|d| self.coord(r, d).to_string())
            .collect();
        format!("router {r} ({})", c.join(","))
    }
    fn as_cube(&self) -> Option<&Cube> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_neighbours_wrap_and_mesh_edges_are_open() {
        let t = Cube::new(TopologyKind::Torus, vec![4, 3], true, false);
        // router 3 = (x 3, y 0): + x wraps to router 0, entering by its -x port.
        assert_eq!(t.neighbor(3, t.port(0, true)), Some((0, t.port(0, false))));
        assert!(t.is_wrap(3, 0, true) && !t.is_wrap(2, 0, true));
        // router 0: -y wraps to (0, 2) = router 8.
        assert_eq!(t.neighbor(0, t.port(1, false)), Some((8, t.port(1, true))));
        assert_eq!(t.hops(0, 3), 1);
        let m = Cube::new(TopologyKind::Mesh, vec![4, 3], false, false);
        assert_eq!(m.neighbor(3, m.port(0, true)), None);
        assert_eq!(m.hops(0, 3), 3);
        assert_eq!(m.describe(7), "router 7 (3,1)");
    }

    #[test]
    fn hypercube_ports_flip_one_bit() {
        let h = Cube::new(TopologyKind::Hypercube, vec![2; 4], false, true);
        assert_eq!(h.routers(), 16);
        for r in 0..16 {
            for d in 0..4 {
                assert_eq!(h.neighbor(r, d), Some((r ^ (1 << d), d)));
            }
        }
        assert_eq!(h.hops(0b0101, 0b1010), 4);
    }
}
