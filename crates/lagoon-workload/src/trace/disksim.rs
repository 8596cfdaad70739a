//! DiskSim ASCII traces (the input format of DiskSim and of the SSD simulators built on it).
//!
//! Five whitespace-separated fields, as DiskSim reads them
//! (`sscanf(line, "%lf %d %ld %d %x", ...)` in `disksim_iotrace.c`):
//! `arrival_ms device block size_blocks flags`, where the arrival time is a decimal number
//! of milliseconds (converted exactly to nanoseconds), blocks are 512-byte sectors and
//! `flags` is hexadecimal with bit 0 set for a read (`DISKSIM_READ = 0x1`) and clear for a
//! write; its other bits (time-critical, ...) are ignored.
//! Example: `0.026216 0 1630976 16 1` (a read of 8 KiB at byte 835,059,712).

use super::{decimal_time, fields, req, request_size, uint32, uint_times, LineError, Sep};
use crate::{IoRequest, Op};

const EXPECTED: &str = "5 fields (time_ms device block size_blocks flags)";

/// The `flags` field: hexadecimal (an optional `0x`), bit 0 = read.
fn flags(value: &str) -> Result<Op, LineError<'_>> {
    let digits = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .unwrap_or(value);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(LineError::Invalid {
            field: "flags",
            value,
            expected: "hexadecimal flags, bit 0 = read",
        });
    }
    let v = u32::from_str_radix(digits, 16).map_err(|_| LineError::TooLarge {
        field: "flags",
        value,
    })?;
    Ok(if v & 1 == 1 { Op::Read } else { Op::Write })
}

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [t, dev, block, size, fl] = fields(line, Sep::Whitespace).exactly(EXPECTED)?;
    let arrival_ns = decimal_time("arrival time", t, 6, "non-negative milliseconds")?;
    let device = uint32("device", dev)?;
    let offset_bytes = uint_times("block", block, 512)?;
    let size_bytes = request_size(uint_times("size (blocks)", size, 512)?)?;
    let op = flags(fl)?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    #[test]
    fn parses_hand_made_sample() {
        let got = parse_all(
            TraceFormat::Disksim,
            "0.026216 0 1630976 16 1\n\
             1.5 2 0 256 0\n\
             12 1 8 8 3\n\
             12.0000005 0 24 1 0x10\n",
        );
        assert_eq!(
            got,
            vec![
                req(26_216, 0, 1_630_976 * 512, 8192, Op::Read),
                req(1_500_000, 2, 0, 131_072, Op::Write),
                req(12_000_000, 1, 4096, 4096, Op::Read),
                // 0.5 ns rounds half up; flag 0x10 has bit 0 clear
                req(12_000_001, 0, 12_288, 512, Op::Write),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Disksim;
        assert_eq!(
            first_error(f, "d.ascii", "0.1 0 8 8 1\n0.2 0 8 8\n"),
            "d.ascii:2: expected 5 fields (time_ms device block size_blocks flags), found 4"
        );
        assert_eq!(
            first_error(f, "d.ascii", "0.1 0 8 8 R"),
            "d.ascii:1: invalid flags `R` (expected hexadecimal flags, bit 0 = read)"
        );
        assert_eq!(
            first_error(f, "d.ascii", "-1 0 8 8 1"),
            "d.ascii:1: invalid arrival time `-1` (expected non-negative milliseconds)"
        );
        assert_eq!(
            first_error(f, "d.ascii", "1 0 8 0 1"),
            "d.ascii:1: zero-size request"
        );
    }
}
