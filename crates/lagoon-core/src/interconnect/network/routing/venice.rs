//! Venice's non-minimal fully-adaptive routing (ISCA 2023, §4.3, Algorithm 1) on a 2D mesh:
//! at each router a scout takes a free minimal port (one of two at random), else a free
//! non-minimal port other than the one it came in by (at random), else goes back to the
//! upstream router.
//!
//! ```text
//!  lines 2-26   minimal ports from the coordinates (horizontal, then vertical)    minimal_ports
//!  lines 27-33  two free: pick one at random; one free: take it                   algorithm_1
//!  lines 34-46  none: a free port but the input, at random (misroute)             algorithm_1
//!  lines 47-48  no free port but the input: back upstream (None)                  algorithm_1
//! ```
//!
//! "Free" is the reservation state Algorithm 1 reads (input 5, "the status of the output
//! ports"): the scouts that use it ([`crate::interconnect::network::switching::scout`]) pass
//! a router's ports whose link no circuit holds and that this scout has not left by before
//! (§4.3), and the router's own random source. They also bound the visits per router (§4.3's
//! livelock rule, "not shown in Algorithm 1") and eject at the destination (line 25).
//!
//! As a [`Routing`] of the layer, [`Venice`] gives Algorithm 1's two lists for a router that
//! does not know which ports are free: the minimal ports (priority 0), then the other mesh
//! ports (priority 1).

use super::super::topology::cube::Cube;
use super::super::topology::mesh2d::{
    layer_port, Port, DOWN, LEFT, MESH_PORTS, NO_PORT, RIGHT, UP,
};
use super::{all_vcs, Candidate, LoadView, RouteState, Routing};

/// One step of a router's 16-bit maximal-length Galois LFSR
/// (x^16 + x^14 + x^13 + x^11 + 1), as a choice among `n`.
#[inline(always)]
pub fn random(l: &mut u16, n: usize) -> usize {
    let lsb = *l & 1;
    *l >>= 1;
    if lsb != 0 {
        *l ^= 0xB400;
    }
    // The divisor is a constant in each arm, so no division instruction (n <= 4 ports).
    match n {
        1 => 0,
        2 => (*l & 1) as usize,
        3 => (*l % 3) as usize,
        4 => (*l & 3) as usize,
        _ => *l as usize % n,
    }
}

/// Algorithm 1 lines 2-26 from the coordinates (column, row) of a router and of the
/// destination: the minimal ports, horizontal first, `NO_PORT` where that difference is zero.
#[inline(always)]
pub fn minimal_ports((cx, cy): (u32, u32), (dx, dy): (u32, u32)) -> (Port, Port) {
    let towards = |from: u32, to: u32, up: Port, down: Port| {
        let p = if to > from { up } else { NO_PORT };
        if to < from {
            down
        } else {
            p
        }
    };
    (towards(cx, dx, RIGHT, LEFT), towards(cy, dy, UP, DOWN))
}

/// Venice Algorithm 1 on a router's `free` output ports, with `minimal` its minimal ports
/// towards the destination and `lfsr` its random source: the port, or `None` to backtrack.
#[inline(always)]
pub fn algorithm_1(free: u8, minimal: (Port, Port), in_port: Port, lfsr: &mut u16) -> Option<Port> {
    // lines 2-26: the minimal directions (horizontal, then vertical) that are free
    let (h, v) = minimal;
    let (h_ok, v_ok) = (free >> h & 1 == 1, free >> v & 1 == 1);
    match (h_ok, v_ok) {
        (true, true) => return Some([h, v][random(lfsr, 2)]), // lines 28-30
        (true, false) => return Some(h),                      // lines 31-33
        (false, true) => return Some(v),
        _ => {}
    }
    // lines 34-43: misroute over any free port but the input, in Up, Down, Right, Left
    // order (the port numbers' order)
    let mut list = free & !(1u8 << in_port);
    let n = list.count_ones() as usize;
    if n == 0 {
        return None; // lines 47-48: back to the upstream router
    }
    for _ in 0..random(lfsr, n) {
        list &= list - 1;
    }
    Some(list.trailing_zeros() as Port) // lines 44-46
}

/// Algorithm 1's candidate lists as a routing function of the layer (2D mesh).
pub struct Venice {
    cube: Cube,
    vcs: u64,
}

impl Venice {
    /// On `cube`, which must be a 2D mesh (the configuration's rules say so).
    pub fn new(cube: Cube, vcs: u32) -> Result<Self, String> {
        if cube.ndims() != 2 || cube.wraps() {
            return Err("Venice's Algorithm 1 routes by a 2D mesh's coordinates".into());
        }
        Ok(Self {
            cube,
            vcs: all_vcs(vcs),
        })
    }

    fn xy(&self, r: u32) -> (u32, u32) {
        (self.cube.coord(r, 0), self.cube.coord(r, 1))
    }

    /// Whether router `r` has a link by mesh port `p`.
    fn has(&self, r: u32, p: Port) -> bool {
        let (x, y) = self.xy(r);
        match p {
            UP => y + 1 < self.cube.size(1),
            DOWN => y > 0,
            RIGHT => x + 1 < self.cube.size(0),
            _ => x > 0,
        }
    }
}

impl Routing for Venice {
    fn name(&self) -> &'static str {
        "venice"
    }

    fn route(&self, r: u32, st: &RouteState, _view: &dyn LoadView, out: &mut Vec<Candidate>) {
        let (h, v) = minimal_ports(self.xy(r), self.xy(st.dest));
        let hop = |p: Port, pri: u8| Candidate {
            pri,
            ..Candidate::hop(layer_port(&self.cube, p), self.vcs, *st)
        };
        // lines 2-26: the minimal ports
        for p in [h, v] {
            if p != NO_PORT {
                out.push(hop(p, 0));
            }
        }
        // lines 34-43: the others, in Up, Down, Right, Left order
        for p in MESH_PORTS {
            if p != h && p != v && self.has(r, p) {
                out.push(hop(p, 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::NoLoad;
    use super::*;
    use crate::config::TopologyKind;
    use crate::interconnect::network::topology::mesh2d::INJECT;

    /// Algorithm 1's nine cases at the centre of a 5 × 5 mesh, (2, 2).
    const CASES: [((u32, u32), (Port, Port)); 9] = [
        ((3, 3), (RIGHT, UP)),        // case 1: dx > 0, dy > 0
        ((3, 1), (RIGHT, DOWN)),      // case 2: dx > 0, dy < 0
        ((3, 2), (RIGHT, NO_PORT)),   // case 3
        ((1, 3), (LEFT, UP)),         // case 4
        ((1, 1), (LEFT, DOWN)),       // case 5
        ((1, 2), (LEFT, NO_PORT)),    // case 6
        ((2, 3), (NO_PORT, UP)),      // case 7
        ((2, 1), (NO_PORT, DOWN)),    // case 8
        ((2, 2), (NO_PORT, NO_PORT)), // case 9: eject (the caller's)
    ];

    #[test]
    fn minimal_ports_follow_the_nine_cases() {
        for (dest, want) in CASES {
            assert_eq!(minimal_ports((2, 2), dest), want, "dest {dest:?}");
        }
    }

    const ALL: u8 = 0b1111;

    /// Lines 27-33: two free minimal ports are both picked (at random), one is always taken.
    #[test]
    fn a_free_minimal_port_comes_first() {
        let mut lfsr = 0xACE1;
        let mut seen = 0u8;
        for _ in 0..64 {
            let p = algorithm_1(ALL, (RIGHT, UP), LEFT, &mut lfsr).unwrap();
            assert!(p == RIGHT || p == UP);
            seen |= 1 << p;
        }
        assert_eq!(seen, 1 << RIGHT | 1 << UP);
        let only_up = ALL & !(1 << RIGHT);
        for _ in 0..16 {
            assert_eq!(algorithm_1(only_up, (RIGHT, UP), LEFT, &mut lfsr), Some(UP));
        }
        assert_eq!(
            algorithm_1(ALL, (NO_PORT, DOWN), INJECT, &mut lfsr),
            Some(DOWN)
        );
    }

    /// Lines 34-48: no free minimal port: any free port but the input, each one picked;
    /// only the input left: back upstream.
    #[test]
    fn misroute_never_by_the_input_else_backtrack() {
        let mut lfsr = 0xACE1;
        let free = 1 << UP | 1 << DOWN | 1 << LEFT; // Right (minimal) taken
        let mut seen = 0u8;
        for _ in 0..64 {
            let p = algorithm_1(free, (RIGHT, NO_PORT), LEFT, &mut lfsr).unwrap();
            assert!(p == UP || p == DOWN, "port {p}");
            seen |= 1 << p;
        }
        assert_eq!(seen, 1 << UP | 1 << DOWN);
        assert_eq!(
            algorithm_1(1 << LEFT, (RIGHT, NO_PORT), LEFT, &mut lfsr),
            None
        );
        assert_eq!(algorithm_1(0, (RIGHT, UP), INJECT, &mut lfsr), None);
        // From the controller (no mesh input port) every free port is a candidate.
        assert_eq!(
            algorithm_1(1 << LEFT, (RIGHT, NO_PORT), INJECT, &mut lfsr),
            Some(LEFT)
        );
    }

    /// The LFSR is maximal: 2^16 - 1 states before it repeats, and never 0.
    #[test]
    fn the_lfsr_has_a_full_period() {
        let (start, mut l) = (1u16, 1u16);
        let mut n = 0u32;
        loop {
            random(&mut l, 2);
            n += 1;
            assert_ne!(l, 0);
            if l == start {
                break;
            }
        }
        assert_eq!(n, 65_535);
    }

    /// As the layer's routing: the minimal ports first (priority 0), then every other port
    /// the router has (priority 1), as the layer's port numbers.
    #[test]
    fn the_routing_lists_minimal_ports_first() {
        let cube = Cube::new(TopologyKind::Mesh, vec![5, 5], false, false);
        let routing = Venice::new(cube.clone(), 1).unwrap();
        let port = |p| layer_port(&cube, p);
        let mut out = Vec::new();
        for (dest, (h, v)) in CASES.into_iter().take(8) {
            out.clear();
            let st = routing.init(12, dest.1 * 5 + dest.0, 0);
            routing.route(12, &st, &NoLoad, &mut out);
            let minimal: Vec<u32> = [h, v]
                .into_iter()
                .filter(|&p| p != NO_PORT)
                .map(port)
                .collect();
            let got: Vec<(u32, u8)> = out.iter().map(|c| (c.port, c.pri)).collect();
            assert_eq!(got.len(), 4, "the centre has four ports");
            assert!(got
                .iter()
                .take(minimal.len())
                .all(|&(p, pri)| pri == 0 && minimal.contains(&p)));
            assert!(got
                .iter()
                .skip(minimal.len())
                .all(|&(p, pri)| pri == 1 && !minimal.contains(&p)));
        }
        // A corner has two ports.
        out.clear();
        routing.route(0, &routing.init(0, 24, 0), &NoLoad, &mut out);
        let got: Vec<u32> = out.iter().map(|c| c.port).collect();
        assert_eq!(got, vec![port(RIGHT), port(UP)]);
        assert!(Venice::new(Cube::new(TopologyKind::Torus, vec![4, 4], true, false), 1).is_err());
    }
}
