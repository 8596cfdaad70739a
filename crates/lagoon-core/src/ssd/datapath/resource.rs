//! A contended controller resource (system bus, DRAM, ECC engine, dedicated bus): a server
//! with a calendar. A grant takes the earliest free interval, at or after its data is ready,
//! long enough for `grant latency + bytes / bandwidth`. Grants are made when a movement's
//! data is (or will be) ready; a grant booked for later does not block a movement ready now
//! if the gap before it is long enough (an arbiter serves whoever is ready; a plain FIFO of
//! bookings would make a page ready now wait behind one booked for later). With ready times
//! that never decrease this is exactly FIFO.

use super::timeline::Series;
use crate::time::{ns, transfer_time, Ps};

/// A server with a bandwidth, a fixed time per grant and a calendar of booked intervals.
#[derive(Clone, Debug)]
pub struct Resource {
    bytes_per_s: f64,
    per_grant: Ps,
    free_at: Ps,
    /// Booked intervals that end after the last `now` seen, by start time.
    booked: std::collections::VecDeque<(Ps, Ps)>,
    pub busy: Ps,
    pub grants: u64,
    /// Tests: every grant's interval, to check that no two overlap.
    pub audit: Option<Vec<(Ps, Ps)>>,
    /// `--timeline`: busy time per window.
    pub windows: Option<Series>,
}

impl Resource {
    /// `mb_s` in 10^6 bytes per second; `per_grant_ns` charged once per grant.
    pub fn new(mb_s: f64, per_grant_ns: f64) -> Self {
        Self {
            bytes_per_s: mb_s * 1e6,
            per_grant: ns(per_grant_ns),
            free_at: 0,
            booked: std::collections::VecDeque::with_capacity(64),
            busy: 0,
            grants: 0,
            audit: None,
            windows: None,
        }
    }

    /// At time `now`, grant `bytes` to a movement ready at `ready` (≥ `now`); returns when
    /// it ends.
    #[inline]
    pub fn reserve(&mut self, now: Ps, ready: Ps, bytes: u64) -> Ps {
        let d = self.per_grant + transfer_time(bytes, self.bytes_per_s);
        self.reserve_for(now, ready, d)
    }

    /// At time `now`, grant the resource for `d` to a movement ready at `ready`: the earliest
    /// free interval of length `d` at or after `ready`. Returns when it ends.
    #[inline]
    pub fn reserve_for(&mut self, now: Ps, ready: Ps, d: Ps) -> Ps {
        debug_assert!(ready >= now);
        while self.booked.front().is_some_and(|b| b.1 <= now) {
            self.booked.pop_front();
        }
        let (mut start, mut at) = (ready, self.booked.len());
        for (i, &(s, e)) in self.booked.iter().enumerate() {
            if start + d <= s {
                at = i;
                break;
            }
            start = start.max(e);
        }
        let end = start + d;
        if d > 0 {
            self.booked.insert(at, (start, end));
        }
        self.free_at = self.free_at.max(end);
        self.busy += d;
        self.grants += 1;
        if let Some(a) = &mut self.audit {
            a.push((start, end));
        }
        if let Some(w) = &mut self.windows {
            w.add_busy(start, end);
        }
        end
    }

    /// When the resource is next free.
    pub fn free_at(&self) -> Ps {
        self.free_at
    }

    pub fn utilization(&self, span: Ps) -> f64 {
        if span == 0 {
            0.0
        } else {
            (self.busy as f64 / span as f64).min(1.0)
        }
    }
}

/// `Err` naming the first resource granted to two movements at once: in time order, every
/// grant must start at or after the previous one's end.
pub fn check_grants(lists: &[(&str, Vec<(Ps, Ps)>)]) -> Result<(), String> {
    for (name, g) in lists {
        let mut g = g.clone();
        g.sort_unstable();
        for w in g.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(format!(
                    "{name}: grant {:?} ps starts before the previous one {:?} ends",
                    w[1], w[0]
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4096 B at 8 GB/s = 512 ns; a second grant ready earlier waits for the first
    /// (probe at t-1 and t).
    #[test]
    fn fifo_grant_times() {
        let mut r = Resource::new(8000.0, 10.0);
        assert_eq!(r.reserve(0, 0, 4096), 522_000);
        assert_eq!(r.reserve(0, 100_000, 4096), 1_044_000);
        // Ready exactly when free: no wait; one ps later than free: starts then.
        assert_eq!(r.reserve(0, 1_044_000, 0), 1_054_000);
        assert_eq!(r.reserve(0, 1_054_001, 0), 1_064_001);
        assert_eq!(r.busy, 522_000 * 2 + 20_000);
        assert_eq!(r.grants, 4);
        // Booked for later: a grant that fits in the gap before it goes first; one that does
        // not fit waits for the end of the booking.
        let mut r = Resource::new(1000.0, 0.0);
        assert_eq!(r.reserve(0, 10_000_000, 1000), 11_000_000);
        assert_eq!(r.reserve(0, 0, 1000), 1_000_000);
        assert_eq!(r.reserve(0, 9_000_000, 1000), 10_000_000);
        assert_eq!(r.reserve(0, 9_500_000, 1000), 12_000_000);
    }

    proptest::proptest! {
        /// Whatever the order and readiness of requests, grants never overlap, none starts
        /// before its data is ready, and each lasts its transfer time.
        #[test]
        fn grants_never_overlap(reqs in proptest::collection::vec((0u64..10_000_000, 0u64..65_536), 1..200)) {
            let mut r = Resource::new(1000.0, 5.0);
            r.audit = Some(Vec::new());
            let mut ends = Vec::new();
            for &(ready, bytes) in &reqs {
                ends.push(r.reserve(0, ready, bytes));
            }
            let g = r.audit.take().unwrap();
            proptest::prop_assert!(check_grants(&[("r", g.clone())]).is_ok());
            for (i, &(ready, bytes)) in reqs.iter().enumerate() {
                proptest::prop_assert!(g[i].0 >= ready);
                proptest::prop_assert_eq!(g[i].1 - g[i].0, 5_000 + transfer_time(bytes, 1e9));
                proptest::prop_assert_eq!(g[i].1, ends[i]);
            }
        }
    }
}
