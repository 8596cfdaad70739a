//! MSR Cambridge CSV traces (SNIA IOTTA).
//!
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, where `Timestamp`
//! is a Windows filetime (100 ns ticks since 1601; kept as is, times 100 to get ns),
//! `Type` is `Read` or `Write` (any case), `Offset` and `Size` are bytes. The device
//! is `DiskNumber`. A header line whose first field is `Timestamp` is skipped.
//! Example: `128166372003061629,hm,1,Read,3154132992,4096,6998`.

use super::{fields, req, request_size, uint, uint32, uint_times, LineError, Sep};
use crate::{IoRequest, Op};

const EXPECTED: &str =
    "7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [ts, _host, disk, ty, off, size, _resp] = fields(line, Sep::Comma).exactly(EXPECTED)?;
    if ts.eq_ignore_ascii_case("timestamp") {
        return Ok(None);
    }
    let arrival_ns = uint_times("timestamp", ts, 100)?;
    let device = uint32("disk number", disk)?;
    let op = if ty.eq_ignore_ascii_case("read") {
        Op::Read
    } else if ty.eq_ignore_ascii_case("write") {
        Op::Write
    } else {
        return Err(LineError::Invalid {
            field: "type",
            value: ty,
            expected: "Read or Write",
        });
    };
    let offset_bytes = uint("offset", off)?;
    let size_bytes = request_size(uint("size", size)?)?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    #[test]
    fn parses_example() {
        let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                    128166372003061629,hm,1,Read,3154132992,4096,6998\n\
                    128166372016382155, hm ,0,write,0,65536,151\n";
        let got = parse_all(TraceFormat::Msr, text);
        assert_eq!(
            got,
            vec![
                req(12_816_637_200_306_162_900, 1, 3_154_132_992, 4096, Op::Read),
                req(12_816_637_201_638_215_500, 0, 0, 65536, Op::Write),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Msr;
        assert_eq!(
            first_error(f, "a.csv", "1,hm,1,Read,0,4096\n"),
            "a.csv:1: expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found 6"
        );
        assert_eq!(
            first_error(f, "a.csv", "1,hm,1,Trim,0,4096,1"),
            "a.csv:1: invalid type `Trim` (expected Read or Write)"
        );
        assert_eq!(
            first_error(f, "a.csv", "1844674407370955162,hm,1,Read,0,4096,1"),
            "a.csv:1: timestamp `1844674407370955162` is out of range"
        );
    }
}
