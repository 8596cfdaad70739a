//! Back-end interconnects: how a flash controller (FC) reaches a flash chip.
//!
//! Every transfer — a command, or a command with a page of data, or read data coming back —
//! needs an FC and a path to the chip. The SSD model hands each transfer to the
//! [`Interconnect`] when it is ready; the interconnect starts it when its FC and path are
//! free and reports [`IcEvent::TransferDone`] when it ends. A transfer that is
//! ready but has to wait for its FC or path has a *path conflict* (Venice §3.1); waiting for
//! a busy die happens before a transfer is ready and is not one.
//!
//! Implementations: [`shared_bus::SharedBus`] (`baseline`: N channels × M chips, one FC per
//! channel; `ideal`: a channel and FC per chip), [`pnssd`]; and [`network`], the general
//! network layer (topology × routing × switching) that networked designs are built from and
//! `lagoon net` drives alone: [`net::NetSsd`] is `--arch net` and, configured by
//! [`net::nossd_layer`] and [`net::venice_layer`], `--arch nossd` and `--arch venice`
//! (Venice's scouts are a switching mode of the layer, [`network::switching::scout`]).

pub mod net;
pub mod network;
pub mod pnssd;
pub mod shared_bus;

use crate::config::SsdConfig;
use crate::engine::Queue;
use crate::time::Ps;
use serde::Serialize;

/// One transfer between an FC and a die.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    pub die: u32,
    pub chip: u32,
    /// Command (+address) sequences sent before any data (packet models count their bytes).
    pub commands: u32,
    /// Time the command sequence occupies a shared bus (`flash.command_timing`: Venice §3.1's
    /// fixed time, or ONFI cycles for the operation and its planes); 0 for data only.
    pub command_ps: Ps,
    /// Payload bytes (write data in, or read data out).
    pub bytes: u32,
}

/// What a back end schedules into the engine's queue: the report the SSD model handles
/// (a transfer ended) and its own internal events, handed back to it. The engine wraps it in
/// its event at the same call, so a back end never names the engine's event type.
#[derive(Clone, Copy, Debug)]
pub enum IcEvent {
    /// A transfer of `die`'s current operation ended; `conflict`: it waited for its FC or
    /// path (Venice §3.1).
    TransferDone { die: u32, conflict: bool },
    /// Internal to the back end ([`Interconnect::on_event`]).
    Net(NetEvent),
}

/// Events internal to an interconnect (scheduled through the shared event queue). Controller
/// numbers are 16-bit (at most 4,096 on a mesh) so that an [`IcEvent`] fits in 8 bytes.
#[derive(Clone, Copy, Debug)]
pub enum NetEvent {
    /// pnSSD: a controller finished its transfer.
    ControllerFree { fc: u16 },
    /// Venice: a controller's scout reaches its next router in reserve mode.
    ScoutArrive { fc: u16 },
    /// Venice: a backtracking scout is back at the upstream router.
    ScoutReturn { fc: u16 },
    /// Venice: the scout is back at its controller, with a path reserved or in cancel mode.
    ScoutHome { fc: u16, reserved: bool },
    /// Venice: a transfer over a reserved circuit ended.
    TransferEnd { fc: u16 },
    /// Venice with lookahead: handle the local events that are due.
    Wake,
}

/// Venice's path-reservation counters (§6.3).
#[derive(Clone, Debug, Default, Serialize)]
pub struct VeniceStats {
    pub scouts: u64,
    /// Scouts that came back to their controller in cancel mode and were re-sent.
    pub scout_retries: u64,
    /// Backtracking steps (cancel mode hops) over all scouts.
    pub backtracks: u64,
    /// Transfers whose first scout reserved a path.
    pub first_try_transfers: u64,
    pub first_try_transfer_fraction: f64,
    pub path_hops_total: u64,
    /// Mean links per reserved path, the controller's own link included.
    pub mean_path_hops: f64,
    pub nonminimal_paths: u64,
    pub nonminimal_fraction: f64,
    /// Busy fraction of each flash controller.
    pub controller_utilization: Vec<f64>,
}

impl VeniceStats {
    fn finish(&mut self, transfers: u64) {
        let n = transfers.max(1) as f64;
        self.first_try_transfer_fraction = self.first_try_transfers as f64 / n;
        self.mean_path_hops = self.path_hops_total as f64 / n;
        self.nonminimal_fraction = self.nonminimal_paths as f64 / n;
    }
}

/// A mesh: `links[i]` joins routers (a, b) (row-major router ids, `rows` × `cols`), and
/// controller i attaches to router `controller_routers[i]`.
#[derive(Clone, Debug, Serialize)]
pub struct MeshLayout {
    pub rows: u32,
    pub cols: u32,
    pub controller_routers: Vec<u32>,
    pub links: Vec<(u32, u32)>,
}

/// Utilization and conflict counters every back end reports.
#[derive(Clone, Debug, Default, Serialize)]
pub struct InterconnectStats {
    pub transfers: u64,
    pub conflicted_transfers: u64,
    /// Total time transfers spent waiting for an FC or path, ns.
    pub conflict_wait_ns: f64,
    /// Busy fraction of each channel / link over the simulated time.
    pub channel_utilization: Vec<f64>,
    pub mean_channel_utilization: f64,
    /// Events the interconnect handled from its own heap rather than the engine's queue.
    pub local_events: u64,
    /// Mesh designs whose `channel_utilization` is one entry per mesh link: the layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshLayout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub venice: Option<VeniceStats>,
    /// `--arch net`: the network layer's counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkStats>,
}

/// The network layer under an SSD (`--arch net`, and NoSSD and Venice, its configurations).
#[derive(Clone, Debug, Default, Serialize)]
pub struct NetworkStats {
    pub topology: String,
    pub routers: u32,
    /// Router-to-router links (each is two directions in `channel_utilization`).
    pub links: u32,
    /// Messages (transfers) delivered, and their packets.
    pub messages: u64,
    pub packets: u64,
    /// Mean time from a message's hand-over to the network to its last flit's arrival
    /// (MQSimNet Table II's "network latency"), ns.
    pub mean_latency_ns: f64,
    /// Mean router-to-router hops per message.
    pub mean_hops: f64,
    /// Circuit switching: probes cancelled and re-sent (Venice: scouts home in cancel mode).
    pub probe_retries: u64,
}

impl InterconnectStats {
    /// Counters, plus each channel's (or link's) busy time as a fraction of `sim_time`.
    pub fn from_busy(
        transfers: u64,
        conflicted: u64,
        wait: Ps,
        busy: impl Iterator<Item = Ps>,
        sim_time: Ps,
    ) -> Self {
        let util: Vec<f64> = busy
            .map(|b| {
                if sim_time > 0 {
                    b as f64 / sim_time as f64
                } else {
                    0.0
                }
            })
            .collect();
        Self {
            transfers,
            conflicted_transfers: conflicted,
            conflict_wait_ns: crate::time::to_ns_f64(wait),
            mean_channel_utilization: util.iter().sum::<f64>() / util.len().max(1) as f64,
            channel_utilization: util,
            local_events: 0,
            mesh: None,
            venice: None,
            network: None,
        }
    }
}

/// What every back end tells about itself, whatever queue it schedules into.
pub trait BackEnd {
    fn name(&self) -> &'static str;
    fn stats(&self, sim_time: Ps) -> InterconnectStats;
    /// Events the back end handled from its own heap so far (the watchdog counts them as
    /// work done without progress, like queue events).
    fn local_events(&self) -> u64 {
        0
    }
    /// A back end that runs many events of its own per engine event looks at `c` between
    /// them (the engine looks at it every 65,536 of its own).
    fn set_cancel(&mut self, _c: &crate::cancel::Cancel) {}
    /// One line on what the back end holds (waiting transfers, busy controllers), for the
    /// watchdog's error when a run is stuck.
    fn describe_state(&self) -> String {
        format!("the {} back end holds transfers in progress", self.name())
    }
    /// A failure that stopped the back end (a deadlocked network), as a message; asked once
    /// the event queue has drained, since a failed back end schedules nothing more.
    fn take_error(&mut self) -> Option<String> {
        None
    }
}

/// A back end's data path, scheduling into a queue `Q` that takes [`IcEvent`]s.
pub trait Interconnect<Q>: BackEnd {
    /// A transfer is ready at `now`: start it or queue it. Must eventually schedule
    /// [`IcEvent::TransferDone`] exactly once for it.
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q);
    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut Q);
    /// Called right after the simulator handled `TransferDone` for `die`. A back end whose
    /// resource frees when the transfer ends frees it here rather than scheduling its own
    /// event at the same instant right after `TransferDone`: the order is the same (nothing
    /// could fall between two consecutive sequence numbers), at one event per transfer.
    fn transfer_done(&mut self, _now: Ps, _die: u32, _q: &mut Q) {}
}

/// Test helper shared by the back ends' unit tests.
#[cfg(test)]
pub(crate) mod testutil {
    use super::{IcEvent, Interconnect};
    use crate::engine::EventQueue;
    use crate::time::Ps;

    /// Run a back end alone until no event is left, calling `after` after each event;
    /// returns (time, die, conflict) per finished transfer.
    pub(crate) fn drain<I: Interconnect<EventQueue<IcEvent>>>(
        n: &mut I,
        q: &mut EventQueue<IcEvent>,
        mut after: impl FnMut(&mut I),
    ) -> Vec<(Ps, u32, bool)> {
        let mut done = Vec::new();
        while let Some((now, ev)) = q.pop() {
            match ev {
                IcEvent::Net(e) => n.on_event(now, e, q),
                IcEvent::TransferDone { die, conflict } => {
                    done.push((now, die, conflict));
                    n.transfer_done(now, die, q);
                }
            }
            after(n);
        }
        done
    }
}

/// Back-end architecture chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Baseline,
    Ideal,
    Pssd,
    Pnssd,
    Nossd,
    Venice,
    /// The general network layer: any `[network]` topology, routing and switching.
    Net,
}

impl Arch {
    /// Every back end the command line knows: the Venice paper's six, then `net`.
    pub const CHOICES: [Arch; 7] = [
        Arch::Baseline,
        Arch::Pssd,
        Arch::Pnssd,
        Arch::Nossd,
        Arch::Venice,
        Arch::Ideal,
        Arch::Net,
    ];

    /// The six designs the Venice paper compares, in its order (`--arch all`).
    pub const ALL: [Arch; 6] = [
        Arch::Baseline,
        Arch::Pssd,
        Arch::Pnssd,
        Arch::Nossd,
        Arch::Venice,
        Arch::Ideal,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Baseline => "baseline",
            Arch::Ideal => "ideal",
            Arch::Pssd => "pssd",
            Arch::Pnssd => "pnssd",
            Arch::Nossd => "nossd",
            Arch::Venice => "venice",
            Arch::Net => "net",
        }
    }

    /// One line for help texts (Venice §3.2, Fig. 2).
    pub fn description(self) -> &'static str {
        match self {
            Arch::Baseline => "N shared channels of M chips, one flash controller each",
            Arch::Pssd => "as baseline, channels at twice the rate (packetized)",
            Arch::Pnssd => "chips on row and column buses; N controllers, one transfer each",
            Arch::Nossd => "buffered packet-switched 2D mesh in the chips, XY routing",
            Arch::Venice => {
                "router chip beside each flash chip; circuits reserved by scouts (Algorithm 1)"
            }
            Arch::Ideal => "path-conflict-free: a channel and controller per chip",
            Arch::Net => "the general network layer: [network] topology, routing, switching",
        }
    }

    /// Every name, comma-separated (for messages).
    pub fn names() -> String {
        Arch::CHOICES.map(Arch::name).join(", ")
    }
}

impl std::str::FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Arch::CHOICES
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| format!("unknown architecture '{s}' (known: {})", Arch::names()))
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The back end `arch` of drive `cfg`; an error only if `[network]` cannot be built.
pub fn build<Q: Queue<IcEvent> + 'static>(
    arch: Arch,
    cfg: &SsdConfig,
    seed: u64,
) -> Result<Box<dyn Interconnect<Q>>, String> {
    Ok(match arch {
        Arch::Baseline => Box::new(shared_bus::SharedBus::baseline(cfg)),
        Arch::Ideal => Box::new(shared_bus::SharedBus::ideal(cfg)),
        Arch::Pssd => Box::new(shared_bus::SharedBus::pssd(cfg)),
        Arch::Pnssd => Box::new(pnssd::PnSsd::new(cfg)),
        Arch::Nossd => Box::new(net::NetSsd::nossd(cfg, seed).map_err(|e| e.to_string())?),
        Arch::Venice => Box::new(net::NetSsd::venice(cfg, seed).map_err(|e| e.to_string())?),
        Arch::Net => Box::new(net::NetSsd::new(cfg, seed).map_err(|e| e.to_string())?),
    })
}
