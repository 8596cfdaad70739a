//! Writing requests in any of the formats ([`TraceWriter`], `lagoon trace convert`).
//!
//! Every format's reader reads back what its writer wrote, with two kinds of loss, both
//! reported:
//! - **times** in a format coarser than nanoseconds (MSR's 100 ns ticks, Alibaba's µs,
//!   Tencent's seconds) are rounded to the nearest unit, halves up, and counted
//!   ([`TraceWriter::rounded_times`]); decimal formats (DiskSim and msr-ms ms with 6
//!   decimals, blkparse and UMass s with 9) are exact;
//! - a request a format cannot hold (an offset or size that is not a whole number of
//!   512-byte sectors in a sector format, an SSDsim sector number past 2^32 - 1) is an
//!   error naming the request. FIU and blkparse devices are split as `MKDEV`'s 12 + 20 bits.
//!
//! Fields a format has that a request does not (MSR's host name and response time, FIU's
//! pid, process and md5, blkparse's cpu, sequence and pid) are written as `lagoon` or 0.

use std::fmt;
use std::io::{self, Write};

use super::TraceFormat;
use crate::{IoRequest, Op};

/// A request that the target format cannot hold.
#[derive(Debug)]
pub enum WriteError {
    Io(io::Error),
    /// The `index`-th request (1-based) does not fit the format.
    Unrepresentable {
        index: u64,
        format: TraceFormat,
        reason: String,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Io(e) => write!(f, "{e}"),
            WriteError::Unrepresentable {
                index,
                format,
                reason,
            } => write!(f, "request {index} cannot be written as {format}: {reason}"),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Writes requests one line each in a [`TraceFormat`].
pub struct TraceWriter<W: Write> {
    out: W,
    format: TraceFormat,
    written: u64,
    rounded: u64,
}

/// `n / unit` rounded to the nearest, halves up, and whether it was inexact.
fn round_div(n: u64, unit: u64) -> (u64, bool) {
    let q = n / unit + u64::from(n % unit >= unit.div_ceil(2));
    (q, n % unit != 0)
}

impl<W: Write> TraceWriter<W> {
    pub fn new(out: W, format: TraceFormat) -> Self {
        TraceWriter {
            out,
            format,
            written: 0,
            rounded: 0,
        }
    }

    /// Requests written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Requests whose time was rounded to the format's unit.
    pub fn rounded_times(&self) -> u64 {
        self.rounded
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    fn coarse(&mut self, t: u64, unit: u64) -> u64 {
        let (q, inexact) = round_div(t, unit);
        self.rounded += u64::from(inexact);
        q
    }

    pub fn write(&mut self, r: &IoRequest) -> Result<(), WriteError> {
        let index = self.written + 1;
        let format = self.format;
        let bad = |reason: String| WriteError::Unrepresentable {
            index,
            format,
            reason,
        };
        let sectors = |what: &str, v: u64| -> Result<u64, WriteError> {
            if v % 512 == 0 {
                Ok(v / 512)
            } else {
                Err(bad(format!(
                    "{what} {v} bytes is not a whole number of 512-byte sectors"
                )))
            }
        };
        let mkdev = |d: u32| -> (u32, u32) { (d >> 20, d & 0xf_ffff) };
        let (t, dev, off, size) = (
            r.arrival_ns,
            r.device,
            r.offset_bytes,
            u64::from(r.size_bytes),
        );
        let read = r.op == Op::Read;
        let one_zero = u8::from(read);
        let frac = |t: u64, digits: u32| -> String {
            let d = 10u64.pow(digits);
            format!("{}.{:0w$}", t / d, t % d, w = digits as usize)
        };
        match format {
            TraceFormat::Mqsim => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                writeln!(self.out, "{t} {dev} {o} {s} {one_zero}")?;
            }
            TraceFormat::Ssdsim => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                if o > u64::from(u32::MAX) {
                    return Err(bad(format!("sector {o} is past SSDsim's 32-bit lsn")));
                }
                writeln!(self.out, "{t} {dev} {o} {s} {one_zero}")?;
            }
            TraceFormat::Disksim => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                writeln!(self.out, "{} {dev} {o} {s} {one_zero}", frac(t, 6))?;
            }
            TraceFormat::Msr => {
                let ticks = self.coarse(t, 100);
                let ty = if read { "Read" } else { "Write" };
                writeln!(self.out, "{ticks},lagoon,{dev},{ty},{off},{size},0")?;
            }
            TraceFormat::MsrMs => {
                writeln!(self.out, "{} {dev} {off} {size} {one_zero}", frac(t, 6))?;
            }
            TraceFormat::Fiu => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                let (ma, mi) = mkdev(dev);
                let rw = if read { "R" } else { "W" };
                writeln!(self.out, "{t} 0 lagoon {o} {s} {rw} {ma} {mi} 0")?;
            }
            TraceFormat::Blkparse => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                let (ma, mi) = mkdev(dev);
                let rw = if read { "R" } else { "W" };
                writeln!(
                    self.out,
                    "{ma},{mi} 0 {index} {} 0 Q {rw} {o} + {s} [lagoon]",
                    frac(t, 9)
                )?;
            }
            TraceFormat::Umass => {
                let o = sectors("offset", off)?;
                let rw = if read { "r" } else { "w" };
                writeln!(self.out, "{dev},{o},{size},{rw},{}", frac(t, 9))?;
            }
            TraceFormat::Alibaba => {
                let us = self.coarse(t, 1_000);
                let rw = if read { "R" } else { "W" };
                writeln!(self.out, "{dev},{rw},{off},{size},{us}")?;
            }
            TraceFormat::Tencent => {
                let (o, s) = (sectors("offset", off)?, sectors("size", size)?);
                let secs = self.coarse(t, 1_000_000_000);
                writeln!(self.out, "{secs},{o},{s},{},{dev}", u8::from(!read))?;
            }
        }
        self.written += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::test_util::parse_all;

    fn reqs() -> Vec<IoRequest> {
        let r = |t, d, o, s, op| IoRequest {
            arrival_ns: t,
            device: d,
            offset_bytes: o,
            size_bytes: s,
            op,
        };
        vec![
            r(1_000_000_000, 3, 4096, 8192, Op::Read),
            r(2_000_000_000, 0, 0, 512, Op::Write),
            r(5_000_000_000, 7, 1 << 33, 1 << 20, Op::Read),
        ]
    }

    /// Requests that every format holds exactly are read back as written, by every format.
    #[test]
    fn every_format_reads_back_what_it_wrote() {
        for f in TraceFormat::ALL {
            let mut w = TraceWriter::new(Vec::new(), f);
            for r in reqs() {
                w.write(&r).unwrap();
            }
            assert_eq!(w.rounded_times(), 0, "{f}");
            let text = String::from_utf8(w.finish().unwrap()).unwrap();
            assert_eq!(parse_all(f, &text), reqs(), "{f}:\n{text}");
        }
    }

    #[test]
    fn coarse_times_are_rounded_and_counted() {
        let mut r = reqs()[0];
        r.arrival_ns = 1_234_567_890;
        for (f, back) in [
            (TraceFormat::Msr, 1_234_567_900),
            (TraceFormat::Alibaba, 1_234_568_000),
            (TraceFormat::Tencent, 1_000_000_000),
            (TraceFormat::Disksim, 1_234_567_890),
            (TraceFormat::Blkparse, 1_234_567_890),
        ] {
            let mut w = TraceWriter::new(Vec::new(), f);
            w.write(&r).unwrap();
            let exact = back == r.arrival_ns;
            assert_eq!(w.rounded_times(), u64::from(!exact), "{f}");
            let text = String::from_utf8(w.finish().unwrap()).unwrap();
            assert_eq!(parse_all(f, &text)[0].arrival_ns, back, "{f}");
        }
    }

    #[test]
    fn unrepresentable_requests_are_named() {
        let mut r = reqs()[0];
        r.size_bytes = 100;
        let mut w = TraceWriter::new(Vec::new(), TraceFormat::Mqsim);
        w.write(&reqs()[0]).unwrap();
        assert_eq!(
            w.write(&r).unwrap_err().to_string(),
            "request 2 cannot be written as mqsim: size 100 bytes is not a whole number of 512-byte sectors"
        );
        // bytes formats take it
        TraceWriter::new(Vec::new(), TraceFormat::MsrMs)
            .write(&r)
            .unwrap();
        let mut far = reqs()[0];
        far.offset_bytes = (1 << 32) * 512;
        assert_eq!(
            TraceWriter::new(Vec::new(), TraceFormat::Ssdsim)
                .write(&far)
                .unwrap_err()
                .to_string(),
            "request 1 cannot be written as ssdsim: sector 4294967296 is past SSDsim's 32-bit lsn"
        );
    }
}
