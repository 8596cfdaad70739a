//! SSD configuration: serde structs that reject unknown keys, presets shipped as TOML
//! files (`presets/*.toml`), and a geometry check that names the offending key.
//!
//! Every field has a documented unit in its name. Defaults are the `perf-optimized`
//! preset (Venice Table 1) so a user file only lists what it changes.

use serde::{Deserialize, Serialize};
use std::path::Path;

pub mod presets;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown SSD preset '{0}' (known presets: {1})")]
    UnknownPreset(String, String),
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("invalid configuration: {key} = {value}: {reason}")]
    Invalid {
        key: &'static str,
        value: String,
        reason: String,
    },
}

fn invalid(key: &'static str, value: impl ToString, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        key,
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// The whole drive.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SsdConfig {
    /// Free-form name shown in reports.
    pub name: String,
    pub host: HostInterfaceConfig,
    pub flash: FlashConfig,
    pub ftl: FtlConfig,
    pub cache: CacheConfig,
    pub precondition: PreconditionConfig,
    pub network: NetworkConfig,
    pub energy: EnergyConfig,
}

/// Networked back ends (pnSSD, NoSSD, Venice): the mesh of flash nodes and its links.
/// The chip array is laid out row-major on a `rows` × `cols` mesh (chip = channel ×
/// chips_per_channel + way); flash controller *i* attaches to the first router of row
/// *i* × rows / controllers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Mesh rows; 0 = `flash.channels` (Venice Table 1: 8 × 8).
    pub rows: u32,
    /// Mesh columns; 0 = `flash.chips_per_channel`.
    pub cols: u32,
    /// Flash controllers on the mesh edge; 0 = one per row.
    pub controllers: u32,
    /// Link width, bytes (Venice Table 1: 8-bit links).
    pub link_width_bytes: u32,
    /// Time to move one link width over one link, ns (Venice Table 1: 1 GHz).
    pub link_cycle_ns: f64,
    /// Router decision time per scout hop, in link cycles (a 1 GHz router deciding in one cycle).
    pub router_delay_cycles: u32,
    /// Scout packet length in flits (Venice §4.2, Fig. 6: header + tail).
    pub scout_flits: u32,
    /// Times a scout may visit one router before it must back off (Venice §4.3: 3).
    pub max_router_visits: u32,
    /// Bytes of a flash command with its address on a link (ONFI read: 00h, 5 address cycles, 30h).
    pub command_bytes: u32,
    /// When a Venice scout that came back in cancel mode is re-sent.
    pub scout_retry: ScoutRetry,
    /// NoSSD router input buffer per port, bytes (Venice §3.2: 16 KB); also the largest packet.
    pub nossd_buffer_bytes: u32,
    /// NoSSD link rate, MB/s; 0 = the flash channel rate (the chip's I/O pins).
    pub nossd_link_mb_s: f64,
    /// Simulator speed only: handle a scout's next hop at once when no other event can come
    /// first. Results are identical either way (tested).
    pub lookahead: bool,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ScoutRetry {
    /// At once (Venice §4.2, literally): under saturation a controller may send thousands of
    /// scouts into an unchanged network per transfer.
    Immediate,
    /// At once if a circuit was released since the failed scout left (or none is held), else
    /// at the next circuit release; and not at all while a bitset search finds no free path
    /// (counted as a failed scout). A failed scout's backtracking search tries every free link
    /// reachable from its controller, so a re-send before any circuit ends mostly fails again.
    /// Differs from `Immediate` in that futile scouts no longer block others (docs/MODEL.md).
    OnRelease,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        Self {
            rows: 0,
            cols: 0,
            controllers: 0,
            link_width_bytes: 1,
            link_cycle_ns: 1.0,
            router_delay_cycles: 1,
            scout_flits: 2,
            max_router_visits: 3,
            command_bytes: 7,
            scout_retry: ScoutRetry::OnRelease,
            nossd_buffer_bytes: 16384,
            nossd_link_mb_s: 0.0,
            lookahead: true,
        }
    }
}

/// NVMe over PCIe (MQSim-class host interface).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostInterfaceConfig {
    /// Per-lane PCIe bandwidth, GB/s (Gen4: ~2 GB/s, Venice Table 1 "8 GB/s, 4-lane Gen4").
    pub pcie_lane_gb_s: f64,
    pub pcie_lanes: u32,
    /// NVMe I/O submission queue depth per flow: at most this many of a flow's requests are
    /// inside the device at once; the rest wait in the host.
    pub io_queue_depth: u32,
    /// Most requests (over all flows) the controller holds at once; further submission
    /// queue entries wait to be fetched (MQSim's Queue_Fetch_Size).
    pub fetch_size: u32,
    /// Largest PCIe transaction-layer packet payload, bytes (PCIe 4.0 Max_Payload_Size 128 B).
    pub pcie_max_payload_bytes: u32,
    /// Per-packet overhead on the wire: TLP header, sequence number, LCRC and framing, bytes.
    pub pcie_packet_overhead_bytes: u32,
    /// NVMe submission queue entry size (NVMe spec: 64 B) fetched over PCIe per command.
    pub sqe_bytes: u32,
    /// NVMe completion queue entry size (NVMe spec: 16 B) posted over PCIe per command.
    pub cqe_bytes: u32,
}

/// Flash array geometry and timing.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlashConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    /// Array read time tR.
    pub read_ns: f64,
    /// Array program time tPROG.
    pub program_ns: f64,
    /// Block erase time tBERS.
    pub erase_ns: f64,
    /// Command (+address) transfer time on the flash interface; Venice §3.1: 10 ns.
    pub command_ns: f64,
    /// Flash channel I/O rate in MB/s (10^6 bytes/s); Venice Table 1: 1.2 GB/s.
    pub channel_mb_s: f64,
    /// Combine same-kind transactions to different planes of one die into one multi-plane
    /// operation (one command, one tR/tPROG, one data transfer per plane).
    pub multiplane: bool,
}

/// Static plane-allocation order (MQSim's CWDP family): which address bit-field varies fastest.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum AllocationScheme {
    CWDP,
    CWPD,
    CDWP,
    CDPW,
    CPWD,
    CPDW,
    WCDP,
    WCPD,
    WDCP,
    WDPC,
    WPCD,
    WPDC,
    DCWP,
    DCPW,
    DWCP,
    DWPC,
    DPCW,
    DPWC,
    PCWD,
    PCDW,
    PWCD,
    PWDC,
    PDCW,
    PDWC,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GcPolicy {
    /// Fewest valid pages (Venice §2 "least number of valid pages").
    Greedy,
    /// Uniformly random full block (a common baseline; seeded).
    Random,
    /// Oldest-written full block first (FIFO).
    Fifo,
}

/// Page-level mapping table placement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "lowercase")]
pub enum MappingConfig {
    /// The whole table always in controller DRAM: translation never touches flash.
    Ideal,
    /// Demand-based cached mapping table (DFTL / MQSim CMT): a miss reads the translation
    /// page from flash; evicting a dirty entry writes its translation page back.
    Demand {
        /// CMT capacity in bytes of controller DRAM.
        cmt_bytes: u64,
        /// Bytes per cached entry (LPA + PPA, 4 B each).
        entry_bytes: u32,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical pages hidden from the host.
    pub overprovisioning: f64,
    pub allocation: AllocationScheme,
    pub mapping: MappingConfig,
    /// Start GC in a plane when its free blocks drop below this fraction of its blocks.
    pub gc_threshold: f64,
    /// Below this fraction GC transactions take priority over user writes in that plane.
    pub gc_hard_threshold: f64,
    pub gc_policy: GcPolicy,
    /// false: GC transactions go before user I/O on their die (MQSim with preemptible GC
    /// off). true: GC yields to user I/O until its plane falls below `gc_hard_threshold`.
    pub gc_preemptible: bool,
    /// Move GC pages with on-chip copyback (no channel transfer) instead of read + write.
    pub copyback: bool,
    /// Bytes of one mapping entry in a flash translation page (sets entries per page).
    pub translation_entry_bytes: u32,
    /// How a die picks its next user transaction: `priority` (MQSim's out-of-order: reads
    /// before writes, any executable transaction in the queue) or `fifo` (user reads and
    /// writes in arrival order, the oldest first; a device that cannot reorder, for studying
    /// host schedulers such as PIQ).
    pub die_scheduling: DieScheduling,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DieScheduling {
    #[default]
    Priority,
    Fifo,
}

/// DRAM write-back data cache in the controller.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub enabled: bool,
    pub capacity_bytes: u64,
    /// DRAM access latency charged per cache access (row activate + CAS), ns.
    pub dram_access_ns: f64,
    /// DRAM bandwidth used to move request data in/out of the cache, MB/s.
    pub dram_mb_s: f64,
}

/// State of the drive before the measured run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Fraction of the logical space written (sequentially, plane by plane) before the run.
    pub occupancy: f64,
}

/// Energy and area model (Venice §5, §6.4, §6.6, Table 4, footnote 7); see [`crate::energy`].
/// Powers in mW, currents in mA, areas in mm² or in units of one shared flash channel's area.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    /// Flash supply voltage VCC, V (ONFI 3.3 V class parts).
    pub flash_vcc_v: f64,
    /// Array read current (ICC1) while a plane reads a page for tR, mA.
    pub read_current_ma: f64,
    /// Array program current (ICC2) while a plane programs a page for tPROG, mA.
    pub program_current_ma: f64,
    /// Array erase current (ICC3) while a block erases for tBERS, mA.
    pub erase_current_ma: f64,
    /// Power of a shared channel bus while it carries a transfer, mW (Venice §6.6: a link
    /// uses 90 % less power than a shared channel bus, so 10 × `link_mw`).
    pub bus_mw: f64,
    /// Power of a mesh link while it carries a transfer, mW (Venice Table 4: 1.08 mW).
    pub link_mw: f64,
    /// Power of one Venice router chip, always on, mW (Venice Table 4: 0.241 mW).
    pub router_mw: f64,
    /// Power of one NoSSD router (buffered, packet-switched, in the flash chip), always on, mW.
    pub nossd_router_mw: f64,
    /// Static power of the drive (controller, DRAM, PCIe, flash standby) over the whole run, mW.
    pub static_mw: f64,
    /// PCB area of one Venice router chip with its 40 I/O pads, mm² (Venice §6.6: 8 mm²).
    pub router_area_mm2: f64,
    /// Area of one flash chip, mm² (Venice §6.6: a typical 100 mm² NAND chip).
    pub flash_chip_area_mm2: f64,
    /// Area of one mesh link in units of one shared channel's area (Venice Table 4: 0.04).
    pub link_area_channels: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        Self {
            flash_vcc_v: 3.3,
            read_current_ma: 25.0,
            program_current_ma: 25.0,
            erase_current_ma: 25.0,
            bus_mw: 10.8,
            link_mw: 1.08,
            router_mw: 0.241,
            nossd_router_mw: 1.0,
            static_mw: 5000.0,
            router_area_mm2: 8.0,
            flash_chip_area_mm2: 100.0,
            link_area_channels: 0.04,
        }
    }
}

/// Defaults are the perf-optimized preset; `presets/perf-optimized.toml` is tested equal to them.
impl Default for SsdConfig {
    fn default() -> Self {
        Self {
            name: "perf-optimized".into(),
            host: Default::default(),
            flash: Default::default(),
            ftl: Default::default(),
            cache: Default::default(),
            precondition: Default::default(),
            network: Default::default(),
            energy: Default::default(),
        }
    }
}

impl Default for HostInterfaceConfig {
    fn default() -> Self {
        Self {
            pcie_lane_gb_s: 2.0,
            pcie_lanes: 4,
            io_queue_depth: 65535,
            fetch_size: 512,
            pcie_max_payload_bytes: 128,
            pcie_packet_overhead_bytes: 28,
            sqe_bytes: 64,
            cqe_bytes: 16,
        }
    }
}

impl Default for FlashConfig {
    fn default() -> Self {
        Self {
            channels: 8,
            chips_per_channel: 8,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 1024,
            pages_per_block: 768,
            page_bytes: 4096,
            read_ns: 3_000.0,
            program_ns: 100_000.0,
            erase_ns: 1_000_000.0,
            command_ns: 10.0,
            channel_mb_s: 1200.0,
            multiplane: true,
        }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        Self {
            overprovisioning: 0.127,
            allocation: AllocationScheme::CWDP,
            mapping: MappingConfig::Demand {
                cmt_bytes: 2 * 1024 * 1024,
                entry_bytes: 8,
            },
            gc_threshold: 0.05,
            gc_hard_threshold: 0.005,
            gc_policy: GcPolicy::Greedy,
            gc_preemptible: false,
            copyback: false,
            translation_entry_bytes: 8,
            die_scheduling: DieScheduling::Priority,
        }
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            capacity_bytes: 256 * 1024 * 1024,
            dram_access_ns: 26.0,
            dram_mb_s: 8000.0,
        }
    }
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        Self { occupancy: 0.7 }
    }
}

impl SsdConfig {
    /// A preset name (see [`presets::NAMES`]) or a path to a TOML file.
    pub fn load(spec: &str) -> Result<Self, ConfigError> {
        if let Some(c) = presets::by_name(spec) {
            return Ok(c);
        }
        let p = Path::new(spec);
        if spec.ends_with(".toml") || p.exists() {
            return Self::from_file(p);
        }
        Err(ConfigError::UnknownPreset(
            spec.to_string(),
            presets::NAMES.join(", "),
        ))
    }

    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// Parse TOML. A file may start from a preset with `base = "cost-optimized"`.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let perr = |m: String| ConfigError::Parse {
            path: origin.to_string(),
            message: m,
        };
        let mut value: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| perr(e.to_string()))?;
        let base = match value.remove("base") {
            None => presets::perf_optimized(),
            Some(toml::Value::String(b)) => presets::by_name(&b)
                .ok_or_else(|| ConfigError::UnknownPreset(b.clone(), presets::NAMES.join(", ")))?,
            Some(other) => {
                return Err(perr(format!(
                    "key 'base' must be a preset name, found {other}"
                )))
            }
        };
        // Overlay the user's table on the base preset so omitted keys keep the preset's values.
        let mut merged = toml::Table::try_from(&base).map_err(|e| perr(e.to_string()))?;
        overlay(&mut merged, value);
        let cfg: SsdConfig = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| perr(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reject impossible geometries and out-of-range fractions, naming the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let f = &self.flash;
        for (key, v) in [
            ("flash.channels", f.channels),
            ("flash.chips_per_channel", f.chips_per_channel),
            ("flash.dies_per_chip", f.dies_per_chip),
            ("flash.planes_per_die", f.planes_per_die),
            ("flash.blocks_per_plane", f.blocks_per_plane),
            ("flash.pages_per_block", f.pages_per_block),
            ("host.pcie_lanes", self.host.pcie_lanes),
            ("host.io_queue_depth", self.host.io_queue_depth),
            ("host.fetch_size", self.host.fetch_size),
            (
                "host.pcie_max_payload_bytes",
                self.host.pcie_max_payload_bytes,
            ),
        ] {
            if v == 0 {
                return Err(invalid(key, v, "must be at least 1"));
            }
        }
        if f.planes_per_die > 16 {
            return Err(invalid(
                "flash.planes_per_die",
                f.planes_per_die,
                "at most 16 planes per die are modelled",
            ));
        }
        if f.pages_per_block > 65_535 {
            return Err(invalid(
                "flash.pages_per_block",
                f.pages_per_block,
                "at most 65535",
            ));
        }
        if f.page_bytes < 512 || !f.page_bytes.is_multiple_of(512) || f.page_bytes > 32768 {
            return Err(invalid(
                "flash.page_bytes",
                f.page_bytes,
                "must be a multiple of 512 between 512 and 32768",
            ));
        }
        let pages = f.channels as u64
            * f.chips_per_channel as u64
            * f.dies_per_chip as u64
            * f.planes_per_die as u64
            * f.blocks_per_plane as u64
            * f.pages_per_block as u64;
        if pages >= u32::MAX as u64 / 2 {
            return Err(invalid(
                "flash (geometry)",
                pages,
                "more than 2^31 physical pages; use larger pages or fewer blocks",
            ));
        }
        for (key, v) in [
            ("flash.read_ns", f.read_ns),
            ("flash.program_ns", f.program_ns),
            ("flash.erase_ns", f.erase_ns),
            ("flash.command_ns", f.command_ns),
            ("cache.dram_access_ns", self.cache.dram_access_ns),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(invalid(key, v, "must be a finite time >= 0"));
            }
        }
        for (key, v) in [
            ("flash.channel_mb_s", f.channel_mb_s),
            ("host.pcie_lane_gb_s", self.host.pcie_lane_gb_s),
            ("cache.dram_mb_s", self.cache.dram_mb_s),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(invalid(key, v, "must be a finite rate > 0"));
            }
        }
        let ftl = &self.ftl;
        if !(0.0..0.9).contains(&ftl.overprovisioning) {
            return Err(invalid(
                "ftl.overprovisioning",
                ftl.overprovisioning,
                "must be in [0, 0.9)",
            ));
        }
        if !(0.0..=1.0).contains(&self.precondition.occupancy) {
            return Err(invalid(
                "precondition.occupancy",
                self.precondition.occupancy,
                "must be in [0, 1]",
            ));
        }
        // GC needs at least two free blocks per plane (user and GC write frontiers) to make progress.
        let gc_blocks = (ftl.gc_threshold * f.blocks_per_plane as f64).floor() as u64;
        if !(0.0..0.5).contains(&ftl.gc_threshold) || gc_blocks < 2 {
            return Err(invalid(
                "ftl.gc_threshold",
                ftl.gc_threshold,
                format!(
                    "must leave 2..{} blocks per plane (blocks_per_plane = {})",
                    f.blocks_per_plane / 2,
                    f.blocks_per_plane
                ),
            ));
        }
        if !(0.0..=ftl.gc_threshold).contains(&ftl.gc_hard_threshold) {
            return Err(invalid(
                "ftl.gc_hard_threshold",
                ftl.gc_hard_threshold,
                "must be in [0, gc_threshold]",
            ));
        }
        let logical_per_plane = ((f.blocks_per_plane as f64 * f.pages_per_block as f64)
            * (1.0 - ftl.overprovisioning)) as u64;
        let usable = (f.blocks_per_plane as u64 - gc_blocks - 1) * f.pages_per_block as u64;
        if logical_per_plane > usable {
            return Err(invalid(
                "ftl.overprovisioning",
                ftl.overprovisioning,
                format!("the logical space ({logical_per_plane} pages per plane) does not fit beside the GC reserve ({gc_blocks} blocks); raise it"),
            ));
        }
        if ftl.translation_entry_bytes == 0 || ftl.translation_entry_bytes > f.page_bytes {
            return Err(invalid(
                "ftl.translation_entry_bytes",
                ftl.translation_entry_bytes,
                "must be in 1..=page_bytes",
            ));
        }
        if let MappingConfig::Demand {
            cmt_bytes,
            entry_bytes,
        } = ftl.mapping
        {
            if entry_bytes == 0 || cmt_bytes < entry_bytes as u64 {
                return Err(invalid(
                    "ftl.mapping.cmt_bytes",
                    cmt_bytes,
                    "must hold at least one entry",
                ));
            }
        }
        let e = &self.energy;
        for (key, v) in [
            ("energy.flash_vcc_v", e.flash_vcc_v),
            ("energy.read_current_ma", e.read_current_ma),
            ("energy.program_current_ma", e.program_current_ma),
            ("energy.erase_current_ma", e.erase_current_ma),
            ("energy.bus_mw", e.bus_mw),
            ("energy.link_mw", e.link_mw),
            ("energy.router_mw", e.router_mw),
            ("energy.nossd_router_mw", e.nossd_router_mw),
            ("energy.static_mw", e.static_mw),
            ("energy.router_area_mm2", e.router_area_mm2),
            ("energy.link_area_channels", e.link_area_channels),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(invalid(key, v, "must be a finite value >= 0"));
            }
        }
        if !(e.flash_chip_area_mm2 > 0.0 && e.flash_chip_area_mm2.is_finite()) {
            return Err(invalid(
                "energy.flash_chip_area_mm2",
                e.flash_chip_area_mm2,
                "must be a finite area > 0",
            ));
        }
        if self.cache.enabled
            && self.cache.capacity_bytes < f.page_bytes as u64 * (f.planes_per_die as u64)
        {
            return Err(invalid(
                "cache.capacity_bytes",
                self.cache.capacity_bytes,
                "must hold at least one multi-plane page group",
            ));
        }
        Ok(())
    }
}

impl SsdConfig {
    /// Mesh rows and columns after defaults.
    pub fn mesh_dims(&self) -> (u32, u32) {
        let r = if self.network.rows == 0 {
            self.flash.channels
        } else {
            self.network.rows
        };
        let c = if self.network.cols == 0 {
            self.flash.chips_per_channel
        } else {
            self.network.cols
        };
        (r, c)
    }

    /// Flash controllers on the mesh after defaults.
    pub fn mesh_controllers(&self) -> u32 {
        if self.network.controllers == 0 {
            self.mesh_dims().0
        } else {
            self.network.controllers
        }
    }
}

fn overlay(base: &mut toml::Table, user: toml::Table) {
    for (k, v) in user {
        match (base.get_mut(&k), v) {
            // A tagged enum (e.g. ftl.mapping) is replaced whole when its type changes.
            (Some(toml::Value::Table(b)), toml::Value::Table(u))
                if !(u.contains_key("type") && b.get("type") != u.get("type")) =>
            {
                overlay(b, u)
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named() {
        let e = SsdConfig::from_toml("[flash]\nchanels = 4\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("my.toml") && e.contains("chanels"), "{e}");
    }

    #[test]
    fn overlay_keeps_preset_values() {
        let c = SsdConfig::from_toml(
            "base = \"cost-optimized\"\n[flash]\nchannels = 4\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(c.flash.channels, 4);
        assert_eq!(c.flash.page_bytes, 16384);
    }

    #[test]
    fn impossible_geometry_is_named() {
        let e = SsdConfig::from_toml("[flash]\nplanes_per_die = 0\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("flash.planes_per_die"), "{e}");
        let e = SsdConfig::from_toml("[ftl]\noverprovisioning = 0.0\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("ftl.overprovisioning"), "{e}");
    }

    #[test]
    fn energy_keys_parse_and_are_named_in_errors() {
        let c =
            SsdConfig::from_toml("[energy]\nlink_mw = 2.5\nstatic_mw = 0.0\n", "e.toml").unwrap();
        assert_eq!(c.energy.link_mw, 2.5);
        assert_eq!(c.energy.static_mw, 0.0);
        // Keys not given keep the preset's values.
        assert_eq!(c.energy.router_mw, 0.241);
        assert_eq!(c.energy.bus_mw, 10.8);
        let e = SsdConfig::from_toml("[energy]\nlink_mW = 2.5\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("e.toml") && e.contains("link_mW"), "{e}");
        let e = SsdConfig::from_toml("[energy]\nrouter_mw = -1.0\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("energy.router_mw"), "{e}");
        let e = SsdConfig::from_toml("[energy]\nflash_chip_area_mm2 = 0.0\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("energy.flash_chip_area_mm2"), "{e}");
    }

    #[test]
    fn unknown_preset_lists_known() {
        let e = SsdConfig::load("perf-optimised").unwrap_err().to_string();
        assert!(e.contains("perf-optimized"), "{e}");
    }
}
