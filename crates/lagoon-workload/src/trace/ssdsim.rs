//! SSDsim traces (Hu Yang et al.'s SSDsim and its descendants).
//!
//! `time_ns device lsn size_sectors operation`, whitespace-separated, as SSDsim reads them
//! (`sscanf(buffer, "%lld %d %d %d %d", &time_t, &device, &lsn, &size, &ope)` in `ssd.c`):
//! an integer arrival time in nanoseconds, the logical sector number and size in 512-byte
//! sectors, and `operation` 1 for a read, 0 for a write (SSDsim's `READ` and `WRITE`).
//! SSDsim keeps `lsn` in a 32-bit integer, so a larger value is an error here. Some
//! versions append a sixth integer (a priority); it is accepted and ignored.
//! Example: `2730000 0 1548928 8 1`.
//!
//! Five-field SSDsim lines have the layout of MQSim's (see [`super::mqsim`]) and give the
//! same requests; detection reports such a file as `mqsim` (the two readings agree).

use super::{fields, op_01, req, request_size, uint, uint32, uint_as, LineError, Sep};
use crate::IoRequest;

const EXPECTED: &str = "5 or 6 fields (time_ns device lsn size_sectors operation [priority])";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let mut f = fields(line, Sep::Whitespace);
    let [t, dev, lsn, size, ope] = f.front(EXPECTED)?;
    if let Some(priority) = f.next() {
        uint("priority", priority)?;
        if f.next().is_some() {
            return Err(LineError::FieldCount {
                expected: EXPECTED,
                found: fields(line, Sep::Whitespace).count(),
            });
        }
    }
    let arrival_ns = uint_as("arrival time", t, "integer nanoseconds")?;
    let device = uint32("device", dev)?;
    let offset_bytes = u64::from(uint32("lsn", lsn)?) * 512;
    let size_bytes = request_size(u64::from(uint32("size (sectors)", size)?) * 512)?;
    let op = op_01("operation", ope)?;
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
            TraceFormat::Ssdsim,
            "2730000 0 1548928 8 1\n2740000 3 4294967295 16 0\n2750000 1 7 1 1 2\n",
        );
        assert_eq!(
            got,
            vec![
                req(2_730_000, 0, 1_548_928 * 512, 4096, Op::Read),
                req(2_740_000, 3, 4_294_967_295 * 512, 8192, Op::Write),
                req(2_750_000, 1, 3584, 512, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Ssdsim;
        assert_eq!(
            first_error(f, "s.trace", "1 0 4294967296 8 1"),
            "s.trace:1: lsn `4294967296` is out of range"
        );
        assert_eq!(
            first_error(f, "s.trace", "1 0 8 8 1 2 3"),
            "s.trace:1: expected 5 or 6 fields (time_ns device lsn size_sectors operation [priority]), found 7"
        );
        assert_eq!(
            first_error(f, "s.trace", "1.5 0 8 8 1"),
            "s.trace:1: invalid arrival time `1.5` (expected integer nanoseconds)"
        );
        assert_eq!(
            first_error(f, "s.trace", "1 0 8 8 2"),
            "s.trace:1: invalid operation `2` (expected 1 (read) or 0 (write))"
        );
    }
}
