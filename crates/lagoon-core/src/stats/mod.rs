//! Run statistics: latency distributions (HDR histograms, 3 significant digits), and the
//! report structs written as JSON. Field names carry their unit.

use hdrhistogram::Histogram;
use serde::Serialize;

/// Latency distribution summary, nanoseconds.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub p9999: u64,
    pub max: u64,
}

/// A latency histogram in nanoseconds. Count, mean, min and max are exact; percentiles
/// come from the histogram (within 0.1 %).
#[derive(Clone)]
pub struct Latency {
    h: Histogram<u64>,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Latency {
    fn default() -> Self {
        Self {
            h: Histogram::new(3).expect("3 significant digits is valid"),
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Latency {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        // The histogram auto-resizes, so recording any u64 value succeeds.
        self.h
            .record(ns.max(1))
            .expect("auto-resizing histogram records any value");
        self.sum += ns as u128;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    pub fn summary(&self) -> LatencySummary {
        let h = &self.h;
        if h.is_empty() {
            return LatencySummary::default();
        }
        // The histogram answers with the top of a bucket, which can lie past the largest
        // value recorded (or below the smallest): clamp into the exact [min, max].
        let q = |p: f64| h.value_at_quantile(p).clamp(self.min, self.max);
        LatencySummary {
            count: h.len(),
            mean: self.sum as f64 / h.len() as f64,
            min: self.min,
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p999: q(0.999),
            p9999: q(0.9999),
            max: self.max,
        }
    }

    /// Cumulative distribution: (latency_ns, fraction of requests at or below it), one point
    /// per distinct recorded bucket.
    pub fn cdf(&self) -> Vec<(u64, f64)> {
        let n = self.h.len() as f64;
        let mut acc = 0u64;
        self.h
            .iter_recorded()
            .map(|v| {
                acc += v.count_at_value();
                (
                    self.h
                        .highest_equivalent(v.value_iterated_to())
                        .clamp(self.min, self.max),
                    acc as f64 / n,
                )
            })
            .collect()
    }

    pub fn merge(&mut self, other: &Latency) {
        self.h
            .add(&other.h)
            .expect("auto-resizing histograms always merge");
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

/// End-to-end (host arrival → completion seen by host) and device (submission queue entry →
/// completion) latency, for all requests, reads and writes. Only the read and write
/// histograms are recorded per request; [`FlowLatency::finish`] merges them into `ALL`
/// (hot path: two histogram updates per request instead of four, the same counts).
#[derive(Clone, Default)]
pub struct FlowLatency {
    pub e2e: [Latency; 3],
    pub device: [Latency; 3],
}

pub const ALL: usize = 0;
pub const READ: usize = 1;
pub const WRITE: usize = 2;

impl FlowLatency {
    #[inline]
    pub fn record(&mut self, is_read: bool, e2e_ns: u64, device_ns: u64) {
        let k = if is_read { READ } else { WRITE };
        self.e2e[k].record(e2e_ns);
        self.device[k].record(device_ns);
    }

    /// Fill `ALL` from the read and write histograms (once, when the run ends).
    pub fn finish(&mut self) {
        for h in [&mut self.e2e, &mut self.device] {
            let mut all = h[READ].clone();
            all.merge(&h[WRITE]);
            h[ALL] = all;
        }
    }

    /// Add another flow's finished latencies (all three classes).
    pub fn merge(&mut self, other: &FlowLatency) {
        for k in [ALL, READ, WRITE] {
            self.e2e[k].merge(&other.e2e[k]);
            self.device[k].merge(&other.device[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_known_distribution() {
        let mut l = Latency::default();
        for v in 1..=1000 {
            l.record(v);
        }
        let s = l.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.p50, 500);
        assert_eq!(s.p90, 900);
        assert_eq!(s.p99, 990);
        assert_eq!(s.max, 1000);
        assert_eq!(s.mean, 500.5);
        assert_eq!(s.min, 1);
        let cdf = l.cdf();
        assert_eq!(cdf.last().unwrap().1, 1.0);
        assert_eq!(cdf.len(), 1000);
    }

    /// The case seen on piq-ssdsim/tpcc: a histogram bucket's top (158,990) past the largest
    /// value recorded (158,903) was reported as p99.99.
    #[test]
    fn percentile_never_exceeds_max() {
        let mut l = Latency::default();
        for _ in 0..99 {
            l.record(1_000);
        }
        l.record(158_903);
        let s = l.summary();
        assert_eq!(s.max, 158_903);
        assert_eq!(s.p9999, 158_903);
        assert!(l.cdf().iter().all(|&(v, _)| v <= 158_903));
    }

    proptest::proptest! {
        #[test]
        fn percentiles_lie_within_min_and_max(
            values in proptest::collection::vec(0u64..u64::MAX / 4, 1..300),
            scale in 0u32..60,
        ) {
            let mut l = Latency::default();
            for v in &values {
                l.record(v >> scale);
            }
            let s = l.summary();
            let (lo, hi) = (s.min, s.max);
            proptest::prop_assert_eq!(lo, values.iter().map(|v| v >> scale).min().unwrap());
            proptest::prop_assert_eq!(hi, values.iter().map(|v| v >> scale).max().unwrap());
            for p in [s.p50, s.p90, s.p99, s.p999, s.p9999] {
                proptest::prop_assert!(lo <= p && p <= hi, "{} not in [{}, {}]", p, lo, hi);
            }
            proptest::prop_assert!(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.p9999);
            proptest::prop_assert!(s.mean >= lo as f64 && s.mean <= hi as f64);
            for w in l.cdf().windows(2) {
                proptest::prop_assert!(w[0].0 <= w[1].0 && w[0].1 <= w[1].1);
            }
        }
    }
}
