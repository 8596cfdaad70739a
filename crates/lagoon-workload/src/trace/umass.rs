//! UMass Trace Repository / Storage Performance Council (SPC) traces.
//!
//! `ASU,LBA,Size,Opcode,Timestamp[,optional fields...]`: `ASU` is the application
//! storage unit (used as the device), `LBA` is in 512-byte blocks, `Size` in bytes,
//! `Opcode` is `r`/`R` or `w`/`W`, `Timestamp` is decimal seconds (converted exactly
//! to ns). Fields after the fifth are ignored. Example: `0,20941264,8192,W,0.551706`.

use super::{
    decimal_time, fields, op_rw, req, request_size, uint, uint32, uint_times, LineError, Sep,
};
use crate::IoRequest;

const EXPECTED: &str = "at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let [asu, lba, size, opcode, ts] = fields(line, Sep::Comma).front(EXPECTED)?;
    let device = uint32("ASU", asu)?;
    let offset_bytes = uint_times("LBA", lba, 512)?;
    let size_bytes = request_size(uint("size", size)?)?;
    let op = op_rw("opcode", opcode, "r or w")?;
    let arrival_ns = decimal_time("timestamp", ts, 9, "non-negative seconds")?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    #[test]
    fn parses_example() {
        let text = "0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041,extra\n 2 , 0 , 512 , R , 12 \n";
        let got = parse_all(TraceFormat::Umass, text);
        assert_eq!(
            got,
            vec![
                req(551_706_000, 0, 20_941_264 * 512, 8192, Op::Write),
                req(554_041_000, 1, 20_939_840 * 512, 4096, Op::Read),
                req(12_000_000_000, 2, 0, 512, Op::Read),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Umass;
        assert_eq!(
            first_error(f, "spc", "0,1,8192,W\n"),
            "spc:1: expected at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found 4"
        );
        assert_eq!(
            first_error(f, "spc", "0,1,8192,X,0.1"),
            "spc:1: invalid opcode `X` (expected r or w)"
        );
        assert_eq!(
            first_error(f, "spc", "0,1,8192,w,abc"),
            "spc:1: invalid timestamp `abc` (expected non-negative seconds)"
        );
    }
}
