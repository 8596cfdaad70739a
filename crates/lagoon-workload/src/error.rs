//! The one error type of this crate.
//!
//! Every variant renders as a single line that names what went wrong and where:
//! a malformed trace line reads `path:line: message` (line numbers are 1-based),
//! a bad synthetic spec names the offending key and value.

use std::io;

/// Everything that can go wrong while reading a trace or building a workload.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A trace line that does not follow its format (also zero-size requests).
    #[error("{file}:{line}: {message}")]
    Malformed {
        file: String,
        /// 1-based line number.
        line: u64,
        message: String,
    },

    /// Input whose first block is not text (see [`crate::trace::SNIFF_BYTES`]): a
    /// compressed or binary file, `/dev/zero`, UTF-16 text. Reported as at line 1.
    #[error("{file}:1: looks like binary data, not a text trace ({non_text} of the first {sampled} bytes are NUL, control characters or invalid UTF-8); decompress or convert it to text first")]
    Binary {
        file: String,
        /// Bytes of the sampled block that are not text.
        non_text: usize,
        /// Bytes sampled.
        sampled: usize,
    },

    /// Lenient mode gave up skipping lines longer than [`crate::trace::MAX_LINE_BYTES`]:
    /// more than [`crate::trace::MAX_OVERLONG_RUN_BYTES`] of them in a row, so the input
    /// is not a line-oriented text trace (a file without line breaks, an endless stream).
    #[error("{file}:{line}: gave up after {bytes} bytes of over-long lines in a row (each longer than {max} bytes): not a line-oriented text trace", max = crate::trace::MAX_LINE_BYTES)]
    OverlongLines {
        file: String,
        /// 1-based number of the line being skipped when reading stopped.
        line: u64,
        /// Bytes of over-long lines consumed in the run.
        bytes: u64,
    },

    /// A trace that yielded no request at all (empty, only blank, comment or header lines,
    /// or, in lenient mode, every request line skipped as malformed).
    #[error("{file}: {}", no_requests(*lines, *skipped, *zero_size))]
    NoRequests {
        file: String,
        /// Lines read.
        lines: u64,
        /// Of them, lines skipped as malformed in lenient mode (0 in strict mode).
        skipped: u64,
        /// Of the skipped lines, those skipped only because the request had size 0.
        zero_size: u64,
    },

    /// A trace read for one device (`--device`) that has requests, but none of that device.
    #[error("{file}: no requests of device {device} ({others} requests of other devices; `lagoon trace stats --devices` lists them)")]
    NoDeviceRequests {
        file: String,
        device: u32,
        /// Requests of other devices passed over.
        others: u64,
    },

    /// The trace file could not be opened or read.
    // The OS message is in the text, so it is not also a `source` (printed twice by `{:#}`).
    #[error("{file}: {action}: {err}")]
    Io {
        file: String,
        /// What was being done, e.g. `cannot open trace` or `read error after line 12`.
        action: String,
        err: io::Error,
    },

    /// A `--format` name that is none of the supported formats.
    #[error("unknown trace format `{0}` (expected one of: {names})", names = crate::trace::TraceFormat::names())]
    UnknownFormat(String),

    /// The format of a trace could not be recognised from its first lines.
    #[error(
        "{file}: cannot detect the trace format: {reason}; name it with --format ({})",
        crate::trace::TraceFormat::names()
    )]
    UndetectedFormat { file: String, reason: String },

    /// A synthetic spec with a key that does not exist.
    #[error("synthetic spec: unknown key `{key}` (expected one of: read, size, addr, align, arrival, count, span, runs)")]
    UnknownSpecKey { key: String },

    /// A `syn:<name>` spec whose name is neither a key nor a known workload preset.
    #[error("synthetic spec: unknown workload preset `{name}` (expected one of: {}; or key=value items)", crate::presets::trace_preset_names().chain(crate::presets::mix_presets().iter().map(|m| m.name)).collect::<Vec<_>>().join(", "))]
    UnknownPreset { name: String },

    /// A synthetic spec key with a value that cannot be used.
    #[error("synthetic spec: bad value `{value}` for `{key}`: {reason}")]
    BadSpecValue {
        key: String,
        value: String,
        reason: String,
    },

    /// A synthetic spec that is not of the form `syn:key=value,...`.
    #[error("synthetic spec `{spec}`: {reason}")]
    BadSpec { spec: String, reason: String },
}

fn no_requests(lines: u64, skipped: u64, zero_size: u64) -> String {
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    if lines == 0 {
        return "no requests: the trace is empty".to_string();
    }
    let why = match (skipped, zero_size) {
        (0, _) => "only blank, comment, header or other non-request lines".to_string(),
        (s, 0) => format!("{} skipped as malformed in lenient mode", plural(s, "line")),
        (s, z) => format!(
            "{} skipped as malformed in lenient mode, {z} of them zero-size",
            plural(s, "line")
        ),
    };
    format!("no requests in {} ({why})", plural(lines, "line"))
}

impl WorkloadError {
    pub(crate) fn bad_value(key: &str, value: &str, reason: impl Into<String>) -> Self {
        WorkloadError::BadSpecValue {
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
