//! `--timeline`: per-window series of a run (dSSD Fig. 2), exact sums over windows that widen
//! (pairs merge) when a run outlasts [`MAX_WINDOWS`] of them.

use crate::time::Ps;

/// At most this many windows in a `--timeline` series: a longer run widens its windows (a
/// trace may leave its drive idle for days between two requests; 1 ms windows over 100 days
/// would be 8.6 G rows).
pub const MAX_WINDOWS: usize = 1 << 20;

/// Sums per time window (bytes, or busy ps). When a time falls past [`MAX_WINDOWS`] windows,
/// the window doubles and neighbouring pairs merge: exact, since every value is a sum.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub window: Ps,
    pub v: Vec<u64>,
}

impl Series {
    pub fn new(window: Ps) -> Self {
        Self {
            window: window.max(1),
            v: Vec::new(),
        }
    }

    /// The window holding `t`, widening until it is one of the first [`MAX_WINDOWS`].
    fn index(&mut self, t: Ps) -> usize {
        while t / self.window >= MAX_WINDOWS as Ps {
            self.widen();
        }
        (t / self.window) as usize
    }

    /// Double the window: window `i` becomes the sum of windows `2i` and `2i + 1`.
    fn widen(&mut self) {
        let n = self.v.len().div_ceil(2);
        for i in 0..n {
            self.v[i] = self.v[2 * i] + self.v.get(2 * i + 1).copied().unwrap_or(0);
        }
        self.v.truncate(n);
        self.window = self.window.saturating_mul(2);
    }

    /// Widen to `window` (this series' window times a power of two).
    pub fn widen_to(&mut self, window: Ps) {
        while self.window < window {
            self.widen();
        }
    }

    /// Window `i`'s sum, growing the series to hold it.
    fn slot(&mut self, i: usize) -> &mut u64 {
        if self.v.len() <= i {
            self.v.resize(i + 1, 0);
        }
        &mut self.v[i]
    }

    /// Add `x` to the window holding `t`.
    pub fn add(&mut self, t: Ps, x: u64) {
        let i = self.index(t);
        *self.slot(i) += x;
    }

    /// Spread the busy interval `[start, end)` over the windows.
    pub fn add_busy(&mut self, start: Ps, end: Ps) {
        if end > start {
            self.index(end - 1); // widen first, so the loop below sees the final window
        }
        let mut t = start;
        while t < end {
            let i = (t / self.window) as usize;
            let e = end.min((i as Ps + 1) * self.window);
            *self.slot(i) += e - t;
            t = e;
        }
    }
}

/// Per-window series of a run (`--timeline`; dSSD Fig. 2): I/O and GC bytes, and busy time
/// of the system bus, the DRAM and the FC-to-FC link. After [`Timeline::align`] every series
/// has the same window.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// The window asked for; the series' own may be wider (see [`MAX_WINDOWS`]).
    pub requested: Ps,
    /// Bytes of host requests completed in each window.
    pub io_bytes: Series,
    /// Bytes of GC page moves completed (their program, or copyback, done) in each window.
    pub gc_bytes: Series,
    /// Bytes of GC page reads completed in each window: a move's first half, so GC shows
    /// while its reads hold the channels and the bus, before any of its programs ends.
    pub gc_read_bytes: Series,
    pub bus_busy: Series,
    pub dram_busy: Series,
    /// Dedicated bus busy time, or the fNoC's link-direction busy time over its links
    /// (counted when the fNoC runs, so a little late), or 0.
    pub link_busy: Series,
    /// fNoC link directions (1 for a bus) to turn `link_busy` into a utilization.
    pub links: u32,
}

impl Timeline {
    pub fn new(window: Ps) -> Self {
        let s = Series::new(window);
        Self {
            requested: s.window,
            io_bytes: s.clone(),
            gc_bytes: s.clone(),
            gc_read_bytes: s.clone(),
            bus_busy: s.clone(),
            dram_busy: s.clone(),
            link_busy: s,
            links: 1,
        }
    }

    fn each(&self) -> [&Series; 6] {
        [
            &self.io_bytes,
            &self.gc_bytes,
            &self.gc_read_bytes,
            &self.bus_busy,
            &self.dram_busy,
            &self.link_busy,
        ]
    }

    fn each_mut(&mut self) -> [&mut Series; 6] {
        [
            &mut self.io_bytes,
            &mut self.gc_bytes,
            &mut self.gc_read_bytes,
            &mut self.bus_busy,
            &mut self.dram_busy,
            &mut self.link_busy,
        ]
    }

    /// Widen every series to the widest one's window.
    pub fn align(&mut self) {
        let w = self.each().iter().map(|s| s.window).max().unwrap_or(1);
        for s in self.each_mut() {
            s.widen_to(w);
        }
    }

    /// The series' window (after [`Self::align`]).
    pub fn window(&self) -> Ps {
        self.io_bytes.window
    }

    /// CSV: one line per window (of an aligned timeline: a run's is aligned when it ends).
    pub fn csv(&self) -> String {
        debug_assert!(
            self.each().iter().all(|s| s.window == self.window()),
            "align first"
        );
        let n = self.each().iter().map(|s| s.v.len()).max().unwrap_or(0);
        let w = self.window() as f64;
        let at = |s: &Series, i: usize| s.v.get(i).copied().unwrap_or(0) as f64;
        let mut out = String::from(
            "window_start_ms,io_mb_s,gc_mb_s,gc_read_mb_s,system_bus_utilization,dram_utilization,\
             fc_link_utilization\n",
        );
        let secs = w / 1e12;
        for i in 0..n {
            out.push_str(&format!(
                "{},{:.3},{:.3},{:.3},{:.4},{:.4},{:.4}\n",
                i as f64 * w / 1e9,
                at(&self.io_bytes, i) / secs / 1e6,
                at(&self.gc_bytes, i) / secs / 1e6,
                at(&self.gc_read_bytes, i) / secs / 1e6,
                at(&self.bus_busy, i) / w,
                at(&self.dram_busy, i) / w,
                at(&self.link_busy, i) / w / self.links.max(1) as f64,
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_past_its_windows_widens_exactly() {
        let mut s = Series::new(10);
        s.add(5, 1);
        s.add(15, 2);
        s.add_busy(25, 32); // 5 in window 2, 2 in window 3
        assert_eq!((s.window, s.v.clone()), (10, vec![1, 2, 5, 2]));
        // Window MAX_WINDOWS (the first one past the limit): pairs merge once.
        s.add(10 * MAX_WINDOWS as Ps, 7);
        assert_eq!(s.window, 20);
        assert_eq!(s.v.len(), MAX_WINDOWS / 2 + 1);
        assert_eq!((s.v[0], s.v[1], s.v[MAX_WINDOWS / 2]), (3, 7, 7));
        // A time 100 days in, from 1 us windows: widened until it fits, sums kept.
        let mut s = Series::new(crate::time::PS_PER_US);
        s.add_busy(0, 3);
        let far = 100 * 86_400 * crate::time::PS_PER_MS * 1000;
        s.add_busy(far, far + 4);
        assert!(s.v.len() <= MAX_WINDOWS && far / s.window < MAX_WINDOWS as Ps);
        assert_eq!(s.window % crate::time::PS_PER_US, 0);
        assert_eq!((s.v[0], s.v.iter().sum::<u64>()), (3, 7));
        // Aligning a timeline widens the others to the widest.
        let mut t = Timeline::new(10);
        t.io_bytes.add(40 * MAX_WINDOWS as Ps - 1, 1); // the last time of 40-ps windows
        t.gc_bytes.add(15, 9);
        t.align();
        assert_eq!(
            (t.window(), t.gc_bytes.window, t.gc_bytes.v.clone()),
            (40, 40, vec![9])
        );
        assert_eq!(t.requested, 10);
    }
}
