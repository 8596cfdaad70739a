//! Logical-to-physical page map stored compactly.
//!
//! Preconditioning places every logical page at a *home* location computed from its
//! address (static allocation picks the plane; the page's index within the plane picks
//! block and page). Those entries are not stored: the map holds [`IMPLICIT`] for them, and a
//! 256-entry chunk is materialized only when one of its pages is first written during the
//! run. A freshly preconditioned 240 GB drive therefore costs its chunk table (8 bytes per
//! 256 pages, 1.9 MB), not gigabytes.

/// Map value of a logical page still at its precondition home location.
pub const IMPLICIT: u32 = u32::MAX;

/// A chunk stores `ppa ^ IMPLICIT`, so a fresh chunk is zeroed memory: allocated zeroed, its
/// pages are not touched (filled or faulted in) until entries on them are written. 256
/// entries (1 KB): a random write materializes and faults in a quarter of a memory page, where
/// 4096-entry chunks made scattered writes hold (and fault in) 16 KB each: a third of the
/// CPU of write-heavy runs went to page faults (syn:hm_0 timed: 341 MB -> 84 MB resident,
/// 0.40 s -> 0.21 s); the chunk table costs 1/128 of a full map. (Declared with the memory
/// budget, which counts the chunk table up front.)
pub use crate::config::schema::L2P_CHUNK_BITS as CHUNK_BITS;
const CHUNK: usize = 1 << CHUNK_BITS;

pub struct L2pMap {
    chunks: Vec<Option<Box<[u32; CHUNK]>>>,
    materialized: usize,
}

impl L2pMap {
    pub fn new(logical_pages: u64) -> Self {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        Self {
            // Zeroed memory (`None` is a null pointer): the table's pages are not touched
            // until a chunk of theirs is written.
            chunks: vec![None; n],
            materialized: 0,
        }
    }

    /// Start loading the chunk-table slot `get(lpa)` will read (a hint: no effect on
    /// results). On a large drive the table is megabytes, so a random lookup is a cache miss.
    #[inline]
    pub fn prefetch(&self, lpa: u64) {
        if let Some(slot) = self.chunks.get((lpa >> CHUNK_BITS) as usize) {
            crate::ssd::prefetch(slot);
        }
    }

    #[inline]
    pub fn get(&self, lpa: u64) -> u32 {
        match &self.chunks[(lpa >> CHUNK_BITS) as usize] {
            Some(c) => c[lpa as usize & (CHUNK - 1)] ^ IMPLICIT,
            None => IMPLICIT,
        }
    }

    #[inline]
    pub fn set(&mut self, lpa: u64, ppa: u32) {
        let slot = &mut self.chunks[(lpa >> CHUNK_BITS) as usize];
        if slot.is_none() {
            let zeroed: Box<[u32]> = vec![0; CHUNK].into_boxed_slice();
            *slot = Some(zeroed.try_into().expect("CHUNK entries"));
            self.materialized += 1;
        }
        slot.as_mut().unwrap()[lpa as usize & (CHUNK - 1)] = ppa ^ IMPLICIT;
    }

    /// Bytes of the chunks materialized so far (what the map grows by during a run).
    pub fn materialized_bytes(&self) -> usize {
        self.materialized * CHUNK * 4
    }

    /// Bytes held by materialized chunks (for memory reporting).
    pub fn bytes(&self) -> usize {
        self.materialized * CHUNK * 4
            + self.chunks.len() * std::mem::size_of::<Option<Box<[u32; CHUNK]>>>()
    }

    /// Logical pages written during the run (not at their home), in LPA order.
    pub fn written(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.chunks
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_ref().map(|c| (i, c)))
            .flat_map(|(i, c)| {
                c.iter()
                    .enumerate()
                    .filter(|(_, &p)| p != 0)
                    .map(move |(j, &p)| (((i << CHUNK_BITS) + j) as u64, p ^ IMPLICIT))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn implicit_until_written() {
        let mut m = L2pMap::new(10_000);
        assert_eq!(m.get(9_999), IMPLICIT);
        m.set(9_999, 7);
        m.set(5, 3);
        assert_eq!(m.get(9_999), 7);
        assert_eq!(m.get(9_998), IMPLICIT);
        assert_eq!(m.written().collect::<Vec<_>>(), vec![(5, 3), (9_999, 7)]);
    }
}
