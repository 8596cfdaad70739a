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
//! * **Switching.** Wormhole, virtual cut-through or store-and-forward decide when a head may
//!   advance.
//!
//! This file holds the routers' state ([`Fabric`]: buffers, VC ownership, links, the servers
//! to run); how flits move through it under each packet switching mode is
//! [`super::switching::packet`].

use super::runs::Runs;
use super::topology::Graph;
use super::{NetParams, Network};
use crate::engine::NONE;
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
    pub(crate) fn new(cap: u32) -> Self {
        Self {
            cap,
            credit: Runs::with(0, cap),
            ..Default::default()
        }
    }

    /// [`Runs::settle`] both queues at the current time (never a later one: a reader may
    /// still ask about times before it).
    #[inline]
    pub(crate) fn settle(&mut self, now: Ps) {
        self.avail.settle(now);
        self.credit.settle(now);
    }
}

/// The state of every router and link.
pub struct Fabric {
    pub(crate) vcs: u32,
    /// Input and output VC buffers, by `global port × vcs + vc`.
    pub inb: Vec<Buf>,
    pub outb: Vec<Buf>,
    /// Per input VC: the output VC its front packet was allocated, or NONE.
    pub route: Vec<u32>,
    /// Per output VC: the packet that owns it and the input VC that packet comes from.
    pub owner: Vec<u32>,
    pub owner_in: Vec<u32>,
    /// Per output port: the link is busy until; the VC after the last one served.
    pub(crate) link_free: Vec<Ps>,
    pub(crate) rr: Vec<u32>,
    /// Per output port: the VC and packet whose burst the link is sending (NONE: none).
    pub(crate) cur: Vec<u32>,
    pub(crate) cur_pkt: Vec<u32>,
    /// Input VCs waiting for an output VC, per router, and a flag per input VC.
    pub(crate) waiting: Vec<Vec<u32>>,
    pub(crate) is_waiting: Vec<bool>,
    /// Earliest pending wake-up of each server (Ps::MAX: none).
    pub(crate) in_wake: Vec<Ps>,
    pub(crate) out_wake: Vec<Ps>,
    pub(crate) src_wake: Vec<Ps>,
    pub(crate) tasks: VecDeque<Task>,
    pub(crate) in_q: Vec<bool>,
    pub(crate) out_q: Vec<bool>,
    pub(crate) src_q: Vec<bool>,
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

    pub(crate) fn wake_slot(&mut self, t: Task) -> &mut Ps {
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
