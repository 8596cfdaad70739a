//! The input-output-queued router (MQSimNet Table I) and its links, for store-and-forward,
//! virtual cut-through and wormhole switching.
//!
//! ```text
//!            router r                                       router n
//!  link ──▶ [input VC buffers] ─crossbar─▶ [output VC buffers] ─link─▶ [input VC buffers] ...
//!           per port × VC                  per port × VC
//!           R: route, VC allocation        one flit per f per link, round robin over VCs
//!  credits ◀── L ──                        ◀── 0 ──                  ◀── L ──
//! ```
//!
//! * **Buffers.** Every port has an input buffer and an output buffer per VC
//!   (`input_buffer_bytes` / `output_buffer_bytes` split over the VCs). A buffer is a FIFO of
//!   flits that may hold several packets one after another. Credit back-pressure: a flit is sent
//!   only into a slot known to be free; the slot's credit comes back `L` after the flit left
//!   an input buffer (over the link) or at once for an output buffer (inside the router).
//! * **Routing and VC allocation.** When a packet's head is at the front of an input VC and has
//!   spent the router delay `R` there, the routing function gives candidate ports and VCs; the
//!   packet takes the unowned output VC with the most free credits (lower `pri` first) and owns
//!   it until its tail has entered it; packets may then follow each other through a VC's
//!   buffers, except where the routing function asks for an empty VC (Duato's adaptive VCs,
//!   allocated only when neither the output buffer nor the input buffer it feeds holds another
//!   packet). At its destination router it takes its endpoint's port.
//!   A packet that finds no free VC waits and retries whenever an output VC of that router
//!   frees up.
//! * **Crossbar.** Each input VC moves its front packet's flits into its output VC, one per
//!   flit time `f` (an input speed-up of one crossbar input per VC).
//! * **Link.** An output port's link sends one flit per `f` from one of its output VCs: a packet
//!   keeps the link while its flits follow back to back (BookSim's `hold_switch_for_packet`),
//!   then round robin to the next VC that has a flit and a credit (so a stalled packet never
//!   holds a link another VC could use). A flit sent at `t`
//!   is in the next input buffer at `t + f + L` and can leave it `R` later.
//! * **Switching.** Wormhole: a flit advances into any free slot. Virtual cut-through: a
//!   packet's head advances only into a buffer with room for the whole packet. Store-and-forward:
//!   also, a router forwards a packet only once all of it is in its input buffer.
//!
//! **No event per flit.** Flit times are kept as runs ([`super::runs`]): each stage moves, in
//! one step, every flit whose time is known — the flits that arrived or will arrive in
//! committed runs, into slots whose credits are known — with `t_k = max(t_{k-1} + f, avail_k,
//! credit_k)`, which is a run again whenever flits move in lockstep. A link starts a packet
//! only at the time it sends (so a later-ready VC never pre-empts an earlier one) and extends
//! the burst in place as further flits and credits become known; a private stage (crossbar,
//! injection) commits ahead. A packet flowing freely costs about one event per hop (the
//! link's decision when its head is ready), whatever its length and the buffers' depth; flits
//! stalled by back-pressure cost an event when they restart.

use super::routing::RouteState;
use super::runs::Runs;
use super::topology::{Graph, NONE};
use super::{NetEvent, NetParams, Network};
use crate::config::Switching;
use crate::time::Ps;
use std::collections::VecDeque;

/// A server to (re)consider: an input VC's routing and crossbar, an output port's link, an
/// endpoint's injection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    In(u32),
    Out(u32),
    Src(u32),
}

/// Flits of one packet committed into (`inn`) and out of (`out`) a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occ {
    pub pkt: u32,
    pub inn: u32,
    pub out: u32,
}

/// One VC buffer.
#[derive(Clone, Debug, Default)]
pub struct Buf {
    pub cap: u32,
    /// When each flit committed into the buffer can leave it, in FIFO order.
    pub avail: Runs,
    /// When each free slot can be written, in order. `avail.total() + credit.total() == cap`.
    pub credit: Runs,
    /// The packets whose flits are in (or owed to) the buffer, in FIFO order.
    pub pkts: VecDeque<Occ>,
    /// The next flit written into / read from the buffer goes no earlier.
    pub wfree: Ps,
    pub rfree: Ps,
}

impl Buf {
    fn new(cap: u32) -> Self {
        Self {
            cap,
            credit: Runs::with(0, cap),
            ..Default::default()
        }
    }

    /// [`Runs::settle`] both queues at the current time (never a later one: a reader may
    /// still ask about times before it).
    #[inline]
    fn settle(&mut self, now: Ps) {
        self.avail.settle(now);
        self.credit.settle(now);
    }
}

/// The state of every router and link.
pub struct Fabric {
    vcs: u32,
    /// Input and output VC buffers, by `global port × vcs + vc`.
    pub inb: Vec<Buf>,
    pub outb: Vec<Buf>,
    /// Per input VC: the output VC its front packet was allocated, or NONE.
    pub route: Vec<u32>,
    /// Per output VC: the packet that owns it and the input VC that packet comes from.
    pub owner: Vec<u32>,
    pub owner_in: Vec<u32>,
    /// Per output port: the link is busy until; the VC after the last one served.
    link_free: Vec<Ps>,
    rr: Vec<u32>,
    /// Per output port: the VC and packet whose burst the link is sending (NONE: none).
    cur: Vec<u32>,
    cur_pkt: Vec<u32>,
    /// Input VCs waiting for an output VC, per router, and a flag per input VC.
    waiting: Vec<Vec<u32>>,
    is_waiting: Vec<bool>,
    /// Earliest pending wake-up of each server (Ps::MAX: none).
    in_wake: Vec<Ps>,
    out_wake: Vec<Ps>,
    src_wake: Vec<Ps>,
    tasks: VecDeque<Task>,
    in_q: Vec<bool>,
    out_q: Vec<bool>,
    src_q: Vec<bool>,
}

impl Fabric {
    pub fn new(g: &Graph, p: &NetParams) -> Self {
        let ports = g.total_ports() as usize;
        let v = p.vcs as usize;
        let mut inb = Vec::with_capacity(ports * v);
        let mut outb = Vec::with_capacity(ports * v);
        for gp in 0..ports as u32 {
            let used = g.far(gp) != NONE || g.endpoint(gp) != NONE;
            for _ in 0..v {
                inb.push(Buf::new(if used { p.in_vc_flits } else { 0 }));
                outb.push(Buf::new(if used { p.out_vc_flits } else { 0 }));
            }
        }
        let n = ports * v;
        Self {
            vcs: p.vcs,
            inb,
            outb,
            route: vec![NONE; n],
            owner: vec![NONE; n],
            owner_in: vec![NONE; n],
            link_free: vec![0; ports],
            rr: vec![0; ports],
            cur: vec![NONE; ports],
            cur_pkt: vec![NONE; ports],
            waiting: vec![Vec::new(); g.routers as usize],
            is_waiting: vec![false; n],
            in_wake: vec![Ps::MAX; n],
            out_wake: vec![Ps::MAX; ports],
            src_wake: vec![Ps::MAX; g.endpoints() as usize],
            tasks: VecDeque::with_capacity(64),
            in_q: vec![false; n],
            out_q: vec![false; ports],
            src_q: vec![false; g.endpoints() as usize],
        }
    }

    /// Queue a server for the current event (once).
    #[inline]
    pub fn todo(&mut self, t: Task) {
        let flag = match t {
            Task::In(i) => &mut self.in_q[i as usize],
            Task::Out(g) => &mut self.out_q[g as usize],
            Task::Src(e) => &mut self.src_q[e as usize],
        };
        if !*flag {
            *flag = true;
            self.tasks.push_back(t);
        }
    }

    #[inline]
    pub fn next_task(&mut self) -> Option<Task> {
        let t = self.tasks.pop_front()?;
        match t {
            Task::In(i) => self.in_q[i as usize] = false,
            Task::Out(g) => self.out_q[g as usize] = false,
            Task::Src(e) => self.src_q[e as usize] = false,
        }
        Some(t)
    }

    fn wake_slot(&mut self, t: Task) -> &mut Ps {
        match t {
            Task::In(i) => &mut self.in_wake[i as usize],
            Task::Out(g) => &mut self.out_wake[g as usize],
            Task::Src(e) => &mut self.src_wake[e as usize],
        }
    }

    /// A wake-up event fired: serve the task if it is the pending one.
    pub fn woken(&mut self, t: Task, now: Ps) {
        let w = self.wake_slot(t);
        if *w == now {
            *w = Ps::MAX;
            self.todo(t);
        }
    }

    /// Per VC count.
    pub fn vcs(&self) -> u32 {
        self.vcs
    }

    /// The input VCs waiting for an output VC at router `r`.
    pub fn waiting(&self, r: u32) -> &[u32] {
        &self.waiting[r as usize]
    }
}

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
            cands.push(super::routing::Candidate::hop(
                self.g.local(dst_port),
                super::routing::all_vcs(vcs),
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

    /// The link of output port `gp`. A packet it is sending keeps it as long as its flits
    /// follow each other without a gap (BookSim's `hold_switch_for_packet`): when more of
    /// them become known, the burst is extended in place, so a packet flowing freely costs no
    /// event per buffer-full. Otherwise, when the link is free, round robin over the VCs with a
    /// flit and a credit now.
    fn serve_link(&mut self, gp: u32) {
        let now = self.now;
        let free = self.fab.link_free[gp as usize];
        let cur = self.fab.cur[gp as usize];
        if cur != NONE
            && free >= now
            && self
                .link_go(gp, cur, free, self.fab.cur_pkt[gp as usize])
                .is_ok()
        {
            return;
        }
        if free > now {
            self.link_rewake(gp, free);
            return;
        }
        let vcs = self.p.vcs;
        let mut earliest = Ps::MAX;
        for k in 0..vcs {
            let v = (self.fab.rr[gp as usize] + k) % vcs;
            match self.link_go(gp, v, now, NONE) {
                Ok(()) => return,
                Err(Some(start)) => earliest = earliest.min(start),
                Err(None) => {}
            }
        }
        if earliest != Ps::MAX {
            self.wake(Task::Out(gp), earliest);
        }
    }

    /// When the front packet of output VC `v` of port `gp` could next use the link, from `at`.
    fn link_start(&mut self, gp: u32, v: u32, at: Ps) -> Option<Ps> {
        let rule = self.rule(self.p.input_queued());
        let now = self.now;
        let (from, to, occ) = link_ends(&mut self.fab, &self.g, &self.p, gp, v, Some(now))?;
        let flits = self.pkts[occ.pkt as usize].flits;
        plan(at, &from, &to, occ.pkt, flits, occ.out, rule).map(|pl| pl.start)
    }

    /// Plan the front packet of output VC `v` of port `gp` from `at` and, if it can start
    /// exactly then (and is packet `only`, unless NONE), send its burst over the link, with
    /// the buffers found (and settled) once for both. `Err`: when it could start, if at all.
    fn link_go(&mut self, gp: u32, v: u32, at: Ps, only: u32) -> Result<(), Option<Ps>> {
        let rule = self.rule(self.p.input_queued());
        let (now, f) = (self.now, self.p.flit_time);
        let Some((mut from, mut to, occ)) =
            link_ends(&mut self.fab, &self.g, &self.p, gp, v, Some(now))
        else {
            return Err(None);
        };
        let flits = self.pkts[occ.pkt as usize].flits;
        let Some(pl) = plan(at, &from, &to, occ.pkt, flits, occ.out, rule) else {
            return Err(None);
        };
        if pl.start != at || (only != NONE && occ.pkt != only) {
            return Err(Some(pl.start));
        }
        let log = self.audit.as_mut().map(|a| &mut a.runs);
        let (n, last) = transfer(&mut from, &mut to, occ.pkt, pl, f, true, log);
        self.link_sent(gp, v, occ, n, last);
        Ok(())
    }

    /// [`Self::serve_link`] in one step for the common case of an input-queued router with
    /// one VC (NoSSD): the link is idle, and the whole packet at the front of the input VC
    /// that owns it is there now, in one run, with room for all of it across now. Then the
    /// round robin picks it, its plan starts now and the transfer moves it as one run; this
    /// does exactly that. `false` (having only settled buffers at now, which changes no
    /// answer): not the case, serve the link the general way. The sending VC is settled at
    /// now already; the one across too if `far_settled`.
    fn express_burst(&mut self, gp: u32, far_settled: bool) -> bool {
        let p = &self.p;
        if p.vcs != 1
            || !matches!(p.switching, Switching::Vct | Switching::Wormhole)
            || self.audit.is_some()
        {
            return false;
        }
        let now = self.now;
        let (f, transit, credit_delay) = (
            p.flit_time,
            p.flit_time + p.link_latency + p.router_delay,
            p.link_latency,
        );
        let g = gp as usize;
        let src = self.fab.owner_in[g];
        if self.fab.cur[g] != NONE || self.fab.link_free[g] > now || src == NONE {
            return false;
        }
        let src = src as usize;
        let Some(&occ) = self.fab.inb[src].pkts.front() else {
            return false;
        };
        let flits = self.pkts[occ.pkt as usize].flits;
        let b = &self.fab.inb[src];
        let Some(run) = b.avail.front() else {
            return false;
        };
        if occ.out != 0 || occ.inn != flits || run.t > now || run.n < flits || b.rfree > now {
            return false;
        }
        let far = self.g.far(gp);
        if far != NONE {
            let d = &mut self.fab.inb[far as usize];
            if !far_settled {
                d.settle(now);
            }
            let Some(c) = d.credit.front() else {
                return false;
            };
            if c.n < flits || c.t + (flits - 1) as Ps * c.stride > now || d.wfree > now {
                return false;
            }
        }
        // The transfer: every flit from now, one per f.
        let next = now + flits as Ps * f;
        let b = &mut self.fab.inb[src];
        b.avail.pop(flits);
        b.credit.push(now + credit_delay, flits, f);
        b.pkts.front_mut().expect("front packet").out = flits;
        b.rfree = next;
        if far != NONE {
            let d = &mut self.fab.inb[far as usize];
            d.credit.pop(flits);
            d.avail.push(now + transit, flits, f);
            d.pkts.push_back(Occ {
                pkt: occ.pkt,
                inn: flits,
                out: 0,
            });
            d.wfree = next;
        }
        self.link_sent(gp, 0, occ, flits, next - f);
        true
    }

    /// The link of port `gp` sent `n` flits of the front packet of output VC `v`, the last
    /// at `last`: its time, the packet's progress, and who to serve next.
    fn link_sent(&mut self, gp: u32, v: u32, occ: Occ, n: u32, last: Ps) {
        let vcs = self.p.vcs;
        let o = gp * vcs + v;
        let far = self.g.far(gp);
        let f = self.p.flit_time;
        let iq = self.p.input_queued();
        let src_in = self.fab.owner_in[o as usize];
        let arrive = f + self.p.link_latency;
        let from_id = if iq {
            src_in
        } else {
            self.fab.inb.len() as u32 + o
        };
        self.audit_moves(
            Some(from_id),
            (far != NONE).then_some((far * vcs + v, arrive)),
        );
        self.last_move = self.now;
        self.fab.link_free[gp as usize] = last + f;
        self.fab.rr[gp as usize] = if v + 1 == vcs { 0 } else { v + 1 };
        self.stats.port_busy[gp as usize] += n as Ps * f;
        let flits = self.pkts[occ.pkt as usize].flits;
        let tail_sent = occ.out + n == flits;
        if tail_sent {
            if !iq {
                self.fab.outb[o as usize].pkts.pop_front();
            }
            self.fab.cur[gp as usize] = NONE;
            if far == NONE {
                self.schedule(last + f + self.p.link_latency, NetEvent::Deliver(occ.pkt));
            }
        } else {
            self.fab.cur[gp as usize] = v;
            self.fab.cur_pkt[gp as usize] = occ.pkt;
        }
        // The input VC across would be served first among the tasks queued here. When it
        // holds only this packet, all that does is wake it when the head can route: done
        // directly at the end (nothing queued after it here touches that VC).
        let mut wake_far = NONE;
        if far != NONE {
            let i = far * vcs + v;
            if self.express
                && self.fab.tasks.is_empty()
                && self.fab.inb[i as usize].pkts.len() == 1
                && self.fab.route[i as usize] == NONE
            {
                wake_far = i;
            } else {
                self.fab.todo(Task::In(i));
            }
        }
        if iq {
            if n > 0 {
                self.wake_upstream(src_in);
            }
            if tail_sent {
                // The tail has left: the output VC is free, the input VC's next packet routes.
                // Queued alone, an empty VC would be served next and do nothing: skipped. Not
                // when other tasks are queued: one of them may fill the VC before its turn,
                // which must then come where it was queued, not where the filler puts it.
                self.fab.inb[src_in as usize].pkts.pop_front();
                self.fab.route[src_in as usize] = NONE;
                self.release(o);
                if !self.express
                    || !self.fab.tasks.is_empty()
                    || !self.fab.inb[src_in as usize].pkts.is_empty()
                {
                    self.fab.todo(Task::In(src_in));
                }
            }
        } else {
            let owner_in = self.fab.owner_in[o as usize];
            if owner_in != NONE {
                self.fab.todo(Task::In(owner_in));
            }
        }
        // An input-queued link with one VC has nothing else to send once its packet's tail
        // left (that VC's owner is gone): no re-wake to look for.
        if !(iq && tail_sent && vcs == 1) {
            self.link_rewake(gp, last + f);
        }
        if wake_far != NONE {
            // Settled at now before the burst, which added only later flits: no settle.
            let b = &self.fab.inb[wake_far as usize];
            let at = b.avail.first().expect("the packet's head").max(b.rfree);
            self.wake(Task::In(wake_far), at);
        }
    }

    /// A busy link, free at `end`: wake it then if another VC has flits waiting, or at the end
    /// of a known gap in the held packet's flits. (The held packet resumes by extension when
    /// its credits come back: no event.)
    #[inline]
    fn link_rewake(&mut self, gp: u32, end: Ps) {
        let vcs = self.p.vcs;
        let v = self.fab.cur[gp as usize];
        let mut wake = Ps::MAX;
        for w in 0..vcs {
            if !self.link_has_flits(gp * vcs + w) {
                continue;
            }
            if w == v {
                if let Some(start) = self.link_start(gp, v, end) {
                    wake = wake.min(start);
                }
            } else {
                wake = wake.min(end);
            }
        }
        if wake != Ps::MAX {
            self.wake(Task::Out(gp), wake);
        }
    }

    /// Injection from endpoint `e`'s source queue over its link into its router.
    fn serve_src(&mut self, e: u32) {
        let now = self.now;
        let vcs = self.p.vcs;
        let gp = self.g.ep_port(e);
        let transit = self.p.flit_time + self.p.link_latency + self.p.router_delay;
        let rule = self.rule(false);
        loop {
            let s = self.srcs[e as usize];
            if s.head == NONE {
                return;
            }
            let p = self.pkts[s.head as usize];
            if s.invc == NONE {
                // The input VC with the most free slots now (then in all), lowest first.
                let v = (0..vcs)
                    .max_by_key(|&v| {
                        let c = &self.fab.inb[(gp * vcs + v) as usize].credit;
                        (c.count_by(now), c.total(), std::cmp::Reverse(v))
                    })
                    .expect("a VC");
                self.srcs[e as usize].invc = gp * vcs + v;
            }
            let invc = self.srcs[e as usize].invc;
            self.fab.inb[invc as usize].settle(now);
            let src = &mut self.srcs[e as usize];
            let mut from = From::Source {
                at: p.sent,
                rfree: &mut src.rfree,
            };
            let mut to = To::Buf(&mut self.fab.inb[invc as usize], transit);
            let Some(pl) = plan(now, &from, &to, s.head, p.flits, s.sent, rule) else {
                return;
            };
            let log = self.audit.as_mut().map(|a| &mut a.runs);
            let (n, _) = transfer(&mut from, &mut to, s.head, pl, self.p.flit_time, false, log);
            self.audit_moves(None, Some((invc, self.p.flit_time + self.p.link_latency)));
            self.srcs[e as usize].sent += n;
            if n > 0 {
                self.last_move = now;
                self.fab.todo(Task::In(invc));
            }
            if self.srcs[e as usize].sent < p.flits {
                return;
            }
            self.pop_source(e);
        }
    }
}

/// A test's record of every flit entering and leaving every buffer, checked afterwards
/// against the buffers' capacities without trusting the credit bookkeeping.
#[derive(Default)]
pub struct Audit {
    /// Runs moved by the last transfer.
    runs: Vec<(Ps, u32)>,
    /// (buffer: input VC i, or inputs + output VC o; time; flits; +1 in / -1 out).
    pub moves: Vec<(u32, Ps, u32, i8)>,
}

impl Network {
    /// Log the runs of the last transfer: leaving buffer `from` when they move, entering
    /// buffer `to.0` `to.1` later (buffers numbered as in `moves`).
    #[inline]
    fn audit_moves(&mut self, from: Option<u32>, to: Option<(u32, Ps)>) {
        if self.audit.is_some() {
            self.audit_log(from, to);
        }
    }

    fn audit_log(&mut self, from: Option<u32>, to: Option<(u32, Ps)>) {
        let f = self.p.flit_time;
        let Some(a) = self.audit.as_mut() else {
            return;
        };
        for &(s, m) in &a.runs {
            for k in 0..m as Ps {
                if let Some(b) = from {
                    a.moves.push((b, s + k * f, 1, -1));
                }
                if let Some((b, d)) = to {
                    a.moves.push((b, s + d + k * f, 1, 1));
                }
            }
        }
        a.runs.clear();
    }

    /// Check the audit: no buffer ever held more flits than its capacity, and every credit
    /// is accounted for (`avail + credits = capacity` in every buffer).
    /// Every credit accounted for: `avail + credits = capacity` in every buffer.
    #[cfg(test)]
    pub(crate) fn audit_credits(&self) -> Result<(), String> {
        let fab = &self.fab;
        for (k, b) in fab.inb.iter().chain(&fab.outb).enumerate() {
            if b.avail.total() + b.credit.total() != b.cap {
                return Err(format!(
                    "buffer {k}: {} flits + {} credits != capacity {}",
                    b.avail.total(),
                    b.credit.total(),
                    b.cap
                ));
            }
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn audit_check(&self) -> Result<(), String> {
        self.audit_credits()?;
        let fab = &self.fab;
        let Some(a) = &self.audit else {
            return Ok(());
        };
        // Buffers are FIFOs: the k-th flit in is the k-th out. Pair them into [in, out)
        // intervals, then sweep (an interval ending at t frees its slot for one starting at t).
        let n_in = fab.inb.len();
        let mut ins: Vec<Vec<Ps>> = vec![Vec::new(); 2 * n_in];
        let mut outs: Vec<Vec<Ps>> = vec![Vec::new(); 2 * n_in];
        for &(b, t, _, d) in &a.moves {
            if d > 0 {
                ins[b as usize].push(t);
            } else {
                outs[b as usize].push(t);
            }
        }
        for b in 0..2 * n_in {
            let cap = if b < n_in {
                fab.inb[b].cap
            } else {
                fab.outb[b - n_in].cap
            };
            let mut edges = Vec::new();
            for (k, &t_in) in ins[b].iter().enumerate() {
                let t_out = outs[b].get(k).copied().unwrap_or(Ps::MAX);
                if t_out < t_in {
                    return Err(format!(
                        "buffer {b}: flit {k} leaves at {t_out} ps before it arrives at {t_in} ps"
                    ));
                }
                if t_out > t_in {
                    edges.push((t_in, 1i64));
                    edges.push((t_out, -1));
                }
            }
            if outs[b].len() > ins[b].len() {
                return Err(format!("buffer {b}: more flits out than in"));
            }
            edges.sort();
            let mut held = 0;
            for (t, d) in edges {
                held += d;
                if held > cap as i64 {
                    return Err(format!(
                        "buffer {b} holds {held} flits at {t} ps (capacity {cap})"
                    ));
                }
            }
        }
        Ok(())
    }
}

impl super::routing::LoadView for Network {
    /// Flits in the output VCs of the port and in the input VCs they feed.
    fn port_load(&self, r: u32, port: u32) -> u32 {
        let gp = self.g.port(r, port);
        let far = self.g.far(gp);
        (0..self.p.vcs)
            .map(|v| {
                let o = &self.fab.outb[(gp * self.p.vcs + v) as usize];
                let mut used = o.cap - o.credit.count_by(self.now);
                if far != NONE {
                    let i = &self.fab.inb[(far * self.p.vcs + v) as usize];
                    used += i.cap - i.credit.count_by(self.now);
                }
                used
            })
            .sum()
    }
}
