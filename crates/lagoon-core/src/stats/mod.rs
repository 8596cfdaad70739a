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
///
/// The histogram is made at the [`FEW`]+1-th value; until then the values themselves are
/// kept and a histogram is built from them when asked. A histogram's counts array spans
/// every bucket up to the largest value (16 KB empty, about 64 KB once it holds a 100 us
/// latency), which thousands of one-request flows paid six times each; the counts, and so
/// every summary and CDF, are the same either way (a value's bucket does not depend on when
/// the histogram was made or how far it has grown).
#[derive(Clone)]
pub struct Latency {
    h: Option<Box<Histogram<u64>>>,
    /// The values recorded while `h` is None (at most [`FEW`]), each at least 1.
    few: Vec<u64>,
    sum: u128,
    min: u64,
    max: u64,
}

/// Values kept as they are before a [`Latency`] makes its histogram: 8 KB at most, an eighth
/// of a histogram holding 100 us latencies.
pub const FEW: usize = 1024;

impl Default for Latency {
    fn default() -> Self {
        Self {
            h: None,
            few: Vec::new(),
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

/// A histogram of `values` (3 significant digits, resizing itself as values come).
fn histogram_of(values: &[u64]) -> Histogram<u64> {
    let mut h = Histogram::new(3).expect("3 significant digits is valid");
    for &v in values {
        h.record(v)
            .expect("auto-resizing histogram records any value");
    }
    h
}

impl Latency {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let v = ns.max(1);
        match &mut self.h {
            // The histogram auto-resizes, so recording any u64 value succeeds.
            Some(h) => h
                .record(v)
                .expect("auto-resizing histogram records any value"),
            None => self.record_few(v),
        }
        self.sum += ns as u128;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    #[cold]
    fn record_few(&mut self, v: u64) {
        if self.few.len() < FEW {
            self.few.push(v);
        } else {
            let mut h = histogram_of(&self.few);
            h.record(v)
                .expect("auto-resizing histogram records any value");
            self.h = Some(Box::new(h));
            self.few = Vec::new();
        }
    }

    /// The histogram of every value recorded (made from the kept values if there is none).
    fn histogram(&self) -> std::borrow::Cow<'_, Histogram<u64>> {
        match &self.h {
            Some(h) => std::borrow::Cow::Borrowed(&**h),
            None => std::borrow::Cow::Owned(histogram_of(&self.few)),
        }
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        match &self.h {
            Some(h) => h.len(),
            None => self.few.len() as u64,
        }
    }

    pub fn summary(&self) -> LatencySummary {
        if self.count() == 0 {
            return LatencySummary::default();
        }
        let h = self.histogram();
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
        let h = self.histogram();
        let n = h.len() as f64;
        let mut acc = 0u64;
        h.iter_recorded()
            .map(|v| {
                acc += v.count_at_value();
                (
                    h.highest_equivalent(v.value_iterated_to())
                        .clamp(self.min, self.max),
                    acc as f64 / n,
                )
            })
            .collect()
    }

    pub fn merge(&mut self, other: &Latency) {
        if self.h.is_none() && other.h.is_none() && self.few.len() + other.few.len() <= FEW {
            self.few.extend_from_slice(&other.few);
        } else {
            let few = std::mem::take(&mut self.few);
            let h = self.h.get_or_insert_with(|| Box::new(histogram_of(&few)));
            match &other.h {
                Some(o) => h.add(&**o).expect("auto-resizing histograms always merge"),
                None => {
                    for &v in &other.few {
                        h.record(v)
                            .expect("auto-resizing histogram records any value");
                    }
                }
            }
        }
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

    /// The values kept before the histogram is made, the histogram, and any merge of the
    /// two give the same summary and CDF as one histogram of every value.
    #[test]
    fn kept_values_and_the_histogram_agree() {
        let values: Vec<u64> = (0..3 * FEW as u64).map(|i| (i * 7919) % 200_000).collect();
        let reference = |vs: &[u64]| {
            let h = histogram_of(&vs.iter().map(|&v| v.max(1)).collect::<Vec<_>>());
            let n = h.len() as f64;
            let (lo, hi) = (*vs.iter().min().unwrap(), *vs.iter().max().unwrap());
            let p50 = h.value_at_quantile(0.5).clamp(lo, hi);
            let p9999 = h.value_at_quantile(0.9999).clamp(lo, hi);
            (h.len(), p50, p9999, h.iter_recorded().count(), n)
        };
        for n in [1, 2, FEW - 1, FEW, FEW + 1, 3 * FEW] {
            let mut l = Latency::default();
            for &v in &values[..n] {
                l.record(v);
            }
            assert_eq!(l.h.is_some(), n > FEW, "{n}");
            let (count, p50, p9999, buckets, _) = reference(&values[..n]);
            let s = l.summary();
            assert_eq!((s.count, s.p50, s.p9999), (count, p50, p9999), "{n}");
            assert_eq!(l.cdf().len(), buckets, "{n}");
            // Split in two at every kind of boundary and merged: the same as recorded at once.
            for cut in [0, 1, n / 2, n.saturating_sub(1)] {
                let (mut a, mut b) = (Latency::default(), Latency::default());
                values[..cut].iter().for_each(|&v| a.record(v));
                values[cut..n].iter().for_each(|&v| b.record(v));
                a.merge(&b);
                assert_eq!(a.summary(), s, "{n} cut at {cut}");
                assert_eq!(a.cdf(), l.cdf(), "{n} cut at {cut}");
            }
        }
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
