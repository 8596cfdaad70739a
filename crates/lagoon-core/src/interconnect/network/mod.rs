//! The general on-SSD network (issue 11; MQSimNet §III, Table I): topology, routing and
//! switching are three orthogonal parameters of one model, in the layout of SuperSim and
//! BookSim2.
//!
//! ```text
//!  topology/   routers, ports, links, coordinates, where endpoints attach (Topology trait);
//!              mesh2d.rs: a 2D mesh by its four named ports (Venice's view)
//!  routing/    candidate output ports and VCs for a packet at a router (Routing trait);
//!              venice.rs: Venice's Algorithm 1
//!  router.rs   input-output-queued router: input and output buffers per port and VC,
//!              credits, VC ownership, links, the servers to run
//!  switching/  packet/ (saf | vct | wormhole; flit times as runs), circuit.rs (a probe
//!              reserves the path, an ack returns, data flows), scout/ (Venice's scouts,
//!              §4), reservation.rs (the link-reservation table of both circuit modes)
//!  deadlock.rs the wait-for cycle named when a network is stuck
//!  traffic.rs  synthetic traffic and the network-only mode (`lagoon net`)
//! ```
//!
//! A [`Network`] runs packets and probes on a queue of its own. Venice's scouts
//! ([`switching::scout`]) run on the engine's queue instead, as an SSD back end
//! ([`crate::interconnect::net::NetSsd`] picks the mode, [`switching::Mode`]).
//!
//! ## Driving it
//! A [`Network`] owns its event queue. A user (an SSD back end, or the traffic generator)
//! calls [`Network::send`] to hand it a message from one endpoint to another, asks
//! [`Network::next_event_time`] when it next needs to run, and calls [`Network::advance`] to
//! run it up to a time; messages that arrived come back as [`Delivery`] records, in time order.
//! Endpoints `0..chips` are the flash chips, `chips..chips + controllers` the flash
//! controllers ([`topology::endpoint_routers`]).
//!
//! ```
//! use lagoon_core::config::SsdConfig;
//! use lagoon_core::interconnect::network::Network;
//! let cfg = SsdConfig::default(); // 8 x 8 mesh, XY routing, wormhole, MQSimNet's router
//! let mut net = Network::from_config(&cfg, 1).unwrap();
//! let fc0 = net.chips(); // the first controller
//! net.send(0, fc0, 63, 4096, 7); // 4 KB from controller 0 to chip 63, tag 7
//! let mut done = Vec::new();
//! while let Some(t) = net.next_event_time() {
//!     net.advance(t, &mut done).unwrap();
//! }
//! assert_eq!((done.len(), done[0].tag, done[0].hops), (1, 7, 14));
//! ```
//!
//! ## Time
//! Picoseconds ([`crate::time::Ps`]). A link moves `link_width_bytes` per `link_cycle_ns`; a
//! flit takes `f = ⌈flit_bytes / link_width_bytes⌉` cycles on it and arrives `L =
//! link_latency_ns` later; a router's pipeline takes `R = router_delay_cycles`. With `H`
//! router-to-router hops (so `H + 1` routers and `H + 2` links, injection and ejection
//! included) a packet of `P` flits alone in the network takes, from the first flit leaving
//! its source to the last arriving (tested in `router.rs` and `circuit.rs`):
//!
//! | switching | zero-load latency |
//! |---|---|
//! | wormhole, vct | `(H+2)(f+L) + (H+1)R + (P-1)f` |
//! | saf | `(H+2)(P·f+L) + (H+1)R` |
//! | circuit | `3(H+2)(f+L) + (H+1)R + (P-1)f` (probe, ack, data) |

pub mod deadlock;
pub mod router;
pub mod routing;
pub mod runs;
pub mod switching;
pub mod topology;
pub mod traffic;

use crate::config::{ConfigError, SsdConfig, Switching};
use crate::engine::EventQueue;
use crate::engine::NONE;
use crate::time::{ns, Ps};
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use routing::{Candidate, RouteState, Routing};
use serde::Serialize;
use topology::{Graph, Topology};

/// The network's parameters, resolved to picoseconds and flits.
#[derive(Clone, Debug, PartialEq)]
pub struct NetParams {
    pub switching: Switching,
    pub vcs: u32,
    pub flit_bytes: u32,
    /// Largest packet, flits.
    pub packet_flits: u32,
    /// Input and output buffer of one VC, flits. `out_vc_flits == 0`: an input-queued
    /// router (no output buffers; the link takes flits straight from the input VC).
    pub in_vc_flits: u32,
    pub out_vc_flits: u32,
    /// One link cycle.
    pub cycle: Ps,
    /// A flit's serialization on a link (`f`).
    pub flit_time: Ps,
    /// Link (and credit) propagation delay (`L`).
    pub link_latency: Ps,
    /// Router pipeline delay (`R`).
    pub router_delay: Ps,
    /// No flit moving for this long while flits wait is a deadlock.
    pub stall_limit: Ps,
}

impl NetParams {
    /// No output buffers: the link takes flits straight from the input VC that owns its
    /// output VC (NoSSD: "a 16KB buffer per router port", Venice §3.2).
    #[inline]
    pub fn input_queued(&self) -> bool {
        self.out_vc_flits == 0
    }

    pub fn from_config(cfg: &SsdConfig) -> Self {
        let n = &cfg.network;
        let cycle = ns(n.link_cycle_ns).max(1);
        let vcs = n.vcs.max(1);
        let flit = n.flit_bytes.max(1);
        let flit_time = cycle * n.flit_bytes.div_ceil(n.link_width_bytes.max(1)).max(1) as Ps;
        let link_latency = ns(n.link_latency_ns);
        let router_delay = cycle * n.router_delay_cycles as Ps;
        let packet = n.packet_flits.max(1) as Ps;
        Self {
            switching: n.switching,
            vcs,
            flit_bytes: flit,
            packet_flits: n.packet_flits.max(1),
            in_vc_flits: (n.input_buffer_bytes / vcs / flit).max(1),
            out_vc_flits: if n.output_buffer_bytes == 0 {
                0
            } else {
                (n.output_buffer_bytes / vcs / flit).max(1)
            },
            cycle,
            flit_time,
            link_latency,
            router_delay,
            stall_limit: flit_time.saturating_mul(1_000_000).saturating_add(
                (packet.saturating_mul(flit_time))
                    .saturating_add(link_latency + router_delay)
                    .saturating_mul(1_000),
            ),
        }
    }
}

/// A message that reached its destination endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Delivery {
    pub tag: u64,
    pub src: u32,
    pub dst: u32,
    pub flits: u32,
    /// When it was handed to [`Network::send`].
    pub sent: Ps,
    /// When its last flit arrived.
    pub delivered: Ps,
    /// Router-to-router hops of its last packet.
    pub hops: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("the network is stuck at t = {time_ns:.0} ns ({waiting} packets waiting): {cycle}")]
    Deadlock {
        time_ns: f64,
        waiting: u32,
        cycle: String,
    },
}

/// The network's events: small and `Copy`, ordered by (time, sequence) in its own queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// Route and switch the front packet of an input VC.
    WakeIn(u32),
    /// Arbitrate an output port's link.
    WakeOut(u32),
    /// Inject from an endpoint's source queue.
    WakeSrc(u32),
    /// A packet's last flit reached its endpoint.
    Deliver(u32),
    /// Circuit switching: a probe at its next router decides where to go.
    Probe(u32),
    /// Circuit switching: a cancelled probe is back at its source (retry).
    ProbeBack(u32),
    /// Circuit switching: the acknowledgement reached the source; data flows.
    CircuitUp(u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet {
    msg: u32,
    src: u32,
    dst: u32,
    flits: u32,
    sent: Ps,
    route: RouteState,
    hops: u32,
    /// Next packet in its source queue, or in the free list.
    next: u32,
    // Circuit switching: the router the probe is at, links reserved, first reserved port,
    // attempts.
    at: u32,
    links: u32,
    path: u32,
    tries: u32,
}

#[derive(Clone, Copy, Debug)]
struct Message {
    tag: u64,
    packets_left: u32,
    flits: u32,
    next_free: u32,
}

/// Per endpoint: its FIFO source queue (unbounded, as BookSim's) and injection link.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source {
    head: u32,
    tail: u32,
    queued: u32,
    /// Flits of the head packet sent; the input VC they go to.
    sent: u32,
    invc: u32,
    /// Next flit may leave at or after this.
    rfree: Ps,
    /// Circuit switching: the packet whose circuit the endpoint holds.
    active: u32,
}

/// Counters over the whole run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct NetStats {
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub flits_delivered: u64,
    /// Busy time of each link direction (global output port), ps.
    #[serde(skip)]
    pub port_busy: Vec<Ps>,
    /// Circuit switching: probes cancelled and re-sent.
    pub probe_retries: u64,
}

/// A network of routers carrying messages between endpoints.
pub struct Network {
    pub(crate) p: NetParams,
    pub(crate) topo: Box<dyn Topology>,
    pub(crate) g: Graph,
    pub(crate) routing: Box<dyn Routing>,
    chips: u32,
    q: EventQueue<NetEvent>,
    rng: Xoshiro256PlusPlus,
    pub(crate) pkts: Vec<Packet>,
    free_pkt: u32,
    msgs: Vec<Message>,
    free_msg: u32,
    pub(crate) srcs: Vec<Source>,
    pub(crate) fab: router::Fabric,
    circ: switching::circuit::Circuits,
    pub(crate) cands: Vec<Candidate>,
    /// Packets sent and not yet delivered; when a flit last moved.
    in_flight: u32,
    pub(crate) last_move: Ps,
    pub(crate) now: Ps,
    pub stats: NetStats,
    out: Vec<Delivery>,
    /// Tests: every flit's moves, to check buffer capacities independently of the credits.
    pub(crate) audit: Option<switching::packet::audit::Audit>,
    /// Serve a task directly where it would be the next one served, instead of queueing it
    /// (same results; tests turn it off to check that).
    pub(crate) express: bool,
    /// One VC and a routing that [`Routing::is_fixed`]: VC allocation takes the one port.
    pub(crate) fixed_route: bool,
    /// Looked at every 65,536 events of [`Network::advance_before`]: a stop request returns
    /// early, so a run of many network events per engine event answers Ctrl-C.
    stop: Option<crate::cancel::Cancel>,
}

impl Network {
    /// The network of a drive's `[network]` section, chips and controllers attached.
    pub fn from_config(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        cfg.validate()?;
        let topo = topology::build(cfg)?;
        let eps = topology::endpoint_routers(topo.as_ref(), cfg);
        let mut net = Self::new(
            topo,
            &eps,
            NetParams::from_config(cfg),
            cfg.network.routing,
            seed,
        )?;
        net.chips = cfg.network_chips();
        Ok(net)
    }

    /// A network on `topo` with endpoint `e` on router `endpoints[e]`.
    pub fn new(
        topo: Box<dyn Topology>,
        endpoints: &[u32],
        p: NetParams,
        routing: crate::config::RoutingKind,
        seed: u64,
    ) -> Result<Self, NetError> {
        if switching::Mode::of_keys(p.switching, routing) == switching::Mode::Scout {
            // Scouts run on the engine's queue, under an SSD's transfers.
            return Err(NetError::Config(ConfigError::Invalid {
                key: "network.routing".into(),
                value: routing.to_string(),
                reason: "circuits set up by Venice's scouts run under an SSD's transfers (lagoon run --arch net or venice); this network runs packets and probes".into(),
            }));
        }
        let g = Graph::new(topo.as_ref(), endpoints);
        let routing = routing::build(routing, topo.as_ref(), &g, p.vcs).map_err(|why| {
            ConfigError::Invalid {
                key: "network.routing".into(),
                value: routing.to_string(),
                reason: format!("not provided on network.topology = {}: {why}", topo.kind()),
            }
        })?;
        Ok(Self::with_routing(topo, g, p, routing, seed))
    }

    pub(crate) fn with_routing(
        topo: Box<dyn Topology>,
        g: Graph,
        p: NetParams,
        routing: Box<dyn Routing>,
        seed: u64,
    ) -> Self {
        let eps = g.endpoints();
        let fixed_route = p.vcs == 1 && routing.is_fixed();
        Self {
            fixed_route,
            fab: router::Fabric::new(&g, &p),
            circ: switching::circuit::Circuits::new(&g),
            srcs: vec![
                Source {
                    head: NONE,
                    tail: NONE,
                    queued: 0,
                    sent: 0,
                    invc: NONE,
                    rfree: 0,
                    active: NONE,
                };
                eps as usize
            ],
            stats: NetStats {
                port_busy: vec![0; g.total_ports() as usize],
                ..Default::default()
            },
            chips: eps,
            p,
            topo,
            g,
            routing,
            q: EventQueue::new(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            pkts: Vec::new(),
            free_pkt: NONE,
            msgs: Vec::new(),
            free_msg: NONE,
            cands: Vec::with_capacity(64),
            in_flight: 0,
            last_move: 0,
            stop: None,
            now: 0,
            out: Vec::new(),
            audit: None,
            express: true,
        }
    }

    pub fn params(&self) -> &NetParams {
        &self.p
    }
    pub fn topology(&self) -> &dyn Topology {
        self.topo.as_ref()
    }
    pub fn graph(&self) -> &Graph {
        &self.g
    }
    /// Endpoints `0..chips()` are flash chips; the controllers follow.
    pub fn chips(&self) -> u32 {
        self.chips
    }
    pub fn endpoints(&self) -> u32 {
        self.g.endpoints()
    }
    /// Packets sent and not yet delivered.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }
    /// Packets waiting in endpoint `e`'s source queue (not yet fully injected).
    pub fn queued(&self, e: u32) -> u32 {
        self.srcs[e as usize].queued
    }
    /// Endpoint `e` is sending: packets wait in its source queue, or the last one's flits
    /// are still leaving over its injection link.
    pub fn sending(&self, e: u32) -> bool {
        let s = &self.srcs[e as usize];
        s.queued > 0 || s.rfree > self.now.max(self.q.now())
    }
    /// Return early from [`Network::advance_before`] once `c` asks to stop (its caller looks
    /// at `c` too and ends the run).
    pub fn set_cancel(&mut self, c: crate::cancel::Cancel) {
        self.stop = Some(c);
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.q.events_processed()
    }

    /// Hand the network a message of `bytes` from endpoint `src` to endpoint `dst` at `now`
    /// (not before the last event run). It is cut into packets of at most `packet_flits`
    /// flits (one circuit under circuit switching) and comes back from [`Self::advance`] as
    /// one [`Delivery`] with `tag`.
    pub fn send(&mut self, now: Ps, src: u32, dst: u32, bytes: u64, tag: u64) {
        let flits = bytes
            .div_ceil(self.p.flit_bytes as u64)
            .clamp(1, u32::MAX as u64) as u32;
        self.send_flits(now, src, dst, flits, tag);
    }

    /// As [`Self::send`], in flits.
    pub fn send_flits(&mut self, now: Ps, src: u32, dst: u32, flits: u32, tag: u64) {
        assert!(
            src < self.endpoints() && dst < self.endpoints(),
            "no such endpoint"
        );
        self.q.advance_to(now.max(self.q.now()));
        self.now = self.q.now();
        let flits = flits.max(1);
        let per = if self.p.switching == Switching::Circuit {
            flits
        } else {
            self.p.packet_flits
        };
        let packets = flits.div_ceil(per);
        let m = Message {
            tag,
            packets_left: packets,
            flits,
            next_free: NONE,
        };
        let mi = if self.free_msg != NONE {
            let i = self.free_msg;
            self.free_msg = self.msgs[i as usize].next_free;
            self.msgs[i as usize] = m;
            i
        } else {
            self.msgs.push(m);
            (self.msgs.len() - 1) as u32
        };
        let (rs, rd) = (self.g.ep_router(src), self.g.ep_router(dst));
        let mut left = flits;
        for _ in 0..packets {
            let n = left.min(per);
            left -= n;
            let rand = self.rng.next_u32();
            let pk = Packet {
                msg: mi,
                src,
                dst,
                flits: n,
                sent: self.now,
                route: self.routing.init(rs, rd, rand),
                hops: 0,
                next: NONE,
                at: NONE,
                links: 0,
                path: NONE,
                tries: 0,
            };
            let pi = if self.free_pkt != NONE {
                let i = self.free_pkt;
                self.free_pkt = self.pkts[i as usize].next;
                self.pkts[i as usize] = pk;
                i
            } else {
                self.pkts.push(pk);
                (self.pkts.len() - 1) as u32
            };
            let s = &mut self.srcs[src as usize];
            if s.tail == NONE {
                s.head = pi;
            } else {
                self.pkts[s.tail as usize].next = pi;
            }
            s.tail = pi;
            s.queued += 1;
            self.in_flight += 1;
            self.stats.packets_sent += 1;
        }
        if self.in_flight == packets {
            // The network was idle: no flit was waiting before now.
            self.last_move = self.now;
        }
        self.fab.todo(router::Task::Src(src));
        self.run_tasks();
    }

    /// Time a message of `flits` takes over `hops` router-to-router hops alone in the
    /// network, from [`Self::send`] to its last flit's arrival: the zero-load formulas above,
    /// the packets after the first following it back to back (tested for 1-3 packets).
    pub fn zero_load(&self, hops: u32, flits: u32) -> Ps {
        let p = &self.p;
        let (h, flits) = (hops as Ps, flits.max(1) as Ps);
        let links = (h + 2) * p.link_latency + (h + 1) * p.router_delay;
        match p.switching {
            Switching::Wormhole | Switching::Vct => {
                links + (h + 2) * p.flit_time + (flits - 1) * p.flit_time
            }
            // The first packet is the largest, so each link then carries the rest back to back.
            Switching::Saf => {
                let first = flits.min(p.packet_flits as Ps);
                links + (h + 2) * first * p.flit_time + (flits - first) * p.flit_time
            }
            Switching::Circuit => {
                3 * (h + 2) * (p.flit_time + p.link_latency)
                    + (h + 1) * p.router_delay
                    + (flits - 1) * p.flit_time
            }
        }
    }

    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Ps> {
        self.q.peek_time()
    }

    /// Run every event at or before `until`; deliveries are appended to `out` in time order.
    /// A network in which no flit has moved for `stall_limit` while packets wait, or with no
    /// event left while packets wait, is deadlocked: the error names the wait-for cycle.
    pub fn advance(&mut self, until: Ps, out: &mut Vec<Delivery>) -> Result<(), NetError> {
        self.advance_before(until, Some(0), out) // bound 0: nothing beyond `until`
    }

    /// [`Self::advance`] to `until`, then on through each later event time strictly before
    /// `before` (None: no bound) while no message has been delivered: what a caller that
    /// advances one event time at a time, and stops at a delivery or at `before`, would do,
    /// in one call.
    pub fn advance_before(
        &mut self,
        mut until: Ps,
        before: Option<Ps>,
        out: &mut Vec<Delivery>,
    ) -> Result<(), NetError> {
        let delivered = out.len();
        while let Some(t) = self.next_event_time() {
            if t > until {
                if out.len() > delivered || before.is_some_and(|b| t >= b) {
                    break;
                }
                until = t;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.now = now;
            self.handle(now, ev);
            self.run_tasks();
            out.append(&mut self.out);
            if self.in_flight > 0 && now > self.last_move + self.p.stall_limit {
                return Err(self.deadlock_error());
            }
            if self.q.events_processed() & 0xffff == 0
                && self.stop.as_ref().is_some_and(|c| c.is_set())
            {
                return Ok(());
            }
        }
        if self.in_flight > 0 && self.q.is_empty() {
            return Err(self.deadlock_error());
        }
        Ok(())
    }

    fn handle(&mut self, now: Ps, ev: NetEvent) {
        match ev {
            NetEvent::WakeIn(i) => self.fab.woken(router::Task::In(i), now),
            NetEvent::WakeOut(g) => self.fab.woken(router::Task::Out(g), now),
            NetEvent::WakeSrc(e) => self.fab.woken(router::Task::Src(e), now),
            NetEvent::Deliver(p) => self.deliver(now, p),
            NetEvent::Probe(p) => self.probe(now, p),
            NetEvent::ProbeBack(p) => self.probe_back(now, p),
            NetEvent::CircuitUp(p) => self.circuit_up(now, p),
        }
    }

    #[inline]
    pub(crate) fn schedule(&mut self, t: Ps, ev: NetEvent) {
        self.q.schedule(t, ev);
    }

    pub(crate) fn random(&mut self) -> u32 {
        self.rng.next_u32()
    }

    /// Work the servers poked during the current event asked for.
    fn run_tasks(&mut self) {
        while let Some(t) = self.fab.next_task() {
            match self.p.switching {
                Switching::Circuit => {
                    if let router::Task::Src(e) = t {
                        self.circuit_start(e)
                    }
                }
                _ => self.serve(t),
            }
        }
    }

    /// A packet's last flit reached its endpoint at `now`.
    fn deliver(&mut self, now: Ps, pi: u32) {
        if self.p.switching == Switching::Circuit {
            self.circuit_release(pi);
        }
        let p = self.pkts[pi as usize];
        self.in_flight -= 1;
        self.stats.packets_delivered += 1;
        self.stats.flits_delivered += p.flits as u64;
        let m = &mut self.msgs[p.msg as usize];
        m.packets_left -= 1;
        if m.packets_left == 0 {
            self.out.push(Delivery {
                tag: m.tag,
                src: p.src,
                dst: p.dst,
                flits: m.flits,
                sent: p.sent,
                delivered: now,
                hops: p.hops,
            });
            m.next_free = self.free_msg;
            self.free_msg = p.msg;
        }
        self.pkts[pi as usize].next = self.free_pkt;
        self.free_pkt = pi;
    }

    /// Take the head packet off endpoint `e`'s source queue.
    pub(crate) fn pop_source(&mut self, e: u32) -> u32 {
        let s = &mut self.srcs[e as usize];
        let p = s.head;
        s.head = self.pkts[p as usize].next;
        if s.head == NONE {
            s.tail = NONE;
        }
        s.queued -= 1;
        s.sent = 0;
        s.invc = NONE;
        p
    }

    fn deadlock_error(&self) -> NetError {
        NetError::Deadlock {
            time_ns: crate::time::to_ns_f64(self.now),
            waiting: self.in_flight,
            cycle: self.wait_cycle(),
        }
    }

    /// Name of global port `gp` for messages: its router and what it joins.
    pub fn port_name(&self, gp: u32) -> String {
        let r = self.g.router_of(gp);
        let e = self.g.endpoint(gp);
        let what = if e != NONE {
            if e < self.chips {
                format!("port to chip {e}")
            } else {
                format!("port to controller {}", e - self.chips)
            }
        } else {
            let f = self.g.far(gp);
            format!(
                "port {} to router {}",
                self.g.local(gp),
                self.g.router_of(f)
            )
        };
        format!("{} {what}", self.topo.describe(r))
    }
}

#[cfg(test)]
mod tests;
