//! Host I/O schedulers between a flow and its NVMe submission queue: NOOP, RWS and the
//! parallel issue queuing (PIQ) family of Gao et al. ("PIQ: parallel issue queuing",
//! `shared/papers/piq-parallel-issue-queuing.txt`).
//!
//! A request's *location vector* has one bit per flash chip it touches (§IV-A, Formula 1);
//! two requests conflict when their vectors intersect (Formula 2). PIQ keeps a read and a write
//! *batch list*; a request joins the first batch of its list whose vector it does not
//! intersect (Formula 3), OR-ing its vector in (Formula 4), else opens a new batch
//! (Algorithm 1). Batches are issued whole, in creation order; reads go first, and to keep
//! writes from starving, the read batches present when a read phase starts are followed by the
//! write batches present then (§IV-B).
//!
//! Choices where the paper is silent (docs/MODEL.md, "Host schedulers"):
//! - The queue length L bounds the requests in the scheduler, waiting or outstanding; further
//!   requests wait in arrival order in a host backlog.
//! - `join = false`: the batch being serviced is closed; a newcomer never joins it.
//!   `join = true` (the default): a newcomer joins the batch in service when it does not
//!   conflict with it (Formula 3 against the outstanding requests, which §IV-B says PIQ takes
//!   into account) and no batch of the other kind is waiting (so writes are not starved), and
//!   is issued at once. Either way, requests outstanding together never conflict where the
//!   scheme separates their kind.
//! - The next batch is issued when every request of the current one has completed (the
//!   paper's "cycles", Figure 7).
//! - NOOP issues every request as soon as it enters the queue (FIFO, at most L outstanding).
//!   RWS is PIQ without conflict checks: one read batch and one write batch at a time.

use std::collections::VecDeque;
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

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scheme::Noop => "noop",
            Scheme::Rws => "rws",
            Scheme::PiqR => "piq-r",
            Scheme::PiqW => "piq-w",
            Scheme::Piq => "piq",
        })
    }
}

impl std::str::FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.to_string() == s.to_ascii_lowercase().replace('_', "-"))
            .ok_or_else(|| {
                format!("unknown host scheduler '{s}' (known: noop, rws, piq-r, piq-w, piq)")
            })
    }
}

/// Chips as bits: up to 1,024 chips in a fixed array, so no allocation per request.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ChipSet([u64; 16]);

impl ChipSet {
    pub const MAX_CHIPS: u32 = 1024;
    pub const EMPTY: ChipSet = ChipSet([0; 16]);

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
    /// Issued members not yet completed.
    outstanding: u32,
    /// Waiting or in service (not on the free list).
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
    join: bool,
    /// Requests in the scheduler: waiting in batches or outstanding.
    inside: u32,
    batches: Vec<Batch>,
    free: Vec<usize>,
    /// Read and write batch lists, in creation order.
    lists: [VecDeque<usize>; 2],
    current: Option<usize>,
    /// Kind of the current phase (0 read, 1 write) and batches of it still to issue.
    phase: usize,
    phase_left: usize,
    /// Per request id: its batch (for completion) and the time it entered.
    batch_of: Vec<u32>,
    entered: Vec<u64>,
    backlog: VecDeque<(u32, bool, ChipSet)>,
    /// Requests released to the submission queue and not yet drained.
    ready: Vec<u32>,
    pub stats: SchedulerStats,
}

const NO_BATCH: u32 = u32::MAX;

impl HostScheduler {
    pub fn new(scheme: Scheme, queue_length: u32) -> Self {
        Self::with_join(scheme, queue_length, true)
    }

    pub fn with_join(scheme: Scheme, queue_length: u32, join: bool) -> Self {
        let cap = queue_length.max(1);
        Self {
            scheme,
            cap,
            join,
            inside: 0,
            batches: Vec::new(),
            free: Vec::new(),
            lists: [VecDeque::new(), VecDeque::new()],
            current: None,
            phase: 0,
            phase_left: 0,
            batch_of: Vec::new(),
            entered: Vec::new(),
            backlog: VecDeque::new(),
            ready: Vec::with_capacity(cap as usize),
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

    /// A request arrives at `now_ns` with location vector `v`. Requests to issue now are in
    /// [`Self::drain_ready`].
    pub fn enqueue(&mut self, id: u32, is_read: bool, v: ChipSet, now_ns: u64) {
        let i = id as usize;
        if self.batch_of.len() <= i {
            self.batch_of.resize(i + 1, NO_BATCH);
            self.entered.resize(i + 1, 0);
        }
        self.entered[i] = now_ns;
        if self.inside >= self.cap {
            self.backlog.push_back((id, is_read, v));
            return;
        }
        self.admit(id, is_read, v);
        self.pump(now_ns);
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
        if self.scheme == Scheme::Noop {
            // FIFO: straight to the device (a one-request batch, issued at once).
            let b = self.new_batch(v, id);
            self.batches[b].outstanding = 1;
            self.batch_of[id as usize] = b as u32;
            self.ready.push(id);
            return;
        }
        let kind = (!is_read) as usize;
        let separate = self.scheme.separates(is_read);
        if let Some(c) = self.current {
            let fits = !separate || !self.batches[c].vector.intersects(&v);
            if self.join && self.phase == kind && self.lists[1 - kind].is_empty() && fits {
                let batch = &mut self.batches[c];
                batch.vector.union_with(&v);
                batch.members.push(id);
                batch.outstanding += 1;
                self.batch_of[id as usize] = c as u32;
                self.ready.push(id);
                return;
            }
        }
        // Algorithm 1, lines 7-17: the first batch of the list without a conflict.
        let found = self.lists[kind]
            .iter()
            .copied()
            .find(|&b| !separate || !self.batches[b].vector.intersects(&v));
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
                self.lists[kind].push_back(b);
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
        batch.outstanding = 0;
        batch.live = true;
        b
    }

    /// Issue the next batch if none is being serviced (line 23: issue the list head).
    fn pump(&mut self, now_ns: u64) {
        if self.scheme == Scheme::Noop || self.current.is_some() {
            return;
        }
        if self.phase_left == 0 || self.lists[self.phase].is_empty() {
            // Reads first; the other kind once this kind's batches present at the phase start
            // are done (§IV-B: writes are not starved).
            let other = 1 - self.phase;
            let next = if self.phase == 1 && !self.lists[0].is_empty() {
                0
            } else if !self.lists[other].is_empty() {
                other
            } else {
                self.phase
            };
            self.phase = next;
            self.phase_left = self.lists[next].len();
        }
        let Some(b) = self.lists[self.phase].pop_front() else {
            return;
        };
        self.phase_left -= 1;
        self.current = Some(b);
        self.stats.batches += 1;
        let batch = &mut self.batches[b];
        batch.outstanding = batch.members.len() as u32;
        for &id in &batch.members {
            let waited = now_ns - self.entered[id as usize];
            if self.phase == 0 {
                self.stats.read_wait_ns += waited as f64;
            } else {
                self.stats.write_wait_ns += waited as f64;
            }
        }
        self.ready.extend_from_slice(&batch.members);
    }

    /// Requests to put into the submission queue now, in issue order.
    pub fn drain_ready(&mut self) -> std::vec::Drain<'_, u32> {
        self.ready.drain(..)
    }

    /// Request `id` completed at `now_ns`.
    pub fn complete(&mut self, id: u32, now_ns: u64) {
        let b = std::mem::replace(&mut self.batch_of[id as usize], NO_BATCH);
        debug_assert_ne!(b, NO_BATCH, "request {id} completed but was never issued");
        let b = b as usize;
        self.inside -= 1;
        self.batches[b].outstanding -= 1;
        if self.batches[b].outstanding == 0 {
            self.batches[b].live = false;
            self.free.push(b);
            if self.current == Some(b) {
                self.current = None;
            }
        }
        while self.inside < self.cap {
            let Some((id, r, v)) = self.backlog.pop_front() else {
                break;
            };
            self.admit(id, r, v);
        }
        self.pump(now_ns);
    }

    /// Every batch waiting or in service holds requests with pairwise disjoint vectors where
    /// the scheme separates their kind. For property tests: `vectors[id]` is each request's.
    pub fn check_batches(&self, vectors: &dyn Fn(u32) -> ChipSet) -> Result<(), String> {
        for b in self.lists.iter().flatten().copied().chain(self.current) {
            let batch = &self.batches[b];
            let mut seen = ChipSet::EMPTY;
            for &id in &batch.members {
                let v = vectors(id);
                let is_read_list =
                    self.lists[0].contains(&b) || (self.current == Some(b) && self.phase == 0);
                if self.scheme.separates(is_read_list) && seen.intersects(&v) {
                    return Err(format!(
                        "batch {b} holds two requests on one chip (request {id})"
                    ));
                }
                seen.union_with(&v);
            }
        }
        Ok(())
    }

    pub fn finish_stats(&mut self) -> SchedulerStats {
        let mut s = self.stats.clone();
        // NOOP never waits in the scheduler (only in the backlog, not counted as a conflict wait).
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
    /// and B1 = 6 {R1}.
    #[test]
    fn figure_7_batches() {
        let mut s = HostScheduler::new(Scheme::Piq, 64);
        // hold the device busy with a write so the reads stay queued
        s.enqueue(9, false, from_paper(4, 1), 0);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![9]);
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
        // the write completes: B0 is issued whole, then B1 after both of its requests finish
        s.complete(9, 10);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0, 2]);
        s.complete(0, 20);
        assert_eq!(s.drain_ready().count(), 0);
        s.complete(2, 30);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![1]);
        assert_eq!(s.stats.batches, 3);
    }

    #[test]
    fn rws_puts_reads_first_and_does_not_starve_writes() {
        let mut s = HostScheduler::with_join(Scheme::Rws, 64, false);
        let v = from_paper(4, 8);
        s.enqueue(0, false, v, 0); // issued at once (nothing else)
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0]);
        s.enqueue(1, false, v, 1);
        s.enqueue(2, true, v, 1);
        s.enqueue(3, true, v, 1); // same chip, but RWS does not separate reads
        s.complete(0, 5);
        assert_eq!(
            s.drain_ready().collect::<Vec<_>>(),
            vec![2, 3],
            "reads first"
        );
        s.enqueue(4, true, v, 6); // a new read batch behind the waiting write batch
        s.complete(2, 7);
        s.complete(3, 8);
        assert_eq!(
            s.drain_ready().collect::<Vec<_>>(),
            vec![1],
            "then the write"
        );
        s.complete(1, 9);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![4]);
    }

    /// With joining, a newcomer that does not conflict with the batch in service is issued at
    /// once, unless a batch of the other kind waits.
    #[test]
    fn joining_the_batch_in_service() {
        let mut s = HostScheduler::new(Scheme::Piq, 64);
        s.enqueue(0, true, from_paper(4, 8), 0);
        s.enqueue(1, true, from_paper(4, 4), 0); // another chip: joins, issued now
        s.enqueue(2, true, from_paper(4, 8), 0); // chip of request 0: waits
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![0, 1]);
        s.enqueue(3, false, from_paper(4, 2), 0); // a write batch now waits
        s.enqueue(4, true, from_paper(4, 1), 0); // free chip, but writes wait: no join
        assert_eq!(s.drain_ready().count(), 0);
        s.complete(0, 1);
        s.complete(1, 2);
        // the read batches present at the phase start first: {2, 4} then the write
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![2, 4]);
        s.complete(2, 3);
        s.complete(4, 4);
        assert_eq!(s.drain_ready().collect::<Vec<_>>(), vec![3]);
    }

    #[test]
    fn queue_length_bounds_the_scheduler_and_backlog_keeps_order() {
        let mut s = HostScheduler::new(Scheme::Noop, 2);
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
            cap in 1u32..40, join in any::<bool>(),
            ops in proptest::collection::vec((any::<bool>(), 1u64..256, any::<bool>()), 1..200),
        ) {
            let mut s = HostScheduler::with_join(scheme, cap, join);
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
                prop_assert!(s.inside <= cap);
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
