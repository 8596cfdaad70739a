//! Duato's fully adaptive routing (Duato, IEEE TPDS 1993; MQSimNet §IV-B): adaptive VCs on
//! any minimal port, plus escape VCs routed by dimension order with datelines
//! ([`super::dor`]). The escape sub-network is connected and deadlock-free, so a packet that
//! finds every adaptive VC busy can always wait for an escape VC, and a packet on an escape VC
//! may return to adaptive ones at the next router (Duato's condition).
//!
//! VCs `0..E` are escape (E = 1, or 2 dateline classes on wrap-around topologies); `E..vcs`
//! are adaptive. Adaptive candidates come first (`pri` 0), the escape one last (`pri` 1).
//!
//! Adaptive VCs are allocated atomically (only when empty of other packets, as BookSim's
//! `wait_for_tail_credit`): Duato's theory assumes a packet waiting at a router can always
//! wait for an escape VC, which fails if it may queue behind another packet inside an adaptive
//! VC — measured: a cycle of full adaptive VCs round a torus ring at load 1.0. Escape VCs, whose
//! dependencies are acyclic, are shared as FIFOs.

use super::dor::dor_hop;
use super::{Candidate, LoadView, RouteState, Routing};
use crate::interconnect::network::topology::cube::Cube;

pub struct Duato {
    cube: Cube,
    escape: [u64; 2],
    adaptive: u64,
}

impl Duato {
    /// `escape_classes` = 1 (mesh, hypercube) or 2 (dateline classes on ring and torus).
    pub fn new(cube: Cube, vcs: u32, escape_classes: u32) -> Self {
        let all = super::all_vcs(vcs);
        let esc = (1u64 << escape_classes) - 1;
        Self {
            escape: [1, 1 << (escape_classes - 1)],
            adaptive: all & !esc,
            cube,
        }
    }
}

impl Routing for Duato {
    fn name(&self) -> &'static str {
        "duato"
    }
    fn route(&self, r: u32, st: &RouteState, _view: &dyn LoadView, out: &mut Vec<Candidate>) {
        let c = &self.cube;
        for d in 0..c.ndims() {
            let (a, b) = (c.coord(r, d), c.coord(st.dest, d));
            if a == b {
                continue;
            }
            let (p, m) = c.offsets(d, a, b);
            let (p, m) = (p.unwrap_or(u32::MAX), m.unwrap_or(u32::MAX));
            for (plus, ok) in [(true, p <= m), (false, m <= p)] {
                if ok {
                    out.push(Candidate {
                        atomic: true,
                        ..Candidate::hop(c.port(d, plus), self.adaptive, *st)
                    });
                }
            }
        }
        if let Some((d, plus, class)) = dor_hop(c, r, st.dest) {
            out.push(Candidate {
                pri: 1,
                ..Candidate::hop(c.port(d, plus), self.escape[class as usize], *st)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;

    #[test]
    fn adaptive_ports_first_then_the_dor_escape() {
        let t = Cube::new(TopologyKind::Torus, vec![4, 4], true, false);
        let du = Duato::new(t.clone(), 4, 2);
        let mut out = Vec::new();
        let st = RouteState {
            dest: 2 + 4 * 2,
            ..Default::default()
        };
        // From 0 to (2, 2): a tie both ways in x and in y: four adaptive ports on VCs 2, 3,
        // then dor's +x on escape VC class 1 (+ from 0 to 2 does not wrap).
        du.route(0, &st, &super::super::NoLoad, &mut out);
        assert_eq!(out.len(), 5);
        assert!(out[..4].iter().all(|c| c.vcs == 0b1100 && c.pri == 0));
        assert_eq!(
            (out[4].port, out[4].vcs, out[4].pri),
            (t.port(0, true), 0b10, 1)
        );
        let m = Cube::new(TopologyKind::Mesh, vec![4, 4], false, false);
        let du = Duato::new(m, 2, 1);
        out.clear();
        du.route(0, &st, &super::super::NoLoad, &mut out);
        assert_eq!(
            out.iter().map(|c| c.vcs).collect::<Vec<_>>(),
            vec![0b10, 0b10, 0b01]
        );
    }
}
