//! The order in which an idle die looks at its queues (`ftl.die_scheduling`), and how much
//! of the die GC may take before user I/O (`ftl.gc_mode`, `ftl.gc_preemptible`): one trait,
//! [`DieOrder`], with an implementation per order, dispatched by enum on the hot path.
//!
//! - [`Priority`] (MQSim's out-of-order TSU): mapping reads, then reads before writes, any
//!   executable transaction in a queue.
//! - [`Fifo`]: user reads and writes share one queue served in arrival order (a device that
//!   cannot reorder, for host schedulers such as PIQ).
//! - [`IssueOrder`]: every queue, GC's included, by the time its oldest transaction was
//!   queued (SimpleSSD's PAL books dies in issue order).

use super::NQ;
use crate::config::{DieScheduling, FtlConfig, GcMode};
use crate::engine::{List, NONE};
use crate::ssd::txn::DieQueue;
use crate::time::Ps;

/// GC first (MQSim PRIORITY_OUT_OF_ORDER with non-preemptible GC): mapping reads, GC, then user.
pub const ORDER_GC_FIRST: [DieQueue; NQ] = [
    DieQueue::MapRead,
    DieQueue::GcRead,
    DieQueue::GcWrite,
    DieQueue::Erase,
    DieQueue::Read,
    DieQueue::Write,
];
/// User first (preemptible GC outside the hard threshold): reads before writes before GC.
pub const ORDER_USER_FIRST: [DieQueue; NQ] = [
    DieQueue::MapRead,
    DieQueue::Read,
    DieQueue::Write,
    DieQueue::GcRead,
    DieQueue::GcWrite,
    DieQueue::Erase,
];

/// A die-scheduling order.
pub trait DieOrder {
    /// The queue a transaction of class `q` joins.
    fn queue_of(&self, q: DieQueue) -> DieQueue {
        q
    }
    /// Whether only the head of queue `q` may start (its partners of the same kind).
    fn in_order(&self, _q: DieQueue) -> bool {
        false
    }
    /// Whether the order needs when each transaction was queued.
    fn needs_queue_times(&self) -> bool {
        false
    }
    /// The queues in the order an idle die scans them, GC first or not.
    fn scan_order(&self, gc_first: bool, queues: &[List; NQ], queued_at: &[Ps]) -> [DieQueue; NQ];
}

pub struct Priority;
pub struct Fifo;
pub struct IssueOrder;

impl DieOrder for Priority {
    #[inline]
    fn scan_order(&self, gc_first: bool, _: &[List; NQ], _: &[Ps]) -> [DieQueue; NQ] {
        if gc_first {
            ORDER_GC_FIRST
        } else {
            ORDER_USER_FIRST
        }
    }
}

impl DieOrder for Fifo {
    /// In-order dies: user writes share the read queue, so neither overtakes the other.
    #[inline]
    fn queue_of(&self, q: DieQueue) -> DieQueue {
        if q == DieQueue::Write {
            DieQueue::Read
        } else {
            q
        }
    }
    #[inline]
    fn in_order(&self, q: DieQueue) -> bool {
        q == DieQueue::Read
    }
    #[inline]
    fn scan_order(&self, gc_first: bool, q: &[List; NQ], t: &[Ps]) -> [DieQueue; NQ] {
        Priority.scan_order(gc_first, q, t)
    }
}

impl DieOrder for IssueOrder {
    fn needs_queue_times(&self) -> bool {
        true
    }
    /// The die's queues by the time their oldest transaction was queued (ties in user-first
    /// order); empty queues last. GC still goes first on a plane below the hard threshold.
    fn scan_order(&self, gc_first: bool, q: &[List; NQ], queued_at: &[Ps]) -> [DieQueue; NQ] {
        if gc_first {
            return ORDER_GC_FIRST;
        }
        let mut order = ORDER_USER_FIRST;
        order.sort_by_key(|&i| {
            let h = q[i.idx()].head;
            if h == NONE {
                Ps::MAX
            } else {
                queued_at[h as usize]
            }
        });
        order
    }
}

/// The drive's order (enum dispatch).
pub enum Order {
    Priority(Priority),
    Fifo(Fifo),
    IssueOrder(IssueOrder),
}

macro_rules! each {
    ($s:expr, $o:ident => $e:expr) => {
        match $s {
            Order::Priority($o) => $e,
            Order::Fifo($o) => $e,
            Order::IssueOrder($o) => $e,
        }
    };
}

impl Order {
    /// `ftl.die_scheduling`; issue order only where GC is neither preemptible nor partial
    /// (otherwise its GC share is priority's, and so is its order).
    pub fn new(f: &FtlConfig) -> Self {
        match f.die_scheduling {
            DieScheduling::Priority => Order::Priority(Priority),
            DieScheduling::Fifo => Order::Fifo(Fifo),
            DieScheduling::IssueOrder
                if matches!(f.gc_mode, GcMode::PerPlane | GcMode::Parallel)
                    && !f.gc_preemptible =>
            {
                Order::IssueOrder(IssueOrder)
            }
            DieScheduling::IssueOrder => Order::Priority(Priority),
        }
    }

    #[inline]
    pub fn is_issue_order(&self) -> bool {
        matches!(self, Order::IssueOrder(_))
    }
}

impl DieOrder for Order {
    #[inline]
    fn queue_of(&self, q: DieQueue) -> DieQueue {
        each!(self, o => o.queue_of(q))
    }
    #[inline]
    fn in_order(&self, q: DieQueue) -> bool {
        each!(self, o => o.in_order(q))
    }
    #[inline]
    fn needs_queue_times(&self) -> bool {
        each!(self, o => o.needs_queue_times())
    }
    #[inline]
    fn scan_order(&self, gc_first: bool, q: &[List; NQ], t: &[Ps]) -> [DieQueue; NQ] {
        each!(self, o => o.scan_order(gc_first, q, t))
    }
}

/// How much of a die GC takes while user I/O waits (`ftl.gc_mode`, `ftl.gc_preemptible`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcShare {
    /// Non-preemptible per-plane or parallel GC (not in issue order): GC first.
    First,
    /// Preemptive or preemptible GC, or issue order: GC first only on a plane below the
    /// hard threshold.
    WhenUrgent,
    /// Tiny-Tail (partial GC): after `ops` GC operations, one user operation.
    TinyTail { ops: u32 },
}

impl GcShare {
    pub fn new(f: &FtlConfig, issue_order: bool) -> Self {
        match f.gc_mode {
            GcMode::TinyTail => GcShare::TinyTail {
                ops: f.gc_partial_ops,
            },
            GcMode::Preemptive => GcShare::WhenUrgent,
            GcMode::PerPlane | GcMode::Parallel if !f.gc_preemptible && !issue_order => {
                GcShare::First
            }
            GcMode::PerPlane | GcMode::Parallel => GcShare::WhenUrgent,
        }
    }

    /// Whether the die serves GC first now: `streak` GC operations in a row, user queues
    /// empty or not, and whether a plane of the die is below the hard threshold (asked last).
    #[inline]
    pub fn gc_first(&self, streak: u32, user_empty: bool, urgent: impl FnOnce() -> bool) -> bool {
        match *self {
            GcShare::First => true,
            GcShare::TinyTail { ops } if streak < ops || user_empty => true,
            _ => urgent(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queues(heads: [u32; NQ]) -> [List; NQ] {
        heads.map(|h| List { head: h, tail: h })
    }

    #[test]
    fn priority_puts_gc_first_or_last() {
        let q = queues([NONE; NQ]);
        assert_eq!(Priority.scan_order(true, &q, &[]), ORDER_GC_FIRST);
        assert_eq!(Priority.scan_order(false, &q, &[]), ORDER_USER_FIRST);
    }

    #[test]
    fn fifo_dies_queue_writes_with_reads_in_order() {
        assert_eq!(Fifo.queue_of(DieQueue::Write), DieQueue::Read);
        assert_eq!(Fifo.queue_of(DieQueue::GcWrite), DieQueue::GcWrite);
        assert!(Fifo.in_order(DieQueue::Read) && !Fifo.in_order(DieQueue::GcRead));
    }

    #[test]
    fn issue_order_serves_the_oldest_queue_first_and_empty_ones_last() {
        // Heads: transaction i at queue i; GC read queued first, then the erase, then reads.
        let mut heads = [NONE; NQ];
        heads[DieQueue::Read.idx()] = 0;
        heads[DieQueue::GcRead.idx()] = 1;
        heads[DieQueue::Erase.idx()] = 2;
        let queued_at: Vec<Ps> = vec![30, 10, 20];
        let o = IssueOrder.scan_order(false, &queues(heads), &queued_at);
        assert_eq!(
            &o[..3],
            &[DieQueue::GcRead, DieQueue::Erase, DieQueue::Read]
        );
        // Empty queues keep user-first order among themselves.
        assert_eq!(
            &o[3..],
            &[DieQueue::MapRead, DieQueue::Write, DieQueue::GcWrite]
        );
        assert_eq!(
            IssueOrder.scan_order(true, &queues(heads), &queued_at),
            ORDER_GC_FIRST
        );
    }

    #[test]
    fn tiny_tail_lets_one_user_operation_through_after_its_gc_operations() {
        let s = GcShare::TinyTail { ops: 2 };
        let never = || false;
        assert!(s.gc_first(0, false, never));
        assert!(s.gc_first(1, false, never));
        assert!(!s.gc_first(2, false, never), "user I/O waits: its turn");
        assert!(s.gc_first(2, true, never), "no user I/O: GC goes on");
        assert!(s.gc_first(5, false, || true), "urgent plane");
        assert!(GcShare::First.gc_first(0, false, never));
        assert!(!GcShare::WhenUrgent.gc_first(0, true, never));
    }
}
