//! `blkparse` default text output (Linux blktrace).
//!
//! An event line looks like
//! `  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [jbd2/sda3-8]`:
//! `major,minor cpu sequence time_s pid action RWBS [sector + nblocks] [process]`.
//!
//! Rules (one request per I/O as the application issued it):
//! - only `Q` (queued) actions become requests: they are the requests as submitted,
//!   before merging/splitting (`D`/`C` would count device-level I/Os, and would count
//!   an I/O several times when mixed with `Q`);
//! - the RWBS field decides the direction: containing `W` is a write, else containing
//!   `R` is a read; anything else (discard `D`, none `N`, pure flush `F`) is ignored;
//! - `sector + nblocks` are 512-byte units; a `Q` event without them (a flush) or a
//!   flush (`F` in RWBS) of 0 blocks is ignored;
//! - time is decimal seconds, converted exactly to ns; device = `major << 20 | minor`;
//! - lines whose first field is not `major,minor` (the per-CPU and total summaries
//!   that blkparse prints at the end, headers) are not events and are ignored.

use super::{decimal_time, fields, mkdev, req, request_size, uint_times, LineError, Sep};
use crate::num::is_digits;
use crate::{IoRequest, Op};

const EXPECTED: &str = "at least 7 fields (dev cpu seq time pid action rwbs)";

fn is_dev(s: &str) -> bool {
    s.split_once(',')
        .is_some_and(|(a, b)| is_digits(a) && is_digits(b))
}

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let mut it = fields(line, Sep::Whitespace);
    let Some(dev) = it.next().filter(|d| is_dev(d)) else {
        return Ok(None);
    };
    let [_cpu, _seq, time, _pid, action, rwbs] = it.front(EXPECTED)?;
    if action != "Q" {
        return Ok(None);
    }
    let op = if rwbs.contains('W') {
        Op::Write
    } else if rwbs.contains('R') {
        Op::Read
    } else {
        return Ok(None);
    };
    let sector = match it.next() {
        None => return Ok(None),
        Some(s) if s.starts_with('[') => return Ok(None),
        Some(s) => s,
    };
    let (Some("+"), Some(nblocks)) = (it.next(), it.next()) else {
        return Err(LineError::Invalid {
            field: "Q event",
            value: line,
            expected: "`sector + nblocks`",
        });
    };
    let (major, minor) = dev.split_once(',').unwrap_or((dev, ""));
    let device = mkdev(major, minor)?;
    let arrival_ns = decimal_time("time", time, 9, "non-negative seconds")?;
    let offset_bytes = uint_times("sector", sector, 512)?;
    let size = uint_times("nblocks", nblocks, 512)?;
    if size == 0 && rwbs.contains('F') {
        return Ok(None);
    }
    let size_bytes = request_size(size)?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    pub(crate) const EXAMPLE: &str = "\
  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [jbd2/sda3-8]
  8,0    3        2     0.000003237  4162  G  WS 3417048 + 8 [jbd2/sda3-8]
  8,0    3        3     0.000004145  4162  P   N [jbd2/sda3-8]
  8,0    3        4     0.000010101  4162  I  WS 3417048 + 8 [jbd2/sda3-8]
  8,0    3        5     0.000020212  4162  D  WS 3417048 + 8 [jbd2/sda3-8]
  8,16   1        1     0.001500000  2001  Q   R 1024 + 256 [fio]
  8,16   1        2     0.001600000  2001  Q  RA 2048 + 16 [cat]
  8,0    0        0     0.002000000     0  m   N cfq4162 insert_request
  8,0    2        7     0.003000000  4162  Q FWS [kworker/2:1]
  8,0    2        8     0.003100000  4162  Q   D 4096 + 2048 [fstrim]
  8,0    3        6     0.004000000  4162  C  WS 3417048 + 8 [0]
CPU0 (8,0):
 Reads Queued:           0,        0KiB	 Writes Queued:           1,        4KiB
Total (8,0):
Throughput (R/W): 0KiB/s / 1KiB/s
Events (8,0): 11 entries
Skips: 0 forward (0 -   0.0%)
";

    #[test]
    fn parses_example() {
        let got = parse_all(TraceFormat::Blkparse, EXAMPLE);
        assert_eq!(
            got,
            vec![
                req(0, 8 << 20, 3_417_048 * 512, 4096, Op::Write),
                req(1_500_000, (8 << 20) | 16, 1024 * 512, 131_072, Op::Read),
                req(1_600_000, (8 << 20) | 16, 2048 * 512, 8192, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Blkparse;
        assert_eq!(
            first_error(f, "b", "8,0 1 2 0.5 3 Q\n"),
            "b:1: expected at least 7 fields (dev cpu seq time pid action rwbs), found 6"
        );
        assert_eq!(
            first_error(f, "b", "8,0 1 2 0.5 3 Q R 100 8"),
            "b:1: invalid Q event `8,0 1 2 0.5 3 Q R 100 8` (expected `sector + nblocks`)"
        );
        assert_eq!(
            first_error(f, "b", "8,0 1 2 x 3 Q R 100 + 8"),
            "b:1: invalid time `x` (expected non-negative seconds)"
        );
        assert_eq!(
            first_error(f, "b", "8,0 1 2 0.5 3 Q W 100 + 0 [p]"),
            "b:1: zero-size request"
        );
    }
}
