//! Garbage collection's state: the victims each plane is collecting and their moves still
//! to finish, the victim each move in flight works for, and where a moved page goes
//! ([`Gc::destination`]: its own plane, or dSSD §3's global free-block selection). The
//! victim choice and the block state are the FTL's ([`super::Ftl`]); when GC starts, its
//! moves and the erase once the last move is done are the GC flow (`crate::ssd::flows::gc`).

use super::Ftl;
use crate::config::GcDestination;
use crate::engine::NONE;
use crate::flash::Geometry;

pub struct Gc {
    /// The victims each plane is collecting: (block, page moves still to finish). One at a
    /// time unless `ftl.gc_victims_per_plane` allows more (MQSim: up to 10).
    victims: Vec<Vec<(u32, u32)>>,
    /// The victim block of each GC move in flight, by transaction index (NONE: a probe's lone
    /// move, no victim).
    victim_of: Vec<u32>,
    scratch: Vec<(u32, u32)>,
    /// Rotating start of the global destination scan.
    rr: u32,
}

impl Gc {
    pub fn new(g: &Geometry, victims_per_plane: u32) -> Self {
        let k = victims_per_plane.max(1) as usize;
        Self {
            victims: (0..g.planes).map(|_| Vec::with_capacity(k)).collect(),
            victim_of: Vec::new(),
            scratch: Vec::with_capacity(g.pages_per_block as usize),
            rr: 0,
        }
    }

    /// Move transaction `t` works for victim `block` (NONE: none).
    #[inline]
    pub(crate) fn set_victim(&mut self, t: u32, block: u32) {
        let t = t as usize;
        if self.victim_of.len() <= t {
            self.victim_of.resize((t + 1).next_power_of_two(), NONE);
        }
        self.victim_of[t] = block;
    }

    /// The victim move transaction `t` works for.
    #[inline]
    pub(crate) fn victim(&self, t: u32) -> u32 {
        self.victim_of.get(t as usize).copied().unwrap_or(NONE)
    }

    /// A probe's lone GC move `t` (no victim, so no erase follows it).
    pub(crate) fn probe_move(&mut self, t: u32) {
        self.set_victim(t, NONE);
    }

    /// `victim` of `plane` starts being collected: its valid pages (physical page,
    /// reverse-map tag), in the buffer [`Gc::moved`] gives back; it is recorded with its
    /// move count unless it holds none.
    #[inline]
    pub(crate) fn start_victim(&mut self, ftl: &Ftl, plane: u32, victim: u32) -> Vec<(u32, u32)> {
        let mut moves = std::mem::take(&mut self.scratch);
        moves.clear();
        ftl.for_each_valid(plane, victim, |ppa, tag| moves.push((ppa, tag)));
        if !moves.is_empty() {
            self.victims[plane as usize].push((victim, moves.len() as u32));
        }
        moves
    }

    /// The buffer of [`Gc::start_victim`], once its moves are queued.
    #[inline]
    pub(crate) fn moved(&mut self, moves: Vec<(u32, u32)>) {
        self.scratch = moves;
    }

    /// Plane a GC page from `src` is written to (`ftl.gc_destination`, `mode`): its own, or
    /// (global free-block selection, dSSD §3) the plane holding the fewest valid pages
    /// (those headed there counted) among those with room for one more GC page short of
    /// their last free block ([`Ftl::gc_room`]), scanned from a rotating start (ties to the
    /// first, so equal planes take turns); its own if none has room. Fewest valid keeps the
    /// planes equally full: any imbalance raises write amplification at high utilization.
    /// Another plane chosen is reserved in `ftl`.
    #[inline]
    pub(crate) fn destination(&mut self, ftl: &mut Ftl, src: u32, mode: GcDestination) -> u32 {
        if mode == GcDestination::SamePlane {
            return src;
        }
        let n = ftl.geo.planes;
        let start = self.rr;
        self.rr = (start + 1) % n;
        let (mut best, mut best_valid) = (src, u64::MAX);
        for i in 0..n {
            let p = (start + i) % n;
            if p == src {
                continue;
            }
            // Less the pages its own victim still has to move: they may land there (its own
            // plane is their fallback) and must not find the room promised to imports.
            let own: u64 = self.victims[p as usize]
                .iter()
                .map(|&(_, m)| m as u64)
                .sum();
            let room = ftl.gc_room(p).saturating_sub(own);
            // Pages reserved there count as valid: they will be.
            let valid = ftl.plane_valid(p) + ftl.gc_room_reserved(p);
            if room > 0 && valid < best_valid {
                best = p;
                best_valid = valid;
            }
        }
        // Its own plane is the victim's fallback (the last free block is kept for it).
        if best != src && ftl.plane_valid(src) + ftl.gc_room_reserved(src) < best_valid {
            best = src;
        }
        if best != src {
            ftl.reserve_gc(best);
        }
        best
    }

    /// A move of `victim` in `plane` finished (or was dropped): true if it was its last (the
    /// victim is erased next).
    #[inline]
    pub(crate) fn move_done(&mut self, plane: u32, victim: u32) -> bool {
        let vs = &mut self.victims[plane as usize];
        let i = vs
            .iter()
            .position(|&(b, _)| b == victim)
            .expect("a GC move of a victim being collected");
        vs[i].1 -= 1;
        if vs[i].1 == 0 {
            vs.swap_remove(i);
            return true;
        }
        false
    }
}
