//! Tencent Cloud Block Storage (CBS) traces (SNIA IOTTA, 2018).
//!
//! `timestamp,offset,size,io_type,volume_id`, comma-separated: the issue time in whole
//! seconds since the Unix epoch, offset and size in 512-byte sectors, `io_type` 0 for a
//! read and 1 for a write (note: the opposite of MQSim's 1 = read), and the volume.
//! The files interleave thousands of volumes: pick one with `--volume` (or `--device`).
//! Times have one-second resolution, so many requests share a timestamp.
//! Example: `1538323200,4174088,8,1,1063` (a 4 KiB write to volume 1063).

use super::{fields, req, request_size, uint32, uint_times, LineError, Sep};
use crate::{IoRequest, Op};

const EXPECTED: &str = "5 comma-separated fields (timestamp,offset,size,io_type,volume_id)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [ts, off, size, io, vol] = fields(line, Sep::Comma).exactly(EXPECTED)?;
    if ts.eq_ignore_ascii_case("timestamp") {
        return Ok(None); // a header line
    }
    let arrival_ns = uint_times("timestamp (s)", ts, 1_000_000_000)?;
    let offset_bytes = uint_times("offset (sectors)", off, 512)?;
    let size_bytes = request_size(uint_times("size (sectors)", size, 512)?)?;
    let op = match io {
        "0" => Op::Read,
        "1" => Op::Write,
        _ => {
            return Err(LineError::Invalid {
                field: "io_type",
                value: io,
                expected: "0 (read) or 1 (write)",
            })
        }
    };
    let device = uint32("volume_id", vol)?;
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
            TraceFormat::Tencent,
            "Timestamp,Offset,Size,IOType,VolumeID\n\
             1538323200,4174088,8,1,1063\n\
             1538323201,0,256,0,7\n",
        );
        assert_eq!(
            got,
            vec![
                req(
                    1_538_323_200_000_000_000,
                    1063,
                    4_174_088 * 512,
                    4096,
                    Op::Write
                ),
                req(1_538_323_201_000_000_000, 7, 0, 131_072, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Tencent;
        assert_eq!(
            first_error(f, "t.csv", "1538323200,0,8,R,1"),
            "t.csv:1: invalid io_type `R` (expected 0 (read) or 1 (write))"
        );
        assert_eq!(
            first_error(f, "t.csv", "1538323200,0,8,1"),
            "t.csv:1: expected 5 comma-separated fields (timestamp,offset,size,io_type,volume_id), found 4"
        );
        assert_eq!(
            first_error(f, "t.csv", "18446744074,0,8,1,1"),
            "t.csv:1: timestamp (s) `18446744074` is out of range"
        );
    }
}
