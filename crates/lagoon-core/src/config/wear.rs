//! `[wear]`: block endurance and superblock management over a drive's life (Decoupled SSD §5,
//! §6.4; SPEC §1.6). Used by the functional lifetime mode ([`crate::lifetime`]); the timed
//! simulator (`lagoon run`) does not wear blocks out (a run of seconds spends no P/E cycles
//! worth modelling), so every existing preset and report is unchanged by this section.

use super::schema::{int, key_error as invalid, real, Param, Range, Section};
use super::{ConfigError, SsdConfig};
use serde::{Deserialize, Serialize};

/// How bad blocks are handled at superblock granularity.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SuperblockMode {
    /// §5.1 static superblocks: a superblock with a bad block is retired whole ("BASELINE",
    /// the name `lagoon lifetime --mode` and the figures use, accepted here too).
    #[default]
    #[serde(alias = "baseline")]
    Static,
    /// §5.1-5.2 RECYCLED: the flash controller replaces a bad sub-block by a good block of a
    /// dead superblock (RBT) and remaps it (SRT), transparent to the FTL.
    Recycled,
    /// §5.3 RESERV: RECYCLED with `reserve_fraction` of the blocks in the RBT from the start.
    Reserv,
}

impl SuperblockMode {
    pub const ALL: [SuperblockMode; 3] = [Self::Static, Self::Recycled, Self::Reserv];
    pub fn name(self) -> &'static str {
        match self {
            Self::Static => "baseline",
            Self::Recycled => "recycled",
            Self::Reserv => "reserv",
        }
    }
}

impl std::fmt::Display for SuperblockMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which unit contributes one block to a superblock.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SuperblockWidth {
    /// One block from every plane of the drive (§5.1: "the same block ID across multiple
    /// channels (or planes)").
    #[default]
    Plane,
    /// One block from every die.
    Die,
    /// One block from every channel (Fig. 5(a)'s picture).
    Channel,
}

/// Which recycled block of its RBT a controller gives a failed sub-block (§5.2 says only
/// "a recycled block in the RBT").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RbtPick {
    /// A block of the failed block's own plane if there is one (the superblock keeps its
    /// parallelism), else the newest of the channel's.
    #[default]
    SamePlane,
    /// The newest recycled block of the channel, whatever its plane (a plain table, blind
    /// to parallelism: two sub-blocks may then share a plane, Fig. 15).
    Newest,
}

impl RbtPick {
    pub const ALL: [RbtPick; 2] = [Self::SamePlane, Self::Newest];
    pub fn name(self) -> &'static str {
        match self {
            Self::SamePlane => "same-plane",
            Self::Newest => "newest",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WearConfig {
    /// Mean P/E cycles a block endures (§6.4 from its ref. [40]: E(x) = 5578).
    pub pe_mean: f64,
    /// Standard deviation of the per-block P/E limit (§6.4: sigma = 826.9); 0 = every block
    /// dies at exactly `pe_mean`.
    pub pe_sigma: f64,
    /// baseline (static) | recycled | reserv.
    pub superblock: SuperblockMode,
    pub superblock_width: SuperblockWidth,
    /// SRT entries per flash controller (§6.5: saturates around 1k); a full SRT retires.
    pub srt_entries: u32,
    /// RESERV: fraction of blocks held in the RBT from the start, hidden from the FTL (§6.4: 7 %).
    pub reserve_fraction: f64,
    /// same-plane | newest: the recycled block a remap takes.
    pub rbt_pick: RbtPick,
}

impl Default for WearConfig {
    fn default() -> Self {
        Self {
            pe_mean: 5578.0,
            pe_sigma: 826.9,
            superblock: SuperblockMode::Static,
            superblock_width: SuperblockWidth::Plane,
            srt_entries: 1024,
            reserve_fraction: 0.07,
            rbt_pick: RbtPick::SamePlane,
        }
    }
}

impl Section for WearConfig {
    const NAME: &'static str = "wear";
    const PARAMS: &'static [Param<Self>] = &[
        real!(pe_mean, "P/E cycles", Range::real(1.0, 1e7)),
        real!(pe_sigma, "P/E cycles", Range::real(0.0, 1e7)),
        int!(srt_entries, "entries per flash controller", 0, 1 << 24),
        real!(
            reserve_fraction,
            "fraction of blocks",
            Range::real(0.0, 0.5)
        ),
    ];
}

impl SsdConfig {
    /// Blocks per plane RESERV keeps in the RBT (0 in the other modes).
    pub fn reserved_blocks_per_plane(&self) -> u32 {
        if self.wear.superblock != SuperblockMode::Reserv {
            return 0;
        }
        (self.wear.reserve_fraction * self.flash.blocks_per_plane as f64).round() as u32
    }

    /// `[wear]` rules that tie keys together.
    pub(super) fn check_wear(&self) -> Result<(), ConfigError> {
        let r = self.reserved_blocks_per_plane();
        // The FTL needs superblocks for data, a user and a GC frontier, and its GC reserve.
        if self.flash.blocks_per_plane.saturating_sub(r) < 4 {
            return Err(invalid(
                "wear.reserve_fraction",
                self.wear.reserve_fraction,
                format!(
                    "leaves fewer than 4 of flash.blocks_per_plane ({}) to the FTL",
                    self.flash.blocks_per_plane
                ),
            ));
        }
        Ok(())
    }
}
