//! What moves through the drive: host requests (NVMe commands) and the page-sized flash
//! transactions they become, with the drive's own traffic (destage, mapping, GC, scans).
//! Both are `Copy` records in slabs ([`crate::engine::Slab`]), linked into queues through
//! their `next` fields, so the steady state allocates nothing.

use crate::engine::{Linked, NONE};
use crate::flash::FlashOp;
use crate::time::Ps;

/// A die's queues, by scheduling class (the die scheduler's, `ssd/tsu`; its order decides
/// which it serves first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DieQueue {
    MapRead,
    Read,
    Write,
    GcRead,
    GcWrite,
    Erase,
}

impl DieQueue {
    /// How many there are (a die's queues are an array indexed by [`DieQueue::idx`]).
    pub const COUNT: usize = 6;

    /// Its index in a die's array of queues.
    #[inline(always)]
    pub fn idx(self) -> usize {
        self as usize
    }
}

/// Latency breakdown classes (dSSD Fig. 9): user page reads, user page programs, GC moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Read,
    Write,
    Gc,
}

impl Class {
    pub const COUNT: usize = 3;

    /// Its index in per-class tables.
    #[inline(always)]
    pub fn idx(self) -> usize {
        self as usize
    }
}

/// Whom a transaction works for, and what it carries for them: one role per transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The drive's own traffic with nothing attached (mapping, GC, erases, status scans).
    Drive,
    /// A page of host request `id` (written through, or read).
    Request(u32),
    /// A user write already acknowledged to its request when its data reached the chip
    /// (`ftl.write_completion = "transfer"`): its program completes nothing more.
    Acked,
    /// Operation `i` of the probe harness (`crate::sim::probe`).
    Probe(u32),
    /// A program of a buffered page (a destage), holding `sectors` against the write policy's
    /// back-pressure until it ends (0: none counted).
    Destage { sectors: u32 },
    /// A read a write waits for: a read-modify-write's read, or the merge read of a
    /// translation page's write-back; transaction `write` goes to its die queue after it.
    Precedes { write: u32 },
    /// A GC read whose destination plane was chosen when it was dispatched or left its FC
    /// (global copyback).
    GcTo { plane: u32 },
    /// A GC write: the plane of its victim (its own `plane` is the destination, which global
    /// free-block selection may place elsewhere).
    GcFrom { plane: u32 },
}

/// Who a transaction works for, and so which queue, flash operation and completion it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnKind {
    UserRead,
    UserWrite,
    MapRead,
    MapWrite,
    /// Read of the sectors a partial-page write does not cover (read-modify-write).
    RmwRead,
    GcRead,
    GcWrite,
    Copyback,
    Erase,
    /// A page read for software superblock management's wear status (`ftl.status_scan_blocks`).
    ScanRead,
}

impl TxnKind {
    /// The flash operation a transaction of this kind runs.
    #[inline]
    pub fn flash_op(self) -> FlashOp {
        match self {
            TxnKind::UserRead
            | TxnKind::MapRead
            | TxnKind::RmwRead
            | TxnKind::GcRead
            | TxnKind::ScanRead => FlashOp::Read,
            TxnKind::UserWrite | TxnKind::MapWrite | TxnKind::GcWrite => FlashOp::Program,
            TxnKind::Copyback => FlashOp::Copyback,
            TxnKind::Erase => FlashOp::Erase,
        }
    }

    /// Whether it programs a page (its place is chosen when its die starts it).
    #[inline]
    pub fn writes(self) -> bool {
        matches!(
            self,
            TxnKind::UserWrite | TxnKind::MapWrite | TxnKind::GcWrite | TxnKind::Copyback
        )
    }

    /// A GC page move (its page may have been overwritten since GC chose it).
    #[inline]
    pub fn moves_gc_page(self) -> bool {
        matches!(self, TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Copyback)
    }

    /// Background work (GC, erases, status scans): what `tiny-tail` counts.
    #[inline]
    pub fn is_background(self) -> bool {
        matches!(
            self,
            TxnKind::GcRead
                | TxnKind::GcWrite
                | TxnKind::Copyback
                | TxnKind::Erase
                | TxnKind::ScanRead
        )
    }

    /// Latency breakdown class (dSSD Fig. 9): user page reads, user page programs, GC moves.
    #[inline]
    pub fn breakdown_class(self) -> Option<Class> {
        match self {
            TxnKind::UserRead => Some(Class::Read),
            TxnKind::UserWrite => Some(Class::Write),
            TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Copyback => Some(Class::Gc),
            _ => None,
        }
    }
}

/// One page-sized flash transaction.
#[derive(Clone, Copy, Debug)]
pub struct Txn {
    pub kind: TxnKind,
    pub role: Role,
    /// Logical page; for GC moves the reverse-map tag; for mapping traffic the translation page.
    pub lpa: u32,
    /// Physical page read (reads, GC source) or written (after dispatch).
    pub ppa: u32,
    /// Plane the transaction executes on.
    pub plane: u32,
    /// Bytes moved over the interconnect for this page.
    pub bytes: u32,
    /// Next transaction in a die queue or waiting list.
    pub next: u32,
}

impl Txn {
    pub fn new(kind: TxnKind, role: Role, lpa: u32, ppa: u32, plane: u32, bytes: u32) -> Self {
        Self {
            kind,
            role,
            lpa,
            ppa,
            plane,
            bytes,
            next: NONE,
        }
    }

    /// The host request it is a page of, if any.
    #[inline]
    pub fn request(&self) -> Option<u32> {
        match self.role {
            Role::Request(r) => Some(r),
            _ => None,
        }
    }

    /// The plane a GC move's victim is in: a GC write records it in its role ([`Role::GcFrom`]).
    #[inline]
    pub fn gc_source_plane(&self) -> u32 {
        match self.role {
            Role::GcFrom { plane } => plane,
            _ => self.plane,
        }
    }

    /// The destination plane chosen for a global copyback GC read, if chosen yet.
    #[inline]
    pub fn gc_destination(&self) -> Option<u32> {
        match self.role {
            Role::GcTo { plane } => Some(plane),
            _ => None,
        }
    }
}

/// Records linked into queues through their `next` field.
macro_rules! linked {
    ($($t:ty),*) => {$(
        impl Linked for $t {
            #[inline(always)]
            fn next(&self) -> u32 {
                self.next
            }
            #[inline(always)]
            fn set_next(&mut self, n: u32) {
                self.next = n;
            }
        }
    )*};
}

linked!(Txn, Request);

/// One host request (an NVMe command) from its submission to its completion.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub flow: u16,
    pub is_read: bool,
    pub conflict: bool,
    /// In use (not on the free list): guards against completing a request twice.
    pub live: bool,
    /// Host arrival, and entry into the submission queue.
    pub arrival: Ps,
    pub enqueued: Ps,
    /// Byte offset in its flow's share of the logical space.
    pub offset: u64,
    pub size: u32,
    /// Pages not yet done.
    pub pending: u32,
    /// Writes waiting for buffer space: next page to buffer.
    pub next_page: u32,
    /// Pages a DRAM movement in flight completes (cache hits, or a buffered write).
    pub dram_pages: u32,
    /// Intrusive list link (submission queue, buffer wait list, free list).
    pub next: u32,
}

/// Counters of flash commands.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FlashCounters {
    pub read_commands: u64,
    pub program_commands: u64,
    pub erase_commands: u64,
    pub copyback_commands: u64,
    pub multiplane_commands: u64,
    pub page_reads: u64,
    pub page_programs: u64,
    pub mapping_reads: u64,
    pub mapping_writes: u64,
    pub rmw_reads: u64,
    pub gc_reads: u64,
    pub gc_writes: u64,
    /// Wear-status page reads (`ftl.status_scan_blocks`; absent from reports without them).
    #[serde(skip_serializing_if = "is_zero")]
    pub scan_reads: u64,
    /// Programs and erases suspended for reads (`flash.suspend`; absent without any), the
    /// time they spent suspended (suspend command to resume command), and the page reads
    /// served while they were.
    #[serde(skip_serializing_if = "is_zero")]
    pub suspensions: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub suspended_ns: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub reads_during_suspend: u64,
    /// Suspended operations resumed (each exactly once: equal to `suspensions` after a run).
    #[serde(skip_serializing_if = "is_zero")]
    pub resumes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FlashCounters {
    /// A command of `op` on `pages` planes started.
    #[inline]
    pub fn started(&mut self, op: FlashOp, pages: usize) {
        match op {
            FlashOp::Read => {
                self.read_commands += 1;
                self.page_reads += pages as u64;
            }
            FlashOp::Program => {
                self.program_commands += 1;
                self.page_programs += pages as u64;
            }
            FlashOp::Erase => self.erase_commands += 1,
            FlashOp::Copyback => {
                self.copyback_commands += 1;
                self.page_reads += pages as u64;
                self.page_programs += pages as u64;
            }
        }
        if pages > 1 {
            self.multiplane_commands += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_keeps_its_32_bytes() {
        // The role (a tag and one index) replaced a request field and a link field.
        assert_eq!(std::mem::size_of::<Role>(), 8);
        assert_eq!(std::mem::size_of::<Txn>(), 32);
    }
}
