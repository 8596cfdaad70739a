//! MQSim's write-back policy (`cache.write_policy = "mqsim"`; MQSim 7ec40e3,
//! `Data_Cache_Manager_Flash_Advanced.cpp` in WRITE_CACHE mode, `Data_Cache_Flash.cpp`):
//!
//! - The buffer is an LRU of pages (`capacity_bytes / page_bytes` slots). A write to a
//!   buffered page merges into it and makes it most recent (`Update_data`, 148-163); a write
//!   to a new page takes the least recent slot when the buffer is full (`Evict_one_slot_lru`),
//!   and a page evicted with data no program carries is written back then (296-304).
//! - A page is written to flash at once only on its first write in a window of
//!   `cache.hot_window_ms` (MQSim's `bloom_filter_reset_step`, 1 s, `.h` 57): later writes in
//!   the window stay in DRAM ("hot/cold data separation", 310-316) until the page is evicted.
//! - Back-pressure: the sectors of write-backs in flight are counted, and a write's pages are
//!   buffered only while the count is below one page per plane (`SSD_Device.cpp` 339); the
//!   rest of the write waits for programs to finish (281-283, 455-480).
//! - A finished write-back frees its slot unless newer data arrived meanwhile (456-462).
//!
//! Where Lagoon differs, by choice: the window is checked when a page is buffered (MQSim
//! checks after each request, 349); a write-back programs every buffered sector of its page
//! (MQSim's carries the sectors of the write that issued it), and is counted against the
//! back-pressure with the sectors it held when issued; an evicted page waiting for its
//! write-back serves reads from DRAM (MQSim's is read from flash, whose copy is older); one
//! write-back in flight per page frees its slot at its end (with two in flight, MQSim keeps
//! the slot until the second ends). The DRAM reads of evicted data are not charged.

use crate::ssd::lru::{IntMap, Lru};
use crate::time::Ps;

#[derive(Clone, Copy, Default)]
struct Slot {
    sectors: u64,
    /// A write-back carries the page's current data (MQSim `DIRTY_FLASH_WRITEBACK`); false:
    /// the data is newer than any write-back (`DIRTY_NO_FLASH_WRITEBACK`).
    in_flight: bool,
}

pub struct MqsimCache {
    slots: Lru<Slot>,
    /// Pages written back in the current window (MQSim's `bloom_filter`, an exact set).
    written: IntMap<u64, ()>,
    window: Ps,
    window_end: Ps,
    /// Evicted pages whose write-back has not started: their sectors.
    evicting: IntMap<u64, u64>,
    in_flight_sectors: u64,
    max_sectors: u64,
    pub read_hits: u64,
    pub write_merges: u64,
}

/// What buffering a page did.
pub struct Buffered {
    /// This page is written back now (its first write in the window).
    pub program: bool,
    /// A page evicted for it that must be written back: (page, sectors).
    pub evicted: Option<(u64, u64)>,
}

impl MqsimCache {
    /// `pages` slots; write-backs in flight up to `max_sectors` sectors (a page per plane);
    /// first writes counted over windows of `window` ps.
    pub fn new(pages: usize, max_sectors: u64, window: Ps) -> Self {
        Self {
            slots: Lru::new(pages.max(1)),
            written: IntMap::with_capacity_and_hasher(1 << 12, Default::default()),
            window: window.max(1),
            window_end: window.max(1),
            evicting: IntMap::with_capacity_and_hasher(64, Default::default()),
            in_flight_sectors: 0,
            max_sectors: max_sectors.max(1),
            read_hits: 0,
            write_merges: 0,
        }
    }

    /// Heap bytes held (they grow as pages are buffered and written).
    pub fn bytes(&self) -> usize {
        self.slots.bytes() + (self.written.capacity() + self.evicting.capacity()) * 17
    }

    /// Whether a write may buffer a page now (back-pressure below its bound).
    #[inline]
    pub fn has_room(&self) -> bool {
        self.in_flight_sectors < self.max_sectors
    }

    /// Buffer `sectors` of `lpa` written at `now`; `None` if back-pressure holds it. The
    /// write-backs it issues (this page's, an evicted page's) count their sectors against the
    /// back-pressure until [`Self::program_done`].
    pub fn admit(&mut self, now: Ps, lpa: u64, sectors: u64) -> Option<Buffered> {
        if !self.has_room() {
            return None;
        }
        if now >= self.window_end {
            // Data_Cache_Manager_Flash_Advanced.cpp 349-352: a new window of first writes.
            self.written.clear();
            self.window_end = now + self.window;
        }
        let mut evicted = None;
        if let Some(s) = self.slots.get_mut(lpa) {
            self.write_merges += 1;
            s.sectors |= sectors;
            s.in_flight = false;
        } else {
            if self.slots.is_full() {
                let (v, s) = self.slots.pop_lru().expect("a full LRU has a tail");
                if !s.in_flight {
                    evicted = Some((v, s.sectors));
                    self.evicting.insert(v, s.sectors);
                    self.in_flight_sectors += s.sectors.count_ones() as u64;
                }
            }
            self.slots.insert(
                lpa,
                Slot {
                    sectors,
                    in_flight: false,
                },
            );
        }
        let program = self.written.insert(lpa, ()).is_none();
        if program {
            let s = self.slots.get_mut(lpa).expect("just buffered");
            s.in_flight = true;
            self.in_flight_sectors += s.sectors.count_ones() as u64;
        }
        Some(Buffered { program, evicted })
    }

    /// Buffered sectors of a page (0 if absent): a buffered page, or an evicted page whose
    /// write-back has not started.
    pub fn sectors(&self, lpa: u64) -> u64 {
        match self.slots.peek(lpa) {
            Some(s) => s.sectors,
            None => self.evicting.get(&lpa).copied().unwrap_or(0),
        }
    }

    /// The write-back of `lpa` left for its die: an evicted page's data is in it now.
    pub fn program_started(&mut self, lpa: u64) {
        self.evicting.remove(&lpa);
    }

    /// A write-back of `lpa` holding `sectors` finished: its slot goes unless newer data
    /// arrived since it was issued.
    pub fn program_done(&mut self, lpa: u64, sectors: u64) {
        self.in_flight_sectors = self.in_flight_sectors.saturating_sub(sectors);
        if matches!(self.slots.peek(lpa), Some(s) if s.in_flight) {
            self.slots.remove(lpa);
        }
    }

    /// A flush: every buffered page whose data no write-back carries is written back now
    /// (MQSim models no flush; a drive's flush writes its dirty data). Returns (page, sectors)
    /// for each, counted against the back-pressure as a write-back.
    pub fn take_dirty(&mut self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut counted = 0;
        self.slots.for_each_mut(|lpa, s| {
            if !s.in_flight {
                s.in_flight = true;
                counted += s.sectors.count_ones() as u64;
                out.push((lpa, s.sectors));
            }
        });
        self.in_flight_sectors += counted;
        out
    }

    pub fn occupied_pages(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_writes_in_a_window_go_to_flash_and_rewrites_stay_in_dram() {
        // 2 slots, 16 sectors in flight at most, 1 us windows.
        let mut c = MqsimCache::new(2, 16, 1_000_000);
        let b = c.admit(0, 1, 0xff).unwrap();
        assert!(b.program && b.evicted.is_none());
        // A rewrite in the window: merged, no program; the slot now holds newer data.
        let b = c.admit(10, 1, 0x1).unwrap();
        assert!(!b.program && b.evicted.is_none());
        assert_eq!(c.write_merges, 1);
        // Its write-back ends: newer data keeps the slot.
        c.program_done(1, 8);
        assert_eq!(c.occupied_pages(), 1);
        // Page 2, then page 3 evicts page 1 (least recent, dirty, no program carries it).
        assert!(c.admit(20, 2, 0xff).unwrap().program);
        let b = c.admit(30, 3, 0xff).unwrap();
        assert_eq!(b.evicted, Some((1, 0xff)));
        assert!(b.program);
        assert_eq!(
            c.sectors(1),
            0xff,
            "served from DRAM until its write-back starts"
        );
        // 24 sectors in flight, bound 16: back-pressure.
        assert!(!c.has_room() && c.admit(40, 4, 0xff).is_none());
        c.program_started(1);
        c.program_done(1, 8);
        c.program_done(2, 8);
        assert!(c.has_room());
        // A new window: page 3 is written back again on its next write.
        assert!(c.admit(2_000_000, 3, 0xff).unwrap().program);
    }
}
