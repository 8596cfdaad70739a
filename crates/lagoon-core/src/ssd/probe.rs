//! Flash operations injected straight into the die queues, for exact-time tests
//! (`crate::sim::probe` runs them): no host, no mapping lookups.

use super::txn::{DieQueue, Role, TxnKind};
use super::{DriveQueue, Ssd};
use crate::engine::NONE;
use crate::time::Ps;

/// A flash operation injected directly at the die scheduler (for timing tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOp {
    /// Read one page at a physical page address.
    Read { ppa: u32 },
    /// Program one logical page (full page of data).
    Program { lpa: u32 },
    /// Erase a block (state is not changed; only timing is measured).
    Erase { plane: u32, block: u32 },
    /// Move one valid logical page as GC does (read + program, or copyback), along the
    /// configured path; completes when its program does. At most one per probe run.
    GcMove { lpa: u32 },
}

/// A probe run's operations and what became of them.
#[derive(Default)]
pub struct ProbeLog {
    pub ops: Vec<ProbeOp>,
    /// The die the last injection queued on.
    pub die: usize,
    /// (probe index, completion time), in completion order.
    pub done: Vec<(u32, Ps)>,
    /// GC moves (probe index) in injection order, and where their pages went.
    pub gc: Vec<u32>,
    pub gc_dest: Vec<u32>,
}

impl ProbeLog {
    /// A GC program finished: the oldest probe GC move, if any, is done (its page on `plane`).
    #[inline]
    pub fn gc_move_done(&mut self, now: Ps, plane: u32) {
        if !self.gc.is_empty() {
            let i = self.gc.remove(0);
            self.done.push((i, now));
            self.gc_dest.push(plane);
        }
    }
}

impl<Q: DriveQueue> Ssd<Q> {
    /// Queue probe operation `i` on its die (dispatch is the caller's).
    pub fn probe_inject(&mut self, now: Ps, i: usize) {
        let page = self.ftl.geo.page_bytes;
        let (t, q) = match self.probe.ops[i] {
            ProbeOp::Read { ppa } => {
                let plane = self.ftl.geo.plane_of_ppa(ppa);
                (
                    self.alloc_txn(
                        TxnKind::UserRead,
                        Role::Probe(i as u32),
                        0,
                        ppa,
                        plane,
                        page,
                    ),
                    DieQueue::Read,
                )
            }
            ProbeOp::Program { lpa } => {
                let plane = self.ftl.plane_of_lpa(lpa as u64);
                (
                    self.alloc_txn(
                        TxnKind::UserWrite,
                        Role::Probe(i as u32),
                        lpa,
                        NONE,
                        plane,
                        page,
                    ),
                    DieQueue::Write,
                )
            }
            ProbeOp::Erase { plane, block } => (
                self.alloc_txn(
                    TxnKind::Erase,
                    Role::Probe(i as u32),
                    NONE,
                    self.ftl.geo.ppa(plane, block, 0),
                    plane,
                    0,
                ),
                DieQueue::Erase,
            ),
            ProbeOp::GcMove { lpa } => {
                // A GC move of one valid page that belongs to no victim (no erase follows):
                // read + program (or copyback), along the configured path.
                let ppa = self.ftl.lookup(lpa as u64);
                let plane = self.ftl.geo.plane_of_ppa(ppa);
                let (kind, q, bytes) = if self.cfg.ftl.copyback {
                    (TxnKind::Copyback, DieQueue::GcWrite, 0)
                } else {
                    (TxnKind::GcRead, DieQueue::GcRead, page)
                };
                let t = self.alloc_txn(kind, Role::Drive, lpa, ppa, plane, bytes);
                self.gc.probe_move(t);
                (t, q)
            }
        };
        if matches!(self.probe.ops[i], ProbeOp::GcMove { .. }) {
            self.probe.gc.push(i as u32);
        }
        self.probe.die = self.queue_on_die(now, t, q);
    }
}
