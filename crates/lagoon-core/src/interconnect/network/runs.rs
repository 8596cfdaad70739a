//! Flit times in runs: the closed form that lets flits moving in lockstep cost one entry, not
//! one event, per hop.
//!
//! A [`Runs`] queue lists, in FIFO order, the times of a sequence of flits (when each becomes
//! available in a buffer) or of credits (when each free slot becomes usable). Flits that cross
//! a link back to back are one run `t, t + f, t + 2f, ...`; a buffer's initial free slots are
//! one run of stride 0. A queue holds at most as many runs as its buffer has slots, usually one
//! or two.

use crate::time::Ps;
use std::collections::VecDeque;

/// `n` times `t, t + stride, ..., t + (n - 1) stride`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Run {
    pub t: Ps,
    pub n: u32,
    pub stride: Ps,
}

/// The first and last runs are kept inline (a queue usually holds one or two), the ones
/// between in a heap queue: the common operations touch no heap memory.
#[derive(Clone, Debug, Default)]
pub struct Runs {
    /// The first run; `n == 0`: the queue is empty.
    head: Run,
    /// Runs between `head` and `tail`; empty unless `tail` is set.
    mid: VecDeque<Run>,
    /// The last run when there are two or more; `n == 0`: none.
    tail: Run,
    total: u32,
}

impl Runs {
    pub fn with(t: Ps, n: u32) -> Self {
        let mut r = Runs::default();
        r.push(t, n, 0);
        r
    }

    /// Number of times queued.
    #[inline]
    pub fn total(&self) -> u32 {
        self.total
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Append `n` times from `t` at `stride`, merged into the last run when they continue it.
    #[inline]
    pub fn push(&mut self, t: Ps, n: u32, stride: Ps) {
        if n == 0 {
            return;
        }
        self.total += n;
        let last = if self.tail.n > 0 {
            &mut self.tail
        } else if self.head.n > 0 {
            &mut self.head
        } else {
            self.head = Run { t, n, stride };
            return;
        };
        // A single entry takes the stride of what it joins.
        let s = match (last.n, n) {
            (1, _) => stride,
            (_, 1) => last.stride,
            _ if last.stride == stride => stride,
            _ => Ps::MAX,
        };
        if s != Ps::MAX && t == last.t + last.n as Ps * s {
            last.stride = s;
            last.n += n;
            return;
        }
        if self.tail.n > 0 {
            self.mid.push_back(self.tail);
        }
        self.tail = Run { t, n, stride };
    }

    /// The first run (with the times already consumed removed).
    #[inline]
    pub fn front(&self) -> Option<Run> {
        (self.head.n > 0).then_some(self.head)
    }

    /// Time of the first entry.
    #[inline]
    pub fn first(&self) -> Option<Ps> {
        (self.head.n > 0).then_some(self.head.t)
    }

    /// Time of entry `i` (0 = first), if queued.
    #[inline]
    pub fn at(&self, mut i: u32) -> Option<Ps> {
        if i < self.head.n {
            return Some(self.head.t + i as Ps * self.head.stride);
        }
        for r in self.iter() {
            if i < r.n {
                return Some(r.t + i as Ps * r.stride);
            }
            i -= r.n;
        }
        None
    }

    /// Entries with time at most `t`.
    #[inline]
    pub fn count_by(&self, t: Ps) -> u32 {
        // One run (the common case: a settled or idle queue).
        if self.total == self.head.n {
            let r = &self.head;
            return match t.checked_sub(r.t) {
                None => 0,
                Some(d) => match d.checked_div(r.stride) {
                    None => r.n,
                    Some(q) => q.saturating_add(1).min(r.n as Ps) as u32,
                },
            };
        }
        let mut c = 0;
        for r in self.iter() {
            if r.t > t {
                break;
            }
            let k = match (t - r.t).checked_div(r.stride) {
                None => r.n,
                Some(q) => q.saturating_add(1).min(r.n as Ps) as u32,
            };
            c += k;
            if k < r.n {
                break;
            }
        }
        c
    }

    /// The second run becomes the first.
    #[inline]
    fn advance(&mut self) {
        if let Some(r) = self.mid.pop_front() {
            self.head = r;
        } else {
            self.head = self.tail;
            self.tail.n = 0;
        }
    }

    /// Replace every time at or before `now` by `now`: one run at the front. Exact for a
    /// reader that never asks before `now` (every use takes `max(now, t)`, and time only
    /// moves forward), and it keeps the queue short: flits and credits that trickled in
    /// at many past times, as under back-pressure, cost one run, not one each.
    #[inline(always)]
    pub fn settle(&mut self, now: Ps) {
        if self.head.n == 0 || self.head.t > now {
            return;
        }
        // Already settled at `now` (the common case: a buffer asked again in the same event).
        if self.head.t == now && self.head.stride == 0 {
            let next = match self.mid.front() {
                Some(r) => Some(r.t),
                None => (self.tail.n > 0).then_some(self.tail.t),
            };
            if next.is_none_or(|t| t > now) {
                return;
            }
        }
        let mut past = 0u32;
        while self.head.n > 0 && self.head.t <= now {
            let r = &mut self.head;
            let k = match (now - r.t).checked_div(r.stride) {
                None => r.n,
                Some(q) => q.saturating_add(1).min(r.n as Ps) as u32,
            };
            past += k;
            if k < r.n {
                r.t += k as Ps * r.stride;
                r.n -= k;
                break;
            }
            self.advance();
        }
        let settled = Run {
            t: now,
            n: past,
            stride: 0,
        };
        // One entry at `now` that the next run continues (the head flit of a lockstep run):
        // one run, as `push` would have made it, so a transfer moves it in one step.
        if past == 1 && self.head.n > 0 && self.head.t == now + self.head.stride {
            self.head.t = now;
            self.head.n += 1;
            return;
        }
        if self.head.n > 0 {
            if self.tail.n > 0 {
                self.mid.push_front(self.head);
            } else {
                self.tail = self.head;
            }
        }
        self.head = settled;
    }

    /// Drop the first `n` entries.
    #[inline]
    pub fn pop(&mut self, mut n: u32) {
        debug_assert!(n <= self.total);
        self.total -= n;
        while n > 0 {
            let r = &mut self.head;
            debug_assert!(r.n > 0, "popping queued times");
            if n < r.n {
                r.t += n as Ps * r.stride;
                r.n -= n;
                return;
            }
            n -= r.n;
            self.advance();
        }
    }

    /// The runs, first to last.
    pub fn iter(&self) -> impl Iterator<Item = &Run> {
        let head = (self.head.n > 0).then_some(&self.head);
        let tail = (self.tail.n > 0).then_some(&self.tail);
        head.into_iter().chain(self.mid.iter()).chain(tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_pop_and_count() {
        let mut r = Runs::default();
        r.push(10, 3, 2); // 10 12 14
        r.push(16, 2, 2); // continues: 16 18
        r.push(30, 1, 2); // a gap: new run
        r.push(32, 1, 2); // continues the single-entry run
        assert_eq!(r.iter().count(), 2);
        assert_eq!(r.total(), 7);
        assert_eq!(r.at(4), Some(18));
        assert_eq!(r.at(6), Some(32));
        assert_eq!(r.count_by(15), 3);
        assert_eq!(r.count_by(31), 6);
        r.pop(4);
        assert_eq!(r.first(), Some(18));
        assert_eq!(r.count_by(100), 3);
        let mut c = Runs::with(0, 4);
        c.push(0, 2, 0);
        assert_eq!((c.iter().count(), c.total(), c.count_by(0)), (1, 6, 6));
    }

    #[test]
    fn settle_keeps_every_answer_from_now_on() {
        let mut r = Runs::default();
        r.push(10, 3, 2); // 10 12 14
        r.push(15, 1, 2); // 15
        r.push(20, 2, 0); // 20 20
        r.push(30, 2, 5); // 30 35
        let before: Vec<_> = (13..40).map(|t| r.count_by(t)).collect();
        let mut s = r.clone();
        s.settle(13); // 10 12 -> 13 13; 14 15 20 20 30 35 stay
        assert_eq!(s.iter().count(), 5);
        assert_eq!(s.total(), r.total());
        assert_eq!(
            (s.first(), s.at(1), s.at(2), s.at(7)),
            (Some(13), Some(13), Some(14), Some(35))
        );
        assert_eq!(before, (13..40).map(|t| s.count_by(t)).collect::<Vec<_>>());
        s.settle(30); // all but 35
        assert_eq!(
            (s.iter().count(), s.count_by(30), s.at(7)),
            (2, 7, Some(35))
        );
        s.settle(30);
        assert_eq!(s.iter().count(), 2);
    }
}
