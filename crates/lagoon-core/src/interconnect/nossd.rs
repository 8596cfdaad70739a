//! Network-on-SSD (NoSSD, Tavakkol et al.; Venice §3.2 Fig. 2d): a 2D mesh of flash chips
//! with a buffered router in each chip, packet switching (virtual cut-through) and
//! dimension-order XY routing; flash controllers on the mesh edge.
//!
//! Each router has input buffers of `nossd_buffer_bytes` per port (16 KB, Venice §3.2). A
//! transfer is cut into packets no larger than a buffer. A packet leaves a router's output
//! link when the link is free and the downstream input buffer has room for the whole packet
//! (credit back-pressure); its head reaches the next router after the router delay and one link
//! cycle, and the buffer it occupied upstream is freed when its tail has left. Each output port
//! serves its packets first come, first served. Links are full duplex (one channel per
//! direction) at `nossd_link_mb_s`.
//!
//! Controller choice is Venice's rule (§4.2), so both designs share it: the closest controller
//! if it has nothing waiting to inject, else the nearest such controller, else the closest.
//! Commands and write data go controller → chip (X along the controller's row, then Y); read
//! data chip → controller (X along the chip's row to column 0, then Y).

use super::mesh::{opposite, Mesh, Port, DOWN, LEFT, RIGHT, UP};
use super::{Interconnect, InterconnectStats, NetEvent, Transfer};
use crate::config::SsdConfig;
use crate::engine::EventQueue;
use crate::sim::Event;
use crate::time::{ns, transfer_time, Ps};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;
/// Router ports: the four mesh directions, the local chip, the attached controller.
const LOCAL: Port = 4;
const FC_PORT: Port = 5;
const PORTS: u32 = 6;

#[derive(Clone, Copy, Debug)]
struct Packet {
    xfer: u32,
    size: u32,
    /// Router the packet's head is in, and the input port whose buffer holds it.
    router: u32,
    in_port: Port,
    /// Destination router and whether the sink is the controller (else the chip).
    dest: u32,
    to_fc: bool,
    ready: Ps,
    next_free: u32,
}

#[derive(Clone, Copy, Debug)]
struct Xfer {
    die: u32,
    packets_left: u32,
    conflict: bool,
    next_free: u32,
}

#[derive(Default)]
struct Channel {
    busy: bool,
    queue: VecDeque<u32>,
    busy_time: Ps,
}

pub struct NoSsd {
    mesh: Mesh,
    bytes_per_s: f64,
    hop: Ps,
    command_bytes: u32,
    packet_max: u32,
    /// Router output channels `router * PORTS + port`, then one injection channel per chip,
    /// then one per controller.
    channels: Vec<Channel>,
    /// Free bytes of each router input buffer `router * PORTS + port`.
    in_free: Vec<u32>,
    /// Controller attached to each router (or NONE).
    fc_at: Vec<u32>,
    packets: Vec<Packet>,
    free_packet: u32,
    xfers: Vec<Xfer>,
    free_xfer: u32,
    transfers: u64,
    conflicted: u64,
    wait: Ps,
}

impl NoSsd {
    pub fn new(cfg: &SsdConfig) -> Self {
        let mesh = Mesh::new(cfg);
        let n = &cfg.network;
        let r = mesh.routers();
        let mut fc_at = vec![NONE; r as usize];
        for (i, &fr) in mesh.fc_router.iter().enumerate() {
            fc_at[fr as usize] = i as u32;
        }
        let rate = if n.nossd_link_mb_s > 0.0 {
            n.nossd_link_mb_s
        } else {
            cfg.flash.channel_mb_s
        };
        let nch = (r * PORTS) as usize + r as usize + mesh.fc_router.len();
        Self {
            bytes_per_s: rate * 1e6,
            hop: (n.router_delay_cycles as Ps + 1) * ns(n.link_cycle_ns),
            command_bytes: n.command_bytes,
            packet_max: n.nossd_buffer_bytes,
            channels: (0..nch).map(|_| Channel::default()).collect(),
            in_free: vec![n.nossd_buffer_bytes; (r * PORTS) as usize],
            fc_at,
            packets: Vec::new(),
            free_packet: NONE,
            xfers: Vec::new(),
            free_xfer: NONE,
            transfers: 0,
            conflicted: 0,
            wait: 0,
            mesh,
        }
    }

    fn chip_channel(&self, chip: u32) -> usize {
        (self.mesh.routers() * PORTS + chip) as usize
    }

    fn fc_channel(&self, fc: u32) -> usize {
        (self.mesh.routers() * PORTS + self.mesh.routers() + fc) as usize
    }

    /// XY routing: the output port at router `r` for a packet to `dest`.
    fn xy(&self, r: u32, dest: u32, to_fc: bool) -> Port {
        let (x, y) = self.mesh.xy(r);
        let (dx, dy) = self.mesh.xy(dest);
        if dx > x {
            RIGHT
        } else if dx < x {
            LEFT
        } else if dy > y {
            UP
        } else if dy < y {
            DOWN
        } else if to_fc {
            FC_PORT
        } else {
            LOCAL
        }
    }

    /// The input buffer a channel feeds (none for ejection channels).
    fn downstream(&self, ch: usize) -> Option<(u32, Port)> {
        let routers = self.mesh.routers() as usize;
        if ch < routers * PORTS as usize {
            let (r, p) = ((ch / PORTS as usize) as u32, (ch % PORTS as usize) as Port);
            if p >= LOCAL {
                return None;
            }
            let n = self
                .mesh
                .neighbor(r, p)
                .expect("XY routing stays in the mesh");
            Some((n, opposite(p)))
        } else if ch < routers * (PORTS as usize + 1) {
            Some(((ch - routers * PORTS as usize) as u32, LOCAL))
        } else {
            let fc = ch - routers * (PORTS as usize + 1);
            Some((self.mesh.fc_router[fc], FC_PORT))
        }
    }

    /// The channel that feeds input buffer (r, port).
    fn upstream(&self, r: u32, port: Port) -> usize {
        match port {
            LOCAL => self.chip_channel(r),
            FC_PORT => self.fc_channel(self.fc_at[r as usize]),
            p => {
                let n = self
                    .mesh
                    .neighbor(r, p)
                    .expect("a mesh input port has a neighbour");
                (n * PORTS + opposite(p) as u32) as usize
            }
        }
    }

    /// Venice's rule with "free" = nothing waiting to inject; if every controller is busy,
    /// the closest one queues the packets.
    fn pick_controller(&self, chip: u32) -> u32 {
        let idle = |f: u32| {
            let c = &self.channels[self.fc_channel(f)];
            !c.busy && c.queue.is_empty()
        };
        self.mesh
            .pick_controller(chip, idle)
            .or_else(|| self.mesh.pick_controller(chip, |_| true))
            .expect("at least one controller")
    }

    fn alloc_packet(&mut self, p: Packet) -> u32 {
        if self.free_packet != NONE {
            let i = self.free_packet;
            self.free_packet = self.packets[i as usize].next_free;
            self.packets[i as usize] = p;
            i
        } else {
            self.packets.push(p);
            (self.packets.len() - 1) as u32
        }
    }

    /// Start the head packet of a channel if the channel is idle and the downstream buffer has room.
    fn try_start(&mut self, now: Ps, ch: usize, q: &mut EventQueue<Event>) {
        if self.channels[ch].busy {
            return;
        }
        let Some(&pkt) = self.channels[ch].queue.front() else {
            return;
        };
        let p = self.packets[pkt as usize];
        let down = self.downstream(ch);
        if let Some((r, port)) = down {
            let b = (r * PORTS + port as u32) as usize;
            if self.in_free[b] < p.size {
                return; // back-pressure: wait for the buffer to drain
            }
            self.in_free[b] -= p.size;
        }
        self.channels[ch].queue.pop_front();
        if now > p.ready {
            self.xfers[p.xfer as usize].conflict = true;
            self.wait += now - p.ready;
        }
        let ser = transfer_time(p.size as u64, self.bytes_per_s);
        let c = &mut self.channels[ch];
        c.busy = true;
        c.busy_time += ser;
        // The buffer the packet leaves is freed when its tail has crossed this channel.
        q.schedule(
            now + ser,
            Event::Net(NetEvent::ChannelTail {
                ch: ch as u32,
                size: p.size,
                in_port: p.in_port,
            }),
        );
        match down {
            Some((r, port)) => {
                let pk = &mut self.packets[pkt as usize];
                pk.router = r;
                pk.in_port = port;
                q.schedule(now + self.hop, Event::Net(NetEvent::PacketHead { pkt }));
            }
            None => q.schedule(
                now + ser + self.hop,
                Event::Net(NetEvent::PacketDelivered { pkt }),
            ),
        }
    }
}

impl Interconnect for NoSsd {
    fn name(&self) -> &'static str {
        "nossd"
    }

    fn submit(&mut self, now: Ps, t: Transfer, q: &mut EventQueue<Event>) {
        let fc = self.pick_controller(t.chip);
        let size = t.commands * self.command_bytes + t.bytes;
        let packets = size.div_ceil(self.packet_max).max(1);
        let x = Xfer {
            die: t.die,
            packets_left: packets,
            conflict: false,
            next_free: NONE,
        };
        let xi = if self.free_xfer != NONE {
            let i = self.free_xfer;
            self.free_xfer = self.xfers[i as usize].next_free;
            self.xfers[i as usize] = x;
            i
        } else {
            self.xfers.push(x);
            (self.xfers.len() - 1) as u32
        };
        // Commands and write data flow controller -> chip; read data (no command) chip -> controller.
        let to_chip = t.commands > 0;
        let (src_ch, dest, to_fc) = if to_chip {
            (self.fc_channel(fc), t.chip, false)
        } else {
            (
                self.chip_channel(t.chip),
                self.mesh.fc_router[fc as usize],
                true,
            )
        };
        let mut left = size;
        for _ in 0..packets {
            let s = left.min(self.packet_max).max(1);
            left = left.saturating_sub(s);
            let p = self.alloc_packet(Packet {
                xfer: xi,
                size: s,
                router: NONE,
                in_port: 0,
                dest,
                to_fc,
                ready: now,
                next_free: NONE,
            });
            self.channels[src_ch].queue.push_back(p);
        }
        self.try_start(now, src_ch, q);
    }

    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut EventQueue<Event>) {
        match ev {
            NetEvent::PacketHead { pkt } => {
                let p = &mut self.packets[pkt as usize];
                p.ready = now;
                let (r, dest, to_fc) = (p.router, p.dest, p.to_fc);
                let out = (r * PORTS + self.xy(r, dest, to_fc) as u32) as usize;
                self.channels[out].queue.push_back(pkt);
                self.try_start(now, out, q);
            }
            NetEvent::ChannelTail { ch, size, in_port } => {
                let ch = ch as usize;
                self.channels[ch].busy = false;
                // A router output: the tail left the input buffer it held at that router.
                if ch < (self.mesh.routers() * PORTS) as usize {
                    let r = ch as u32 / PORTS;
                    self.in_free[(r * PORTS + in_port as u32) as usize] += size;
                    let up = self.upstream(r, in_port);
                    self.try_start(now, up, q);
                }
                self.try_start(now, ch, q);
            }
            NetEvent::PacketDelivered { pkt } => {
                let xi = self.packets[pkt as usize].xfer as usize;
                self.packets[pkt as usize].next_free = self.free_packet;
                self.free_packet = pkt;
                let x = &mut self.xfers[xi];
                x.packets_left -= 1;
                if x.packets_left == 0 {
                    self.transfers += 1;
                    if x.conflict {
                        self.conflicted += 1;
                    }
                    q.schedule(
                        now,
                        Event::TransferDone {
                            die: x.die,
                            conflict: x.conflict,
                        },
                    );
                    x.next_free = self.free_xfer;
                    self.free_xfer = xi as u32;
                }
            }
            other => unreachable!("not a NoSSD event: {other:?}"),
        }
    }

    fn stats(&self, sim_time: Ps) -> InterconnectStats {
        InterconnectStats::from_busy(
            self.transfers,
            self.conflicted,
            self.wait,
            self.channels.iter().map(|c| c.busy_time),
            sim_time,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config(rows: u32, cols: u32, buffer: u32) -> SsdConfig {
        let mut c = SsdConfig::default();
        c.flash.channels = rows;
        c.flash.chips_per_channel = cols;
        c.network.nossd_buffer_bytes = buffer;
        c.validate().unwrap();
        c
    }

    fn drain<I: Interconnect>(n: &mut I, q: &mut EventQueue<Event>) -> Vec<(Ps, u32, bool)> {
        super::super::testutil::drain(n, q, |_| {})
    }

    #[test]
    fn one_packet_cuts_through_two_hops() {
        let c = config(2, 3, 16384);
        let mut n = NoSsd::new(&c);
        let mut q = EventQueue::new();
        // FC0 at router 0 -> chip 2 at (row 0, col 2): inject, 2 mesh hops, eject.
        n.submit(
            0,
            Transfer {
                die: 2,
                chip: 2,
                commands: 1,
                command_ps: 0,
                bytes: 4096,
            },
            &mut q,
        );
        let hop = 2_000; // 1 router cycle + 1 link cycle
        let ser = transfer_time(7 + 4096, 1.2e9);
        assert_eq!(drain(&mut n, &mut q), vec![(4 * hop + ser, 2, false)]);
        assert!(
            n.in_free.iter().all(|&b| b == 16384),
            "every buffer drained"
        );
    }

    #[test]
    fn read_data_routes_x_then_y_to_the_controller() {
        let c = config(3, 3, 16384);
        let n = NoSsd::new(&c);
        // chip 8 at (x 2, y 2) to FC0's router 0: LEFT, LEFT, then DOWN, DOWN, then eject to FC.
        assert_eq!(n.xy(8, 0, true), LEFT);
        assert_eq!(n.xy(6, 0, true), DOWN);
        assert_eq!(n.xy(0, 0, true), FC_PORT);
        assert_eq!(n.xy(0, 8, false), RIGHT);
        assert_eq!(n.xy(2, 8, false), UP);
        assert_eq!(n.xy(8, 8, false), LOCAL);
    }

    #[test]
    fn second_transfer_waits_for_the_shared_link() {
        let c = config(1, 3, 16384);
        let mut n = NoSsd::new(&c);
        let mut q = EventQueue::new();
        n.submit(
            0,
            Transfer {
                die: 1,
                chip: 1,
                commands: 1,
                command_ps: 0,
                bytes: 4096,
            },
            &mut q,
        );
        n.submit(
            0,
            Transfer {
                die: 2,
                chip: 2,
                commands: 1,
                command_ps: 0,
                bytes: 4096,
            },
            &mut q,
        );
        let done = drain(&mut n, &mut q);
        assert_eq!(done.len(), 2);
        assert!(
            !done[0].2 && done[1].2,
            "the second waited for FC0's injection link: {done:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random meshes, buffer sizes and transfer mixes: every transfer is delivered once,
        /// no deadlock under XY routing with back-pressure, every buffer drains.
        #[test]
        fn packets_all_delivered_and_buffers_drain(
            rows in 1u32..5, cols in 1u32..5, buffer in prop::sample::select(vec![512u32, 2048, 16384]),
            xfers in proptest::collection::vec((0u32..100, any::<bool>(), 0u32..20_000, 0u64..10_000), 1..60),
        ) {
            let c = config(rows, cols, buffer);
            let mut n = NoSsd::new(&c);
            let mut q = EventQueue::new();
            let mut arrivals: Vec<(Ps, Transfer)> = xfers.iter().enumerate().map(|(i, &(chip, cmd, bytes, t))| {
                (t * 1000, Transfer { die: i as u32, chip: chip % (rows * cols), commands: cmd as u32, command_ps: 0, bytes })
            }).collect();
            arrivals.sort_by_key(|a| a.0);
            let mut next = 0;
            let mut done = vec![0; arrivals.len()];
            loop {
                let te = q.peek_time();
                match arrivals.get(next) {
                    Some(&(ta, t)) if te.is_none_or(|te| ta < te) => {
                        q.advance_to(ta);
                        n.submit(ta, t, &mut q);
                        next += 1;
                    }
                    _ => match q.pop() {
                        Some((now, Event::Net(e))) => n.on_event(now, e, &mut q),
                        Some((_, Event::TransferDone { die, .. })) => done[die as usize] += 1,
                        Some(_) => unreachable!(),
                        None => break,
                    },
                }
                prop_assert!(q.events_processed() < 2_000_000);
            }
            prop_assert!(done.iter().all(|&d| d == 1), "{:?}", done);
            prop_assert!(n.in_free.iter().all(|&b| b == buffer));
            prop_assert!(n.channels.iter().all(|c| !c.busy && c.queue.is_empty()));
        }
    }
}
