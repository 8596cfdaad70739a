//! Alibaba Cloud block traces (the `alibaba/block-traces` release, 2020).
//!
//! `device_id,opcode,offset,length,timestamp`, comma-separated: the virtual disk's id,
//! `R` or `W`, offset and length in bytes, and the issue time in microseconds since the
//! Unix epoch (an integer; converted to nanoseconds). The files interleave thousands of
//! virtual disks: pick one with `--device` (the `device_id`).
//! Example: `3,W,130666496,4096,1577808000000139`.

use super::{fields, op_rw, req, request_size, uint, uint32, uint_times, LineError, Sep};
use crate::IoRequest;

const EXPECTED: &str = "5 comma-separated fields (device_id,opcode,offset,length,timestamp)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [dev, opcode, off, len, ts] = fields(line, Sep::Comma).exactly(EXPECTED)?;
    if dev.eq_ignore_ascii_case("device_id") {
        return Ok(None); // a header line
    }
    let device = uint32("device_id", dev)?;
    let op = op_rw("opcode", opcode, "R or W")?;
    let offset_bytes = uint("offset", off)?;
    let size_bytes = request_size(uint("length", len)?)?;
    let arrival_ns = uint_times("timestamp (us)", ts, 1_000)?;
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
            TraceFormat::Alibaba,
            "device_id,opcode,offset,length,timestamp\n\
             3,W,130666496,4096,1577808000000139\n\
             812,R,0,65536,1577808000000200\n",
        );
        assert_eq!(
            got,
            vec![
                req(1_577_808_000_000_139_000, 3, 130_666_496, 4096, Op::Write),
                req(1_577_808_000_000_200_000, 812, 0, 65536, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Alibaba;
        assert_eq!(
            first_error(f, "a.csv", "3,X,0,4096,1"),
            "a.csv:1: invalid opcode `X` (expected R or W)"
        );
        assert_eq!(
            first_error(f, "a.csv", "3,R,0,4096"),
            "a.csv:1: expected 5 comma-separated fields (device_id,opcode,offset,length,timestamp), found 4"
        );
        assert_eq!(
            first_error(f, "a.csv", "3,R,0,4096,18446744073709552"),
            "a.csv:1: timestamp (us) `18446744073709552` is out of range"
        );
    }
}
