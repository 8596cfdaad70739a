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

    /// The trace file could not be opened or read.
    #[error("{file}: {action}: {source}")]
    Io {
        file: String,
        /// What was being done, e.g. `cannot open trace` or `read error after line 12`.
        action: String,
        #[source]
        source: io::Error,
    },

    /// A `--format` name that is none of the supported formats.
    #[error(
        "unknown trace format `{0}` (expected one of: mqsim, msr, msr-ms, fiu, blkparse, umass)"
    )]
    UnknownFormat(String),

    /// The format of a trace could not be recognised from its first lines.
    #[error("{file}: cannot detect the trace format: {reason}; name it explicitly (mqsim, msr, msr-ms, fiu, blkparse, umass)")]
    UndetectedFormat { file: String, reason: String },

    /// A synthetic spec with a key that does not exist.
    #[error("synthetic spec: unknown key `{key}` (expected one of: read, size, addr, align, arrival, count, span)")]
    UnknownSpecKey { key: String },

    /// A `syn:<name>` spec whose name is neither a key nor a known workload preset.
    #[error("synthetic spec: unknown workload preset `{name}` (expected one of: {}; or key=value items)", crate::presets::preset_names().join(", "))]
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

impl WorkloadError {
    pub(crate) fn bad_value(key: &str, value: &str, reason: impl Into<String>) -> Self {
        WorkloadError::BadSpecValue {
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
