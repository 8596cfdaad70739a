//! `[precondition]`: the drive's state before the measured run.

use super::declare::section;
use super::schema::{word_keys, Range};
use serde::{Deserialize, Serialize};

section! {
    /// State of the drive before the measured run.
    pub struct PreconditionConfig = "precondition" {
        /// Fraction of the logical space written (sequentially, plane by plane) before the run
        /// (validation/mqsim: 70 % initial occupancy).
        occupancy: f64 = 0.7, "fraction of the logical space", Range::real(0.0, 1.0);
        /// `sequential`: the written pages fill the first blocks of each plane, all valid.
        /// `aged`: a steady state (dSSD §6.1: "SSD is fully utilized and some random fraction of
        /// the pages are invalidated"): every block but `free_blocks` per plane is full, holding
        /// the written pages and, beside them, invalid pages spread by `invalid_distribution`.
        /// `steady`: the state GC converges to under uniform random overwrites, reached by a
        /// functional warm-up of one plane of this geometry with this FTL's GC (policy,
        /// threshold) for `warmup_overwrites` writes per written page; each plane takes a
        /// snapshot of it at its own phase (MQSim derives the same state from a mean-field
        /// model instead, `FTL.cpp` 431-446).
        mode: PreconditionMode = PreconditionMode::Sequential;
        /// `aged`: free blocks left per plane; 0 = the GC threshold's count (GC starts when the
        /// first user write opens a block).
        free_blocks: u32 = 0, "blocks per plane, 0 = GC threshold", Range::int(0, 1 << 24);
        /// `aged`: how invalid pages spread over the full blocks: `uniform` (every page equally
        /// likely invalid: Binomial counts per block, the total exact; seeded) or `equal` (every
        /// block the same count, ±1).
        invalid_distribution: InvalidDistribution = InvalidDistribution::Uniform;
        /// `steady`: random overwrites per written page in the warm-up (write amplification has
        /// settled after about two; docs/validation.md).
        warmup_overwrites: f64 = 3.0, "writes per written page", Range::real(0.0, 100.0);
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PreconditionMode {
    Sequential,
    Aged,
    Steady,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum InvalidDistribution {
    Uniform,
    Equal,
}

word_keys!(PreconditionMode, InvalidDistribution);
