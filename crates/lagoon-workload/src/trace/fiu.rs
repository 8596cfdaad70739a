//! FIU traces (SNIA IOTTA, Florida International University).
//!
//! `timestamp_ns pid process lba size_blocks R|W major minor md5`, whitespace
//! separated; `lba` and `size_blocks` are 512-byte blocks. The process name may
//! contain spaces: the first two and last six fields are taken from the two ends.
//! The device is `MKDEV(major, minor)` = `major << 20 | minor`.
//! Example: `89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221`.

use super::{fields, mkdev, op_rw, req, request_size, uint, uint_times, LineError, Sep};
use crate::IoRequest;

const EXPECTED: &str = "9 fields (timestamp pid process lba size R/W major minor md5)";

pub(crate) fn parse_line(line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
    let mut f = fields(line, Sep::Whitespace);
    // the process name (at least one field) is whatever lies between the two ends
    let [ts, _pid, _process] = f.front(EXPECTED)?;
    let [lba, size, rw, major, minor, _md5] = f.back(EXPECTED)?;
    let arrival_ns = uint("timestamp", ts)?;
    let offset_bytes = uint_times("lba", lba, 512)?;
    let size_bytes = request_size(uint_times("size (blocks)", size, 512)?)?;
    let op = op_rw("operation", rw, "R or W")?;
    let device = mkdev(major, minor)?;
    Ok(Some(req(arrival_ns, device, offset_bytes, size_bytes, op)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::TraceFormat;
    use crate::Op;

    #[test]
    fn parses_example() {
        let text = "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n\
                    89966527950584 4253 my proc name 508516672 16 R 8 17 88b93b628d84082186026d9da044f173\n";
        let got = parse_all(TraceFormat::Fiu, text);
        assert_eq!(
            got,
            vec![
                req(
                    89_966_522_969_723,
                    6 << 20,
                    18_579_576 * 512,
                    4096,
                    Op::Write
                ),
                req(
                    89_966_527_950_584,
                    (8 << 20) | 17,
                    508_516_672 * 512,
                    8192,
                    Op::Read
                ),
            ]
        );
    }

    #[test]
    fn malformed_messages() {
        let f = TraceFormat::Fiu;
        assert_eq!(
            first_error(f, "fiu", "1 2 p 3 8 W 6 0\n"),
            "fiu:1: expected 9 fields (timestamp pid process lba size R/W major minor md5), found 8"
        );
        assert_eq!(
            first_error(f, "fiu", "1 2 p 3 8 X 6 0 md5"),
            "fiu:1: invalid operation `X` (expected R or W)"
        );
        assert_eq!(
            first_error(f, "fiu", "1 2 p 3 8 R 6 z md5"),
            "fiu:1: invalid device minor `z` (expected an unsigned integer)"
        );
        assert_eq!(
            first_error(f, "fiu", "1 2 p 3 0 R 6 0 md5"),
            "fiu:1: zero-size request"
        );
    }
}
