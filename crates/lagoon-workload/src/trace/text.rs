//! The text layer under every trace reader and the format detection: bounded line
//! reading, a binary-data check on the first block, and one field splitter.
//!
//! ```text
//!  BufRead ──sniff()──> binary? ─yes─> WorkloadError::Binary
//!     │
//!     └──read_line()──> Line | TooLong | Eof      (never buffers more than MAX_LINE_BYTES)
//!                        │
//!                        └──fields(line, Sep)──> &str fields ──crate::num──> numbers
//! ```

use std::io::{self, BufRead};

use super::LineError;

/// The longest trace line accepted, in bytes, not counting its `\n`: 64 KiB.
///
/// A longer line is malformed: an error naming the file and line in strict mode, skipped
/// and counted in lenient mode. It is never held in memory whole: the reader keeps at most
/// this many bytes of a line and skips the rest as it streams by.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How many bytes of over-long lines in a row a lenient reader skips before it gives up
/// with [`WorkloadError::OverlongLines`](crate::WorkloadError::OverlongLines): 16 MiB.
///
/// Any line within [`MAX_LINE_BYTES`] starts the count again. This bounds the work spent
/// on input that is not line-oriented text at all (a file without line breaks, an endless
/// text stream from a pipe; binary input such as `/dev/zero` is stopped before, by the
/// check of its first block).
pub const MAX_OVERLONG_RUN_BYTES: u64 = 16 << 20;

/// How many leading bytes the binary-data check looks at (at most; fewer when the
/// source has fewer ready).
pub const SNIFF_BYTES: usize = 8192;

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// End of input: no byte was left.
    Eof,
    /// A line within the limit is in the buffer (without its `\n`).
    Line,
    /// A line longer than [`MAX_LINE_BYTES`]; the buffer is empty. `bytes` were consumed
    /// (without the `\n`); `ended` is false when reading stopped at the skip budget
    /// before the line's end.
    TooLong { bytes: u64, ended: bool },
}

/// Reads the next line into `buf` (cleared first; the `\n` is consumed but not kept).
///
/// Holds at most [`MAX_LINE_BYTES`] bytes: past that the line is consumed without being
/// stored, until its `\n`, its end of input, or until more than `skip_budget` bytes of it
/// have been consumed, whichever comes first.
pub(crate) fn read_line<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    skip_budget: u64,
) -> io::Result<LineRead> {
    buf.clear();
    let mut consumed: u64 = 0;
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        any = true;
        let newline = avail.iter().position(|&b| b == b'\n');
        let chunk = newline.unwrap_or(avail.len());
        if !too_long {
            if buf.len() + chunk > MAX_LINE_BYTES {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&avail[..chunk]);
            }
        }
        consumed += chunk as u64;
        reader.consume(chunk + usize::from(newline.is_some()));
        if newline.is_some() {
            break;
        }
        if too_long && consumed > skip_budget {
            return Ok(LineRead::TooLong {
                bytes: consumed,
                ended: false,
            });
        }
    }
    Ok(match (any, too_long) {
        (false, _) => LineRead::Eof,
        (true, false) => LineRead::Line,
        (true, true) => LineRead::TooLong {
            bytes: consumed,
            ended: true,
        },
    })
}

/// What [`sniff`] found in a block that is not text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BinaryBlock {
    /// Bytes that are NUL, other control characters (all but tab, line feed, vertical
    /// tab, form feed, carriage return) or DEL, or that are not part of valid UTF-8.
    pub non_text: usize,
    /// Bytes looked at.
    pub sampled: usize,
}

/// Looks at the first block of `reader` (up to [`SNIFF_BYTES`], without consuming it):
/// `Some` when more than 1/8 of its bytes are not text (see [`BinaryBlock::non_text`]).
///
/// Compressed or binary files have about half of their bytes so; a UTF-16 file has
/// every other byte NUL; a text trace with a few corrupted lines stays far below 1/8
/// (those lines are then malformed, one by one).
pub(crate) fn sniff<R: BufRead>(reader: &mut R) -> io::Result<Option<BinaryBlock>> {
    let block = loop {
        match reader.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    let sample = &block[..block.len().min(SNIFF_BYTES)];
    let non_text = non_text_bytes(sample);
    Ok((non_text * 8 > sample.len()).then_some(BinaryBlock {
        non_text,
        sampled: sample.len(),
    }))
}

/// Counts the bytes of `s` that are not text; an incomplete UTF-8 sequence at the very
/// end (a block boundary) is not counted.
fn non_text_bytes(mut s: &[u8]) -> usize {
    let control =
        |b: &u8| (*b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r')) || *b == 0x7f;
    let mut n = 0;
    loop {
        match std::str::from_utf8(s) {
            Ok(t) => return n + t.bytes().filter(|b| control(b)).count(),
            Err(e) => {
                let (valid, rest) = s.split_at(e.valid_up_to());
                n += valid.iter().filter(|b| control(b)).count();
                match e.error_len() {
                    Some(bad) => {
                        n += bad;
                        s = &rest[bad..];
                    }
                    None => return n,
                }
            }
        }
    }
}

/// How the fields of a line are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sep {
    /// Runs of ASCII white space (MQSim, msr-ms, FIU, blkparse).
    Whitespace,
    /// Commas, each field trimmed of white space (MSR Cambridge, UMass/SPC).
    Comma,
}

/// The fields of one line: the one splitter of every format and of the detection.
///
/// Double-ended, so a format can take fields from both ends (FIU's process name may
/// hold spaces). A field-count error counts every field of the line, whatever was taken.
#[derive(Clone)]
pub(crate) struct Fields<'a> {
    line: &'a str,
    sep: Sep,
    inner: Inner<'a>,
}

#[derive(Clone)]
enum Inner<'a> {
    Whitespace(std::str::SplitAsciiWhitespace<'a>),
    Comma(std::str::Split<'a, char>),
}

/// Splits `line` into fields separated by `sep`.
pub(crate) fn fields(line: &str, sep: Sep) -> Fields<'_> {
    let inner = match sep {
        Sep::Whitespace => Inner::Whitespace(line.split_ascii_whitespace()),
        Sep::Comma => Inner::Comma(line.split(',')),
    };
    Fields { line, sep, inner }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match &mut self.inner {
            Inner::Whitespace(it) => it.next(),
            Inner::Comma(it) => it.next().map(str::trim),
        }
    }
}

impl<'a> DoubleEndedIterator for Fields<'a> {
    fn next_back(&mut self) -> Option<&'a str> {
        match &mut self.inner {
            Inner::Whitespace(it) => it.next_back(),
            Inner::Comma(it) => it.next_back().map(str::trim),
        }
    }
}

impl<'a> Fields<'a> {
    fn count_error(&self, expected: &'static str) -> LineError<'a> {
        LineError::FieldCount {
            expected,
            found: fields(self.line, self.sep).count(),
        }
    }

    /// The next `N` fields from the front.
    pub(crate) fn front<const N: usize>(
        &mut self,
        expected: &'static str,
    ) -> Result<[&'a str; N], LineError<'a>> {
        let mut out = [""; N];
        for slot in out.iter_mut() {
            *slot = self.next().ok_or_else(|| self.count_error(expected))?;
        }
        Ok(out)
    }

    /// The last `N` fields not taken yet, in line order.
    pub(crate) fn back<const N: usize>(
        &mut self,
        expected: &'static str,
    ) -> Result<[&'a str; N], LineError<'a>> {
        let mut out = [""; N];
        for slot in out.iter_mut().rev() {
            *slot = self.next_back().ok_or_else(|| self.count_error(expected))?;
        }
        Ok(out)
    }

    /// Exactly `N` fields: all of the line's fields, which must be `N`.
    pub(crate) fn exactly<const N: usize>(
        mut self,
        expected: &'static str,
    ) -> Result<[&'a str; N], LineError<'a>> {
        let out = self.front(expected)?;
        match self.next() {
            Some(_) => Err(self.count_error(expected)),
            None => Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], budget: u64) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = io::BufReader::with_capacity(7, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let got = read_line(&mut r, &mut buf, budget).unwrap();
            if got == LineRead::Eof {
                return out;
            }
            out.push((got, buf.clone()));
        }
    }

    #[test]
    fn lines_are_bounded_and_skipped_to_their_end() {
        let mut input = b"a b\n".to_vec();
        input.extend(std::iter::repeat(b'x').take(MAX_LINE_BYTES));
        input.extend_from_slice(b"\n");
        input.extend(std::iter::repeat(b'y').take(MAX_LINE_BYTES + 1));
        input.extend_from_slice(b"\r\nlast");
        let got = read_all(&input, u64::MAX);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], (LineRead::Line, b"a b".to_vec()));
        assert_eq!(got[1].0, LineRead::Line);
        assert_eq!(got[1].1.len(), MAX_LINE_BYTES);
        assert_eq!(
            got[2],
            (
                LineRead::TooLong {
                    bytes: MAX_LINE_BYTES as u64 + 2,
                    ended: true
                },
                vec![]
            )
        );
        assert_eq!(got[3], (LineRead::Line, b"last".to_vec()));
        // an over-long line at the end of input, without a line break
        let long = vec![b'z'; MAX_LINE_BYTES + 5];
        assert_eq!(
            read_all(&long, u64::MAX),
            vec![(
                LineRead::TooLong {
                    bytes: MAX_LINE_BYTES as u64 + 5,
                    ended: true
                },
                vec![]
            )]
        );
        assert_eq!(read_all(b"", 0), vec![]);
        assert_eq!(read_all(b"\n", 0), vec![(LineRead::Line, vec![])]);
    }

    #[test]
    fn skipping_stops_at_the_budget() {
        // an endless line: stops once the budget is passed, having consumed little more
        let mut r = io::BufReader::with_capacity(4096, io::repeat(b'q'));
        let mut buf = Vec::new();
        let budget = 3 * MAX_LINE_BYTES as u64;
        match read_line(&mut r, &mut buf, budget).unwrap() {
            LineRead::TooLong { bytes, ended } => {
                assert!(!ended);
                assert!(bytes > budget && bytes <= budget + 4096, "{bytes}");
            }
            other => panic!("{other:?}"),
        }
        assert!(buf.capacity() <= MAX_LINE_BYTES + 4096);
    }

    #[test]
    fn sniffs_binary_blocks() {
        let sniff_of = |b: &[u8]| sniff(&mut &b[..]).unwrap();
        assert_eq!(sniff_of(b""), None);
        assert_eq!(sniff_of(b"100 0 8 16 1\n\t200 0 8 8 0\r\n"), None);
        assert_eq!(sniff_of("héllo wörld\n".as_bytes()), None);
        assert_eq!(
            sniff_of(&[0u8; 20000]),
            Some(BinaryBlock {
                non_text: SNIFF_BYTES,
                sampled: SNIFF_BYTES
            })
        );
        // 2 of 16 bytes is exactly 1/8: still text; 3 of 16 is not
        assert_eq!(sniff_of(b"\x00\x01 0 8 16 1 2 3\n"), None);
        assert_eq!(
            sniff_of(b"\x00\x01\xff0 8 16 1 2 3\n"),
            Some(BinaryBlock {
                non_text: 3,
                sampled: 16
            })
        );
        // UTF-16LE text: every other byte NUL
        let utf16: Vec<u8> = "1 0 8 16 1\n".bytes().flat_map(|b| [b, 0]).collect();
        assert_eq!(sniff_of(&utf16).map(|b| b.non_text), Some(11));
        // a multi-byte character cut at the block end is not counted
        let mut cut = vec![b'a'; SNIFF_BYTES - 1];
        cut.extend_from_slice("é".as_bytes());
        assert_eq!(non_text_bytes(&cut[..SNIFF_BYTES]), 0);
    }

    #[test]
    fn fields_split_by_whitespace_or_comma() {
        let ws: Vec<_> = fields(" 1\t2  3 \r", Sep::Whitespace).collect();
        assert_eq!(ws, ["1", "2", "3"]);
        let cs: Vec<_> = fields(" a , b,,c ", Sep::Comma).collect();
        assert_eq!(cs, ["a", "b", "", "c"]);
        let mut f = fields("t p my proc 3 8", Sep::Whitespace);
        assert_eq!(f.front::<2>("e"), Ok(["t", "p"]));
        assert_eq!(f.back::<2>("e"), Ok(["3", "8"]));
        assert_eq!(f.collect::<Vec<_>>(), ["my", "proc"]);
        let count = |found| LineError::FieldCount {
            expected: "e",
            found,
        };
        assert_eq!(
            fields("1 2 3", Sep::Whitespace).exactly::<3>("e"),
            Ok(["1", "2", "3"])
        );
        assert_eq!(
            fields("1 2 3 4", Sep::Whitespace).exactly::<3>("e"),
            Err(count(4))
        );
        assert_eq!(fields("1,2", Sep::Comma).exactly::<3>("e"), Err(count(2)));
        let mut f = fields("1 2 3 4", Sep::Whitespace);
        f.front::<3>("e").unwrap();
        assert_eq!(f.back::<2>("e"), Err(count(4)));
    }
}
