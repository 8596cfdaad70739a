//! The discrete-event engine: a hand-written binary min-heap of small `Copy` events
//! ordered by (time, sequence number), so events at equal times fire in the order they
//! were scheduled and every run is deterministic.

use crate::time::Ps;

#[derive(Clone, Copy)]
struct Entry<E: Copy> {
    time: Ps,
    seq: u64,
    event: E,
}

impl<E: Copy> Entry<E> {
    #[inline(always)]
    fn before(&self, other: &Self) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// Min-heap event queue. Scheduling into the past is a model bug and panics in debug builds.
pub struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
    now: Ps,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            heap: Vec::with_capacity(1024),
            next_seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Current simulated time: the time of the last popped event.
    #[inline(always)]
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    #[inline]
    pub fn schedule(&mut self, time: Ps, event: E) {
        debug_assert!(
            time >= self.now,
            "event scheduled in the past: {} < {}",
            time,
            self.now
        );
        let entry = Entry {
            time,
            seq: self.next_seq,
            event,
        };
        self.next_seq += 1;
        self.heap.push(entry);
        self.sift_up(self.heap.len() - 1);
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Ps> {
        self.heap.first().map(|e| e.time)
    }

    /// Move the clock forward to `t` without an event (for drivers that inject work from
    /// outside the queue). `t` must not be before now or after the next event.
    pub fn advance_to(&mut self, t: Ps) {
        debug_assert!(t >= self.now && self.peek_time().is_none_or(|n| t <= n));
        self.now = t;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap.swap_remove(0);
        if n > 1 {
            self.sift_down(0);
        }
        self.now = top.time;
        self.popped += 1;
        Some((top.time, top.event))
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let item = h[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if item.before(&h[parent]) {
                h[i] = h[parent];
                i = parent;
            } else {
                break;
            }
        }
        h[i] = item;
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let n = h.len();
        let item = h[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && h[r].before(&h[l]) { r } else { l };
            if h[c].before(&item) {
                h[i] = h[c];
                i = c;
            } else {
                break;
            }
        }
        h[i] = item;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_times_pop_in_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), 5);
        assert_eq!(q.events_processed(), 4);
    }

    proptest! {
        #[test]
        fn pops_sorted_by_time_then_seq(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() { q.schedule(*t, i); }
            let mut out = Vec::new();
            while let Some((t, i)) = q.pop() { out.push((t, i)); }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().enumerate().map(|(i, t)| (t, i)).collect();
            expected.sort();
            prop_assert_eq!(out, expected);
        }
    }
}
