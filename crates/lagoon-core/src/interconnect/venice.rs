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

use super::venice_mesh::{minimal_ports, Mesh, Port, INJECT, LEFT, NO_PORT, RIGHT, UP};
use super::{BackEnd, IcEvent, Interconnect, InterconnectStats, NetEvent, Transfer, VeniceStats};
use crate::config::{ConfigError, ScoutRetry, SsdConfig};
// Keys packed into one integer, so the hop loop orders events with one comparison.
#[cfg(test)]
use crate::engine::EventQueue;
use crate::engine::{packed, Key, KeyedHeap, Queue};
use crate::time::{ns, Ps};
use std::collections::VecDeque;

const FREE: u32 = u32::MAX;
/// One forward visit in `Controller::seen` (the low four bits are the tried ports; the
/// schema bounds `max_router_visits` to 255, so visits fit the next 12).
const VISIT: u32 = 1 << 4;
/// The bits of a `Controller::seen` entry that hold the scout's stamp (its number modulo
/// 2^16): an entry with another stamp is a previous scout's and counts as zero.
const STAMP: u32 = 0xffff_0000;

/// One side of the two-ended breadth-first search over router bits: routers seen, the
/// current frontier (within words `lo..=hi`) and its size in non-empty words (a cheap
/// stand-in for its router count), and scratch for the next one.
#[derive(Clone)]
struct Search {
    seen: Vec<u64>,
    front: Vec<u64>,
    next: Vec<u64>,
    lo: usize,
    hi: usize,
    count: u32,
}

impl Search {
    fn new(routers: u32) -> Self {
        let n = (routers as usize).div_ceil(64);
        Search {
            seen: vec![0; n],
            front: vec![0; n],
            next: vec![0; n],
            lo: 0,
            hi: 0,
            count: 0,
        }
    }

    fn start(&mut self, r: u32) {
        self.seen.fill(0);
        self.front.fill(0);
        self.next.fill(0);
        let (w, b) = ((r / 64) as usize, 1u64 << (r % 64));
        self.seen[w] |= b;
        self.front[w] |= b;
        (self.lo, self.hi, self.count) = (w, w, 1);
    }

    /// Replace the frontier by the routers one free link away not seen before (free links
    /// as `h`/`v` router bits, rows of `cols` routers); false if there are none.
    fn layer(&mut self, h: &[u64], v: &[u64], cols: u32) -> bool {
        let n = self.seen.len();
        let (seen, front, next) = (&mut self.seen, &mut self.front, &mut self.next);
        // A vertical hop shifts by `cols` bits: `ws` words and `bs` bits.
        let (ws, bs) = ((cols / 64) as usize, cols % 64);
        let (lo, hi) = (self.lo, self.hi);
        // Routers one free link away can only be in these words.
        let (a, z) = (lo.saturating_sub(ws + 1), (hi + ws + 1).min(n - 1));
        let (mut nlo, mut nhi, mut count) = (usize::MAX, 0, 0);
        for i in a..=z {
            let fh = |j: usize| front[j] & h[j];
            let fv = |j: usize| front[j] & v[j];
            // right: (front & h) << 1; left: (front >> 1) & h
            let mut x = fh(i) << 1 | if i > 0 { fh(i - 1) >> 63 } else { 0 };
            x |= (front[i] >> 1 | if i + 1 < n { front[i + 1] << 63 } else { 0 }) & h[i];
            // up: (front & v) << cols; down: (front >> cols) & v
            if i >= ws {
                x |= fv(i - ws) << bs;
                if bs > 0 && i > ws {
                    x |= fv(i - ws - 1) >> (64 - bs);
                }
            }
            let mut down = 0;
            if i + ws < n {
                down |= front[i + ws] >> bs;
                if bs > 0 && i + ws + 1 < n {
                    down |= front[i + ws + 1] << (64 - bs);
                }
            }
            x |= down & v[i];
            x &= !seen[i];
            seen[i] |= x;
            next[i] = x;
            if x != 0 {
                nlo = nlo.min(i);
                nhi = i;
                count += 1;
            }
        }
        if nlo == usize::MAX {
            return false;
        }
        // `next` becomes the frontier; the old one, cleared, the next scratch.
        front[lo..=hi].fill(0);
        std::mem::swap(front, next);
        (self.lo, self.hi, self.count) = (nlo, nhi, count);
        true
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

/// Where a mesh link's reservation is kept: by its lower router and direction (`2 r` for
/// the link to `r`'s Right neighbour, `2 r + 1` for the one Up), so a hop finds it by
/// arithmetic; the layer's link ids map onto these for the counters.
#[inline(always)]
fn link_slot(r: u32, p: Port, next: u32) -> usize {
    2 * r.min(next) as usize + (p < RIGHT) as usize
}

/// A mesh link's reservation: the controller holding it (`FREE` if none) and since when,
/// and its reserved time so far.
#[derive(Clone, Copy)]
struct Link {
    owner: u32,
    since: Ps,
    busy: Ps,
}

/// Venice's events due one scout hop after they were produced, in key order: a ring of at
/// least one slot per controller (each has at most one such event pending). An empty slot
/// holds the key `u128::MAX`, so the head's key is read without a length test.
struct HopFifo {
    buf: Vec<(u128, NetEvent)>,
    mask: usize,
    head: usize,
    tail: usize,
}

impl HopFifo {
    fn new(controllers: usize) -> Self {
        let n = controllers.next_power_of_two().max(2);
        Self {
            buf: vec![(u128::MAX, NetEvent::Wake); n],
            mask: n - 1,
            head: 0,
            tail: 0,
        }
    }
    /// Key of the first event, `u128::MAX` if none.
    #[inline(always)]
    fn front_key(&self) -> u128 {
        debug_assert!(self.head < self.buf.len());
        // SAFETY: `head` is always masked by `mask` = `buf.len() - 1` (a power of two).
        unsafe { self.buf.get_unchecked(self.head).0 }
    }
    #[inline(always)]
    fn push_back(&mut self, e: (u128, NetEvent)) {
        // Each controller has at most one scout, so at most one event here: the slot is free.
        debug_assert!(self.tail < self.buf.len());
        // SAFETY: `tail` is masked like `head` in `front_key`.
        let slot = unsafe { self.buf.get_unchecked_mut(self.tail) };
        debug_assert_eq!(slot.0, u128::MAX, "one hop event per controller");
        *slot = e;
        self.tail = (self.tail + 1) & self.mask;
    }
    /// The first event (the caller checked there is one).
    #[inline(always)]
    fn pop_front(&mut self) -> (u128, NetEvent) {
        debug_assert!(self.head < self.buf.len());
        // SAFETY: as in `front_key`.
        let slot = unsafe { self.buf.get_unchecked_mut(self.head) };
        debug_assert_ne!(slot.0, u128::MAX, "pop from an empty ring");
        let e = *slot;
        slot.0 = u128::MAX;
        self.head = (self.head + 1) & self.mask;
        e
    }
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

/// Local events handled per `Wake` before control goes back to the engine.
const LOCAL_BUDGET: u32 = 1 << 16;

pub struct Venice {
    mesh: Mesh,
    cycle: Ps,
    width: u32,
    flits: u32,
    hop: Ps,
    command_bytes: u32,
    max_visits: u16,
    /// Per link slot ([`link_slot`]): its reservation and the time it spent reserved.
    links: Vec<Link>,
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

/// One step of a router's 16-bit maximal-length Galois LFSR
/// (x^16 + x^14 + x^13 + x^11 + 1), as a choice among `n`.
#[inline(always)]
fn random(l: &mut u16, n: usize) -> usize {
    let lsb = *l & 1;
    *l >>= 1;
    if lsb != 0 {
        *l ^= 0xB400;
    }
    // The divisor is a constant in each arm, so no division instruction (n <= 4 ports).
    match n {
        1 => 0,
        2 => (*l & 1) as usize,
        3 => (*l % 3) as usize,
        4 => (*l & 3) as usize,
        _ => *l as usize % n,
    }
}

/// Venice Algorithm 1 on a router's `free` output ports, with `minimal` its minimal ports
/// towards the destination and `lfsr` its random source: the port, or `None` to backtrack.
#[inline(always)]
fn algorithm_1(free: u8, minimal: (Port, Port), in_port: Port, lfsr: &mut u16) -> Option<Port> {
    // lines 2-26: the minimal directions (horizontal, then vertical) that are free
    let (h, v) = minimal;
    let (h_ok, v_ok) = (free >> h & 1 == 1, free >> v & 1 == 1);
    match (h_ok, v_ok) {
        (true, true) => return Some([h, v][random(lfsr, 2)]), // lines 28-30
        (true, false) => return Some(h),                      // lines 31-33
        (false, true) => return Some(v),
        _ => {}
    }
    // lines 34-43: misroute over any free port but the input, in Up, Down, Right, Left
    // order (the port numbers' order)
    let mut list = free & !(1u8 << in_port);
    let n = list.count_ones() as usize;
    if n == 0 {
        return None; // lines 47-48: back to the upstream router
    }
    for _ in 0..random(lfsr, n) {
        list &= list - 1;
    }
    Some(list.trailing_zeros() as Port) // lines 44-46
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
            links: vec![
                Link {
                    owner: FREE,
                    since: 0,
                    busy: 0,
                };
                2 * routers
            ],
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
        let minimal = self.mesh.minimal_ports(r, dest);
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

    /// Whether a path of free links joins controller `fc`'s router to its destination:
    /// breadth-first over bitsets, one layer per iteration.
    fn reachable(&mut self, fc: usize) -> bool {
        let (start, dest) = (self.mesh.fc_router[fc], self.fcs[fc].dest);
        if !self.share_reach {
            return self.path_exists(start, dest);
        }
        // Routers of one set are joined to each other, and a whole component to no other
        // router, so a set holding `start` answers unless it is partial and lacks `dest`;
        // then the search goes on from that set.
        let (mut seen, mut at) = (1u64 << start, None);
        for (i, &(set, whole)) in self.joined.iter().enumerate() {
            if set >> start & 1 == 1 {
                if set >> dest & 1 == 1 || whole {
                    return set >> dest & 1 == 1;
                }
                (seen, at) = (set, Some(i));
                break;
            }
        }
        let (found, set) = self.search_one_word(seen, dest, self.mesh.cols);
        match at {
            Some(i) => self.joined[i] = (set, !found),
            None => self.joined.push((set, !found)),
        }
        found
    }

    /// Whether a path of free links joins routers `start` and `dest`.
    fn path_exists(&mut self, start: u32, dest: u32) -> bool {
        let cols = self.mesh.cols;
        if self.words == 1 {
            return self.reachable_one_word(start, dest, cols);
        }
        // On a larger mesh most searches end on one of the two minimal L-shaped paths, a
        // few lookups; the breadth-first search over all words settles the rest.
        if self.l_path_free(start, dest, true) || self.l_path_free(start, dest, false) {
            return true;
        }
        // Breadth-first from both ends, a layer of the side with the smaller frontier (in
        // words) at a time: the ends are joined once one side reaches a router the other has
        // seen, and apart once either side runs out (a boxed-in end settles it in a few
        // layers).
        let (h, v) = self.free_links.split_at(self.words);
        let [a, z] = &mut self.bfs;
        a.start(start);
        z.start(dest);
        if a.seen[z.lo] & z.front[z.lo] != 0 {
            return true;
        }
        loop {
            let (grow, other) = if a.count <= z.count {
                (&mut *a, &*z)
            } else {
                (&mut *z, &*a)
            };
            if !grow.layer(h, v, cols) {
                return false;
            }
            if (grow.lo..=grow.hi).any(|i| grow.front[i] & other.seen[i] != 0) {
                return true;
            }
        }
    }

    /// Whether every link of the minimal path from `start` to `dest` that runs along the
    /// row first (`row_first`) or the column first is free.
    fn l_path_free(&self, start: u32, dest: u32, row_first: bool) -> bool {
        let (h, v) = self.mesh.minimal_ports(start, dest);
        let mut r = start;
        for p in if row_first { [h, v] } else { [v, h] } {
            if p == NO_PORT {
                continue;
            }
            let (sx, sy) = self.mesh.xy(r);
            let (dx, dy) = self.mesh.xy(dest);
            let steps = if p == RIGHT || p == LEFT {
                sx.abs_diff(dx)
            } else {
                sy.abs_diff(dy)
            };
            for _ in 0..steps {
                if self.nodes[r as usize].free & 1 << p == 0 {
                    return false;
                }
                r = self.mesh.across(r, p).0;
            }
        }
        true
    }

    /// [`Self::reachable`] for meshes of at most 64 routers: each layer is a few shifts.
    fn reachable_one_word(&self, start: u32, dest: u32, cols: u32) -> bool {
        self.search_one_word(1u64 << start, dest, cols).0
    }

    /// Breadth-first from the routers `from` (joined by free links) on a mesh of at most
    /// 64 routers: whether it reaches `dest`, and the routers seen (the whole component
    /// if not).
    #[inline(always)]
    fn search_one_word(&self, from: u64, dest: u32, cols: u32) -> (bool, u64) {
        let (h, v) = (self.free_links[0], self.free_links[1]);
        let (mut seen, mut front) = (from, from);
        let target = 1u64 << dest;
        // Only a 1×64 mesh has 64 columns, and it has no vertical links (`v` is 0), so
        // shifting by 63 there keeps the shifts defined without changing the result.
        let cols = cols.min(63);
        loop {
            if front & target != 0 {
                return (true, seen);
            }
            let next = (((front & h) << 1)
                | ((front >> 1) & h)
                | (front & v) << cols
                | ((front >> cols) & v))
                & !seen;
            if next == 0 {
                return (false, seen);
            }
            seen |= next;
            front = next;
        }
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

    /// Schedule one of Venice's own events under the next key from the queue; with
    /// `lookahead` it waits in the local heap instead of the queue.
    fn schedule<Q: Queue<IcEvent>>(&mut self, t: Ps, ev: NetEvent, q: &mut Q) {
        let key = (t, q.reserve_seq());
        if self.lookahead {
            self.local.push(key, ev);
        } else {
            q.schedule_keyed(key, IcEvent::Net(ev));
        }
    }

    /// [`Self::schedule`] for an event one scout hop after `now`. These are produced in key
    /// order (time never goes back and every delay is the same), so with `lookahead` a FIFO
    /// holds them sorted and the local heap keeps only the rest.
    #[inline(always)]
    fn schedule_hop<Q: Queue<IcEvent>>(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        let key = (now + self.hop, q.reserve_seq());
        if self.lookahead {
            self.hops.push_back((packed(key), ev));
        } else {
            q.schedule_keyed(key, IcEvent::Net(ev));
        }
    }

    /// Key of the earliest local event.
    #[inline(always)]
    fn next_local(&self) -> Option<Key> {
        let k = (self.hops.front_key()).min(self.local.peek_key().map_or(u128::MAX, packed));
        (k != u128::MAX).then_some(((k >> 64) as Ps, k as u64))
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
        debug_assert!(link < links.len());
        // SAFETY: `r` and `next` are routers, and `links` has two slots per router.
        let l = unsafe { links.get_unchecked_mut(link) };
        (l.owner, l.since) = (fc as u32, now);
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
        debug_assert!(link < self.links.len());
        // SAFETY: `h.link` was made by `link_slot` from two routers (see `route`).
        let l = unsafe { self.links.get_unchecked_mut(link) };
        debug_assert_ne!(l.owner, FREE);
        l.owner = FREE;
        l.busy += now - l.since;
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
    /// or a controller's path is inconsistent with the owner table. For property tests.
    pub fn check_reservations(&self) -> Result<(), String> {
        let mut count = vec![0u32; self.links.len()];
        for (i, c) in self.fcs.iter().enumerate() {
            for h in &c.path {
                let l = link_slot(h.router, h.out_port, h.next);
                count[l] += 1;
                if self.links[l].owner != i as u32 {
                    return Err(format!(
                        "link {l} on controller {i}'s path is owned by {}",
                        self.links[l].owner
                    ));
                }
            }
        }
        if let Some(l) = count.iter().position(|&n| n > 1) {
            return Err(format!("link {l} is in {} reservations", count[l]));
        }
        let owned = self.links.iter().filter(|l| l.owner != FREE).count();
        let held: u32 = count.iter().sum();
        if owned as u32 != held {
            return Err(format!("{owned} links owned but {held} on paths"));
        }
        Ok(())
    }

    /// Make sure a `Wake` proxy in the queue precedes the earliest local event.
    fn arm<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        if let Some(k) = self.next_local() {
            if self.proxies.first().is_none_or(|&p| k < p) {
                q.schedule_keyed(k, IcEvent::Net(NetEvent::Wake));
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
    fn run_local<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        let mut budget = LOCAL_BUDGET;
        loop {
            // Hop events put nothing in the queue (their seq numbers come from it) and only
            // a scout reaching its destination adds to the local heap, so `bound` (the
            // earliest of the queue's head and the local heap's) is read again only then.
            let limit = q.peek_key().map_or(u128::MAX, packed);
            let mut heap = self.local.peek_key().map_or(u128::MAX, packed);
            let mut bound = limit.min(heap);
            while self.hops.front_key() < bound && budget > 0 {
                budget -= 1;
                let (k, ev) = self.hops.pop_front();
                let now = (k >> 64) as Ps;
                #[cfg(debug_assertions)]
                let before = self.local.len();
                let heap_grew = match ev {
                    // One scout step for both (one copy of the step's code).
                    NetEvent::ScoutArrive { fc } | NetEvent::ScoutReturn { fc } => {
                        let arrive = matches!(ev, NetEvent::ScoutArrive { .. });
                        self.route(now, fc as usize, arrive, q)
                    }
                    _ => {
                        let before = self.local.len();
                        self.handle(now, ev, q);
                        self.local.len() != before
                    }
                };
                #[cfg(debug_assertions)]
                debug_assert_eq!(heap_grew, self.local.len() != before);
                debug_assert_eq!(
                    q.peek_key().map_or(u128::MAX, packed),
                    limit,
                    "a hop event queued an event"
                );
                if heap_grew {
                    heap = self.local.peek_key().map_or(u128::MAX, packed);
                    bound = limit.min(heap);
                }
            }
            // The heap's first event, if it precedes the queue's head and the next hop.
            if heap < limit && heap < self.hops.front_key() && budget > 0 {
                budget -= 1;
                let (k, ev) = self.local.pop().expect("peeked");
                self.handle(k.0, ev, q);
            } else {
                break;
            }
        }
        self.local_events += (LOCAL_BUDGET - budget) as u64;
        self.arm(q);
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
                unreachable!("not a Venice event: {other:?}")
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

impl BackEnd for Venice {
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
            self.links.iter().filter(|l| l.owner != FREE).count(),
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
            self.slot_of.iter().map(|&l| self.links[l as usize].busy),
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

impl<Q: Queue<IcEvent>> Interconnect<Q> for Venice {
    fn submit(&mut self, now: Ps, t: Transfer, q: &mut Q) {
        // FIFO among waiting transfers; ones whose chip is busy do not block the others.
        self.waiting.push_back((now, t));
        self.serve_waiting(now, q);
        // No local run here: the caller may still schedule earlier events in this handler.
        self.arm(q);
    }

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

#[cfg(test)]
mod tests {
    use super::super::venice_mesh::{DOWN, MESH_PORTS};
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
            let l = link_slot(w[0], p, w[1]);
            assert_eq!(v.links[l].owner, FREE);
            v.links[l].owner = fc as u32;
            v.set_free(w[0], p, w[1], false);
            v.fcs[fc].path.push(Hop {
                router: w[0],
                next: w[1],
                link: l as u32,
                in_port: INJECT,
                out_port: p,
            });
        }
        v.fcs[fc].active = true;
        v.idle -= 1;
        v.fcs[fc].circuit = true;
        v.circuits += 1;
    }

    /// Run the interconnect alone until no event is left, checking the reservations after
    /// every event; returns (time, die, conflict) per transfer.
    fn drain(v: &mut Venice, q: &mut EventQueue<IcEvent>) -> Vec<(Ps, u32, bool)> {
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
        let mut q = EventQueue::<IcEvent>::new();
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
            if let IcEvent::Net(e) = ev {
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
        let mut q = EventQueue::<IcEvent>::new();
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

    /// A xorshift64 source of choices among `n`.
    fn xorshift(mut rng: u64) -> impl FnMut(u32) -> u32 {
        move |n| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as u32
        }
    }

    /// Reserve every link of the mesh.
    fn reserve_all(v: &mut Venice) {
        for r in 0..v.mesh.routers() {
            for p in [UP, RIGHT] {
                if let Some(next) = v.mesh.neighbor(r, p) {
                    v.set_free(r, p, next, false);
                }
            }
        }
    }

    /// Free the links of a random walk of `steps` tries from `start`; the router it ends at.
    fn free_walk(v: &mut Venice, start: u32, steps: u32, rand: &mut impl FnMut(u32) -> u32) -> u32 {
        let mut at = start;
        for _ in 0..steps {
            let p = MESH_PORTS[rand(4) as usize];
            if let Some(next) = v.mesh.neighbor(at, p) {
                if v.nodes[at as usize].free & 1 << p == 0 {
                    v.set_free(at, p, next, true);
                }
                at = next;
            }
        }
        at
    }

    /// The word-parallel reachability (one word, and several with vertical shifts of under,
    /// exactly and over 64 bits) against a plain breadth-first search over free ports.
    #[test]
    fn reachability_matches_a_plain_search() {
        let mut rand = xorshift(0x2545_f491_4f6c_dd1d);
        let one_word = [
            (4, 4),
            (8, 8),
            (3, 5),
            (16, 4),
            (4, 16),
            (1, 64),
            (64, 1),
            (2, 32),
        ];
        let multi_word = [(9, 9), (3, 70), (2, 64), (2, 130), (32, 32)];
        for (rows, cols) in one_word.into_iter().chain(multi_word) {
            let c = config(rows, cols, rows);
            for _ in 0..400 {
                let mut v = Venice::new(&c, 1).unwrap();
                let n = rows * cols;
                // Every link reserved but those of a random walk, so each link of the walk
                // (word boundaries included) matters.
                reserve_all(&mut v);
                let start = rand(n);
                let steps = rand(3 * n);
                let at = free_walk(&mut v, start, steps, &mut rand);
                let dest = if rand(2) == 0 { at } else { rand(n) };
                let mut seen = vec![false; n as usize];
                let mut todo = vec![start];
                seen[start as usize] = true;
                while let Some(r) = todo.pop() {
                    for p in MESH_PORTS {
                        if v.nodes[r as usize].free & 1 << p != 0 {
                            let next = v.mesh.neighbor(r, p).unwrap();
                            if !seen[next as usize] {
                                seen[next as usize] = true;
                                todo.push(next);
                            }
                        }
                    }
                }
                let want = seen[dest as usize];
                assert_eq!(
                    v.path_exists(start, dest),
                    want,
                    "{rows}x{cols} {start}->{dest}"
                );
            }
        }
    }

    /// While the links stay as they are, reachability searches share the router sets they
    /// found (`joined`): every answer must equal a fresh search's, for random free links
    /// (a few random walks in an otherwise reserved mesh) and random controllers and
    /// destinations asked in turn.
    #[test]
    fn shared_reachability_matches_fresh_searches() {
        let mut rand = xorshift(0x9e37_79b9_7f4a_7c15);
        for (rows, cols) in [(4, 4), (8, 8), (3, 5), (16, 4), (4, 16), (2, 32)] {
            let c = config(rows, cols, rows);
            for _ in 0..300 {
                let mut v = Venice::new(&c, 1).unwrap();
                let n = rows * cols;
                reserve_all(&mut v);
                for _ in 0..1 + rand(4) {
                    let start = rand(n);
                    let steps = rand(2 * n);
                    free_walk(&mut v, start, steps, &mut rand);
                }
                (v.joined, v.share_reach) = (Vec::new(), true);
                for _ in 0..3 * rows {
                    let fc = rand(rows) as usize;
                    let dest = rand(n);
                    v.fcs[fc].dest = dest;
                    let want = v.path_exists(v.mesh.fc_router[fc], dest);
                    assert_eq!(v.reachable(fc), want, "{rows}x{cols} fc {fc} -> {dest}");
                }
            }
        }
    }

    /// A scout's per-router table is stamped, not cleared: when the stamps wrap, entries of
    /// a scout 2^16 launches back must not count. Tables pre-filled with such entries (ports
    /// tried, visits at the bound) and stamps about to wrap give the same transfers as fresh
    /// controllers; without the clear on wrap the stale entries would turn scouts back.
    #[test]
    fn stamps_wrapping_change_nothing() {
        let c = config(5, 6, 3);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for seed in 0..16 {
            let xfers: Vec<(u32, u32)> = (0..24)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    ((rng % 30) as u32, (rng >> 32) as u32 % 2048)
                })
                .collect();
            let run = |stale: bool| {
                let mut v = Venice::new(&c, seed).unwrap();
                if stale {
                    for f in &mut v.fcs {
                        f.stamp = STAMP;
                        f.seen
                            .fill((1 << 16) | ((v.max_visits as u32 + 1) * VISIT) | 0xf);
                    }
                }
                let mut q = EventQueue::<IcEvent>::new();
                for (i, &(chip, bytes)) in xfers.iter().enumerate() {
                    let t = Transfer {
                        die: i as u32,
                        chip,
                        commands: 1,
                        command_ps: 0,
                        bytes,
                    };
                    v.submit(0, t, &mut q);
                }
                drain(&mut v, &mut q)
            };
            assert_eq!(run(true), run(false), "seed {seed}");
        }
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
            let mut q = EventQueue::<IcEvent>::new();
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
                            IcEvent::Net(e) => v.on_event(now, e, &mut q),
                            IcEvent::TransferDone { die, .. } => done[die as usize] += 1,
                        }
                    }
                    _ => break,
                }
                prop_assert_eq!(v.check_reservations(), Ok(()));
                // §4.3 livelock bound: no scout enters a router more than three times (the
                // fourth entry is turned back at once).
                let bound = v.max_visits + 1;
                prop_assert!(v.fcs.iter().all(|c| c.seen.iter().all(|&n| (n & !STAMP) / VISIT <= bound as u32)));
                prop_assert!(q.events_processed() < 5_000_000, "no progress: livelock");
            }
            prop_assert!(done.iter().all(|&n| n == 1), "every transfer completes once: {:?}", done);
            prop_assert!(v.links.iter().all(|l| l.owner == FREE), "all reservations released");
            prop_assert!(v.fcs.iter().all(|c| !c.active) && v.waiting.is_empty());
        }
    }
}
