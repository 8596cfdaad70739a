//! MQSim / DiskSim ASCII traces.
//!
//! One request a line, five whitespace-separated fields:
//! `arrival_ns device start_sector size_sectors type`, where sectors are 512 bytes,
//! the arrival time is an integer number of nanoseconds and `type` is `1` for a read,
//! `0` for a write (e.g. `938513000 4 264719034 16 0`).

use super::{fields, op_01, req, request_size, uint32, uint_as, uint_times, LineError, Sep};
use crate::IoRequest;

const EXPECTED: &str = "5 fields (time device lba size type)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [t, dev, lba, size, ty] = fields(line, Sep::Whitespace).exactly(EXPECTED)?;
    let arrival_ns = uint_as("arrival time", t, "integer nanoseconds")?;
    let device = uint32("device", dev)?;
    let offset_bytes = uint_times("start sector", lba, 512)?;
    let size_bytes = request_size(uint_times("size (sectors)", size, 512)?)?;
    let op = op_01("type", ty)?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    #[test]
    fn parses_example() {
        let got = parse_all(
            TraceFormat::Mqsim,
            "938513000 4 264719034 16 0\n11413000\t0 657728 16 1\n0 0 0 1 1\n",
        );
        assert_eq!(
            got,
            vec![
                req(938_513_000, 4, 264_719_034 * 512, 8192, Op::Write),
                req(11_413_000, 0, 657_728 * 512, 8192, Op::Read),
                req(0, 0, 0, 512, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Mqsim;
        assert_eq!(
            first_error(f, "x.trace", "1 2 3 4 1\n1 2 3 4 5 6\n"),
            "x.trace:2: expected 5 fields (time device lba size type), found 6"
        );
        assert_eq!(
            first_error(f, "x.trace", "1.5 2 3 4 1"),
            "x.trace:1: invalid arrival time `1.5` (expected integer nanoseconds)"
        );
        assert_eq!(
            first_error(f, "x.trace", "1 2 3 4 2"),
            "x.trace:1: invalid type `2` (expected 1 (read) or 0 (write))"
        );
        assert_eq!(
            first_error(f, "x.trace", "1 -2 3 4 1"),
            "x.trace:1: invalid device `-2` (expected an unsigned integer)"
        );
        assert_eq!(
            first_error(f, "x.trace", "1 2 3 8388608 1"),
            "x.trace:1: request size 4294967296 bytes is too large (limit 4 GiB - 1)"
        );
        assert_eq!(
            first_error(f, "x.trace", "1 2 36028797018963968 8 1"),
            "x.trace:1: start sector `36028797018963968` is out of range"
        );
    }
}
