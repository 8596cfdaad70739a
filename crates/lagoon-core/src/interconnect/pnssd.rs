//! Packetized network SSD (pnSSD, Kim et al., Venice §3.2 Fig. 2c): the chip array is a grid
//! whose rows *and* columns are shared buses. Controller *i* drives row bus *i* and column bus
//! *i*, one transfer at a time, so chip (r, c) can be served by controller r over its row bus
//! or controller c over its column bus. Buses run at the packetized rate (2× the channel, as
//! pSSD). The gain over pSSD is path choice only: still one transfer per controller.

use super::shared_bus::bus_time;
use super::{BackEnd, IcEvent, Interconnect, InterconnectStats, NetEvent, Transfer};
use crate::config::SsdConfig;
#[cfg(test)]
use crate::engine::EventQueue;
use crate::engine::Queue;
use crate::time::Ps;
use std::collections::VecDeque;

pub struct PnSsd {
    cols: u32,
    bytes_per_s: f64,
    /// Per controller: the transfer it is running (die, whether it waited), if any.
    busy: Vec<Option<(u32, bool)>>,
    busy_time: Vec<Ps>,
    waiting: VecDeque<(Ps, Transfer)>,
    transfers: u64,
    conflicted: u64,
    wait: Ps,
}

impl PnSsd {
    pub fn new(cfg: &SsdConfig) -> Self {
        let (rows, cols) = cfg.mesh_dims();
        let fcs = rows.max(cols) as usize;
        Self {
            cols,
            bytes_per_s: cfg.flash.channel_mb_s * 1e6 * 2.0,
            busy: vec![None; fcs],
            busy_time: vec![0; fcs],
            waiting: VecDeque::new(),
            transfers: 0,
            conflicted: 0,
            wait: 0,
        }
    }

    /// The two controllers that can reach a chip: its row's and its column's.
    fn candidates(&self, chip: u32) -> [usize; 2] {
        [(chip / self.cols) as usize, (chip % self.cols) as usize]
    }

    fn start<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, ready: Ps, t: Transfer, q: &mut Q) {
        let d = bus_time(&t, self.bytes_per_s);
        self.busy[fc] = Some((t.die, now > ready));
        self.busy_time[fc] += d;
        self.transfers += 1;
        if now > ready {
            self.conflicted += 1;
            self.wait += now - ready;
        }
        q.schedule(
            now + d,
            IcEvent::Net(NetEvent::ControllerFree { fc: fc as u16 }),
        );
    }
}

impl BackEnd for PnSsd {
    fn name(&self) -> &'static str {
        "pnssd"
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

impl<Q: Queue<IcEvent>> Interconnect<Q> for PnSsd {
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        match self
            .candidates(t.chip)
            .into_iter()
            .find(|&fc| self.busy[fc].is_none())
        {
            Some(fc) => self.start(now, fc, now, t, q),
            None => self.waiting.push_back((now, t)),
        }
    }

    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        let NetEvent::ControllerFree { fc } = ev else {
            unreachable!("pnSSD only frees controllers")
        };
        let fc = fc as usize;
        let (die, conflict) = self.busy[fc].take().expect("a busy controller finished");
        q.schedule(now, IcEvent::TransferDone { die, conflict });
        // The oldest waiting transfer this controller can serve takes it.
        if let Some(i) = self
            .waiting
            .iter()
            .position(|(_, t)| self.candidates(t.chip).contains(&fc))
        {
            let (ready, t) = self.waiting.remove(i).unwrap();
            self.start(now, fc, ready, t, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chip_uses_its_row_or_its_column_controller() {
        let mut c = SsdConfig::default();
        c.flash.channels = 2;
        c.flash.chips_per_channel = 2;
        c.flash.channel_mb_s = 1024.0; // 2x packetized: 4096 B in 2 us
        c.validate().unwrap();
        let mut p = PnSsd::new(&c);
        let mut q = EventQueue::<IcEvent>::new();
        let t = |chip| Transfer {
            die: chip,
            chip,
            commands: 0,
            command_ps: 0,
            bytes: 4096,
        };
        p.submit(0, t(0), &mut q); // row 0 -> controller 0
        p.submit(0, t(1), &mut q); // row 0 busy -> column 1 -> controller 1
        p.submit(0, t(3), &mut q); // row 1 (controller 1) and column 1 (controller 1) busy: waits
        let mut done = Vec::new();
        while let Some((now, ev)) = q.pop() {
            match ev {
                IcEvent::Net(e) => p.on_event(now, e, &mut q),
                IcEvent::TransferDone { die, conflict } => done.push((now, die, conflict)),
            }
        }
        assert_eq!(
            done,
            vec![
                (2_000_000, 0, false),
                (2_000_000, 1, false),
                (4_000_000, 3, true)
            ]
        );
        assert_eq!(p.stats(4_000_000).conflicted_transfers, 1);
    }
}
