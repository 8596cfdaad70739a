//! Host I/O schedulers between a flow and its NVMe submission queue: NOOP, RWS and the
//! parallel issue queuing (PIQ) family of Gao et al. ("PIQ: parallel issue queuing",
//! `shared/papers/piq-parallel-issue-queuing.txt`).
//!
//! A request's *location vector* has one bit per flash chip it touches (§IV-A, Formula 1);
//! two requests conflict when their vectors intersect (Formula 2). PIQ keeps a read and a write
//! *batch list*; a request joins the first batch of its list whose vector it does not
//! intersect (Formula 3), OR-ing its vector in (Formula 4), else opens a new batch
//! (Algorithm 1). Batches are issued in creation order; reads go first, and to keep writes
//! from starving, the reads waiting when a read phase starts are followed by the writes
//! waiting then (§IV-B).
//!
//! Choices where the paper is silent (docs/MODEL.md, "Host schedulers"):
//! - The device takes at most `device_slots` of the flow's requests at once (its NVMe queue
//!   depth); the scheduler decides which request goes next whenever a slot frees. Batches set
//!   that order: the first batch with undispatched requests goes first, so requests dispatched
//!   together rarely conflict.
//! - The queue length L bounds the requests in the scheduler, waiting or outstanding; further
//!   requests wait in arrival order in a host backlog.
//! - A batch stays in its list until all its requests complete, so a newcomer that conflicts
//!   with none of its requests, outstanding ones included, joins it and goes before later
//!   batches ("PIQ takes outstanding requests and waiting requests into account").
//! - Reads first; the requests of a kind waiting when its phase starts are dispatched before
//!   the other kind's, so writes are not starved.
//! - NOOP dispatches in arrival order. RWS is PIQ without conflict checks (reads first).

use std::collections::{BTreeSet, VecDeque};
use std::fmt;

/// The five schemes of the PIQ paper's evaluation (§V).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Scheme {
    Noop,
    Rws,
    PiqR,
    PiqW,
    Piq,
}

impl Scheme {
    pub const ALL: [Scheme; 5] = [
        Scheme::Noop,
        Scheme::Rws,
        Scheme::PiqR,
        Scheme::PiqW,
        Scheme::Piq,
    ];

    /// One line for help texts (PIQ paper §V).
    pub fn description(self) -> &'static str {
        match self {
            Scheme::Noop => "first come, first served",
            Scheme::Rws => "reads before writes (read/write separation)",
            Scheme::PiqR => "conflict-free batches of reads; writes as RWS",
            Scheme::PiqW => "conflict-free batches of writes; reads as RWS",
            Scheme::Piq => "conflict-free batches of reads and of writes (Algorithm 1)",
        }
    }

    /// Whether requests of this kind are split into conflict-free batches (RRS / WWS).
    fn separates(self, is_read: bool) -> bool {
        match self {
            Scheme::Noop | Scheme::Rws => false,
            Scheme::PiqR => is_read,
            Scheme::PiqW => !is_read,
            Scheme::Piq => true,
        }
    }
}

impl Scheme {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Noop => "noop",
            Scheme::Rws => "rws",
            Scheme::PiqR => "piq-r",
            Scheme::PiqW => "piq-w",
            Scheme::Piq => "piq",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.to_string() == s.to_ascii_lowercase().replace('_', "-"))
            .ok_or_else(|| {
                format!(
                    "unknown host scheduler '{s}' (known: {})",
                    Scheme::ALL.map(|x| x.to_string()).join(", ")
                )
            })
    }
}

/// Chips as bits: up to 1,024 chips in a fixed array, so no allocation per request.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ChipSet([u64; 16]);

impl ChipSet {
    pub const MAX_CHIPS: u32 = 1024;
    pub const EMPTY: ChipSet = ChipSet([0; 16]);

    /// PIQ Formula 1 on a drive of geometry `geo`: the chips holding the pages of a request
    /// of `size` bytes at byte `offset` of the logical space that starts at page `lpa_base`,
    /// under the static allocation (the chip of a logical page never changes: GC and wear
    /// levelling move data within a chip only in the PIQ paper's SSD; in Lagoon a page's
    /// plane is fixed by its LPA).
    pub fn of_request(geo: &crate::flash::Geometry, lpa_base: u64, offset: u64, size: u32) -> Self {
        let page = geo.page_bytes as u64;
        let (first, last) = (offset / page, (offset + size as u64 - 1) / page);
        let mut v = ChipSet::EMPTY;
        let chips = geo.channels * geo.chips_per_channel;
        for p in first
            ..=last.min(first + chips as u64 * geo.dies_per_chip as u64 * geo.planes_per_die as u64)
        {
            let (plane, _) = geo.locate(lpa_base + p);
            v.insert(geo.chip_of_die(geo.die_of_plane(plane)));
        }
        v
    }

    pub fn insert(&mut self, chip: u32) {
        self.0[(chip / 64) as usize] |= 1 << (chip % 64);
    }
    pub fn contains(&self, chip: u32) -> bool {
        self.0[(chip / 64) as usize] >> (chip % 64) & 1 == 1
    }
    /// Formula 2 / 3: `V(a) & V(b) != 0`.
    pub fn intersects(&self, o: &ChipSet) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    /// Formula 4: `V(B) = V(B) | V(R)`.
    pub fn union_with(&mut self, o: &ChipSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The paper's integer notation for `nc` chips: chip 0 is the most significant of `nc` bits
    /// (§IV-A: chips 6 and 7 of 8 are written (00000011) = 3).
    pub fn paper_value(&self, nc: u32) -> u64 {
        (0..nc.min(64))
            .filter(|&c| self.contains(c))
            .map(|c| 1u64 << (nc - 1 - c))
            .sum()
    }
}

/// Formula 1 as printed: with `nc` chips, pages of `page_bytes`, sectors of `sector_bytes`,
/// a request at `lbn` of `sectors` touches chips `chip_first ..= chip_last` (mod `nc`), where
/// `chip_first = ⌊lbn·SS / page⌋ % nc` and `chip_last = (⌊(lbn + n)·SS / page⌋ − 1) % nc`.
/// Lagoon itself uses [`HostScheduler`] with the drive's own static allocation; this is the
/// paper's arithmetic, kept for its worked example.
pub fn formula_1(nc: u32, page_bytes: u64, sector_bytes: u64, lbn: u64, sectors: u64) -> ChipSet {
    let first = lbn * sector_bytes / page_bytes;
    let last = ((lbn + sectors) * sector_bytes / page_bytes)
        .saturating_sub(1)
        .max(first);
    let mut v = ChipSet::EMPTY;
    for p in first..=last.min(first + nc as u64 - 1) {
        v.insert((p % nc as u64) as u32);
    }
    v
}

struct Batch {
    vector: ChipSet,
    members: Vec<u32>,
    /// Members already dispatched (a prefix of `members`).
    dispatched: usize,
    /// Dispatched members not yet completed.
    outstanding: u32,
    /// Waiting, dispatching or outstanding (not on the free list).
    live: bool,
}

/// Counters the PIQ paper reports.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SchedulerStats {
    pub scheme: String,
    pub queue_length: u32,
    /// Requests whose location vector intersected a request already in the scheduler
    /// (waiting or outstanding) when they entered it (the paper's Table I "conflicts").
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    pub reads: u64,
    pub writes: u64,
    /// Batches issued.
    pub batches: u64,
    /// Reads dispatched while a write that arrived before them was still waiting in the
    /// scheduler: reads the scheduler put ahead of a write (PIQ Fig. 9's "prioritized read
    /// requests"; always 0 under NOOP).
    pub prioritized_reads: u64,
    /// Time requests waited in the scheduler before issue, ns, summed per kind.
    pub read_wait_ns: f64,
    pub write_wait_ns: f64,
    pub mean_read_wait_ns: f64,
    pub mean_write_wait_ns: f64,
}

/// One flow's scheduler. Request ids are the simulator's slab indices.
pub struct HostScheduler {
    scheme: Scheme,
    cap: u32,
    /// Requests the device takes from this flow at once (its NVMe queue depth).
    slots: u32,
    /// Requests in the scheduler: waiting or outstanding.
    inside: u32,
    /// Dispatched and not completed.
    issued: u32,
    batches: Vec<Batch>,
    free: Vec<usize>,
    /// Read and write batch lists, in creation order (NOOP: one FIFO in list 0).
    lists: [VecDeque<usize>; 2],
    /// Requests waiting (not dispatched) per kind.
    waiting: [u32; 2],
    /// Kind of the current phase (0 read, 1 write) and its requests still to dispatch.
    phase: usize,
    phase_left: u32,
    batch_of: Vec<u32>,
    entered: Vec<u64>,
    /// Per request id: 0 read, 1 write.
    kind: Vec<u8>,
    /// Per request id: its arrival order.
    seq: Vec<u64>,
    next_seq: u64,
    /// Arrival orders of the writes admitted and not yet dispatched.
    waiting_writes: BTreeSet<u64>,
    backlog: VecDeque<(u32, bool, ChipSet)>,
    /// Requests released to the submission queue and not yet drained.
    ready: Vec<u32>,
    pub stats: SchedulerStats,
}

const NO_BATCH: u32 = u32::MAX;

impl HostScheduler {
    /// `device_slots`: how many of the flow's requests the device holds at once (its NVMe
    /// queue depth); the scheduler decides which go next when one frees.
    pub fn new(scheme: Scheme, queue_length: u32, device_slots: u32) -> Self {
        let cap = queue_length.max(1);
        Self {
            scheme,
            cap,
            slots: device_slots.max(1),
            inside: 0,
            issued: 0,
            batches: Vec::new(),
            free: Vec::new(),
            lists: [VecDeque::new(), VecDeque::new()],
            waiting: [0; 2],
            phase: 0,
            phase_left: 0,
            batch_of: Vec::new(),
            entered: Vec::new(),
            kind: Vec::new(),
            seq: Vec::new(),
            next_seq: 0,
            waiting_writes: BTreeSet::new(),
            backlog: VecDeque::new(),
            ready: Vec::with_capacity(device_slots.min(4096) as usize),
            stats: SchedulerStats {
                scheme: scheme.to_string(),
                queue_length: cap,
                ..Default::default()
            },
        }
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Requests waiting or outstanding in the scheduler, plus the backlog behind it.
    pub fn len(&self) -> usize {
        self.inside as usize + self.backlog.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The queue is at its length: a timed arrival waits in the host until a request leaves.
    pub fn is_full(&self) -> bool {
        self.len() >= self.cap as usize
    }

    /// A request arrives at `now_ns` with location vector `v`. Requests to dispatch now are
    /// in [`Self::drain_ready`].
    pub fn enqueue(&mut self, id: u32, is_read: bool, v: ChipSet, now_ns: u64) {
        let i = id as usize;
        if self.batch_of.len() <= i {
            self.batch_of.resize(i + 1, NO_BATCH);
            self.entered.resize(i + 1, 0);
            self.kind.resize(i + 1, 0);
            self.seq.resize(i + 1, 0);
        }
        self.kind[i] = (!is_read) as u8;
        self.seq[i] = self.next_seq;
        self.next_seq += 1;
        self.entered[i] = now_ns;
        if self.inside >= self.cap {
            self.backlog.push_back((id, is_read, v));
            return;
        }
        self.admit(id, is_read, v);
        self.dispatch(now_ns);
    }

    fn admit(&mut self, id: u32, is_read: bool, v: ChipSet) {
        self.inside += 1;
        let conflict = self.conflicts_with_inside(&v);
        if is_read {
            self.stats.reads += 1;
            self.stats.read_conflicts += conflict as u64;
        } else {
            self.stats.writes += 1;
            self.stats.write_conflicts += conflict as u64;
        }
        let kind = (!is_read) as usize;
        self.waiting[kind] += 1;
        if !is_read {
            self.waiting_writes.insert(self.seq[id as usize]);
        }
        // NOOP: one FIFO of one-request batches, whatever the kind.
        let list = if self.scheme == Scheme::Noop { 0 } else { kind };
        let separate = self.scheme.separates(is_read);
        // Algorithm 1, lines 7-17: the first batch of the list without a conflict (Formula 3).
        let found = if self.scheme == Scheme::Noop {
            None
        } else {
            self.lists[list]
                .iter()
                .copied()
                .find(|&b| !separate || !self.batches[b].vector.intersects(&v))
        };
        let b = match found {
            Some(b) => {
                let batch = &mut self.batches[b];
                batch.vector.union_with(&v); // line 12, Formula 4
                batch.members.push(id);
                b
            }
            None => {
                // lines 18-22: a new batch at the tail of the list
                let b = self.new_batch(v, id);
                self.lists[list].push_back(b);
                b
            }
        };
        self.batch_of[id as usize] = b as u32;
    }

    /// Formula 2 against every request waiting or outstanding (their batches' vectors).
    fn conflicts_with_inside(&self, v: &ChipSet) -> bool {
        self.batches
            .iter()
            .any(|b| b.live && b.vector.intersects(v))
    }

    fn new_batch(&mut self, v: ChipSet, id: u32) -> usize {
        let b = match self.free.pop() {
            Some(b) => b,
            None => {
                self.batches.push(Batch {
                    vector: ChipSet::EMPTY,
                    members: Vec::new(),
                    dispatched: 0,
                    outstanding: 0,
                    live: false,
                });
                self.batches.len() - 1
            }
        };
        let batch = &mut self.batches[b];
        batch.vector = v;
        batch.members.clear();
        batch.members.push(id);
        batch.dispatched = 0;
        batch.outstanding = 0;
        batch.live = true;
        b
    }

    /// Fill free device slots (line 23: issue from the list head, batch by batch).
    fn dispatch(&mut self, now_ns: u64) {
        while self.issued < self.slots {
            let Some(list) = self.next_list() else { return };
            let Some(b) = self.lists[list]
                .iter()
                .copied()
                .find(|&b| self.batches[b].dispatched < self.batches[b].members.len())
            else {
                return;
            };
            let batch = &mut self.batches[b];
            if batch.dispatched == 0 {
                self.stats.batches += 1;
            }
            let id = batch.members[batch.dispatched];
            batch.dispatched += 1;
            batch.outstanding += 1;
            self.issued += 1;
            self.phase_left = self.phase_left.saturating_sub(1);
            let waited = now_ns - self.entered[id as usize];
            let kind = self.kind[id as usize] as usize;
            self.waiting[kind] -= 1;
            let seq = self.seq[id as usize];
            if kind == 0 {
                self.stats.read_wait_ns += waited as f64;
                if self.waiting_writes.first().is_some_and(|&w| w < seq) {
                    self.stats.prioritized_reads += 1;
                }
            } else {
                self.stats.write_wait_ns += waited as f64;
                self.waiting_writes.remove(&seq);
            }
            self.ready.push(id);
        }
    }

    /// Which list dispatches next. Reads first; the requests of a kind waiting when its
    /// phase starts go before the other kind's (§IV-B: writes are not starved).
    fn next_list(&mut self) -> Option<usize> {
        if self.scheme == Scheme::Noop {
            return (self.waiting[0] + self.waiting[1] > 0).then_some(0);
        }
        if self.phase_left == 0 || self.waiting[self.phase] == 0 {
            let next = if self.phase == 1 && self.waiting[0] > 0 {
                0
            } else if self.waiting[1 - self.phase] > 0 {
                1 - self.phase
            } else if self.waiting[self.phase] > 0 {
                self.phase
            } else {
                return None;
            };
            self.phase = next;
            self.phase_left = self.waiting[next];
        }
        Some(self.phase)
    }

    /// Requests to put into the submission queue now, in dispatch order.
    pub fn drain_ready(&mut self) -> std::vec::Drain<'_, u32> {
        self.ready.drain(..)
    }

    /// Request `id` completed at `now_ns`.
    pub fn complete(&mut self, id: u32, now_ns: u64) {
        let b = std::mem::replace(&mut self.batch_of[id as usize], NO_BATCH);
        debug_assert_ne!(b, NO_BATCH, "request {id} completed but was never issued");
        let b = b as usize;
        self.inside -= 1;
        self.issued -= 1;
        let batch = &mut self.batches[b];
        batch.outstanding -= 1;
        if batch.outstanding == 0 && batch.dispatched == batch.members.len() {
            // Every member done: the batch leaves its list.
            batch.live = false;
            self.free.push(b);
            for l in &mut self.lists {
                if let Some(i) = l.iter().position(|&x| x == b) {
                    l.remove(i);
                }
            }
        }
        while self.inside < self.cap {
            let Some((id, r, v)) = self.backlog.pop_front() else {
                break;
            };
            self.admit(id, r, v);
        }
        self.dispatch(now_ns);
    }

    /// Every live batch holds requests with pairwise disjoint vectors where the scheme
    /// separates their kind. For property tests: `vectors(id)` is each request's vector.
    pub fn check_batches(&self, vectors: &dyn Fn(u32) -> ChipSet) -> Result<(), String> {
        for (kind, list) in self.lists.iter().enumerate() {
            for &b in list {
                let mut seen = ChipSet::EMPTY;
                for &id in &self.batches[b].members {
                    let v = vectors(id);
                    let separate = self.scheme != Scheme::Noop && self.scheme.separates(kind == 0);
                    if separate && seen.intersects(&v) {
                        return Err(format!(
                            "batch {b} holds two requests on one chip (request {id})"
                        ));
                    }
                    seen.union_with(&v);
                }
            }
        }
        Ok(())
    }

    pub fn finish_stats(&mut self) -> SchedulerStats {
        let mut s = self.stats.clone();
        s.mean_read_wait_ns = s.read_wait_ns / s.reads.max(1) as f64;
        s.mean_write_wait_ns = s.write_wait_ns / s.writes.max(1) as f64;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// §IV-A worked example: NC = 8, request (r, 14854, 2) gives chips 6 and 7, vector 3.
    /// The example only works out with SS = 4 KB sectors (as it states: "SS=4KB", page 4 KB);
    /// with 512 B sectors the same LBN lands on chip 0 alone.
    #[test]
    fn formula_1_worked_example() {
        let v = formula_1(8, 4096, 4096, 14854, 2);
        assert!(v.contains(6) && v.contains(7) && v.len() == 2);
        assert_eq!(v.paper_value(8), 3);
        let v512 = formula_1(8, 4096, 512, 14854, 2);
        assert_eq!((v512.len(), v512.contains(0)), (1, true));
    }

    fn from_paper(nc: u32, value: u64) -> ChipSet {
        let mut v = ChipSet::EMPTY;
        for c in 0..nc {
            if value >> (nc - 1 - c) & 1 == 1 {
                v.insert(c);
            }
        }
        v
    }

    /// Figure 5: 12 & 6 = 4 (chip 5), 64 & 96 = 64 (chip 1), 6 & 3 = 2 (chip 6).
    #[test]
    fn figure_5_conflicts() {
        for (a, b, and, chip) in [(12, 6, 4, 5), (64, 96, 64, 1), (6, 3, 2, 6)] {
            let (va, vb) = (from_paper(8, a), from_paper(8, b));
            assert!(va.intersects(&vb));
            let mut both = ChipSet::EMPTY;
            for c in 0..8 {
                if va.contains(c) && vb.contains(c) {
                    both.insert(c);
                }
            }
            assert_eq!(both.paper_value(8), and);
            assert!(both.contains(chip) && both.len() == 1);
        }
        assert!(!from_paper(8, 12).intersects(&from_paper(8, 3)));
    }

    /// Figure 7: R0 = 3, R1 = 6, R2 = 12 (four chips) give two read batches, B0 = 15 {R0, R2}
    /// and B1 = 6 {R1}; with two device slots R0 and R2 go together, R1 after.
    #[test]
    fn figure_7_batches() {
        let mut s = HostScheduler::new(Scheme::Piq, 64, 1);
        // hold the only slot with a write so the reads stay queued
        s.enqueue(9, false, from_paper(4, 1), 0);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![9]);
        s.slots = 2;
        for (id, v) in [(0, 3), (1, 6), (2, 12)] {
            s.enqueue(id, true, from_paper(4, v), 0);
        }
        let reads: Vec<(u64, Vec<u32>)> = s.lists[0]
            .iter()
            .map(|&b| {
                (
                    s.batches[b].vector.paper_value(4),
                    s.batches[b].members.clone(),
                )
            })
            .collect();
        assert_eq!(reads, vec![(15, vec![0, 2]), (6, vec![1])]);
        s.complete(9, 10);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0, 2]);
        s.complete(0, 20);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![1]);
        assert_eq!(s.stats.batches, 3);
    }

    #[test]
    fn rws_puts_reads_first_and_does_not_starve_writes() {
        let mut s = HostScheduler::new(Scheme::Rws, 64, 1);
        let v = from_paper(4, 8);
        s.enqueue(0, false, v, 0);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0]);
        s.enqueue(1, false, v, 1);
        s.enqueue(2, true, v, 1);
        s.enqueue(3, true, v, 1);
        s.complete(0, 5);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![2], "reads first");
        s.enqueue(4, true, v, 6); // after the read phase started: waits for the write
        s.complete(2, 7);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![3]);
        s.complete(3, 8);
        assert_eq!(
            s.drain_ready().collect::<Vec<_>>(),
            vec![1],
            "then the write"
        );
        s.complete(1, 9);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![4]);
    }

    /// RWS counts the reads it puts ahead of an earlier write; NOOP never does.
    #[test]
    fn prioritized_reads_are_reads_ahead_of_an_earlier_write() {
        for (scheme, want) in [(Scheme::Rws, 2), (Scheme::Noop, 0)] {
            let mut s = HostScheduler::new(scheme, 64, 1);
            let v = from_paper(4, 8);
            s.enqueue(0, false, v, 0); // dispatched at once: a write phase
            s.enqueue(1, false, v, 1);
            s.enqueue(2, true, v, 2);
            s.enqueue(3, true, v, 3);
            let mut order = Vec::new();
            let mut t = 4;
            loop {
                let Some(id) = s.drain_ready().next() else {
                    break;
                };
                order.push(id);
                s.complete(id, t);
                t += 1;
            }
            assert!(s.is_empty());
            assert_eq!(s.stats.prioritized_reads, want, "{scheme}: {order:?}");
        }
    }

    /// A newcomer that conflicts with nothing in the head batch, outstanding requests
    /// included, joins it and overtakes a later batch.
    #[test]
    fn joining_the_head_batch() {
        let mut s = HostScheduler::new(Scheme::Piq, 64, 1);
        s.enqueue(0, true, from_paper(4, 8), 0); // dispatched
        s.enqueue(1, true, from_paper(4, 8), 0); // conflicts with 0: a new batch
        s.enqueue(2, true, from_paper(4, 4), 0); // joins 0's batch
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0]);
        s.complete(0, 1);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![2]);
        s.complete(2, 2);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn queue_length_bounds_the_scheduler_and_backlog_keeps_order() {
        let mut s = HostScheduler::new(Scheme::Noop, 2, 64);
        for id in 0..5 {
            s.enqueue(id, true, from_paper(8, 1 << id), 0);
        }
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0, 1]);
        s.complete(1, 1);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![2]);
        s.complete(0, 2);
        s.complete(2, 3);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![3, 4]);
    }

    #[test]
    fn scheme_names_round_trip() {
        for s in Scheme::ALL {
            assert_eq!(s.to_string().parse::<Scheme>(), Ok(s));
        }
        assert_eq!("PIQ_R".parse::<Scheme>(), Ok(Scheme::PiqR));
        assert!("deadline"
            .parse::<Scheme>()
            .unwrap_err()
            .contains("known: noop"));
    }

    proptest! {
        /// No batch ever holds two requests whose vectors intersect (where the scheme
        /// separates that kind); every request is issued exactly once; the scheduler never
        /// holds more than its queue length.
        #[test]
        fn batches_are_conflict_free(
            scheme in prop::sample::select(Scheme::ALL.to_vec()),
            cap in 1u32..40, slots in 1u32..8,
            ops in proptest::collection::vec((any::<bool>(), 1u64..256, any::<bool>()), 1..200),
        ) {
            let mut s = HostScheduler::new(scheme, cap, slots);
            let mut vecs = Vec::new();
            let mut issued = vec![0u32; ops.len()];
            let mut outstanding: Vec<u32> = Vec::new();
            let mut t = 0;
            for (id, &(is_read, bits, finish_one)) in ops.iter().enumerate() {
                t += 1;
                let v = from_paper(8, bits);
                vecs.push(v);
                s.enqueue(id as u32, is_read, v, t);
                if finish_one && !outstanding.is_empty() {
                    let done = outstanding.remove(0);
                    s.complete(done, t);
                }
                outstanding.extend(s.drain_ready().inspect(|&i| issued[i as usize] += 1));
                prop_assert!(s.inside <= cap && s.issued <= slots);
                s.check_batches(&|i| vecs[i as usize]).map_err(TestCaseError::fail)?;
            }
            while let Some(done) = (!outstanding.is_empty()).then(|| outstanding.remove(0)) {
                t += 1;
                s.complete(done, t);
                outstanding.extend(s.drain_ready().inspect(|&i| issued[i as usize] += 1));
                s.check_batches(&|i| vecs[i as usize]).map_err(TestCaseError::fail)?;
            }
            prop_assert!(issued.iter().all(|&n| n == 1), "issued once each: {:?}", issued);
            prop_assert!(s.is_empty());
        }
    }
}
