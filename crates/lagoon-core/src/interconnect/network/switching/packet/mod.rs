//! Packet switching (store-and-forward, virtual cut-through, wormhole) through the routers
//! of [`super::super::router`]: the rules a packet's head obeys at each stage, and the
//! stages themselves (an input VC's routing, VC allocation and crossbar here; an output
//! port's link and an endpoint's injection in `link.rs`).
//!
//! * **Switching.** Wormhole: a flit advances into any free slot. Virtual cut-through: a
//!   packet's head advances only into a buffer with room for the whole packet. Store-and-forward:
//!   also, a router forwards a packet only once all of it is in its input buffer.
//!
//! **No event per flit.** Flit times are kept as runs ([`super::super::runs`]): each stage
//! moves, in one step, every flit whose time is known — the flits that arrived or will arrive in
//! committed runs, into slots whose credits are known — with `t_k = max(t_{k-1} + f, avail_k,
//! credit_k)`, which is a run again whenever flits move in lockstep. A link starts a packet
//! only at the time it sends (so a later-ready VC never pre-empts an earlier one) and extends
//! the burst in place as further flits and credits become known; a private stage (crossbar,
//! injection) commits ahead. A packet flowing freely costs about one event per hop (the
//! link's decision when its head is ready), whatever its length and the buffers' depth; flits
//! stalled by back-pressure cost an event when they restart.

pub mod audit;
mod link;

use super::super::router::{Buf, Fabric, Occ, Task};
use super::super::routing::RouteState;
use super::super::topology::Graph;
use super::super::{NetEvent, NetParams, Network};
use crate::config::Switching;
use crate::engine::NONE;
use crate::time::Ps;

/// Where a stage takes flits from.
enum From<'a> {
    /// A buffer; its credits go back to its writer after `credit_delay`.
    Buf(&'a mut Buf, Ps),
    /// An endpoint's source queue: every flit of the packet there since `at`.
    Source { at: Ps, rfree: &'a mut Ps },
}

/// Where a stage puts flits.
enum To<'a> {
    /// A buffer, which a flit sent at `t` enters (and can leave) at `t + transit`.
    Buf(&'a mut Buf, Ps),
    /// An endpoint: an unbounded sink.
    Sink,
}

/// First flit time and how many flits a stage may move now.
#[derive(Clone, Copy, Debug)]
struct Plan {
    start: Ps,
    limit: u32,
}

/// What the switching mode asks of a packet's head at a stage.
#[derive(Clone, Copy)]
struct Rule {
    /// Room for the whole packet in the next buffer (vct, saf).
    whole_room: bool,
    /// The whole packet in this buffer first (saf, at a router's crossbar).
    whole_here: bool,
}

/// The earliest time the front packet (`pkt`, `flits` long, `done` of them already moved by
/// this stage) can start moving from `from` to `to`, and how many flits it may move.
fn plan(
    now: Ps,
    from: &From,
    to: &To,
    pkt: u32,
    flits: u32,
    done: u32,
    rule: Rule,
) -> Option<Plan> {
    let (navail, a0, rfree, last_avail) = match from {
        From::Buf(b, _) => {
            let occ = b.pkts.front()?;
            debug_assert_eq!(occ.pkt, pkt);
            let n = occ.inn - occ.out;
            let last = (rule.whole_here && done == 0 && occ.inn == flits)
                .then(|| b.avail.at(n - 1))
                .flatten();
            (n, b.avail.first()?, b.rfree, last)
        }
        From::Source { at, rfree } => (flits - done, *at, **rfree, Some(*at)),
    };
    if navail == 0 {
        return None;
    }
    let (credits, c0, wfree) = match to {
        To::Buf(b, _) => (b.credit.total(), b.credit.first()?, b.wfree),
        To::Sink => (u32::MAX, 0, 0),
    };
    let mut start = now.max(a0).max(c0).max(rfree).max(wfree);
    if done == 0 {
        if rule.whole_room {
            if credits < flits {
                return None;
            }
            if let To::Buf(b, _) = to {
                start = start.max(b.credit.at(flits - 1).expect("counted"));
            }
        }
        if rule.whole_here {
            start = start.max(last_avail?);
        }
    }
    Some(Plan {
        start,
        limit: navail.min(credits),
    })
}

/// The two ends of output VC `v` of port `gp`'s link and the packet at the front of the
/// sending end: the output VC's buffer, or (input-queued router) the input VC that owns the
/// output VC, whose credits go upstream over its own link; the input VC across, or the
/// endpoint. `settle`: bring both buffers to that time first.
fn link_ends<'a>(
    fab: &'a mut Fabric,
    g: &Graph,
    p: &NetParams,
    gp: u32,
    v: u32,
    settle: Option<Ps>,
) -> Option<(From<'a>, To<'a>, Occ)> {
    let o = (gp * p.vcs + v) as usize;
    let far = g.far(gp);
    let down = (far != NONE).then_some((far * p.vcs + v) as usize);
    let transit = p.flit_time + p.link_latency + p.router_delay;
    let iq = p.input_queued();
    let (src, credit_delay) = if iq {
        match fab.owner_in[o] {
            NONE => return None,
            i => (i as usize, p.link_latency),
        }
    } else {
        (o, 0)
    };
    let sending = if iq {
        &mut fab.inb[src]
    } else {
        &mut fab.outb[src]
    };
    let occ = *sending.pkts.front()?;
    if let Some(now) = settle {
        sending.settle(now);
        if let Some(d) = down {
            fab.inb[d].settle(now);
        }
    }
    let (from, to) = match (iq, down) {
        (true, Some(d)) => {
            let (a, b) = pair_mut(&mut fab.inb, src, d);
            (a, To::Buf(b, transit))
        }
        (true, None) => (&mut fab.inb[src], To::Sink),
        (false, d) => (
            &mut fab.outb[src],
            d.map_or(To::Sink, |d| To::Buf(&mut fab.inb[d], transit)),
        ),
    };
    Some((From::Buf(from, credit_delay), to, occ))
}

/// Two distinct elements of a slice, both mutable.
fn pair_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "a link joins two different buffers");
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

/// Move up to `plan.limit` flits of the front packet from `from` to `to`, each at
/// `max(previous + f, its time in from, its slot's time in to)`: run by run, so flits in
/// lockstep cost one step. `contiguous`: stop at the first gap (a shared link). Returns the
/// flits moved and the last one's time; `log` (audits) gets each run moved.
fn transfer(
    from: &mut From,
    to: &mut To,
    pkt: u32,
    plan: Plan,
    f: Ps,
    contiguous: bool,
    mut log: Option<&mut Vec<(Ps, u32)>>,
) -> (u32, Ps) {
    let mut n = 0u32;
    let mut next = plan.start;
    let mut last = plan.start;
    while n < plan.limit {
        let (a, ra) = match from {
            From::Buf(b, _) => {
                let r = b.avail.front().expect("counted");
                (r.t, r.n)
            }
            From::Source { at, .. } => (*at, plan.limit - n),
        };
        let (c, rc) = match to {
            To::Buf(b, _) => {
                let r = b.credit.front().expect("counted");
                (r.t, r.n)
            }
            To::Sink => (0, u32::MAX),
        };
        let m = ra.min(rc).min(plan.limit - n);
        let s = next.max(a).max(c);
        if contiguous && n > 0 && s > next {
            break;
        }
        match from {
            From::Buf(b, cd) => {
                b.avail.pop(m);
                b.credit.push(s + *cd, m, f);
            }
            From::Source { .. } => {}
        }
        if let To::Buf(b, transit) = to {
            b.credit.pop(m);
            b.avail.push(s + *transit, m, f);
        }
        if let Some(l) = log.as_deref_mut() {
            l.push((s, m));
        }
        n += m;
        last = s + (m - 1) as Ps * f;
        next = last + f;
    }
    match from {
        From::Buf(b, _) => {
            b.pkts.front_mut().expect("front packet").out += n;
            b.rfree = next;
        }
        From::Source { rfree, .. } => **rfree = next,
    }
    if let To::Buf(b, _) = to {
        match b.pkts.back_mut() {
            Some(o) if o.pkt == pkt => o.inn += n,
            _ => b.pkts.push_back(Occ {
                pkt,
                inn: n,
                out: 0,
            }),
        }
        b.wfree = next;
    }
    (n, last)
}

impl Network {
    fn rule(&self, crossbar: bool) -> Rule {
        let sw = self.p.switching;
        Rule {
            whole_room: matches!(sw, Switching::Vct | Switching::Saf),
            whole_here: crossbar && sw == Switching::Saf,
        }
    }

    /// Serve `t` at `self.now`.
    pub(crate) fn serve(&mut self, t: Task) {
        match t {
            Task::In(i) => self.serve_in(i),
            Task::Out(g) => self.serve_link(g),
            Task::Src(e) => self.serve_src(e),
        }
    }

    /// Have `t` served at `at` (now, or by a wake-up event).
    #[inline]
    pub(crate) fn wake(&mut self, t: Task, at: Ps) {
        if at <= self.now {
            self.fab.todo(t);
            return;
        }
        let w = self.fab.wake_slot(t);
        if at < *w {
            *w = at;
            let ev = match t {
                Task::In(i) => NetEvent::WakeIn(i),
                Task::Out(g) => NetEvent::WakeOut(g),
                Task::Src(e) => NetEvent::WakeSrc(e),
            };
            self.schedule(at, ev);
        }
    }

    /// The stage that writes input VC `i`: the link of the port across, or the endpoint.
    fn upstream(&self, i: u32) -> Task {
        let gp = i / self.p.vcs;
        match self.g.endpoint(gp) {
            NONE => Task::Out(self.g.far(gp)),
            e => Task::Src(e),
        }
    }

    /// Routing and crossbar of input VC `i`.
    fn serve_in(&mut self, i: u32) {
        let now = self.now;
        loop {
            let Some(&occ) = self.fab.inb[i as usize].pkts.front() else {
                return;
            };
            let pi = occ.pkt;
            let flits = self.pkts[pi as usize].flits;
            self.fab.inb[i as usize].settle(now);
            let allocating = self.fab.route[i as usize] == NONE;
            if allocating {
                let b = &self.fab.inb[i as usize];
                let head = b.avail.first().expect("a head flit is committed");
                let at = head.max(b.rfree);
                if at > now {
                    self.wake(Task::In(i), at);
                    return;
                }
                if !self.allocate(i, pi) {
                    return;
                }
            }
            let o = self.fab.route[i as usize];
            if self.p.input_queued() {
                // No crossbar stage: the link pulls the packet's flits from here. With no
                // other task pending, the link's would be served next: serve it now.
                if self.express && self.fab.tasks.is_empty() {
                    // This VC was settled above, and the one across by the allocation.
                    if !self.express_burst(o / self.p.vcs, allocating) {
                        self.serve_link(o / self.p.vcs);
                    }
                } else {
                    self.fab.todo(Task::Out(o / self.p.vcs));
                }
                return;
            }
            self.fab.outb[o as usize].settle(now);
            let rule = self.rule(true);
            let (f, cd) = (self.p.flit_time, self.p.link_latency);
            let fab = &mut self.fab;
            let mut from = From::Buf(&mut fab.inb[i as usize], cd);
            let mut to = To::Buf(&mut fab.outb[o as usize], 0);
            if let Some(pl) = plan(now, &from, &to, pi, flits, occ.out, rule) {
                let log = self.audit.as_mut().map(|a| &mut a.runs);
                let (n, _) = transfer(&mut from, &mut to, pi, pl, f, false, log);
                let out_vc = self.fab.inb.len() as u32 + o;
                self.audit_moves(Some(i), Some((out_vc, 0)));
                if n > 0 {
                    self.last_move = now;
                    self.fab.todo(Task::Out(o / self.p.vcs));
                    // Freed slots matter upstream only if flits wait there for them.
                    self.wake_upstream(i);
                }
            }
            let occ = *self.fab.inb[i as usize].pkts.front().expect("still there");
            if occ.out < flits {
                return;
            }
            // The tail has crossed: the output VC is free for another packet.
            self.fab.inb[i as usize].pkts.pop_front();
            self.fab.route[i as usize] = NONE;
            self.release(o);
        }
    }

    /// Slots of input VC `i` were freed: its writer is served if flits wait there for them.
    #[inline]
    fn wake_upstream(&mut self, i: u32) {
        let up = self.upstream(i);
        let waits = match up {
            Task::Out(g) => self.link_has_flits(g * self.p.vcs + i % self.p.vcs),
            Task::Src(e) => self.srcs[e as usize].head != NONE,
            Task::In(_) => unreachable!("an input VC is written by a link or an endpoint"),
        };
        if waits {
            self.fab.todo(up);
        }
    }

    /// Output VC `o` has flits for its link: in its buffer, or (input-queued) in the input
    /// VC that owns it.
    #[inline]
    fn link_has_flits(&self, o: u32) -> bool {
        if self.p.input_queued() {
            let i = self.fab.owner_in[o as usize];
            i != NONE && !self.fab.inb[i as usize].avail.is_empty()
        } else {
            !self.fab.outb[o as usize].avail.is_empty()
        }
    }

    /// VC allocation for the packet at the front of input VC `i`.
    fn allocate(&mut self, i: u32, pi: u32) -> bool {
        let vcs = self.p.vcs;
        let gp_in = i / vcs;
        let r = self.g.router_of(gp_in);
        let (dst, route) = (self.pkts[pi as usize].dst, self.pkts[pi as usize].route);
        if self.fixed_route {
            return self.allocate_fixed(i, pi, r, dst, &route);
        }
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        let dst_port = self.g.ep_port(dst);
        if self.g.router_of(dst_port) == r {
            cands.push(super::super::routing::Candidate::hop(
                self.g.local(dst_port),
                super::super::routing::all_vcs(vcs),
                route,
            ));
        } else {
            self.routing.route(r, &route, &*self, &mut cands);
        }
        // One candidate VC in all: nothing to compare its score with.
        let scored = cands.len() > 1 || cands.first().is_some_and(|c| c.vcs.count_ones() > 1);
        // The unowned output VC with the most free credits (its own and the next buffer's),
        // lower pri first, then the first found.
        let mut best: Option<(u8, u32, u32, usize)> = None;
        for (k, c) in cands.iter().enumerate() {
            let gp = self.g.port(r, c.port);
            for v in 0..vcs {
                if c.vcs >> v & 1 == 0 {
                    continue;
                }
                let o = gp * vcs + v;
                let far = self.g.far(gp);
                if self.fab.owner[o as usize] != NONE
                    || (far == NONE && self.g.endpoint(gp) == NONE)
                {
                    continue;
                }
                if !self.p.input_queued() {
                    self.fab.outb[o as usize].settle(self.now);
                }
                if far != NONE {
                    self.fab.inb[(far * vcs + v) as usize].settle(self.now);
                }
                let ob = &self.fab.outb[o as usize];
                if c.atomic
                    && !(ob.pkts.is_empty()
                        && (far == NONE || self.fab.inb[(far * vcs + v) as usize].pkts.is_empty()))
                {
                    continue;
                }
                if !scored {
                    best = Some((c.pri, 0, o, k));
                    continue;
                }
                let mut score = ob.credit.count_by(self.now);
                if far != NONE {
                    score += self.fab.inb[(far * vcs + v) as usize]
                        .credit
                        .count_by(self.now);
                }
                let better = match best {
                    None => true,
                    Some((bp, bs, _, _)) => c.pri < bp || (c.pri == bp && score > bs),
                };
                if better {
                    best = Some((c.pri, score, o, k));
                }
            }
        }
        let chosen = best.map(|(_, _, o, k)| (o, cands[k].next));
        self.cands = cands;
        let Some((o, next)) = chosen else {
            self.wait_for_vc(i, r);
            return false;
        };
        self.fab.owner[o as usize] = pi;
        self.fab.owner_in[o as usize] = i;
        self.fab.route[i as usize] = o;
        let pk = &mut self.pkts[pi as usize];
        pk.route = next;
        if self.g.far(o / vcs) != NONE {
            pk.hops += 1;
        }
        true
    }

    /// [`Self::allocate`] with one VC and a fixed routing: the one candidate (the endpoint's
    /// port at the destination router), taken if its VC is unowned; the routing state is
    /// unchanged. The same choices and side effects as the candidate list, without it. The
    /// allocation's four writes are `allocate`'s less the routing state's: one helper for
    /// both, writing it back, cost 2.5 % more instructions on NoSSD (callgrind, QD 8).
    fn allocate_fixed(&mut self, i: u32, pi: u32, r: u32, dst: u32, route: &RouteState) -> bool {
        let dst_port = self.g.ep_port(dst);
        let port = if self.g.router_of(dst_port) == r {
            Some(self.g.local(dst_port))
        } else {
            self.routing.fixed_port(r, route)
        };
        if let Some(port) = port {
            let o = self.g.port(r, port);
            let far = self.g.far(o);
            if self.fab.owner[o as usize] == NONE && (far != NONE || self.g.endpoint(o) != NONE) {
                if !self.p.input_queued() {
                    self.fab.outb[o as usize].settle(self.now);
                }
                if far != NONE {
                    self.fab.inb[far as usize].settle(self.now);
                }
                self.fab.owner[o as usize] = pi;
                self.fab.owner_in[o as usize] = i;
                self.fab.route[i as usize] = o;
                if far != NONE {
                    self.pkts[pi as usize].hops += 1;
                }
                return true;
            }
        }
        self.wait_for_vc(i, r);
        false
    }

    /// Input VC `i` found no free output VC at router `r`: it waits for one to free up.
    fn wait_for_vc(&mut self, i: u32, r: u32) {
        if !self.fab.is_waiting[i as usize] {
            self.fab.is_waiting[i as usize] = true;
            self.fab.waiting[r as usize].push(i);
        }
    }

    /// Output VC `o` is free: the packets waiting at its router try again.
    #[inline]
    fn release(&mut self, o: u32) {
        self.fab.owner[o as usize] = NONE;
        self.fab.owner_in[o as usize] = NONE;
        let r = self.g.router_of(o / self.p.vcs) as usize;
        if self.fab.waiting[r].is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.fab.waiting[r]);
        for &w in &waiting {
            self.fab.is_waiting[w as usize] = false;
            self.fab.todo(Task::In(w));
        }
        let mut waiting = waiting;
        waiting.clear();
        self.fab.waiting[r] = waiting;
    }
}
