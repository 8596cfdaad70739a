//! The event queue: a hand-written binary min-heap of small `Copy` events ordered by (time,
//! sequence number), so events at equal times fire in the order they were scheduled and every
//! run is deterministic; and the two traits through which components schedule into it
//! without knowing the engine's event type ([`Clock`], [`Queue`]).

use crate::time::Ps;

/// (time, sequence number): the total order of events.
pub type Key = (Ps, u64);

#[derive(Clone, Copy)]
struct Entry<E: Copy> {
    key: Key,
    event: E,
}

/// A binary min-heap of small `Copy` events under caller-given keys. The engine's queue is
/// one; an interconnect can keep its own for events it handles itself (keys taken from the
/// queue with [`EventQueue::reserve_seq`], so both heaps share one order).
pub struct KeyedHeap<E: Copy> {
    heap: Vec<Entry<E>>,
}

impl<E: Copy> KeyedHeap<E> {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    #[inline]
    pub fn peek_key(&self) -> Option<Key> {
        self.heap.first().map(|e| e.key)
    }

    #[inline]
    pub fn push(&mut self, key: Key, event: E) {
        self.heap.push(Entry { key, event });
        self.sift_up(self.heap.len() - 1);
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Key, E)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap.swap_remove(0);
        if n > 2 {
            self.sift_down(0);
        }
        Some((top.key, top.event))
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let item = h[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if before(item.key, h[parent].key) {
                h[i] = h[parent];
                i = parent;
            } else {
                break;
            }
        }
        h[i] = item;
    }

    /// Restore the heap below `i` (Floyd's bottom-up variant, as std's `BinaryHeap::pop`):
    /// move the hole down along the smaller children to a leaf with one comparison a level,
    /// then sift the item up from there. The item came from the last leaf, so it rarely
    /// climbs; this saves the comparison with the item and its unpredictable branch at
    /// every level.
    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let n = h.len();
        let item = h[i];
        let mut c = 2 * i + 1;
        while c + 1 < n {
            c += before(h[c + 1].key, h[c].key) as usize;
            h[i] = h[c];
            i = c;
            c = 2 * i + 1;
        }
        if c + 1 == n {
            h[i] = h[c];
            i = c;
        }
        h[i] = item;
        self.sift_up(i);
    }
}

/// A key as one integer (time above sequence number), ordered as the key.
#[inline(always)]
pub fn packed(k: Key) -> u128 {
    (k.0 as u128) << 64 | k.1 as u128
}

/// Whether key `a` orders before `b`, as one 128-bit comparison (no branch on equal times).
#[inline(always)]
fn before(a: Key, b: Key) -> bool {
    packed(a) < packed(b)
}

/// The simulation's event queue: events ordered by (time, sequence number), so events at
/// equal times fire in the order they were scheduled and every run is deterministic.
/// Scheduling into the past is a model bug and panics in debug builds.
pub struct EventQueue<E: Copy> {
    heap: KeyedHeap<E>,
    /// Events scheduled in time order ([`Self::schedule_in_order`]): a FIFO beside the heap,
    /// merged with it by key, so they pop exactly where the heap would have popped them
    /// without sifting through it (a backlogged host link holds hundreds of completions).
    ordered: std::collections::VecDeque<Entry<E>>,
    /// An event that would have become the heap's first waits here instead (often: one
    /// event is handled and schedules the next at once), so it pops without being sifted
    /// up to the root and down again. Its key is below every key in `heap`.
    lane: Option<Entry<E>>,
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
            heap: KeyedHeap::with_capacity(1024),
            ordered: std::collections::VecDeque::with_capacity(1024),
            lane: None,
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
        self.heap.len() + self.ordered.len() + self.lane.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.ordered.is_empty() && self.lane.is_none()
    }

    /// The sequence number the next scheduled event would get, consumed: for an event kept
    /// in another [`KeyedHeap`] that must order exactly as if it had been scheduled here.
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    #[inline]
    pub fn schedule(&mut self, time: Ps, event: E) {
        let seq = self.reserve_seq();
        self.schedule_keyed((time, seq), event);
    }

    /// Schedule under a key from [`Self::reserve_seq`] (keys must be unique).
    #[inline]
    pub fn schedule_keyed(&mut self, key: Key, event: E) {
        debug_assert!(
            key.0 >= self.now,
            "event scheduled in the past: {} < {}",
            key.0,
            self.now
        );
        debug_assert!(key.1 < self.next_seq, "sequence number not reserved");
        match self.lane {
            // Below the lane's event: it takes the lane, the lane's goes to the heap.
            Some(l) if before(key, l.key) => {
                self.lane = Some(Entry { key, event });
                self.heap.push(l.key, l.event);
            }
            Some(_) => self.heap.push(key, event),
            None if self.heap.peek_key().is_none_or(|h| before(key, h)) => {
                self.lane = Some(Entry { key, event })
            }
            None => self.heap.push(key, event),
        }
    }

    /// Schedule an event no earlier than every event scheduled this way before it (a FIFO
    /// resource's completions): it keeps the key [`Self::schedule`] would give it and pops in
    /// the same place.
    #[inline]
    pub fn schedule_in_order(&mut self, time: Ps, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        debug_assert!(
            self.ordered.back().is_none_or(|b| b.key.0 <= time),
            "schedule_in_order out of time order"
        );
        let key = (time, self.reserve_seq());
        self.ordered.push_back(Entry { key, event });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Ps> {
        self.peek_key().map(|k| k.0)
    }

    /// Key of the next event, if any.
    #[inline]
    pub fn peek_key(&self) -> Option<Key> {
        let h = self.first_unordered();
        match self.ordered.front() {
            Some(f) if h.is_none_or(|h| before(f.key, h)) => Some(f.key),
            _ => h,
        }
    }

    /// Move the clock forward to `t` without an event (for drivers that inject work from
    /// outside the queue). `t` must not be before now or after the next event.
    pub fn advance_to(&mut self, t: Ps) {
        debug_assert!(t >= self.now && self.peek_time().is_none_or(|n| t <= n));
        self.now = t;
    }

    /// Key of the first event in the lane and heap (not the FIFO).
    #[inline(always)]
    fn first_unordered(&self) -> Option<Key> {
        match &self.lane {
            Some(l) => Some(l.key),
            None => self.heap.peek_key(),
        }
    }

    /// Inlined into the caller's loop: returned through the stack, the event's fields were
    /// copied in overlapping pieces that stalled store forwarding.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        let first = self.first_unordered();
        let ((time, _), event) = match self.ordered.front() {
            Some(f) if first.is_none_or(|h| before(f.key, h)) => {
                let f = self.ordered.pop_front().expect("front exists");
                (f.key, f.event)
            }
            _ => match self.lane.take() {
                Some(l) => (l.key, l.event),
                None => self.heap.pop()?,
            },
        };
        self.now = time;
        self.popped += 1;
        Some((time, event))
    }
}

/// What every component may ask of the engine's queue, whatever its event type.
pub trait Clock {
    /// Current simulated time: the time of the last popped event.
    fn now(&self) -> Ps;
    /// A sequence number consumed now ([`EventQueue::reserve_seq`]).
    fn reserve_seq(&mut self) -> u64;
    /// Key of the next event, if any.
    fn peek_key(&self) -> Option<Key>;
    /// Time of the next event, if any.
    fn peek_time(&self) -> Option<Ps> {
        self.peek_key().map(|k| k.0)
    }
}

/// A queue that takes events of type `T`: a component schedules its own sub-event (a small
/// `Copy` enum it defines) and the engine wraps it in its event at the same call, so the
/// sequence number is the one a direct call would have taken.
pub trait Queue<T>: Clock {
    fn schedule(&mut self, time: Ps, event: T);
    /// [`EventQueue::schedule_in_order`].
    fn schedule_in_order(&mut self, time: Ps, event: T);
    /// [`EventQueue::schedule_keyed`].
    fn schedule_keyed(&mut self, key: Key, event: T);
}

impl<E: Copy> Clock for EventQueue<E> {
    #[inline(always)]
    fn now(&self) -> Ps {
        self.now
    }
    #[inline(always)]
    fn reserve_seq(&mut self) -> u64 {
        EventQueue::reserve_seq(self)
    }
    #[inline(always)]
    fn peek_key(&self) -> Option<Key> {
        EventQueue::peek_key(self)
    }
}

impl<E: Copy, T: Into<E>> Queue<T> for EventQueue<E> {
    #[inline(always)]
    fn schedule(&mut self, time: Ps, event: T) {
        EventQueue::schedule(self, time, event.into())
    }
    #[inline(always)]
    fn schedule_in_order(&mut self, time: Ps, event: T) {
        EventQueue::schedule_in_order(self, time, event.into())
    }
    #[inline(always)]
    fn schedule_keyed(&mut self, key: Key, event: T) {
        EventQueue::schedule_keyed(self, key, event.into())
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

        /// Events scheduled in order (the FIFO beside the heap) and through the heap, with
        /// pops in between, come out exactly as from one heap: by (time, sequence).
        #[test]
        fn in_order_events_merge_with_the_heap(ops in proptest::collection::vec((0u8..3, 0u64..40), 0..400)) {
            let mut q = EventQueue::new();
            let mut model = std::collections::BTreeSet::new();
            let mut last_in_order = 0;
            for (i, (op, dt)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        let t = q.now() + dt;
                        q.schedule(t, i);
                        model.insert((t, i));
                    }
                    1 => {
                        // Often at the same time as heap events: the tie goes by sequence.
                        let t = last_in_order.max(q.now()) + dt % 3;
                        last_in_order = t;
                        q.schedule_in_order(t, i);
                        model.insert((t, i));
                    }
                    _ => {
                        prop_assert_eq!(q.peek_time(), model.first().map(|m| m.0));
                        prop_assert_eq!(q.pop(), model.pop_first());
                    }
                }
                prop_assert_eq!(q.len(), model.len());
            }
            while let Some(e) = q.pop() {
                prop_assert_eq!(Some(e), model.pop_first());
            }
            prop_assert!(model.is_empty());
        }

        /// Pushes and pops interleaved (as a simulation does) against a sorted model.
        #[test]
        fn interleaved_ops_match_a_sorted_model(ops in proptest::collection::vec((any::<bool>(), 0u64..1000), 0..400)) {
            let mut h = KeyedHeap::with_capacity(4);
            let mut model = std::collections::BTreeSet::new();
            for (seq, (push, t)) in ops.into_iter().enumerate() {
                if push || model.is_empty() {
                    h.push((t, seq as u64), seq);
                    model.insert((t, seq as u64));
                } else {
                    let want = model.pop_first().unwrap();
                    let (k, e) = h.pop().unwrap();
                    prop_assert_eq!(k, want);
                    prop_assert_eq!(e as u64, want.1);
                }
                prop_assert_eq!(h.peek_key(), model.first().copied());
            }
        }
    }
}
