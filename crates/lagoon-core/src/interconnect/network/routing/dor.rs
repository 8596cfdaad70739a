//! Dimension-order routing (XY on a 2D mesh, e-cube on a hypercube): correct the lowest
//! dimension first, along its minimal direction (+ on a tie).
//!
//! On wrap-around dimensions (ring, torus) the channel dependencies of each ring form a cycle,
//! broken by two dateline VC classes (Dally and Seitz, 1987). Going + from coordinate `a` to
//! `b`: while `a > b` the wrap-around link is still ahead (class 0, the wrap-around link
//! itself included); once past it, or if it is not on the way (`a < b`), class 1. Each class
//! then uses a chain of links with no wrap-around inside it, and a packet only moves from class
//! 0 to 1 within a dimension: no cycle. The class depends only on position and destination,
//! so Duato's escape channels ([`super::duato`]) use the same rule.

use super::{class_mask, Candidate, LoadView, RouteState, Routing};
use crate::interconnect::network::topology::cube::Cube;

pub struct Dor {
    cube: Cube,
    /// VC mask of each dateline class.
    masks: [u64; 2],
    dateline: bool,
    vcs: u32,
}

/// The dimension-order hop from `r` towards `dest`: (dimension, + direction, dateline class).
#[inline]
pub fn dor_hop(cube: &Cube, r: u32, dest: u32) -> Option<(u32, bool, u32)> {
    for d in 0..cube.ndims() {
        let (a, b) = (cube.coord(r, d), cube.coord(dest, d));
        if a == b {
            continue;
        }
        let plus = match cube.offsets(d, a, b) {
            (Some(p), Some(m)) => p <= m,
            (Some(_), None) => true,
            _ => false,
        };
        let class = if !cube.wraps() {
            0
        } else if plus {
            (a < b) as u32
        } else {
            (a > b) as u32
        };
        return Some((d, plus, class));
    }
    None
}

impl Dor {
    pub fn new(cube: Cube, vcs: u32, classes: u32) -> Self {
        Self {
            dateline: cube.wraps(),
            masks: [0, 1].map(|c| class_mask(vcs, classes, c.min(classes - 1))),
            vcs,
            cube,
        }
    }

    /// Dimension order without datelines: deadlocks on a ring or torus. Only for testing the
    /// deadlock detector.
    #[cfg(test)]
    pub fn without_dateline(cube: Cube, vcs: u32) -> Self {
        let mut d = Self::new(cube, vcs, 1);
        d.dateline = false;
        d
    }
}

impl Routing for Dor {
    fn name(&self) -> &'static str {
        "dor"
    }
    fn is_fixed(&self) -> bool {
        // Without datelines every hop offers `masks[0]`: every VC when there is one class.
        !self.dateline && self.masks[0] == super::all_vcs(self.vcs)
    }
    fn fixed_port(&self, r: u32, st: &RouteState) -> Option<u32> {
        dor_hop(&self.cube, r, st.dest).map(|(d, plus, _)| self.cube.port(d, plus))
    }
    fn route(&self, r: u32, st: &RouteState, _view: &dyn LoadView, out: &mut Vec<Candidate>) {
        if let Some((d, plus, class)) = dor_hop(&self.cube, r, st.dest) {
            let class = if self.dateline { class } else { 0 };
            out.push(Candidate::hop(
                self.cube.port(d, plus),
                self.masks[class as usize],
                *st,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::walk;
    use super::*;
    use crate::config::TopologyKind;
    use crate::interconnect::network::topology::Topology;

    #[test]
    fn xy_corrects_x_then_y() {
        let m = Cube::new(TopologyKind::Mesh, vec![3, 3], false, false);
        let dor = Dor::new(m.clone(), 2, 1);
        // 8 = (2, 2) to 0: -x, -x, -y, -y.
        let ports: Vec<u32> = walk(&dor, &m, 8, 0, 0).iter().map(|h| h.1).collect();
        let (l, d) = (m.port(0, false), m.port(1, false));
        assert_eq!(ports, vec![l, l, d, d]);
        assert_eq!(walk(&dor, &m, 0, 8, 0).len(), 4);
    }

    #[test]
    fn torus_takes_the_short_way_and_switches_class_after_the_dateline() {
        let t = Cube::new(TopologyKind::Ring, vec![8], true, false);
        let dor = Dor::new(t.clone(), 2, 2);
        let mut out = Vec::new();
        let st = |dest| RouteState {
            dest,
            ..Default::default()
        };
        // 6 -> 1: + via the wrap 7 -> 0 (3 hops, not 5): class 0 up to and over the wrap...
        dor.route(6, &st(1), &super::super::NoLoad, &mut out);
        assert_eq!((out[0].port, out[0].vcs), (t.port(0, true), 0b01));
        out.clear();
        dor.route(7, &st(1), &super::super::NoLoad, &mut out);
        assert_eq!(out[0].vcs, 0b01);
        assert!(t.is_wrap(7, 0, true));
        // ... then class 1 from router 0 on.
        out.clear();
        dor.route(0, &st(1), &super::super::NoLoad, &mut out);
        assert_eq!(out[0].vcs, 0b10);
        // 1 -> 6: - via the wrap 0 -> 7.
        out.clear();
        dor.route(1, &st(6), &super::super::NoLoad, &mut out);
        assert_eq!((out[0].port, out[0].vcs), (t.port(0, false), 0b01));
        assert_eq!(walk(&dor, &t, 1, 6, 0).len(), 3);
        // A tie (4 hops either way) goes +.
        out.clear();
        dor.route(0, &st(4), &super::super::NoLoad, &mut out);
        assert_eq!(out[0].port, t.port(0, true));
    }

    #[test]
    fn hypercube_flips_bits_lowest_first() {
        let h = Cube::new(TopologyKind::Hypercube, vec![2; 3], false, true);
        let dor = Dor::new(h.clone(), 1, 1);
        let path = walk(&dor, &h, 0b110, 0b011, 0);
        assert_eq!(path, vec![(0b110, 0), (0b111, 2)]);
        assert_eq!(h.routers(), 8);
    }
}
