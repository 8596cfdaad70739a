//! The transaction scheduler: per-die queues by class, the die state machine (command
//! transfer, array operation, data out) and the choice of each die's next operation — the
//! first queue in the die's order ([`order`]) with an executable transaction, plus
//! same-kind partners on the die's other planes ([`multiplane`]).
//!
//! ```text
//! idle ─▶ (dispatch) ─▶ command [+ program data staged, dSSD] ─▶ TRANSFER_DONE ─▶ array
//!   (tR / tPROG / tBERS) ─▶ ARRAY_DONE ─▶ [read: data out ─▶ TRANSFER_DONE] ─▶ idle
//! ```
//! A die in its array phase with a program or erase is where a read could suspend it
//! ([`suspend`]: the preemption point; nothing suspends yet).

pub mod multiplane;
pub mod order;
pub mod suspend;

use super::dynamic_superblock::BlockRemap;
use super::ftl::{Ftl, Stream};
use super::txn::{DieQueue, Role, Txn, TxnKind};
use super::{DriveQueue, Ssd};
use crate::config::{Multiplane, SsdConfig, WriteCompletion};
use crate::engine::{List, NONE};
use crate::flash::{FlashOp, FlashTiming, Geometry};
use crate::interconnect::Transfer;
use crate::time::Ps;
use multiplane::{plane_offset, ReadOffsets, WriteOffsets};
use order::{DieOrder, GcShare, Order};
use std::sync::Arc;

/// A die's queues ([`DieQueue`]).
pub const NQ: usize = DieQueue::COUNT;
/// How far down a queue the scheduler looks for out-of-order or multi-plane partners.
const SCAN_LIMIT: usize = 64;
pub const MAX_PLANES: usize = 16;

/// The scheduler's events.
#[derive(Clone, Copy, Debug)]
pub enum TsuEvent {
    /// A die's array operation (tR, tPROG, tBERS) ended, unless the die's generation moved
    /// on since it was scheduled (the operation was suspended: [`suspend`]).
    ArrayDone { die: u32, gen: u16 },
    /// A suspension took effect: the die may serve reads.
    Suspended { die: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Dispatching,
    Command,
    Array,
    DataOut,
    /// A suspend command was given; the operation stops at its next step ([`suspend`]).
    Suspending,
}

#[derive(Clone, Copy)]
pub struct Die {
    pub phase: Phase,
    pub op: FlashOp,
    txns: [u32; MAX_PLANES],
    n: u8,
    bytes: u32,
    started: Ps,
    busy_time: Ps,
    array_time: Ps,
    /// The current operation's array time, counted into `array_time` when the operation ends,
    /// as its busy time is: an operation still running when a run stops counts in neither, so
    /// array time never exceeds busy time (counted at its start, it did, issue 43).
    array_ps: Ps,
    /// GC operations started since the die last started a user one (`tiny-tail`).
    gc_streak: u32,
    /// When its command went to the interconnect (after any data staging).
    stage_end: Ps,
    /// When its array operation is due to end, and the generation its `ArrayDone` carries.
    array_due: Ps,
    gen: u16,
    /// Suspensions the current operation has taken ([`suspend`]).
    suspends: u32,
}

impl Die {
    pub const IDLE: Die = Die {
        phase: Phase::Idle,
        op: FlashOp::Read,
        txns: [NONE; MAX_PLANES],
        n: 0,
        bytes: 0,
        started: 0,
        busy_time: 0,
        array_time: 0,
        array_ps: 0,
        gc_streak: 0,
        stage_end: 0,
        array_due: 0,
        gen: 0,
        suspends: 0,
    };

    /// The transactions of its current operation.
    #[inline]
    pub fn current(&self) -> &[u32] {
        &self.txns[..self.n as usize]
    }
}

pub struct Tsu {
    dies: Vec<Die>,
    queues: Vec<[List; NQ]>,
    order: Order,
    gc_share: GcShare,
    rule: Multiplane,
    read_offsets: ReadOffsets,
    write_offsets: WriteOffsets,
    /// When each transaction last entered a die queue, by slab index (issue order and the
    /// controller model's breakdown only).
    queued_at: Vec<Ps>,
    record_queue_times: bool,
    /// Dynamic superblocks (dSSD §5, Fig. 15): the plane each block the FTL addresses is on;
    /// `None` = every block on its own plane (every run but an aged drive's window).
    remap: Option<Arc<BlockRemap>>,
    /// Dies a dispatch scan handed remapped transactions to (dispatched after the scan).
    forwarded: Vec<u32>,
    timing: FlashTiming,
    suspend: suspend::Suspend,
}

impl Tsu {
    pub fn new(cfg: &SsdConfig, g: &Geometry) -> Self {
        let order = Order::new(&cfg.ftl);
        Self {
            dies: vec![Die::IDLE; g.dies as usize],
            queues: vec![[List::EMPTY; NQ]; g.dies as usize],
            gc_share: GcShare::new(&cfg.ftl, order.is_issue_order()),
            record_queue_times: cfg.controller.enabled || order.needs_queue_times(),
            read_offsets: ReadOffsets::new(
                g.dies as usize,
                g.planes_per_die,
                cfg.flash.multiplane == Multiplane::SameOffset && !order.in_order(DieQueue::Read),
            ),
            write_offsets: WriteOffsets::new(
                g.dies as usize,
                g.planes_per_die,
                cfg.flash.multiplane == Multiplane::SameOffset,
            ),
            order,
            rule: cfg.flash.multiplane,
            queued_at: Vec::new(),
            remap: None,
            forwarded: Vec::new(),
            timing: FlashTiming::new(&cfg.flash),
            suspend: suspend::Suspend::new(&cfg.flash, g.dies as usize),
        }
    }

    /// No operation in progress (or suspended) and nothing queued (MQSimNet §IV.A's "idle"
    /// die).
    #[inline]
    pub fn die_idle(&self, d: u32) -> bool {
        matches!(self.dies[d as usize].phase, Phase::Idle)
            && self.queues[d as usize].iter().all(|l| l.head == NONE)
            && !self.suspend.is_parked(d as usize)
    }

    pub fn dies(&self) -> &[Die] {
        &self.dies
    }

    pub fn die_count(&self) -> usize {
        self.dies.len()
    }

    /// Die queues holding transactions (the stall message).
    pub fn busy_queues(&self) -> usize {
        self.queues
            .iter()
            .map(|q| q.iter().filter(|l| l.head != NONE).count())
            .sum()
    }

    /// Mean busy and array fractions of the dies over `span`.
    pub fn utilization(&self, span: Ps) -> (f64, f64) {
        let nd = self.dies.len() as f64;
        let frac = |x: Ps| {
            if span > 0 {
                x as f64 / span as f64
            } else {
                0.0
            }
        };
        (
            self.dies.iter().map(|d| frac(d.busy_time)).sum::<f64>() / nd,
            self.dies.iter().map(|d| frac(d.array_time)).sum::<f64>() / nd,
        )
    }

    /// Run over an aged drive's block remapping (set before the run, every queue empty).
    pub fn set_block_remap(&mut self, remap: Arc<BlockRemap>) {
        self.remap = Some(remap);
        // A remapped read may be forwarded to another die: no read counters.
        self.read_offsets.disable();
        self.write_offsets.disable();
    }

    /// When transaction `t` entered its die queue (a side table, so that `Txn` stays as it
    /// is for the runs that need none).
    #[inline]
    fn mark_queued(&mut self, t: u32, now: Ps, slab_len: usize) {
        if self.queued_at.len() <= t as usize {
            self.queued_at.resize(slab_len.max(t as usize + 1), 0);
        }
        self.queued_at[t as usize] = now;
    }

    /// Whether queue `q` of `die` holds a transaction.
    #[inline]
    pub(crate) fn has_queued(&self, die: usize, q: DieQueue) -> bool {
        self.queues[die][q.idx()].head != NONE
    }

    /// The die looks at its queues (no other dispatch may start on it meanwhile).
    #[inline]
    pub(crate) fn set_dispatching(&mut self, die: usize) {
        self.dies[die].phase = Phase::Dispatching;
    }

    /// The read queues a suspended die serves, in order.
    #[inline]
    pub(crate) fn suspended_read_queues(&self) -> &'static [DieQueue] {
        self.suspend.read_queues()
    }

    /// When `t` last entered a die queue (now, if never recorded).
    #[inline]
    pub fn queued_at(&self, t: u32, now: Ps) -> Ps {
        self.queued_at.get(t as usize).copied().unwrap_or(now)
    }
}

/// The plane transaction `x` runs on: its own, or with a block remap the plane of the block it
/// reads or erases, or of the block its write will be placed in now.
#[inline]
fn exec_plane(remap: &Option<Arc<BlockRemap>>, ftl: &Ftl, x: &Txn) -> u32 {
    let Some(r) = remap else {
        return x.plane;
    };
    let g = &ftl.geo;
    match x.kind {
        TxnKind::UserRead
        | TxnKind::MapRead
        | TxnKind::RmwRead
        | TxnKind::GcRead
        | TxnKind::ScanRead
        | TxnKind::Erase => r.plane(g.plane_of_ppa(x.ppa), g.block_of_ppa(x.ppa)),
        TxnKind::UserWrite | TxnKind::MapWrite => {
            r.plane(x.plane, ftl.next_block(x.plane, Stream::User))
        }
        TxnKind::GcWrite | TxnKind::Copyback => {
            r.plane(x.plane, ftl.next_block(x.plane, Stream::Gc))
        }
    }
}

/// What a partner search picked on one die.
pub(crate) struct Picked {
    txns: [u32; MAX_PLANES],
    pub(crate) n: usize,
    /// The program had to start at the lagging plane's offset (and may have found none).
    aligned: bool,
    /// Planes of the die taken (bit per plane), and the offset of the first pick.
    used: u32,
    offset0: u32,
}

/// How one scan of a die queue looks for partners: fixed for the scan.
struct ScanRules {
    q: DieQueue,
    rule: Multiplane,
    /// Partners may join (the multi-plane rule allows it for this queue).
    multi: bool,
    /// In-order user queue: only its head may start; partners must be the same kind.
    fifo: bool,
    remapped: bool,
    /// A user/mapping write's fate depends on its plane only (the plane's write frontier
    /// gives its offset and room): once a plane is turned down, the rest of its writes
    /// would be too, and with every plane picked or turned down the scan can stop (the
    /// write queue holds nothing a scan drops or forwards).
    by_plane: bool,
    /// The read queues hold only reads (user, mapping and read-modify-write) unless dies
    /// are in order (writes join the read queue) or blocks are remapped: read counters.
    by_offset: bool,
    ppd: u32,
    all_planes: u32,
    /// The stream a counted write queue programs.
    write_class: Option<Stream>,
    /// Same-offset programs: the lagging plane's offset the operation must start at.
    target: Option<u32>,
}

impl<Q: DriveQueue> Ssd<Q> {
    /// Queue transaction `t` in class `q` and let its die start if it is idle.
    pub(crate) fn enqueue(&mut self, now: Ps, t: u32, q: DieQueue) {
        let q = self.tsu.order.queue_of(q);
        let die = self.queue_on_die(now, t, q);
        self.try_dispatch(now, die);
    }

    /// Put transaction `t` at the back of queue `q` of the die it runs on; returns the die.
    #[inline]
    pub(crate) fn queue_on_die(&mut self, now: Ps, t: u32, q: DieQueue) -> usize {
        let die = self
            .ftl
            .geo
            .die_of_plane(exec_plane(&self.tsu.remap, &self.ftl, &self.txns[t]))
            as usize;
        if self.tsu.record_queue_times {
            // Latency breakdown and issue order: when each transaction entered its die queue.
            let len = self.txns.len();
            self.tsu.mark_queued(t, now, len);
        }
        self.tsu.queues[die][q.idx()].push_back(self.txns.items(), t);
        if let Some(class) = self.tsu.write_offsets.class(q) {
            let local = self.txns[t].plane % self.ftl.geo.planes_per_die;
            self.tsu.write_offsets.add(die, class, local, 1);
        }
        if self.tsu.read_offsets.counts_queue(q) {
            // A queued read's plane and page never change.
            let x = &self.txns[t];
            let g = &self.ftl.geo;
            self.tsu.read_offsets.add(
                die,
                q,
                x.plane % g.planes_per_die,
                x.ppa % g.pages_per_block,
            );
        }
        die
    }

    /// A block of some plane became free (an erase ended). Writes waiting for room in that
    /// plane wait on the die their next block runs on: its own die, which ran the erase and
    /// looks at its queues next, unless blocks are remapped. Then they may wait on any die, so
    /// every idle die with transactions queued looks again (remapped runs only).
    pub(crate) fn wake_after_erase(&mut self, now: Ps) {
        if self.tsu.remap.is_none() {
            return;
        }
        for d in 0..self.tsu.dies.len() {
            if self.tsu.dies[d].phase == Phase::Idle
                && self.tsu.queues[d].iter().any(|l| l.head != NONE)
            {
                self.try_dispatch(now, d);
            }
        }
    }

    /// If the die is idle, start its next operation.
    pub(crate) fn try_dispatch(&mut self, now: Ps, die: usize) {
        self.dispatch_scan(now, die);
        // Only with a block remap: dies that were handed transactions by the scan.
        while let Some(d) = self.tsu.forwarded.pop() {
            self.try_dispatch(now, d as usize);
        }
    }

    /// Whether the die serves its GC queues first now ([`GcShare`]).
    fn gc_first(&self, die: usize) -> bool {
        let q = &self.tsu.queues[die];
        let user_empty =
            q[DieQueue::Read.idx()].head == NONE && q[DieQueue::Write.idx()].head == NONE;
        let ppd = self.ftl.geo.planes_per_die;
        let p0 = die as u32 * ppd;
        self.tsu
            .gc_share
            .gc_first(self.tsu.dies[die].gc_streak, user_empty, || {
                (p0..p0 + ppd).any(|p| self.ftl.gc_urgent(p))
            })
    }

    /// An idle die picks the first queue in its order that has an executable transaction,
    /// with its partners.
    fn dispatch_scan(&mut self, now: Ps, die: usize) {
        if self.tsu.dies[die].phase != Phase::Idle {
            // The preemption point: a busy die's program or erase may yield to a read.
            if self.tsu.suspend.enabled() {
                self.try_suspend(now, die);
            }
            return;
        }
        if self.tsu.suspend.is_parked(die) {
            return self.dispatch_suspended(now, die);
        }
        // Block re-entry while scanning: dropping a stale GC move can enqueue an erase here.
        self.tsu.dies[die].phase = Phase::Dispatching;
        let mut dropped = false;
        let gc_first = self.gc_first(die);
        let order = self
            .tsu
            .order
            .scan_order(gc_first, &self.tsu.queues[die], &self.tsu.queued_at);
        for q in order {
            if self.tsu.queues[die][q.idx()].head == NONE {
                continue;
            }
            let mut p = self.scan_queue::<false>(now, die, q, &mut dropped, true);
            if p.n == 0 && p.aligned {
                // The lagging plane's writes cannot start (or wait beyond the scan): any.
                p = self.scan_queue::<false>(now, die, q, &mut dropped, false);
            }
            if p.n > 0 {
                self.start_op(now, die, &p);
                return;
            }
        }
        self.tsu.dies[die].phase = Phase::Idle;
        if dropped {
            self.try_dispatch(now, die);
        }
    }

    /// Look down queue `q` of `die` for the transactions its next operation runs: the first
    /// executable one and same-kind partners at its offset on other planes. Stale GC moves
    /// found on the way are dropped (`dropped`), remapped ones forwarded. `SUSPENDED`: only
    /// reads that may run on a suspended die are picked. `align`: same-offset programs start
    /// on the plane that is behind (multiplane.rs).
    #[inline(always)]
    pub(crate) fn scan_queue<const SUSPENDED: bool>(
        &mut self,
        now: Ps,
        die: usize,
        q: DieQueue,
        dropped: &mut bool,
        align: bool,
    ) -> Picked {
        let s = self.scan_rules(die, q, align);
        let mut picked = Picked {
            txns: [NONE; MAX_PLANES],
            n: 0,
            aligned: s.target.is_some(),
            used: 0,
            offset0: 0,
        };
        let mut refused = 0u32;
        let mut prev = NONE;
        let mut cur = self.tsu.queues[die][q.idx()].head;
        let mut scanned = 0;
        while cur != NONE && scanned < SCAN_LIMIT {
            if s.by_plane && (picked.used | refused) == s.all_planes {
                break;
            }
            scanned += 1;
            let x = self.txns[cur];
            let next = x.next;
            if x.kind.moves_gc_page() && !self.ftl.is_current(x.lpa, x.ppa) {
                // The page was overwritten since GC chose it: nothing to move.
                self.drop_stale_move(now, die, &s, prev, cur);
                *dropped = true;
                cur = next;
                continue;
            }
            if s.fifo && picked.n == 0 && scanned > 1 {
                break;
            }
            let exec = exec_plane(&self.tsu.remap, &self.ftl, &x);
            if s.remapped && self.ftl.geo.die_of_plane(exec) as usize != die {
                self.forward_remapped(die, q, prev, cur, exec);
                cur = next;
                continue;
            }
            let local = exec % s.ppd;
            let offset = if s.rule == Multiplane::SameOffset {
                plane_offset(&self.ftl, &x)
            } else {
                0
            };
            if self.may_start::<SUSPENDED>(die, &s, &picked, cur, &x, local, offset) {
                self.pick(die, &s, &mut picked, prev, cur, local, offset);
                if !s.multi || picked.n == s.ppd as usize {
                    break;
                }
                // Only reads can join a read, at its offset; none waits: the rest of the
                // scan would turn every transaction down and change nothing.
                if s.by_offset
                    && next != NONE
                    && !self.read_partner_possible(die, q, picked.used, picked.offset0)
                {
                    break;
                }
            } else {
                refused |= 1 << local;
                prev = cur;
            }
            cur = next;
        }
        picked
    }

    /// The rules of one scan of queue `q` of `die` ([`ScanRules`]).
    #[inline(always)]
    fn scan_rules(&self, die: usize, q: DieQueue, align: bool) -> ScanRules {
        let rule = self.tsu.rule;
        let fifo = self.tsu.order.in_order(q);
        let remapped = self.tsu.remap.is_some();
        let ppd = self.ftl.geo.planes_per_die;
        let write_class = self.tsu.write_offsets.class(q);
        // Same-offset programs: start on the plane whose frontier is behind (multiplane.rs).
        let target = match write_class {
            Some(stream) if align && !fifo && !remapped && rule == Multiplane::SameOffset => {
                let ftl = &self.ftl;
                self.tsu
                    .write_offsets
                    .target(ftl, die, stream, |p| ftl.can_allocate(p, stream))
            }
            _ => None,
        };
        ScanRules {
            rule,
            multi: match rule {
                Multiplane::SameOffset => true,
                Multiplane::Any => q != DieQueue::Erase,
                Multiplane::Off => false,
            },
            fifo,
            remapped,
            by_plane: q == DieQueue::Write && !fifo && !remapped,
            by_offset: self.tsu.read_offsets.counts_queue(q),
            ppd,
            all_planes: (1u32 << ppd) - 1,
            q,
            write_class,
            target,
        }
    }

    /// A GC move whose page was overwritten since GC chose it leaves queue `s.q` of `die`
    /// (after `prev`) undone.
    #[inline(always)]
    fn drop_stale_move(&mut self, now: Ps, die: usize, s: &ScanRules, prev: u32, cur: u32) {
        let q = s.q;
        self.tsu.queues[die][q.idx()].remove(self.txns.items(), prev, cur);
        debug_assert!(q > DieQueue::Read, "GC moves wait in their own queues");
        if let Some(class) = s.write_class {
            let local = self.txns[cur].plane % self.ftl.geo.planes_per_die;
            self.tsu.write_offsets.add(die, class, local, -1);
        }
        self.gc_move_dropped(now, cur);
    }

    /// A transaction remapped onto another die (its write frontier moved to a remapped block
    /// since it was queued) leaves queue `q` of `die`: the controller sends it there.
    #[inline(always)]
    fn forward_remapped(&mut self, die: usize, q: DieQueue, prev: u32, cur: u32, exec: u32) {
        debug_assert!(
            !self.tsu.read_offsets.enabled(),
            "kept only without a remap"
        );
        self.tsu.queues[die][q.idx()].remove(self.txns.items(), prev, cur);
        let to = self.ftl.geo.die_of_plane(exec);
        self.tsu.queues[to as usize][q.idx()].push_back(self.txns.items(), cur);
        self.tsu.forwarded.push(to);
    }

    /// Whether transaction `cur` (`x`, on plane `local` of `die` at `offset`) may join what
    /// the scan picked so far: same kind in order, eligible on a suspended die, a free plane,
    /// the picked offset (or the lagging plane's), room for its page; a global copyback GC
    /// read takes its destination's dBUF slot here (last: only if everything else holds).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn may_start<const SUSPENDED: bool>(
        &mut self,
        die: usize,
        s: &ScanRules,
        p: &Picked,
        cur: u32,
        x: &Txn,
        local: u32,
        offset: u32,
    ) -> bool {
        let same_kind =
            !s.fifo || p.n == 0 || x.kind.writes() == self.txns[p.txns[0]].kind.writes();
        same_kind
            && (!SUSPENDED || self.tsu.suspend.eligible(x.kind))
            && p.used & (1 << local) == 0
            && (p.n == 0 || offset == p.offset0)
            && (p.n > 0 || s.target.is_none_or(|o| o == offset))
            && match x.kind {
                TxnKind::UserWrite | TxnKind::MapWrite => {
                    self.ftl.can_allocate(x.plane, Stream::User)
                }
                TxnKind::GcWrite | TxnKind::Copyback => self.ftl.can_allocate(x.plane, Stream::Gc),
                TxnKind::GcRead => self.dbuf_room(die) > p.n as u32,
                _ => true,
            }
            && (x.kind != TxnKind::GcRead || self.claim_destination_slot(cur))
    }

    /// Take `cur` (after `prev` in queue `s.q` of `die`) into the operation.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pick(
        &mut self,
        die: usize,
        s: &ScanRules,
        p: &mut Picked,
        prev: u32,
        cur: u32,
        local: u32,
        offset: u32,
    ) {
        self.tsu.queues[die][s.q.idx()].remove(self.txns.items(), prev, cur);
        if let Some(class) = s.write_class {
            self.tsu.write_offsets.add(die, class, local, -1);
        }
        if s.by_offset {
            self.tsu.read_offsets.remove(die, s.q, local, offset);
        }
        p.txns[p.n] = cur;
        if p.n == 0 {
            p.offset0 = offset;
        }
        p.n += 1;
        p.used |= 1 << local;
    }

    /// [`ReadOffsets::partner_possible`], checked against the queue itself in debug builds.
    #[inline]
    fn read_partner_possible(&self, die: usize, q: DieQueue, used: u32, offset: u32) -> bool {
        let possible = self.tsu.read_offsets.partner_possible(die, q, used, offset);
        debug_assert!(
            possible || {
                let ppd = self.ftl.geo.planes_per_die;
                let mut t = self.tsu.queues[die][q.idx()].head;
                let mut none = true;
                while t != NONE {
                    let x = &self.txns[t];
                    none &= used & (1 << (x.plane % ppd)) != 0
                        || x.ppa % self.ftl.geo.pages_per_block != offset;
                    t = x.next;
                }
                none
            }
        );
        possible
    }

    /// Start the die's operation on `p`: writes get their physical page now, when the die is
    /// ready to program it.
    pub(crate) fn start_op(&mut self, now: Ps, die: usize, p: &Picked) {
        let picked = &p.txns[..p.n];
        let kind = self.txns[picked[0]].kind;
        let op = kind.flash_op();
        self.tsu.dies[die].phase = Phase::Command;
        let mut bytes = 0u32;
        for &t in picked {
            let x = self.txns[t];
            let ppa = match x.kind {
                TxnKind::UserWrite => {
                    let lpa = x.lpa as u64;
                    let ppa = self.ftl.write_to(lpa, x.plane);
                    self.cache.program_started(&x);
                    self.cmt_insert(now, lpa, true);
                    self.maybe_gc(now, x.plane, true);
                    ppa
                }
                TxnKind::MapWrite => {
                    let ppa = self.ftl.write_translation_page(x.lpa);
                    self.maybe_gc(now, x.plane, true);
                    ppa
                }
                TxnKind::GcWrite | TxnKind::Copyback => self.place_gc_page(now, &x),
                _ => x.ppa,
            };
            self.txns[t].ppa = ppa;
            bytes += x.bytes;
        }
        self.flash.started(op, picked.len());
        let d = &mut self.tsu.dies[die];
        d.phase = Phase::Command;
        d.op = op;
        d.n = picked.len() as u8;
        // The whole array (unused slots hold NONE): a fixed-size copy, not a call.
        d.txns = p.txns;
        d.bytes = bytes;
        d.started = now;
        d.suspends = 0;
        if matches!(kind, TxnKind::GcRead | TxnKind::ScanRead) && self.datapath.global_copyback() {
            // The GC reads take source dBUF slots; a status-scan read may share their
            // multi-plane read and takes none.
            let gc = picked
                .iter()
                .filter(|&&t| self.txns[t].kind == TxnKind::GcRead)
                .count() as u32;
            let fc = self.fc_of_die(die as u32);
            self.datapath.take_source_dbuf(fc, gc);
        }
        let d = &mut self.tsu.dies[die];
        d.gc_streak = if kind.is_background() {
            d.gc_streak.saturating_add(1)
        } else {
            0
        };
        if self.datapath.controller_on() {
            for &t in picked {
                if let Some(c) = self.txns[t].kind.breakdown_class() {
                    let q = self.tsu.queued_at(t, now);
                    self.datapath.queued(c, now.saturating_sub(q));
                }
            }
        }
        if op == FlashOp::Program {
            if let Some(end) = self.datapath.stage_program(now, kind, picked, &self.txns) {
                self.q.schedule(
                    end,
                    super::datapath::DataPathEvent::StageDone { die: die as u32 },
                );
                return;
            }
        }
        self.submit_command(now, die);
    }

    /// Hand a die's operation (command, and program data) to the interconnect.
    pub(crate) fn submit_command(&mut self, now: Ps, die: usize) {
        self.tsu.dies[die].stage_end = now;
        let d = &self.tsu.dies[die];
        let (op, bytes, n) = (d.op, d.bytes, d.n as u32);
        let chip = self.ftl.geo.chip_of_die(die as u32);
        // Programs carry their data with the command; reads send data after tR.
        let payload = if op == FlashOp::Program { bytes } else { 0 };
        self.net.submit(
            now,
            Transfer {
                die: die as u32,
                chip,
                commands: 1,
                command_ps: self.tsu.timing.command_time(op, n),
                bytes: payload,
            },
            &mut self.q,
        );
    }

    fn mark_conflict(&mut self, die: usize) {
        let d = self.tsu.dies[die];
        for &t in d.current() {
            if let Role::Request(r) = self.txns[t].role {
                self.hil.mark_conflict(r);
            }
        }
    }

    /// A transfer of `die`'s operation ended (`conflict`: it waited for its FC or path).
    pub fn on_transfer_done(&mut self, now: Ps, die: u32, conflict: bool) {
        let die = die as usize;
        if conflict {
            self.mark_conflict(die);
        }
        let d = &mut self.tsu.dies[die];
        match d.phase {
            Phase::Command => {
                if d.op == FlashOp::Program
                    && self.cfg.ftl.write_completion == WriteCompletion::Transfer
                {
                    self.ack_writes(now, die);
                }
                if self.tsu.dies[die].op == FlashOp::Program {
                    self.gc_writes_left_dbuf(now, die);
                }
                let d = &mut self.tsu.dies[die];
                d.phase = Phase::Array;
                let timing = &self.tsu.timing;
                let t = if timing.by_page_type() {
                    // TLC page types (dSSD Table 1): the slowest page of the operation.
                    let ppb = self.ftl.geo.pages_per_block;
                    let txns = &self.txns;
                    timing.array_time_at(d.op, d.current().iter().map(|&t| txns[t].ppa % ppb))
                } else {
                    timing.array_time(d.op)
                };
                d.array_ps = t;
                d.array_due = now + t;
                let gen = d.gen;
                self.q.schedule(
                    now + t,
                    TsuEvent::ArrayDone {
                        die: die as u32,
                        gen,
                    },
                );
                if self.tsu.suspend.enabled() {
                    // Reads that came while the command and data were on the channel (or
                    // that the die's order put behind this program or erase) may suspend it.
                    self.try_suspend(now, die);
                }
            }
            Phase::DataOut => self.finish_op(now, die),
            p => unreachable!("transfer done in phase {p:?}"),
        }
    }

    /// SSDsim's write completion: the host is told as soon as the data is in the chip.
    fn ack_writes(&mut self, now: Ps, die: usize) {
        let d = self.tsu.dies[die];
        for &t in d.current() {
            let x = self.txns[t];
            if let (TxnKind::UserWrite, Role::Request(r)) = (x.kind, x.role) {
                self.txns[t].role = Role::Acked;
                self.request_pages_done(now, r, 1);
            }
        }
    }

    /// A program's data is in its chip: its global copyback pages leave the destination dBUF.
    fn gc_writes_left_dbuf(&mut self, now: Ps, die: usize) {
        if !self.datapath.global_copyback() {
            return;
        }
        let d = &self.tsu.dies[die];
        let k = d
            .current()
            .iter()
            .filter(|&&t| self.txns[t].kind == TxnKind::GcWrite)
            .count() as u32;
        if k > 0 {
            let fc = self.fc_of_die(die as u32);
            self.dbuf_release(now, fc, k);
        }
    }

    pub fn on_tsu_event(&mut self, now: Ps, ev: TsuEvent) {
        let (die, gen) = match ev {
            TsuEvent::ArrayDone { die, gen } => (die as usize, gen),
            TsuEvent::Suspended { die } => return self.on_suspended(now, die as usize),
        };
        let d = &mut self.tsu.dies[die];
        if gen != d.gen {
            // The completion of an operation that was suspended since: its resume scheduled
            // the one that counts.
            return;
        }
        if d.op == FlashOp::Read {
            d.phase = Phase::DataOut;
            let t = Transfer {
                die: die as u32,
                chip: self.ftl.geo.chip_of_die(die as u32),
                commands: 0,
                command_ps: 0,
                bytes: d.bytes,
            };
            self.net.submit(now, t, &mut self.q);
        } else {
            self.finish_op(now, die);
        }
    }

    fn finish_op(&mut self, now: Ps, die: usize) {
        let d = self.tsu.dies[die];
        if self.datapath.controller_on() {
            for &t in d.current() {
                let k = self.txns[t].kind;
                if let Some(c) = k.breakdown_class() {
                    self.datapath.on_die(
                        c,
                        now - d.stage_end,
                        matches!(k, TxnKind::UserWrite | TxnKind::GcWrite | TxnKind::Copyback),
                    );
                }
            }
        }
        if d.op == FlashOp::Read && self.datapath.controller_on() {
            let fc = self.fc_of_die(die as u32);
            for &t in d.current() {
                self.move_read(now, t, fc);
            }
        } else {
            for &t in d.current() {
                self.complete_txn(now, t);
            }
        }
        let d = &mut self.tsu.dies[die];
        d.busy_time += now - d.started;
        d.array_time += d.array_ps;
        d.phase = Phase::Idle;
        d.n = 0;
        self.try_dispatch(now, die);
    }
}

#[cfg(test)]
mod tests;
