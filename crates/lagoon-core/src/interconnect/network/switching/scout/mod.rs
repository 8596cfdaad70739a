//! Venice (ISCA 2023, §4): flash nodes (chip + router chip) on a 2D mesh, a circuit per
//! transfer reserved by a scout packet routed with non-minimal fully-adaptive routing
//! (Algorithm 1) and backtracking, then the transfer over the circuit (Eq. 1).
//!
//! ```text
//! transfer ready ─▶ pick FC (closest if free, else nearest free; else wait)
//!   ─▶ scout (reserve mode) hop by hop: Algorithm 1 at each router, reserving links
//!        blocked: backtrack (cancel mode) and try another port upstream
//!        back at the FC in cancel mode: re-send at once
//!   ─▶ at the destination: scout returns over the circuit ─▶ transfer (Eq. 1) ─▶ release
//! ```
//! An FC owns at most one reservation (the packet ID is the FC ID), so at most
//! `controllers` transfers run at once. Links are reserved whole (both directions).
//!
//! A switching mode of the network layer (`routing = venice` with `switching = circuit`,
//! [`super::Mode::Scout`]), beside the probes of [`super::circuit`]. Both keep their links in
//! the shared [`Reservations`] table (here a slot per link, `link_slot`); the port choice is
//! the layer's routing [`crate::interconnect::network::routing::venice`], on the layer's mesh
//! ([`Mesh`]). What stays this mode's own, because it is Venice's and results depend on it:
//! the timing (a scout hop is a router delay and the scout's flits, its return and the
//! transfer are Eq. 1), the retry rule (a blocked scout backtracks one router and tries
//! another port there; home in cancel mode it is re-sent at once, or with
//! `scout_retry = on-release` once a circuit was released), and the random draws (a 16-bit
//! LFSR per router). It also keeps views of the free links that the table does not need:
//! each router's free ports as a 4-bit mask (what Algorithm 1 reads) and the free links as
//! router bits for the reachability searches (`reach.rs`); and it schedules into the engine's
//! queue, or with lookahead a heap of its own (`local.rs`), not the layer's [`Network`]'s.
//!
//! [`Network`]: crate::interconnect::network::Network

use super::super::routing::venice::{algorithm_1, minimal_ports};
use super::super::topology::mesh2d::{Mesh, Port, INJECT, RIGHT, UP};
use super::reservation::Reservations;
use crate::config::{ConfigError, ScoutRetry, SsdConfig};
use crate::engine::{Key, KeyedHeap, Queue};
use crate::interconnect::{
    BackEnd, IcEvent, Interconnect, InterconnectStats, NetEvent, NetworkStats, Transfer,
    VeniceStats,
};
use crate::time::{ns, Ps};
use local::HopFifo;
use reach::Search;
use std::collections::VecDeque;

mod local;
mod reach;
#[cfg(test)]
mod tests;

/// One forward visit in `Controller::seen` (the low four bits are the tried ports; the
/// schema bounds `max_router_visits` to 255, so visits fit the next 12).
const VISIT: u32 = 1 << 4;
/// The bits of a `Controller::seen` entry that hold the scout's stamp (its number modulo
/// 2^16): an entry with another stamp is a previous scout's and counts as zero.
const STAMP: u32 = 0xffff_0000;

/// One reserved hop of a scout's path.
#[derive(Clone, Copy, Debug)]
struct Hop {
    router: u32,
    /// The router across `out_port`, and the link's slot ([`link_slot`]).
    next: u32,
    link: u32,
    in_port: Port,
    out_port: Port,
}

/// A router as a scout step reads it: its ports whose link is free (a 4-bit mask by port),
/// its random source for Algorithm 1 and its coordinates (column, row), in one record.
#[derive(Clone, Copy)]
struct Node {
    free: u8,
    lfsr: u16,
    xy: (u32, u32),
}

/// A mesh link's slot in the reservation table: by its lower router and direction (`2 r`
/// for the link to `r`'s Right neighbour, `2 r + 1` for the one Up), so a hop finds it by
/// arithmetic; the layer's link ids map onto these for the counters.
#[inline(always)]
fn link_slot(r: u32, p: Port, next: u32) -> usize {
    2 * r.min(next) as usize + (p < RIGHT) as usize
}

struct Controller {
    active: bool,
    xfer: Transfer,
    ready: Ps,
    assigned: Ps,
    dest: u32,
    /// Router the scout is at, and the port it entered by.
    router: u32,
    in_port: Port,
    path: Vec<Hop>,
    /// Per router, for the current scout: output ports already tried (bits 0-3, by port)
    /// and forward visits (the bits above, in units of `VISIT`), valid where the `STAMP`
    /// bits equal `stamp` (so a new scout starts without clearing the table).
    seen: Vec<u32>,
    stamp: u32,
    attempts: u32,
    busy_time: Ps,
    /// A path is reserved and the transfer is running over it.
    circuit: bool,
}

/// Venice's flash controllers, their scouts and circuits on a 2D mesh: an SSD back end
/// ([`crate::interconnect::net::NetSsd`] in this mode).
pub struct Scouts {
    mesh: Mesh,
    cycle: Ps,
    width: u32,
    flits: u32,
    hop: Ps,
    command_bytes: u32,
    max_visits: u16,
    /// Per link slot ([`link_slot`]): the controller holding it and its time reserved.
    links: Reservations,
    chip_busy: Vec<bool>,
    fcs: Vec<Controller>,
    waiting: VecDeque<(Ps, Transfer)>,
    /// Per router: free ports, one 16-bit maximal-length Galois LFSR for Algorithm 1's
    /// random choices, coordinates.
    nodes: Vec<Node>,
    /// Per mesh port, the step to the router across it; the layer's link ids as slots of
    /// `links`.
    step: [u32; 4],
    slot_of: Vec<u32>,
    stats: VeniceStats,
    /// When each controller's current scout left (for the conflict wait).
    launched: Vec<Ps>,
    retry: ScoutRetry,
    /// Free links as router bits, `words` words a direction: bit `r` of the first half
    /// for the link from `r` to its Right neighbour `r + 1`, of the second for the one to
    /// its Up neighbour `r + cols`.
    free_links: Vec<u64>,
    /// The two ends of the reachability search on meshes of over 64 routers.
    bfs: [Search; 2],
    words: usize,
    /// With `lookahead`, Venice's own events wait here under keys reserved from the engine's
    /// queue, which holds one `Wake` proxy per earliest pending key (`proxies`, ascending).
    local: KeyedHeap<NetEvent>,
    /// The local events due one scout hop after they were made (most of them); the heap
    /// keeps the others (a scout back over its circuit, a transfer's end).
    hops: HopFifo,
    proxies: Vec<Key>,
    local_events: u64,
    lookahead: bool,
    /// Link releases so far, the count when each controller's scout left, and the
    /// controllers waiting for a release to re-send their scout.
    releases: u64,
    launched_epoch: Vec<u64>,
    parked: Vec<u32>,
    /// `parked` of the previous wake, kept for its capacity.
    parked_spare: Vec<u32>,
    /// On meshes of at most 64 routers, while the links cannot change (a release's
    /// re-launches, [`Self::on_transfer_end`]; `share_reach` is set then): sets of routers
    /// the reachability searches found joined by free links, and whether each is a whole
    /// component or was cut short at its target.
    share_reach: bool,
    joined: Vec<(u64, bool)>,
    /// Controllers holding a circuit (their transfer running), and those without a
    /// transfer.
    circuits: u32,
    idle: u32,
    transfers: u64,
    conflicted: u64,
    wait: Ps,
    /// Time from hand-over to the end of each transfer, and router-to-router hops of its
    /// circuit: the layer's network counters.
    latency_total: Ps,
    hops_total: u64,
}

/// Flip the link between `r` (its mesh port `p`) and `next` between free and reserved, as
/// router bits (`bits`, `words` a direction) and in both routers' free-port masks.
#[inline(always)]
fn flip_link(bits: &mut [u64], words: usize, nodes: &mut [Node], r: u32, p: Port, next: u32) {
    let low = r.min(next);
    let w = (low / 64) as usize + if p < RIGHT { words } else { 0 };
    debug_assert!(w < bits.len() && (r.max(next) as usize) < nodes.len());
    // SAFETY: `r` and `next` are routers of the mesh (`nodes` has one entry per router,
    // `bits` a word per 64 routers in each of its two halves), never resized.
    unsafe {
        *bits.get_unchecked_mut(w) ^= 1 << (low % 64);
        nodes.get_unchecked_mut(r as usize).free ^= 1 << p;
        nodes.get_unchecked_mut(next as usize).free ^= 1 << (p ^ 1);
    }
}

impl Scouts {
    /// Venice's scouts on the drive's `[network]` 2D mesh (`--arch venice` passes
    /// [`crate::interconnect::net::venice_layer`]).
    pub fn new(cfg: &SsdConfig, seed: u64) -> Result<Self, ConfigError> {
        let mesh = Mesh::new(cfg)?;
        let n = &cfg.network;
        let cycle = ns(n.link_cycle_ns);
        let routers = mesh.routers() as usize;
        let fcs = (0..mesh.fc_router.len())
            .map(|_| Controller {
                active: false,
                xfer: Transfer {
                    die: 0,
                    chip: 0,
                    commands: 0,
                    command_ps: 0,
                    bytes: 0,
                },
                ready: 0,
                assigned: 0,
                dest: 0,
                router: 0,
                in_port: INJECT,
                path: Vec::with_capacity(4 * routers),
                seen: vec![0; routers],
                stamp: 0,
                attempts: 0,
                busy_time: 0,
                circuit: false,
            })
            .collect();
        let mut s = seed ^ 0x5eed_1fa5_0000_0001;
        let nodes = (0..routers as u32)
            .map(|r| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Node {
                    free: mesh.port_mask(r),
                    lfsr: ((s >> 33) as u16) | 1,
                    xy: mesh.xy(r),
                }
            })
            .collect();
        let mut slot_of = vec![0; mesh.links() as usize];
        for r in 0..routers as u32 {
            for p in [UP, RIGHT] {
                if let Some(next) = mesh.neighbor(r, p) {
                    slot_of[mesh.link(r, p) as usize] = link_slot(r, p, next) as u32;
                }
            }
        }
        Ok(Self {
            cycle,
            width: n.link_width_bytes,
            flits: n.scout_flits,
            hop: (n.router_delay_cycles + n.scout_flits) as Ps * cycle,
            command_bytes: n.command_bytes,
            max_visits: n.max_router_visits.min(255) as u16,
            links: Reservations::new(2 * routers),
            chip_busy: vec![false; mesh.chip_router.len()],
            fcs,
            waiting: VecDeque::new(),
            nodes,
            step: mesh.steps(),
            slot_of,
            stats: VeniceStats::default(),
            launched: vec![0; mesh.fc_router.len()],
            retry: n.scout_retry,
            free_links: [RIGHT, UP]
                .into_iter()
                .flat_map(|p| Self::links_from(&mesh, p))
                .collect(),
            bfs: [Search::new(routers as u32), Search::new(routers as u32)],
            words: routers.div_ceil(64),
            local: KeyedHeap::with_capacity(64),
            hops: HopFifo::new(mesh.fc_router.len()),
            proxies: Vec::with_capacity(8),
            local_events: 0,
            lookahead: n.lookahead,
            releases: 0,
            launched_epoch: vec![0; mesh.fc_router.len()],
            parked: Vec::with_capacity(mesh.fc_router.len()),
            parked_spare: Vec::with_capacity(mesh.fc_router.len()),
            share_reach: false,
            joined: Vec::with_capacity(mesh.fc_router.len()),
            circuits: 0,
            idle: mesh.fc_router.len() as u32,
            transfers: 0,
            conflicted: 0,
            wait: 0,
            latency_total: 0,
            hops_total: 0,
            mesh,
        })
    }

    /// Routers that have a link leaving by `p`, as bits.
    fn links_from(mesh: &Mesh, p: Port) -> Vec<u64> {
        let mut b = vec![0; (mesh.routers() as usize).div_ceil(64)];
        for r in 0..mesh.routers() {
            if mesh.neighbor(r, p).is_some() {
                b[(r / 64) as usize] |= 1 << (r % 64);
            }
        }
        b
    }

    /// Eq. 1: T = (distance + transfer_size / link_width) × link_latency.
    pub fn eq1(&self, distance: u32, bytes: u32) -> Ps {
        (distance as Ps + bytes.div_ceil(self.width) as Ps) * self.cycle
    }

    /// Venice Algorithm 1 at router `r` for the scout of controller `fc`: the output port,
    /// or `None` to backtrack (line 48). Ejection (line 25) is handled by the caller.
    /// A port is free if its link exists, is reserved by no one, and this scout has not
    /// left `r` by it before (each output port is reserved once per router, §4.3).
    pub fn choose_port(&mut self, fc: usize, r: u32, dest: u32, in_port: Port) -> Option<Port> {
        let c = &self.fcs[fc];
        let seen = c.seen[r as usize];
        let tried = if seen & STAMP == c.stamp {
            seen as u8 & 0xf
        } else {
            0
        };
        let minimal = minimal_ports(self.mesh.xy(r), self.mesh.xy(dest));
        let node = &mut self.nodes[r as usize];
        algorithm_1(node.free & !tried, minimal, in_port, &mut node.lfsr)
    }

    fn pick_controller(&self, chip: u32) -> Option<usize> {
        self.mesh
            .pick_controller(self.mesh.chip_router[chip as usize], |f| {
                !self.fcs[f as usize].active
            })
            .map(|f| f as usize)
    }

    fn assign<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, ready: Ps, t: Transfer, q: &mut Q) {
        self.chip_busy[t.chip as usize] = true;
        self.idle -= 1;
        let c = &mut self.fcs[fc];
        c.active = true;
        c.xfer = t;
        c.ready = ready;
        c.assigned = now;
        c.dest = self.mesh.chip_router[t.chip as usize];
        c.attempts = 0;
        self.launch(now, fc, q);
    }

    /// Send a fresh scout from the controller into its edge router.
    fn launch<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, q: &mut Q) {
        // OnRelease: a scout sent while no free path exists would fail (its search covers every
        // reachable free link); count it as a failed scout and wait for the next circuit release
        // instead of simulating its hops. Held circuits guarantee that release comes.
        if self.retry == ScoutRetry::OnRelease && self.circuits > 0 && !self.reachable(fc) {
            self.stats.scouts += 1;
            self.stats.scout_retries += 1;
            self.fcs[fc].attempts += 1;
            self.launched[fc] = now;
            self.launched_epoch[fc] = self.releases;
            self.parked.push(fc as u32);
            return;
        }
        let c = &mut self.fcs[fc];
        c.stamp = c.stamp.wrapping_add(1 << 16);
        if c.stamp == 0 {
            // Stamps wrapped: clear the table so no entry of an old scout matches.
            c.seen.fill(0);
            c.stamp = 1 << 16;
        }
        c.path.clear();
        c.attempts += 1;
        c.router = self.mesh.fc_router[fc];
        c.in_port = INJECT;
        self.stats.scouts += 1;
        self.launched[fc] = now;
        self.launched_epoch[fc] = self.releases;
        self.schedule_hop(now, NetEvent::ScoutArrive { fc: fc as u16 }, q);
    }

    /// A scout at its router: arrived there in reserve mode (`arrive`, counted against
    /// §4.3's visit bound) or back there in cancel mode; eject, reserve the next hop or
    /// backtrack. True if the scout ejected (its return waits in the local heap, not the hop
    /// FIFO).
    #[inline(always)]
    fn route<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, arrive: bool, q: &mut Q) -> bool {
        // The fields apart, so the compiler keeps them in registers across the step.
        let Self {
            fcs,
            nodes,
            step,
            free_links,
            words,
            links,
            max_visits,
            ..
        } = self;
        debug_assert!(fc < fcs.len());
        // SAFETY: `fc` comes from one of our events, made for one of the `fcs`.
        let c = unsafe { fcs.get_unchecked_mut(fc) };
        let (r, dest, in_port) = (c.router, c.dest, c.in_port);
        debug_assert!((r as usize) < c.seen.len() && c.seen.len() == nodes.len());
        // SAFETY: a scout's router is always one of the mesh's, and `seen` has one entry
        // per router (made so in `new`, never resized).
        let seen = unsafe { c.seen.get_unchecked_mut(r as usize) };
        if arrive {
            if *seen & STAMP != c.stamp {
                *seen = c.stamp;
            }
            *seen += VISIT;
            // §4.3 livelock bound: a router visited too often sends the scout back.
            if (*seen & !STAMP) >> 4 > *max_visits as u32 {
                self.backtrack(now, fc, q);
                return false;
            }
        }
        if r == dest {
            // Case 9: eject. The scout returns to the controller over the reserved circuit.
            let distance = c.path.len() as u32 + 1;
            let back = self.eq1(distance, self.flits);
            self.schedule(
                now + back,
                NetEvent::ScoutHome {
                    fc: fc as u16,
                    reserved: true,
                },
                q,
            );
            return true;
        }
        debug_assert!((dest as usize) < nodes.len());
        // SAFETY: as for `seen` above (`nodes` has one entry per router, never resized); a
        // destination is a chip's router.
        let to = unsafe { nodes.get_unchecked(dest as usize) }.xy;
        // SAFETY: as for `to`.
        let node = unsafe { nodes.get_unchecked_mut(r as usize) };
        let free = node.free & !(*seen as u8 & 0xf);
        let minimal = minimal_ports(node.xy, to);
        let Some(p) = algorithm_1(free, minimal, in_port, &mut node.lfsr) else {
            self.backtrack(now, fc, q);
            return false;
        };
        *seen |= 1 << p;
        // `p` is a free mesh port of `r`, so its link exists.
        let next = r.wrapping_add(step[p as usize & 3]);
        debug_assert_eq!(next, self.mesh.across(r, p).0);
        let link = link_slot(r, p, next);
        // SAFETY: `r` and `next` are routers, and `links` has two slots per router.
        unsafe { links.reserve_unchecked(link, fc as u32, now) };
        flip_link(free_links, *words, nodes, r, p, next);
        let hop = Hop {
            router: r,
            next,
            link: link as u32,
            in_port,
            out_port: p,
        };
        // A path reserves each link at most once, so it never outgrows the capacity made
        // in `new` (4 per router, over the 2 links per router).
        debug_assert!(c.path.len() < c.path.capacity());
        // SAFETY: there is room (above); the slot past the end is written, then counted.
        unsafe {
            c.path.as_mut_ptr().add(c.path.len()).write(hop);
            c.path.set_len(c.path.len() + 1);
        }
        c.router = next;
        // `p` is a mesh port, so its opposite is `p ^ 1` (see `opposite`).
        c.in_port = p ^ 1;
        self.schedule_hop(now, NetEvent::ScoutArrive { fc: fc as u16 }, q);
        false
    }

    /// Cancel mode: clear the link into this router and return upstream (or to the FC).
    #[inline(always)]
    fn backtrack<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, q: &mut Q) {
        self.stats.backtracks += 1;
        debug_assert!(fc < self.fcs.len());
        // SAFETY: as in `route`, `fc` is one of the `fcs`.
        match unsafe { self.fcs.get_unchecked_mut(fc) }.path.pop() {
            None => self.schedule_hop(
                now,
                NetEvent::ScoutHome {
                    fc: fc as u16,
                    reserved: false,
                },
                q,
            ),
            Some(h) => {
                self.release(now, &h);
                // SAFETY: as above.
                let c = unsafe { self.fcs.get_unchecked_mut(fc) };
                c.router = h.router;
                c.in_port = h.in_port;
                self.schedule_hop(now, NetEvent::ScoutReturn { fc: fc as u16 }, q);
            }
        }
    }

    /// Mark the link between `r` (its port `p`) and `next` free or reserved, in both views.
    #[inline(always)]
    fn set_free(&mut self, r: u32, p: Port, next: u32, free: bool) {
        debug_assert_ne!(
            self.nodes[r as usize].free & 1 << p != 0,
            free,
            "already so"
        );
        flip_link(
            &mut self.free_links,
            self.words,
            &mut self.nodes,
            r,
            p,
            next,
        );
    }

    #[inline(always)]
    fn release(&mut self, now: Ps, h: &Hop) {
        let link = h.link as usize;
        self.set_free(h.router, h.out_port, h.next, true);
        // SAFETY: `h.link` was made by `link_slot` from two routers (see `route`).
        unsafe { self.links.release_unchecked(link, now) };
    }

    /// Re-send the scouts of controllers that were waiting for the network to change.
    /// In parking order; a controller parked again goes to the back of the new list.
    fn wake_parked<Q: Queue<IcEvent>>(&mut self, now: Ps, q: &mut Q) {
        let mut list = std::mem::take(&mut self.parked_spare);
        std::mem::swap(&mut list, &mut self.parked);
        for &fc in &list {
            self.launch(now, fc as usize, q);
        }
        list.clear();
        self.parked_spare = list;
    }

    fn serve_waiting<Q: Queue<IcEvent>>(&mut self, now: Ps, q: &mut Q) {
        let mut i = 0;
        // No free controller: nothing can start (the scan would end at the first transfer
        // whose chip is free).
        while i < self.waiting.len() && self.idle > 0 {
            let (ready, t) = self.waiting[i];
            if self.chip_busy[t.chip as usize] {
                i += 1;
                continue;
            }
            let Some(fc) = self.pick_controller(t.chip) else {
                return;
            };
            self.waiting.remove(i);
            self.assign(now, fc, ready, t, q);
        }
    }

    /// Whether any link is reserved by two controllers at once (never: a link has one owner)
    /// or a controller's path is inconsistent with the reservation table. For property tests.
    pub fn check_reservations(&self) -> Result<(), String> {
        self.links.check(self.fcs.iter().enumerate().map(|(i, c)| {
            (
                i as u32,
                c.path
                    .iter()
                    .map(|h| link_slot(h.router, h.out_port, h.next)),
            )
        }))
    }

    #[inline(always)]
    fn handle<Q: Queue<IcEvent>>(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        match ev {
            NetEvent::ScoutArrive { fc } => {
                self.route(now, fc as usize, true, q);
            }
            NetEvent::ScoutReturn { fc } => {
                self.route(now, fc as usize, false, q);
            }
            NetEvent::ScoutHome { fc, reserved } => {
                self.on_scout_home(now, fc as usize, reserved, q)
            }
            NetEvent::TransferEnd { fc } => self.on_transfer_end(now, fc as usize, q),
            other => {
                unreachable!("not a scout event: {other:?}")
            }
        }
    }

    fn on_scout_home<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, reserved: bool, q: &mut Q) {
        if !reserved {
            // §4.2: back at the controller in cancel mode: re-send at once (or, OnRelease,
            // once a link was freed since this scout left).
            self.stats.scout_retries += 1;
            if self.retry == ScoutRetry::Immediate
                || self.circuits == 0
                || self.releases > self.launched_epoch[fc]
            {
                self.launch(now, fc, q);
            } else {
                self.parked.push(fc as u32);
            }
            return;
        }
        let c = &self.fcs[fc];
        let distance = c.path.len() as u32 + 1;
        let minimal = self.mesh.fc_distance(fc as u32, c.dest);
        self.stats.path_hops_total += distance as u64;
        if distance > minimal {
            self.stats.nonminimal_paths += 1;
        }
        if c.attempts == 1 {
            self.stats.first_try_transfers += 1;
        }
        let size = c.xfer.commands * self.command_bytes + c.xfer.bytes;
        let t = self.eq1(distance, size);
        self.fcs[fc].circuit = true;
        self.circuits += 1;
        self.schedule(now + t, NetEvent::TransferEnd { fc: fc as u16 }, q);
    }

    fn on_transfer_end<Q: Queue<IcEvent>>(&mut self, now: Ps, fc: usize, q: &mut Q) {
        self.hops_total += self.fcs[fc].path.len() as u64;
        self.latency_total += now - self.fcs[fc].ready;
        while let Some(h) = self.fcs[fc].path.pop() {
            self.release(now, &h);
        }
        self.releases += 1;
        let c = &mut self.fcs[fc];
        c.active = false;
        self.idle += 1;
        c.circuit = false;
        self.circuits -= 1;
        c.busy_time += now - c.assigned;
        let t = c.xfer;
        self.chip_busy[t.chip as usize] = false;
        let conflict = c.assigned > c.ready || c.attempts > 1;
        self.transfers += 1;
        if conflict {
            self.conflicted += 1;
            self.wait += self.launched[fc] - c.ready;
        }
        q.schedule(
            now,
            IcEvent::TransferDone {
                die: t.die,
                conflict,
            },
        );
        // From here on the links stay as they are (a launch only schedules its scout's
        // first hop), so reachability searches share what they found.
        self.joined.clear();
        self.share_reach = self.words == 1;
        self.wake_parked(now, q);
        self.serve_waiting(now, q);
        self.share_reach = false;
    }
}

impl BackEnd for Scouts {
    fn name(&self) -> &'static str {
        "venice"
    }

    fn local_events(&self) -> u64 {
        self.local_events
    }

    fn describe_state(&self) -> String {
        let active: Vec<String> = self
            .fcs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.active)
            .map(|(i, c)| {
                format!(
                    "FC{i} at router {} for chip {} ({} scouts{})",
                    c.router,
                    c.xfer.chip,
                    c.attempts,
                    if c.circuit { ", circuit held" } else { "" }
                )
            })
            .take(8)
            .collect();
        format!(
            "venice: {} transfers waiting for a controller; controllers searching: {}; links reserved: {} of {}",
            self.waiting.len(),
            if active.is_empty() { "none".to_string() } else { active.join(", ") },
            self.links.held(),
            self.mesh.links()
        )
    }

    fn stats(&self, sim_time: Ps) -> InterconnectStats {
        let mut v = self.stats.clone();
        v.controller_utilization = self
            .fcs
            .iter()
            .map(|c| {
                if sim_time > 0 {
                    c.busy_time as f64 / sim_time as f64
                } else {
                    0.0
                }
            })
            .collect();
        v.finish(self.transfers);
        let mut s = InterconnectStats::from_busy(
            self.transfers,
            self.conflicted,
            self.wait,
            self.slot_of.iter().map(|&l| self.links.busy(l as usize)),
            sim_time,
        );
        let n = self.transfers.max(1) as f64;
        s.network = Some(NetworkStats {
            topology: crate::config::TopologyKind::Mesh.to_string(),
            routers: self.mesh.routers(),
            links: self.mesh.links(),
            messages: self.transfers,
            packets: self.transfers,
            mean_latency_ns: crate::time::to_ns_f64(self.latency_total) / n,
            mean_hops: self.hops_total as f64 / n,
            probe_retries: v.scout_retries,
        });
        s.venice = Some(v);
        s.local_events = self.local_events;
        s.mesh = Some(self.mesh.layout());
        s
    }
}

// `on_event` and `submit` are compiled on their own, as when this was the back end's own
// entry: inlined into `NetSsd`'s dispatch they cost ~3 % more instructions on the Venice runs
// of bench/speed.sh, and the dispatch pays a frame for them on every call.
impl<Q: Queue<IcEvent>> Interconnect<Q> for Scouts {
    #[inline(never)]
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        // FIFO among waiting transfers; ones whose chip is busy do not block the others.
        self.waiting.push_back((now, t));
        self.serve_waiting(now, q);
        // No local run here: the caller may still schedule earlier events in this handler.
        self.arm(q);
    }

    #[inline(never)]
    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        if let NetEvent::Wake = ev {
            // Proxies pop in key order, so this is the earliest outstanding one.
            self.proxies.remove(0);
            self.run_local(q);
        } else {
            self.handle(now, ev, q);
        }
    }
}
