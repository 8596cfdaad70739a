//! Lookahead (`network.lookahead`): the scouts' own events wait here, off the engine's
//! queue, under keys reserved from it, and run while each comes before every queued event;
//! the queue holds one `Wake` proxy per earliest pending key. The run is the one every scout
//! hop through the queue would give, without its heap traffic or dispatch.

use super::Scouts;
use crate::engine::{packed, Key, Queue};
use crate::interconnect::{IcEvent, NetEvent};
use crate::time::Ps;

/// Local events handled per `Wake` before control goes back to the engine.
const LOCAL_BUDGET: u32 = 1 << 16;

/// Venice's events due one scout hop after they were produced, in key order: a ring of at
/// least one slot per controller (each has at most one such event pending). An empty slot
/// holds the key `u128::MAX`, so the head's key is read without a length test.
pub(super) struct HopFifo {
    buf: Vec<(u128, NetEvent)>,
    mask: usize,
    head: usize,
    tail: usize,
}

impl HopFifo {
    pub(super) fn new(controllers: usize) -> Self {
        let n = controllers.next_power_of_two().max(2);
        Self {
            buf: vec![(u128::MAX, NetEvent::Wake); n],
            mask: n - 1,
            head: 0,
            tail: 0,
        }
    }
    /// Key of the first event, `u128::MAX` if none.
    #[inline(always)]
    fn front_key(&self) -> u128 {
        debug_assert!(self.head < self.buf.len());
        // SAFETY: `head` is always masked by `mask` = `buf.len() - 1` (a power of two).
        unsafe { self.buf.get_unchecked(self.head).0 }
    }
    #[inline(always)]
    fn push_back(&mut self, e: (u128, NetEvent)) {
        // Each controller has at most one scout, so at most one event here: the slot is free.
        debug_assert!(self.tail < self.buf.len());
        // SAFETY: `tail` is masked like `head` in `front_key`.
        let slot = unsafe { self.buf.get_unchecked_mut(self.tail) };
        debug_assert_eq!(slot.0, u128::MAX, "one hop event per controller");
        *slot = e;
        self.tail = (self.tail + 1) & self.mask;
    }
    /// The first event (the caller checked there is one).
    #[inline(always)]
    fn pop_front(&mut self) -> (u128, NetEvent) {
        debug_assert!(self.head < self.buf.len());
        // SAFETY: as in `front_key`.
        let slot = unsafe { self.buf.get_unchecked_mut(self.head) };
        debug_assert_ne!(slot.0, u128::MAX, "pop from an empty ring");
        let e = *slot;
        slot.0 = u128::MAX;
        self.head = (self.head + 1) & self.mask;
        e
    }
}

impl Scouts {
    /// Schedule one of Venice's own events under the next key from the queue; with
    /// `lookahead` it waits in the local heap instead of the queue.
    pub(super) fn schedule<Q: Queue<IcEvent>>(&mut self, t: Ps, ev: NetEvent, q: &mut Q) {
        let key = (t, q.reserve_seq());
        if self.lookahead {
            self.local.push(key, ev);
        } else {
            q.schedule_keyed(key, IcEvent::Net(ev));
        }
    }

    /// [`Self::schedule`] for an event one scout hop after `now`. These are produced in key
    /// order (time never goes back and every delay is the same), so with `lookahead` a FIFO
    /// holds them sorted and the local heap keeps only the rest.
    #[inline(always)]
    pub(super) fn schedule_hop<Q: Queue<IcEvent>>(&mut self, now: Ps, ev: NetEvent, q: &mut Q) {
        let key = (now + self.hop, q.reserve_seq());
        if self.lookahead {
            self.hops.push_back((packed(key), ev));
        } else {
            q.schedule_keyed(key, IcEvent::Net(ev));
        }
    }

    /// Key of the earliest local event.
    #[inline(always)]
    pub(super) fn next_local(&self) -> Option<Key> {
        let k = (self.hops.front_key()).min(self.local.peek_key().map_or(u128::MAX, packed));
        (k != u128::MAX).then_some(((k >> 64) as Ps, k as u64))
    }

    /// Make sure a `Wake` proxy in the queue precedes the earliest local event.
    pub(super) fn arm<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        if let Some(k) = self.next_local() {
            if self.proxies.first().is_none_or(|&p| k < p) {
                q.schedule_keyed(k, IcEvent::Net(NetEvent::Wake));
                self.proxies.insert(0, k);
            }
        }
    }

    /// Handle local events while each comes before every queued event: the queue would have
    /// popped them in this same (time, seq) order, so the run is identical to scheduling
    /// every scout hop through the queue, without its heap traffic or dispatch (a scout
    /// search is tens of hops, and scouts re-sent together move in lockstep).
    /// At most `LOCAL_BUDGET` events per call, then a `Wake` proxy resumes the rest through
    /// the queue (same order), so the engine's watchdog sees a search that never ends.
    pub(super) fn run_local<Q: Queue<IcEvent>>(&mut self, q: &mut Q) {
        let mut budget = LOCAL_BUDGET;
        loop {
            // Hop events put nothing in the queue (their seq numbers come from it) and only
            // a scout reaching its destination adds to the local heap, so `bound` (the
            // earliest of the queue's head and the local heap's) is read again only then.
            let limit = q.peek_key().map_or(u128::MAX, packed);
            let mut heap = self.local.peek_key().map_or(u128::MAX, packed);
            let mut bound = limit.min(heap);
            while self.hops.front_key() < bound && budget > 0 {
                budget -= 1;
                let (k, ev) = self.hops.pop_front();
                let now = (k >> 64) as Ps;
                #[cfg(debug_assertions)]
                let before = self.local.len();
                let heap_grew = match ev {
                    // One scout step for both (one copy of the step's code).
                    NetEvent::ScoutArrive { fc } | NetEvent::ScoutReturn { fc } => {
                        let arrive = matches!(ev, NetEvent::ScoutArrive { .. });
                        self.route(now, fc as usize, arrive, q)
                    }
                    _ => {
                        let before = self.local.len();
                        self.handle(now, ev, q);
                        self.local.len() != before
                    }
                };
                #[cfg(debug_assertions)]
                debug_assert_eq!(heap_grew, self.local.len() != before);
                debug_assert_eq!(
                    q.peek_key().map_or(u128::MAX, packed),
                    limit,
                    "a hop event queued an event"
                );
                if heap_grew {
                    heap = self.local.peek_key().map_or(u128::MAX, packed);
                    bound = limit.min(heap);
                }
            }
            // The heap's first event, if it precedes the queue's head and the next hop.
            if heap < limit && heap < self.hops.front_key() && budget > 0 {
                budget -= 1;
                let (k, ev) = self.local.pop().expect("peeked");
                self.handle(k.0, ev, q);
            } else {
                break;
            }
        }
        self.local_events += (LOCAL_BUDGET - budget) as u64;
        self.arm(q);
    }
}
