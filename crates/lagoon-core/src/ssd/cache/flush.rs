//! Flushes of the write buffer (NVMe Flush, NBD FLUSH and FUA): a flush completes once every
//! page of data buffered before it has been programmed. Kept only in live runs
//! ([`crate::sim::Simulator::start_live`]); other runs pay nothing for it.
//!
//! Each flush closes an *epoch*. A buffered page is counted in the epoch of its oldest data not
//! yet programmed; flush *k* completes when epochs 0..=k count no page. A program carries the
//! data buffered when it started (the admit sequence number then); newer data keeps the page
//! counted, in the epoch its program started in (never later than that data's own), so a flush
//! is never early, and at most one program late.

use crate::ssd::lru::IntMap;
use crate::time::Ps;
use std::collections::VecDeque;

#[derive(Clone, Copy)]
struct Page {
    /// Epoch the page is counted in.
    epoch: u32,
    /// Sequence number of the latest data buffered for it.
    latest: u64,
    /// Latest data the program under way carries (0: none under way) and the epoch it
    /// started in.
    inflight: u64,
    started_epoch: u32,
}

/// A flush waiting for its epoch to drain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flush {
    pub flow: usize,
    pub tag: u64,
    pub arrival: Ps,
}

#[derive(Default)]
pub struct FlushTracker {
    pages: IntMap<u64, Page>,
    seq: u64,
    /// Current epoch (flushes issued so far).
    epoch: u32,
    /// Pages counted per epoch, from epoch `base`.
    counts: VecDeque<u32>,
    base: u32,
    /// Flushes waiting, oldest first, with the epoch each closed.
    waiting: VecDeque<(u32, Flush)>,
    /// Flushes completed and not yet taken, with when.
    pub done: Vec<(Flush, Ps)>,
}

impl FlushTracker {
    fn count(&mut self, epoch: u32) -> &mut u32 {
        let i = (epoch - self.base) as usize;
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        &mut self.counts[i]
    }

    /// Data of `lpa` was buffered (a new page, or merged into a buffered one).
    pub fn admitted(&mut self, lpa: u64) {
        self.seq += 1;
        let (seq, epoch) = (self.seq, self.epoch);
        match self.pages.get_mut(&lpa) {
            Some(p) => p.latest = seq,
            None => {
                self.pages.insert(
                    lpa,
                    Page {
                        epoch,
                        latest: seq,
                        inflight: 0,
                        started_epoch: epoch,
                    },
                );
                *self.count(epoch) += 1;
            }
        }
    }

    /// A program of `lpa`'s buffered data started: it carries everything buffered so far.
    pub fn program_started(&mut self, lpa: u64) {
        let epoch = self.epoch;
        if let Some(p) = self.pages.get_mut(&lpa) {
            p.inflight = p.latest;
            p.started_epoch = epoch;
        }
    }

    /// A program of `lpa` finished at `now`.
    pub fn program_done(&mut self, lpa: u64, now: Ps) {
        let Some(p) = self.pages.get(&lpa).copied() else {
            return;
        };
        if p.inflight == 0 {
            return;
        }
        *self.count(p.epoch) -= 1;
        if p.latest <= p.inflight {
            self.pages.remove(&lpa);
        } else {
            // Data newer than the program: buffered after it started, so in its start epoch
            // or later.
            let e = p.started_epoch.max(p.epoch);
            *self.count(e) += 1;
            let q = self.pages.get_mut(&lpa).expect("present");
            q.epoch = e;
            q.inflight = 0;
        }
        self.settle(now);
    }

    /// A flush arrives at `now`: done at once if nothing buffered before it is waiting.
    pub fn flush(&mut self, f: Flush, now: Ps) {
        let k = self.epoch;
        self.epoch += 1;
        self.waiting.push_back((k, f));
        self.settle(now);
    }

    /// Drop drained epochs before the current one and complete the flushes they close.
    fn settle(&mut self, now: Ps) {
        while self.base < self.epoch && self.counts.front().is_none_or(|&c| c == 0) {
            self.counts.pop_front();
            self.base += 1;
        }
        while let Some(&(k, f)) = self.waiting.front() {
            if k >= self.base {
                break;
            }
            self.waiting.pop_front();
            self.done.push((f, now));
        }
    }

    /// Pages with data not yet programmed.
    pub fn dirty_pages(&self) -> usize {
        self.pages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fl(tag: u64) -> Flush {
        Flush {
            flow: 0,
            tag,
            arrival: 0,
        }
    }

    #[test]
    fn a_flush_waits_for_the_programs_of_data_buffered_before_it() {
        let mut t = FlushTracker::default();
        t.flush(fl(0), 1);
        assert_eq!(t.done, vec![(fl(0), 1)], "nothing buffered: at once");
        t.admitted(7);
        t.admitted(8);
        t.program_started(7);
        t.flush(fl(1), 2);
        t.admitted(9); // after the flush: not waited for
        t.program_done(7, 3);
        assert_eq!(t.done.len(), 1);
        t.program_started(8);
        t.program_done(8, 4);
        assert_eq!(t.done[1], (fl(1), 4));
        assert_eq!(t.dirty_pages(), 1);
    }

    #[test]
    fn data_merged_after_a_program_started_needs_the_next_program() {
        let mut t = FlushTracker::default();
        t.admitted(5);
        t.program_started(5);
        t.admitted(5); // newer data while the program runs
        t.flush(fl(1), 1);
        t.program_done(5, 2);
        assert!(t.done.is_empty(), "the newer data is not programmed yet");
        t.program_started(5);
        t.program_done(5, 3);
        assert_eq!(t.done, vec![(fl(1), 3)]);
        assert_eq!(t.dirty_pages(), 0);
    }

    #[test]
    fn flushes_complete_in_order() {
        let mut t = FlushTracker::default();
        t.admitted(1);
        t.flush(fl(1), 1);
        t.admitted(2);
        t.flush(fl(2), 1);
        t.program_started(2);
        t.program_done(2, 2);
        assert!(t.done.is_empty(), "flush 2 also covers page 1");
        t.program_started(1);
        t.program_done(1, 3);
        assert_eq!(t.done, vec![(fl(1), 3), (fl(2), 3)]);
    }
}
