//! Program/erase suspension (`flash.suspend`, [`crate::ssd::tsu::suspend`] holds the policy and
//! the parked operations): a read that finds its die in the array phase of a program or erase
//! suspends it, the die serves the eligible reads waiting for it, and the operation resumes.
//!
//! ```text
//! try_suspend ── Tsu::suspend_for_read ─▶ Suspended event at the step boundary
//!   ─▶ on_suspended ─▶ dispatch_suspended (one multi-plane read at a time, die scheduler's scan)
//!   ─(no eligible read left)─▶ resume ── Tsu::resume ─▶ ArrayDone of the resumed operation
//! ```

use crate::ssd::tsu::TsuEvent;
use crate::ssd::{DriveQueue, Ssd};
use crate::time::{Ps, PS_PER_NS};

impl<Q: DriveQueue> Ssd<Q> {
    /// A dispatch attempt found `die` busy: its program or erase is suspended if an eligible
    /// read waits for it; the suspension takes effect at the operation's next step.
    pub(crate) fn try_suspend(&mut self, now: Ps, die: usize) {
        if let Some(stop) = self.tsu.suspend_for_read(now, die, &self.txns) {
            self.flash.suspensions += 1;
            self.q
                .schedule(stop, TsuEvent::Suspended { die: die as u32 });
        }
    }

    /// The suspension took effect: the die serves the reads waiting for it (or resumes).
    pub(crate) fn on_suspended(&mut self, now: Ps, die: usize) {
        self.tsu.suspension_took_effect(die);
        self.try_dispatch(now, die);
    }

    /// A die whose program or erase is suspended serves the eligible reads waiting for it,
    /// then resumes the operation.
    #[inline(never)]
    pub(crate) fn dispatch_suspended(&mut self, now: Ps, die: usize) {
        self.tsu.set_dispatching(die);
        let mut dropped = false;
        for &q in self.tsu.suspended_read_queues() {
            if !self.tsu.has_queued(die, q) {
                continue;
            }
            let p = self.scan_queue::<true>(now, die, q, &mut dropped, false);
            if p.n > 0 {
                self.flash.reads_during_suspend += p.n as u64;
                self.start_op(now, die, &p);
                return;
            }
        }
        self.resume(now, die);
    }

    /// No eligible read is left for the suspended die: its operation resumes, and ends after
    /// the resume latency and the array time it had left.
    fn resume(&mut self, now: Ps, die: usize) {
        let r = self.tsu.resume(now, die);
        self.flash.suspended_ns += (now - r.since) / PS_PER_NS;
        self.flash.resumes += 1;
        self.q.schedule(
            r.end,
            TsuEvent::ArrayDone {
                die: die as u32,
                gen: r.gen,
            },
        );
    }
}
