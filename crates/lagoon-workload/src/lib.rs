//! Block I/O workloads for Lagoon.
//!
//! Everything a simulation consumes as host requests comes through here:
//! streamed trace readers for the common block-trace formats, trace statistics
//! (`lagoon trace stats`), a seeded synthetic generator, and named synthetic stand-ins
//! for the workloads of the Venice paper ([`presets`]: `syn:hm_0`, ..., `syn:mix1`; a
//! mix is several flows, see [`expand_workload`]). Readers never hold a trace in
//! memory: they yield one [`IoRequest`] per line.

pub mod error;
mod expand;
pub mod fit;
mod num;
pub mod presets;
pub mod stats;
pub mod synthetic;
pub mod trace;

pub use error::WorkloadError;

/// Direction of a block request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

/// One host block request, normalized from any trace format.
///
/// Times are raw trace timestamps converted to nanoseconds (not shifted to start at 0:
/// replay does that). Offsets and sizes are in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    pub arrival_ns: u64,
    pub offset_bytes: u64,
    pub size_bytes: u32,
    pub op: Op,
    /// Device / volume / disk number as recorded in the trace (0 when the format has none).
    pub device: u32,
}

pub use expand::expand_workload;
pub use presets::{
    mix_presets, msr_stand_ins, preset_names, trace_preset_names, trace_presets, MixPreset,
    TracePreset, PRESET_BURST,
};
pub use stats::{interarrival_cv2, TraceStats};
pub use synthetic::{SyntheticGenerator, SyntheticSpec};
pub use trace::{detect_format, open_trace, TraceFormat, TraceReader, MAX_LINE_BYTES};
