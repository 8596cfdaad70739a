//! Naming a stuck network: the wait-for graph of buffers and the cycle in it.
//!
//! Nodes are input and output VC buffers. An input VC whose front packet waits for an output
//! VC points at the candidates owned by others; one blocked on the credits of its output VC
//! points at that VC. An output VC whose front packet has no credit downstream points at the
//! input VC it feeds; an empty one still owned points at its owner's input VC. A deadlock is a
//! cycle; the error lists its buffers by router, port and VC.

use super::Network;
use crate::config::Switching;
use crate::engine::NONE;

impl Network {
    /// The routers, ports and VCs of a wait-for cycle, or what is waiting if none is found.
    pub(crate) fn wait_cycle(&self) -> String {
        if self.p.switching == Switching::Circuit {
            return "circuit switching holds no link while it waits; no event is left to run"
                .into();
        }
        let vcs = self.p.vcs;
        let n = self.fab.inb.len() as u32;
        let edges: Vec<Vec<u32>> = (0..2 * n).map(|x| self.waits_on(x)).collect();
        // Iterative DFS with colours; a grey successor closes a cycle.
        let mut colour = vec![0u8; 2 * n as usize];
        for root in 0..2 * n {
            if colour[root as usize] != 0 || edges[root as usize].is_empty() {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            colour[root as usize] = 1;
            while let Some(&mut (x, ref mut k)) = stack.last_mut() {
                if let Some(&y) = edges[x as usize].get(*k) {
                    *k += 1;
                    match colour[y as usize] {
                        0 => {
                            colour[y as usize] = 1;
                            stack.push((y, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|s| s.0 == y).expect("grey");
                            let names: Vec<String> = stack[from..]
                                .iter()
                                .map(|s| self.buffer_name(s.0))
                                .collect();
                            return format!(
                                "wait-for cycle: {} -> back to the first",
                                names.join(" -> ")
                            );
                        }
                        _ => {}
                    }
                } else {
                    colour[x as usize] = 2;
                    stack.pop();
                }
            }
        }
        let stuck: Vec<String> = (0..n)
            .filter(|&i| !self.fab.inb[i as usize].pkts.is_empty())
            .take(8)
            .map(|i| self.buffer_name(i))
            .collect();
        format!(
            "no wait-for cycle found; packets wait at {} (vcs = {vcs})",
            stuck.join(", ")
        )
    }

    /// Node x: input VC x (< n) or output VC x - n.
    fn waits_on(&self, x: u32) -> Vec<u32> {
        let vcs = self.p.vcs;
        let n = self.fab.inb.len() as u32;
        let mut out = Vec::new();
        if x < n {
            let b = &self.fab.inb[x as usize];
            let Some(occ) = b.pkts.front() else {
                return out;
            };
            let o = self.fab.route[x as usize];
            if o == NONE {
                if b.avail.is_empty() {
                    return out;
                }
                let r = self.g.router_of(x / vcs);
                let p = &self.pkts[occ.pkt as usize];
                let mut cands = Vec::new();
                let dst = self.g.ep_port(p.dst);
                if self.g.router_of(dst) == r {
                    out.extend((0..vcs).map(|v| n + dst * vcs + v));
                } else {
                    self.routing.route(r, &p.route, self, &mut cands);
                    for c in &cands {
                        let gp = self.g.port(r, c.port);
                        out.extend(
                            (0..vcs)
                                .filter(|v| c.vcs >> v & 1 == 1)
                                .map(|v| n + gp * vcs + v),
                        );
                    }
                }
                out.retain(|&y| self.fab.owner[(y - n) as usize] != NONE);
            } else if self.p.input_queued() {
                out.extend(self.blocked_downstream(o, occ));
            } else if occ.inn > occ.out && self.fab.outb[o as usize].credit.is_empty() {
                out.push(n + o);
            }
        } else {
            let o = x - n;
            if let Some(occ) = self.fab.outb[o as usize].pkts.front() {
                out.extend(self.blocked_downstream(o, occ));
            }
            let w = self.fab.owner_in[o as usize];
            if out.is_empty() && w != NONE {
                out.push(w);
            }
        }
        out
    }

    /// The input VC across output VC `o`'s link, if `occ`'s next flit (or, for a head under
    /// vct or saf, the whole packet) has no room there.
    fn blocked_downstream(&self, o: u32, occ: &super::router::Occ) -> Option<u32> {
        let vcs = self.p.vcs;
        let far = self.g.far(o / vcs);
        if occ.inn <= occ.out || far == NONE {
            return None;
        }
        let down = far * vcs + o % vcs;
        let whole = occ.out == 0 && matches!(self.p.switching, Switching::Vct | Switching::Saf);
        let need = if whole {
            self.pkts[occ.pkt as usize].flits
        } else {
            1
        };
        (self.fab.inb[down as usize].credit.total() < need).then_some(down)
    }

    /// Input VC x (< n) or output VC x - n, by router, port and VC.
    fn buffer_name(&self, x: u32) -> String {
        let vcs = self.p.vcs;
        let n = self.fab.inb.len() as u32;
        let (side, b) = if x < n {
            ("input", x)
        } else {
            ("output", x - n)
        };
        format!("{} vc {} ({side})", self.port_name(b / vcs), b % vcs)
    }
}
