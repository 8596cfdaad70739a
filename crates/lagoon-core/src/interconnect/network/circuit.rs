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

use super::routing::NoLoad;
use super::topology::{Graph, NONE};
use super::{NetEvent, Network};
use crate::time::Ps;

pub struct Circuits {
    /// Per global output port: the circuit (packet) holding it, the next port of that
    /// circuit's path (a list threaded through the ports: no allocation), reserved since.
    owner: Vec<u32>,
    next: Vec<u32>,
    since: Vec<Ps>,
}

impl Circuits {
    pub fn new(g: &Graph) -> Self {
        let n = g.total_ports() as usize;
        Self {
            owner: vec![NONE; n],
            next: vec![NONE; n],
            since: vec![0; n],
        }
    }

    /// Whether global port `gp` is reserved.
    pub fn reserved(&self, gp: u32) -> bool {
        self.owner[gp as usize] != NONE
    }
}

impl Network {
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
        c.owner[gp as usize] = pi;
        c.next[gp as usize] = self.pkts[pi as usize].path;
        c.since[gp as usize] = self.now;
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
            c.owner[gp as usize] = NONE;
            self.stats.port_busy[gp as usize] += self.now - c.since[gp as usize];
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
        self.fab.todo(super::router::Task::Src(src));
    }
}
