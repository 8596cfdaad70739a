//! TRIM (NVMe Dataset Management deallocate, NBD TRIM): a logical page unmapped, holding no
//! physical page until written again ([`TRIMMED`] in the map), so GC never moves it.

use super::{Ftl, TRIMMED};

impl Ftl {
    /// Deallocate a logical page (NVMe Dataset Management / NBD TRIM): its physical page, if
    /// any, becomes invalid (GC will not move it) and the page maps to none until written
    /// again. True if it held data.
    pub fn trim(&mut self, lpa: u64) -> bool {
        let held = self.has_data(lpa);
        if held {
            self.invalidate_current(lpa);
            self.counters.trimmed_pages += 1;
        }
        // Marked even if it held nothing (never written, outside the preconditioned range): a
        // read of it is then answered without a flash read.
        // Its sectors hold nothing now: a later partial write reads none of them.
        self.partial_sectors.remove(&lpa);
        if self.l2p.get(lpa) != TRIMMED {
            self.l2p.set(lpa, TRIMMED);
        }
        held
    }

    /// Whether a logical page is trimmed (maps to no physical page).
    #[inline]
    pub fn is_trimmed(&self, lpa: u64) -> bool {
        self.l2p.get(lpa) == TRIMMED
    }
}

/// The TRIM counters are left out of reports of runs without TRIM (they stay unchanged).
pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}
