//! Garbage collection and static wear levelling as the drive runs them
//! (`ssd/ftl/gc.rs` holds GC's state): when a plane starts GC (`gc_threshold`, `gc_pacing`,
//! PaGC's whole-die start), its victim's page moves (read + program, or copyback), where a
//! moved page goes (its own plane, or dSSD §3's global free-block selection), and the erase
//! once the last move is done. The victim choice and the block state are the FTL's.
//!
//! ```text
//! a page placed (write flow, GC placement) ─▶ maybe_gc ─▶ collect: victim's valid pages
//!   ─▶ GcRead (or Copyback) ─▶ gc_read_done ─▶ GcWrite to gc_destination ─▶ place_gc_page
//!   ─▶ gc_write_done ─▶ gc_move_done ─(last move)─▶ Erase ─▶ erase_done ─▶ maybe_gc, static WL
//! a stale move found by the die scheduler's scan ─▶ gc_move_dropped ─▶ gc_move_done
//! ```

use crate::config::{GcMappingUpdate, GcMode, GcPacing};
use crate::engine::NONE;
use crate::ssd::ftl::{Stream, MAP_TAG};
use crate::ssd::txn::{DieQueue, Role, Txn, TxnKind};
use crate::ssd::{DriveQueue, Ssd};
use crate::time::Ps;

impl<Q: DriveQueue> Ssd<Q> {
    /// Start GC in `plane` if it is due; `write`: a page was just placed there (a host or
    /// mapping write, or a GC page from another plane). With `gc_pacing = "per-write"` only
    /// such a write starts a victim (SimpleSSD: GC is triggered inside a write and reclaims
    /// GCReclaimBlocks = 1 block), not the erase that ends the last one, unless the plane is
    /// below the hard threshold or too low for the next user write.
    pub(crate) fn maybe_gc(&mut self, now: Ps, plane: u32, write: bool) {
        if !self.ftl.gc_due(plane) {
            return;
        }
        if !write
            && self.cfg.ftl.gc_pacing == GcPacing::PerWrite
            && !self.ftl.gc_urgent(plane)
            && self.ftl.can_allocate(plane, Stream::User)
        {
            return;
        }
        if !self.start_plane_gc(now, plane) {
            return;
        }
        if self.cfg.ftl.gc_mode == GcMode::Parallel {
            // PaGC (dSSD §6.1, Shahidi et al. SC'16): the die's other planes collect at the
            // same time, so their GC reads and programs can go as multi-plane operations.
            let ppd = self.ftl.geo.planes_per_die;
            let p0 = plane / ppd * ppd;
            for p in p0..p0 + ppd {
                if p != plane && !self.ftl.gc_active(p) {
                    self.start_plane_gc(now, p);
                }
            }
        }
    }

    /// Choose a victim in `plane` and queue its page moves; false if none would free space.
    fn start_plane_gc(&mut self, now: Ps, plane: u32) -> bool {
        let Some(victim) = self.ftl.start_gc(plane) else {
            return false;
        };
        self.collect(now, plane, victim);
        true
    }

    /// Queue the page moves of `victim` (chosen by GC or static wear levelling), then its
    /// erase.
    fn collect(&mut self, now: Ps, plane: u32, victim: u32) {
        let moves = self.gc.start_victim(&self.ftl, plane, victim);
        let copyback = self.cfg.ftl.copyback;
        for &(ppa, tag) in &moves {
            let (kind, q, bytes) = if copyback {
                (TxnKind::Copyback, DieQueue::GcWrite, 0)
            } else {
                (TxnKind::GcRead, DieQueue::GcRead, self.ftl.geo.page_bytes)
            };
            let t = self.alloc_txn(kind, Role::Drive, tag, ppa, plane, bytes);
            self.gc.set_victim(t, victim);
            self.enqueue(now, t, q);
        }
        let none = moves.is_empty();
        self.gc.moved(moves);
        if none {
            self.issue_erase(now, plane, victim);
        }
    }

    /// Plane a GC page from `src` is written to ([`crate::ssd::ftl::gc::Gc::destination`],
    /// `ftl.gc_destination`).
    pub(crate) fn gc_destination(&mut self, src: u32) -> u32 {
        let mode = self.cfg.ftl.gc_destination;
        self.gc.destination(&mut self.ftl, src, mode)
    }

    /// A GC write to another plane was allocated (or dropped): its reservation ends.
    #[inline]
    pub(crate) fn gc_arrived(&mut self, x: &Txn) {
        if matches!(x.role, Role::GcFrom { plane } if plane != x.plane) {
            self.ftl.release_gc(x.plane);
        }
    }

    /// A GC move of a page that was overwritten since GC chose it leaves the die queue
    /// undone (dispatch found it stale): its destination's reservations end and its victim
    /// counts it as moved. `t` is freed here, where it always was (its slot's reuse order
    /// is part of the run).
    pub(crate) fn gc_move_dropped(&mut self, now: Ps, t: u32) {
        let x = &{ self.txns[t] };
        let victim = self.gc.victim(t);
        if x.kind == TxnKind::GcWrite && self.datapath.global_copyback() {
            let fc = self.fc_of_plane(x.plane);
            self.dbuf_release(now, fc, 1);
        }
        if let Role::GcTo { plane } = x.role {
            // Its destination was chosen at an earlier dispatch attempt.
            if plane != x.plane {
                self.ftl.release_gc(plane);
            }
        }
        self.free_txn(t);
        self.gc_arrived(x);
        self.gc_move_done(now, x.gc_source_plane(), victim);
    }

    /// A GC program (or copyback) is about to start: the page's new place, and the mapping
    /// update it costs (`ftl.gc_mapping_update`).
    pub(crate) fn place_gc_page(&mut self, now: Ps, x: &Txn) -> u32 {
        let ppa = self.ftl.relocate_to(x.lpa, x.ppa, x.plane);
        self.gc_arrived(x);
        // A page placed in a plane takes its space as a host write does: imported from
        // another plane it may start this plane's GC (per-plane thresholds); in its own plane
        // it may start another victim beside the running one (`ftl.gc_victims_per_plane` > 1:
        // MQSim checks at every block allocation, GC writes' included, Flash_Block_Manager.cpp
        // 52). With one victim per plane the latter never starts one: its victim is running.
        self.maybe_gc(now, x.plane, true);
        if x.lpa & MAP_TAG == 0 {
            let lpa = x.lpa as u64;
            match self.cfg.ftl.gc_mapping_update {
                // MQSim Allocate_new_page_for_gc: into the CMT, dirty (a no-op without a CMT).
                GcMappingUpdate::CmtInsert => self.cmt_insert(now, lpa, true),
                GcMappingUpdate::CachedOnly => self.translate.mark_dirty(lpa),
            }
        }
        ppa
    }

    /// A GC read (transaction `t`, freed) finished: its page goes on to its destination as a
    /// GC program.
    pub(crate) fn gc_read_done(&mut self, now: Ps, t: u32, x: &Txn) {
        let victim = self.gc.victim(t);
        self.flash.gc_reads += 1;
        if let Some(tl) = &mut self.timeline {
            let b = self.ftl.geo.page_bytes as u64;
            tl.gc_read_bytes.add(now, b);
        }
        // The destination was chosen when the page left its FC (global copyback).
        let dest = match x.gc_destination() {
            Some(d) => d,
            None => self.gc_destination(x.plane),
        };
        let g = self.alloc_txn(
            TxnKind::GcWrite,
            Role::GcFrom { plane: x.plane },
            x.lpa,
            x.ppa,
            dest,
            self.ftl.geo.page_bytes,
        );
        self.gc.set_victim(g, victim);
        self.enqueue(now, g, DieQueue::GcWrite);
    }

    /// A GC program (or copyback; transaction `t`, freed) finished: one move of its victim is
    /// done.
    pub(crate) fn gc_write_done(&mut self, now: Ps, t: u32, x: &Txn) {
        let victim = self.gc.victim(t);
        self.flash.gc_writes += 1;
        if let Some(tl) = &mut self.timeline {
            let b = self.ftl.geo.page_bytes as u64;
            tl.gc_bytes.add(now, b);
        }
        self.probe.gc_move_done(now, x.plane);
        self.gc_move_done(now, x.gc_source_plane(), victim);
    }

    /// A move of `victim` in `plane` finished (or was dropped); its last one erases it. A
    /// probe's lone move has no victim.
    fn gc_move_done(&mut self, now: Ps, plane: u32, victim: u32) {
        if victim == NONE {
            return;
        }
        if self.gc.move_done(plane, victim) {
            self.issue_erase(now, plane, victim);
        }
    }

    fn issue_erase(&mut self, now: Ps, plane: u32, victim: u32) {
        debug_assert_eq!(self.ftl.valid_pages(plane, victim), 0);
        let ppa = self.ftl.geo.ppa(plane, victim, 0);
        let t = self.alloc_txn(TxnKind::Erase, Role::Drive, NONE, ppa, plane, 0);
        self.enqueue(now, t, DieQueue::Erase);
    }

    /// A victim's erase finished: the block is free; GC or static wear levelling may go on.
    pub(crate) fn erase_done(&mut self, now: Ps, x: &Txn) {
        self.ftl
            .erase_done(x.plane, self.ftl.geo.block_of_ppa(x.ppa));
        self.maybe_gc(now, x.plane, false);
        self.wake_after_erase(now);
        // MQSim checks static wear levelling after each erase (GC_and_WL_Unit_Base), while
        // the host has requests in the drive or to come. After the last one no round starts
        // (a MQSim run ends with its requests): at a threshold of 1 every round's moves cost
        // erases elsewhere, so levelling would never end the run.
        if !self.hil.idle() {
            if let Some(victim) = self.ftl.start_static_wl(x.plane) {
                self.collect(now, x.plane, victim);
            }
        }
    }

    /// `ftl.status_scan_blocks` (WAS, dSSD §6.4 Fig. 14(c)): the first page of block `i /
    /// planes` of plane `i % planes`, for each scanned block `i`, queued at time 0 behind
    /// nothing, in the background (GC read) queues.
    pub fn start_status_scan(&mut self) {
        let (planes, page) = (self.ftl.geo.planes, self.ftl.geo.page_bytes);
        for i in 0..self.cfg.ftl.status_scan_blocks {
            let (plane, block) = (i % planes, i / planes);
            let ppa = self.ftl.geo.ppa(plane, block, 0);
            let t = self.alloc_txn(TxnKind::ScanRead, Role::Drive, 0, ppa, plane, page);
            self.enqueue(0, t, DieQueue::GcRead);
        }
    }
}
