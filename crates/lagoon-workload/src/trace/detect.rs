//! Trace format detection.
//!
//! The rule, applied to the first data lines (up to 32 lines that are neither blank
//! nor `#` comments, within the first 1,000 lines):
//!
//! 0. input whose first block looks binary is an error ([`WorkloadError::Binary`]);
//!    lines longer than [`super::MAX_LINE_BYTES`] are sampled as unclassified, and are
//!    never held whole;
//! 1. each line is classified by its shape:
//!    - comma-separated, 7 fields, 4th field `Read`/`Write` (any case), or a header
//!      starting with `Timestamp,` → **msr**;
//!    - comma-separated, at least 5 fields, numeric 1st-3rd and 5th fields, 4th field
//!      `r`/`w` (any case) → **umass**;
//!    - whitespace-separated, first field `major,minor`, at least 7 fields → **blkparse**;
//!    - whitespace-separated, at least 9 fields, integer 1st field, `R`/`W` as the 4th
//!      field from the end → **fiu**;
//!    - exactly 5 whitespace-separated numeric fields → *five-numeric* (mqsim or msr-ms);
//!    - anything else is unclassified (e.g. blkparse summary lines) and ignored;
//! 2. the most frequent class wins (ties: the order above);
//! 3. five-numeric lines are **msr-ms** if any sampled first field has a decimal point
//!    (milliseconds), or if every sampled offset and size is a non-zero multiple of
//!    512 (bytes: a sector-based mqsim trace would need every request to be a multiple
//!    of 256 KiB); otherwise **mqsim** (integer nanoseconds, sizes in sectors).

use std::io::{BufRead, BufReader};
use std::path::Path;

use super::text::{read_line, sniff, LineRead, MAX_LINE_BYTES};
use super::{binary_error, blkparse, fields, open_file, read_error, Sep, TraceFormat};
use crate::num::{parse_scaled, parse_u64};
use crate::WorkloadError;

const MAX_SAMPLES: usize = 32;
const MAX_LINES: usize = 1000;

/// Detects the format of the trace at `path` from its first lines (see the module rule).
pub fn detect_format(path: &Path) -> Result<TraceFormat, WorkloadError> {
    let file = open_file(path)?;
    detect_format_reader(BufReader::new(file), &path.display().to_string())
}

/// Detects the format of a trace read from `reader`; `name` is used in error messages.
/// Consumes up to 1,000 lines of the reader, never holding more than [`MAX_LINE_BYTES`]
/// of one; sampling stops at a line longer than twice that.
pub fn detect_format_reader<R: BufRead>(
    mut reader: R,
    name: &str,
) -> Result<TraceFormat, WorkloadError> {
    let mut votes = [0usize; 5]; // msr, umass, blkparse, fiu, five-numeric
    let mut any_dot = false;
    let mut all_bytes_like = true;
    let mut samples = 0;
    let mut buf = Vec::new();
    match sniff(&mut reader) {
        Ok(None) => {}
        Ok(Some(b)) => return Err(binary_error(name, b)),
        Err(source) => return Err(read_error(name, 0, source)),
    }
    for line_no in 1..=MAX_LINES {
        // an over-long line is skipped up to one more MAX_LINE_BYTES, then sampling stops
        let read = read_line(&mut reader, &mut buf, 2 * MAX_LINE_BYTES as u64)
            .map_err(|source| read_error(name, line_no as u64 - 1, source))?;
        let text = String::from_utf8_lossy(&buf);
        let line = match read {
            LineRead::Eof => break,
            LineRead::Line => text.trim(),
            LineRead::TooLong { ended, .. } => {
                samples += 1;
                if !ended || samples >= MAX_SAMPLES {
                    break;
                }
                continue;
            }
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        samples += 1;
        match classify(line) {
            Shape::Msr => votes[0] += 1,
            Shape::Umass => votes[1] += 1,
            Shape::Blkparse => votes[2] += 1,
            Shape::Fiu => votes[3] += 1,
            Shape::FiveNumeric { dot, bytes_like } => {
                votes[4] += 1;
                any_dot |= dot;
                all_bytes_like &= bytes_like;
            }
            Shape::Unknown => {}
        }
        if samples >= MAX_SAMPLES {
            break;
        }
    }
    if samples == 0 {
        return Err(WorkloadError::UndetectedFormat {
            file: name.to_string(),
            reason: "no request lines".to_string(),
        });
    }
    let (best, &n) = votes
        .iter()
        .enumerate()
        .rev()
        .max_by_key(|(_, n)| **n)
        .expect("five classes");
    if n == 0 {
        return Err(WorkloadError::UndetectedFormat {
            file: name.to_string(),
            reason: format!("the first {samples} request lines match no known format"),
        });
    }
    Ok(match best {
        0 => TraceFormat::Msr,
        1 => TraceFormat::Umass,
        2 => TraceFormat::Blkparse,
        3 => TraceFormat::Fiu,
        _ if any_dot || all_bytes_like => TraceFormat::MsrMs,
        _ => TraceFormat::Mqsim,
    })
}

enum Shape {
    Msr,
    Umass,
    Blkparse,
    Fiu,
    FiveNumeric { dot: bool, bytes_like: bool },
    Unknown,
}

fn is_number(s: &str) -> bool {
    parse_scaled(s, 0).is_some()
}

fn classify(line: &str) -> Shape {
    if blkparse::is_event_line(line) {
        return Shape::Blkparse;
    }
    if line.contains(',') {
        let mut f = [""; 7];
        let mut n = 0;
        for (i, field) in fields(line, Sep::Comma).enumerate() {
            if i < f.len() {
                f[i] = field;
            }
            n += 1;
        }
        if f[0].eq_ignore_ascii_case("timestamp") && f[1].eq_ignore_ascii_case("hostname") {
            return Shape::Msr;
        }
        if n == 7 && (f[3].eq_ignore_ascii_case("read") || f[3].eq_ignore_ascii_case("write")) {
            return Shape::Msr;
        }
        if n >= 5
            && matches!(f[3], "r" | "R" | "w" | "W")
            && f[..3].iter().all(|x| parse_u64(x).is_some())
            && is_number(f[4])
        {
            return Shape::Umass;
        }
        return Shape::Unknown;
    }
    let mut it = fields(line, Sep::Whitespace);
    let n = it.clone().count();
    if n >= 9 {
        let first = it.next().unwrap_or("");
        let rw = it.nth_back(3).unwrap_or("");
        if parse_u64(first).is_some() && matches!(rw, "R" | "W" | "r" | "w") {
            return Shape::Fiu;
        }
        return Shape::Unknown;
    }
    if n == 5 {
        let mut f = [""; 5];
        for (slot, field) in f.iter_mut().zip(it) {
            *slot = field;
        }
        if is_number(f[0]) && f[1..].iter().all(|x| parse_u64(x).is_some()) {
            let off = parse_u64(f[2]).unwrap_or(1);
            let size = parse_u64(f[3]).unwrap_or(1);
            return Shape::FiveNumeric {
                dot: f[0].contains('.'),
                bytes_like: size > 0 && size % 512 == 0 && off % 512 == 0,
            };
        }
    }
    Shape::Unknown
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
            "mem: cannot detect the trace format: no request lines; name it explicitly (mqsim, msr, msr-ms, fiu, blkparse, umass)"
        );
        assert_eq!(
            detect_str("hello world\n").unwrap_err().to_string(),
            "mem: cannot detect the trace format: the first 1 request lines match no known format; name it explicitly (mqsim, msr, msr-ms, fiu, blkparse, umass)"
        );
    }
}
