//! Shared flash channels (ONFI-style buses), one FC per channel.
//!
//! A channel carries one transfer at a time; transfers that find it busy wait, served in
//! ready order (ties in event order) with read data-outs first under
//! `flash.channel_arbitration = "data-out-first"` (MQSim's rule, the default), read and erase
//! commands then data-outs then programs under `"command-first"` (SSDsim's), or all alike under
//! `"fifo"`. `baseline` puts `chips_per_channel` chips on each of
//! `channels` buses; `ideal` (Venice §5's path-conflict-free SSD) gives every chip its own bus
//! and FC, so no transfer ever waits.

use super::{BackEnd, IcEvent, Interconnect, InterconnectStats, NetEvent, Transfer};
use crate::config::{ChannelArbitration, SsdConfig};
use crate::engine::Queue;
use crate::time::{transfer_time, Ps};
use std::collections::VecDeque;

/// Occupancy of a bus by one transfer: its command cycles, then its data at `bytes_per_s`.
pub fn bus_time(t: &Transfer, bytes_per_s: f64) -> Ps {
    t.command_ps + transfer_time(t.bytes as u64, bytes_per_s)
}

pub struct SharedBus {
    name: &'static str,
    chips_per_bus: u32,
    dies_per_chip: u32,
    bytes_per_s: f64,
    busy: Vec<bool>,
    /// Per bus, the transfers waiting in each priority class ([`Self::class`]), served lowest
    /// class first, each class in ready order.
    waiting: Vec<[VecDeque<(Ps, Transfer)>; 3]>,
    arbitration: ChannelArbitration,
    busy_time: Vec<Ps>,
    transfers: u64,
    conflicted: u64,
    wait: Ps,
}

impl SharedBus {
    fn new(
        name: &'static str,
        buses: u32,
        chips_per_bus: u32,
        cfg: &SsdConfig,
        rate_factor: f64,
    ) -> Self {
        Self {
            name,
            chips_per_bus,
            dies_per_chip: cfg.flash.dies_per_chip,
            bytes_per_s: cfg.flash.channel_mb_s * 1e6 * rate_factor,
            busy: vec![false; buses as usize],
            waiting: (0..buses)
                .map(|_| std::array::from_fn(|_| VecDeque::with_capacity(chips_per_bus as usize)))
                .collect(),
            arbitration: cfg.flash.channel_arbitration,
            busy_time: vec![0; buses as usize],
            transfers: 0,
            conflicted: 0,
            wait: 0,
        }
    }

    pub fn baseline(cfg: &SsdConfig) -> Self {
        Self::new(
            "baseline",
            cfg.flash.channels,
            cfg.flash.chips_per_channel,
            cfg,
            1.0,
        )
    }

    /// Packetized SSD (Venice §3.2, Kim et al.): commands and data share the control and data
    /// pins, doubling the channel's bandwidth.
    pub fn pssd(cfg: &SsdConfig) -> Self {
        Self::new(
            "pssd",
            cfg.flash.channels,
            cfg.flash.chips_per_channel,
            cfg,
            2.0,
        )
    }

    pub fn ideal(cfg: &SsdConfig) -> Self {
        Self::new(
            "ideal",
            cfg.flash.channels * cfg.flash.chips_per_channel,
            1,
            cfg,
            1.0,
        )
    }

    /// Priority class of a waiting transfer (0 first): a command alone (a read's or an
    /// erase's), a read data-out (no command), or a command with data (a program).
    #[inline]
    fn class(&self, t: &Transfer) -> usize {
        let data_out = t.commands == 0;
        match self.arbitration {
            ChannelArbitration::Fifo => 2,
            ChannelArbitration::DataOutFirst => 2 - data_out as usize,
            ChannelArbitration::CommandFirst if data_out => 1,
            ChannelArbitration::CommandFirst if t.bytes == 0 => 0,
            ChannelArbitration::CommandFirst => 2,
        }
    }

    /// Bus occupancy of a transfer: command cycles then data at the channel rate.
    pub fn duration(&self, t: &Transfer) -> Ps {
        bus_time(t, self.bytes_per_s)
    }

    fn start<Q: Queue<IcEvent>>(&mut self, now: Ps, ready: Ps, t: Transfer, q: &mut Q) {
        let bus = (t.chip / self.chips_per_bus) as usize;
        let d = self.duration(&t);
        self.busy[bus] = true;
        self.busy_time[bus] += d;
        self.transfers += 1;
        let conflict = now > ready;
        if conflict {
            self.conflicted += 1;
            self.wait += now - ready;
        }
        // The channel frees in `transfer_done`, right after this event is handled.
        q.schedule(
            now + d,
            IcEvent::TransferDone {
                die: t.die,
                conflict,
            },
        );
    }
}

impl BackEnd for SharedBus {
    fn name(&self) -> &'static str {
        self.name
    }

    fn stats(&self, sim_time: Ps) -> InterconnectStats {
        InterconnectStats::from_busy(
            self.transfers,
            self.conflicted,
            self.wait,
            self.busy_time.iter().copied(),
            sim_time,
        )
    }
}

impl<Q: Queue<IcEvent>> Interconnect<Q> for SharedBus {
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        let bus = (t.chip / self.chips_per_bus) as usize;
        if self.busy[bus] {
            let c = self.class(&t);
            self.waiting[bus][c].push_back((now, t));
        } else {
            self.start(now, now, t, q);
        }
    }

    fn on_event(&mut self, _now: Ps, _ev: NetEvent, _q: &mut Q) {
        unreachable!("shared buses schedule no events of their own")
    }

    fn transfer_done(&mut self, now: Ps, die: u32, q: &mut Q) {
        let bus = (die / self.dies_per_chip / self.chips_per_bus) as usize;
        self.busy[bus] = false;
        let next = self.waiting[bus].iter_mut().find_map(|q| q.pop_front());
        if let Some((ready, t)) = next {
            self.start(now, ready, t, q);
        }
    }
}
