//! Streamed block-trace readers.
//!
//! A [`TraceReader`] reads one line at a time through a `BufRead`, reusing a single
//! line buffer, and yields one [`IoRequest`] per request line: memory use does not
//! grow with the length of the trace, nor with the length of a line.
//!
//! Common rules for every format:
//! - blank lines and lines whose first non-blank character is `#` are skipped silently;
//! - a malformed line is an error naming the file and its 1-based line number
//!   (strict mode, the reader then stops), or is skipped and counted (lenient mode);
//! - a zero-size request is malformed (strict) or skipped and counted (lenient);
//! - a line longer than [`MAX_LINE_BYTES`] (64 KiB) is malformed, and is never held
//!   whole; lenient mode gives up after [`MAX_OVERLONG_RUN_BYTES`] (16 MiB) of such
//!   lines in a row ([`WorkloadError::OverlongLines`]);
//! - input whose first block is mostly not text (NUL, control bytes, invalid UTF-8) is
//!   one [`WorkloadError::Binary`] error, in both modes;
//! - a trace that yields no request at all ends with [`WorkloadError::NoRequests`];
//! - request sizes must fit in `u32` bytes;
//! - times are converted to nanoseconds exactly (decimal fractions are not rounded
//!   through floating point); they are not shifted to start at 0, and requests are
//!   yielded in file order even when times go backwards
//!   ([`TraceReader::backward_arrivals`] counts those).
//!
//! Formats, one module each: [`mqsim`], [`ssdsim`], [`disksim`], [`msr`], [`msr_ms`],
//! [`fiu`], [`blkparse`], [`umass`], [`alibaba`], [`tencent`]; they share one field
//! splitter (`text::fields`) and one number parser (`crate::num`). `docs/TRACES.md` has
//! one table of every format with its units. [`detect_format`] scores every format on
//! the first lines of a file and refuses to guess when two readings fit or the best one
//! is implausible. Input compressed with gzip, zstd, xz or bzip2 is decompressed as it is
//! read ([`input`]). A reader can keep only one device's requests ([`TraceReader::only_device`]).

pub mod alibaba;
pub mod blkparse;
mod detect;
pub mod disksim;
pub mod fiu;
pub mod input;
pub mod mqsim;
pub mod msr;
pub mod msr_ms;
pub mod ssdsim;
pub mod tencent;
mod text;
pub mod umass;
pub mod write;

pub use detect::{detect, detect_format, detect_format_reader, Candidate, Detection};
pub use input::{open_input, Compression};
pub use text::{MAX_LINE_BYTES, MAX_OVERLONG_RUN_BYTES, SNIFF_BYTES};
pub use write::{TraceWriter, WriteError};

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead};
use std::path::Path;
use std::str::FromStr;

use crate::num::{is_digits, parse_scaled, parse_u32, parse_u64};
use crate::stats::ArrivalOrder;
use crate::{IoRequest, Op, WorkloadError};
use text::LineRead;
pub(crate) use text::{fields, Sep};

/// The supported trace formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TraceFormat {
    /// MQSim ASCII: `arrival_ns device start_sector(512 B) size_sectors type(1=read,0=write)`.
    #[serde(rename = "mqsim")]
    Mqsim,
    /// SSDsim: `time_ns device lsn(512 B) size_sectors operation(1=read,0=write) [priority]`.
    #[serde(rename = "ssdsim")]
    Ssdsim,
    /// DiskSim ASCII: `arrival_ms(float) device block(512 B) size_blocks flags(hex, bit 0 = read)`.
    #[serde(rename = "disksim")]
    Disksim,
    /// MSR Cambridge CSV: `Timestamp(100 ns ticks),Hostname,DiskNumber,Type(Read|Write),Offset(B),Size(B),ResponseTime`.
    #[serde(rename = "msr")]
    Msr,
    /// LinnOS/Heimdall cut of MSR traces: `arrival_ms(float) device offset_bytes size_bytes type(1=read,0=write)`.
    #[serde(rename = "msr-ms")]
    MsrMs,
    /// FIU: `timestamp_ns pid process lba(512 B) size_blocks(512 B) R|W major minor md5`.
    #[serde(rename = "fiu")]
    Fiu,
    /// `blkparse` default text output; only `Q` (queued) events become requests.
    #[serde(rename = "blkparse")]
    Blkparse,
    /// UMass / SPC: `ASU,LBA(512 B),Size(B),Opcode(r|w),Timestamp(s float)[,...]`.
    #[serde(rename = "umass")]
    Umass,
    /// Alibaba block traces: `device_id,opcode(R|W),offset(B),length(B),timestamp(us)`.
    #[serde(rename = "alibaba")]
    Alibaba,
    /// Tencent CBS: `timestamp(s),offset(512 B),size(512 B),io_type(0=read,1=write),volume_id`.
    #[serde(rename = "tencent")]
    Tencent,
}

impl TraceFormat {
    /// Every format, in the order they are listed in help texts.
    pub const ALL: [TraceFormat; 10] = [
        TraceFormat::Mqsim,
        TraceFormat::Ssdsim,
        TraceFormat::Disksim,
        TraceFormat::Msr,
        TraceFormat::MsrMs,
        TraceFormat::Fiu,
        TraceFormat::Blkparse,
        TraceFormat::Umass,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
    ];

    /// Every format's name, comma-separated, for messages.
    pub fn names() -> String {
        TraceFormat::ALL.map(TraceFormat::name).join(", ")
    }

    /// The name used on the command line (`mqsim`, `ssdsim`, `disksim`, `msr`, `msr-ms`,
    /// `fiu`, `blkparse`, `umass`, `alibaba`, `tencent`).
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Msr => "msr",
            TraceFormat::MsrMs => "msr-ms",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Umass => "umass",
        }
    }

    /// A one-line description of the line layout.
    pub fn description(self) -> &'static str {
        match self {
            TraceFormat::Mqsim => "arrival_ns device start_sector(512 B) size_sectors type(1=read,0=write)",
            TraceFormat::Ssdsim => "time_ns device lsn(512 B) size_sectors operation(1=read,0=write) [priority]",
            TraceFormat::Disksim => "arrival_ms(decimal) device block(512 B) size_blocks flags(hex, bit 0 = read)",
            TraceFormat::Alibaba => "device_id,opcode(R|W),offset(B),length(B),timestamp(us)",
            TraceFormat::Tencent => "timestamp(s),offset(512 B),size(512 B),io_type(0=read,1=write),volume_id",
            TraceFormat::Msr => "Timestamp(100 ns),Hostname,DiskNumber,Type(Read|Write),Offset(B),Size(B),ResponseTime",
            TraceFormat::MsrMs => "arrival_ms device offset_bytes size_bytes type(1=read,0=write)",
            TraceFormat::Fiu => "timestamp_ns pid process lba(512 B) size_blocks(512 B) R|W major minor md5",
            TraceFormat::Blkparse => "blkparse default output; Q events: dev cpu seq time_s pid Q rwbs sector + nblocks",
            TraceFormat::Umass => "ASU,LBA(512 B),Size(B),Opcode(r|w),Timestamp(s)",
        }
    }

    /// The units this reader assumes, one line: time, offset, size, direction, device.
    pub fn units(self) -> &'static str {
        match self {
            TraceFormat::Mqsim => "time: integer ns; offset: 512-byte sectors; size: 512-byte sectors; type 1 = read, 0 = write; device: field 2",
            TraceFormat::Ssdsim => "time: integer ns; offset (lsn): 512-byte sectors, 32-bit; size: 512-byte sectors; operation 1 = read, 0 = write; device: field 2",
            TraceFormat::Disksim => "time: decimal ms; offset (block): 512-byte sectors; size: 512-byte blocks; flags hexadecimal, bit 0 set = read; device: field 2",
            TraceFormat::Msr => "time: 100 ns ticks (Windows filetime); offset: bytes; size: bytes; Read/Write; device: DiskNumber",
            TraceFormat::MsrMs => "time: decimal ms; offset: bytes; size: bytes; type 1 = read, 0 = write; device: field 2",
            TraceFormat::Fiu => "time: integer ns; offset (lba): 512-byte blocks; size: 512-byte blocks; R/W; device: major << 20 | minor",
            TraceFormat::Blkparse => "time: decimal s; offset: 512-byte sectors; size: 512-byte sectors; RWBS with W = write, else R = read; Q events only; device: major << 20 | minor",
            TraceFormat::Umass => "time: decimal s; offset (LBA): 512-byte blocks; size: bytes; r/w; device: ASU",
            TraceFormat::Alibaba => "time: integer us; offset: bytes; size: bytes; R/W; device: device_id",
            TraceFormat::Tencent => "time: integer s; offset: 512-byte sectors; size: 512-byte sectors; io_type 0 = read, 1 = write; device: volume_id",
        }
    }

    /// Parses one non-blank, non-comment, trimmed line.
    /// `Ok(None)` means a line that carries no request (a header, a non-`Q` blkparse event).
    pub(crate) fn parse_line(self, line: &str) -> Result<Option<IoRequest>, LineError<'_>> {
        let parsed = match self {
            TraceFormat::Mqsim => mqsim::parse_line(line),
            TraceFormat::Ssdsim => ssdsim::parse_line(line),
            TraceFormat::Disksim => disksim::parse_line(line),
            TraceFormat::Alibaba => alibaba::parse_line(line),
            TraceFormat::Tencent => tencent::parse_line(line),
            TraceFormat::Msr => msr::parse_line(line),
            TraceFormat::MsrMs => msr_ms::parse_line(line),
            TraceFormat::Fiu => fiu::parse_line(line),
            TraceFormat::Blkparse => blkparse::parse_line(line),
            TraceFormat::Umass => umass::parse_line(line),
        }?;
        match parsed {
            Some(req) if req.size_bytes == 0 => Err(LineError::ZeroSize),
            other => Ok(other),
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = WorkloadError;

    /// Accepts the names of [`TraceFormat::name`], case-insensitively
    /// (`msr_ms` is accepted as a spelling of `msr-ms`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        TraceFormat::ALL
            .into_iter()
            .find(|f| {
                t.eq_ignore_ascii_case(f.name())
                    || (t.eq_ignore_ascii_case("msr_ms") && *f == TraceFormat::MsrMs)
            })
            .ok_or_else(|| WorkloadError::UnknownFormat(s.to_string()))
    }
}

/// Why one line could not be parsed. Borrows from the line so that lenient mode
/// never allocates for a skipped line; rendered to a message only in strict mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineError<'a> {
    FieldCount {
        expected: &'static str,
        found: usize,
    },
    Invalid {
        field: &'static str,
        value: &'a str,
        expected: &'static str,
    },
    TooLarge {
        field: &'static str,
        value: &'a str,
    },
    SizeTooLarge {
        bytes: u64,
    },
    ZeroSize,
    NotUtf8,
    TooLong,
}

impl fmt::Display for LineError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::FieldCount { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            LineError::Invalid {
                field,
                value,
                expected,
            } => {
                write!(f, "invalid {field} `{}` (expected {expected})", clip(value))
            }
            LineError::TooLarge { field, value } => {
                write!(f, "{field} `{}` is out of range", clip(value))
            }
            LineError::SizeTooLarge { bytes } => {
                write!(
                    f,
                    "request size {bytes} bytes is too large (limit 4 GiB - 1)"
                )
            }
            LineError::ZeroSize => f.write_str("zero-size request"),
            LineError::NotUtf8 => f.write_str("line is not valid UTF-8 text"),
            LineError::TooLong => write!(f, "line is longer than {MAX_LINE_BYTES} bytes"),
        }
    }
}

/// Keeps error messages one short line even for garbage input.
fn clip(s: &str) -> &str {
    const MAX: usize = 48;
    if s.len() <= MAX {
        return s;
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

// ---- small helpers shared by the format modules ----
// Fields come from the one splitter `text::fields`, numbers from the one parser `crate::num`.

/// Why `value` is not an unsigned integer of the wanted width: too many digits, or not digits.
fn not_uint<'a>(field: &'static str, value: &'a str, expected: &'static str) -> LineError<'a> {
    if is_digits(value) {
        LineError::TooLarge { field, value }
    } else {
        LineError::Invalid {
            field,
            value,
            expected,
        }
    }
}

/// An unsigned integer; `expected` says what the format wants when `value` is not digits.
pub(crate) fn uint_as<'a>(
    field: &'static str,
    value: &'a str,
    expected: &'static str,
) -> Result<u64, LineError<'a>> {
    parse_u64(value).ok_or_else(|| not_uint(field, value, expected))
}

pub(crate) fn uint<'a>(field: &'static str, value: &'a str) -> Result<u64, LineError<'a>> {
    uint_as(field, value, "an unsigned integer")
}

pub(crate) fn uint32<'a>(field: &'static str, value: &'a str) -> Result<u32, LineError<'a>> {
    parse_u32(value).ok_or_else(|| not_uint(field, value, "an unsigned integer"))
}

/// An unsigned integer count of `unit`s, multiplied out (512-byte sectors to bytes,
/// 100 ns ticks to ns).
pub(crate) fn uint_times<'a>(
    field: &'static str,
    value: &'a str,
    unit: u64,
) -> Result<u64, LineError<'a>> {
    uint(field, value)?
        .checked_mul(unit)
        .ok_or(LineError::TooLarge { field, value })
}

/// A non-negative decimal time, converted exactly to integer units of `10^-scale`.
pub(crate) fn decimal_time<'a>(
    field: &'static str,
    value: &'a str,
    scale: u32,
    expected: &'static str,
) -> Result<u64, LineError<'a>> {
    parse_scaled(value, scale).ok_or(LineError::Invalid {
        field,
        value,
        expected,
    })
}

/// The request of a parsed line; the arguments in the order of an MQSim line.
pub(crate) fn req(
    arrival_ns: u64,
    device: u32,
    offset_bytes: u64,
    size_bytes: u32,
    op: Op,
) -> IoRequest {
    IoRequest {
        arrival_ns,
        offset_bytes,
        size_bytes,
        op,
        device,
    }
}

pub(crate) fn request_size(bytes: u64) -> Result<u32, LineError<'static>> {
    u32::try_from(bytes).map_err(|_| LineError::SizeTooLarge { bytes })
}

/// `1` = read, `0` = write (MQSim, msr-ms).
pub(crate) fn op_01<'a>(field: &'static str, value: &'a str) -> Result<Op, LineError<'a>> {
    match value {
        "1" => Ok(Op::Read),
        "0" => Ok(Op::Write),
        _ => Err(LineError::Invalid {
            field,
            value,
            expected: "1 (read) or 0 (write)",
        }),
    }
}

/// `R`/`r` = read, `W`/`w` = write (FIU, UMass); `expected` names the spelling the format uses.
pub(crate) fn op_rw<'a>(
    field: &'static str,
    value: &'a str,
    expected: &'static str,
) -> Result<Op, LineError<'a>> {
    match value {
        "R" | "r" => Ok(Op::Read),
        "W" | "w" => Ok(Op::Write),
        _ => Err(LineError::Invalid {
            field,
            value,
            expected,
        }),
    }
}

/// Linux `MKDEV(major, minor)`: `major << 20 | minor`.
pub(crate) fn mkdev<'a>(major: &'a str, minor: &'a str) -> Result<u32, LineError<'a>> {
    let ma = uint32("device major", major)?;
    let mi = uint32("device minor", minor)?;
    if ma >= 1 << 12 {
        return Err(LineError::TooLarge {
            field: "device major",
            value: major,
        });
    }
    if mi >= 1 << 20 {
        return Err(LineError::TooLarge {
            field: "device minor",
            value: minor,
        });
    }
    Ok(ma << 20 | mi)
}

// ---- the reader ----

/// Streams [`IoRequest`]s out of a trace, one line at a time.
///
/// Strict mode (`lenient = false`) yields `Err` for the first malformed line and then
/// ends. Lenient mode skips malformed, over-long and zero-size lines and counts them
/// ([`skipped_lines`](Self::skipped_lines)). In both modes the stream ends with an error
/// on an I/O error, on binary input ([`WorkloadError::Binary`], checked on the first
/// block), after [`MAX_OVERLONG_RUN_BYTES`] of over-long lines in a row
/// ([`WorkloadError::OverlongLines`]), and, at its end, when it yielded no request at
/// all ([`WorkloadError::NoRequests`]). After an error it yields nothing more.
///
/// Requests are yielded in file order, never reordered or dropped for their times;
/// those that arrive earlier than a request before them are counted
/// ([`backward_arrivals`](Self::backward_arrivals)).
pub struct TraceReader<R: BufRead = input::Input> {
    reader: R,
    name: String,
    format: TraceFormat,
    lenient: bool,
    buf: Vec<u8>,
    lines_read: u64,
    skipped: u64,
    zero_size: u64,
    overlong: u64,
    /// Bytes of over-long lines read since the last line within the limit.
    overlong_run: u64,
    requests: u64,
    order: ArrivalOrder,
    sniffed: bool,
    done: bool,
    /// Keep only this device's requests ([`TraceReader::only_device`]).
    device: Option<u32>,
    /// Requests of other devices passed over.
    other_devices: u64,
}

/// Opens a trace file for streaming, decompressing it as it is read when it is compressed
/// ([`open_input`]). With `format = None` the format is detected from the first lines
/// ([`detect_format`]), which is an error when no format or more than one fits. Error
/// messages name the file as `path` is spelled here.
pub fn open_trace(
    path: &Path,
    format: Option<TraceFormat>,
    lenient: bool,
) -> Result<TraceReader, WorkloadError> {
    let name = path.display().to_string();
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let (input, _) = open_input(path)?;
    Ok(TraceReader::from_reader(input, name, format, lenient))
}

pub(crate) fn open_file(path: &Path) -> Result<File, WorkloadError> {
    let io_err = |err| WorkloadError::Io {
        file: path.display().to_string(),
        action: "cannot open trace".to_string(),
        err,
    };
    let file = File::open(path).map_err(io_err)?;
    match file.metadata() {
        Ok(m) if m.is_dir() => Err(io_err(io::Error::other("is a directory"))),
        _ => Ok(file),
    }
}

/// The error for binary input named `file`.
pub(crate) fn binary_error(file: &str, b: text::BinaryBlock) -> WorkloadError {
    WorkloadError::Binary {
        file: file.to_string(),
        non_text: b.non_text,
        sampled: b.sampled,
    }
}

/// The error for a read failure after `lines` lines of `file`.
pub(crate) fn read_error(file: &str, lines: u64, err: io::Error) -> WorkloadError {
    WorkloadError::Io {
        file: file.to_string(),
        action: format!("read error after line {lines}"),
        err,
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads a trace from any `BufRead` (an in-memory string, stdin, a decompressor).
    /// `name` is what error messages call the source. Nothing is read until the first
    /// call to `next`.
    pub fn from_reader(
        reader: R,
        name: impl Into<String>,
        format: TraceFormat,
        lenient: bool,
    ) -> Self {
        TraceReader {
            reader,
            name: name.into(),
            format,
            lenient,
            buf: Vec::with_capacity(256),
            lines_read: 0,
            skipped: 0,
            zero_size: 0,
            overlong: 0,
            overlong_run: 0,
            requests: 0,
            order: ArrivalOrder::default(),
            sniffed: false,
            done: false,
            device: None,
            other_devices: 0,
        }
    }

    /// Keeps only the requests of `device` (the device, disk, volume or ASU number the
    /// format records, see [`TraceFormat::units`]); the others are passed over and counted
    /// ([`other_device_requests`](Self::other_device_requests)). A trace with none of
    /// `device`'s requests ends with [`WorkloadError::NoRequests`].
    pub fn only_device(mut self, device: Option<u32>) -> Self {
        self.device = device;
        self
    }

    /// Requests passed over because they belong to another device than the one kept.
    pub fn other_device_requests(&self) -> u64 {
        self.other_devices
    }

    /// The text of the line read last: after a request is yielded, its raw line
    /// (trimmed; empty after an over-long line or when it is not UTF-8).
    pub fn raw_line(&self) -> &str {
        std::str::from_utf8(&self.buf).map_or("", str::trim)
    }

    /// The 1-based number of the line read last.
    pub fn line_number(&self) -> u64 {
        self.lines_read
    }

    /// The format being parsed.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The source name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether malformed lines are skipped instead of reported.
    pub fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// Lines read so far, including blank, comment, header and skipped lines.
    pub fn lines_read(&self) -> u64 {
        self.lines_read
    }

    /// Lines skipped in lenient mode because they were malformed, over-long or zero-size.
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Of [`skipped_lines`](Self::skipped_lines), those skipped only because the request had size 0.
    pub fn zero_size_lines(&self) -> u64 {
        self.zero_size
    }

    /// Of [`skipped_lines`](Self::skipped_lines), those longer than [`MAX_LINE_BYTES`].
    pub fn overlong_lines(&self) -> u64 {
        self.overlong
    }

    /// Requests yielded so far.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Requests yielded so far whose arrival time is earlier than that of a request
    /// before them in the file (earlier than the latest arrival so far; equal times do
    /// not count). They are yielded in file order all the same.
    pub fn backward_arrivals(&self) -> u64 {
        self.order.backward()
    }

    /// The next item, not yet fused: `None` at a clean end.
    fn read_next(&mut self) -> Option<Result<IoRequest, WorkloadError>> {
        if !self.sniffed {
            self.sniffed = true;
            match text::sniff(&mut self.reader) {
                Ok(None) => {}
                Ok(Some(b)) => return Some(Err(binary_error(&self.name, b))),
                Err(source) => return Some(Err(read_error(&self.name, 0, source))),
            }
        }
        loop {
            // Strict mode stops at an over-long line: no need to skip the rest of it.
            let budget = if self.lenient {
                MAX_OVERLONG_RUN_BYTES.saturating_sub(self.overlong_run)
            } else {
                0
            };
            let read = match text::read_line(&mut self.reader, &mut self.buf, budget) {
                Ok(r) => r,
                Err(source) => return Some(Err(read_error(&self.name, self.lines_read, source))),
            };
            let parsed = match read {
                LineRead::Eof => return self.end_of_stream(),
                LineRead::TooLong { bytes, ended } => {
                    self.lines_read += 1;
                    self.overlong_run += bytes;
                    if self.lenient && (!ended || self.overlong_run > MAX_OVERLONG_RUN_BYTES) {
                        return Some(Err(WorkloadError::OverlongLines {
                            file: self.name.clone(),
                            line: self.lines_read,
                            bytes: self.overlong_run,
                        }));
                    }
                    Err(LineError::TooLong)
                }
                LineRead::Line => {
                    self.lines_read += 1;
                    self.overlong_run = 0;
                    match std::str::from_utf8(&self.buf) {
                        Err(_) => Err(LineError::NotUtf8),
                        Ok(text) => {
                            let line = text.trim();
                            if line.is_empty() || line.starts_with('#') {
                                continue;
                            }
                            self.format.parse_line(line)
                        }
                    }
                }
            };
            match parsed {
                Ok(Some(req)) if self.device.is_some_and(|d| d != req.device) => {
                    self.other_devices += 1;
                }
                Ok(Some(req)) => {
                    self.requests += 1;
                    self.order.push(req.arrival_ns);
                    return Some(Ok(req));
                }
                Ok(None) => continue,
                Err(e) if self.lenient => {
                    self.skipped += 1;
                    match e {
                        LineError::ZeroSize => self.zero_size += 1,
                        LineError::TooLong => self.overlong += 1,
                        _ => {}
                    }
                }
                Err(e) => {
                    return Some(Err(WorkloadError::Malformed {
                        file: self.name.clone(),
                        line: self.lines_read,
                        message: e.to_string(),
                    }))
                }
            }
        }
    }

    /// `None`, or the error of a stream that yielded no request.
    fn end_of_stream(&self) -> Option<Result<IoRequest, WorkloadError>> {
        (self.requests == 0).then(|| {
            if let (Some(device), n @ 1..) = (self.device, self.other_devices) {
                return Err(WorkloadError::NoDeviceRequests {
                    file: self.name.clone(),
                    device,
                    others: n,
                });
            }
            Err(WorkloadError::NoRequests {
                file: self.name.clone(),
                lines: self.lines_read,
                skipped: self.skipped,
                zero_size: self.zero_size,
            })
        })
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<IoRequest, WorkloadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read_next();
        // Every error ends the stream (lenient mode skips lines without yielding errors).
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

impl<R: BufRead> std::iter::FusedIterator for TraceReader<R> {}

#[cfg(test)]
pub(crate) mod test_util {
    pub(crate) use super::req;
    use super::*;

    /// Parses an in-memory trace strictly, panicking on error.
    pub fn parse_all(format: TraceFormat, text: &str) -> Vec<IoRequest> {
        TraceReader::from_reader(text.as_bytes(), "mem", format, false)
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
    }

    /// The message of the first error of a strict parse.
    pub fn first_error(format: TraceFormat, name: &str, text: &str) -> String {
        TraceReader::from_reader(text.as_bytes(), name, format, false)
            .find_map(Result::err)
            .expect("expected an error")
            .to_string()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::test_util::*;
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn shared(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/traces")
            .join(name)
    }

    #[test]
    fn format_names_round_trip() {
        for f in TraceFormat::ALL {
            assert_eq!(f.to_string().parse::<TraceFormat>().unwrap(), f);
            assert_eq!(f.name().to_uppercase().parse::<TraceFormat>().unwrap(), f);
        }
        assert_eq!("msr_ms".parse::<TraceFormat>().unwrap(), TraceFormat::MsrMs);
        let e = "diskism".parse::<TraceFormat>().unwrap_err().to_string();
        assert_eq!(e, "unknown trace format `diskism` (expected one of: mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)");
    }

    #[test]
    fn blank_comment_and_crlf_lines() {
        let text = "# header\n\n   \n  # indented comment\r\n100 1 2 8 1\r\n\t\n200 0 4 8 0";
        let mut r = TraceReader::from_reader(text.as_bytes(), "mem", TraceFormat::Mqsim, false);
        assert_eq!(
            r.next().unwrap().unwrap(),
            req(100, 1, 1024, 4096, Op::Read)
        );
        assert_eq!(
            r.next().unwrap().unwrap(),
            req(200, 0, 2048, 4096, Op::Write)
        );
        assert!(r.next().is_none());
        assert_eq!(r.lines_read(), 7);
        assert_eq!(r.skipped_lines(), 0);
    }

    #[test]
    fn strict_stops_at_first_error_with_line_number() {
        let text = "100 1 2 8 1\n# c\n100 1 2\n200 1 2 8 1\n";
        let mut r = TraceReader::from_reader(
            text.as_bytes(),
            "../shared/traces/x.trace",
            TraceFormat::Mqsim,
            false,
        );
        assert!(r.next().unwrap().is_ok());
        let e = r.next().unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            "../shared/traces/x.trace:3: expected 5 fields (time device lba size type), found 3"
        );
        assert!(r.next().is_none(), "strict reader ends after an error");
    }

    #[test]
    fn lenient_skips_and_counts() {
        let text = "100 1 2 8 1\nbad line\n100 1 2 0 1\n\u{0}\u{1}\n200 1 2 8 x\n300 1 2 8 0\n";
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(b"\xff\xfe 1 2 3\n400 0 0 1 1\n");
        let mut r = TraceReader::from_reader(bytes.as_slice(), "mem", TraceFormat::Mqsim, true);
        let got: Vec<_> = r.by_ref().map(Result::unwrap).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[2], req(400, 0, 0, 512, Op::Read));
        assert_eq!(r.skipped_lines(), 5);
        assert_eq!(r.zero_size_lines(), 1);
        assert_eq!(r.lines_read(), 8);
        assert!(r.is_lenient());
        assert_eq!(r.format(), TraceFormat::Mqsim);
    }

    #[test]
    fn zero_size_is_an_error_in_strict_mode() {
        assert_eq!(
            first_error(TraceFormat::Mqsim, "t", "1 0 0 0 1\n"),
            "t:1: zero-size request"
        );
        assert_eq!(
            first_error(TraceFormat::Mqsim, "t", "\u{ff} 0 0 8 1\n"),
            "t:1: invalid arrival time `ÿ` (expected integer nanoseconds)"
        );
        let long = format!("{} 0 0 8 1", "é".repeat(40));
        assert_eq!(
            first_error(TraceFormat::Mqsim, "t", &long),
            format!(
                "t:1: invalid arrival time `{}` (expected integer nanoseconds)",
                "é".repeat(24)
            )
        );
        let mut bytes = b"1 0 0 8 1\n".to_vec();
        bytes.extend_from_slice(b"\xff\n");
        let e = TraceReader::from_reader(bytes.as_slice(), "t", TraceFormat::Mqsim, false)
            .find_map(Result::err)
            .unwrap();
        assert_eq!(e.to_string(), "t:2: line is not valid UTF-8 text");
    }

    #[test]
    fn open_errors_name_the_file() {
        let e = open_trace(
            Path::new("/nonexistent/x.trace"),
            Some(TraceFormat::Mqsim),
            false,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.starts_with("/nonexistent/x.trace: cannot open trace: "),
            "{e}"
        );
        let e = open_trace(Path::new("/nonexistent/x.trace"), None, false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("/nonexistent/x.trace: cannot open trace: "),
            "{e}"
        );
        let e = open_trace(Path::new("/tmp"), Some(TraceFormat::Mqsim), false)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "/tmp: cannot open trace: is a directory");
    }

    #[test]
    fn shared_traces_stream_without_errors() {
        for (name, fmt, n) in [
            ("tpcc-small.trace", TraceFormat::Mqsim, 6999),
            ("wsrch-small.trace", TraceFormat::Mqsim, 24783),
            ("msr-cut-105.trace", TraceFormat::MsrMs, 10000),
            ("fiu-cheetah-mail.trace", TraceFormat::Fiu, 9998),
        ] {
            let mut r = open_trace(&shared(name), None, false).unwrap();
            assert_eq!(r.format(), fmt, "{name}");
            let mut count = 0;
            for item in r.by_ref() {
                item.unwrap();
                count += 1;
            }
            assert_eq!(count, n, "{name}");
            assert_eq!(r.lines_read(), n as u64, "{name}");
        }
    }

    // ---- robustness: bounded lines, binary input, empty traces, backward arrivals ----

    /// Every item of a reader, requests as `Ok`, errors as their message.
    fn items<R: BufRead>(r: &mut TraceReader<R>) -> Vec<Result<IoRequest, String>> {
        r.by_ref().map(|i| i.map_err(|e| e.to_string())).collect()
    }

    fn mem(text: &[u8], format: TraceFormat, lenient: bool) -> TraceReader<&[u8]> {
        TraceReader::from_reader(text, "t", format, lenient)
    }

    #[test]
    fn line_length_limit_is_exact() {
        // a line of exactly MAX_LINE_BYTES is read (and parsed: one long field) ...
        let at = format!("1 0 0 8 1\n{}\n", "x".repeat(MAX_LINE_BYTES));
        assert_eq!(
            first_error(TraceFormat::Mqsim, "t", &at),
            "t:2: expected 5 fields (time device lba size type), found 1"
        );
        // ... one byte more is over-long; a trailing \r counts as a byte of the line
        for over in [
            format!("1 0 0 8 1\n{}\n", "x".repeat(MAX_LINE_BYTES + 1)),
            format!("1 0 0 8 1\n{}\r\n", "x".repeat(MAX_LINE_BYTES)),
            format!("1 0 0 8 1\n{}", "x".repeat(MAX_LINE_BYTES + 1)),
        ] {
            assert_eq!(
                first_error(TraceFormat::Mqsim, "t", &over),
                "t:2: line is longer than 65536 bytes"
            );
        }
        assert_eq!(MAX_LINE_BYTES, 65_536);
        assert_eq!(crate::MAX_LINE_BYTES, MAX_LINE_BYTES);
    }

    #[test]
    fn lenient_skips_over_long_lines_and_counts_them() {
        let mut text = b"100 0 0 8 1\n".to_vec();
        text.extend(vec![b'7'; 100_000]);
        text.extend_from_slice(b"\n# c\n200 0 8 8 0\n");
        text.extend(vec![b' '; MAX_LINE_BYTES + 1]);
        for f in TraceFormat::ALL {
            let mut r = mem(&text, f, true);
            let got = items(&mut r);
            assert_eq!(r.overlong_lines(), 2, "{f}");
            assert_eq!(r.lines_read(), 5, "{f}");
            if f == TraceFormat::Mqsim {
                assert_eq!(
                    got,
                    vec![
                        Ok(req(100, 0, 0, 4096, Op::Read)),
                        Ok(req(200, 0, 4096, 4096, Op::Write))
                    ]
                );
                assert_eq!(r.skipped_lines(), 2);
                assert_eq!(r.zero_size_lines(), 0);
                assert_eq!(r.requests(), 2);
            }
        }
    }

    #[test]
    fn lenient_gives_up_after_a_run_of_over_long_lines() {
        // lines of 102,399 bytes after one request line: the run of over-long lines passes
        // 16 MiB (16,777,216 bytes) with the 164th, line 165 (164 x 102,399 = 16,793,436)
        let line = [vec![b'a'; 102_399], vec![b'\n']].concat();
        let mut text = b"5 0 0 8 1\n".to_vec();
        for _ in 0..170 {
            text.extend_from_slice(&line);
        }
        let mut r = mem(&text, TraceFormat::Mqsim, true);
        let got = items(&mut r);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], Ok(req(5, 0, 0, 4096, Op::Read)));
        assert_eq!(
            got[1],
            Err("t:165: gave up after 16793436 bytes of over-long lines in a row (each longer than 65536 bytes): not a line-oriented text trace".to_string())
        );
        assert_eq!(r.overlong_lines(), 163);
        assert!(r.next().is_none(), "an error ends the stream");
        // one short line in between starts the count again: 150 + 150 over-long lines pass
        let mut text = Vec::new();
        for i in 0..300 {
            text.extend_from_slice(&line);
            if i == 150 {
                text.extend_from_slice(b"6 0 0 8 1\n");
            }
        }
        let mut r = mem(&text, TraceFormat::Mqsim, true);
        assert_eq!(items(&mut r), vec![Ok(req(6, 0, 0, 4096, Op::Read))]);
        assert_eq!((r.overlong_lines(), r.lines_read()), (300, 301));
    }

    /// A `BufRead` of `len` bytes of `byte` (endless with `u64::MAX`), generated as read:
    /// nothing of it is in memory but one 64 KiB block.
    fn generated(byte: u8, len: u64) -> io::BufReader<io::Take<io::Repeat>> {
        io::BufReader::with_capacity(1 << 16, io::Read::take(io::repeat(byte), len))
    }

    #[test]
    fn endless_input_without_line_breaks_ends_quickly_in_bounded_memory() {
        // text without line breaks (a 1 GB file or an endless pipe): lenient gives up at
        // 16 MiB, strict at the first over-long line
        for len in [1_000_000_000, u64::MAX] {
            let mut r =
                TraceReader::from_reader(generated(b'a', len), "a", TraceFormat::Mqsim, true);
            let e = r.next().unwrap().unwrap_err();
            let WorkloadError::OverlongLines {
                ref file,
                line,
                bytes,
            } = e
            else {
                panic!("{e}")
            };
            assert_eq!((file.as_str(), line), ("a", 1));
            assert!(bytes > MAX_OVERLONG_RUN_BYTES && bytes <= MAX_OVERLONG_RUN_BYTES + (1 << 16));
            assert!(r.next().is_none());
            assert!(
                r.buf.capacity() <= 2 * MAX_LINE_BYTES,
                "{}",
                r.buf.capacity()
            );
            let mut r =
                TraceReader::from_reader(generated(b'a', len), "a", TraceFormat::Msr, false);
            assert_eq!(
                items(&mut r),
                vec![Err("a:1: line is longer than 65536 bytes".to_string())]
            );
        }
        // and detection reads at most two blocks of such a line
        let e = detect_format_reader(generated(b'a', u64::MAX), "a").unwrap_err();
        assert_eq!(e.to_string(), "a: cannot detect the trace format: the first 1 request lines match no known format; name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)");
    }

    const BINARY: &str = "looks like binary data, not a text trace (8192 of the first 8192 bytes are NUL, control characters or invalid UTF-8); decompress or convert it to text first";

    #[test]
    fn binary_input_is_one_clear_error() {
        // /dev/zero as a generated stream, every format, strict and lenient
        for f in TraceFormat::ALL {
            for lenient in [false, true] {
                let mut r = TraceReader::from_reader(generated(0, u64::MAX), "z", f, lenient);
                assert_eq!(items(&mut r), vec![Err(format!("z:1: {BINARY}"))]);
                assert_eq!(r.lines_read(), 0);
            }
        }
        let e = detect_format_reader(generated(0, u64::MAX), "z").unwrap_err();
        assert!(matches!(
            e,
            WorkloadError::Binary {
                non_text: 8192,
                sampled: 8192,
                ..
            }
        ));
        // gzip magic and a few random-looking bytes: 26 of 32 are not text
        let gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\xc1\x01\r\x00\x00\x00\xc2\xa0\xf7Om\x0e7\xa0\x00\x00\x00\x00\x00\x00\x00";
        assert_eq!(
            items(&mut mem(gz, TraceFormat::Mqsim, true)),
            vec![Err("t:1: looks like binary data, not a text trace (26 of the first 32 bytes are NUL, control characters or invalid UTF-8); decompress or convert it to text first".to_string())]
        );
        // a NUL byte in an otherwise text trace is only a malformed line
        let text = b"1 0 0 8 1\n\x00\n2 0 0 8 1\n";
        assert_eq!(
            first_error(TraceFormat::Mqsim, "t", std::str::from_utf8(text).unwrap()),
            "t:2: expected 5 fields (time device lba size type), found 1"
        );
    }

    #[test]
    fn dev_zero_ends_at_once() {
        let zero = Path::new("/dev/zero");
        if !zero.exists() {
            return;
        }
        let e = open_trace(zero, None, true).err().unwrap().to_string();
        assert_eq!(e, format!("/dev/zero:1: {BINARY}"));
        for f in TraceFormat::ALL {
            let mut r = open_trace(zero, Some(f), true).unwrap();
            assert_eq!(items(&mut r), vec![Err(format!("/dev/zero:1: {BINARY}"))]);
        }
    }

    #[test]
    fn a_trace_without_requests_is_an_error() {
        let none = |text: &str, f: TraceFormat, lenient: bool| {
            let mut r = mem(text.as_bytes(), f, lenient);
            let got = items(&mut r);
            assert!(r.next().is_none());
            assert_eq!(got.len(), 1, "{got:?}");
            got[0].clone().unwrap_err()
        };
        for f in TraceFormat::ALL {
            for lenient in [false, true] {
                assert_eq!(none("", f, lenient), "t: no requests: the trace is empty");
                assert_eq!(
                    none("# only\n\n  \t\r\n# comments\n", f, lenient),
                    "t: no requests in 4 lines (only blank, comment, header or other non-request lines)"
                );
            }
        }
        assert_eq!(
            none("\n", TraceFormat::Mqsim, false),
            "t: no requests in 1 line (only blank, comment, header or other non-request lines)"
        );
        assert_eq!(
            none(
                "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
                TraceFormat::Msr,
                false
            ),
            "t: no requests in 1 line (only blank, comment, header or other non-request lines)"
        );
        let summary_only =
            &blkparse::tests::EXAMPLE[blkparse::tests::EXAMPLE.find("CPU0").unwrap()..];
        assert_eq!(
            none(summary_only, TraceFormat::Blkparse, false),
            "t: no requests in 6 lines (only blank, comment, header or other non-request lines)"
        );
        assert_eq!(
            none("bad\n# c\n1 0 0 0 1\n2 0 0 8 x\n", TraceFormat::Mqsim, true),
            "t: no requests in 4 lines (3 lines skipped as malformed in lenient mode, 1 of them zero-size)"
        );
        assert_eq!(
            none("bad", TraceFormat::Mqsim, true),
            "t: no requests in 1 line (1 line skipped as malformed in lenient mode)"
        );
        // strict mode reports the malformed line itself, and nothing after it
        assert_eq!(
            none("bad\n", TraceFormat::Mqsim, false),
            "t:1: expected 5 fields (time device lba size type), found 1"
        );
        // the error as a value
        let e = mem(b"x\n\n", TraceFormat::Mqsim, true)
            .last()
            .unwrap()
            .unwrap_err();
        assert!(matches!(
            e,
            WorkloadError::NoRequests {
                lines: 2,
                skipped: 1,
                zero_size: 0,
                ..
            }
        ));
        // one request is enough: no error at the end
        assert_eq!(
            items(&mut mem(b"x\n1 0 0 8 1\n", TraceFormat::Mqsim, true)).len(),
            1
        );
    }

    #[test]
    fn empty_trace_files_are_errors() {
        let path = std::env::temp_dir().join(format!(
            "lagoon-workload-empty-{}.trace",
            std::process::id()
        ));
        std::fs::write(&path, "").unwrap();
        let name = path.display().to_string();
        let explicit = open_trace(&path, Some(TraceFormat::Mqsim), true).map(|mut r| items(&mut r));
        let detected = open_trace(&path, None, false).err().map(|e| e.to_string());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            explicit.unwrap(),
            vec![Err(format!("{name}: no requests: the trace is empty"))]
        );
        assert_eq!(detected.unwrap(), format!("{name}: cannot detect the trace format: no request lines; name it with --format (mqsim, ssdsim, disksim, msr, msr-ms, fiu, blkparse, umass, alibaba, tencent)"));
    }

    #[test]
    fn backward_arrivals_are_counted_not_reordered() {
        // latest so far: 100, 100, 100, 200, 200, 200, 200, 300
        let text = "100 0 0 8 1\n50 0 0 8 1\n60 0 0 8 1\n200 0 0 8 1\n150 0 0 8 1\n150 0 0 8 1\n200 0 0 8 1\n300 0 0 8 1\n";
        let mut r = mem(text.as_bytes(), TraceFormat::Mqsim, false);
        let times: Vec<u64> = r.by_ref().map(|q| q.unwrap().arrival_ns).collect();
        assert_eq!(times, [100, 50, 60, 200, 150, 150, 200, 300]);
        assert_eq!(r.backward_arrivals(), 4);
        assert_eq!(r.requests(), 8);
        let s = crate::TraceStats::from_results(mem(text.as_bytes(), TraceFormat::Mqsim, false))
            .unwrap();
        assert_eq!(s.backward_arrivals, 4);
        assert!(
            s.to_string()
                .ends_with("\nbackward arrivals     4 (earlier than a request before them)"),
            "{s}"
        );
        // counted as yielded: after the first three requests, two went backwards
        let mut r = mem(text.as_bytes(), TraceFormat::Mqsim, false);
        r.by_ref().take(3).for_each(drop);
        assert_eq!(r.backward_arrivals(), 2);
        // equal times and an ordered trace: none
        let mut r = mem(
            b"7 0 0 8 1\n7 0 0 8 1\n8 0 0 8 1\n",
            TraceFormat::Mqsim,
            false,
        );
        r.by_ref().for_each(drop);
        assert_eq!(r.backward_arrivals(), 0);
        // a lenient reader counts among the requests it yields, skipped lines aside
        let mut r = mem(
            b"10 0 0 8 1\n5 0 0 0 1\n9 0 0 8 1\n",
            TraceFormat::Mqsim,
            true,
        );
        r.by_ref().for_each(drop);
        assert_eq!((r.backward_arrivals(), r.skipped_lines()), (1, 1));
    }

    #[test]
    fn shared_traces_backward_arrivals() {
        for (name, n) in [
            ("tpcc-small.trace", 0),
            ("wsrch-small.trace", 0),
            ("msr-cut-105.trace", 0),
            ("fiu-cheetah-mail.trace", 0),
        ] {
            let mut r = open_trace(&shared(name), None, false).unwrap();
            r.by_ref().for_each(|q| {
                q.unwrap();
            });
            assert_eq!(r.backward_arrivals(), n, "{name}");
        }
    }

    fn any_line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..120),
            "[0-9 .,+RWrwQ\\[\\]a-zA-Z\\-e]{0,80}".prop_map(String::into_bytes),
            // near-valid lines of every format with random field values
            (
                "[0-9.]{0,22}",
                "[0-9]{0,12}",
                "[0-9]{0,22}",
                "[0-9]{0,12}",
                "[01RWrw2]{0,2}"
            )
                .prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}").into_bytes()),
            (
                "[0-9]{0,22}",
                "[0-9]{0,12}",
                "[0-9]{0,22}",
                "[0-9]{0,12}",
                "(Read|Write|r|w|x)"
            )
                .prop_map(|(a, b, c, d, e)| format!("{a},host,{b},{e},{c},{d},1").into_bytes()),
            (
                "[0-9]{0,22}",
                "[0-9]{0,22}",
                "[0-9]{0,12}",
                "(r|w|R|x)",
                "[0-9.e]{0,14}"
            )
                .prop_map(|(a, b, c, d, e)| format!("{a},{b},{c},{d},{e}").into_bytes()),
            (
                "[0-9]{0,5},[0-9]{0,8}",
                "[0-9.]{0,14}",
                "[QCDGm]",
                "[RWFSDNA]{0,4}",
                "[0-9]{0,22}",
                "[0-9]{0,12}"
            )
                .prop_map(|(d, t, a, rw, s, n)| format!(
                    "{d} 1 2 {t} 33 {a} {rw} {s} + {n} [p]"
                )
                .into_bytes()),
            (
                "[0-9]{0,22}",
                "[0-9]{0,22}",
                "[0-9]{0,12}",
                "[RWx]",
                "[0-9]{0,6}"
            )
                .prop_map(
                    |(t, l, s, rw, m)| format!("{t} 1 proc {l} {s} {rw} {m} 0 abc").into_bytes()
                ),
        ]
    }

    proptest! {
        #[test]
        fn parsers_never_panic(lines in proptest::collection::vec(any_line(), 1..6)) {
            let mut bytes = Vec::new();
            for l in &lines {
                bytes.extend_from_slice(l);
                bytes.push(b'\n');
            }
            for f in TraceFormat::ALL {
                for lenient in [false, true] {
                    let r = TraceReader::from_reader(bytes.as_slice(), "p", f, lenient);
                    for item in r {
                        if let Err(e) = item {
                            let msg = e.to_string();
                            prop_assert!(msg.starts_with("p:"), "{}", msg);
                            prop_assert!(!msg.contains('\n'));
                        }
                    }
                }
            }
            let _ = detect_format_reader(bytes.as_slice(), "p");
        }
    }
}
