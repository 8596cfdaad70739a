//! DRAM write buffer in the controller (MQSim-class data cache, write-cache mode).
//!
//! Policy (documented choice): a host write completes once its data is in DRAM; every newly
//! buffered page is queued for programming at once (eager destage, as real drives drain their
//! write buffer and as MQSim does for first writes to a page), and its slot is released when
//! the program finishes. A page rewritten while buffered is merged: one more program is queued
//! only if the earlier one already left for the flash. Reads that find every requested sector
//! buffered are served from DRAM. When every slot holds data not yet programmed, new writes
//! wait: this is the back-pressure that makes write latency follow the flash under load.
//!
//! DRAM is one FIFO channel owned by the data path (`ssd::datapath::Resource`): an access
//! costs `dram_access_ns` plus bytes at `dram_mb_s`.

use crate::config::CacheConfig;
use crate::ssd::lru::IntMap;

/// Program state of a buffered page.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub enum Destage {
    /// A program is queued and has not started: later writes merge into it.
    #[default]
    Queued,
    /// A program is under way; the buffered data is the same.
    InFlight,
    /// A program is under way and newer data arrived: another program is needed after it.
    InFlightDirty,
}

#[derive(Clone, Copy, Default)]
pub struct Slot {
    /// Buffered sectors of the page (bit i = sector i).
    pub sectors: u64,
    pub destage: Destage,
}

/// Buffered pages by LPA. A plain map, not an LRU: a slot leaves only when its program ends
/// (never by recency), so keeping a recency order would cost a list update per access.
pub struct DataCache {
    slots: IntMap<u64, Slot>,
    capacity: usize,
    pub read_hits: u64,
    pub write_merges: u64,
}

/// Result of buffering one page of a write.
pub enum Admit {
    /// Buffered; a new program must be queued for it.
    NeedsProgram,
    /// Merged into a queued or running program (none to add now).
    Merged,
    /// No free slot: the write must wait.
    Full,
}

impl DataCache {
    pub fn new(cfg: &CacheConfig, page_bytes: u32) -> Self {
        Self {
            // Grows with what a run buffers, up to `capacity` (the map starts small).
            slots: IntMap::with_capacity_and_hasher(1 << 12, Default::default()),
            capacity: ((cfg.capacity_bytes / page_bytes as u64) as usize).max(1),
            read_hits: 0,
            write_merges: 0,
        }
    }

    /// Heap bytes held by the map (it grows as pages are buffered): a key, a slot and a
    /// control byte per bucket.
    pub fn bytes(&self) -> usize {
        self.slots.capacity() * (std::mem::size_of::<(u64, Slot)>() + 1)
    }

    pub fn has_room(&self, lpa: u64) -> bool {
        !self.is_full() || self.slots.contains_key(&lpa)
    }

    pub fn admit(&mut self, lpa: u64, sectors: u64) -> Admit {
        if let Some(s) = self.slots.get_mut(&lpa) {
            s.sectors |= sectors;
            self.write_merges += 1;
            return match s.destage {
                Destage::Queued | Destage::InFlightDirty => Admit::Merged,
                Destage::InFlight => {
                    s.destage = Destage::InFlightDirty;
                    Admit::Merged
                }
            };
        }
        if self.is_full() {
            return Admit::Full;
        }
        self.slots.insert(
            lpa,
            Slot {
                sectors,
                destage: Destage::Queued,
            },
        );
        Admit::NeedsProgram
    }

    /// Buffered sectors of a page (0 if absent).
    pub fn sectors(&self, lpa: u64) -> u64 {
        self.slots.get(&lpa).map_or(0, |s| s.sectors)
    }

    /// The page's program was dispatched to a die.
    pub fn program_started(&mut self, lpa: u64) {
        if let Some(s) = self.slots.get_mut(&lpa) {
            s.destage = Destage::InFlight;
        }
    }

    /// The page's program finished. Returns true if newer data needs another program;
    /// otherwise the slot is released.
    pub fn program_done(&mut self, lpa: u64) -> bool {
        match self.slots.get_mut(&lpa) {
            Some(s) if s.destage == Destage::InFlightDirty => {
                s.destage = Destage::Queued;
                true
            }
            Some(_) => {
                self.slots.remove(&lpa);
                false
            }
            None => false,
        }
    }

    fn is_full(&self) -> bool {
        self.slots.len() >= self.capacity
    }

    pub fn occupied_pages(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_pages() -> DataCache {
        let c = CacheConfig {
            capacity_bytes: 2 * 4096,
            ..CacheConfig::default()
        };
        DataCache::new(&c, 4096)
    }

    #[test]
    fn a_full_buffer_pushes_back_until_a_program_frees_a_slot() {
        let mut c = two_pages();
        assert!(matches!(c.admit(1, 0b1), Admit::NeedsProgram));
        assert!(matches!(c.admit(2, 0xff), Admit::NeedsProgram));
        // A third page: no slot. A rewrite of a buffered page still merges.
        assert!(matches!(c.admit(3, 0b1), Admit::Full));
        assert!(!c.has_room(3) && c.has_room(1));
        assert!(matches!(c.admit(1, 0b10), Admit::Merged));
        assert_eq!(c.sectors(1), 0b11);
        // Page 1's program runs and ends: its slot is free for page 3.
        c.program_started(1);
        assert!(!c.program_done(1));
        assert!(c.has_room(3));
        assert!(matches!(c.admit(3, 0b1), Admit::NeedsProgram));
        assert_eq!((c.occupied_pages(), c.write_merges), (2, 1));
    }

    #[test]
    fn data_written_during_a_program_needs_another() {
        let mut c = two_pages();
        assert!(matches!(c.admit(5, 0b1), Admit::NeedsProgram));
        c.program_started(5);
        // Newer data while the program runs: merged now, programmed again after it.
        assert!(matches!(c.admit(5, 0b100), Admit::Merged));
        assert!(c.program_done(5), "another program");
        c.program_started(5);
        assert!(!c.program_done(5), "then the slot is released");
        assert_eq!(c.occupied_pages(), 0);
    }
}
