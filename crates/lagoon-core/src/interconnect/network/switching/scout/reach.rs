//! Whether a scout can reach its destination at all: breadth-first searches over the free
//! links as router bits (a word per 64 routers). With `scout_retry = on-release`, a scout
//! that could not is not sent (it would fail) until a circuit is released.

use super::super::super::routing::venice::minimal_ports;
use super::super::super::topology::mesh2d::{LEFT, NO_PORT, RIGHT};
use super::Scouts;

/// One side of the two-ended breadth-first search over router bits: routers seen, the
/// current frontier (within words `lo..=hi`) and its size in non-empty words (a cheap
/// stand-in for its router count), and scratch for the next one.
#[derive(Clone)]
pub(super) struct Search {
    seen: Vec<u64>,
    front: Vec<u64>,
    next: Vec<u64>,
    lo: usize,
    hi: usize,
    count: u32,
}

impl Search {
    pub(super) fn new(routers: u32) -> Self {
        let n = (routers as usize).div_ceil(64);
        Search {
            seen: vec![0; n],
            front: vec![0; n],
            next: vec![0; n],
            lo: 0,
            hi: 0,
            count: 0,
        }
    }

    fn start(&mut self, r: u32) {
        self.seen.fill(0);
        self.front.fill(0);
        self.next.fill(0);
        let (w, b) = ((r / 64) as usize, 1u64 << (r % 64));
        self.seen[w] |= b;
        self.front[w] |= b;
        (self.lo, self.hi, self.count) = (w, w, 1);
    }

    /// Replace the frontier by the routers one free link away not seen before (free links
    /// as `h`/`v` router bits, rows of `cols` routers); false if there are none.
    fn layer(&mut self, h: &[u64], v: &[u64], cols: u32) -> bool {
        let n = self.seen.len();
        let (seen, front, next) = (&mut self.seen, &mut self.front, &mut self.next);
        // A vertical hop shifts by `cols` bits: `ws` words and `bs` bits.
        let (ws, bs) = ((cols / 64) as usize, cols % 64);
        let (lo, hi) = (self.lo, self.hi);
        // Routers one free link away can only be in these words.
        let (a, z) = (lo.saturating_sub(ws + 1), (hi + ws + 1).min(n - 1));
        let (mut nlo, mut nhi, mut count) = (usize::MAX, 0, 0);
        for i in a..=z {
            let fh = |j: usize| front[j] & h[j];
            let fv = |j: usize| front[j] & v[j];
            // right: (front & h) << 1; left: (front >> 1) & h
            let mut x = fh(i) << 1 | if i > 0 { fh(i - 1) >> 63 } else { 0 };
            x |= (front[i] >> 1 | if i + 1 < n { front[i + 1] << 63 } else { 0 }) & h[i];
            // up: (front & v) << cols; down: (front >> cols) & v
            if i >= ws {
                x |= fv(i - ws) << bs;
                if bs > 0 && i > ws {
                    x |= fv(i - ws - 1) >> (64 - bs);
                }
            }
            let mut down = 0;
            if i + ws < n {
                down |= front[i + ws] >> bs;
                if bs > 0 && i + ws + 1 < n {
                    down |= front[i + ws + 1] << (64 - bs);
                }
            }
            x |= down & v[i];
            x &= !seen[i];
            seen[i] |= x;
            next[i] = x;
            if x != 0 {
                nlo = nlo.min(i);
                nhi = i;
                count += 1;
            }
        }
        if nlo == usize::MAX {
            return false;
        }
        // `next` becomes the frontier; the old one, cleared, the next scratch.
        front[lo..=hi].fill(0);
        std::mem::swap(front, next);
        (self.lo, self.hi, self.count) = (nlo, nhi, count);
        true
    }
}

impl Scouts {
    /// Whether a path of free links joins controller `fc`'s router to its destination:
    /// breadth-first over bitsets, one layer per iteration.
    pub(super) fn reachable(&mut self, fc: usize) -> bool {
        let (start, dest) = (self.mesh.fc_router[fc], self.fcs[fc].dest);
        if !self.share_reach {
            return self.path_exists(start, dest);
        }
        // Routers of one set are joined to each other, and a whole component to no other
        // router, so a set holding `start` answers unless it is partial and lacks `dest`;
        // then the search goes on from that set.
        let (mut seen, mut at) = (1u64 << start, None);
        for (i, &(set, whole)) in self.joined.iter().enumerate() {
            if set >> start & 1 == 1 {
                if set >> dest & 1 == 1 || whole {
                    return set >> dest & 1 == 1;
                }
                (seen, at) = (set, Some(i));
                break;
            }
        }
        let (found, set) = self.search_one_word(seen, dest, self.mesh.cols);
        match at {
            Some(i) => self.joined[i] = (set, !found),
            None => self.joined.push((set, !found)),
        }
        found
    }

    /// Whether a path of free links joins routers `start` and `dest`.
    pub(super) fn path_exists(&mut self, start: u32, dest: u32) -> bool {
        let cols = self.mesh.cols;
        if self.words == 1 {
            return self.reachable_one_word(start, dest, cols);
        }
        // On a larger mesh most searches end on one of the two minimal L-shaped paths, a
        // few lookups; the breadth-first search over all words settles the rest.
        if self.l_path_free(start, dest, true) || self.l_path_free(start, dest, false) {
            return true;
        }
        // Breadth-first from both ends, a layer of the side with the smaller frontier (in
        // words) at a time: the ends are joined once one side reaches a router the other has
        // seen, and apart once either side runs out (a boxed-in end settles it in a few
        // layers).
        let (h, v) = self.free_links.split_at(self.words);
        let [a, z] = &mut self.bfs;
        a.start(start);
        z.start(dest);
        if a.seen[z.lo] & z.front[z.lo] != 0 {
            return true;
        }
        loop {
            let (grow, other) = if a.count <= z.count {
                (&mut *a, &*z)
            } else {
                (&mut *z, &*a)
            };
            if !grow.layer(h, v, cols) {
                return false;
            }
            if (grow.lo..=grow.hi).any(|i| grow.front[i] & other.seen[i] != 0) {
                return true;
            }
        }
    }

    /// Whether every link of the minimal path from `start` to `dest` that runs along the
    /// row first (`row_first`) or the column first is free.
    pub(super) fn l_path_free(&self, start: u32, dest: u32, row_first: bool) -> bool {
        let (h, v) = minimal_ports(self.mesh.xy(start), self.mesh.xy(dest));
        let mut r = start;
        for p in if row_first { [h, v] } else { [v, h] } {
            if p == NO_PORT {
                continue;
            }
            let (sx, sy) = self.mesh.xy(r);
            let (dx, dy) = self.mesh.xy(dest);
            let steps = if p == RIGHT || p == LEFT {
                sx.abs_diff(dx)
            } else {
                sy.abs_diff(dy)
            };
            for _ in 0..steps {
                if self.nodes[r as usize].free & 1 << p == 0 {
                    return false;
                }
                r = self.mesh.across(r, p).0;
            }
        }
        true
    }

    /// [`Self::reachable`] for meshes of at most 64 routers: each layer is a few shifts.
    pub(super) fn reachable_one_word(&self, start: u32, dest: u32, cols: u32) -> bool {
        self.search_one_word(1u64 << start, dest, cols).0
    }

    /// Breadth-first from the routers `from` (joined by free links) on a mesh of at most
    /// 64 routers: whether it reaches `dest`, and the routers seen (the whole component
    /// if not).
    #[inline(always)]
    pub(super) fn search_one_word(&self, from: u64, dest: u32, cols: u32) -> (bool, u64) {
        let (h, v) = (self.free_links[0], self.free_links[1]);
        let (mut seen, mut front) = (from, from);
        let target = 1u64 << dest;
        // Only a 1×64 mesh has 64 columns, and it has no vertical links (`v` is 0), so
        // shifting by 63 there keeps the shifts defined without changing the result.
        let cols = cols.min(63);
        loop {
            if front & target != 0 {
                return (true, seen);
            }
            let next = (((front & h) << 1)
                | ((front >> 1) & h)
                | (front & v) << cols
                | ((front >> cols) & v))
                & !seen;
            if next == 0 {
                return (false, seen);
            }
            seen |= next;
            front = next;
        }
    }
}
