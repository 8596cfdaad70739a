//! Table routing for any topology, custom ones included: shortest *legal* up*/down* paths
//! (Autonet; Schroeder et al., 1991). Routers are ranked by BFS level from router 0 (ties by
//! id); a link towards a lower rank is "up". A legal route never takes an up link after a down
//! link, so no cycle of channel dependencies can form and one VC suffices. The table holds the
//! legal distance from every (router, phase) to every destination; every port on a shortest
//! legal path is a candidate (adaptive among them).

use super::{all_vcs, Candidate, LoadView, RouteState, Routing};
use crate::engine::NONE;
use crate::interconnect::network::topology::Graph;

pub struct UpDown {
    routers: u32,
    /// Per router: (local port, neighbour, link is up) for each connected network port.
    ports: Vec<Vec<(u32, u32, bool)>>,
    /// `dist[(dest * routers + r) * 2 + phase]`: legal hops (u16::MAX: none).
    dist: Vec<u16>,
    vcs: u64,
}

const UP_OK: u8 = 0;
const DOWN_ONLY: u8 = 1;

impl UpDown {
    pub fn new(g: &Graph, vcs: u32) -> Self {
        let n = g.routers;
        let level = g.distances_to(0);
        let rank = |r: u32| (level[r as usize], r);
        let ports: Vec<Vec<(u32, u32, bool)>> = (0..n)
            .map(|r| {
                (0..g.net_ports(r))
                    .filter_map(|p| {
                        let f = g.far(g.port(r, p));
                        (f != NONE).then(|| {
                            let m = g.router_of(f);
                            (p, m, rank(m) < rank(r))
                        })
                    })
                    .collect()
            })
            .collect();
        let mut dist = vec![u16::MAX; (n as usize) * (n as usize) * 2];
        let mut queue = std::collections::VecDeque::new();
        for dest in 0..n {
            let base = dest as usize * n as usize;
            let at = |r: u32, ph: u8| (base + r as usize) * 2 + ph as usize;
            dist[at(dest, UP_OK)] = 0;
            dist[at(dest, DOWN_ONLY)] = 0;
            queue.extend([(dest, UP_OK), (dest, DOWN_ONLY)]);
            // Backwards over moves u -> v: an up move keeps phase UP_OK; a down move enters
            // DOWN_ONLY from either phase.
            while let Some((v, ph)) = queue.pop_front() {
                let dv = dist[at(v, ph)];
                for &(_, u, _) in &ports[v as usize] {
                    let up = rank(v) < rank(u);
                    let from: &[u8] = match (up, ph) {
                        (true, UP_OK) => &[UP_OK],
                        (false, DOWN_ONLY) => &[UP_OK, DOWN_ONLY],
                        _ => &[],
                    };
                    for &pu in from {
                        if dist[at(u, pu)] == u16::MAX {
                            dist[at(u, pu)] = dv + 1;
                            queue.push_back((u, pu));
                        }
                    }
                }
            }
        }
        Self {
            routers: n,
            ports,
            dist,
            vcs: all_vcs(vcs),
        }
    }

    #[inline]
    fn d(&self, dest: u32, r: u32, ph: u8) -> u16 {
        self.dist[(dest as usize * self.routers as usize + r as usize) * 2 + ph as usize]
    }
}

impl Routing for UpDown {
    fn name(&self) -> &'static str {
        "table"
    }
    fn route(&self, r: u32, st: &RouteState, _view: &dyn LoadView, out: &mut Vec<Candidate>) {
        let here = self.d(st.dest, r, st.phase);
        for &(port, m, up) in &self.ports[r as usize] {
            if up && st.phase == DOWN_ONLY {
                continue;
            }
            let ph = if up { UP_OK } else { DOWN_ONLY };
            if self.d(st.dest, m, ph) as u32 + 1 == here as u32 {
                out.push(Candidate::hop(
                    port,
                    self.vcs,
                    RouteState { phase: ph, ..*st },
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::walk;
    use super::*;
    use crate::config::network::CustomTopology;
    use crate::interconnect::network::topology::custom::Custom;

    /// A ring of 6 as a custom topology: routes never take an up link after a down link, and
    /// are shortest when the shortest path is legal.
    #[test]
    fn up_down_routes_are_legal() {
        let c = Custom::new(CustomTopology {
            routers: 6,
            links: (0..6).map(|i| [i, (i + 1) % 6]).collect(),
            chips: vec![],
            controllers: vec![],
        });
        let g = Graph::new(&c, &[]);
        let t = UpDown::new(&g, 1);
        let level = g.distances_to(0);
        for s in 0..6 {
            for d in 0..6 {
                let path = walk(&t, &c, s, d, 0);
                let mut went_down = false;
                let mut r = s;
                for &(at, port) in &path {
                    let (m, _) =
                        crate::interconnect::network::topology::Topology::neighbor(&c, at, port)
                            .unwrap();
                    let up = (level[m as usize], m) < (level[r as usize], r);
                    assert!(!(up && went_down), "{s}->{d}: {path:?}");
                    went_down |= !up;
                    r = m;
                }
                assert!(path.len() <= 5);
            }
        }
        // 2 -> 4 over 3 is down (level 2 -> 3) then up (3 -> 2): illegal; it goes 2-1-0-5-4.
        assert_eq!(walk(&t, &c, 2, 4, 0).len(), 4);
        assert_eq!(walk(&t, &c, 1, 2, 0).len(), 1);
    }
}
