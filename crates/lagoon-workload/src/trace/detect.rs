//! Trace format detection: every format scores the first lines, and a file is read only
//! when exactly one reading fits and is plausible.
//!
//! The sample is the first 64 data lines (neither blank nor `#` comments); blank and
//! comment lines before and between them do not count, up to [`MAX_COMMENT_BYTES`] of them
//! (a long header of comments is read past); input whose first block looks binary is an error
//! ([`WorkloadError::Binary`]); lines longer than [`super::MAX_LINE_BYTES`] are sampled as
//! unreadable and are never held whole.
//!
//! 1. **Fit.** Every format parses every sampled line. A format *fits* when it reads at
//!    least one request and fails on at most 10 % of the lines (headers and, for blkparse,
//!    events other than `Q` count as read; over-long lines count for no format).
//! 2. **Plausibility.** A fitting format is *implausible* when its requests would be
//!    - smaller than 512 B or not a multiple of 512 B, for more than 10 % of them;
//!    - larger than 32 MiB (Linux splits I/O far below that: `max_hw_sectors_kb` of
//!      block devices tops out at 32 MiB);
//!    - past 1 PiB (offset + size);
//!    - or when more than 10 % of consecutive arrival times go backwards.
//! 3. **Same requests.** Formats that read the sample into the very same requests are one
//!    reading (5-field SSDsim lines are MQSim lines): the first in [`TraceFormat::ALL`]
//!    order names it.
//! 4. **Evidence between readings** that differ only in units, in this order:
//!    - *bytes over sectors*: when one reading's sizes and offsets are 512 times
//!      another's, and every size and offset of the smaller (byte) reading is a multiple
//!      of 512, the byte reading wins: read as sectors, every request would be a multiple
//!      of 256 KiB at a 256 KiB boundary (`msr-ms` over `disksim` and `mqsim`);
//!    - *integer times are nanoseconds*: when one reading's times are 10^6 times another's
//!      and the raw times are integers, the nanosecond reading wins (MQSim and SSDsim
//!      write integer ns; DiskSim and the LinnOS tools write decimal milliseconds)
//!      (`mqsim` over `disksim`).
//!
//! One reading left is the format. None is an error that names every fitting format
//! with what is implausible about it; more than one is an error that names them and asks
//! for `--format`. A DiskSim file (decimal ms, sizes in sectors) fails msr-ms's
//! plausibility (requests of a few bytes), so it is never read as msr-ms.

use std::io::BufRead;
use std::path::Path;

use super::text::{read_line, sniff, LineRead, MAX_LINE_BYTES};
use super::{binary_error, open_file, read_error, Compression, TraceFormat};
use crate::{IoRequest, WorkloadError};

const MAX_SAMPLES: usize = 64;
/// Blank and comment lines the sample reads past (16 MiB, the bound lenient reading has on
/// over-long lines), so that text with no request line still ends the search.
pub const MAX_COMMENT_BYTES: u64 = super::MAX_OVERLONG_RUN_BYTES;
/// The largest plausible request (see the module doc).
pub const MAX_PLAUSIBLE_REQUEST: u64 = 32 << 20;
/// The end of the plausible address space: 1 PiB.
pub const MAX_PLAUSIBLE_END: u64 = 1 << 50;

/// How one format reads the sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub format: TraceFormat,
    /// Sampled lines read as requests.
    pub requests: usize,
    /// Sampled lines read as no request (headers, blkparse events other than `Q`).
    pub other_lines: usize,
    /// Sampled lines the format cannot read, and the first such error (`line N: ...`).
    pub failed: usize,
    pub first_error: Option<String>,
    /// Whether the format fits (step 1).
    pub fits: bool,
    /// What is implausible about its requests (step 2); empty when plausible.
    pub problems: Vec<String>,
    /// Why it lost to another reading (steps 3-4), if it did.
    pub lost: Option<String>,
}

/// The outcome of [`detect`]: the format, why, and how every format read the sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    pub format: TraceFormat,
    pub compression: Compression,
    /// Data lines sampled.
    pub sampled: usize,
    /// One entry per format, in [`TraceFormat::ALL`] order.
    pub candidates: Vec<Candidate>,
}

impl Detection {
    /// One line: why the format was chosen (`the only format that fits`, or the evidence).
    pub fn reason(&self) -> String {
        let fitting: Vec<&Candidate> = self.candidates.iter().filter(|c| c.fits).collect();
        let others: Vec<String> = fitting
            .iter()
            .filter(|c| c.format != self.format)
            .map(|c| match (&c.lost, c.problems.first()) {
                (Some(l), _) => format!("{}: {l}", c.format),
                (None, Some(p)) => format!("{}: {p}", c.format),
                (None, None) => c.format.to_string(),
            })
            .collect();
        if others.is_empty() {
            format!(
                "the only format that reads the first {} data lines",
                self.sampled
            )
        } else {
            format!(
                "of the formats that read the first {} data lines: {}",
                self.sampled,
                others.join("; ")
            )
        }
    }
}

/// Detects the format of the trace at `path` (decompressing it if needed): the format only.
pub fn detect_format(path: &Path) -> Result<TraceFormat, WorkloadError> {
    detect(path).map(|d| d.format)
}

/// Detects the format of the trace at `path` (see the module rule), decompressing it if needed.
pub fn detect(path: &Path) -> Result<Detection, WorkloadError> {
    drop(open_file(path)?); // a directory or a missing file: the open error first
    let (input, compression) = super::open_input(path)?;
    let mut d = detect_reader(input, &path.display().to_string())?;
    d.compression = compression;
    Ok(d)
}

/// Detects the format of a trace read from `reader`; `name` is used in error messages.
pub fn detect_format_reader<R: BufRead>(
    reader: R,
    name: &str,
) -> Result<TraceFormat, WorkloadError> {
    detect_reader(reader, name).map(|d| d.format)
}

/// Reads the sample: up to [`MAX_SAMPLES`] data lines, past at most [`MAX_COMMENT_BYTES`] of
/// blank and comment lines, as (line number, text); `None` text for an over-long line.
fn sample<R: BufRead>(
    mut reader: R,
    name: &str,
) -> Result<Vec<(u64, Option<String>)>, WorkloadError> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    match sniff(&mut reader) {
        Ok(None) => {}
        Ok(Some(b)) => return Err(binary_error(name, b)),
        Err(source) => return Err(read_error(name, 0, source)),
    }
    let mut comment_bytes = 0u64;
    for line_no in 1.. {
        // an over-long line is skipped up to one more MAX_LINE_BYTES, then sampling stops
        let read = read_line(&mut reader, &mut buf, 2 * MAX_LINE_BYTES as u64)
            .map_err(|source| read_error(name, line_no - 1, source))?;
        match read {
            LineRead::Eof => break,
            LineRead::TooLong { ended, .. } => {
                out.push((line_no, None));
                if !ended {
                    break;
                }
            }
            LineRead::Line => {
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim();
                if line.is_empty() || line.starts_with('#') {
                    comment_bytes += buf.len() as u64 + 1;
                    if comment_bytes > MAX_COMMENT_BYTES {
                        if out.is_empty() {
                            return Err(WorkloadError::UndetectedFormat {
                                file: name.to_string(),
                                reason: format!("no request lines in its first {MAX_COMMENT_BYTES} bytes (blank lines and comments only)"),
                            });
                        }
                        break;
                    }
                    continue;
                }
                out.push((line_no, Some(line.to_string())));
            }
        }
        if out.len() >= MAX_SAMPLES {
            break;
        }
    }
    Ok(out)
}

/// Detects the format of a trace read from `reader` (see the module rule).
pub fn detect_reader<R: BufRead>(reader: R, name: &str) -> Result<Detection, WorkloadError> {
    let lines = sample(reader, name)?;
    let undetected = |reason: String| WorkloadError::UndetectedFormat {
        file: name.to_string(),
        reason,
    };
    if lines.is_empty() {
        return Err(undetected("no request lines".to_string()));
    }
    let mut candidates = Vec::new();
    let mut readings: Vec<Vec<IoRequest>> = Vec::new();
    for f in TraceFormat::ALL {
        let mut c = Candidate {
            format: f,
            requests: 0,
            other_lines: 0,
            failed: 0,
            first_error: None,
            fits: false,
            problems: Vec::new(),
            lost: None,
        };
        let mut reqs = Vec::new();
        for (no, line) in &lines {
            let parsed = match line {
                Some(l) => f.parse_line(l).map_err(|e| e.to_string()),
                None => Ok(None), // over-long: no format's line, counted as none
            };
            match parsed {
                Ok(Some(r)) => reqs.push(r),
                Ok(None) => c.other_lines += 1,
                Err(e) => {
                    c.failed += 1;
                    c.first_error
                        .get_or_insert_with(|| format!("line {no}: {e}"));
                }
            }
        }
        c.requests = reqs.len();
        c.fits = c.requests > 0 && c.failed * 10 <= lines.iter().filter(|l| l.1.is_some()).count();
        if c.fits {
            c.problems = implausible(&reqs);
        }
        candidates.push(c);
        readings.push(reqs);
    }
    let raw_integer_times = lines.iter().filter_map(|(_, l)| l.as_deref()).all(|l| {
        l.split_ascii_whitespace()
            .next()
            .is_some_and(|t| !t.contains('.'))
    });
    let mut alive: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].fits && candidates[i].problems.is_empty())
        .collect();
    // 3. the same requests: one reading
    let mut i = 0;
    while i < alive.len() {
        let a = alive[i];
        alive.retain(|&b| {
            if b != a && readings[b] == readings[a] {
                candidates[b].lost = Some(format!(
                    "reads the same requests as {}",
                    candidates[a].format
                ));
                false
            } else {
                true
            }
        });
        i += 1;
    }
    // 4. evidence between readings that differ in units
    let beaten = |alive: &mut Vec<usize>, candidates: &mut Vec<Candidate>, rule: &Rule| {
        let snapshot = alive.clone();
        alive.retain(|&b| {
            for &a in &snapshot {
                if a != b {
                    if let Some(why) = rule(&readings[a], &readings[b]) {
                        candidates[b].lost = Some(format!("{} {why}", candidates[a].format));
                        return false;
                    }
                }
            }
            true
        });
    };
    if alive.len() > 1 {
        beaten(&mut alive, &mut candidates, &|a, b| {
            bytes_over_sectors(a, b).then_some(
                "reads every size and offset as a multiple of 512 bytes (read as sectors, every request would be a multiple of 256 KiB)",
            )
        });
    }
    if alive.len() > 1 && raw_integer_times {
        beaten(&mut alive, &mut candidates, &|a, b| {
            ns_over_ms(a, b).then_some(
                "reads the integer times as ns (DiskSim and the LinnOS tools write decimal ms)",
            )
        });
    }
    let n = lines.len();
    match alive.as_slice() {
        [one] => Ok(Detection {
            format: candidates[*one].format,
            compression: Compression::None,
            sampled: n,
            candidates,
        }),
        [] => {
            // formats with the same first problem are named together, to keep one short line
            let mut fitting: Vec<(Vec<&str>, &str)> = Vec::new();
            for c in candidates.iter().filter(|c| c.fits) {
                let p = c.problems[0].as_str();
                match fitting.iter_mut().find(|(_, q)| *q == p) {
                    Some((names, _)) => names.push(c.format.name()),
                    None => fitting.push((vec![c.format.name()], p)),
                }
            }
            let groups = fitting.len();
            let mut fitting: Vec<String> = fitting
                .into_iter()
                .take(3)
                .map(|(names, p)| format!("as {}, {p}", names.join(" or ")))
                .collect();
            if groups > 3 {
                fitting.push(format!("and {} more readings", groups - 3));
            }
            if fitting.is_empty() {
                Err(undetected(format!(
                    "the first {n} request lines match no known format"
                )))
            } else {
                Err(undetected(format!(
                    "no format gives plausible requests for the first {n} data lines: {}",
                    fitting.join("; ")
                )))
            }
        }
        many => {
            let names: Vec<&str> = many.iter().map(|&i| candidates[i].format.name()).collect();
            Err(undetected(format!(
                "the first {n} data lines fit {} equally well and they read them differently",
                names.join(" and ")
            )))
        }
    }
}

/// Evidence between two readings: `Some(why)` when the first beats the second.
type Rule = dyn Fn(&[IoRequest], &[IoRequest]) -> Option<&'static str>;

/// What is implausible about a reading's requests (step 2 of the module rule).
fn implausible(reqs: &[IoRequest]) -> Vec<String> {
    let mut out = Vec::new();
    let n = reqs.len();
    let odd: Vec<&IoRequest> = reqs
        .iter()
        .filter(|r| r.size_bytes < 512 || r.size_bytes % 512 != 0)
        .collect();
    if odd.len() * 10 > n {
        out.push(format!(
            "{} of {n} requests are smaller than 512 B or not a multiple of 512 B (e.g. {} B)",
            odd.len(),
            odd[0].size_bytes
        ));
    }
    if let Some(big) = reqs
        .iter()
        .find(|r| u64::from(r.size_bytes) > MAX_PLAUSIBLE_REQUEST)
    {
        out.push(format!(
            "a request of {} bytes (more than 32 MiB)",
            big.size_bytes
        ));
    }
    if let Some(far) = reqs
        .iter()
        .find(|r| r.offset_bytes.saturating_add(u64::from(r.size_bytes)) > MAX_PLAUSIBLE_END)
    {
        out.push(format!(
            "a request at byte {} (past 1 PiB)",
            far.offset_bytes
        ));
    }
    let back = reqs
        .windows(2)
        .filter(|w| w[1].arrival_ns < w[0].arrival_ns)
        .count();
    if n > 1 && back * 10 > n - 1 {
        out.push(format!("{back} of {} arrival times go backwards", n - 1));
    }
    out
}

/// `a` reads bytes where `b` reads 512-byte sectors, and `a`'s sizes and offsets are all
/// multiples of 512.
fn bytes_over_sectors(a: &[IoRequest], b: &[IoRequest]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            u64::from(y.size_bytes) == 512 * u64::from(x.size_bytes)
                && Some(y.offset_bytes) == x.offset_bytes.checked_mul(512)
                && x.size_bytes % 512 == 0
                && x.offset_bytes % 512 == 0
        })
}

/// `a` reads nanoseconds where `b` reads milliseconds: `b`'s times are 10^6 times `a`'s.
fn ns_over_ms(a: &[IoRequest], b: &[IoRequest]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| Some(y.arrival_ns) == x.arrival_ns.checked_mul(1_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::tests::shared;

    fn detect_str(s: &str) -> Result<TraceFormat, WorkloadError> {
        detect_format_reader(s.as_bytes(), "mem")
    }

    #[test]
    fn detects_shared_traces() {
        for (name, fmt) in [
            ("tpcc-small.trace", TraceFormat::Mqsim),
            ("wsrch-small.trace", TraceFormat::Mqsim),
            ("msr-cut-105.trace", TraceFormat::MsrMs),
            ("fiu-cheetah-mail.trace", TraceFormat::Fiu),
        ] {
            assert_eq!(detect_format(&shared(name)).unwrap(), fmt, "{name}");
        }
    }

    #[test]
    fn detects_synthetic_examples() {
        let msr = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,hm,1,Read,3154132992,4096,6998\n";
        assert_eq!(detect_str(msr).unwrap(), TraceFormat::Msr);
        assert_eq!(
            detect_str("128166372003061629,hm,1,Write,3154132992,4096,6998\n").unwrap(),
            TraceFormat::Msr
        );
        assert_eq!(
            detect_str("# spc\n0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041\n").unwrap(),
            TraceFormat::Umass
        );
        assert_eq!(
            detect_str(crate::trace::blkparse::tests::EXAMPLE).unwrap(),
            TraceFormat::Blkparse
        );
        assert_eq!(
            detect_str("100 0 8 16 1\n200 0 24 8 0\n").unwrap(),
            TraceFormat::Mqsim
        );
        assert_eq!(
            detect_str("100 0 4096 8192 1\n200 0 0 4096 0\n").unwrap(),
            TraceFormat::MsrMs
        );
        assert_eq!(
            detect_str("0 0 4096 8192 1\n0.5 0 0 4096 0\n").unwrap(),
            TraceFormat::MsrMs
        );
        // one sub-sector size in the sample makes it mqsim
        assert_eq!(
            detect_str("100 0 4096 8192 1\n200 0 0 8 0\n").unwrap(),
            TraceFormat::Mqsim
        );
        assert_eq!(
            detect_str("1 2 proc 3 8 R 6 0 md5\n").unwrap(),
            TraceFormat::Fiu
        );
    }

    #[test]
    fn detects_and_opens_files() {
        let dir = std::env::temp_dir();
        for (ext, text, fmt) in [
            (
                "spc",
                "0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041\n",
                TraceFormat::Umass,
            ),
            (
                "csv",
                "128166372003061629,hm,1,Read,3154132992,4096,6998\n",
                TraceFormat::Msr,
            ),
            (
                "blk",
                crate::trace::blkparse::tests::EXAMPLE,
                TraceFormat::Blkparse,
            ),
        ] {
            let path = dir.join(format!(
                "lagoon-workload-detect-{}.{ext}",
                std::process::id()
            ));
            std::fs::write(&path, text).unwrap();
            let detected = detect_format(&path);
            let opened =
                crate::trace::open_trace(&path, None, false).map(|r| (r.format(), r.count()));
            std::fs::remove_file(&path).unwrap();
            assert_eq!(detected.unwrap(), fmt);
            let (f, n) = opened.unwrap();
            assert_eq!(f, fmt);
            assert!(n >= 1);
        }
    }

    #[test]
    fn detection_errors() {
        assert_eq!(
            detect_str("# only\n\n").unwrap_err().to_string(),
            "mem: cannot detect the trace format: no request lines; name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)"
        );
        assert_eq!(
            detect_str("hello world\n").unwrap_err().to_string(),
            "mem: cannot detect the trace format: the first 1 request lines match no known format; name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)"
        );
    }

    /// A hand-made sample of every format, detected as that format.
    #[test]
    fn detects_every_format() {
        for (text, fmt) in [
            (
                "938513000 4 264719034 16 0\n938828000 3 197570570 16 0\n",
                TraceFormat::Mqsim,
            ),
            (
                "2730000 0 1548928 8 1 1\n2740000 0 1548936 8 0 2\n",
                TraceFormat::Ssdsim,
            ),
            (
                "0.026216 0 1630976 16 1\n0.041338 0 1631104 8 0\n",
                TraceFormat::Disksim,
            ),
            (
                "128166372003061629,hm,1,Read,3154132992,4096,6998\n",
                TraceFormat::Msr,
            ),
            (
                "0.000 0 200626176 4096 0\n223.412 0 3159347200 36864 0\n",
                TraceFormat::MsrMs,
            ),
            (
                "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c7\n",
                TraceFormat::Fiu,
            ),
            (
                crate::trace::blkparse::tests::EXAMPLE,
                TraceFormat::Blkparse,
            ),
            (
                "0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041\n",
                TraceFormat::Umass,
            ),
            (
                "3,W,130666496,4096,1577808000000139\n3,R,0,8192,1577808000000200\n",
                TraceFormat::Alibaba,
            ),
            (
                "1538323200,4174088,8,1,1063\n1538323200,4174096,16,0,7\n",
                TraceFormat::Tencent,
            ),
        ] {
            let d = detect_reader(text.as_bytes(), "mem").unwrap();
            assert_eq!(d.format, fmt, "{text}");
            assert_eq!(d.candidates.len(), TraceFormat::ALL.len());
        }
    }

    /// The bug of issue 16: a DiskSim file (decimal ms, sectors, flags) was read as msr-ms.
    #[test]
    fn disksim_is_never_read_as_msr_ms() {
        let disksim = "0.000000 0 1630976 16 1\n0.041338 0 303104 128 0\n1.2 1 8 8 1\n";
        let d = detect_reader(disksim.as_bytes(), "d").unwrap();
        assert_eq!(d.format, TraceFormat::Disksim);
        let msr_ms = d
            .candidates
            .iter()
            .find(|c| c.format == TraceFormat::MsrMs)
            .unwrap();
        assert!(msr_ms.fits);
        assert_eq!(
            msr_ms.problems,
            ["3 of 3 requests are smaller than 512 B or not a multiple of 512 B (e.g. 16 B)"]
        );
        assert_eq!(
            d.reason(),
            "of the formats that read the first 3 data lines: msr-ms: 3 of 3 requests are smaller than 512 B or not a multiple of 512 B (e.g. 16 B)"
        );
        // and the shared msr-ms cut is still msr-ms, with the evidence named
        let d = detect(&shared("msr-cut-105.trace")).unwrap();
        assert_eq!(d.format, TraceFormat::MsrMs);
        assert!(
            d.reason()
                .contains("disksim: msr-ms reads every size and offset as a multiple of 512 bytes"),
            "{}",
            d.reason()
        );
        let d = detect(&shared("tpcc-small.trace")).unwrap();
        assert!(
            d.reason()
                .contains("ssdsim: reads the same requests as mqsim"),
            "{}",
            d.reason()
        );
        assert!(
            d.reason()
                .contains("disksim: mqsim reads the integer times as ns"),
            "{}",
            d.reason()
        );
    }

    #[test]
    fn ambiguous_and_implausible_files_are_refused() {
        // decimal ms, sizes that are multiples of 512 but one offset that is not: bytes or
        // sectors cannot be told apart
        let e = detect_str("0.5 0 4096 4096 1\n0.7 0 100 8192 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "mem: cannot detect the trace format: the first 2 data lines fit disksim and msr-ms equally well and they read them differently; name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)");
        // every reading implausible: 100 MB requests as sectors, 3-byte ones as bytes
        let e = detect_str("0.5 0 0 204800 1\n0.7 0 0 3 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "mem: cannot detect the trace format: no format gives plausible requests for the first 2 data lines: as disksim, a request of 104857600 bytes (more than 32 MiB); as msr-ms, 1 of 2 requests are smaller than 512 B or not a multiple of 512 B (e.g. 3 B); name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)");
        // times that go backwards, offsets past 1 PiB
        let e = detect_str("3,W,0,4096,9\n3,W,0,4096,5\n3,W,0,4096,2\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("as alibaba, 2 of 2 arrival times go backwards"),
            "{e}"
        );
        let e = detect_str("3,W,1125899906842624,4096,1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("as alibaba, a request at byte 1125899906842624 (past 1 PiB)"),
            "{e}"
        );
        // an explicit format reads them all the same
        let got: Vec<_> = super::super::TraceReader::from_reader(
            "0.5 0 4096 4096 1\n".as_bytes(),
            "m",
            TraceFormat::Disksim,
            false,
        )
        .collect();
        assert_eq!(got.len(), 1);
    }

    /// Issue 43: a valid trace after 1,000 comment lines was refused ("no request lines");
    /// comments and blank lines no longer count against the sample, up to
    /// MAX_COMMENT_BYTES of them, and the binary check still looks at the first block.
    #[test]
    fn a_long_comment_header_does_not_hide_the_requests() {
        let lines = "100 0 0 8 1\n200 0 8 8 0\n";
        for n in [1_000, 5_000, 100_000] {
            let text = format!(
                "{}\n{lines}",
                "# a comment line of a long header\n".repeat(n)
            );
            assert_eq!(
                detect_str(&text).unwrap(),
                TraceFormat::Mqsim,
                "{n} comments"
            );
            let read: Vec<_> = super::super::TraceReader::from_reader(
                text.as_bytes(),
                "m",
                TraceFormat::Mqsim,
                false,
            )
            .collect::<Result<_, _>>()
            .unwrap();
            assert_eq!(read.len(), 2);
        }
        // More than MAX_COMMENT_BYTES of comments before any request: one error saying so.
        let comment = "#".repeat(1023) + "\n";
        let text = comment.repeat((MAX_COMMENT_BYTES / 1024) as usize + 1) + lines;
        let e = detect_str(&text).unwrap_err().to_string();
        assert!(
            e.contains(
                "no request lines in its first 16777216 bytes (blank lines and comments only)"
            ),
            "{e}"
        );
        // Binary data after a comment is still refused as binary.
        let mut bin = b"# header\n".to_vec();
        bin.extend(std::iter::repeat_n(0u8, 8192));
        let e = detect_format_reader(&bin[..], "mem")
            .unwrap_err()
            .to_string();
        assert!(e.contains("binary"), "{e}");
    }
}
