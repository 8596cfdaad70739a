//! `--arch net`: an SSD back end on the general network layer ([`super::network`]; MQSimNet
//! §III): any topology × routing × switching of `[network]` between the flash controllers and
//! the flash chips. NoSSD ([`nossd_layer`]) and Venice ([`venice_layer`]) are configurations
//! of it.
//!
//! The layer's switching mode ([`Mode`]) says how a transfer crosses it: packets and probes
//! carry it as a message of the layer's [`Network`] ([`Messages`], below); Venice's scouts
//! ([`Scouts`]) reserve a circuit for it and run on the engine's queue. [`NetSsd`] is either,
//! by enum.
//!
//! ## Transfers as messages
//! A transfer is one message: a command (with write data) from a controller to the chip, or
//! read data from the chip to a controller (MQSimNet's network bridge sends a message per
//! bus communication and takes its arrival as the communication's end, §III). Controller
//! choice is Venice's rule (§4.2), as NoSSD's: the closest controller (fewest router hops,
//! then lowest index) with nothing waiting to inject, else the closest.
//!
//! The network keeps its own event queue; this back end keeps one `Wake` in the engine's
//! queue at the network's next event time and runs the network up to each wake, so the
//! network costs the engine one event per distinct network time, not one per flit.
//!
//! A transfer has a *path conflict* (Venice §3.1) when it took longer than it would alone in
//! the network on the hops it took ([`Network::zero_load`]): it waited for its controller's
//! injection link, a buffer, a virtual channel or a link.

use super::network::switching::scout::Scouts;
use super::network::switching::Mode;
use super::network::{Delivery, NetError, Network};
use super::{BackEnd, IcEvent, Interconnect, InterconnectStats, NetEvent, NetworkStats, Transfer};
use crate::config::{ConfigError, SsdConfig};
#[cfg(test)]
use crate::engine::EventQueue;
use crate::engine::Queue;
use crate::engine::NONE;
use crate::time::Ps;

/// NoSSD (Venice §3.2, Fig. 2d) as a configuration of the layer: the mesh of the flash array
/// with a controller per row on the west edge, XY routing, virtual cut-through, one VC,
/// 16 KB input buffers per port (`nossd_buffer_bytes`, also the largest packet), links at
/// `nossd_link_mb_s` (or the channel rate) a byte per cycle, 1-byte flits (so a packet's
/// head cuts through a router as soon as its first byte is in, as the packet model before
/// the layer did). A head's time per hop, `f + L + R`, keeps NoSSD's router delay plus one
/// link cycle (`(router_delay_cycles + 1) × link_cycle_ns`): the link latency is what is left
/// of it after the flit time and router pipeline. The layer's router is input-output queued:
/// its output buffers (a packet's worth, as VCT needs) are the difference to the packet
/// model, explained in `docs/MODEL.md`.
///
/// The layer's keys it sets must lie in their ranges; when one does not, the error names the
/// key the user set that it comes from (a user never wrote `network.packet_flits` for NoSSD).
pub fn nossd_layer(cfg: &SsdConfig) -> Result<SsdConfig, ConfigError> {
    use crate::config::{ControllerAttach, RoutingKind, Switching, TopologyKind};
    let mut c = cfg.clone();
    let n = &mut c.network;
    let (rate_key, rate) = if n.nossd_link_mb_s > 0.0 {
        ("network.nossd_link_mb_s", n.nossd_link_mb_s)
    } else {
        ("flash.channel_mb_s", cfg.flash.channel_mb_s)
    };
    // The key the user set behind each key NoSSD sets, its value, and how one gives the other.
    let source = |derived: &str| -> Option<(&str, String, &str)> {
        let u = &cfg.network;
        Some(match derived {
            "network.packet_flits" | "network.input_buffer_bytes" => (
                "network.nossd_buffer_bytes",
                u.nossd_buffer_bytes.to_string(),
                "NoSSD's largest packet and input buffer are this many 1-byte flits",
            ),
            "network.link_cycle_ns" => (
                rate_key,
                rate.to_string(),
                "NoSSD's links move a byte per cycle, a cycle of 1,000 / this ns",
            ),
            "network.link_latency_ns" => (
                "network.router_delay_cycles",
                format!(
                    "{} (with network.link_cycle_ns = {})",
                    u.router_delay_cycles, u.link_cycle_ns
                ),
                "a NoSSD hop takes (router_delay_cycles + 1) x link_cycle_ns, and what the byte times leave of it is the link latency",
            ),
            _ => return None,
        })
    };
    let hop = (n.router_delay_cycles as f64 + 1.0) * n.link_cycle_ns;
    let byte_ns = 1e3 / rate;
    n.topology = TopologyKind::Mesh;
    n.routing = RoutingKind::Dor;
    n.switching = Switching::Vct;
    n.controller_attach = ControllerAttach::Edge;
    n.dims.clear();
    n.vcs = 1;
    n.flit_bytes = 1;
    n.link_width_bytes = 1;
    n.link_cycle_ns = byte_ns;
    n.packet_flits = n.nossd_buffer_bytes;
    n.input_buffer_bytes = n.nossd_buffer_bytes;
    n.output_buffer_bytes = 0; // input-queued: "a 16KB buffer per router port" (Venice §3.2)
    n.link_latency_ns = (hop - byte_ns * (n.router_delay_cycles as f64 + 1.0)).max(0.0);
    match c.validate() {
        Ok(()) => Ok(c),
        Err(ConfigError::Invalid { key, value, reason }) => Err(match source(&key) {
            Some((user_key, user_value, how)) => ConfigError::Invalid {
                key: user_key.into(),
                value: user_value,
                reason: format!("{how}: {key} = {value}, which {reason}"),
            },
            // A key NoSSD does not set: the user's own, named as it is.
            None => ConfigError::Invalid { key, value, reason },
        }),
        Err(e) => Err(e),
    }
}

/// The network layer under an SSD, in its switching mode.
// Built once and kept behind the engine's `Box<dyn Interconnect>`: boxing a variant would only
// add a load per call.
#[allow(clippy::large_enum_variant)]
pub enum NetSsd {
    /// Packet switching or probe-set-up circuits: transfers as messages.
    Messages(Messages),
    /// Venice's scout-reserved circuits (`routing = venice`).
    Scouts(Scouts),
}

/// `match` on the mode, binding the back end to `$b` in `$e`.
macro_rules! each {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            NetSsd::Messages($b) => $e,
            NetSsd::Scouts($b) => $e,
        }
    };
}

impl NetSsd {
    /// The back end of `cfg`'s `[network]`, in the mode its switching and routing select;
    /// fails on a `[network]` the layer cannot build.
    pub fn new(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        Ok(match Mode::of(&cfg.network) {
            Mode::Scout => NetSsd::Scouts(Scouts::new(cfg, seed)?),
            Mode::Packet | Mode::Circuit => NetSsd::Messages(Messages::new(cfg, seed)?),
        })
    }

    /// NoSSD on the layer ([`nossd_layer`]).
    pub fn nossd(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        Ok(NetSsd::Messages(Messages::nossd(cfg, seed)?))
    }

    /// Venice on the layer ([`venice_layer`]).
    pub fn venice(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        Self::new(&venice_layer(cfg), seed)
    }
}

impl BackEnd for NetSsd {
    fn name(&self) -> &'static str {
        each!(self, b => b.name())
    }

    fn stats(&self, sim_time: Ps) -> InterconnectStats {
        each!(self, b => b.stats(sim_time))
    }

    fn local_events(&self) -> u64 {
        each!(self, b => b.local_events())
    }

    fn set_cancel(&mut self, c: &crate::cancel::Cancel) {
        each!(self, b => b.set_cancel(c))
    }

    fn describe_state(&self) -> String {
        each!(self, b => b.describe_state())
    }

    fn take_error(&mut self) -> Option<String> {
        each!(self, b => b.take_error())
    }
}

impl<Q: Queue<IcEvent>> Interconnect<Q> for NetSsd {
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        each!(self, b => b.submit(now, t, q))
    }

    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        each!(self, b => b.on_event(now, ev, q))
    }

    fn transfer_done(&mut self, now: Ps, die: u32, q: &mut Q) {
        each!(self, b => b.transfer_done(now, die, q))
    }
}

/// The drive's `[network]` as Venice builds it (`--arch venice`): the layer's 2D mesh of
/// `rows` x `cols` routers, one controller per row on the west edge (Fig. 5), circuits set up
/// by scouts routed with Algorithm 1 (`routing = venice`). Link rate, router delay and scout
/// length are the section's own keys, as before.
pub fn venice_layer(cfg: &SsdConfig) -> SsdConfig {
    use crate::config::{ControllerAttach, RoutingKind, Switching, TopologyKind};
    let mut c = cfg.clone();
    let n = &mut c.network;
    n.topology = TopologyKind::Mesh;
    n.routing = RoutingKind::Venice;
    n.switching = Switching::Circuit;
    n.controller_attach = ControllerAttach::Edge;
    n.dims.clear();
    c
}

/// Transfers as messages of the layer's [`Network`].
pub struct Messages {
    name: &'static str,
    net: Network,
    command_bytes: u32,
    /// Router hops from each chip's router to each controller's (`chips × controllers`).
    hops: Vec<u32>,
    controllers: u32,
    /// Times of the `Wake`s in the engine's queue, ascending.
    wakes: Vec<Ps>,
    deliveries: Vec<Delivery>,
    transfers: u64,
    conflicted: u64,
    /// Time transfers spent beyond their zero-load latency.
    wait: Ps,
    latency_total: Ps,
    hops_total: u64,
    error: Option<NetError>,
}

impl Messages {
    /// Fails on a `[network]` the layer cannot build (validation has run: this is rare, e.g.
    /// a custom topology file that changed).
    pub fn new(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        let net = Network::from_config(cfg, seed)?;
        let (chips, controllers) = (net.chips(), net.endpoints() - net.chips());
        let g = net.graph();
        let mut hops = vec![0u32; (chips * controllers) as usize];
        for f in 0..controllers {
            let d = g.distances_to(g.ep_router(chips + f));
            for c in 0..chips {
                hops[(c * controllers + f) as usize] = d[g.ep_router(c) as usize];
            }
        }
        Ok(Self {
            name: "net",
            net,
            command_bytes: cfg.network.command_bytes,
            hops,
            controllers,
            wakes: Vec::new(),
            deliveries: Vec::new(),
            transfers: 0,
            conflicted: 0,
            wait: 0,
            latency_total: 0,
            hops_total: 0,
            error: None,
        })
    }

    /// NoSSD on the layer ([`nossd_layer`]).
    pub fn nossd(cfg: &SsdConfig, seed: u64) -> Result<Self, NetError> {
        let mut n = Self::new(&nossd_layer(cfg)?, seed)?;
        n.name = "nossd";
        Ok(n)
    }

    /// Venice §4.2: the closest controller not sending, else the closest.
    fn pick_controller(&self, chip: u32) -> u32 {
        let row = &self.hops[(chip * self.controllers) as usize..][..self.controllers as usize];
        // One pass: the first closest free controller, else the first closest.
        let (mut free, mut any) = ((u32::MAX, NONE), (u32::MAX, NONE));
        for (f, &h) in (0..self.controllers).zip(row) {
            if h < any.0 {
                any = (h, f);
            }
            if h < free.0 && !self.net.sending(self.net.chips() + f) {
                free = (h, f);
            }
        }
        assert!(any.1 != NONE, "validation requires a controller");
        if free.1 != NONE {
            free.1
        } else {
            any.1
        }
    }

    /// Hand the engine the deliveries of the last advance.
    fn deliver<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        for d in self.deliveries.drain(..) {
            let took = d.delivered - d.sent;
            let alone = self.net.zero_load(d.hops, d.flits);
            let conflict = took > alone;
            self.transfers += 1;
            self.latency_total += took;
            self.hops_total += d.hops as u64;
            if conflict {
                self.conflicted += 1;
                self.wait += took - alone;
            }
            q.schedule(
                d.delivered,
                IcEvent::TransferDone {
                    die: d.tag as u32,
                    conflict,
                },
            );
        }
    }

    /// Keep a `Wake` in the engine's queue at or before the network's next event.
    fn arm<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        if let Some(t) = self.net.next_event_time() {
            if self.wakes.first().is_none_or(|&w| t < w) {
                q.schedule(t, IcEvent::Net(NetEvent::Wake));
                self.wakes.insert(0, t);
            }
        }
    }
}

impl BackEnd for Messages {
    fn name(&self) -> &'static str {
        self.name
    }

    fn stats(&self, sim_time: Ps) -> InterconnectStats {
        let g = self.net.graph();
        // Router-to-router link directions (the network's links; endpoint links excluded).
        let busy = (0..g.total_ports())
            .filter(|&p| g.far(p) != NONE)
            .map(|p| self.net.stats.port_busy[p as usize]);
        let mut s = InterconnectStats::from_busy(
            self.transfers,
            self.conflicted,
            self.wait,
            busy,
            sim_time,
        );
        s.local_events = self.net.events();
        let n = self.transfers.max(1) as f64;
        s.network = Some(NetworkStats {
            topology: self.net.topology().kind().to_string(),
            routers: g.routers,
            links: g.links,
            messages: self.transfers,
            mean_latency_ns: crate::time::to_ns_f64(self.latency_total) / n,
            mean_hops: self.hops_total as f64 / n,
            packets: self.net.stats.packets_delivered,
            probe_retries: self.net.stats.probe_retries,
        });
        s
    }

    fn local_events(&self) -> u64 {
        self.net.events()
    }

    fn set_cancel(&mut self, c: &crate::cancel::Cancel) {
        self.net.set_cancel(c.clone());
    }

    fn take_error(&mut self) -> Option<String> {
        self.error.take().map(|e| e.to_string())
    }

    fn describe_state(&self) -> String {
        format!(
            "the network holds {} packets ({} transfers delivered)",
            self.net.in_flight(),
            self.transfers
        )
    }
}

// Compiled on their own, so that `NetSsd`'s dispatch is a test and a jump (see `Scouts`).
impl<Q: Queue<IcEvent>> Interconnect<Q> for Messages {
    #[inline(never)]
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        let fc = self.net.chips() + self.pick_controller(t.chip);
        // The tag carries the die; commands (and write data) go to the chip, read data back.
        if t.commands > 0 {
            let bytes = t.commands as u64 * self.command_bytes as u64 + t.bytes as u64;
            self.net.send(now, fc, t.chip, bytes, t.die as u64);
        } else {
            self.net.send(now, t.chip, fc, t.bytes as u64, t.die as u64);
        }
        self.arm(q);
    }

    #[inline(never)]
    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        debug_assert!(matches!(ev, NetEvent::Wake), "not a net event: {ev:?}");
        // Wakes pop in time order: this is the earliest one.
        self.wakes.remove(0);
        if self.error.is_some() {
            return;
        }
        // Run the network at `now`, then on through its next event times while they come
        // strictly before the engine's next event: nothing else can happen in between (a
        // delivery's TransferDone joins the engine's queue first), so this is what a `Wake`
        // per network time would do, without one.
        let mut until = now;
        loop {
            let before = q.peek_time();
            if let Err(e) = self.net.advance_before(until, before, &mut self.deliveries) {
                self.error = Some(e);
                return;
            }
            if self.deliveries.is_empty() {
                break; // it ran every network event before the engine's next one
            }
            self.deliver(q);
            match self.net.next_event_time() {
                Some(t) if q.peek_time().is_none_or(|te| t < te) => until = t,
                _ => break,
            }
        }
        self.arm(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain<I: Interconnect<EventQueue<IcEvent>>>(
        n: &mut I,
        q: &mut EventQueue<IcEvent>,
    ) -> Vec<(Ps, u32, bool)> {
        super::super::testutil::drain(n, q, |_| {})
    }

    fn xfer(chip: u32, commands: u32, bytes: u32) -> Transfer {
        Transfer {
            die: chip,
            chip,
            commands,
            command_ps: 0,
            bytes,
        }
    }

    /// The layer's switching mode picks how transfers cross it: `--arch venice` and
    /// `--arch net` with `routing = venice` both get the scouts, NoSSD and packet or probe
    /// networks the messages.
    #[test]
    fn the_switching_mode_picks_the_back_end() {
        use crate::config::{RoutingKind, Switching};
        let mut cfg = SsdConfig::default();
        let names = |n: &NetSsd| (matches!(n, NetSsd::Scouts(_)), n.name());
        assert_eq!(names(&NetSsd::new(&cfg, 1).unwrap()), (false, "net"));
        assert_eq!(names(&NetSsd::nossd(&cfg, 1).unwrap()), (false, "nossd"));
        assert_eq!(names(&NetSsd::venice(&cfg, 1).unwrap()), (true, "venice"));
        cfg.network.switching = Switching::Circuit;
        assert_eq!(names(&NetSsd::new(&cfg, 1).unwrap()), (false, "net"));
        cfg.network.routing = RoutingKind::Venice;
        assert_eq!(names(&NetSsd::new(&cfg, 1).unwrap()), (true, "venice"));
    }

    /// MQSimNet's router on an 8 × 8 mesh (defaults: 1-byte links at 1 ns, 64 B flits, one
    /// cycle per router, 1 ns links). A command + 4 KB page from controller 0 (router 0) to
    /// chip 7 (router 7, 7 hops): 65 flits, (H+2)(f+L) + (H+1)R + (P-1)f, no conflict.
    #[test]
    fn a_lone_write_takes_the_zero_load_time() {
        let cfg = SsdConfig::default();
        let mut n = Messages::new(&cfg, 1).unwrap();
        let mut q = EventQueue::<IcEvent>::new();
        n.submit(0, xfer(7, 1, 4096), &mut q);
        let (f, l, r) = (64_000, 1_000, 1_000);
        let want = 9 * (f + l) + 8 * r + 64 * f;
        assert_eq!(drain(&mut n, &mut q), vec![(want, 7, false)]);
        assert_eq!((n.transfers, n.conflicted), (1, 0));
        let s = n.stats(want);
        let net = s.network.unwrap();
        assert_eq!((net.messages, net.mean_hops), (1, 7.0));
        assert_eq!(s.channel_utilization.len(), 2 * 112);
    }

    /// NoSSD on the layer (2 × 3 mesh, 1.2 GB/s links): a command and 4 KB page (4103 flits
    /// of 1 byte) from controller 0 (router 0) to chip 2 (router 2) crosses 2 router hops.
    /// f = 833 ps per byte, R = one cycle = 833 ps, L = 2 ns - f - R = 333 ps (NoSSD's hop
    /// of a router cycle and a 1 GHz link cycle): (H+2)(f+L) + (H+1)R + (P-1)f.
    #[test]
    fn nossd_cuts_a_packet_through_two_hops() {
        let mut cfg = SsdConfig::default();
        cfg.flash.channels = 2;
        cfg.flash.chips_per_channel = 3;
        let mut n = Messages::nossd(&cfg, 1).unwrap();
        assert_eq!(n.name(), "nossd");
        let p = n.net.params();
        assert_eq!(
            (p.flit_time, p.router_delay, p.link_latency),
            (833, 833, 333)
        );
        assert_eq!((p.vcs, p.packet_flits, p.in_vc_flits), (1, 16384, 16384));
        let mut q = EventQueue::<IcEvent>::new();
        n.submit(0, xfer(2, 1, 4096), &mut q);
        let want = 4 * (833 + 333) + 3 * 833 + 4102 * 833;
        assert_eq!(drain(&mut n, &mut q), vec![(want, 2, false)]);
        // Two more at once: the first (chip 1) takes controller 0; the second (chip 2) finds
        // it sending and takes controller 1 (router 3), 3 hops away on links of its own.
        n.submit(want, xfer(1, 1, 4096), &mut q);
        n.submit(want, xfer(2, 1, 4096), &mut q);
        let alone = |h: u64| (h + 2) * (833 + 333) + (h + 1) * 833 + 4102 * 833;
        let done = drain(&mut n, &mut q);
        assert_eq!(
            done,
            vec![(want + alone(1), 1, false), (want + alone(3), 2, false)]
        );
    }

    /// Two pages for chips of row 0 at once: the first goes through controller 0; the second
    /// finds controller 0's source queue busy and takes the nearest other one (controller 1,
    /// one row down: one hop more), so neither waits. A third for the same chip as the first,
    /// with every nearby controller busy too, waits behind it at the chip's ejection port.
    #[test]
    fn a_busy_controller_sends_the_next_transfer_to_the_nearest_free_one() {
        let cfg = SsdConfig::default();
        let mut n = Messages::new(&cfg, 1).unwrap();
        let mut q = EventQueue::<IcEvent>::new();
        n.submit(0, xfer(3, 1, 4096), &mut q);
        n.submit(0, xfer(4, 1, 4096), &mut q);
        let zl = |h| n.net.zero_load(h, 65);
        let (a, b) = (zl(3), zl(5));
        assert_eq!(drain(&mut n, &mut q), vec![(a, 3, false), (b, 4, false)]);
        assert_eq!(n.stats(b).network.unwrap().mean_hops, 4.0);
    }

    /// Two pages for one chip at once from two controllers: they share the chip's ejection
    /// link, so the second is late by about a page and counts as a path conflict.
    #[test]
    fn transfers_sharing_a_link_conflict() {
        let cfg = SsdConfig::default();
        let mut n = Messages::new(&cfg, 1).unwrap();
        let mut q = EventQueue::<IcEvent>::new();
        n.submit(0, xfer(3, 1, 4096), &mut q);
        n.submit(0, xfer(3, 1, 4096), &mut q);
        let done = drain(&mut n, &mut q);
        assert_eq!(done.len(), 2);
        assert!(!done[0].2 && done[1].2, "{done:?}");
        assert!(done[1].0 >= done[0].0 + 64 * 64_000, "{done:?}");
        assert_eq!((n.transfers, n.conflicted), (2, 1));
    }
}
