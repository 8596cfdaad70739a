//! Minimal adaptive routing on meshes and hypercubes: any port that brings the packet closer,
//! on any VC of its virtual network; the router takes the free VC with the most credits.
//!
//! Deadlock freedom by virtual networks (Linder and Harden's scheme, as in the double-y
//! network): the virtual network of a packet at a router has bit `d` set when it still has to
//! go - in dimension `d`, for every dimension but the last. Within one virtual network every
//! link of those dimensions is used in one direction only, and the last dimension has no
//! wrap-around, so no cycle of channel dependencies closes; a packet only ever clears bits (a
//! finished dimension stays finished), so it moves to lower virtual networks only. An
//! n-dimensional mesh needs 2^(n-1) VC classes: 1 on a line, 2 on a 2D mesh, 4 on a 3D mesh.

use super::{class_mask, Candidate, LoadView, RouteState, Routing};
use crate::interconnect::network::topology::cube::Cube;

pub struct MinimalAdaptive {
    cube: Cube,
    masks: Vec<u64>,
}

impl MinimalAdaptive {
    pub fn new(cube: Cube, vcs: u32, classes: u32) -> Self {
        Self {
            masks: (0..classes).map(|c| class_mask(vcs, classes, c)).collect(),
            cube,
        }
    }
}

impl Routing for MinimalAdaptive {
    fn name(&self) -> &'static str {
        "minimal-adaptive"
    }
    fn route(&self, r: u32, st: &RouteState, _view: &dyn LoadView, out: &mut Vec<Candidate>) {
        let n = self.cube.ndims();
        let mut vn = 0usize;
        for d in 0..n.saturating_sub(1) {
            if self.cube.coord(st.dest, d) < self.cube.coord(r, d) {
                vn |= 1 << d;
            }
        }
        let vcs = self.masks[vn];
        for d in 0..n {
            let (a, b) = (self.cube.coord(r, d), self.cube.coord(st.dest, d));
            if a != b {
                out.push(Candidate::hop(self.cube.port(d, b > a), vcs, *st));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;

    #[test]
    fn offers_every_productive_port_on_the_packets_virtual_network() {
        let m = Cube::new(TopologyKind::Mesh, vec![4, 4], false, false);
        let ma = MinimalAdaptive::new(m.clone(), 4, 2);
        let mut out = Vec::new();
        let st = RouteState {
            dest: 15,
            ..Default::default()
        };
        ma.route(0, &st, &super::super::NoLoad, &mut out);
        let ports: Vec<u32> = out.iter().map(|c| c.port).collect();
        assert_eq!(ports, vec![m.port(0, true), m.port(1, true)]);
        assert!(out.iter().all(|c| c.vcs == 0b0101), "+x: network 0");
        out.clear();
        // 15 -> 0 goes -x: network 1.
        ma.route(
            15,
            &RouteState { dest: 0, ..st },
            &super::super::NoLoad,
            &mut out,
        );
        assert!(out.iter().all(|c| c.vcs == 0b1010));
        // Same column: only y is productive, and x no longer constrains: network 0.
        out.clear();
        ma.route(
            12,
            &RouteState { dest: 0, ..st },
            &super::super::NoLoad,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].port, out[0].vcs), (m.port(1, false), 0b0101));
    }
}
