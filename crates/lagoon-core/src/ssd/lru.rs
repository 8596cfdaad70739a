//! A fixed-capacity LRU set of `u64` keys with a small payload: slots in one array linked as
//! a doubly-linked list, and an open-addressing index, for the cached mapping table (the DRAM
//! data cache never evicts by recency and keeps a plain map). Memory follows the entries
//! held, not the capacity (a CMT of many GB on a short run costs what the run caches): slots
//! and index grow by doubling while the set fills, and once it is full nothing is allocated
//! again.

use super::prefetch;

const EMPTY: u32 = u32::MAX;
/// An index bucket: the key's hash (low 32 bits) above its slot, so a probe compares hashes
/// in the index and reads a slot only on a match, and a deletion finds the home bucket of the
/// entries it shifts back without reading their slots. `EMPTY` in the slot half marks a free
/// bucket.
const FREE: u64 = EMPTY as u64;
/// Slots allocated up front; more as the set fills.
const INITIAL_SLOTS: usize = 1 << 16;
/// Index buckets allocated up front; the index doubles as entries arrive (re-placing buckets
/// reads no slot), so a set holding few entries keeps a small index that stays in cache.
const INITIAL_BUCKETS: usize = 1 << 10;

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
    /// Open addressing with linear probing and backward-shift deletion (no tombstones).
    index: Vec<u64>,
    mask: usize,
    len: usize,
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
        let buckets = capacity.min(INITIAL_BUCKETS).next_power_of_two().max(4) * 2;
        Self {
            slots: Vec::with_capacity(capacity.min(INITIAL_SLOTS)),
            capacity,
            head: EMPTY,
            tail: EMPTY,
            free: Vec::new(),
            index: vec![FREE; buckets],
            mask: buckets - 1,
            len: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Heap bytes held: the slots, the index and the free list as allocated.
    pub fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<V>>()
            + self.index.capacity() * 8
            + self.free.capacity() * 4
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

    /// Bucket holding `key`, or the free bucket where it would go.
    #[inline]
    fn find(&self, key: u64) -> (usize, bool) {
        let h = hash(key) as u32;
        let mut i = h as usize & self.mask;
        loop {
            let b = self.index[i];
            let s = b as u32;
            if s == EMPTY {
                return (i, false);
            }
            if (b >> 32) as u32 == h && self.slots[s as usize].key == key {
                return (i, true);
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline(always)]
    fn bucket(key: u64, slot: u32) -> u64 {
        (hash(key) as u32 as u64) << 32 | slot as u64
    }

    pub fn contains(&self, key: u64) -> bool {
        self.find(key).1
    }

    /// Value without touching recency.
    pub fn peek(&self, key: u64) -> Option<V> {
        let (b, found) = self.find(key);
        found.then(|| self.slots[self.index[b] as u32 as usize].value)
    }

    /// Mutable value, moved to most recently used.
    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let (b, found) = self.find(key);
        if !found {
            return None;
        }
        let s = self.index[b] as u32;
        self.unlink(s);
        self.push_front(s);
        Some(&mut self.slots[s as usize].value)
    }

    /// Visit every entry from most to least recently used, without changing the order.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(u64, &mut V)) {
        let mut s = self.head;
        while s != EMPTY {
            let slot = &mut self.slots[s as usize];
            f(slot.key, &mut slot.value);
            s = slot.next;
        }
    }

    /// Least recently used entry.
    pub fn lru(&self) -> Option<(u64, V)> {
        (self.tail != EMPTY).then(|| {
            let s = &self.slots[self.tail as usize];
            (s.key, s.value)
        })
    }

    /// Start loading the index bucket a lookup of `key` reads first (a hint for a lookup
    /// to come; no effect on contents or order).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.index[hash(key) as usize & self.mask]);
    }

    /// Remove and return the least recently used entry. The next one's slot and index
    /// bucket are then prefetched: on a large cache they are cache misses, and a full cache
    /// evicts on every insert, so the next eviction finds them loaded.
    pub fn pop_lru(&mut self) -> Option<(u64, V)> {
        let (key, value) = self.lru()?;
        self.remove(key);
        if self.tail != EMPTY {
            let t = &self.slots[self.tail as usize];
            prefetch(&self.index[hash(t.key) as usize & self.mask]);
            if t.prev != EMPTY {
                prefetch(&self.slots[t.prev as usize]);
            }
        }
        Some((key, value))
    }

    /// Insert a key that is not present. Panics (debug) if full: callers evict first.
    pub fn insert(&mut self, key: u64, value: V) {
        debug_assert!(!self.is_full(), "LRU insert while full");
        // Keep the index at most half full as the set grows past its first allocation.
        if (self.len + 1) * 2 > self.index.len() {
            self.grow();
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
        self.index[b] = Self::bucket(key, s);
        self.push_front(s);
        self.len += 1;
    }

    pub fn remove(&mut self, key: u64) -> Option<V> {
        let (b, found) = self.find(key);
        if !found {
            return None;
        }
        let s = self.index[b] as u32;
        self.delete_bucket(b);
        self.unlink(s);
        self.free.push(s);
        self.len -= 1;
        Some(self.slots[s as usize].value)
    }

    /// Empty bucket `i` and shift back the entries after it that may not sit beyond a free
    /// bucket from their home (Knuth's Algorithm R for linear probing).
    fn delete_bucket(&mut self, mut i: usize) {
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let b = self.index[j];
            if b as u32 == EMPTY {
                break;
            }
            let home = (b >> 32) as usize & self.mask;
            // The entry at j stays if its home lies cyclically in (i, j].
            let stays = if i <= j {
                i < home && home <= j
            } else {
                i < home || home <= j
            };
            if !stays {
                self.index[i] = b;
                i = j;
            }
        }
        self.index[i] = FREE;
    }

    /// Double the index, re-placing every bucket by the hash it holds (no slot is read).
    fn grow(&mut self) {
        let n = self.index.len() * 2;
        let old = std::mem::replace(&mut self.index, vec![FREE; n]);
        self.mask = self.index.len() - 1;
        for b in old {
            if b as u32 != EMPTY {
                let mut i = (b >> 32) as usize & self.mask;
                while self.index[i] as u32 != EMPTY {
                    i = (i + 1) & self.mask;
                }
                self.index[i] = b;
            }
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
        assert_eq!(l.pop_lru(), Some((3, 0)));
        assert_eq!(l.pop_lru(), Some((1, 0)));
        assert_eq!(l.pop_lru(), Some((4, 0)));
        assert_eq!(l.pop_lru(), None);
        assert!(l.is_empty());
    }

    /// Past its first allocation (index growth) and through many deletions (backward
    /// shifts over wrapped probe runs), against maps kept by key and by recency.
    #[test]
    fn matches_maps_while_growing_and_churning() {
        use std::collections::{BTreeMap, HashMap};
        let cap = INITIAL_SLOTS * 3;
        let mut l: Lru<u64> = Lru::new(cap);
        let mut by_key: HashMap<u64, (u64, u64)> = HashMap::new(); // key -> (value, tick)
        let mut by_tick: BTreeMap<u64, u64> = BTreeMap::new(); // tick -> key
        let mut x = 0x1234_5678u64;
        for tick in 0..600_000u64 {
            x = hash(x);
            // Keys from a space about twice the capacity: hits, misses and evictions.
            let k = x % (cap as u64 * 2);
            match (x >> 60) % 4 {
                0 => {
                    let had = l.remove(k);
                    let want = by_key.remove(&k).map(|(v, t)| {
                        by_tick.remove(&t);
                        v
                    });
                    assert_eq!(had, want);
                }
                1 => assert_eq!(l.peek(k), by_key.get(&k).map(|e| e.0)),
                _ => {
                    if let Some(v) = l.get_mut(k) {
                        let (w, t) = by_key[&k];
                        assert_eq!(*v, w);
                        by_tick.remove(&t);
                        by_tick.insert(tick, k);
                        by_key.insert(k, (w, tick));
                    } else {
                        assert!(!by_key.contains_key(&k));
                        if l.is_full() {
                            let (victim, _) = l.lru().unwrap();
                            let (&t, &want) = by_tick.iter().next().unwrap();
                            assert_eq!(victim, want);
                            l.remove(victim);
                            by_tick.remove(&t);
                            by_key.remove(&victim);
                        }
                        l.insert(k, tick);
                        by_key.insert(k, (tick, tick));
                        by_tick.insert(tick, k);
                    }
                }
            }
            assert_eq!(l.len(), by_key.len());
        }
        assert!(
            l.index.len() > INITIAL_SLOTS * 2,
            "the index grew past the slots' first allocation"
        );
        for (&k, &(v, _)) in &by_key {
            assert_eq!(l.peek(k), Some(v));
        }
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
