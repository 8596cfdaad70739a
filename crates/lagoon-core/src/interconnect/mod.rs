//! Back-end interconnects: how a flash controller (FC) reaches a flash chip.
//!
//! Every transfer — a command, or a command with a page of data, or read data coming back —
//! needs an FC and a path to the chip. The SSD model hands each transfer to the
//! [`Interconnect`] when it is ready; the interconnect starts it when its FC and path are
//! free and schedules [`crate::sim::Event::TransferDone`] when it ends. A transfer that is
//! ready but has to wait for its FC or path has a *path conflict* (Venice §3.1); waiting for
//! a busy die happens before a transfer is ready and is not one.
//!
//! Implementations: [`shared_bus::SharedBus`] (`baseline`: N channels × M chips, one FC per
//! channel; `ideal`: a channel and FC per chip).

pub mod shared_bus;

use crate::config::SsdConfig;
use crate::engine::EventQueue;
use crate::sim::Event;
use crate::time::Ps;
use serde::Serialize;

/// One transfer between an FC and a die.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    pub die: u32,
    pub chip: u32,
    /// Command (+address) sequences sent before any data.
    pub commands: u32,
    /// Payload bytes (write data in, or read data out).
    pub bytes: u32,
}

/// Events internal to an interconnect (scheduled through the shared event queue).
#[derive(Clone, Copy, Debug)]
pub enum NetEvent {
    /// A channel finished a transfer and may start the next queued one.
    ChannelFree { channel: u32 },
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
}

pub trait Interconnect {
    fn name(&self) -> &'static str;
    /// A transfer is ready at `now`: start it or queue it. Must eventually schedule
    /// `Event::TransferDone { die, conflict }` exactly once for it.
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut EventQueue<Event>);
    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut EventQueue<Event>);
    fn stats(&self, sim_time: Ps) -> InterconnectStats;
}

/// Back-end architecture chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Baseline,
    Ideal,
}

impl std::str::FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "baseline" => Ok(Arch::Baseline),
            "ideal" => Ok(Arch::Ideal),
            _ => Err(format!(
                "unknown architecture '{s}' (known: baseline, ideal)"
            )),
        }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Arch::Baseline => "baseline",
            Arch::Ideal => "ideal",
        })
    }
}

pub fn build(arch: Arch, cfg: &SsdConfig) -> Box<dyn Interconnect> {
    match arch {
        Arch::Baseline => Box::new(shared_bus::SharedBus::baseline(cfg)),
        Arch::Ideal => Box::new(shared_bus::SharedBus::ideal(cfg)),
    }
}
