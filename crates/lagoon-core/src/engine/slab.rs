//! Slabs of `Copy` records addressed by `u32` index, with a free list, and intrusive lists
//! threaded through the records' own `next` fields: per-request and per-transaction state
//! (and every queue of them) without an allocation per request or transaction.

use std::ops::{Index, IndexMut};

/// "No index": the end of a list, an absent link.
pub const NONE: u32 = u32::MAX;

/// A record that can sit on one intrusive list at a time.
pub trait Linked {
    fn next(&self) -> u32;
    fn set_next(&mut self, n: u32);
}

/// Records by index; freed slots are reused first (most recently freed first).
#[derive(Clone, Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: u32,
}

impl<T: Linked + Copy> Slab<T> {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            items: Vec::with_capacity(n),
            free: NONE,
        }
    }

    /// Store `x` in a free slot (or a new one) and return its index.
    #[inline]
    pub fn alloc(&mut self, x: T) -> u32 {
        if self.free != NONE {
            let id = self.free;
            self.free = self.items[id as usize].next();
            self.items[id as usize] = x;
            id
        } else {
            self.items.push(x);
            (self.items.len() - 1) as u32
        }
    }

    /// Put slot `id` on the free list (its record stays readable until reused).
    #[inline]
    pub fn free(&mut self, id: u32) {
        self.items[id as usize].set_next(self.free);
        self.free = id;
    }

    /// Slots ever used (free ones included).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Slots allocated (the memory the slab holds).
    pub fn capacity(&self) -> usize {
        self.items.capacity()
    }

    /// The records, for lists threaded through them.
    #[inline(always)]
    pub fn items(&mut self) -> &mut [T] {
        &mut self.items
    }
}

impl<T> Index<u32> for Slab<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: u32) -> &T {
        &self.items[i as usize]
    }
}

impl<T> IndexMut<u32> for Slab<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }
}

/// A FIFO list of slab indices, linked through the records.
#[derive(Clone, Copy, Debug, Default)]
pub struct List {
    pub head: u32,
    pub tail: u32,
}

impl List {
    pub const EMPTY: List = List {
        head: NONE,
        tail: NONE,
    };

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == NONE
    }

    #[inline]
    pub fn push_back<T: Linked>(&mut self, slab: &mut [T], t: u32) {
        slab[t as usize].set_next(NONE);
        if self.tail == NONE {
            self.head = t;
        } else {
            slab[self.tail as usize].set_next(t);
        }
        self.tail = t;
    }

    /// Unlink `t`, whose predecessor here is `prev` (`NONE` at the head).
    #[inline]
    pub fn remove<T: Linked>(&mut self, slab: &mut [T], prev: u32, t: u32) {
        let next = slab[t as usize].next();
        if prev == NONE {
            self.head = next;
        } else {
            slab[prev as usize].set_next(next);
        }
        if self.tail == t {
            self.tail = prev;
        }
        slab[t as usize].set_next(NONE);
    }

    /// Take the head (the list must not be empty).
    #[inline]
    pub fn pop_front<T: Linked>(&mut self, slab: &[T]) -> u32 {
        let id = self.head;
        self.head = slab[id as usize].next();
        if self.head == NONE {
            self.tail = NONE;
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    struct R {
        v: u32,
        next: u32,
    }

    impl Linked for R {
        fn next(&self) -> u32 {
            self.next
        }
        fn set_next(&mut self, n: u32) {
            self.next = n;
        }
    }

    fn r(v: u32) -> R {
        R { v, next: NONE }
    }

    #[test]
    fn freed_slots_are_reused_last_freed_first() {
        let mut s = Slab::with_capacity(2);
        let (a, b, c) = (s.alloc(r(1)), s.alloc(r(2)), s.alloc(r(3)));
        assert_eq!((a, b, c), (0, 1, 2));
        s.free(a);
        s.free(c);
        assert_eq!(s.alloc(r(4)), c);
        assert_eq!(s.alloc(r(5)), a);
        assert_eq!(s.alloc(r(6)), 3);
        assert_eq!(s[a].v, 5);
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn lists_keep_fifo_order_and_unlink_anywhere() {
        let mut s = Slab::with_capacity(4);
        let ids: Vec<u32> = (0..4).map(|v| s.alloc(r(v))).collect();
        let mut l = List::EMPTY;
        for &i in &ids {
            l.push_back(s.items(), i);
        }
        l.remove(s.items(), ids[1], ids[2]); // middle
        l.remove(s.items(), NONE, ids[0]); // head
        l.remove(s.items(), ids[1], ids[3]); // tail
        assert_eq!((l.head, l.tail), (ids[1], ids[1]));
        assert_eq!(l.pop_front(s.items()), ids[1]);
        assert!(l.is_empty() && l.tail == NONE);
    }
}
