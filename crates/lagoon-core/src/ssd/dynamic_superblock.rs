//! Dynamic superblocks in the decoupled flash controllers (Decoupled SSD §5, Fig. 5(c), 6),
//! transparent to the FTL: the FTL addresses sub-block `slot` of superblock `sb`; each flash
//! controller translates it through its superblock remapping table (SRT) and replaces a bad
//! sub-block by a block from its recycle block table (RBT).
//!
//! Layout: a superblock takes one block from each of `width` units (planes, dies or
//! channels, `wear.superblock_width`). The drive's planes are numbered channel-major
//! ([`crate::flash`]), so unit `slot` owns the `group` consecutive planes from
//! `slot * group`; superblock `sb` takes block `sb / group` of plane
//! `slot * group + sb % group` (§5.1: "the same block ID across multiple channels (or
//! planes)"). Physical blocks are numbered `plane * blocks_per_plane + block`.
//!
//! Lookup order for a replacement (our choice; §5.2 only says "a recycled block in the RBT"):
//! a block of the failed block's own plane (the superblock keeps its parallelism), else any
//! block of the controller's channel (two sub-blocks then share a plane: their programs
//! serialize, the cost Fig. 15 measures).

use crate::config::{RbtPick, SsdConfig, SuperblockMode, SuperblockWidth};
use crate::engine::NONE;

/// What the flash sees of the controllers' SRTs, for the timed simulator (Fig. 15): the
/// physical plane each (plane, block) the FTL addresses really lives on. Remaps stay on the
/// controller's channel, and a block keeps its page offsets, so the plane is all the timing
/// model needs: a command for a remapped block runs on that plane's die.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BlockRemap {
    blocks_per_plane: u32,
    /// `plane * blocks_per_plane + block` -> physical plane.
    plane: Vec<u32>,
}

impl BlockRemap {
    /// No block remapped.
    pub fn identity(planes: u32, blocks_per_plane: u32) -> Self {
        Self {
            blocks_per_plane,
            plane: (0..planes * blocks_per_plane)
                .map(|i| i / blocks_per_plane)
                .collect(),
        }
    }

    /// Remap block `block` of `plane` onto `to` (a plane of the same channel).
    pub fn set(&mut self, plane: u32, block: u32, to: u32) {
        self.plane[(plane * self.blocks_per_plane + block) as usize] = to;
    }

    /// The plane block `block` of `plane` is on.
    #[inline]
    pub fn plane(&self, plane: u32, block: u32) -> u32 {
        self.plane[(plane * self.blocks_per_plane + block) as usize]
    }

    pub fn planes(&self) -> u32 {
        self.plane.len() as u32 / self.blocks_per_plane
    }

    pub fn blocks_per_plane(&self) -> u32 {
        self.blocks_per_plane
    }

    /// Blocks not on their own plane.
    pub fn moved_blocks(&self) -> usize {
        self.plane
            .iter()
            .enumerate()
            .filter(|&(i, &p)| p != i as u32 / self.blocks_per_plane)
            .count()
    }
}

pub struct DynamicSuperblocks {
    mode: SuperblockMode,
    pick: RbtPick,
    pub width: u32,
    /// Planes per superblock unit.
    group: u32,
    blocks_per_plane: u32,
    planes_per_channel: u32,
    /// Superblocks the FTL sees.
    pub superblocks: u32,
    /// (sb * width + slot) -> physical block: the SRTs applied (home where no entry).
    map: Vec<u32>,
    /// SRT entries in use per controller, and the capacity of each.
    srt_used: Vec<u32>,
    srt_entries: u32,
    /// Recycled blocks per controller.
    rbt: Vec<Vec<u32>>,
    pub remaps: u64,
    /// Replacements refused because the controller's SRT was full / its RBT empty.
    pub srt_full: u64,
    pub rbt_empty: u64,
    /// Remaps that put a sub-block on a plane already holding one of its superblock.
    pub plane_conflicts: u64,
}

impl DynamicSuperblocks {
    pub fn new(cfg: &SsdConfig) -> Self {
        let f = &cfg.flash;
        let planes = f.channels * f.chips_per_channel * f.dies_per_chip * f.planes_per_die;
        let width = match cfg.wear.superblock_width {
            SuperblockWidth::Plane => planes,
            SuperblockWidth::Die => planes / f.planes_per_die,
            SuperblockWidth::Channel => f.channels,
        };
        let group = planes / width;
        let reserved = cfg.reserved_blocks_per_plane();
        let visible = f.blocks_per_plane - reserved;
        let superblocks = visible * group;
        let mut s = Self {
            mode: cfg.wear.superblock,
            pick: cfg.wear.rbt_pick,
            width,
            group,
            blocks_per_plane: f.blocks_per_plane,
            planes_per_channel: planes / f.channels,
            superblocks,
            map: Vec::with_capacity((superblocks * width) as usize),
            srt_used: vec![0; f.channels as usize],
            srt_entries: cfg.wear.srt_entries,
            rbt: vec![Vec::new(); f.channels as usize],
            remaps: 0,
            srt_full: 0,
            rbt_empty: 0,
            plane_conflicts: 0,
        };
        for sb in 0..superblocks {
            for slot in 0..width {
                let h = s.home(sb, slot);
                s.map.push(h);
            }
        }
        // §5.3: RESERV's blocks are in the RBT before any access, hidden from the FTL.
        for plane in 0..planes {
            for b in visible..f.blocks_per_plane {
                let pb = plane * f.blocks_per_plane + b;
                let c = s.controller_of(pb) as usize;
                s.rbt[c].push(pb);
            }
        }
        s
    }

    /// The block a sub-block has without remapping.
    #[inline]
    pub fn home(&self, sb: u32, slot: u32) -> u32 {
        let plane = slot * self.group + sb % self.group;
        plane * self.blocks_per_plane + sb / self.group
    }

    /// Physical block of sub-block `slot` of superblock `sb` (Fig. 5(c) remapping logic).
    #[inline]
    pub fn block(&self, sb: u32, slot: u32) -> u32 {
        self.map[(sb * self.width + slot) as usize]
    }

    #[inline]
    pub fn plane_of(&self, pb: u32) -> u32 {
        pb / self.blocks_per_plane
    }

    #[inline]
    pub fn controller_of(&self, pb: u32) -> u32 {
        self.plane_of(pb) / self.planes_per_channel
    }

    /// SRT entries in use per controller.
    pub fn srt_active(&self) -> &[u32] {
        &self.srt_used
    }

    /// Blocks waiting in the RBTs.
    pub fn rbt_blocks(&self) -> usize {
        self.rbt.iter().map(Vec::len).sum()
    }

    /// §5.2 ④-⑤: sub-block `slot` of `sb` went bad; take a recycled block from its
    /// controller's RBT and point the SRT at it. `None`: static superblocks, no recycled
    /// block, or a full SRT: the FTL must retire the superblock.
    pub fn replace(&mut self, sb: u32, slot: u32) -> Option<u32> {
        if self.mode == SuperblockMode::Static {
            return None;
        }
        let i = (sb * self.width + slot) as usize;
        let failed = self.map[i];
        let home = self.home(sb, slot);
        let c = self.controller_of(home) as usize;
        // A sub-block already remapped updates its entry; a new remap needs a free one.
        let new_entry = failed == home;
        if new_entry && self.srt_used[c] >= self.srt_entries {
            self.srt_full += 1;
            return None;
        }
        let plane = self.plane_of(failed);
        let bpp = self.blocks_per_plane;
        let rbt = &mut self.rbt[c];
        let same_plane = match self.pick {
            RbtPick::SamePlane => rbt.iter().rposition(|&b| b / bpp == plane),
            RbtPick::Newest => None,
        };
        let pick = same_plane.or_else(|| rbt.len().checked_sub(1));
        let Some(k) = pick else {
            self.rbt_empty += 1;
            return None;
        };
        let r = rbt.swap_remove(k);
        if self.plane_of(r) != plane {
            self.plane_conflicts += 1;
        }
        if new_entry {
            self.srt_used[c] += 1;
        }
        self.map[i] = r;
        self.remaps += 1;
        Some(r)
    }

    /// §5.2 ②: the FTL retired `sb`; its SRT entries are freed and, with dynamic
    /// superblocks, its sub-blocks that `good` accepts go to their controllers' RBTs.
    pub fn retire(&mut self, sb: u32, good: impl Fn(u32) -> bool) {
        for slot in 0..self.width {
            let i = (sb * self.width + slot) as usize;
            let pb = self.map[i];
            let home = self.home(sb, slot);
            if pb != home {
                let c = self.controller_of(home) as usize;
                self.srt_used[c] -= 1;
            }
            self.map[i] = NONE;
            if self.mode != SuperblockMode::Static && good(pb) {
                let c = self.controller_of(pb) as usize;
                self.rbt[c].push(pb);
            }
        }
    }

    /// Every physical block is in at most one live superblock or RBT, and a block stays
    /// on its controller's channel. `live(sb)`: the FTL still uses `sb`.
    pub fn check(&self, live: impl Fn(u32) -> bool) -> Result<(), String> {
        let mut owner = vec![NONE; self.physical_blocks()];
        for sb in 0..self.superblocks {
            if !live(sb) {
                continue;
            }
            for slot in 0..self.width {
                let pb = self.block(sb, slot);
                if pb == NONE {
                    return Err(format!("live superblock {sb} slot {slot} has no block"));
                }
                if self.controller_of(pb) != self.controller_of(self.home(sb, slot)) {
                    return Err(format!(
                        "superblock {sb} slot {slot}: block {pb} on another channel"
                    ));
                }
                if owner[pb as usize] != NONE {
                    return Err(format!(
                        "block {pb} in superblock {sb} and in {}",
                        owner[pb as usize]
                    ));
                }
                owner[pb as usize] = sb;
            }
        }
        for (c, r) in self.rbt.iter().enumerate() {
            for &pb in r {
                if owner[pb as usize] != NONE {
                    return Err(format!(
                        "block {pb} in RBT {c} and in superblock {}",
                        owner[pb as usize]
                    ));
                }
                if self.controller_of(pb) as usize != c {
                    return Err(format!("block {pb} in RBT {c} of another channel"));
                }
                owner[pb as usize] = u32::MAX - 1;
            }
        }
        let used: u32 = self.srt_used.iter().sum();
        let remapped = (0..self.superblocks)
            .filter(|&sb| live(sb))
            .flat_map(|sb| (0..self.width).map(move |s| (sb, s)))
            .filter(|&(sb, s)| self.block(sb, s) != self.home(sb, s))
            .count() as u32;
        if used != remapped {
            return Err(format!(
                "SRTs count {used} entries, {remapped} sub-blocks remapped"
            ));
        }
        Ok(())
    }

    /// The SRTs as the flash sees them: each live superblock's sub-blocks, addressed at
    /// their home (plane, block), on the plane of the block they are remapped to. Retired
    /// superblocks and RESERV's reserved blocks keep their own plane.
    pub fn block_remap(&self) -> BlockRemap {
        let planes = self.planes_per_channel * self.srt_used.len() as u32;
        let mut r = BlockRemap::identity(planes, self.blocks_per_plane);
        for sb in 0..self.superblocks {
            for slot in 0..self.width {
                let pb = self.block(sb, slot);
                if pb == NONE {
                    continue;
                }
                let home = self.home(sb, slot);
                r.set(
                    self.plane_of(home),
                    home % self.blocks_per_plane,
                    self.plane_of(pb),
                );
            }
        }
        r
    }

    /// Physical blocks of the drive (RESERV's included).
    pub fn physical_blocks(&self) -> usize {
        (self.planes_per_channel * self.srt_used.len() as u32 * self.blocks_per_plane) as usize
    }
}
