//! Flash array: geometry (chip → die → plane → block → page), physical addressing,
//! static plane allocation (MQSim's CWDP family) and array timing.
//!
//! Indices are flat: `chip = channel * chips_per_channel + way`, `die = chip * dies + d`,
//! `plane = die * planes + p`, and a physical page address (PPA) is
//! `plane * pages_per_plane + block * pages_per_block + page`, all `u32`.

use crate::config::{AllocationScheme, CommandTiming, FlashConfig};
use crate::time::{ns, Ps};

/// Flash array operation on a die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    Read,
    Program,
    Erase,
    /// On-chip copyback: read into the page register and program elsewhere in the same plane.
    Copyback,
}

#[derive(Clone, Debug)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub chips: u32,
    pub dies: u32,
    pub planes: u32,
    pub pages_per_plane: u32,
    pub total_pages: u64,
    /// Allocation dimension sizes in fastest-first order, and which dimension each is.
    order: [Dim; 4],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dim {
    Channel,
    Way,
    Die,
    Plane,
}

impl Geometry {
    pub fn new(f: &FlashConfig, scheme: AllocationScheme) -> Self {
        let chips = f.channels * f.chips_per_channel;
        let dies = chips * f.dies_per_chip;
        let planes = dies * f.planes_per_die;
        let pages_per_plane = f.blocks_per_plane * f.pages_per_block;
        let name = format!("{scheme:?}");
        let mut order = [Dim::Channel; 4];
        for (i, c) in name.chars().enumerate() {
            order[i] = match c {
                'C' => Dim::Channel,
                'W' => Dim::Way,
                'D' => Dim::Die,
                _ => Dim::Plane,
            };
        }
        Self {
            channels: f.channels,
            chips_per_channel: f.chips_per_channel,
            dies_per_chip: f.dies_per_chip,
            planes_per_die: f.planes_per_die,
            blocks_per_plane: f.blocks_per_plane,
            pages_per_block: f.pages_per_block,
            page_bytes: f.page_bytes,
            chips,
            dies,
            planes,
            pages_per_plane,
            total_pages: planes as u64 * pages_per_plane as u64,
            order,
        }
    }

    fn dim_size(&self, d: Dim) -> u32 {
        match d {
            Dim::Channel => self.channels,
            Dim::Way => self.chips_per_channel,
            Dim::Die => self.dies_per_chip,
            Dim::Plane => self.planes_per_die,
        }
    }

    /// Static allocation: the plane a logical page lives in, and its index within that plane.
    /// The first dimension of the scheme name varies fastest (CWDP: consecutive LPAs go to
    /// consecutive channels), as in MQSim's plane allocation schemes.
    #[inline]
    pub fn locate(&self, lpa: u64) -> (u32, u64) {
        let mut rem = lpa;
        let (mut ch, mut way, mut die, mut pl) = (0, 0, 0, 0);
        for d in self.order {
            let n = self.dim_size(d) as u64;
            // Dimensions are mostly powers of two: a mask and a shift, not a 64-bit division.
            let v = if n.is_power_of_two() {
                let v = (rem & (n - 1)) as u32;
                rem >>= n.trailing_zeros();
                v
            } else {
                let v = (rem % n) as u32;
                rem /= n;
                v
            };
            match d {
                Dim::Channel => ch = v,
                Dim::Way => way = v,
                Dim::Die => die = v,
                Dim::Plane => pl = v,
            }
        }
        let chip = ch * self.chips_per_channel + way;
        let plane = (chip * self.dies_per_chip + die) * self.planes_per_die + pl;
        (plane, rem)
    }

    /// Inverse of [`locate`](Self::locate).
    pub fn lpa_of(&self, plane: u32, index: u64) -> u64 {
        let pl = plane % self.planes_per_die;
        let die_g = plane / self.planes_per_die;
        let die = die_g % self.dies_per_chip;
        let chip = die_g / self.dies_per_chip;
        let (ch, way) = (chip / self.chips_per_channel, chip % self.chips_per_channel);
        let mut lpa = index;
        for d in self.order.iter().rev() {
            let v = match d {
                Dim::Channel => ch,
                Dim::Way => way,
                Dim::Die => die,
                Dim::Plane => pl,
            };
            lpa = lpa * self.dim_size(*d) as u64 + v as u64;
        }
        lpa
    }

    #[inline(always)]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.planes_per_die
    }
    #[inline(always)]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_chip
    }
    #[inline(always)]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        chip / self.chips_per_channel
    }
    #[inline(always)]
    pub fn plane_of_ppa(&self, ppa: u32) -> u32 {
        ppa / self.pages_per_plane
    }
    /// Block index within its plane.
    #[inline(always)]
    pub fn block_of_ppa(&self, ppa: u32) -> u32 {
        (ppa % self.pages_per_plane) / self.pages_per_block
    }
    #[inline(always)]
    pub fn ppa(&self, plane: u32, block: u32, page: u32) -> u32 {
        plane * self.pages_per_plane + block * self.pages_per_block + page
    }
}

/// ONFI NV-DDR2 command time of `op` on `n` planes, ns, as MQSim's ONFI_Channel_NVDDR2
/// computes it: a read is tCS + n·6·tWC + (n−1)·tDBSY + tWB + tRR (00h, 5 address cycles,
/// 30h per plane); a program tCS + (n−1)·(5·tWC + tADL + tWPST + tCALS + tWB + tDBSY) +
/// 6·tWC + tADL + tWPST + tWPSTH + tWB; an erase tCS + n·(4·tWC + tWB) + (n−1)·tDBSY;
/// a copyback its read command then its program command.
pub fn onfi_command_ns(f: &FlashConfig, op: FlashOp, n: u32) -> f64 {
    let o = &f.onfi;
    let n = n as f64;
    let read = o.t_cs_ns + n * 6.0 * o.t_wc_ns + (n - 1.0) * o.t_dbsy_ns + o.t_wb_ns + o.t_rr_ns;
    let program = o.t_cs_ns
        + (n - 1.0)
            * (5.0 * o.t_wc_ns + o.t_adl_ns + o.t_wpst_ns + o.t_cals_ns + o.t_wb_ns + o.t_dbsy_ns)
        + 6.0 * o.t_wc_ns
        + o.t_adl_ns
        + o.t_wpst_ns
        + o.t_wpsth_ns
        + o.t_wb_ns;
    match op {
        FlashOp::Read => read,
        FlashOp::Program => program,
        FlashOp::Erase => o.t_cs_ns + n * (4.0 * o.t_wc_ns + o.t_wb_ns) + (n - 1.0) * o.t_dbsy_ns,
        FlashOp::Copyback => read + program,
    }
}

/// Array timing of one die, in picoseconds.
#[derive(Clone, Copy, Debug)]
pub struct FlashTiming {
    pub read: Ps,
    pub program: Ps,
    pub erase: Ps,
    /// Command time of each operation on 1..=16 planes: `[op][planes - 1]`.
    commands: [[Ps; 16]; 4],
    /// Array times by page type (page offset in its block mod the list's length; TLC
    /// LSB/CSB/MSB, dSSD Table 1); empty: `read` / `program` for every page.
    read_types: PageTypes,
    program_types: PageTypes,
}

/// Up to 8 array times by page type (`n` = 0: none).
#[derive(Clone, Copy, Debug, Default)]
struct PageTypes {
    t: [Ps; 8],
    n: u8,
}

impl PageTypes {
    fn new(v: &[f64]) -> Self {
        let mut p = PageTypes::default();
        for (i, &x) in v.iter().take(8).enumerate() {
            p.t[i] = ns(x);
        }
        p.n = v.len().min(8) as u8;
        p
    }
    #[inline]
    fn at(&self, dflt: Ps, offset: u32) -> Ps {
        if self.n == 0 {
            dflt
        } else {
            self.t[offset as usize % self.n as usize]
        }
    }
}

impl FlashTiming {
    pub fn new(f: &FlashConfig) -> Self {
        let mut commands = [[0; 16]; 4];
        for (i, op) in [
            FlashOp::Read,
            FlashOp::Program,
            FlashOp::Erase,
            FlashOp::Copyback,
        ]
        .into_iter()
        .enumerate()
        {
            for n in 1..=16 {
                commands[i][n as usize - 1] = match f.command_timing {
                    CommandTiming::Venice => ns(f.command_ns),
                    CommandTiming::Onfi => ns(onfi_command_ns(f, op, n)),
                };
            }
        }
        Self {
            read: ns(f.read_ns),
            program: ns(f.program_ns),
            erase: ns(f.erase_ns),
            commands,
            read_types: PageTypes::new(&f.read_ns_by_page_type),
            program_types: PageTypes::new(&f.program_ns_by_page_type),
        }
    }

    /// Whether array times depend on the page (`flash.*_ns_by_page_type`).
    #[inline]
    pub fn by_page_type(&self) -> bool {
        self.read_types.n > 0 || self.program_types.n > 0
    }

    /// Array busy time of `op` on pages at these offsets in their blocks: the slowest page's
    /// (planes operate in parallel).
    pub fn array_time_at(&self, op: FlashOp, offsets: impl Iterator<Item = u32>) -> Ps {
        let mut t = 0;
        for o in offsets {
            let (r, p) = (
                self.read_types.at(self.read, o),
                self.program_types.at(self.program, o),
            );
            t = t.max(match op {
                FlashOp::Read => r,
                FlashOp::Program => p,
                FlashOp::Erase => self.erase,
                FlashOp::Copyback => r + p,
            });
        }
        t
    }

    /// Time the command of `op` on `planes` planes occupies the flash interface.
    #[inline]
    pub fn command_time(&self, op: FlashOp, planes: u32) -> Ps {
        self.commands[op as usize][planes as usize - 1]
    }

    /// Array busy time of one (possibly multi-plane) operation: planes operate in parallel.
    pub fn array_time(&self, op: FlashOp) -> Ps {
        match op {
            FlashOp::Read => self.read,
            FlashOp::Program => self.program,
            FlashOp::Erase => self.erase,
            FlashOp::Copyback => self.read + self.program,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FlashConfig;

    #[test]
    fn cwdp_stripes_channels_first() {
        let g = Geometry::new(&FlashConfig::default(), AllocationScheme::CWDP);
        // LPA 0..7 -> channels 0..7 (chip = channel * 8), way 0, plane 0
        for lpa in 0..8u64 {
            let (plane, idx) = g.locate(lpa);
            assert_eq!(plane, (lpa as u32 * 8) * 2);
            assert_eq!(idx, 0);
        }
        // LPA 8 -> channel 0, way 1
        assert_eq!(g.locate(8), (2, 0));
        // after 8*8 chips, the plane index advances
        assert_eq!(g.locate(64), (1, 0));
        assert_eq!(g.locate(128), (0, 1));
    }

    #[test]
    fn locate_inverts_for_every_scheme() {
        let f = FlashConfig {
            channels: 3,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            ..FlashConfig::default()
        };
        for scheme in [
            AllocationScheme::CWDP,
            AllocationScheme::PDWC,
            AllocationScheme::WCPD,
            AllocationScheme::DPCW,
        ] {
            let g = Geometry::new(&f, scheme);
            let mut seen = vec![0u32; g.planes as usize];
            for lpa in 0..1000u64 {
                let (plane, idx) = g.locate(lpa);
                assert_eq!(g.lpa_of(plane, idx), lpa, "{scheme:?}");
                seen[plane as usize] += 1;
            }
            // 1000 LPAs over 24 planes: every plane gets 41 or 42
            assert!(
                seen.iter().all(|&n| n == 41 || n == 42),
                "{scheme:?} {seen:?}"
            );
        }
    }
}
