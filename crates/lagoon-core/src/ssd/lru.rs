//! A fixed-capacity LRU set of `u64` keys with a small payload: slots in one array linked as
//! a doubly-linked list, and an open-addressing index. Shared by the cached mapping table and
//! the DRAM data cache. Memory follows the entries held, not the capacity (a 1 TB cache on a
//! short run costs what the run caches): slots and index grow by doubling while the set fills,
//! and once it is full nothing is allocated again.

const EMPTY: u32 = u32::MAX;
const TOMB: u32 = u32::MAX - 1;
/// Slots allocated up front; more as the set fills.
const INITIAL_SLOTS: usize = 1 << 16;

#[derive(Clone, Copy)]
struct Slot<V: Copy> {
    key: u64,
    prev: u32,
    next: u32,
    value: V,
}

pub struct Lru<V: Copy + Default> {
    slots: Vec<Slot<V>>,
    capacity: usize,
    /// Most recently used slot, least recently used slot.
    head: u32,
    tail: u32,
    free: Vec<u32>,
    index: Vec<u32>,
    mask: usize,
    len: usize,
    tombs: usize,
}

/// A `HashMap` keyed by integers that hashes with [`hash`] instead of SipHash: for maps on
/// the hot path that are never iterated (iteration order would follow the hasher).
pub(crate) type IntMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<IntHasher>>;

#[derive(Default)]
pub(crate) struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = hash(self.0 ^ b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, k: u32) {
        self.0 = hash(k as u64);
    }
    #[inline]
    fn write_u64(&mut self, k: u64) {
        self.0 = hash(k);
    }
}

#[inline(always)]
fn hash(k: u64) -> u64 {
    // SplitMix64 finalizer: cheap and well mixed for sequential keys.
    let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<V: Copy + Default> Lru<V> {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let buckets = (capacity.min(INITIAL_SLOTS) * 2).next_power_of_two().max(8);
        Self {
            slots: Vec::with_capacity(capacity.min(INITIAL_SLOTS)),
            capacity,
            head: EMPTY,
            tail: EMPTY,
            free: Vec::new(),
            index: vec![EMPTY; buckets],
            mask: buckets - 1,
            len: 0,
            tombs: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn is_full(&self) -> bool {
        self.len >= self.capacity()
    }

    /// Bucket holding `key`, or the first free bucket where it would go.
    #[inline]
    fn find(&self, key: u64) -> (usize, bool) {
        let mut i = hash(key) as usize & self.mask;
        let mut first_tomb = usize::MAX;
        loop {
            let s = self.index[i];
            if s == EMPTY {
                return (
                    if first_tomb != usize::MAX {
                        first_tomb
                    } else {
                        i
                    },
                    false,
                );
            }
            if s == TOMB {
                if first_tomb == usize::MAX {
                    first_tomb = i;
                }
            } else if self.slots[s as usize].key == key {
                return (i, true);
            }
            i = (i + 1) & self.mask;
        }
    }

    pub fn contains(&self, key: u64) -> bool {
        self.find(key).1
    }

    /// Value without touching recency.
    pub fn peek(&self, key: u64) -> Option<V> {
        let (b, found) = self.find(key);
        found.then(|| self.slots[self.index[b] as usize].value)
    }

    /// Mutable value, moved to most recently used.
    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let (b, found) = self.find(key);
        if !found {
            return None;
        }
        let s = self.index[b];
        self.unlink(s);
        self.push_front(s);
        Some(&mut self.slots[s as usize].value)
    }

    /// Least recently used entry.
    pub fn lru(&self) -> Option<(u64, V)> {
        (self.tail != EMPTY).then(|| {
            let s = &self.slots[self.tail as usize];
            (s.key, s.value)
        })
    }

    /// Walk from least to most recently used, stopping when `f` returns false.
    pub fn scan_from_lru(&self, mut f: impl FnMut(u64, V) -> bool) {
        let mut s = self.tail;
        while s != EMPTY {
            let slot = &self.slots[s as usize];
            if !f(slot.key, slot.value) {
                break;
            }
            s = slot.prev;
        }
    }

    /// Insert a key that is not present. Panics (debug) if full: callers evict first.
    pub fn insert(&mut self, key: u64, value: V) {
        debug_assert!(!self.is_full(), "LRU insert while full");
        // Keep the index at most half full as the set grows past its first allocation.
        if (self.len + self.tombs + 1) * 2 > self.index.len() {
            self.index = vec![EMPTY; self.index.len() * 2];
            self.mask = self.index.len() - 1;
            self.rehash();
        }
        let (b, found) = self.find(key);
        debug_assert!(!found);
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Slot {
                    key,
                    prev: EMPTY,
                    next: EMPTY,
                    value,
                };
                s
            }
            None => {
                self.slots.push(Slot {
                    key,
                    prev: EMPTY,
                    next: EMPTY,
                    value,
                });
                (self.slots.len() - 1) as u32
            }
        };
        if self.index[b] == TOMB {
            self.tombs -= 1;
        }
        self.index[b] = s;
        self.push_front(s);
        self.len += 1;
    }

    pub fn remove(&mut self, key: u64) -> Option<V> {
        let (b, found) = self.find(key);
        if !found {
            return None;
        }
        let s = self.index[b];
        self.index[b] = TOMB;
        self.tombs += 1;
        self.unlink(s);
        self.free.push(s);
        self.len -= 1;
        if self.tombs > self.index.len() / 4 {
            self.rehash();
        }
        Some(self.slots[s as usize].value)
    }

    fn rehash(&mut self) {
        self.index.fill(EMPTY);
        self.tombs = 0;
        let mut s = self.head;
        while s != EMPTY {
            let (b, _) = self.find(self.slots[s as usize].key);
            self.index[b] = s;
            s = self.slots[s as usize].next;
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let Slot { prev, next, .. } = self.slots[s as usize];
        if prev != EMPTY {
            self.slots[prev as usize].next = next;
        } else {
            self.head = next;
        }
        if next != EMPTY {
            self.slots[next as usize].prev = prev;
        } else {
            self.tail = prev;
        }
    }

    #[inline]
    fn push_front(&mut self, s: u32) {
        self.slots[s as usize].prev = EMPTY;
        self.slots[s as usize].next = self.head;
        if self.head != EMPTY {
            self.slots[self.head as usize].prev = s;
        } else {
            self.tail = s;
        }
        self.head = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn evicts_least_recent() {
        let mut l: Lru<u8> = Lru::new(3);
        l.insert(1, 0);
        l.insert(2, 0);
        l.insert(3, 0);
        l.get_mut(1);
        assert_eq!(l.lru().unwrap().0, 2);
        l.remove(2);
        l.insert(4, 0);
        assert_eq!(l.lru().unwrap().0, 3);
        assert!(l.is_full());
    }

    proptest! {
        #[test]
        fn matches_reference_model(ops in proptest::collection::vec((0u8..3, 0u64..20), 0..400)) {
            let cap = 5;
            let mut l: Lru<u64> = Lru::new(cap);
            let mut model: Vec<u64> = Vec::new(); // front = most recent
            for (op, k) in ops {
                match op {
                    0 => {
                        if l.get_mut(k).is_some() {
                            model.retain(|&x| x != k);
                            model.insert(0, k);
                        } else {
                            if l.is_full() {
                                let (victim, _) = l.lru().unwrap();
                                l.remove(victim);
                                prop_assert_eq!(model.pop(), Some(victim));
                            }
                            l.insert(k, k);
                            model.insert(0, k);
                        }
                    }
                    1 => {
                        let had = l.remove(k).is_some();
                        prop_assert_eq!(had, model.contains(&k));
                        model.retain(|&x| x != k);
                    }
                    _ => prop_assert_eq!(l.contains(k), model.contains(&k)),
                }
                prop_assert_eq!(l.len(), model.len());
                prop_assert_eq!(l.lru().map(|x| x.0), model.last().copied());
            }
        }
    }
}
