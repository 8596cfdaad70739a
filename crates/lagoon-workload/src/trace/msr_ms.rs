//! MSR Cambridge traces as cut by the LinnOS / Heimdall tools (`msr-ms`).
//!
//! Five whitespace-separated fields: `arrival_ms device offset_bytes size_bytes type`,
//! where the arrival time is a decimal number of milliseconds (converted exactly to
//! nanoseconds) and `type` is `1` for a read, `0` for a write
//! (e.g. `223.412 0 3159347200 36864 0`).

use super::{decimal_time, fields, op_01, req, request_size, uint, uint32, LineError, Sep};
use crate::IoRequest;

const EXPECTED: &str = "5 fields (time_ms device offset size type)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [t, dev, off, size, ty] = fields(line, Sep::Whitespace).exactly(EXPECTED)?;
    let arrival_ns = decimal_time("arrival time", t, 6, "non-negative milliseconds")?;
    let device = uint32("device", dev)?;
    let offset_bytes = uint("offset", off)?;
    let size_bytes = request_size(uint("size", size)?)?;
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
            TraceFormat::MsrMs,
            "0.000 0 200626176 4096 0\n223.412 3 3159347200 36864 1\n7 0 512 512 1\n",
        );
        assert_eq!(
            got,
            vec![
                req(0, 0, 200_626_176, 4096, Op::Write),
                req(223_412_000, 3, 3_159_347_200, 36864, Op::Read),
                req(7_000_000, 0, 512, 512, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::MsrMs;
        assert_eq!(
            first_error(f, "m", "0.1 0 0 4096"),
            "m:1: expected 5 fields (time_ms device offset size type), found 4"
        );
        assert_eq!(
            first_error(f, "m", "-0.1 0 0 4096 1"),
            "m:1: invalid arrival time `-0.1` (expected non-negative milliseconds)"
        );
        assert_eq!(
            first_error(f, "m", "0.1 0 0 4k 1"),
            "m:1: invalid size `4k` (expected an unsigned integer)"
        );
    }
}
