//! A synthetic stand-in fitted to a trace (`lagoon trace fit`), and the statistics that
//! say how close it is ([`Profile`]).
//!
//! The fitted spec ([`fit`]) keeps, from the trace:
//! - the **read share** (`read=`, percent, 4 decimals);
//! - the **size distribution** as an empirical histogram (`size=hist:`): every distinct
//!   size with its count (rounded to a multiple of 512 B, at least 512 B, as the language
//!   wants); with more than [`MAX_EXACT_SIZES`] distinct sizes, sizes are grouped in bins
//!   of 1/64 octave, each written as the mean of its sizes;
//! - the **arrival process** as a histogram of inter-arrival gaps (`arrival=gaps:`) in bins
//!   of half an octave (`[2^(k/2), 2^((k+1)/2))` ns, zero gaps on their own), each written
//!   as the mean of its gaps, bins split at the trace's mean gap; and its **burst
//!   structure** (`runs=`): the histogram of the runs of short gaps (below the mean)
//!   between long ones. Gaps that go backwards in time count as 0;
//! - the **address locality** as hot and cold regions (`addr=hotcold:H/S`): the span (up
//!   to the largest end offset) is cut into [`chunks_for`] equal chunks (32 requests a chunk
//!   on average, from 64 to 4,096 chunks: a chunk's count must be well above its Poisson
//!   noise, about 18 % at 32, for hot to mean more than unlucky); the *hot* chunks are
//!   those with more requests than the average chunk, S is their share of the span and H
//!   their share of the requests (the point of the trace's Lorenz curve farthest from
//!   uniform); `align` is the largest power of two from 512 B to 4 KiB dividing every offset;
//! - the **count** of requests.
//!
//! Histograms are drawn without replacement (see [`crate::synthetic`]), so the spec's
//! stream has the trace's read share (in expectation), size histogram and gap histogram
//! (exactly, up to the binning), whose mean and variance are then the trace's within the
//! binning error (below 1 % for half-octave bins of gaps).
//!
//! Fitting reads the trace three times (statistics, then bins and chunks, then runs);
//! memory is bounded by the number of bins, never by the trace's length.

use std::collections::{BTreeMap, HashMap};

use crate::synthetic::{hist_mean, AddrPattern, Arrival, SizeDist, SyntheticSpec};
use crate::{IoRequest, Op, WorkloadError};

/// The most chunks the span is cut into for locality.
pub const CHUNKS: usize = 4096;

/// Chunks for `n` requests: `n / 32`, from 64 to [`CHUNKS`] (see the module doc).
pub fn chunks_for(n: u64) -> usize {
    ((n / 32) as usize).clamp(64, CHUNKS)
}
/// Distinct sizes kept exactly; beyond, sizes are binned (1/64 octave).
pub const MAX_EXACT_SIZES: usize = 1024;

/// Statistics of a request stream that a fitted workload should reproduce.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Profile {
    pub requests: u64,
    pub read_pct: f64,
    pub mean_size_bytes: f64,
    pub p50_size_bytes: u32,
    pub p90_size_bytes: u32,
    pub p99_size_bytes: u32,
    /// Mean inter-arrival time (arrival order of the stream; backward steps count as 0).
    pub mean_interarrival_ns: f64,
    /// Squared coefficient of variation of the inter-arrival times.
    pub interarrival_cv2: f64,
    /// Share of gaps that are zero (requests arriving together), percent.
    pub zero_gap_pct: f64,
    /// Mean length of the runs of gaps below the mean gap (burst structure).
    pub mean_short_run: f64,
    /// Locality: the share of the span holding the hot chunks (more requests than the
    /// average chunk), percent, and the share of requests they receive, percent.
    pub hot_space_pct: f64,
    pub hot_access_pct: f64,
    /// Bytes from 0 to the end of the furthest request.
    pub span_bytes: u64,
}

impl Profile {
    /// Reads the stream twice (`open` twice): the span first, then everything else.
    pub fn of_trace<I, F>(mut open: F) -> Result<Profile, WorkloadError>
    where
        F: FnMut() -> Result<I, WorkloadError>,
        I: Iterator<Item = Result<IoRequest, WorkloadError>>,
    {
        let mut span = 0u64;
        let mut gaps = Moments::default();
        let mut n = 0;
        for r in open()? {
            let r = r?;
            n += 1;
            span = span.max(r.offset_bytes.saturating_add(u64::from(r.size_bytes)));
            gaps.push_arrival(r.arrival_ns);
        }
        let mut p = ProfileBuilder::new(span, gaps.mean(), chunks_for(n));
        for r in open()? {
            p.push(&r?);
        }
        Ok(p.finish())
    }

    /// The profile of an infallible stream addressing `[0, span_bytes)` (a synthetic
    /// generator): two passes over `make()`.
    pub fn of_requests<I: Iterator<Item = IoRequest>>(
        mut make: impl FnMut() -> I,
        span_bytes: u64,
    ) -> Profile {
        let mut gaps = Moments::default();
        let mut n = 0;
        for r in make() {
            n += 1;
            gaps.push_arrival(r.arrival_ns);
        }
        let mut p = ProfileBuilder::new(span_bytes, gaps.mean(), chunks_for(n));
        for r in make() {
            p.push(&r);
        }
        p.finish()
    }

    /// The fields compared by [`Profile::compare`]: (name, self, other).
    pub fn pairs(&self, other: &Profile) -> Vec<(&'static str, f64, f64)> {
        vec![
            ("read %", self.read_pct, other.read_pct),
            ("mean size B", self.mean_size_bytes, other.mean_size_bytes),
            (
                "p50 size B",
                self.p50_size_bytes.into(),
                other.p50_size_bytes.into(),
            ),
            (
                "p90 size B",
                self.p90_size_bytes.into(),
                other.p90_size_bytes.into(),
            ),
            (
                "p99 size B",
                self.p99_size_bytes.into(),
                other.p99_size_bytes.into(),
            ),
            (
                "mean inter-arrival ns",
                self.mean_interarrival_ns,
                other.mean_interarrival_ns,
            ),
            (
                "inter-arrival CV2",
                self.interarrival_cv2,
                other.interarrival_cv2,
            ),
            ("zero gaps %", self.zero_gap_pct, other.zero_gap_pct),
            ("mean short run", self.mean_short_run, other.mean_short_run),
            ("hot space %", self.hot_space_pct, other.hot_space_pct),
            ("hot access %", self.hot_access_pct, other.hot_access_pct),
        ]
    }

    /// A table of this profile (`trace`) beside `other` (`fitted`) with the relative difference.
    pub fn compare(&self, other: &Profile) -> String {
        let mut out = format!(
            "{:<24} {:>16} {:>16} {:>9}\n",
            "statistic", "trace", "fitted", "diff %"
        );
        for (name, a, b) in self.pairs(other) {
            let diff = if a == 0.0 && b == 0.0 {
                0.0
            } else {
                100.0 * (b - a) / a.abs().max(f64::MIN_POSITIVE)
            };
            out += &format!("{name:<24} {a:>16.4} {b:>16.4} {diff:>9.2}\n");
        }
        out
    }
}

/// Mean and variance in one pass (Welford), of the gaps between successive arrivals.
#[derive(Clone, Debug, Default)]
struct Moments {
    prev: Option<u64>,
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push_arrival(&mut self, t: u64) {
        if let Some(p) = self.prev {
            self.push(t.saturating_sub(p) as f64);
        }
        self.prev = Some(t);
    }

    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    fn mean(&self) -> f64 {
        self.mean
    }

    fn cv2(&self) -> f64 {
        if self.n == 0 || self.mean == 0.0 {
            0.0
        } else {
            self.m2 / self.n as f64 / (self.mean * self.mean)
        }
    }
}

/// Sizes counted exactly up to [`MAX_EXACT_SIZES`] distinct values, then in 1/64-octave bins.
#[derive(Clone, Debug, Default)]
struct SizeCounts {
    exact: BTreeMap<u32, u64>,
    /// bin -> (count, sum of sizes)
    binned: Option<BTreeMap<u32, (u64, u128)>>,
}

fn size_bin(size: u32) -> u32 {
    // 64 bins per octave: log2 in 1/64 steps
    (f64::from(size.max(1)).log2() * 64.0).floor() as u32
}

impl SizeCounts {
    fn push(&mut self, size: u32) {
        if let Some(b) = &mut self.binned {
            let e = b.entry(size_bin(size)).or_default();
            e.0 += 1;
            e.1 += u128::from(size);
            return;
        }
        *self.exact.entry(size).or_default() += 1;
        if self.exact.len() > MAX_EXACT_SIZES {
            let mut b: BTreeMap<u32, (u64, u128)> = BTreeMap::new();
            for (&s, &n) in &self.exact {
                let e = b.entry(size_bin(s)).or_default();
                e.0 += n;
                e.1 += u128::from(s) * u128::from(n);
            }
            self.exact.clear();
            self.binned = Some(b);
        }
    }

    /// `(size, count)` ascending; a bin is its mean size.
    fn entries(&self) -> Vec<(u32, u64)> {
        match &self.binned {
            None => self.exact.iter().map(|(&s, &n)| (s, n)).collect(),
            Some(b) => b
                .values()
                .map(|&(n, sum)| ((sum / u128::from(n)) as u32, n))
                .collect(),
        }
    }

    /// Nearest-rank percentile: the smallest size with at least `q` of the requests at or below it.
    fn percentile(&self, q: f64) -> u32 {
        let e = self.entries();
        let total: u64 = e.iter().map(|x| x.1).sum();
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (s, n) in &e {
            seen += n;
            if seen >= rank {
                return *s;
            }
        }
        e.last().map_or(0, |x| x.0)
    }
}

/// Builds a [`Profile`] in one pass, given the span and the mean gap (from a first pass).
struct ProfileBuilder {
    span: u64,
    mean_gap: f64,
    n: u64,
    reads: u64,
    bytes: u128,
    sizes: SizeCounts,
    gaps: Moments,
    zero_gaps: u64,
    prev: Option<u64>,
    runs: u64,
    short_gaps: u64,
    in_run: bool,
    chunks: Vec<u64>,
}

/// The chunk of `offset` in a span of `span` bytes cut into `k` chunks.
fn chunk_of(offset: u64, span: u64, k: usize) -> usize {
    if span == 0 {
        return 0;
    }
    ((u128::from(offset) * k as u128 / u128::from(span)) as usize).min(k - 1)
}

/// Hot chunks: those with more than the average count. `(hot space %, hot access %)`.
fn hot_cold(chunks: &[u64]) -> (f64, f64) {
    let n: u64 = chunks.iter().sum();
    if n == 0 {
        return (0.0, 0.0);
    }
    let k = chunks.len() as u64;
    let (mut hot, mut acc) = (0u64, 0u64);
    for &c in chunks {
        if c * k > n {
            hot += 1;
            acc += c;
        }
    }
    (100.0 * hot as f64 / k as f64, 100.0 * acc as f64 / n as f64)
}

impl ProfileBuilder {
    fn new(span: u64, mean_gap: f64, k: usize) -> Self {
        ProfileBuilder {
            span,
            mean_gap,
            n: 0,
            reads: 0,
            bytes: 0,
            sizes: SizeCounts::default(),
            gaps: Moments::default(),
            zero_gaps: 0,
            prev: None,
            runs: 0,
            short_gaps: 0,
            in_run: false,
            chunks: vec![0; k],
        }
    }

    fn push(&mut self, r: &IoRequest) {
        self.n += 1;
        if r.op == Op::Read {
            self.reads += 1;
        }
        self.bytes += u128::from(r.size_bytes);
        self.sizes.push(r.size_bytes);
        if let Some(p) = self.prev {
            let gap = r.arrival_ns.saturating_sub(p);
            self.gaps.push(gap as f64);
            if gap == 0 {
                self.zero_gaps += 1;
            }
            if (gap as f64) < self.mean_gap {
                self.short_gaps += 1;
                if !self.in_run {
                    self.runs += 1;
                    self.in_run = true;
                }
            } else {
                self.in_run = false;
            }
        }
        self.prev = Some(r.arrival_ns);
        let k = self.chunks.len();
        self.chunks[chunk_of(r.offset_bytes, self.span, k)] += 1;
    }

    fn finish(self) -> Profile {
        let n = self.n.max(1) as f64;
        let (hot_space_pct, hot_access_pct) = hot_cold(&self.chunks);
        Profile {
            requests: self.n,
            read_pct: 100.0 * self.reads as f64 / n,
            mean_size_bytes: self.bytes as f64 / n,
            p50_size_bytes: self.sizes.percentile(0.5),
            p90_size_bytes: self.sizes.percentile(0.9),
            p99_size_bytes: self.sizes.percentile(0.99),
            mean_interarrival_ns: self.gaps.mean(),
            interarrival_cv2: self.gaps.cv2(),
            zero_gap_pct: 100.0 * self.zero_gaps as f64 / self.gaps.n.max(1) as f64,
            mean_short_run: if self.runs == 0 {
                0.0
            } else {
                self.short_gaps as f64 / self.runs as f64
            },
            hot_space_pct,
            hot_access_pct,
            span_bytes: self.span,
        }
    }
}

/// The half-octave bin of a gap: `None` for 0, else `floor(2 log2(gap))`.
fn gap_bin(gap: u64) -> Option<u32> {
    (gap > 0).then(|| (2.0 * (gap as f64).log2()).floor() as u32)
}

/// Run lengths as `(length, count)`: exact up to [`MAX_EXACT_SIZES`] distinct lengths, else
/// lengths above 16 in quarter-octave bins, each written as its mean length (the spec
/// language takes at most [`crate::synthetic::MAX_HIST_ENTRIES`] entries).
fn bin_runs(runs: BTreeMap<u64, u64>) -> Vec<(u64, u64)> {
    if runs.len() <= MAX_EXACT_SIZES {
        return runs.into_iter().collect();
    }
    let mut bins: BTreeMap<u64, (u64, u128)> = BTreeMap::new();
    for (len, n) in runs {
        let key = if len <= 16 {
            len
        } else {
            1000 + (4.0 * (len as f64).log2()).floor() as u64
        };
        let e = bins.entry(key).or_default();
        e.0 += n;
        e.1 += u128::from(len) * u128::from(n);
    }
    bins.into_values()
        .map(|(n, sum)| (((sum + u128::from(n) / 2) / u128::from(n)) as u64, n))
        .collect()
}

/// Rounds to `decimals` decimal places (for short, exact-looking spec values).
fn round_to(x: f64, decimals: i32) -> f64 {
    let m = 10f64.powi(decimals);
    (x * m).round() / m
}

/// Fits a synthetic workload to the trace `open()` reads (three passes; see the module doc).
pub fn fit<I, F>(mut open: F) -> Result<SyntheticSpec, WorkloadError>
where
    F: FnMut() -> Result<I, WorkloadError>,
    I: Iterator<Item = Result<IoRequest, WorkloadError>>,
{
    // pass 1: counts, sizes, the gaps' mean, the span and the alignment
    let (mut n, mut reads, mut span, mut align_tz) = (0u64, 0u64, 0u64, 12u32);
    let mut sizes = SizeCounts::default();
    let mut gaps = Moments::default();
    for r in open()? {
        let r = r?;
        n += 1;
        if r.op == Op::Read {
            reads += 1;
        }
        sizes.push(r.size_bytes);
        gaps.push_arrival(r.arrival_ns);
        span = span.max(r.offset_bytes.saturating_add(u64::from(r.size_bytes)));
        align_tz = align_tz.min(r.offset_bytes.trailing_zeros());
    }
    let mean_gap = gaps.mean();
    // pass 2: gap bins split at the mean, and the locality chunks
    let mut bins: HashMap<(bool, Option<u32>), (u64, u128)> = HashMap::new();
    let k = chunks_for(n);
    let mut chunks = vec![0u64; k];
    let mut prev = None;
    for r in open()? {
        let r = r?;
        if let Some(p) = prev {
            let gap = r.arrival_ns.saturating_sub(p);
            let e = bins
                .entry(((gap as f64) < mean_gap, gap_bin(gap)))
                .or_default();
            e.0 += 1;
            e.1 += u128::from(gap);
        }
        prev = Some(r.arrival_ns);
        chunks[chunk_of(r.offset_bytes, span, k)] += 1;
    }
    let mut keyed: Vec<((bool, Option<u32>), u64, u64)> = bins
        .iter()
        .map(|(&k, &(c, sum))| (k, ((sum + u128::from(c) / 2) / u128::from(c)) as u64, c))
        .collect();
    keyed.sort_by_key(|&((short, bin), rep, _)| (rep, !short, bin));
    let gap_hist: Vec<(u64, u64)> = keyed.iter().map(|&(_, rep, c)| (rep, c)).collect();
    // the generator's rule: short = below the histogram's mean
    let hmean = hist_mean(&gap_hist);
    let short_of: HashMap<(bool, Option<u32>), bool> = keyed
        .iter()
        .map(|&(k, rep, _)| (k, (rep as f64) < hmean))
        .collect();
    // pass 3: runs of short gaps between long ones
    let mut runs: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut prev, mut run) = (None, 0u64);
    for r in open()? {
        let r = r?;
        if let Some(p) = prev {
            let gap = r.arrival_ns.saturating_sub(p);
            let key = ((gap as f64) < mean_gap, gap_bin(gap));
            if short_of.get(&key).copied().unwrap_or(false) {
                run += 1;
            } else {
                *runs.entry(run).or_default() += 1;
                run = 0;
            }
        }
        prev = Some(r.arrival_ns);
    }
    *runs.entry(run).or_default() += 1;
    let runs = bin_runs(runs);

    let align = 1u64 << align_tz.clamp(9, 12);
    let span = span.div_ceil(align) * align;
    let size_hist: Vec<(u32, u64)> = {
        let mut m: BTreeMap<u32, u64> = BTreeMap::new();
        for (s, c) in sizes.entries() {
            let s512 =
                (((u64::from(s) + 256) / 512).max(1) * 512).min(u64::from(u32::MAX) / 512 * 512);
            *m.entry(s512 as u32).or_default() += c;
        }
        m.into_iter().collect()
    };
    let (hot_space_pct, hot_access_pct) = hot_cold(&chunks);
    let addr = if hot_space_pct <= 0.0 || hot_space_pct >= 100.0 {
        AddrPattern::Uniform
    } else {
        AddrPattern::HotCold {
            hot_access_pct: round_to(hot_access_pct, 4),
            hot_space_pct: round_to(hot_space_pct, 6),
        }
    };
    let arrival = if gap_hist.is_empty() {
        Arrival::Fixed { interval_ns: 0 }
    } else {
        Arrival::Gaps(gap_hist.clone())
    };
    let spec = SyntheticSpec {
        read_pct: round_to(100.0 * reads as f64 / n.max(1) as f64, 4),
        size: SizeDist::Hist(size_hist),
        addr,
        align,
        arrival,
        count: n,
        span: Some(span.max(align)),
        runs: (!gap_hist.is_empty()).then_some(runs),
        preset: None,
    };
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SyntheticGenerator;

    fn req(t: u64, off: u64, size: u32, op: Op) -> IoRequest {
        IoRequest {
            arrival_ns: t,
            offset_bytes: off,
            size_bytes: size,
            op,
            device: 0,
        }
    }

    /// A hand-made trace: the fitted spec, exactly.
    #[test]
    fn fits_a_small_trace_exactly() {
        // gaps 0, 0, 100, 0, 1000 (mean 220): a run of 4 short gaps, one long, a run of 0;
        // 64 chunks of 16,448 B: chunk 0 has 5 requests, chunk 63 one, both above the average 6 / 64
        let t = [
            req(0, 0, 4096, Op::Read),
            req(0, 4096, 4096, Op::Write),
            req(0, 8192, 8192, Op::Read),
            req(100, 1 << 20, 4096, Op::Read),
            req(100, 0, 4096, Op::Write),
            req(1100, 4096, 4096, Op::Read),
        ];
        let spec = fit(|| Ok::<_, WorkloadError>(t.iter().copied().map(Ok))).unwrap();
        assert_eq!(
            spec.to_string(),
            "syn:read=66.6667,size=hist:4k@5/8k@1,addr=hotcold:100/3.125,align=4k,arrival=gaps:0ns@3/100ns@1/1us@1,count=6,span=1028k,runs=0@1/4@1"
        );
        let g: Vec<IoRequest> = SyntheticGenerator::new(&spec, 1 << 30, 1)
            .unwrap()
            .collect();
        let mut gaps: Vec<u64> = g
            .windows(2)
            .map(|w| w[1].arrival_ns - w[0].arrival_ns)
            .collect();
        gaps.sort();
        assert_eq!(gaps, [0, 0, 0, 100, 1000]);
    }

    /// Many distinct sizes and run lengths are binned; the statistics stay close.
    #[test]
    fn many_distinct_values_are_binned() {
        let mut t = Vec::new();
        let mut time = 0;
        let mut x = 1u64;
        for i in 0..6000u64 {
            // 2,000 distinct sizes; runs of i % 1500 short gaps between long ones; 80 % of
            // the requests at random in the first 10 % of 4 GiB, the rest anywhere
            let size = 512 * (1 + (i * 7919 % 2000)) as u32;
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let page = (x >> 33) % (1 << 20);
            let off = if i % 5 == 0 { page } else { page / 10 } * 4096;
            t.push(req(time, off, size, Op::Write));
            time += if i % 1500 == 0 { 1_000_000 } else { 1 + i % 3 };
        }
        let spec = fit(|| Ok::<_, WorkloadError>(t.iter().copied().map(Ok))).unwrap();
        let SizeDist::Hist(h) = &spec.size else {
            panic!()
        };
        assert!(h.len() <= 1472, "{}", h.len());
        let text = spec.to_string();
        let spec = SyntheticSpec::parse(&text).unwrap();
        let trace =
            Profile::of_trace(|| Ok::<_, WorkloadError>(t.iter().copied().map(Ok))).unwrap();
        let synth = Profile::of_requests(
            || SyntheticGenerator::new(&spec, 1 << 40, 1).unwrap(),
            spec.span.unwrap(),
        );
        for (name, a, b) in trace.pairs(&synth) {
            assert!(
                a == b || ((b - a) / a).abs() <= 0.05,
                "{name}: trace {a}, fitted {b}"
            );
        }
    }
}
