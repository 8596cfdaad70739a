//! Program/erase suspension (`flash.suspend`): a read that finds its die in the array phase of
//! a program or erase suspends it, is served, and the operation resumes where it stopped
//! (Wu & He, FAST '12; real NAND stops at the end of a program-verify or erase step).
//!
//! ```text
//! program/erase in its array phase ─(eligible read waiting)─▶ suspend command
//!   ─ suspend_ns ─▶ SUSPENDED: the die serves the eligible reads waiting for it, one
//!   (multi-plane) read at a time ─(none left)─▶ resume command ─ resume_ns + remaining ─▶ done
//! ```
//! Choices (docs/MODEL.md): the die suspends only a whole operation (a multi-plane program
//! or erase as one); only reads may run while it is suspended, first those of the mapping and
//! user read queues (and GC's with `suspend_reads = "all"`), in the die's usual order, with
//! partners; the operation resumes when none is waiting, and takes at most `max_suspends`
//! suspensions; an operation that would end within the suspend latency is not suspended. The
//! suspended operation's own completion event is made stale by a generation number (the die's
//! `gen`), so only the event its resume schedules completes it. The array time counted for
//! it stays its full tPROG / tBERS; the die is busy from its start to the suspend taking
//! effect, and from the resume command to its end.

use super::{Die, Phase, Tsu, MAX_PLANES};
use crate::config::{FlashConfig, Suspend as Mode, SuspendReads};
use crate::engine::{Slab, NONE};
use crate::flash::FlashOp;
use crate::ssd::txn::{DieQueue, Txn, TxnKind};
use crate::time::{ns, Ps};

/// A suspended operation: the die's second operation slot.
#[derive(Clone, Copy, Debug)]
pub struct Parked {
    op: FlashOp,
    txns: [u32; MAX_PLANES],
    n: u8,
    bytes: u32,
    stage_end: Ps,
    /// Array time still to run when the suspension took effect.
    remaining: Ps,
    /// The operation's whole array time (counted when it ends).
    array_ps: Ps,
    /// Suspensions so far, this one included.
    suspends: u32,
    /// When the suspend command was given (for the time spent suspended).
    since: Ps,
}

/// The suspension policy and each die's suspended operation.
#[derive(Clone, Debug)]
pub struct Suspend {
    mode: Mode,
    suspend_ps: Ps,
    resume_ps: Ps,
    max: u32,
    reads: SuspendReads,
    parked: Vec<Option<Parked>>,
}

/// Queues a suspended die serves, in order: host reads, then GC's with `suspend_reads = "all"`.
const HOST_READS: [DieQueue; 2] = [DieQueue::MapRead, DieQueue::Read];
const ALL_READS: [DieQueue; 3] = [DieQueue::MapRead, DieQueue::Read, DieQueue::GcRead];

impl Suspend {
    pub fn new(f: &FlashConfig, dies: usize) -> Self {
        Self {
            mode: f.suspend,
            suspend_ps: ns(f.suspend_ns),
            resume_ps: ns(f.resume_ns),
            max: f.max_suspends,
            reads: f.suspend_reads,
            parked: if f.suspend == Mode::Off {
                Vec::new()
            } else {
                vec![None; dies]
            },
        }
    }

    #[inline(always)]
    pub fn enabled(&self) -> bool {
        self.mode != Mode::Off
    }

    /// Whether `die` holds a suspended operation.
    #[inline(always)]
    pub fn is_parked(&self, die: usize) -> bool {
        self.enabled() && self.parked[die].is_some()
    }

    /// Whether the die's current operation may be suspended now (by kind and count).
    fn may_suspend(&self, d: &Die, suspends: u32) -> bool {
        let kind = match d.op {
            FlashOp::Erase => true,
            FlashOp::Program => self.mode == Mode::ProgramErase,
            FlashOp::Read | FlashOp::Copyback => false,
        };
        kind && d.phase == Phase::Array && suspends < self.max
    }

    /// The read queues a suspended die serves.
    #[inline]
    pub fn read_queues(&self) -> &'static [DieQueue] {
        match self.reads {
            SuspendReads::Host => &HOST_READS,
            SuspendReads::All => &ALL_READS,
        }
    }

    /// Whether a transaction of `kind` may run on a suspended die (and so suspend one).
    #[inline]
    pub fn eligible(&self, kind: TxnKind) -> bool {
        match kind {
            TxnKind::UserRead | TxnKind::MapRead | TxnKind::RmwRead => true,
            TxnKind::GcRead | TxnKind::ScanRead => self.reads == SuspendReads::All,
            _ => false,
        }
    }
}

/// A suspended operation resumed ([`Tsu::resume`]): when its array operation ends, the
/// generation its completion carries, and when it was suspended.
#[derive(Clone, Copy, Debug)]
pub struct Resumed {
    pub end: Ps,
    pub gen: u16,
    pub since: Ps,
}

impl Tsu {
    /// A dispatch attempt found `die` busy: suspend its program or erase if an eligible read
    /// waits at the head of one of the die's read queues. Returns when the suspension takes
    /// effect (the die is parked from now on), or `None`.
    pub(crate) fn suspend_for_read(&mut self, now: Ps, die: usize, txns: &Slab<Txn>) -> Option<Ps> {
        let s = &self.suspend;
        let d = &self.dies[die];
        if s.parked[die].is_some() || !s.may_suspend(d, d.suspends) {
            return None;
        }
        // The operation stops at the next step boundary: one that would end by then runs on.
        let stop = now + s.suspend_ps;
        if d.array_due <= stop {
            return None;
        }
        let waiting = s.read_queues().iter().any(|&q| {
            let h = self.queues[die][q.idx()].head;
            h != NONE && s.eligible(txns[h].kind)
        });
        if !waiting {
            return None;
        }
        let d = &mut self.dies[die];
        let parked = Parked {
            op: d.op,
            txns: d.txns,
            n: d.n,
            bytes: d.bytes,
            stage_end: d.stage_end,
            remaining: d.array_due - stop,
            array_ps: d.array_ps,
            suspends: d.suspends + 1,
            since: now,
        };
        // Its completion event goes stale; the die is busy until the suspension takes effect.
        d.gen = d.gen.wrapping_add(1);
        d.busy_time += stop - d.started;
        d.phase = Phase::Suspending;
        d.n = 0;
        self.suspend.parked[die] = Some(parked);
        Some(stop)
    }

    /// The suspension of `die`'s operation took effect: the die may serve reads.
    pub(crate) fn suspension_took_effect(&mut self, die: usize) {
        debug_assert_eq!(self.dies[die].phase, Phase::Suspending);
        self.dies[die].phase = Phase::Idle;
    }

    /// No eligible read is left for the suspended die: its operation resumes now.
    pub(crate) fn resume(&mut self, now: Ps, die: usize) -> Resumed {
        let p = self.suspend.parked[die]
            .take()
            .expect("resume without a suspended operation");
        let end = now + self.suspend.resume_ps + p.remaining;
        let d = &mut self.dies[die];
        d.phase = Phase::Array;
        d.op = p.op;
        d.txns = p.txns;
        d.n = p.n;
        d.bytes = p.bytes;
        d.stage_end = p.stage_end;
        d.started = now;
        d.suspends = p.suspends;
        d.array_due = end;
        d.array_ps = p.array_ps;
        Resumed {
            end,
            gen: d.gen,
            since: p.since,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mode: Mode, reads: SuspendReads) -> Suspend {
        let f = FlashConfig {
            suspend: mode,
            suspend_reads: reads,
            ..FlashConfig::default()
        };
        Suspend::new(&f, 2)
    }

    #[test]
    fn which_reads_and_operations_may_suspend() {
        let host = policy(Mode::ProgramErase, SuspendReads::Host);
        assert!(host.eligible(TxnKind::UserRead) && host.eligible(TxnKind::RmwRead));
        assert!(!host.eligible(TxnKind::GcRead) && !host.eligible(TxnKind::UserWrite));
        assert_eq!(host.read_queues(), &HOST_READS);
        let all = policy(Mode::Erase, SuspendReads::All);
        assert!(all.eligible(TxnKind::GcRead) && all.eligible(TxnKind::ScanRead));
        assert_eq!(all.read_queues(), &ALL_READS);
        let mut d = Die::IDLE;
        d.phase = Phase::Array;
        d.op = FlashOp::Program;
        assert!(
            host.may_suspend(&d, 0) && !all.may_suspend(&d, 0),
            "erase-only mode"
        );
        d.op = FlashOp::Erase;
        assert!(
            all.may_suspend(&d, 3) && !all.may_suspend(&d, 4),
            "max_suspends = 4"
        );
        d.phase = Phase::Command;
        assert!(!all.may_suspend(&d, 0), "only in the array phase");
        assert!(!policy(Mode::Off, SuspendReads::All).enabled());
    }
}
