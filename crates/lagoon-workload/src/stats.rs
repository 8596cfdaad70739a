//! Trace statistics, computed in one streaming pass.
//!
//! Definitions (those of `../shared/traces/README.md`):
//! - `read_pct` = 100 × reads / requests;
//! - `avg_size_kb` = total bytes / requests / 1024 (KB = 1,024 bytes);
//! - `avg_interarrival_us` = (last − first timestamp) / (requests − 1), in µs;
//! - `span_s` = last − first timestamp, in seconds.
//!
//! "First" and "last" are the first and last requests in file order (traces are
//! expected to be time-ordered; if not, span and inter-arrival can be negative).
//! All of them are 0 for an empty trace; the inter-arrival is 0 for one request.
//!
//! `backward_arrivals` counts the requests whose arrival is earlier than the latest
//! arrival before them in file order (equal times do not count); the simulator replays
//! them at that latest time, so it is how many a replay reorders.

use std::fmt;

use crate::{IoRequest, Op, WorkloadError};

/// Summary statistics of a request stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_pct: f64,
    pub avg_size_kb: f64,
    pub avg_interarrival_us: f64,
    pub span_s: f64,
    pub first_arrival_ns: u64,
    pub last_arrival_ns: u64,
    pub total_bytes: u64,
    /// Requests arriving earlier than the latest arrival before them (see the module doc).
    pub backward_arrivals: u64,
}

/// Counts arrivals that go backwards in time: earlier than the latest arrival so far.
/// Shared by [`StatsAccumulator`] and the trace reader.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArrivalOrder {
    latest: Option<u64>,
    backward: u64,
}

impl ArrivalOrder {
    pub(crate) fn push(&mut self, arrival_ns: u64) {
        match self.latest {
            Some(l) if arrival_ns < l => self.backward += 1,
            _ => self.latest = Some(arrival_ns),
        }
    }

    pub(crate) fn backward(&self) -> u64 {
        self.backward
    }
}

/// Accumulates [`TraceStats`] one request at a time (constant memory).
#[derive(Clone, Debug, Default)]
pub struct StatsAccumulator {
    requests: u64,
    reads: u64,
    total_bytes: u64,
    first: u64,
    last: u64,
    order: ArrivalOrder,
}

impl StatsAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, req: &IoRequest) {
        if self.requests == 0 {
            self.first = req.arrival_ns;
        }
        self.last = req.arrival_ns;
        self.requests += 1;
        if req.op == Op::Read {
            self.reads += 1;
        }
        self.total_bytes += u64::from(req.size_bytes);
        self.order.push(req.arrival_ns);
    }

    pub fn finish(&self) -> TraceStats {
        let n = self.requests;
        // integer difference first: absolute filetime-based ns values exceed f64 precision
        let span_ns = (i128::from(self.last) - i128::from(self.first)) as f64;
        let (read_pct, avg_size_kb) = if n == 0 {
            (0.0, 0.0)
        } else {
            (
                100.0 * self.reads as f64 / n as f64,
                self.total_bytes as f64 / n as f64 / 1024.0,
            )
        };
        TraceStats {
            requests: n,
            reads: self.reads,
            writes: n - self.reads,
            read_pct,
            avg_size_kb,
            avg_interarrival_us: if n > 1 {
                span_ns / (n - 1) as f64 / 1e3
            } else {
                0.0
            },
            span_s: span_ns / 1e9,
            first_arrival_ns: self.first,
            last_arrival_ns: self.last,
            total_bytes: self.total_bytes,
            backward_arrivals: self.order.backward(),
        }
    }
}

impl TraceStats {
    /// Statistics of a fallible request stream such as a [`crate::trace::TraceReader`];
    /// stops at the first error.
    pub fn from_results<I>(iter: I) -> Result<TraceStats, WorkloadError>
    where
        I: IntoIterator<Item = Result<IoRequest, WorkloadError>>,
    {
        let mut acc = StatsAccumulator::new();
        for r in iter {
            acc.push(&r?);
        }
        Ok(acc.finish())
    }

    /// Statistics of an infallible request stream (e.g. a synthetic generator).
    pub fn from_requests<I: IntoIterator<Item = IoRequest>>(iter: I) -> TraceStats {
        let mut acc = StatsAccumulator::new();
        for r in iter {
            acc.push(&r);
        }
        acc.finish()
    }

    /// Header of the one-row table printed by [`table_row`](Self::table_row)
    /// (the columns of the shared traces README), Markdown style.
    pub fn table_header() -> &'static str {
        "| trace | requests | read % | avg size KB | avg inter-arrival us | span s |\n|---|---|---|---|---|---|"
    }

    /// One Markdown table row: requests with thousands separators, read % and
    /// inter-arrival with one decimal, size with two, span with three.
    pub fn table_row(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {:.1} | {:.2} | {:.1} | {:.3} |",
            thousands(self.requests),
            self.read_pct,
            self.avg_size_kb,
            self.avg_interarrival_us,
            self.span_s
        )
    }
}

/// Squared coefficient of variation (variance / mean²) of the inter-arrival times of a
/// request stream, in stream order: the gaps are `arrival[i + 1] − arrival[i]` and the
/// variance is the population variance over those gaps (divided by their count).
///
/// 1 for a Poisson process, 0 for constant gaps, above 1 for bursty arrivals
/// (`2B − 1` for the synthetic `bursty:<mean>/<B>` process). `None` with fewer than two
/// gaps or a zero mean gap. One streaming pass (Welford), constant memory.
pub fn interarrival_cv2<I: IntoIterator<Item = IoRequest>>(iter: I) -> Option<f64> {
    let mut prev: Option<u64> = None;
    let (mut n, mut mean, mut m2) = (0u64, 0.0f64, 0.0f64);
    for r in iter {
        if let Some(p) = prev {
            // integer difference first: absolute filetime-based ns values exceed f64 precision
            let gap = (i128::from(r.arrival_ns) - i128::from(p)) as f64;
            n += 1;
            let d = gap - mean;
            mean += d / n as f64;
            m2 += d * (gap - mean);
        }
        prev = Some(r.arrival_ns);
    }
    (n >= 2 && mean != 0.0).then(|| m2 / n as f64 / (mean * mean))
}

/// `1234567` → `1,234,567`.
pub fn thousands(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl fmt::Display for TraceStats {
    /// A small aligned key/value block, one statistic a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "requests              {}", thousands(self.requests))?;
        writeln!(
            f,
            "reads                 {} ({:.1} %)",
            thousands(self.reads),
            self.read_pct
        )?;
        writeln!(
            f,
            "writes                {} ({:.1} %)",
            thousands(self.writes),
            if self.requests == 0 {
                0.0
            } else {
                100.0 - self.read_pct
            }
        )?;
        writeln!(f, "avg size              {:.2} KB", self.avg_size_kb)?;
        writeln!(f, "total bytes           {}", thousands(self.total_bytes))?;
        writeln!(
            f,
            "avg inter-arrival     {:.1} us",
            self.avg_interarrival_us
        )?;
        writeln!(f, "span                  {:.3} s", self.span_s)?;
        write!(
            f,
            "first / last arrival  {} / {} ns",
            self.first_arrival_ns, self.last_arrival_ns
        )?;
        // only when there are some, so that the block of a time-ordered trace stays as it was
        if self.backward_arrivals > 0 {
            write!(
                f,
                "\nbackward arrivals     {} (earlier than a request before them)",
                thousands(self.backward_arrivals)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::tests::shared;
    use crate::trace::{open_trace, TraceFormat, TraceReader};

    fn stats_of(name: &str) -> TraceStats {
        TraceStats::from_results(open_trace(&shared(name), None, false).unwrap()).unwrap()
    }

    /// Formats `v` with `dp` decimals and thousands separators, like the README.
    fn readme(v: f64, dp: usize) -> String {
        let s = format!("{v:.dp$}");
        let (int, frac) = s
            .split_once('.')
            .map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
        let int = thousands(int.parse().unwrap());
        frac.map_or(int.clone(), |f| format!("{int}.{f}"))
    }

    #[test]
    fn reproduces_readme_table() {
        // name, requests, read %, avg size KB, avg inter-arrival us, span s (as printed in the README)
        let table = [
            (
                "tpcc-small.trace",
                "6,999",
                "62.6",
                "8.33",
                ("19.5", 1),
                ("0.136", 3),
            ),
            (
                "wsrch-small.trace",
                "24,783",
                "100.0",
                "15.06",
                ("2,423", 0),
                ("60.1", 1),
            ),
            (
                "msr-cut-105.trace",
                "10,000",
                "20.2",
                "5.35",
                ("24,293", 0),
                ("242.9", 1),
            ),
            (
                "fiu-cheetah-mail.trace",
                "9,998",
                "89.0",
                "4.00",
                ("2,358", 0),
                ("23.6", 1),
            ),
        ];
        for (name, requests, read, size, (ia, ia_dp), (span, span_dp)) in table {
            let s = stats_of(name);
            assert_eq!(thousands(s.requests), requests, "{name}");
            assert_eq!(readme(s.read_pct, 1), read, "{name}");
            assert_eq!(readme(s.avg_size_kb, 2), size, "{name}");
            assert_eq!(readme(s.avg_interarrival_us, ia_dp), ia, "{name}");
            assert_eq!(readme(s.span_s, span_dp), span, "{name}");
            assert_eq!(s.reads + s.writes, s.requests);
            assert_eq!(
                s.last_arrival_ns - s.first_arrival_ns,
                (s.span_s * 1e9).round() as u64
            );
        }
    }

    #[test]
    fn exact_values_on_small_input() {
        let text = "1000 0 0 8 1\n3000 0 8 16 0\n6000 0 8 24 1\n";
        let s = TraceStats::from_results(TraceReader::from_reader(
            text.as_bytes(),
            "m",
            TraceFormat::Mqsim,
            false,
        ))
        .unwrap();
        assert_eq!(s.requests, 3);
        assert_eq!((s.reads, s.writes), (2, 1));
        assert_eq!(s.total_bytes, 48 * 512);
        assert_eq!(s.avg_size_kb, 8.0);
        assert_eq!(s.avg_interarrival_us, 2.5);
        assert_eq!(s.span_s, 5e-6);
        assert_eq!((s.first_arrival_ns, s.last_arrival_ns), (1000, 6000));
        assert!(s
            .table_row("t")
            .starts_with("| t | 3 | 66.7 | 8.00 | 2.5 | 0.000 |"));
        assert!(s.to_string().contains("reads                 2 (66.7 %)"));
        let empty = TraceStats::from_requests(std::iter::empty());
        assert_eq!(empty.requests, 0);
        assert_eq!(empty.avg_interarrival_us, 0.0);
    }

    #[test]
    fn stats_stop_at_first_error() {
        let r = TraceReader::from_reader(
            "1 0 0 8 1\nbad\n".as_bytes(),
            "m",
            TraceFormat::Mqsim,
            false,
        );
        assert_eq!(
            TraceStats::from_results(r).unwrap_err().to_string(),
            "m:2: expected 5 fields (time device lba size type), found 1"
        );
    }

    #[test]
    fn interarrival_cv2_exact_values() {
        let at = |ts: &[u64]| -> Vec<IoRequest> {
            ts.iter()
                .map(|&t| IoRequest {
                    arrival_ns: t,
                    offset_bytes: 0,
                    size_bytes: 512,
                    op: Op::Read,
                    device: 0,
                })
                .collect()
        };
        // constant gaps
        assert_eq!(interarrival_cv2(at(&[0, 10, 20, 30])), Some(0.0));
        // gaps 0, 0, 30: mean 10, variance (100 + 100 + 400) / 3 = 200, CV² = 2
        let cv2 = interarrival_cv2(at(&[5, 5, 5, 35])).unwrap();
        assert!((cv2 - 2.0).abs() < 1e-12, "{cv2}");
        // too few gaps, or all zero
        assert_eq!(interarrival_cv2(at(&[1, 2])), None);
        assert_eq!(interarrival_cv2(at(&[7, 7, 7])), None);
        assert_eq!(interarrival_cv2(std::iter::empty()), None);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
