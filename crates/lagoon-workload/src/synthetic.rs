//! Seeded synthetic workloads.
//!
//! # Grammar
//!
//! `syn:key=value,key=value,...` — keys in any order, each at most once, all optional
//! (`syn:` alone is the default workload). Sizes take an optional binary suffix
//! `k`, `m`, `g`, `t` (= KiB, MiB, GiB, TiB; `kb`/`kib`, any case, are accepted too);
//! times need a unit `ns`, `us`, `ms` or `s` and may be decimal (`0.5us`).
//!
//! | key | values | default |
//! |---|---|---|
//! | `read` | percent of reads, `0`..`100` (decimal allowed) | `70` |
//! | `size` | `4k` (fixed) \| `uniform:4k-64k` \| `choice:4k@70/16k@30` \| `hist:4k@4381/8k@1200` | `4k` |
//! | `addr` | `uniform` \| `hotcold:<hot access %>/<hot space %>` (`hotcold` = `80/20`) \| `seq` | `uniform` |
//! | `align` | start-offset alignment for `uniform`/`hotcold` | `4k` |
//! | `arrival` | `poisson:<mean gap>` \| `bursty:<mean gap>/<mean burst length>` \| `fixed:<gap>` \| `qd:<N>` \| `gaps:0ns@3129/2us@15/...` | `qd:32` |
//! | `count` | number of requests | `100000` |
//! | `span` | addressed bytes from offset 0 (clamped to the device capacity) | device capacity |
//! | `runs` | with `arrival=gaps:` only: `0@812/1@330/...`, runs of short gaps between long ones | none |
//!
//! Details:
//! - every size must be a positive multiple of 512 bytes; `uniform:lo-hi` draws
//!   uniformly among the multiples of 4 KiB in `[lo, hi]` when both bounds are multiples
//!   of 4 KiB, else among the multiples of 512 bytes; `choice` weights are relative
//!   (they need not add up to 100);
//! - `uniform` draws a start offset uniformly among the `align`-aligned offsets at which
//!   the request fits in the span; `hotcold:H/S` sends H % of the requests to the hot
//!   region, the first S % of the span (rounded down to `align`, at least one `align`
//!   unit), and the rest to the cold remainder, each uniformly as above;
//! - `seq` is one contiguous stream: each request starts where the previous ended
//!   (the first at offset 0) and wraps to 0 when the next request would pass the span
//!   end; `align` does not apply to it;
//! - `poisson` draws exponential gaps with the given mean, `fixed` uses constant gaps;
//!   the first request arrives at time 0;
//! - `bursty:<m>/<B>` (e.g. `bursty:58us/4`; `B` decimal, at least 1, default
//!   [`crate::presets::PRESET_BURST`] when `/<B>` is left out): requests come in bursts
//!   whose length is geometric with mean B (after each request, the next one starts a new
//!   burst with probability 1/B); inside a burst requests arrive back to back (gap 0); the
//!   gap before each burst is exponential with mean B × m. The long-run mean inter-arrival
//!   time is exactly m, and the squared coefficient of variation of the inter-arrival
//!   times is CV² = 2B − 1 (B = 1 is `poisson:<m>`). The first request opens the first
//!   burst at time 0;
//! - `qd:N` gives every request arrival time 0 and asks the replay layer for a closed
//!   loop with N requests outstanding ([`SyntheticSpec::closed_loop_depth`]).
//!
//! Empirical distributions (what `lagoon trace fit` prints, issue 16):
//! - `size=hist:<size>@<count>/...` and `arrival=gaps:<gap>@<count>/...` are histograms
//!   with integer counts (a gap may be `0ns`). They are drawn **without replacement**: the
//!   generator takes every entry exactly `count` times, in random order, before it starts
//!   over. So a workload whose `count` is the histogram's total (or one more, for gaps)
//!   reproduces the histogram's mean, percentiles and variance exactly, not only in
//!   expectation. With `size=hist:`, reads are drawn the same way: in each cycle of the
//!   size histogram, `read` % of its total (rounded) are reads;
//! - `runs=<length>@<count>/...` gives `gaps:` its burst structure. A gap is *short* when
//!   it is below the mean of the `gaps:` histogram, else *long*; the trace is a sequence of
//!   runs of short gaps, each ended by one long gap. `runs` is the histogram of those run
//!   lengths (0 for two long gaps in a row), drawn without replacement too: the generator
//!   draws a run length L, emits L short gaps and then one long gap, each drawn from its
//!   side of the `gaps:` histogram. Without `runs`, short and long gaps are mixed at random.
//!
//! # Presets
//!
//! `syn:<name>[,key=value,...]` starts from one of the named [`crate::presets`] (stand-ins
//! for the workloads of Venice Table 2, e.g. `syn:hm_0`): the preset's keys first, then the
//! given ones, which win (`syn:hm_0,count=20000`, `syn:hm_0,arrival=qd:32`). The mixes of
//! Venice Table 3 (`syn:mix1` ...) are several flows: [`crate::expand_workload`] turns
//! them into one spec per flow.
//!
//! The generator ([`SyntheticGenerator`]) is deterministic for a given spec, device
//! capacity and seed (Xoshiro256++ seeded with `seed_from_u64`), allocates nothing
//! per request, and never addresses past the capacity or the span.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::num::{parse_scaled, parse_u64};
use crate::{presets, IoRequest, Op, WorkloadError};

const PREFIX: &str = "syn:";
/// The spec keys, in canonical order.
pub(crate) const KEYS: [&str; 8] = [
    "read", "size", "addr", "align", "arrival", "count", "span", "runs",
];

/// One `key=value` item of spec `spec`: the key's index in [`KEYS`], the key and the value,
/// or the error naming what is wrong (not key=value, an unknown key, a key given twice).
pub(crate) fn spec_item<'a>(
    spec: &str,
    item: &'a str,
    seen: &mut [bool; KEYS.len()],
) -> Result<(usize, &'a str, &'a str), WorkloadError> {
    let Some((key, value)) = item.split_once('=') else {
        return Err(WorkloadError::BadSpec {
            spec: spec.to_string(),
            reason: format!("`{item}` is not of the form key=value"),
        });
    };
    let (key, value) = (key.trim(), value.trim());
    let Some(idx) = KEYS.iter().position(|k| *k == key) else {
        return Err(WorkloadError::UnknownSpecKey {
            key: key.to_string(),
        });
    };
    if std::mem::replace(&mut seen[idx], true) {
        return Err(WorkloadError::bad_value(
            key,
            value,
            "the key is given more than once",
        ));
    }
    Ok((idx, key, value))
}
const SECTOR: u64 = 512;

/// Request-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every request has this size (bytes).
    Fixed(u32),
    /// Uniform among multiples of the granule (4 KiB or 512 B, see the module doc) in `[min, max]`.
    Uniform { min: u32, max: u32 },
    /// Weighted choice among sizes: `(size_bytes, relative weight)`.
    Choice(Vec<(u32, f64)>),
    /// An empirical histogram `(size_bytes, count)`, drawn without replacement (module doc).
    Hist(Vec<(u32, u64)>),
}

/// Address pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddrPattern {
    Uniform,
    /// `hot_access_pct` % of requests go to the first `hot_space_pct` % of the span.
    HotCold {
        hot_access_pct: f64,
        hot_space_pct: f64,
    },
    Sequential,
}

/// Arrival process.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// Exponential inter-arrival gaps with this mean (ns).
    Poisson { mean_ns: u64 },
    /// Bursts of back-to-back requests (see the module doc): burst lengths geometric with
    /// mean `burst` (≥ 1), exponential gaps of mean `burst × mean_ns` before each burst, so
    /// the mean inter-arrival time is `mean_ns` and its squared coefficient of variation
    /// is `2 × burst − 1`.
    Bursty { mean_ns: u64, burst: f64 },
    /// Constant inter-arrival gap (ns).
    Fixed { interval_ns: u64 },
    /// Closed loop: all arrivals at 0, `depth` requests outstanding.
    ClosedLoop { depth: u32 },
    /// An empirical histogram of inter-arrival gaps `(gap_ns, count)`, drawn without
    /// replacement, with the burst structure of [`SyntheticSpec::runs`] (module doc).
    Gaps(Vec<(u64, u64)>),
}

/// A parsed synthetic workload description (see the module doc for the grammar).
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    pub read_pct: f64,
    pub size: SizeDist,
    pub addr: AddrPattern,
    /// Alignment of random start offsets, bytes (positive multiple of 512).
    pub align: u64,
    pub arrival: Arrival,
    pub count: u64,
    /// Addressed bytes from offset 0; `None` = the whole device.
    pub span: Option<u64>,
    /// With [`Arrival::Gaps`]: the histogram `(run length, count)` of runs of short gaps
    /// between long ones (module doc).
    pub runs: Option<Vec<(u64, u64)>>,
    /// The [`crate::presets`] name the spec started from (`syn:hm_0,...`), if any; a label
    /// only: the fields above hold the values.
    pub preset: Option<&'static str>,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            read_pct: 70.0,
            size: SizeDist::Fixed(4096),
            addr: AddrPattern::Uniform,
            align: 4096,
            arrival: Arrival::ClosedLoop { depth: 32 },
            count: 100_000,
            span: None,
            runs: None,
            preset: None,
        }
    }
}

impl SyntheticSpec {
    /// Whether `s` names a synthetic workload (starts with `syn:`) rather than a trace file.
    pub fn is_synthetic(s: &str) -> bool {
        s.trim_start().starts_with(PREFIX)
    }

    /// Parses `syn:key=value,...`, or `syn:<preset>[,key=value,...]` for one of the
    /// [`crate::presets`]: the preset's keys first, then the given keys, which win.
    /// A mix name (`syn:mix1`) is an error here: it is several flows, see
    /// [`crate::expand_workload`].
    pub fn parse(s: &str) -> Result<SyntheticSpec, WorkloadError> {
        let body = s
            .trim()
            .strip_prefix(PREFIX)
            .ok_or_else(|| WorkloadError::BadSpec {
                spec: s.to_string(),
                reason: "a synthetic workload must start with `syn:`".to_string(),
            })?;
        let mut items = body
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .peekable();
        let mut spec = SyntheticSpec::default();
        if let Some(&first) = items.peek() {
            if !first.contains('=') && !KEYS.contains(&first) {
                if let Some(p) = presets::trace_preset(first) {
                    spec.apply_items(s, p.spec_keys().split(','))?;
                    spec.preset = Some(p.name);
                    items.next();
                } else if let Some(m) = presets::mix_preset(first) {
                    return Err(WorkloadError::BadSpec {
                        spec: s.to_string(),
                        reason: format!(
                            "`{}` is a mix of {} concurrent flows ({}), not one flow: \
                             expand it into one spec per flow with `expand_workload`",
                            m.name,
                            m.constituents.len(),
                            m.constituents.join(", ")
                        ),
                    });
                } else {
                    return Err(WorkloadError::UnknownPreset {
                        name: first.to_string(),
                    });
                }
            }
        }
        spec.apply_items(s, items)?;
        if let (Some(runs), false) = (&spec.runs, matches!(spec.arrival, Arrival::Gaps(_))) {
            return Err(WorkloadError::bad_value(
                "runs",
                &hist_text(runs, |v| v.to_string()),
                "runs give the burst structure of arrival=gaps:...; give that arrival too",
            ));
        }
        Ok(spec)
    }

    /// Applies `key=value` items over the current values; each key at most once.
    fn apply_items<'a>(
        &mut self,
        s: &str,
        items: impl Iterator<Item = &'a str>,
    ) -> Result<(), WorkloadError> {
        let spec = self;
        let mut seen = [false; KEYS.len()];
        for item in items.map(str::trim).filter(|i| !i.is_empty()) {
            let (idx, key, value) = spec_item(s, item, &mut seen)?;
            match idx {
                0 => {
                    spec.read_pct = parse_pct(value).ok_or_else(|| {
                        WorkloadError::bad_value(key, value, "expected a percentage from 0 to 100")
                    })?
                }
                1 => {
                    spec.size = parse_size_dist(value)
                        .map_err(|r| WorkloadError::bad_value(key, value, r))?
                }
                2 => {
                    spec.addr =
                        parse_addr(value).map_err(|r| WorkloadError::bad_value(key, value, r))?
                }
                3 => {
                    spec.align = parse_bytes(value)
                        .filter(|&a| a > 0 && a % SECTOR == 0)
                        .ok_or_else(|| {
                            WorkloadError::bad_value(
                                key,
                                value,
                                "expected a positive multiple of 512 bytes, e.g. 4k",
                            )
                        })?
                }
                4 => {
                    spec.arrival =
                        parse_arrival(value).map_err(|r| WorkloadError::bad_value(key, value, r))?
                }
                5 => {
                    spec.count = parse_u64(value).filter(|&n| n > 0).ok_or_else(|| {
                        WorkloadError::bad_value(
                            key,
                            value,
                            "expected a whole number of requests, at least 1",
                        )
                    })?
                }
                7 => {
                    spec.runs = Some(
                        parse_hist(value, |v| {
                            parse_u64(v)
                                .ok_or_else(|| format!("run length `{v}` is not a whole number"))
                        })
                        .map_err(|r| WorkloadError::bad_value(key, value, r))?,
                    )
                }
                _ => {
                    spec.span = Some(parse_bytes(value).filter(|&b| b > 0).ok_or_else(|| {
                        WorkloadError::bad_value(
                            key,
                            value,
                            "expected a positive byte count, e.g. 64g",
                        )
                    })?)
                }
            }
        }
        Ok(())
    }

    /// `Some(N)` for `arrival=qd:N`: replay must keep N requests outstanding and ignore arrival times.
    pub fn closed_loop_depth(&self) -> Option<u32> {
        match self.arrival {
            Arrival::ClosedLoop { depth } => Some(depth),
            _ => None,
        }
    }

    /// The largest request size the spec can produce (bytes).
    pub fn max_size(&self) -> u32 {
        match &self.size {
            SizeDist::Fixed(s) => *s,
            SizeDist::Uniform { max, .. } => *max,
            SizeDist::Choice(c) => c.iter().map(|(s, _)| *s).max().unwrap_or(0),
            SizeDist::Hist(h) => h.iter().map(|(s, _)| *s).max().unwrap_or(0),
        }
    }
}

impl FromStr for SyntheticSpec {
    type Err = WorkloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SyntheticSpec::parse(s)
    }
}

impl serde::Serialize for SyntheticSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

fn parse_pct(v: &str) -> Option<f64> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    v.parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p))
}

/// `4096`, `4k`, `4KiB`, `64g`, `512b` → bytes (binary multiples).
pub fn parse_bytes(v: &str) -> Option<u64> {
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n = parse_u64(num)?;
    let unit = unit.to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let mult: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

fn request_bytes(v: &str) -> Result<u32, String> {
    let b = parse_bytes(v).ok_or_else(|| format!("`{v}` is not a size like 4k, 16k or 512"))?;
    if b == 0 || b % SECTOR != 0 {
        return Err(format!(
            "size `{v}` is not a positive multiple of 512 bytes"
        ));
    }
    u32::try_from(b).map_err(|_| format!("size `{v}` is too large (limit 4 GiB - 512)"))
}

fn parse_size_dist(v: &str) -> Result<SizeDist, String> {
    if let Some(range) = v.strip_prefix("uniform:") {
        let (lo, hi) = range
            .split_once('-')
            .ok_or("expected uniform:<min>-<max>, e.g. uniform:4k-64k")?;
        let (min, max) = (request_bytes(lo.trim())?, request_bytes(hi.trim())?);
        if min > max {
            return Err("the minimum is larger than the maximum".to_string());
        }
        Ok(SizeDist::Uniform { min, max })
    } else if let Some(list) = v.strip_prefix("hist:") {
        Ok(SizeDist::Hist(parse_hist(list, request_bytes)?))
    } else if let Some(list) = v.strip_prefix("choice:") {
        let mut out = Vec::new();
        for entry in list.split('/') {
            let (size, weight) = match entry.split_once('@') {
                Some((s, w)) => (s.trim(), w.trim()),
                None => (entry.trim(), "1"),
            };
            let size = request_bytes(size)?;
            let weight = parse_pct_like_weight(weight)
                .ok_or_else(|| format!("weight `{weight}` is not a positive number"))?;
            out.push((size, weight));
        }
        Ok(SizeDist::Choice(out))
    } else {
        Ok(SizeDist::Fixed(request_bytes(v)?))
    }
}

/// The most entries a `hist:`, `gaps:` or `runs` histogram may have.
pub const MAX_HIST_ENTRIES: usize = 4096;

/// `<value>@<count>/...`: values by `value`, counts positive integers.
fn parse_hist<T, E: ToString>(
    list: &str,
    value: impl Fn(&str) -> Result<T, E>,
) -> Result<Vec<(T, u64)>, String> {
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for entry in list.split('/') {
        let Some((v, n)) = entry.split_once('@') else {
            return Err(format!(
                "`{entry}` is not <value>@<count> (a histogram, e.g. 4k@120/8k@30)"
            ));
        };
        let v = value(v.trim()).map_err(|e| e.to_string())?;
        let n = parse_u64(n.trim())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("count `{}` is not a positive whole number", n.trim()))?;
        total = total
            .checked_add(n)
            .ok_or("the counts add up to more than 2^64 - 1")?;
        out.push((v, n));
        if out.len() > MAX_HIST_ENTRIES {
            return Err(format!("more than {MAX_HIST_ENTRIES} entries"));
        }
    }
    Ok(out)
}

/// The mean of a `gaps:` histogram: the threshold between short and long gaps.
pub(crate) fn hist_mean(h: &[(u64, u64)]) -> f64 {
    let total: u64 = h.iter().map(|g| g.1).sum();
    let weighted: f64 = h.iter().map(|&(g, n)| g as f64 * n as f64).sum();
    if total > 0 {
        weighted / total as f64
    } else {
        0.0
    }
}

/// A histogram in the spec's syntax.
fn hist_text<T>(h: &[(T, u64)], show: impl Fn(&T) -> String) -> String {
    let items: Vec<String> = h.iter().map(|(v, n)| format!("{}@{n}", show(v))).collect();
    items.join("/")
}

fn parse_pct_like_weight(w: &str) -> Option<f64> {
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    w.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0)
}

fn parse_addr(v: &str) -> Result<AddrPattern, String> {
    match v {
        "uniform" => Ok(AddrPattern::Uniform),
        "seq" | "sequential" => Ok(AddrPattern::Sequential),
        "hotcold" => Ok(AddrPattern::HotCold {
            hot_access_pct: 80.0,
            hot_space_pct: 20.0,
        }),
        _ => {
            let hc = v
                .strip_prefix("hotcold:")
                .ok_or("expected uniform, seq or hotcold:<hot access %>/<hot space %>")?;
            let (a, s) = hc
                .split_once('/')
                .ok_or("expected hotcold:<hot access %>/<hot space %>, e.g. hotcold:80/20")?;
            let hot_access_pct = parse_pct(a.trim())
                .ok_or("the hot access share must be a percentage from 0 to 100")?;
            let hot_space_pct = parse_pct(s.trim())
                .filter(|&p| p > 0.0)
                .ok_or("the hot space share must be a percentage above 0, at most 100")?;
            Ok(AddrPattern::HotCold {
                hot_access_pct,
                hot_space_pct,
            })
        }
    }
}

/// `20us`, `0.5ms`, `100ns`, `1s` → ns (a unit is required; decimals are exact).
pub fn parse_duration(v: &str) -> Result<u64, String> {
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let scale = match unit {
        "ns" => 0,
        "us" => 3,
        "ms" => 6,
        "s" => 9,
        _ => {
            return Err(format!(
                "`{v}` needs a time unit: ns, us, ms or s (e.g. 20us)"
            ))
        }
    };
    parse_scaled(num, scale).ok_or_else(|| format!("`{v}` is not a duration like 20us"))
}

fn parse_arrival(v: &str) -> Result<Arrival, String> {
    if let Some(rest) = v.strip_prefix("bursty:") {
        let (m, b) = match rest.split_once('/') {
            Some((m, b)) => (m.trim(), Some(b.trim())),
            None => (rest.trim(), None),
        };
        let mean_ns = parse_duration(m)?;
        if mean_ns == 0 {
            return Err("the mean inter-arrival time must be at least 1 ns".to_string());
        }
        let burst = match b {
            None => presets::PRESET_BURST,
            Some(b) => parse_pct_like_weight(b)
                .filter(|b| (1.0..=1e6).contains(b))
                .ok_or_else(|| {
                    format!(
                        "the mean burst length `{b}` must be a number from 1 to 1000000 \
                         (e.g. bursty:58us/4)"
                    )
                })?,
        };
        Ok(Arrival::Bursty { mean_ns, burst })
    } else if let Some(m) = v.strip_prefix("poisson:") {
        let mean_ns = parse_duration(m)?;
        if mean_ns == 0 {
            return Err("the mean inter-arrival time must be at least 1 ns".to_string());
        }
        Ok(Arrival::Poisson { mean_ns })
    } else if let Some(i) = v.strip_prefix("fixed:") {
        Ok(Arrival::Fixed {
            interval_ns: parse_duration(i)?,
        })
    } else if let Some(list) = v.strip_prefix("gaps:") {
        Ok(Arrival::Gaps(parse_hist(list, parse_duration)?))
    } else if let Some(d) = v.strip_prefix("qd:") {
        let depth = parse_u64(d)
            .and_then(|d| u32::try_from(d).ok())
            .filter(|&d| d > 0)
            .ok_or("the queue depth must be a whole number from 1 to 4294967295")?;
        Ok(Arrival::ClosedLoop { depth })
    } else {
        Err(
            "expected poisson:<mean>, bursty:<mean>/<burst>, fixed:<interval>, qd:<N> or gaps:<gap>@<count>/..."
                .to_string(),
        )
    }
}

struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
            if self.0 != 0 && self.0 % (1u64 << shift) == 0 {
                return write!(f, "{}{unit}", self.0 >> shift);
            }
        }
        write!(f, "{}", self.0)
    }
}

struct Duration(u64);

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (div, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
            if self.0 != 0 && self.0 % div == 0 {
                return write!(f, "{}{unit}", self.0 / div);
            }
        }
        write!(f, "{}ns", self.0)
    }
}

impl fmt::Display for SizeDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeDist::Fixed(s) => write!(f, "{}", Bytes(u64::from(*s))),
            SizeDist::Uniform { min, max } => write!(
                f,
                "uniform:{}-{}",
                Bytes(u64::from(*min)),
                Bytes(u64::from(*max))
            ),
            SizeDist::Choice(c) => {
                f.write_str("choice:")?;
                for (i, (s, w)) in c.iter().enumerate() {
                    if i > 0 {
                        f.write_str("/")?;
                    }
                    write!(f, "{}@{w}", Bytes(u64::from(*s)))?;
                }
                Ok(())
            }
            SizeDist::Hist(h) => {
                write!(
                    f,
                    "hist:{}",
                    hist_text(h, |s| Bytes(u64::from(*s)).to_string())
                )
            }
        }
    }
}

impl fmt::Display for AddrPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddrPattern::Uniform => f.write_str("uniform"),
            AddrPattern::HotCold {
                hot_access_pct,
                hot_space_pct,
            } => write!(f, "hotcold:{hot_access_pct}/{hot_space_pct}"),
            AddrPattern::Sequential => f.write_str("seq"),
        }
    }
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arrival::Poisson { mean_ns } => write!(f, "poisson:{}", Duration(*mean_ns)),
            Arrival::Bursty { mean_ns, burst } => {
                write!(f, "bursty:{}/{burst}", Duration(*mean_ns))
            }
            Arrival::Fixed { interval_ns } => write!(f, "fixed:{}", Duration(*interval_ns)),
            Arrival::ClosedLoop { depth } => write!(f, "qd:{depth}"),
            Arrival::Gaps(g) => write!(f, "gaps:{}", hist_text(g, |d| Duration(*d).to_string())),
        }
    }
}

impl fmt::Display for SyntheticSpec {
    /// The canonical spec, every key spelled out (after the preset name, if any);
    /// parsing it gives back an equal spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(PREFIX)?;
        if let Some(name) = self.preset {
            write!(f, "{name},")?;
        }
        write!(
            f,
            "read={},size={},addr={},align={},arrival={},count={}",
            self.read_pct,
            self.size,
            self.addr,
            Bytes(self.align),
            self.arrival,
            self.count
        )?;
        if let Some(span) = self.span {
            write!(f, ",span={}", Bytes(span))?;
        }
        if let Some(runs) = &self.runs {
            write!(f, ",runs={}", hist_text(runs, u64::to_string))?;
        }
        Ok(())
    }
}

/// A histogram drawn without replacement: every entry `count` times in random order, then
/// again. Allocated once; a draw walks the entries (at most [`MAX_HIST_ENTRIES`]).
#[derive(Clone, Debug)]
struct Pool {
    counts: Vec<u64>,
    left: Vec<u64>,
    total_left: u64,
}

impl Pool {
    fn new(counts: Vec<u64>) -> Self {
        Pool {
            left: counts.clone(),
            total_left: counts.iter().sum(),
            counts,
        }
    }

    fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// The index of the entry drawn (`None` for an empty histogram).
    fn draw(&mut self, rng: &mut Xoshiro256PlusPlus) -> Option<usize> {
        if self.total_left == 0 {
            self.left.copy_from_slice(&self.counts);
            self.total_left = self.counts.iter().sum();
            if self.total_left == 0 {
                return None;
            }
        }
        let mut u = rng.random_range(0..self.total_left);
        for (i, l) in self.left.iter_mut().enumerate() {
            if u < *l {
                *l -= 1;
                self.total_left -= 1;
                return Some(i);
            }
            u -= *l;
        }
        unreachable!("u < total_left = the sum of left")
    }
}

/// `arrival=gaps:` with its optional `runs`: the gap histogram split at its mean into short
/// and long gaps, and the state of the current run (module doc).
#[derive(Clone, Debug)]
struct GapState {
    short: Vec<u64>,
    short_pool: Pool,
    long: Vec<u64>,
    long_pool: Pool,
    /// `(run lengths, their pool)` with `runs`; `None` mixes short and long gaps.
    runs: Option<(Vec<u64>, Pool)>,
    all: Vec<u64>,
    all_pool: Pool,
    /// Short gaps left in the current run; `None` before the first gap.
    in_run: Option<u64>,
    clock_ns: u64,
}

impl GapState {
    fn new(gaps: &[(u64, u64)], runs: Option<&Vec<(u64, u64)>>) -> Self {
        let mean = hist_mean(gaps);
        type Hist = Vec<(u64, u64)>;
        let (short, long): (Hist, Hist) = gaps.iter().partition(|&&(g, _)| (g as f64) < mean);
        let split = |h: &[(u64, u64)]| -> (Vec<u64>, Pool) {
            (
                h.iter().map(|x| x.0).collect(),
                Pool::new(h.iter().map(|x| x.1).collect()),
            )
        };
        let (short, short_pool) = split(&short);
        let (long, long_pool) = split(&long);
        let (all, all_pool) = split(gaps);
        GapState {
            short,
            short_pool,
            long,
            long_pool,
            runs: runs.map(|r| split(r)),
            all,
            all_pool,
            in_run: None,
            clock_ns: 0,
        }
    }

    fn next_gap(&mut self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        let Some((lengths, pool)) = &mut self.runs else {
            return self.all_pool.draw(rng).map_or(0, |i| self.all[i]);
        };
        let mut draw_run = |rng: &mut Xoshiro256PlusPlus| pool.draw(rng).map_or(0, |i| lengths[i]);
        let left = match self.in_run {
            Some(l) => l,
            None => draw_run(rng),
        };
        if left > 0 && !self.short_pool.is_empty() {
            self.in_run = Some(left - 1);
            return self.short_pool.draw(rng).map_or(0, |i| self.short[i]);
        }
        self.in_run = Some(draw_run(rng));
        match self.long_pool.draw(rng) {
            Some(i) => self.long[i],
            None => self.short_pool.draw(rng).map_or(0, |i| self.short[i]),
        }
    }
}

/// Generates the requests of a [`SyntheticSpec`] for a device of a given capacity.
#[derive(Clone, Debug)]
pub struct SyntheticGenerator {
    spec: SyntheticSpec,
    rng: Xoshiro256PlusPlus,
    span: u64,
    hot_end: u64,
    choice_total: f64,
    emitted: u64,
    time_ns: f64,
    next_seq: u64,
    /// Bursty arrivals: probability that a request starts a new burst (1 / B)
    /// and mean gap before a burst (B × mean inter-arrival, ns).
    burst_start_p: f64,
    burst_gap_ns: f64,
    /// `size=hist:`: the pool of sizes, and of directions (reads, writes).
    size_pool: Option<Pool>,
    op_pool: Option<Pool>,
    /// `arrival=gaps:`: the gap state.
    gaps: Option<Box<GapState>>,
}

impl SyntheticGenerator {
    /// Errors when the largest request does not fit in the addressed space
    /// (the span, clamped to `device_capacity_bytes`).
    pub fn new(
        spec: &SyntheticSpec,
        device_capacity_bytes: u64,
        seed: u64,
    ) -> Result<Self, WorkloadError> {
        let span = spec
            .span
            .map_or(device_capacity_bytes, |s| s.min(device_capacity_bytes));
        let max = u64::from(spec.max_size());
        if max > span {
            let what = if spec.span.is_some_and(|s| s < device_capacity_bytes) {
                format!("the largest request is bigger than the addressed span of {span} bytes")
            } else {
                format!("the largest request is bigger than the device capacity of {span} bytes")
            };
            return Err(WorkloadError::bad_value(
                "size",
                &spec.size.to_string(),
                what,
            ));
        }
        let hot_end = match spec.addr {
            AddrPattern::HotCold { hot_space_pct, .. } => {
                let raw = (span as f64 * hot_space_pct / 100.0) as u64;
                (raw / spec.align * spec.align).max(spec.align).min(span)
            }
            _ => span,
        };
        let choice_total = match &spec.size {
            SizeDist::Choice(c) => c.iter().map(|(_, w)| w).sum(),
            _ => 0.0,
        };
        let (burst_start_p, burst_gap_ns) = match spec.arrival {
            Arrival::Bursty { mean_ns, burst } => (1.0 / burst, mean_ns as f64 * burst),
            _ => (1.0, 0.0),
        };
        let size_pool = match &spec.size {
            SizeDist::Hist(h) => Some(Pool::new(h.iter().map(|x| x.1).collect())),
            _ => None,
        };
        // with hist sizes, directions are drawn without replacement too: per cycle of the
        // histogram, read % of its total are reads (rounded)
        let op_pool = match &spec.size {
            SizeDist::Hist(h) => {
                let total: u64 = h.iter().map(|x| x.1).sum();
                let reads = ((spec.read_pct / 100.0 * total as f64).round() as u64).min(total);
                Some(Pool::new(vec![reads, total - reads]))
            }
            _ => None,
        };
        let gaps = match &spec.arrival {
            Arrival::Gaps(g) => Some(Box::new(GapState::new(g, spec.runs.as_ref()))),
            _ => None,
        };
        Ok(SyntheticGenerator {
            size_pool,
            op_pool,
            gaps,
            burst_start_p,
            burst_gap_ns,
            spec: spec.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            span,
            hot_end,
            choice_total,
            emitted: 0,
            time_ns: 0.0,
            next_seq: 0,
        })
    }

    pub fn spec(&self) -> &SyntheticSpec {
        &self.spec
    }

    /// Bytes addressed: offsets + sizes stay within `[0, span)`.
    pub fn span_bytes(&self) -> u64 {
        self.span
    }

    /// End of the hot region for `hotcold` (the span otherwise).
    pub fn hot_end_bytes(&self) -> u64 {
        self.hot_end
    }

    pub fn closed_loop_depth(&self) -> Option<u32> {
        self.spec.closed_loop_depth()
    }

    fn draw_size(&mut self) -> u32 {
        match &self.spec.size {
            SizeDist::Fixed(s) => *s,
            SizeDist::Uniform { min, max } => {
                let g = if min % 4096 == 0 && max % 4096 == 0 {
                    4096
                } else {
                    512
                };
                self.rng.random_range(min / g..=max / g) * g
            }
            SizeDist::Choice(c) => {
                let mut u = self.rng.random::<f64>() * self.choice_total;
                for (s, w) in c {
                    if u < *w {
                        return *s;
                    }
                    u -= w;
                }
                c.last().map_or(512, |(s, _)| *s)
            }
            SizeDist::Hist(h) => {
                let pool = self.size_pool.as_mut().expect("a pool for hist");
                pool.draw(&mut self.rng).map_or(512, |i| h[i].0)
            }
        }
    }

    /// An `align`-aligned offset in `[lo, hi]` (hi = last start offset allowed), or `None`.
    fn aligned_in(&mut self, lo: u64, hi: u64) -> Option<u64> {
        let a = self.spec.align;
        let first = lo.div_ceil(a);
        let last = hi / a;
        (first <= last).then(|| self.rng.random_range(first..=last) * a)
    }

    fn draw_offset(&mut self, size: u64) -> u64 {
        let last_start = self.span - size;
        match self.spec.addr {
            AddrPattern::Uniform => self.aligned_in(0, last_start).unwrap_or(0),
            AddrPattern::HotCold { hot_access_pct, .. } => {
                let hot = self.rng.random::<f64>() * 100.0 < hot_access_pct;
                let hot_last = (self.hot_end - 1).min(last_start);
                if !hot {
                    if let Some(o) = self.aligned_in(self.hot_end, last_start) {
                        return o;
                    }
                }
                self.aligned_in(0, hot_last).unwrap_or(0)
            }
            AddrPattern::Sequential => {
                if self.next_seq > last_start {
                    self.next_seq = 0;
                }
                let o = self.next_seq;
                self.next_seq += size;
                o
            }
        }
    }
}

impl Iterator for SyntheticGenerator {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.emitted >= self.spec.count {
            return None;
        }
        let op = if let Some(pool) = &mut self.op_pool {
            if pool.draw(&mut self.rng) == Some(0) {
                Op::Read
            } else {
                Op::Write
            }
        } else if self.rng.random::<f64>() * 100.0 < self.spec.read_pct {
            Op::Read
        } else {
            Op::Write
        };
        let size_bytes = self.draw_size();
        let offset_bytes = self.draw_offset(u64::from(size_bytes));
        let arrival_ns = match &self.spec.arrival {
            &Arrival::Poisson { mean_ns } => {
                let t = self.time_ns;
                let u: f64 = self.rng.random();
                self.time_ns += -(mean_ns as f64) * (1.0 - u).ln();
                t.round() as u64
            }
            Arrival::Bursty { .. } => {
                // The first request opens the first burst at time 0; every later one
                // opens a new burst with probability 1/B (so burst lengths are geometric
                // with mean B) after an exponential gap of mean B × mean, else it follows
                // the previous request back to back.
                if self.emitted > 0 && self.rng.random::<f64>() < self.burst_start_p {
                    let u: f64 = self.rng.random();
                    self.time_ns += -self.burst_gap_ns * (1.0 - u).ln();
                }
                self.time_ns.round() as u64
            }
            &Arrival::Fixed { interval_ns } => self.emitted.saturating_mul(interval_ns),
            Arrival::ClosedLoop { .. } => 0,
            Arrival::Gaps(_) => {
                let g = self.gaps.as_mut().expect("a gap state for gaps");
                if self.emitted > 0 {
                    let gap = g.next_gap(&mut self.rng);
                    g.clock_ns = g.clock_ns.saturating_add(gap);
                }
                g.clock_ns
            }
        };
        self.emitted += 1;
        Some(IoRequest {
            arrival_ns,
            offset_bytes,
            size_bytes,
            op,
            device: 0,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.spec.count - self.emitted).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

impl ExactSizeIterator for SyntheticGenerator {}
impl std::iter::FusedIterator for SyntheticGenerator {}

impl presets::TracePreset {
    /// The parsed preset (`syn:<name>`).
    pub fn spec(&self) -> SyntheticSpec {
        SyntheticSpec::parse(&format!("syn:{}", self.name)).expect("every preset parses (tested)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIB: u64 = 1 << 30;

    fn gen(spec: &str, cap: u64, seed: u64) -> SyntheticGenerator {
        SyntheticGenerator::new(&spec.parse().unwrap(), cap, seed).unwrap()
    }

    fn err(spec: &str) -> String {
        SyntheticSpec::parse(spec).unwrap_err().to_string()
    }

    #[test]
    fn parses_example_and_defaults() {
        let s: SyntheticSpec = "syn:read=70,size=4k,addr=uniform,arrival=poisson:20us,count=100000"
            .parse()
            .unwrap();
        assert_eq!(s.read_pct, 70.0);
        assert_eq!(s.size, SizeDist::Fixed(4096));
        assert_eq!(s.addr, AddrPattern::Uniform);
        assert_eq!(s.arrival, Arrival::Poisson { mean_ns: 20_000 });
        assert_eq!(s.count, 100_000);
        assert_eq!(s.closed_loop_depth(), None);
        let d = SyntheticSpec::parse("syn:").unwrap();
        assert_eq!(d, SyntheticSpec::default());
        assert_eq!(
            d.to_string(),
            "syn:read=70,size=4k,addr=uniform,align=4k,arrival=qd:32,count=100000"
        );
        assert_eq!(d.closed_loop_depth(), Some(32));
        let s = SyntheticSpec::parse(" syn: read = 50 , size=choice:4k@70/16k@30, addr=hotcold:90/10, align=8KiB, arrival=fixed:0.5us, count=7, span=64g").unwrap();
        assert_eq!(s.size, SizeDist::Choice(vec![(4096, 70.0), (16384, 30.0)]));
        assert_eq!(
            s.addr,
            AddrPattern::HotCold {
                hot_access_pct: 90.0,
                hot_space_pct: 10.0
            }
        );
        assert_eq!((s.align, s.span), (8192, Some(64 * GIB)));
        assert_eq!(s.arrival, Arrival::Fixed { interval_ns: 500 });
        assert_eq!(
            s.to_string(),
            "syn:read=50,size=choice:4k@70/16k@30,addr=hotcold:90/10,align=8k,arrival=fixed:500ns,count=7,span=64g"
        );
        assert!(SyntheticSpec::is_synthetic("syn:read=1"));
        assert!(!SyntheticSpec::is_synthetic(
            "../shared/traces/tpcc-small.trace"
        ));
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "syn:read=12.5,size=uniform:4k-64k,addr=seq,align=512,arrival=poisson:1ms,count=7",
            "syn:read=100,size=1536,addr=hotcold:80/20,align=4k,arrival=qd:1,count=5,span=1m",
            "syn:read=0,size=uniform:512-3584,addr=uniform,align=4k,arrival=fixed:3s,count=1",
        ] {
            let spec = SyntheticSpec::parse(s).unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(SyntheticSpec::parse(&spec.to_string()).unwrap(), spec);
        }
    }

    #[test]
    fn errors_name_key_and_value() {
        assert_eq!(err("syn:reads=70"), "synthetic spec: unknown key `reads` (expected one of: read, size, addr, align, arrival, count, span, runs)");
        assert_eq!(
            err("syn:read=170"),
            "synthetic spec: bad value `170` for `read`: expected a percentage from 0 to 100"
        );
        assert_eq!(
            err("syn:size=4q"),
            "synthetic spec: bad value `4q` for `size`: `4q` is not a size like 4k, 16k or 512"
        );
        assert_eq!(err("syn:size=1000"), "synthetic spec: bad value `1000` for `size`: size `1000` is not a positive multiple of 512 bytes");
        assert_eq!(err("syn:size=uniform:64k-4k"), "synthetic spec: bad value `uniform:64k-4k` for `size`: the minimum is larger than the maximum");
        assert_eq!(err("syn:size=choice:4k@0"), "synthetic spec: bad value `choice:4k@0` for `size`: weight `0` is not a positive number");
        assert_eq!(err("syn:addr=zipf"), "synthetic spec: bad value `zipf` for `addr`: expected uniform, seq or hotcold:<hot access %>/<hot space %>");
        assert_eq!(err("syn:align=100"), "synthetic spec: bad value `100` for `align`: expected a positive multiple of 512 bytes, e.g. 4k");
        assert_eq!(err("syn:arrival=poisson:20"), "synthetic spec: bad value `poisson:20` for `arrival`: `20` needs a time unit: ns, us, ms or s (e.g. 20us)");
        assert_eq!(err("syn:arrival=qd:0"), "synthetic spec: bad value `qd:0` for `arrival`: the queue depth must be a whole number from 1 to 4294967295");
        assert_eq!(
            err("syn:count=1e5"),
            "synthetic spec: bad value `1e5` for `count`: expected a whole number of requests, at least 1"
        );
        // Issue 43: `trace convert syn:count=0` wrote an empty trace.
        assert_eq!(
            err("syn:count=0"),
            "synthetic spec: bad value `0` for `count`: expected a whole number of requests, at least 1"
        );
        assert_eq!(
            err("syn:span=0"),
            "synthetic spec: bad value `0` for `span`: expected a positive byte count, e.g. 64g"
        );
        assert_eq!(
            err("syn:read=1,read=2"),
            "synthetic spec: bad value `2` for `read`: the key is given more than once"
        );
        assert_eq!(
            err("syn:read"),
            "synthetic spec `syn:read`: `read` is not of the form key=value"
        );
        assert_eq!(
            err("read=1"),
            "synthetic spec `read=1`: a synthetic workload must start with `syn:`"
        );
        let e = SyntheticGenerator::new(&"syn:size=64k".parse().unwrap(), 32768, 1).unwrap_err();
        assert_eq!(e.to_string(), "synthetic spec: bad value `64k` for `size`: the largest request is bigger than the device capacity of 32768 bytes");
    }

    #[test]
    fn read_fraction_within_tolerance() {
        let reqs: Vec<_> = gen("syn:read=70,count=100000", GIB, 7).collect();
        assert_eq!(reqs.len(), 100_000);
        let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / 1e5;
        assert!((reads - 0.70).abs() < 0.01, "{reads}");
        assert!(gen("syn:read=0,count=1000", GIB, 1).all(|r| r.op == Op::Write));
        assert!(gen("syn:read=100,count=1000", GIB, 1).all(|r| r.op == Op::Read));
    }

    #[test]
    fn deterministic_per_seed() {
        let spec =
            "syn:read=50,size=uniform:4k-64k,addr=hotcold:80/20,arrival=poisson:20us,count=10000";
        let a: Vec<_> = gen(spec, 16 * GIB, 42).collect();
        let b: Vec<_> = gen(spec, 16 * GIB, 42).collect();
        let c: Vec<_> = gen(spec, 16 * GIB, 43).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn addresses_in_range_and_aligned() {
        let cap = 10 * GIB + 12_288; // not a multiple of the largest size
        for spec in [
            "syn:size=uniform:4k-1m,addr=uniform,count=50000",
            "syn:size=choice:4k@1/128k@1/1m@1,addr=hotcold:80/20,align=16k,count=50000",
            "syn:size=uniform:512-8k,addr=uniform,align=512,count=50000",
            "syn:size=16k,addr=uniform,span=1g,count=50000",
        ] {
            let g = gen(spec, cap, 3);
            let (align, span) = (g.spec().align, g.span_bytes());
            for r in g {
                assert_eq!(r.offset_bytes % align, 0, "{spec}");
                assert!(r.offset_bytes + u64::from(r.size_bytes) <= span, "{spec}");
                assert!(span <= cap);
                assert_eq!(r.size_bytes % 512, 0);
            }
        }
        // a span larger than the device is clamped to it
        let mut g = gen("syn:span=1t,count=1000", GIB, 1);
        assert_eq!(g.span_bytes(), GIB);
        assert!(g.all(|r| r.offset_bytes + 4096 <= GIB));
        // tiny device: exactly one slot
        assert!(gen("syn:size=4k,count=100", 4096, 1).all(|r| r.offset_bytes == 0));
    }

    #[test]
    fn size_distributions() {
        let sizes: Vec<u32> = gen("syn:size=uniform:4k-64k,count=20000", GIB, 5)
            .map(|r| r.size_bytes)
            .collect();
        assert!(sizes
            .iter()
            .all(|s| (4096..=65536).contains(s) && s % 4096 == 0));
        assert!(sizes.contains(&4096) && sizes.contains(&65536));
        let small = sizes.iter().filter(|&&s| s == 4096).count() as f64 / 20000.0;
        assert!((small - 1.0 / 16.0).abs() < 0.01, "{small}");
        let big = gen("syn:size=choice:4k@70/16k@30,count=100000", GIB, 5)
            .filter(|r| r.size_bytes == 16384)
            .count() as f64
            / 1e5;
        assert!((big - 0.30).abs() < 0.01, "{big}");
    }

    #[test]
    fn hot_cold_proportion() {
        let g = gen("syn:addr=hotcold:80/20,count=100000", 100 * GIB, 11);
        let hot_end = g.hot_end_bytes();
        assert_eq!(hot_end, 20 * GIB);
        let hot = g.filter(|r| r.offset_bytes < hot_end).count() as f64 / 1e5;
        assert!((hot - 0.80).abs() < 0.01, "{hot}");
        // the cold part is really spread over the cold region
        let max = gen("syn:addr=hotcold:80/20,count=10000", 100 * GIB, 11)
            .map(|r| r.offset_bytes)
            .max()
            .unwrap();
        assert!(max > 90 * GIB);
    }

    #[test]
    fn sequential_is_contiguous_and_wraps() {
        let cap = 1 << 20;
        let reqs: Vec<_> = gen("syn:size=uniform:4k-64k,addr=seq,count=1000", cap, 9).collect();
        assert_eq!(reqs[0].offset_bytes, 0);
        let mut wraps = 0;
        for w in reqs.windows(2) {
            let end = w[0].offset_bytes + u64::from(w[0].size_bytes);
            assert!(end <= cap);
            if w[1].offset_bytes == 0 {
                wraps += 1;
                assert!(end + u64::from(w[1].size_bytes) > cap);
            } else {
                assert_eq!(w[1].offset_bytes, end);
            }
        }
        assert!(wraps >= 10, "{wraps}");
    }

    #[test]
    fn arrival_processes() {
        let reqs: Vec<_> = gen("syn:arrival=poisson:20us,count=100000", GIB, 2).collect();
        assert_eq!(reqs[0].arrival_ns, 0);
        assert!(reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
        let mean = reqs.last().unwrap().arrival_ns as f64 / 99_999.0;
        assert!((mean - 20_000.0).abs() < 400.0, "{mean}");
        let fixed: Vec<_> = gen("syn:arrival=fixed:10us,count=5", GIB, 2)
            .map(|r| r.arrival_ns)
            .collect();
        assert_eq!(fixed, vec![0, 10_000, 20_000, 30_000, 40_000]);
        let mut g = gen("syn:arrival=qd:8,count=100", GIB, 2);
        assert_eq!(g.closed_loop_depth(), Some(8));
        assert_eq!(g.len(), 100);
        assert!(g.all(|r| r.arrival_ns == 0 && r.device == 0));
    }

    #[test]
    fn bursty_parse_display_and_errors() {
        let s = SyntheticSpec::parse("syn:arrival=bursty:58us/4").unwrap();
        assert_eq!(
            s.arrival,
            Arrival::Bursty {
                mean_ns: 58_000,
                burst: 4.0
            }
        );
        assert_eq!(s.closed_loop_depth(), None);
        assert_eq!(
            s.to_string(),
            "syn:read=70,size=4k,addr=uniform,align=4k,arrival=bursty:58us/4,count=100000"
        );
        let d = SyntheticSpec::parse("syn:arrival=bursty:0.5us").unwrap();
        assert_eq!(
            d.arrival,
            Arrival::Bursty {
                mean_ns: 500,
                burst: presets::PRESET_BURST
            }
        );
        for s in [
            "syn:read=70,size=4k,addr=uniform,align=4k,arrival=bursty:1ms/1,count=10",
            "syn:read=70,size=4k,addr=uniform,align=4k,arrival=bursty:21063ns/6.25,count=10",
        ] {
            assert_eq!(SyntheticSpec::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(err("syn:arrival=bursty:58us/0.9"), "synthetic spec: bad value `bursty:58us/0.9` for `arrival`: the mean burst length `0.9` must be a number from 1 to 1000000 (e.g. bursty:58us/4)");
        assert_eq!(err("syn:arrival=bursty:58us/x"), "synthetic spec: bad value `bursty:58us/x` for `arrival`: the mean burst length `x` must be a number from 1 to 1000000 (e.g. bursty:58us/4)");
        assert_eq!(err("syn:arrival=bursty:58/4"), "synthetic spec: bad value `bursty:58/4` for `arrival`: `58` needs a time unit: ns, us, ms or s (e.g. 20us)");
        assert_eq!(err("syn:arrival=bursty:0us/4"), "synthetic spec: bad value `bursty:0us/4` for `arrival`: the mean inter-arrival time must be at least 1 ns");
        assert_eq!(err("syn:arrival=burst:5us"), "synthetic spec: bad value `burst:5us` for `arrival`: expected poisson:<mean>, bursty:<mean>/<burst>, fixed:<interval>, qd:<N> or gaps:<gap>@<count>/...");
    }

    /// Gaps of `bursty:m/B`: mean m, CV² = 2B − 1, a share 1 − 1/B of zero gaps, bursts of
    /// mean length B, on 1M requests (the standard error of the CV² estimate is < 1 %).
    #[test]
    fn bursty_mean_and_cv2() {
        for (b, seed) in [(4.0, 21), (presets::PRESET_BURST, 22), (1.0, 23)] {
            let n = 1_000_000u64;
            let spec = format!("syn:arrival=bursty:58us/{b},count={n}");
            let reqs: Vec<_> = gen(&spec, GIB, seed).collect();
            assert_eq!(reqs[0].arrival_ns, 0);
            assert!(reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
            let mean = reqs.last().unwrap().arrival_ns as f64 / (n - 1) as f64;
            assert!((mean / 58_000.0 - 1.0).abs() < 0.01, "B={b}: mean {mean}");
            let cv2 = crate::stats::interarrival_cv2(reqs.iter().copied()).unwrap();
            let want = 2.0 * b - 1.0;
            assert!(
                (cv2 / want - 1.0).abs() < 0.03,
                "B={b}: CV² {cv2} vs {want}"
            );
            let zero = reqs
                .windows(2)
                .filter(|w| w[0].arrival_ns == w[1].arrival_ns)
                .count();
            let zero = zero as f64 / (n - 1) as f64;
            assert!(
                (zero - (1.0 - 1.0 / b)).abs() < 0.005,
                "B={b}: zero gaps {zero}"
            );
            let bursts = reqs.len() as f64 / (reqs.len() as f64 - zero * (n - 1) as f64);
            assert!(
                (bursts / b - 1.0).abs() < 0.02,
                "B={b}: burst length {bursts}"
            );
        }
        // poisson for comparison: CV² ≈ 1
        let reqs = gen("syn:arrival=poisson:58us,count=1000000", GIB, 5);
        let cv2 = crate::stats::interarrival_cv2(reqs).unwrap();
        assert!((cv2 - 1.0).abs() < 0.03, "{cv2}");
    }

    /// `hist:`, `gaps:` and `runs`: parsed, printed back, and drawn without replacement:
    /// one cycle of each histogram is reproduced exactly.
    #[test]
    fn empirical_histograms() {
        let text = "syn:read=25,size=hist:4k@3/8k@1,addr=uniform,align=4k,arrival=gaps:0ns@2/1us@1,count=4,runs=0@1/2@1";
        let s = SyntheticSpec::parse(text).unwrap();
        assert_eq!(s.size, SizeDist::Hist(vec![(4096, 3), (8192, 1)]));
        assert_eq!(s.arrival, Arrival::Gaps(vec![(0, 2), (1000, 1)]));
        assert_eq!(s.runs, Some(vec![(0, 1), (2, 1)]));
        assert_eq!(s.to_string(), text);
        for seed in 0..20 {
            let reqs: Vec<_> = gen(text, GIB, seed).collect();
            let mut sizes: Vec<u32> = reqs.iter().map(|r| r.size_bytes).collect();
            sizes.sort();
            assert_eq!(sizes, [4096, 4096, 4096, 8192]);
            assert_eq!(reqs.iter().filter(|r| r.op == Op::Read).count(), 1);
            // gaps: mean 1000/3, so 0 is short and 1 us long; runs 0 and 2: either
            // long, short, short or short, short, long
            let times: Vec<u64> = reqs.iter().map(|r| r.arrival_ns).collect();
            assert!(
                times == [0, 1000, 1000, 1000] || times == [0, 0, 0, 1000],
                "{times:?}"
            );
        }
        // a second cycle starts over: 8 requests take each size twice as often
        let mut sizes: Vec<u32> = gen(&text.replace("count=4", "count=8"), GIB, 1)
            .map(|r| r.size_bytes)
            .collect();
        sizes.sort();
        assert_eq!(
            sizes,
            [4096; 6].into_iter().chain([8192; 2]).collect::<Vec<_>>()
        );
        for (spec, msg) in [
            ("syn:size=hist:4k", "synthetic spec: bad value `hist:4k` for `size`: `4k` is not <value>@<count> (a histogram, e.g. 4k@120/8k@30)"),
            ("syn:size=hist:4k@0", "synthetic spec: bad value `hist:4k@0` for `size`: count `0` is not a positive whole number"),
            ("syn:size=hist:100@2", "synthetic spec: bad value `hist:100@2` for `size`: size `100` is not a positive multiple of 512 bytes"),
            ("syn:arrival=gaps:5@2", "synthetic spec: bad value `gaps:5@2` for `arrival`: `5` needs a time unit: ns, us, ms or s (e.g. 20us)"),
            ("syn:runs=1@2", "synthetic spec: bad value `1@2` for `runs`: runs give the burst structure of arrival=gaps:...; give that arrival too"),
            ("syn:arrival=gaps:1us@1,runs=x@2", "synthetic spec: bad value `x@2` for `runs`: run length `x` is not a whole number"),
        ] {
            assert_eq!(err(spec), msg, "{spec}");
        }
    }

    proptest! {
        #[test]
        fn spec_parser_never_panics(s in "syn:[a-z=:,/@.0-9kgmtus\\-]{0,60}", t in ".{0,40}") {
            for input in [&s, &t] {
                if let Ok(spec) = SyntheticSpec::parse(input) {
                    let again = SyntheticSpec::parse(&spec.to_string());
                    prop_assert_eq!(again.ok(), Some(spec.clone()));
                    if let Ok(g) = SyntheticGenerator::new(&spec, 1 << 24, 1) {
                        for r in g.take(50) {
                            prop_assert!(r.offset_bytes + u64::from(r.size_bytes) <= 1 << 24);
                        }
                    }
                }
            }
        }
    }
}
