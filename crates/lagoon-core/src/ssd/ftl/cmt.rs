//! Cached mapping table (demand-based FTL, as DFTL and MQSim's CMT): individual
//! logical-to-physical entries cached in controller DRAM in LRU order. A miss costs a flash
//! read of the translation page holding the entry; concurrent misses to one translation page
//! share one read. Evicting a dirty entry writes its translation page back, and with it every
//! other dirty entry of that page still cached (DFTL's batch update, Gupta et al. ASPLOS 2009
//! §3.3; MQSim `Address_Mapping_Unit_Page_Level.cpp` 1582-1600): they stay cached, clean.
//!
//! Cleaning a translation page's entries at once costs O(1): each translation page has a
//! generation, and an entry is dirty when it carries its page's current generation. A
//! write-back advances the generation, so every entry marked before it reads as clean.

use crate::ssd::lru::Lru;

/// A cached entry: 0 = clean, else its translation page's generation + 1 when marked dirty.
#[derive(Clone, Copy, Default)]
pub struct Entry {
    tag: u32,
}

/// Per translation page: its generation and how many of its cached entries are dirty.
#[derive(Clone, Copy, Default)]
struct Page {
    gen: u32,
    dirty: u32,
}

pub struct Cmt {
    entries: Lru<Entry>,
    pages: Vec<Page>,
    entries_per_page: u64,
}

/// What inserting an entry displaced.
#[derive(Debug, PartialEq, Eq)]
pub enum Evicted {
    Nothing,
    Clean,
    /// A dirty entry: its translation page must be written back, carrying `entries` dirty
    /// entries (the evicted one and every other dirty one of that page, now clean).
    Dirty {
        lpa: u64,
        entries: u32,
    },
}

impl Cmt {
    /// A table of `capacity_entries` entries over `translation_pages` translation pages of
    /// `entries_per_page` entries each.
    pub fn new(capacity_entries: usize, translation_pages: usize, entries_per_page: u64) -> Self {
        Self {
            entries: Lru::new(capacity_entries),
            // Zeroed: generation 0, no dirty entry (no memset on a large drive).
            pages: vec![Page::default(); translation_pages],
            entries_per_page,
        }
    }

    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Heap bytes the entries hold (they grow as they are cached; the per-page table is
    /// allocated up front, in `SsdConfig::preallocated_state_bytes`).
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

    #[inline]
    fn page_of(&self, lpa: u64) -> usize {
        (lpa / self.entries_per_page) as usize
    }

    /// Mark `e` (the entry of `lpa`) dirty, counting it in its page if it was clean.
    #[inline]
    fn mark(pages: &mut [Page], page: usize, e: &mut Entry) {
        let p = &mut pages[page];
        let tag = p.gen.wrapping_add(1).max(1);
        if e.tag != tag {
            e.tag = tag;
            p.dirty += 1;
        }
    }

    /// Insert (or refresh) an entry; `dirty` marks a mapping changed since its translation
    /// page was written.
    pub fn insert(&mut self, lpa: u64, dirty: bool) -> Evicted {
        let page = self.page_of(lpa);
        if let Some(e) = self.entries.get_mut(lpa) {
            if dirty {
                Self::mark(&mut self.pages, page, e);
            }
            return Evicted::Nothing;
        }
        let mut out = Evicted::Nothing;
        if self.entries.is_full() {
            let (victim, e) = self.entries.pop_lru().expect("full LRU has a tail");
            out = if self.is_dirty(victim, e) {
                let vp = self.page_of(victim);
                let p = &mut self.pages[vp];
                let entries = p.dirty;
                // The write-back carries every dirty entry of the page: all become clean.
                p.dirty = 0;
                p.gen = p.gen.wrapping_add(1);
                Evicted::Dirty {
                    lpa: victim,
                    entries,
                }
            } else {
                Evicted::Clean
            };
        }
        let mut e = Entry::default();
        if dirty {
            Self::mark(&mut self.pages, page, &mut e);
        }
        self.entries.insert(lpa, e);
        out
    }

    #[inline]
    fn is_dirty(&self, lpa: u64, e: Entry) -> bool {
        e.tag != 0 && e.tag == self.pages[self.page_of(lpa)].gen.wrapping_add(1).max(1)
    }

    /// Mark a cached entry dirty if present (GC relocation); returns whether it was cached.
    pub fn mark_dirty(&mut self, lpa: u64) -> bool {
        let page = self.page_of(lpa);
        match self.entries.get_mut(lpa) {
            Some(e) => {
                Self::mark(&mut self.pages, page, e);
                true
            }
            None => false,
        }
    }

    /// Dirty entries of `lpa`'s translation page now cached.
    pub fn dirty_in_page(&self, lpa: u64) -> u32 {
        self.pages[self.page_of(lpa)].dirty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicting_a_dirty_entry_writes_back_every_dirty_entry_of_its_page_once() {
        // Two entries cached, 4 entries per translation page: pages {0..3}, {4..7}.
        let mut c = Cmt::new(3, 2, 4);
        assert_eq!(c.insert(0, true), Evicted::Nothing);
        assert_eq!(c.insert(1, true), Evicted::Nothing);
        assert_eq!(c.insert(5, false), Evicted::Nothing);
        assert_eq!(c.dirty_in_page(0), 2);
        // Entry 0 (dirty) is the least recent: its page goes back with entry 1.
        assert_eq!(c.insert(6, true), Evicted::Dirty { lpa: 0, entries: 2 });
        assert_eq!(c.dirty_in_page(0), 0);
        // Entry 1 stayed cached, clean: evicting it writes nothing.
        assert_eq!(c.insert(7, false), Evicted::Clean);
        // Entry 5 was clean; 6 is dirty (page 1, one entry).
        assert_eq!(c.insert(2, false), Evicted::Clean);
        assert_eq!(c.insert(3, false), Evicted::Dirty { lpa: 6, entries: 1 });
    }

    #[test]
    fn marking_an_entry_twice_counts_it_once_and_again_after_a_write_back() {
        let mut c = Cmt::new(2, 1, 8);
        c.insert(1, true);
        c.insert(1, true);
        assert!(c.mark_dirty(1));
        assert_eq!(c.dirty_in_page(1), 1);
        assert!(!c.mark_dirty(2), "not cached");
        c.insert(2, true);
        assert_eq!(c.dirty_in_page(1), 2);
        // Evict 1 (dirty, LRU): both go back; 2 is clean now, and dirty again once marked.
        assert_eq!(c.insert(3, false), Evicted::Dirty { lpa: 1, entries: 2 });
        assert!(c.mark_dirty(2));
        assert_eq!(c.dirty_in_page(2), 1);
    }
}
