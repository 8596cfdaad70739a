//! `[wear]`: block endurance and superblock management over a drive's life (Decoupled SSD §5,
//! §6.4; SPEC §1.6). Used by the functional lifetime mode ([`crate::lifetime`]); the timed
//! simulator (`lagoon run`) does not wear blocks out (a run of seconds spends no P/E cycles
//! worth modelling), so every existing preset and report is unchanged by this section.

use super::declare::section;
use super::schema::{word_keys, Range};
use super::SsdConfig;
use serde::{Deserialize, Serialize};

/// How bad blocks are handled at superblock granularity.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SuperblockMode {
    /// §5.1 static superblocks: a superblock with a bad block is retired whole ("BASELINE",
    /// the name `lagoon lifetime --mode` and the figures use, accepted here too).
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
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SuperblockWidth {
    /// One block from every plane of the drive (§5.1: "the same block ID across multiple
    /// channels (or planes)").
    Plane,
    /// One block from every die.
    Die,
    /// One block from every channel (Fig. 5(a)'s picture).
    Channel,
}

/// Which recycled block of its RBT a controller gives a failed sub-block (§5.2 says only
/// "a recycled block in the RBT").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RbtPick {
    /// A block of the failed block's own plane if there is one (the superblock keeps its
    /// parallelism), else the newest of the channel's.
    SamePlane,
    /// The newest recycled block of the channel, whatever its plane (a plain table, blind
    /// to parallelism: two sub-blocks may then share a plane, Fig. 15).
    Newest,
}

word_keys!(SuperblockMode, SuperblockWidth, RbtPick);

impl RbtPick {
    pub const ALL: [RbtPick; 2] = [Self::SamePlane, Self::Newest];
    pub fn name(self) -> &'static str {
        match self {
            Self::SamePlane => "same-plane",
            Self::Newest => "newest",
        }
    }
}

section! {
    /// Block endurance and superblock management over a drive's life (lifetime mode).
    pub struct WearConfig = "wear" {
        /// Mean P/E cycles a block endures (§6.4 from its ref. [40]: E(x) = 5578).
        pe_mean: f64 = 5578.0, "P/E cycles", Range::real(1.0, 1e7);
        /// Standard deviation of the per-block P/E limit (§6.4: sigma = 826.9); 0 = every block
        /// dies at exactly `pe_mean`.
        pe_sigma: f64 = 826.9, "P/E cycles", Range::real(0.0, 1e7);
        /// baseline (static) | recycled | reserv.
        superblock: SuperblockMode = SuperblockMode::Static;
        /// Which unit contributes one block to a superblock: plane | die | channel.
        superblock_width: SuperblockWidth = SuperblockWidth::Plane;
        /// SRT entries per flash controller (§6.5: saturates around 1k); a full SRT retires.
        srt_entries: u32 = 1024, "entries per flash controller", Range::int(0, 1 << 24);
        /// RESERV: fraction of blocks held in the RBT from the start, hidden from the FTL (§6.4: 7 %).
        reserve_fraction: f64 = 0.07, "fraction of blocks", Range::real(0.0, 0.5);
        /// same-plane | newest: the recycled block a remap takes.
        rbt_pick: RbtPick = RbtPick::SamePlane;
    }
}

impl SsdConfig {
    /// Blocks per plane RESERV keeps in the RBT (0 in the other modes).
    pub fn reserved_blocks_per_plane(&self) -> u32 {
        if self.wear.superblock != SuperblockMode::Reserv {
            return 0;
        }
        (self.wear.reserve_fraction * self.flash.blocks_per_plane as f64).round() as u32
    }
}
