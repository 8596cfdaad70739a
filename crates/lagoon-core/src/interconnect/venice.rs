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

use super::venice_mesh::{opposite, Mesh, Port, DOWN, INJECT, LEFT, MESH_PORTS, RIGHT, UP};
use super::{Interconnect, InterconnectStats, NetEvent, Transfer, VeniceStats};
use crate::config::{ConfigError, ScoutRetry, SsdConfig};
use crate::engine::{EventQueue, Key, KeyedHeap};
use crate::sim::Event;
use crate::time::{ns, Ps};
use std::collections::VecDeque;

const FREE: u32 = u32::MAX;

/// Routers as bits, for whole-mesh reachability in a few word operations per BFS layer.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: u32) -> Self {
        Bits(vec![0; (n as usize).div_ceil(64)])
    }
    #[inline]
    fn set(&mut self, i: u32, on: bool) {
        let (w, b) = ((i / 64) as usize, i % 64);
        if on {
            self.0[w] |= 1 << b;
        } else {
            self.0[w] &= !(1 << b);
        }
    }
    #[inline]
    fn get(&self, i: u32) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    /// `out |= (self & mask) << k` (towards higher router numbers), or `>> k` if `!up`.
    fn shifted_into(&self, mask: &Bits, k: u32, up: bool, out: &mut Bits) {
        let n = self.0.len();
        let (ws, bs) = ((k / 64) as usize, k % 64);
        for i in 0..n {
            let word = |j: usize| self.0[j] & mask.0[j];
            let v = if up {
                let lo = if i >= ws { word(i - ws) << bs } else { 0 };
                let carry = if bs > 0 && i > ws {
                    word(i - ws - 1) >> (64 - bs)
                } else {
                    0
                };
                lo | carry
            } else {
                let hi = if i + ws < n { word(i + ws) >> bs } else { 0 };
                let carry = if bs > 0 && i + ws + 1 < n {
                    word(i + ws + 1) << (64 - bs)
                } else {
                    0
                };
                hi | carry
            };
            out.0[i] |= v;
        }
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

/// One reserved hop of a scout's path.
#[derive(Clone, Copy, Debug)]
struct Hop {
    router: u32,
    in_port: Port,
    out_port: Port,
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
    /// Per router: forward visits and output ports already tried by the current scout.
    visits: Vec<u8>,
    tried: Vec<u8>,
    touched: Vec<u32>,
    attempts: u32,
    busy_time: Ps,
    /// A path is reserved and the transfer is running over it.
    circuit: bool,
}

/// Local events handled per `Wake` before control goes back to the engine.
const LOCAL_BUDGET: u32 = 1 << 16;

pub struct Venice {
    mesh: Mesh,
    cycle: Ps,
    width: u32,
    flits: u32,
    hop: Ps,
    command_bytes: u32,
    max_visits: u8,
    owner: Vec<u32>,
    reserved_at: Vec<Ps>,
    link_busy: Vec<Ps>,
    chip_busy: Vec<bool>,
    fcs: Vec<Controller>,
    waiting: VecDeque<(Ps, Transfer)>,
    /// One 16-bit maximal-length Galois LFSR per router for Algorithm 1's random choices.
    lfsr: Vec<u16>,
    stats: VeniceStats,
    /// Events produced while handling one call, handed to the queue at its end.
    pending: Vec<(Ps, Event)>,
    /// When each controller's current scout left (for the conflict wait).
    launched: Vec<Ps>,
    retry: ScoutRetry,
    /// Per direction: routers whose link that way exists and is free.
    free_dir: [Bits; 4],
    bfs_seen: Bits,
    bfs_front: Bits,
    bfs_next: Bits,
    /// With `lookahead`, Venice's own events wait here under keys reserved from the engine's
    /// queue, which holds one `Wake` proxy per earliest pending key (`proxies`, ascending).
    local: KeyedHeap<NetEvent>,
    proxies: Vec<Key>,
    local_events: u64,
    lookahead: bool,
    /// Link releases so far, the count when each controller's scout left, and the
    /// controllers waiting for a release to re-send their scout.
    releases: u64,
    launched_epoch: Vec<u64>,
    parked: Vec<u32>,
    transfers: u64,
    conflicted: u64,
    wait: Ps,
    /// Time from hand-over to the end of each transfer, and router-to-router hops of its
    /// circuit: the layer's network counters.
    latency_total: Ps,
    hops_total: u64,
}

impl Venice {
    /// Venice on the drive's `[network]` 2D mesh (`--arch venice` passes [`venice_layer`]).
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
                visits: vec![0; routers],
                tried: vec![0; routers],
                touched: Vec::with_capacity(routers),
                attempts: 0,
                busy_time: 0,
                circuit: false,
            })
            .collect();
        let mut s = seed ^ 0x5eed_1fa5_0000_0001;
        let lfsr = (0..routers)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) as u16) | 1
            })
            .collect();
        Ok(Self {
            cycle,
            width: n.link_width_bytes,
            flits: n.scout_flits,
            hop: (n.router_delay_cycles + n.scout_flits) as Ps * cycle,
            command_bytes: n.command_bytes,
            max_visits: n.max_router_visits.min(255) as u8,
            owner: vec![FREE; mesh.links() as usize],
            reserved_at: vec![0; mesh.links() as usize],
            link_busy: vec![0; mesh.links() as usize],
            chip_busy: vec![false; mesh.chip_router.len()],
            fcs,
            waiting: VecDeque::new(),
            lfsr,
            stats: VeniceStats::default(),
            pending: Vec::with_capacity(64),
            launched: vec![0; mesh.fc_router.len()],
            retry: n.scout_retry,
            free_dir: {
                let mut f = [(); 4].map(|_| Bits::new(routers as u32));
                for r in 0..routers as u32 {
                    for p in MESH_PORTS {
                        f[p as usize].set(r, mesh.neighbor(r, p).is_some());
                    }
                }
                f
            },
            bfs_seen: Bits::new(routers as u32),
            bfs_front: Bits::new(routers as u32),
            bfs_next: Bits::new(routers as u32),
            local: KeyedHeap::with_capacity(64),
            proxies: Vec::with_capacity(8),
            local_events: 0,
            lookahead: n.lookahead,
            releases: 0,
            launched_epoch: vec![0; mesh.fc_router.len()],
            parked: Vec::with_capacity(mesh.fc_router.len()),
            transfers: 0,
            conflicted: 0,
            wait: 0,
            latency_total: 0,
            hops_total: 0,
            mesh,
        })
    }

    /// Eq. 1: T = (distance + transfer_size / link_width) × link_latency.
    pub fn eq1(&self, distance: u32, bytes: u32) -> Ps {
        (distance as Ps + bytes.div_ceil(self.width) as Ps) * self.cycle
    }

    #[inline]
    fn random(&mut self, router: u32, n: usize) -> usize {
        // x^16 + x^14 + x^13 + x^11 + 1 (maximal length)
        let l = &mut self.lfsr[router as usize];
        let lsb = *l & 1;
        *l >>= 1;
        if lsb != 0 {
            *l ^= 0xB400;
        }
        match n {
            1 => 0,
            2 => (*l & 1) as usize,
            _ => *l as usize % n,
        }
    }

    #[inline]
    fn port_free(&self, fc: usize, r: u32, p: Port) -> bool {
        self.free_dir[p as usize].get(r) && self.fcs[fc].tried[r as usize] & (1 << p) == 0
    }

    /// Venice Algorithm 1 at router `r` for the scout of controller `fc`: the output port,
    /// or `None` to backtrack (line 48). Ejection (line 25) is handled by the caller.
    pub fn choose_port(&mut self, fc: usize, r: u32, dest: u32, in_port: Port) -> Option<Port> {
        let (cx, cy) = self.mesh.xy(r);
        let (dx, dy) = self.mesh.xy(dest);
        let diff_x = dx as i64 - cx as i64; // line 2
        let diff_y = dy as i64 - cy as i64; // line 3
        let mut list = [0 as Port; 4];
        let mut n = 0;
        // lines 5-26: minimal directions that are free
        let horizontal = match diff_x.signum() {
            1 => Some(RIGHT),
            -1 => Some(LEFT),
            _ => None,
        };
        let vertical = match diff_y.signum() {
            1 => Some(UP),
            -1 => Some(DOWN),
            _ => None,
        };
        for p in [horizontal, vertical].into_iter().flatten() {
            if self.port_free(fc, r, p) {
                list[n] = p;
                n += 1;
            }
        }
        match n {
            2 => return Some(list[self.random(r, 2)]), // lines 28-30
            1 => return Some(list[0]),                 // lines 31-33
            _ => {}
        }
        // lines 34-43: misroute over any free port but the input
        for p in MESH_PORTS {
            if p != in_port && self.port_free(fc, r, p) {
                list[n] = p;
                n += 1;
            }
        }
        if n > 0 {
            Some(list[self.random(r, n)]) // lines 44-46
        } else {
            None // lines 47-48: back to the upstream router
        }
    }

    fn pick_controller(&self, chip: u32) -> Option<usize> {
        self.mesh
            .pick_controller(self.mesh.chip_router[chip as usize], |f| {
                !self.fcs[f as usize].active
            })
            .map(|f| f as usize)
    }

    fn assign(&mut self, now: Ps, fc: usize, ready: Ps, t: Transfer) {
        self.chip_busy[t.chip as usize] = true;
        let c = &mut self.fcs[fc];
        c.active = true;
        c.xfer = t;
        c.ready = ready;
        c.assigned = now;
        c.dest = self.mesh.chip_router[t.chip as usize];
        c.attempts = 0;
        self.launch(now, fc);
    }

    /// Whether a path of free links joins controller `fc`'s router to its destination:
    /// breadth-first over bitsets, one layer per iteration.
    fn reachable(&mut self, fc: usize) -> bool {
        let (start, dest) = (self.mesh.fc_router[fc], self.fcs[fc].dest);
        let cols = self.mesh.cols;
        if self.bfs_seen.0.len() == 1 {
            return self.reachable_one_word(start, dest, cols);
        }
        self.bfs_seen.0.fill(0);
        self.bfs_front.0.fill(0);
        self.bfs_seen.set(start, true);
        self.bfs_front.set(start, true);
        loop {
            if self.bfs_front.get(dest) {
                return true;
            }
            self.bfs_next.0.fill(0);
            let f = &self.free_dir;
            self.bfs_front
                .shifted_into(&f[RIGHT as usize], 1, true, &mut self.bfs_next);
            self.bfs_front
                .shifted_into(&f[LEFT as usize], 1, false, &mut self.bfs_next);
            self.bfs_front
                .shifted_into(&f[UP as usize], cols, true, &mut self.bfs_next);
            self.bfs_front
                .shifted_into(&f[DOWN as usize], cols, false, &mut self.bfs_next);
            let mut any = 0;
            for (n, seen) in self.bfs_next.0.iter_mut().zip(self.bfs_seen.0.iter_mut()) {
                *n &= !*seen;
                *seen |= *n;
                any |= *n;
            }
            if any == 0 {
                return false;
            }
            std::mem::swap(&mut self.bfs_front, &mut self.bfs_next);
        }
    }

    /// [`Self::reachable`] for meshes of at most 64 routers: each layer is a few shifts.
    fn reachable_one_word(&self, start: u32, dest: u32, cols: u32) -> bool {
        let f = |p: Port| self.free_dir[p as usize].0[0];
        let (right, left, up, down) = (f(RIGHT), f(LEFT), f(UP), f(DOWN));
        let (mut seen, mut front) = (1u64 << start, 1u64 << start);
        let target = 1u64 << dest;
        loop {
            if front & target != 0 {
                return true;
            }
            // A 1×64 mesh has no vertical links; `checked_sh*` keeps the shift by 64 defined.
            let next = (((front & right) << 1)
                | ((front & left) >> 1)
                | (front & up).checked_shl(cols).unwrap_or(0)
                | (front & down).checked_shr(cols).unwrap_or(0))
                & !seen;
            if next == 0 {
                return false;
            }
            seen |= next;
            front = next;
        }
    }

    /// Send a fresh scout from the controller into its edge router.
    fn launch(&mut self, now: Ps, fc: usize) {
        // OnRelease: a scout sent while no free path exists would fail (its search covers every
        // reachable free link); count it as a failed scout and wait for the next circuit release
        // instead of simulating its hops. Held circuits guarantee that release comes.
        if self.retry == ScoutRetry::OnRelease
            && !self.reachable(fc)
            && self.fcs.iter().any(|c| c.active && c.circuit)
        {
            self.stats.scouts += 1;
            self.stats.scout_retries += 1;
            self.fcs[fc].attempts += 1;
            self.launched[fc] = now;
            self.launched_epoch[fc] = self.releases;
            self.parked.push(fc as u32);
            return;
        }
        let c = &mut self.fcs[fc];
        for &r in &c.touched {
            c.visits[r as usize] = 0;
            c.tried[r as usize] = 0;
        }
        c.touched.clear();
        c.path.clear();
        c.attempts += 1;
        c.router = self.mesh.fc_router[fc];
        c.in_port = INJECT;
        self.stats.scouts += 1;
        self.launched[fc] = now;
        self.launched_epoch[fc] = self.releases;
        self.schedule(now + self.hop, NetEvent::ScoutArrive { fc: fc as u32 });
    }

    fn schedule(&mut self, t: Ps, ev: NetEvent) {
        self.pending.push((t, Event::Net(ev)));
    }

    fn route(&mut self, now: Ps, fc: usize) {
        let (r, dest, in_port) = (self.fcs[fc].router, self.fcs[fc].dest, self.fcs[fc].in_port);
        if r == dest {
            // Case 9: eject. The scout returns to the controller over the reserved circuit.
            let distance = self.fcs[fc].path.len() as u32 + 1;
            let back = self.eq1(distance, self.flits);
            self.schedule(
                now + back,
                NetEvent::ScoutHome {
                    fc: fc as u32,
                    reserved: true,
                },
            );
            return;
        }
        match self.choose_port(fc, r, dest, in_port) {
            Some(p) => {
                let link = self.mesh.link(r, p) as usize;
                self.owner[link] = fc as u32;
                self.reserved_at[link] = now;
                let next = self.mesh.neighbor(r, p).expect("free port has a neighbor");
                self.free_dir[p as usize].set(r, false);
                self.free_dir[opposite(p) as usize].set(next, false);
                let c = &mut self.fcs[fc];
                c.tried[r as usize] |= 1 << p;
                c.path.push(Hop {
                    router: r,
                    in_port,
                    out_port: p,
                });
                c.router = next;
                c.in_port = opposite(p);
                self.schedule(now + self.hop, NetEvent::ScoutArrive { fc: fc as u32 });
            }
            None => self.backtrack(now, fc),
        }
    }

    /// Cancel mode: clear the link into this router and return upstream (or to the FC).
    fn backtrack(&mut self, now: Ps, fc: usize) {
        self.stats.backtracks += 1;
        match self.fcs[fc].path.pop() {
            None => self.schedule(
                now + self.hop,
                NetEvent::ScoutHome {
                    fc: fc as u32,
                    reserved: false,
                },
            ),
            Some(h) => {
                self.release(now, h.router, h.out_port);
                let c = &mut self.fcs[fc];
                c.router = h.router;
                c.in_port = h.in_port;
                self.schedule(now + self.hop, NetEvent::ScoutReturn { fc: fc as u32 });
            }
        }
    }

    fn release(&mut self, now: Ps, router: u32, port: Port) {
        let link = self.mesh.link(router, port) as usize;
        let next = self
            .mesh
            .neighbor(router, port)
            .expect("a reserved link has two ends");
        self.free_dir[port as usize].set(router, true);
        self.free_dir[opposite(port) as usize].set(next, true);
        debug_assert_ne!(self.owner[link], FREE);
        self.owner[link] = FREE;
        self.link_busy[link] += now - self.reserved_at[link];
    }

    /// Re-send the scouts of controllers that were waiting for the network to change.
    fn wake_parked(&mut self, now: Ps) {
        let n = self.parked.len();
        for _ in 0..n {
            let fc = self.parked.remove(0);
            self.launch(now, fc as usize);
        }
    }

    fn serve_waiting(&mut self, now: Ps) {
        let mut i = 0;
        while i < self.waiting.len() {
            let (ready, t) = self.waiting[i];
            if self.chip_busy[t.chip as usize] {
                i += 1;
                continue;
            }
            let Some(fc) = self.pick_controller(t.chip) else {
                return;
            };
            self.waiting.remove(i);
            self.assign(now, fc, ready, t);
        }
    }

    /// Whether any link is reserved by two controllers at once (never: a link has one owner)
    /// or a controller's path is inconsistent with the owner table. For property tests.
    pub fn check_reservations(&self) -> Result<(), String> {
        let mut count = vec![0u32; self.owner.len()];
        for (i, c) in self.fcs.iter().enumerate() {
            for h in &c.path {
                let l = self.mesh.link(h.router, h.out_port) as usize;
                count[l] += 1;
                if self.owner[l] != i as u32 {
                    return Err(format!(
                        "link {l} on controller {i}'s path is owned by {}",
                        self.owner[l]
                    ));
                }
            }
        }
        if let Some(l) = count.iter().position(|&n| n > 1) {
            return Err(format!("link {l} is in {} reservations", count[l]));
        }
        let owned = self.owner.iter().filter(|&&o| o != FREE).count();
        let held: u32 = count.iter().sum();
        if owned as u32 != held {
            return Err(format!("{owned} links owned but {held} on paths"));
        }
        Ok(())
    }

    /// Hand this call's events to the queue in production order (that order is their
    /// sequence order); with `lookahead`, Venice's own events go to the local heap instead.
    fn flush(&mut self, q: &mut EventQueue<Event>) {
        for (t, ev) in self.pending.drain(..) {
            let key = (t, q.reserve_seq());
            match ev {
                Event::Net(n) if self.lookahead => self.local.push(key, n),
                _ => q.schedule_keyed(key, ev),
            }
        }
    }

    /// Make sure a `Wake` proxy in the queue precedes the earliest local event.
    fn arm(&mut self, q: &mut EventQueue<Event>) {
        if let Some(k) = self.local.peek_key() {
            if self.proxies.first().is_none_or(|&p| k < p) {
                q.schedule_keyed(k, Event::Net(NetEvent::Wake));
                self.proxies.insert(0, k);
            }
        }
    }

    /// Handle local events while each comes before every queued event: the queue would have
    /// popped them in this same (time, seq) order, so the run is identical to scheduling
    /// every scout hop through the queue, without its heap traffic or dispatch (a scout
    /// search is tens of hops, and scouts re-sent together move in lockstep).
    /// At most `LOCAL_BUDGET` events per call, then a `Wake` proxy resumes the rest through
    /// the queue (same order), so the engine's watchdog sees a search that never ends.
    fn run_local(&mut self, q: &mut EventQueue<Event>) {
        let mut budget = LOCAL_BUDGET;
        while let Some(k) = self.local.peek_key() {
            if q.peek_key().is_some_and(|g| g < k) || budget == 0 {
                break;
            }
            budget -= 1;
            let (k, ev) = self.local.pop().expect("peeked");
            self.local_events += 1;
            self.handle(k.0, ev);
            self.flush(q);
        }
        self.arm(q);
    }

    fn handle(&mut self, now: Ps, ev: NetEvent) {
        match ev {
            NetEvent::ScoutArrive { fc } => {
                let fc = fc as usize;
                let r = self.fcs[fc].router as usize;
                let c = &mut self.fcs[fc];
                if c.visits[r] == 0 && c.tried[r] == 0 {
                    c.touched.push(r as u32);
                }
                c.visits[r] += 1;
                // §4.3 livelock bound: a router visited too often sends the scout back.
                if c.visits[r] > self.max_visits {
                    self.backtrack(now, fc);
                } else {
                    self.route(now, fc);
                }
            }
            NetEvent::ScoutReturn { fc } => self.route(now, fc as usize),
            NetEvent::ScoutHome { fc, reserved } => self.on_scout_home(now, fc as usize, reserved),
            NetEvent::TransferEnd { fc } => self.on_transfer_end(now, fc as usize),
            other => {
                unreachable!("not a Venice event: {other:?}")
            }
        }
    }

    fn on_scout_home(&mut self, now: Ps, fc: usize, reserved: bool) {
        if !reserved {
            // §4.2: back at the controller in cancel mode: re-send at once (or, OnRelease,
            // once a link was freed since this scout left).
            self.stats.scout_retries += 1;
            let circuits = self.fcs.iter().any(|c| c.active && c.circuit);
            if self.retry == ScoutRetry::Immediate
                || !circuits
                || self.releases > self.launched_epoch[fc]
            {
                self.launch(now, fc);
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
        self.schedule(now + t, NetEvent::TransferEnd { fc: fc as u32 });
    }

    fn on_transfer_end(&mut self, now: Ps, fc: usize) {
        self.hops_total += self.fcs[fc].path.len() as u64;
        self.latency_total += now - self.fcs[fc].ready;
        while let Some(h) = self.fcs[fc].path.pop() {
            self.release(now, h.router, h.out_port);
        }
        self.releases += 1;
        let c = &mut self.fcs[fc];
        c.active = false;
        c.circuit = false;
        c.busy_time += now - c.assigned;
        let t = c.xfer;
        self.chip_busy[t.chip as usize] = false;
        let conflict = c.assigned > c.ready || c.attempts > 1;
        self.transfers += 1;
        if conflict {
            self.conflicted += 1;
            self.wait += self.launched[fc] - c.ready;
        }
        self.pending.push((
            now,
            Event::TransferDone {
                die: t.die,
                conflict,
            },
        ));
        self.wake_parked(now);
        self.serve_waiting(now);
    }
}

impl Interconnect for Venice {
    fn name(&self) -> &'static str {
        "venice"
    }

    fn submit(&mut self, now: Ps, t: Transfer, q: &mut EventQueue<Event>) {
        // FIFO among waiting transfers; ones whose chip is busy do not block the others.
        self.waiting.push_back((now, t));
        self.serve_waiting(now);
        self.flush(q);
        // No local run here: the caller may still schedule earlier events in this handler.
        self.arm(q);
    }

    fn on_event(&mut self, now: Ps, ev: NetEvent, q: &mut EventQueue<Event>) {
        if let NetEvent::Wake = ev {
            // Proxies pop in key order, so this is the earliest outstanding one.
            self.proxies.remove(0);
            self.run_local(q);
        } else {
            self.handle(now, ev);
            self.flush(q);
        }
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
            self.owner.iter().filter(|&&o| o != FREE).count(),
            self.owner.len()
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
            self.link_busy.iter().copied(),
            sim_time,
        );
        let n = self.transfers.max(1) as f64;
        s.network = Some(super::NetworkStats {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config(rows: u32, cols: u32, fcs: u32) -> SsdConfig {
        let mut c = SsdConfig::default();
        c.flash.channels = rows;
        c.flash.chips_per_channel = cols;
        c.network.controllers = fcs;
        c.validate().unwrap();
        c
    }

    /// Mark controller `fc` as holding a circuit through `routers` (consecutive neighbours).
    fn hold(v: &mut Venice, fc: usize, routers: &[u32]) {
        for w in routers.windows(2) {
            let p = MESH_PORTS
                .into_iter()
                .find(|&p| v.mesh.neighbor(w[0], p) == Some(w[1]))
                .unwrap();
            let l = v.mesh.link(w[0], p) as usize;
            assert_eq!(v.owner[l], FREE);
            v.owner[l] = fc as u32;
            v.free_dir[p as usize].set(w[0], false);
            v.free_dir[opposite(p) as usize].set(w[1], false);
            v.fcs[fc].path.push(Hop {
                router: w[0],
                in_port: INJECT,
                out_port: p,
            });
        }
        v.fcs[fc].active = true;
        v.fcs[fc].circuit = true;
    }

    /// Run the interconnect alone until no event is left, checking the reservations after
    /// every event; returns (time, die, conflict) per transfer.
    fn drain(v: &mut Venice, q: &mut EventQueue<Event>) -> Vec<(Ps, u32, bool)> {
        super::super::testutil::drain(v, q, |v| v.check_reservations().unwrap())
    }

    /// Venice Figure 8: FC0, FC1, FC2 hold paths; FC3 is the only free controller and F2 the
    /// destination. Every minimal path from FC3 is blocked; the scout finds a non-minimal one.
    #[test]
    fn figure_8_finds_a_nonminimal_conflict_free_path() {
        let mut c = config(4, 5, 4);
        // Every event through the queue, so the circuit can be inspected before it ends.
        c.network.lookahead = false;
        let mut v = Venice::new(&c, 1).unwrap();
        assert_eq!(v.mesh.fc_router, vec![0, 5, 10, 15]);
        hold(&mut v, 0, &[0, 1, 6]);
        hold(&mut v, 1, &[5, 6, 7, 8]);
        hold(&mut v, 2, &[10, 11, 12, 7]);
        let mut q = EventQueue::new();
        v.submit(
            0,
            Transfer {
                die: 2,
                chip: 2,
                commands: 1,
                command_ps: 0,
                bytes: 0,
            },
            &mut q,
        );
        assert!(v.fcs[3].active, "FC3 is the only free controller");
        // Run until FC3's scout is home with a path (its circuit is up), then inspect it.
        while let Some((now, ev)) = q.pop() {
            if let Event::Net(e) = ev {
                v.on_event(now, e, &mut q);
            }
            if v.fcs[3].circuit {
                let path: Vec<u32> = v.fcs[3].path.iter().map(|h| h.router).collect();
                assert!(
                    path.len() as u32 + 1 > v.mesh.fc_distance(3, 2),
                    "non-minimal: {path:?}"
                );
                assert_eq!(v.fcs[3].attempts, 1, "found on the first scout");
                v.check_reservations().unwrap();
                return;
            }
        }
        panic!("FC3 never reserved a path");
    }

    #[test]
    fn algorithm_1_minimal_cases_with_free_links() {
        let c = config(5, 5, 5);
        let mut v = Venice::new(&c, 3).unwrap();
        let centre = 12; // (2, 2)
        let cases: [(u32, &[Port]); 8] = [
            (18, &[RIGHT, UP]),  // case 1: dx > 0, dy > 0
            (8, &[RIGHT, DOWN]), // case 2: dx > 0, dy < 0
            (13, &[RIGHT]),      // case 3
            (16, &[LEFT, UP]),   // case 4
            (6, &[LEFT, DOWN]),  // case 5
            (11, &[LEFT]),       // case 6
            (17, &[UP]),         // case 7
            (7, &[DOWN]),        // case 8
        ];
        for (dest, allowed) in cases {
            let mut seen = 0u8;
            for _ in 0..64 {
                let p = v.choose_port(0, centre, dest, INJECT).unwrap();
                assert!(allowed.contains(&p), "dest {dest}: port {p}");
                seen |= 1 << p;
            }
            assert_eq!(
                seen.count_ones() as usize,
                allowed.len(),
                "dest {dest}: both minimal ports get picked"
            );
        }
    }

    #[test]
    fn algorithm_1_ejects_at_destination() {
        let c = config(4, 4, 4);
        let mut v = Venice::new(&c, 1).unwrap();
        let mut q = EventQueue::new();
        // chip 4 sits on FC1's own router: distance 1 (the FC link), no mesh link reserved.
        v.submit(
            0,
            Transfer {
                die: 4,
                chip: 4,
                commands: 0,
                command_ps: 0,
                bytes: 100,
            },
            &mut q,
        );
        let done = drain(&mut v, &mut q);
        let hop = 3 * 1000; // (1 router cycle + 2 flits) x 1 ns
                            // scout in (1 hop), back over the circuit (1 + 2 flits), transfer (1 + 100 bytes)
        assert_eq!(done, vec![(hop + 3_000 + 101_000, 4, false)]);
    }

    #[test]
    fn algorithm_1_misroutes_then_backtracks() {
        let c = config(3, 3, 3);
        let mut v = Venice::new(&c, 5).unwrap();
        // centre (4) wants to go right to 5; RIGHT is taken by FC2.
        hold(&mut v, 2, &[4, 5]);
        for _ in 0..16 {
            let p = v.choose_port(0, 4, 5, LEFT).unwrap();
            assert!(
                p == UP || p == DOWN,
                "misroute over a free non-input port, got {p}"
            );
        }
        // With UP and DOWN taken too, only the input is left: backtrack (line 48).
        hold(&mut v, 1, &[1, 4, 7]);
        assert_eq!(v.choose_port(0, 4, 5, LEFT), None);
    }

    #[test]
    fn eq1_transfer_time() {
        let v = Venice::new(&config(8, 8, 8), 1).unwrap();
        // (distance 5 + 4096 B / 1 B) x 1 ns
        assert_eq!(v.eq1(5, 4096), 4_101_000);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Random meshes and concurrent transfers: no link ever in two reservations (checked
        /// after every event), every scout terminates, every transfer completes once, every
        /// reservation is released, no deadlock.
        #[test]
        fn reservations_are_exclusive_and_released(
            rows in 2u32..7, cols in 2u32..7, fc_frac in 1u32..=4, seed in 0u64..1000,
            xfers in proptest::collection::vec((0u32..1000, 0u32..4097, 0u64..20_000), 1..80),
            immediate in any::<bool>(), lookahead in any::<bool>(),
        ) {
            let fcs = (rows * fc_frac / 4).max(1);
            let mut c = config(rows, cols, fcs);
            if immediate { c.network.scout_retry = ScoutRetry::Immediate; }
            // Without lookahead every scout hop is a queue event, so the checks below run
            // after each one.
            c.network.lookahead = lookahead;
            let mut v = Venice::new(&c, seed).unwrap();
            let mut q = EventQueue::new();
            let mut arrivals: Vec<(Ps, Transfer)> = xfers.iter().enumerate().map(|(i, &(chip, bytes, t))| {
                (t * 100, Transfer { die: i as u32, chip: chip % (rows * cols), commands: 1, command_ps: 0, bytes })
            }).collect();
            arrivals.sort_by_key(|a| a.0);
            let mut next = 0;
            let mut done = vec![0u32; arrivals.len()];
            loop {
                let t_ev = q.peek_time();
                let t_arr = arrivals.get(next).map(|a| a.0);
                let arrival_first = matches!((t_ev, t_arr), (None, Some(_))) || matches!((t_ev, t_arr), (Some(te), Some(ta)) if ta < te);
                match (t_ev, t_arr) {
                    (_, Some(ta)) if arrival_first => {
                        q.advance_to(ta);
                        v.submit(ta, arrivals[next].1, &mut q);
                        next += 1;
                    }
                    (Some(_), _) => {
                        let (now, ev) = q.pop().unwrap();
                        match ev {
                            Event::Net(e) => v.on_event(now, e, &mut q),
                            Event::TransferDone { die, .. } => done[die as usize] += 1,
                            _ => unreachable!(),
                        }
                    }
                    _ => break,
                }
                prop_assert_eq!(v.check_reservations(), Ok(()));
                // §4.3 livelock bound: no scout enters a router more than three times (the
                // fourth entry is turned back at once).
                let bound = v.max_visits + 1;
                prop_assert!(v.fcs.iter().all(|c| c.visits.iter().all(|&n| n <= bound)));
                prop_assert!(q.events_processed() < 5_000_000, "no progress: livelock");
            }
            prop_assert!(done.iter().all(|&n| n == 1), "every transfer completes once: {:?}", done);
            prop_assert!(v.owner.iter().all(|&o| o == FREE), "all reservations released");
            prop_assert!(v.fcs.iter().all(|c| !c.active) && v.waiting.is_empty());
        }
    }
}
