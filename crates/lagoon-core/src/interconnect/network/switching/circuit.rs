//! Circuit switching: a one-flit probe reserves a path link by link, routed by the same
//! routing function as packets (first free candidate, lower `pri` first); at the destination an
//! acknowledgement returns over the path, then the whole message streams over it without
//! router delays, and the links are released when its last flit arrives. An endpoint holds one
//! circuit at a time (Venice's controllers do the same, §4.2).
//!
//! Deadlock freedom by construction: a probe never waits while holding links. A probe that
//! finds no free candidate port cancels: its links are released and it returns to its source
//! (one link time per link), which re-sends it after a random back-off of up to
//! `min(tries, 16)` probe hops (so competing probes do not retry in lockstep).
//!
//! Timing (`f` flit time, `L` link latency, `R` router delay, `H` router-to-router hops, so
//! `H + 2` links): probe `(H+2)(f+L) + (H+1)R`, ack `(H+2)(f+L)`, data `(H+2)(f+L) + (P-1)f`.
//!
//! The links a probe holds are in the [`Reservations`] table Venice's scouts
//! ([`super::scout`]) keep too, a slot per link direction here. The rest is this mode's own:
//! the first free candidate rather than Algorithm 1's random pick, cancelling the whole path
//! rather than backtracking one router, the back-off drawn from the network's generator, and
//! these times.

use super::super::routing::NoLoad;
use super::super::topology::Graph;
use super::super::{NetEvent, Network};
use super::reservation::Reservations;
use crate::engine::NONE;
use crate::time::Ps;

/// The circuits' state: which circuit holds each link direction (the shared
/// [`Reservations`], a slot per global output port), and each circuit's path as a list
/// threaded through its ports (no allocation).
pub struct Circuits {
    table: Reservations,
    /// Per global output port: the next port of the path of the circuit holding it.
    next: Vec<u32>,
}

impl Circuits {
    pub fn new(g: &Graph) -> Self {
        let n = g.total_ports() as usize;
        Self {
            table: Reservations::new(n),
            next: vec![NONE; n],
        }
    }

    /// Whether global port `gp` is reserved.
    pub fn reserved(&self, gp: u32) -> bool {
        self.table.is_held(gp as usize)
    }

    /// Circuit `pi`'s path from its first port, as slots of the table (for checks).
    #[cfg(test)]
    pub(crate) fn path(&self, first: u32) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors((first != NONE).then_some(first), |&gp| {
            let n = self.next[gp as usize];
            (n != NONE).then_some(n)
        })
        .map(|gp| gp as usize)
    }

    /// The table against every circuit's path (for tests).
    #[cfg(test)]
    pub(crate) fn check(&self, circuits: impl Iterator<Item = (u32, u32)>) -> Result<(), String> {
        self.table
            .check(circuits.map(|(pi, first)| (pi, self.path(first))))
    }
}

impl Network {
    /// Every circuit's path (set up or being probed) as the reservation table holds it, no
    /// link direction in two (for tests, after every event).
    #[cfg(test)]
    pub(crate) fn check_circuits(&self) -> Result<(), String> {
        let held = self.pkts.iter().enumerate().filter(|(_, p)| p.path != NONE);
        self.circ.check(held.map(|(pi, p)| (pi as u32, p.path)))
    }

    fn probe_hop(&self) -> Ps {
        self.p.flit_time + self.p.link_latency + self.p.router_delay
    }

    /// Endpoint `e` sends the probe of its next message, if it holds no circuit.
    pub(crate) fn circuit_start(&mut self, e: u32) {
        let s = self.srcs[e as usize];
        if s.active != NONE || s.head == NONE {
            return;
        }
        let pi = self.pop_source(e);
        self.srcs[e as usize].active = pi;
        self.launch_probe(pi);
    }

    fn launch_probe(&mut self, pi: u32) {
        let rand = self.random();
        let p = &mut self.pkts[pi as usize];
        let (rs, rd) = (self.g.ep_router(p.src), self.g.ep_router(p.dst));
        p.route = self.routing.init(rs, rd, rand);
        p.at = rs;
        p.links = 1;
        p.hops = 0;
        p.path = NONE;
        let t = self.now + self.probe_hop();
        self.schedule(t, NetEvent::Probe(pi));
    }

    fn reserve(&mut self, pi: u32, gp: u32) {
        let c = &mut self.circ;
        c.table.reserve(gp as usize, pi, self.now);
        c.next[gp as usize] = self.pkts[pi as usize].path;
        let p = &mut self.pkts[pi as usize];
        p.path = gp;
        p.links += 1;
        self.last_move = self.now;
    }

    /// Free every link of circuit `pi`.
    fn release_path(&mut self, pi: u32) {
        let mut gp = self.pkts[pi as usize].path;
        while gp != NONE {
            let c = &mut self.circ;
            self.stats.port_busy[gp as usize] += c.table.release(gp as usize, self.now);
            gp = std::mem::replace(&mut c.next[gp as usize], NONE);
        }
        self.pkts[pi as usize].path = NONE;
    }

    /// The probe of `pi` is at router `at` and decides.
    pub(crate) fn probe(&mut self, now: Ps, pi: u32) {
        let p = self.pkts[pi as usize];
        let r = p.at;
        let eject = self.g.ep_port(p.dst);
        let link = self.p.flit_time + self.p.link_latency;
        if self.g.router_of(eject) == r {
            if !self.circ.reserved(eject) {
                self.reserve(pi, eject);
                let links = self.pkts[pi as usize].links as Ps;
                // At the endpoint after one link; the ack takes a link time per link.
                self.schedule(now + link + links * link, NetEvent::CircuitUp(pi));
                return;
            }
        } else {
            let mut cands = std::mem::take(&mut self.cands);
            cands.clear();
            self.routing.route(r, &p.route, &NoLoad, &mut cands);
            cands.sort_by_key(|c| c.pri);
            let free = cands
                .iter()
                .map(|c| (self.g.port(r, c.port), c.next))
                .find(|&(gp, _)| !self.circ.reserved(gp));
            self.cands = cands;
            if let Some((gp, next)) = free {
                self.reserve(pi, gp);
                let pk = &mut self.pkts[pi as usize];
                pk.route = next;
                pk.hops += 1;
                pk.at = self.g.router_of(self.g.far(gp));
                self.schedule(now + self.probe_hop(), NetEvent::Probe(pi));
                return;
            }
        }
        // Blocked: cancel, release, go back and retry after a random back-off.
        self.release_path(pi);
        let tries = {
            let pk = &mut self.pkts[pi as usize];
            pk.tries += 1;
            pk.tries
        };
        self.stats.probe_retries += 1;
        let span = 1 + tries.min(16) as u64 * self.probe_hop();
        let backoff = self.random() as u64 % span;
        self.schedule(
            now + p.links as Ps * link + backoff,
            NetEvent::ProbeBack(pi),
        );
    }

    pub(crate) fn probe_back(&mut self, _now: Ps, pi: u32) {
        self.launch_probe(pi);
    }

    /// The ack is back: the message streams over the circuit.
    pub(crate) fn circuit_up(&mut self, now: Ps, pi: u32) {
        let p = self.pkts[pi as usize];
        let link = self.p.flit_time + self.p.link_latency;
        let tail = now + p.links as Ps * link + (p.flits as Ps - 1) * self.p.flit_time;
        self.last_move = now;
        self.schedule(tail, NetEvent::Deliver(pi));
    }

    /// The message arrived: free the circuit; its source may send the next probe.
    pub(crate) fn circuit_release(&mut self, pi: u32) {
        self.release_path(pi);
        let src = self.pkts[pi as usize].src;
        self.srcs[src as usize].active = NONE;
        self.fab.todo(super::super::router::Task::Src(src));
    }
}
