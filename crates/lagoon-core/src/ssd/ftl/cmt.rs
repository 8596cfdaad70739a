//! Cached mapping table (demand-based FTL, as DFTL and MQSim's CMT): individual
//! logical-to-physical entries cached in controller DRAM in LRU order. A miss costs a flash
//! read of the translation page holding the entry; concurrent misses to one translation page
//! share one read; evicting a dirty entry writes its translation page back.

use crate::ssd::lru::Lru;

#[derive(Clone, Copy, Default)]
pub struct Entry {
    pub dirty: bool,
}

pub struct Cmt {
    entries: Lru<Entry>,
}

/// What inserting an entry displaced.
pub enum Evicted {
    Nothing,
    Clean,
    /// A dirty entry: its translation page must be written back.
    Dirty {
        lpa: u64,
    },
}

impl Cmt {
    pub fn new(capacity_entries: usize) -> Self {
        Self {
            entries: Lru::new(capacity_entries),
        }
    }

    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Heap bytes held (it grows as entries are cached).
    pub fn bytes(&self) -> usize {
        self.entries.bytes()
    }

    /// Start loading what a lookup of `lpa` will read (a hint: a lookup in a large CMT is a
    /// cache miss, and a request's entries are known well before they are translated).
    #[inline]
    pub fn prefetch(&self, lpa: u64) {
        self.entries.prefetch(lpa);
    }

    /// Look up an entry, refreshing its recency.
    #[inline]
    pub fn hit(&mut self, lpa: u64) -> bool {
        self.entries.get_mut(lpa).is_some()
    }

    /// Insert (or refresh) an entry; `dirty` marks a mapping changed since its translation
    /// page was written.
    pub fn insert(&mut self, lpa: u64, dirty: bool) -> Evicted {
        if let Some(e) = self.entries.get_mut(lpa) {
            e.dirty |= dirty;
            return Evicted::Nothing;
        }
        let mut out = Evicted::Nothing;
        if self.entries.is_full() {
            let (victim, e) = self.entries.pop_lru().expect("full LRU has a tail");
            out = if e.dirty {
                Evicted::Dirty { lpa: victim }
            } else {
                Evicted::Clean
            };
        }
        self.entries.insert(lpa, Entry { dirty });
        out
    }

    /// Mark a cached entry dirty if present (GC relocation); returns whether it was cached.
    pub fn mark_dirty(&mut self, lpa: u64) -> bool {
        match self.entries.get_mut(lpa) {
            Some(e) => {
                e.dirty = true;
                true
            }
            None => false,
        }
    }
}
