//! The stages of packet switching that use a link: an output port's link
//! ([`Network::serve_link`]) and an endpoint's injection ([`Network::serve_src`]).

use super::super::super::router::{Occ, Task};
use super::super::super::{NetEvent, Network};
use super::{link_ends, plan, transfer, From, To};
use crate::config::Switching;
use crate::engine::NONE;
use crate::time::Ps;

impl Network {
    /// The link of output port `gp`. A packet it is sending keeps it as long as its flits
    /// follow each other without a gap (BookSim's `hold_switch_for_packet`): when more of
    /// them become known, the burst is extended in place, so a packet flowing freely costs no
    /// event per buffer-full. Otherwise, when the link is free, round robin over the VCs with a
    /// flit and a credit now.
    pub(super) fn serve_link(&mut self, gp: u32) {
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
    pub(super) fn link_start(&mut self, gp: u32, v: u32, at: Ps) -> Option<Ps> {
        let rule = self.rule(self.p.input_queued());
        let now = self.now;
        let (from, to, occ) = link_ends(&mut self.fab, &self.g, &self.p, gp, v, Some(now))?;
        let flits = self.pkts[occ.pkt as usize].flits;
        plan(at, &from, &to, occ.pkt, flits, occ.out, rule).map(|pl| pl.start)
    }

    /// Plan the front packet of output VC `v` of port `gp` from `at` and, if it can start
    /// exactly then (and is packet `only`, unless NONE), send its burst over the link, with
    /// the buffers found (and settled) once for both. `Err`: when it could start, if at all.
    pub(super) fn link_go(&mut self, gp: u32, v: u32, at: Ps, only: u32) -> Result<(), Option<Ps>> {
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
    pub(super) fn express_burst(&mut self, gp: u32, far_settled: bool) -> bool {
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
    pub(super) fn link_sent(&mut self, gp: u32, v: u32, occ: Occ, n: u32, last: Ps) {
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
    pub(super) fn link_rewake(&mut self, gp: u32, end: Ps) {
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
    pub(super) fn serve_src(&mut self, e: u32) {
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
