//! SSD configuration: serde structs that reject unknown keys, presets shipped as TOML
//! files (`presets/*.toml`), and a geometry check that names the offending key.
//!
//! Every field has a documented unit in its name. Defaults are the `perf-optimized`
//! preset (Venice Table 1) so a user file only lists what it changes.

use serde::{Deserialize, Serialize};
use std::path::Path;

pub mod controller;
pub mod network;
pub mod presets;
pub mod schema;
pub mod wear;

pub use controller::{ControllerConfig, Design, FnocConfig};
pub use network::{ControllerAttach, RoutingKind, Switching, TopologyKind};
pub use wear::{RbtPick, SuperblockMode, SuperblockWidth, WearConfig};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown SSD preset '{0}' (known presets: {1})")]
    UnknownPreset(String, String),
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    // The OS message is in the text, so it is not also a `source` (printed twice by `{:#}`).
    #[error("{path}: cannot read: {err}")]
    Io { path: String, err: std::io::Error },
    #[error("invalid configuration: {key} = {value}: {reason}")]
    Invalid {
        key: String,
        value: String,
        reason: String,
    },
}

use schema::{int, key_error as invalid, real, Param, Range, Section};

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
    /// The controller's system bus, DRAM and ECC as resources (dSSD; off by default).
    pub controller: ControllerConfig,
    /// dSSD_f's flash-controller network (used when `controller.design = "dssd_f"`).
    pub fnoc: FnocConfig,
    /// Block endurance and superblock management (lifetime mode; no effect on timed runs).
    pub wear: WearConfig,
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
    // The general network layer (`interconnect::network`, issue 11; MQSimNet Table I). Its
    // link is `link_width_bytes` wide at `link_cycle_ns`; a router's pipeline takes
    // `router_delay_cycles`. Keys below are unused by the pnssd, nossd and venice back ends.
    /// Topology (`config::network::TopologyKind`), sized from the flash array unless told.
    pub topology: TopologyKind,
    /// Routing function; not every one is provided on every topology (one error names both).
    pub routing: RoutingKind,
    /// Switching and flow control: circuit | saf | vct | wormhole.
    pub switching: Switching,
    /// Virtual channels per port (MQSimNet Table I: 2).
    pub vcs: u32,
    /// Flit size, bytes (MQSimNet Table I: 64 B).
    pub flit_bytes: u32,
    /// Largest packet, flits (MQSimNet Table I: 512); longer messages are cut into packets.
    pub packet_flits: u32,
    /// Input buffer per router port, bytes, split evenly over its VCs (MQSimNet Table I: 6 KB).
    pub input_buffer_bytes: u32,
    /// Output buffer per router port, bytes, split evenly over its VCs (MQSimNet Table I: 8 KB).
    /// 0: an input-queued router, the link taking flits straight from the input VC.
    pub output_buffer_bytes: u32,
    /// Propagation delay of a link (and of a credit coming back over it), ns (MQSimNet: 1 ns).
    pub link_latency_ns: f64,
    /// Routers per dimension for line / ring ([k]) and mesh3d ([x, y, z]); hypercube: [n] for
    /// 2^n routers. Empty: sized from the flash array (a 2D mesh or torus uses rows x cols).
    pub dims: Vec<u32>,
    /// Dragonfly routers per group, global links per router and endpoints per router; all 0
    /// = the smallest balanced dragonfly (a = 2p, h = p) holding every chip.
    pub dragonfly_a: u32,
    pub dragonfly_h: u32,
    pub dragonfly_p: u32,
    /// File of a custom topology (routers, links, attachments; `config::network::CustomTopology`).
    pub custom_topology: String,
    /// Where the flash controllers attach: edge (Venice: one per row, west edge) | spread.
    pub controller_attach: ControllerAttach,
}

/// Time limits: a flash or network time up to 10 s; rates from 1 MB/s (so no single
/// transfer of a 32 KB page overflows a run's picosecond clock).
const TIME_NS: Range = Range::real(0.0, 1e10);
const RATE_MB_S: Range = Range::real(1.0, 1e8);

impl Section for NetworkConfig {
    const NAME: &'static str = "network";
    const PARAMS: &'static [Param<Self>] = &[
        int!(rows, "routers, 0 = flash.channels", 0, 4096),
        int!(cols, "routers, 0 = flash.chips_per_channel", 0, 4096),
        int!(controllers, "0 = one per row", 0, 4096),
        int!(link_width_bytes, "bytes", 1, 1024),
        // A link cycle of at least 1 ps: the clock's resolution.
        real!(link_cycle_ns, "ns", Range::real(0.001, 1e6)),
        int!(router_delay_cycles, "link cycles", 0, 1_000_000),
        int!(scout_flits, "flits", 1, 1024),
        // Venice §4.3: 3; 0 would turn every scout back at its first router.
        int!(max_router_visits, "visits", 1, 255),
        int!(command_bytes, "bytes", 1, 4096),
        int!(nossd_buffer_bytes, "bytes", 64, 1 << 24),
        real!(
            nossd_link_mb_s,
            "MB/s, 0 = flash.channel_mb_s",
            Range::real(0.0, 1e8)
        ),
        int!(vcs, "virtual channels per port", 1, 64),
        int!(flit_bytes, "bytes", 1, 65_536),
        int!(packet_flits, "flits", 1, 1 << 20),
        int!(input_buffer_bytes, "bytes per port", 1, 1 << 24),
        int!(
            output_buffer_bytes,
            "bytes per port (0: an input-queued router)",
            0,
            1 << 24
        ),
        real!(link_latency_ns, "ns", Range::real(0.0, 1e6)),
        int!(dragonfly_a, "routers per group, 0 = sized", 0, 256),
        int!(dragonfly_h, "global links per router, 0 = sized", 0, 256),
        int!(dragonfly_p, "endpoints per router, 0 = sized", 0, 256),
    ];
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
            topology: TopologyKind::Mesh,
            routing: RoutingKind::Dor,
            switching: Switching::Wormhole,
            vcs: 2,
            flit_bytes: 64,
            packet_flits: 512,
            input_buffer_bytes: 6 * 1024,
            output_buffer_bytes: 8 * 1024,
            link_latency_ns: 1.0,
            dims: Vec::new(),
            dragonfly_a: 0,
            dragonfly_h: 0,
            dragonfly_p: 0,
            custom_topology: String::new(),
            controller_attach: ControllerAttach::Edge,
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

impl Section for HostInterfaceConfig {
    const NAME: &'static str = "host";
    const PARAMS: &'static [Param<Self>] = &[
        real!(pcie_lane_gb_s, "GB/s", Range::real(0.001, 1e5)),
        int!(pcie_lanes, "lanes", 1, 1024),
        // NVMe: at most 65,536 entries per queue.
        int!(io_queue_depth, "requests", 1, 65_536),
        int!(fetch_size, "requests", 1, 65_536),
        // PCIe Max_Payload_Size is at most 4096 B.
        int!(pcie_max_payload_bytes, "bytes", 1, 4096),
        int!(pcie_packet_overhead_bytes, "bytes", 0, 4096),
        int!(sqe_bytes, "bytes", 0, 4096),
        int!(cqe_bytes, "bytes", 0, 4096),
    ];
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
    /// How long a command (with its address cycles) occupies the flash interface.
    pub command_timing: CommandTiming,
    /// ONFI NV-DDR2 cycle times, used when `command_timing = "onfi"`.
    pub onfi: OnfiTiming,
    /// Which same-kind transactions on different planes of one die combine into one
    /// multi-plane operation (one command, one tR/tPROG, one data transfer per plane).
    pub multiplane: Multiplane,
    /// Which waiting transfer a shared channel serves when it frees.
    pub channel_arbitration: ChannelArbitration,
    /// tR by page type, ns: page offset in its block mod the list's length picks one (TLC
    /// LSB/CSB/MSB; dSSD Table 1 "read=60-95us"). Empty: `read_ns` for every page.
    /// `read_ns` stays the mean the energy model charges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_ns_by_page_type: Vec<f64>,
    /// tPROG by page type, ns, as `read_ns_by_page_type`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub program_ns_by_page_type: Vec<f64>,
}

impl Section for FlashConfig {
    const NAME: &'static str = "flash";
    const PARAMS: &'static [Param<Self>] = &[
        int!(channels, "", 1, 4096),
        int!(chips_per_channel, "", 1, 4096),
        int!(dies_per_chip, "", 1, 256),
        int!(planes_per_die, "", 1, 16),
        int!(blocks_per_plane, "", 1, 1 << 24),
        int!(pages_per_block, "", 1, 65_535),
        // A multiple of 512 is checked with the geometry.
        int!(page_bytes, "bytes", 512, 32_768),
        real!(read_ns, "ns", TIME_NS),
        real!(program_ns, "ns", TIME_NS),
        real!(erase_ns, "ns", TIME_NS),
        real!(command_ns, "ns", TIME_NS),
        real!(channel_mb_s, "MB/s", RATE_MB_S),
    ];
}

/// Command timing on the flash interface.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CommandTiming {
    /// Venice §3.1: every command takes `flash.command_ns` (10 ns), whatever its planes.
    #[default]
    Venice,
    /// ONFI NV-DDR2 cycles per command and plane count (`flash.onfi`), as MQSim times them
    /// (ONFI_Channel_NVDDR2): a read is 290 ns, a two-plane read 940 ns with its tDBSY.
    Onfi,
}

/// ONFI NV-DDR2 command cycle times, ns. Defaults are MQSim's (ONFI_Channel_NVDDR2.h), which
/// no MQSim XML key changes; ONFI 4.x gives them as maxima / minima of the interface.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OnfiTiming {
    /// CE setup before the first command cycle (tCS).
    pub t_cs_ns: f64,
    /// One command or address cycle (tWC).
    pub t_wc_ns: f64,
    /// WE high to busy, after each command's last cycle (tWB).
    pub t_wb_ns: f64,
    /// Ready to the first read data cycle (tRR), once per read command.
    pub t_rr_ns: f64,
    /// Address cycle to data loading, per program segment (tADL).
    pub t_adl_ns: f64,
    /// Command/address latch setup (tCALS), per extra program plane.
    pub t_cals_ns: f64,
    /// DQS write postamble (tWPST), per program segment.
    pub t_wpst_ns: f64,
    /// DQS write postamble hold (tWPSTH), once per program.
    pub t_wpsth_ns: f64,
    /// Dummy busy between the planes of a multi-plane command (tDBSY).
    pub t_dbsy_ns: f64,
}

impl Default for OnfiTiming {
    fn default() -> Self {
        Self {
            t_cs_ns: 20.0,
            t_wc_ns: 25.0,
            t_wb_ns: 100.0,
            t_rr_ns: 20.0,
            t_adl_ns: 70.0,
            t_cals_ns: 15.0,
            t_wpst_ns: 6.0,
            t_wpsth_ns: 15.0,
            t_dbsy_ns: 500.0,
        }
    }
}

impl Section for OnfiTiming {
    const NAME: &'static str = "flash.onfi";
    const PARAMS: &'static [Param<Self>] = &[
        real!(t_cs_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_wc_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_wb_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_rr_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_adl_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_cals_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_wpst_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_wpsth_ns, "ns", Range::real(0.0, 1e6)),
        real!(t_dbsy_ns, "ns", Range::real(0.0, 1e6)),
    ];
}

/// The multi-plane rule.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Multiplane {
    /// Only at the same page offset in their blocks (reads, programs) or the same block
    /// offset (erases): Venice §2 ("planes ... can concurrently operate only when accessing
    /// pages (or blocks) at the same offset"), and MQSim's rule.
    #[default]
    SameOffset,
    /// Any two reads or programs on different planes of a die (erases never combine);
    /// Lagoon's rule before it followed §2, kept to compare against.
    Any,
    /// Never: every transaction is a single-plane operation.
    Off,
}

/// The order in which a shared flash channel (`baseline`, `pssd`) serves the transfers waiting
/// for it. No paper states one; MQSim, which the Venice and MQSimNet authors used, serves
/// read data-outs first (docs/validation.md).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelArbitration {
    /// In the order the transfers became ready (ties in event order): commands, program data
    /// and read data-outs alike.
    Fifo,
    /// Read data-outs waiting for the channel first, in ready order; then commands and program
    /// data, in ready order. MQSim's PHY (`NVM_PHY_ONFI_NVDDR2::Execute_simulator_event`)
    /// hands a freed channel to waiting data-outs before it tells the scheduler the channel
    /// is idle, which is when new commands go out. The default (the Venice presets' simulator).
    #[default]
    DataOutFirst,
    /// Commands without data (reads', erases') first, then read data-outs, then programs (command
    /// and data), each in ready order: SSDsim's `process()` serves an idle channel's waiting
    /// read commands (`services_2_r_wait`), then read data-outs (`services_2_r_data_trans`),
    /// then writes (`services_2_write`); its GC (erases) goes before all three.
    CommandFirst,
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
    /// host schedulers such as PIQ) or `issue-order` (every queue, GC's included, in the
    /// order its oldest transaction was queued: no priority for GC or user I/O, as
    /// SimpleSSD's PAL books dies in issue order; GC still first on a plane below
    /// `gc_hard_threshold`).
    pub die_scheduling: DieScheduling,
    /// When a user write (not absorbed by the DRAM cache) completes to the host: after its
    /// program (`program`, MQSim) or as soon as its data has crossed the channel into the chip
    /// (`transfer`, SSDsim 2.1: the program runs on, the chip stays busy).
    pub write_completion: WriteCompletion,
    /// Where a user page write goes (MQSimNet §IV.A): `static` (the allocation scheme's
    /// plane), `chip` (die and plane index fixed, the first idle chip from the static one on)
    /// or `die` (plane index fixed, the first idle die from the static one on).
    pub dynamic_mapping: DynamicMapping,
    /// How GC work shares the dies with user I/O: `per-plane` (each plane collects when it
    /// falls below `gc_threshold`), `parallel` (PaGC: a plane starting GC starts it on every
    /// plane of its die that has a reclaimable block), `preemptive` (GC yields to user I/O
    /// until its plane is below `gc_hard_threshold`), `tiny-tail` (partial GC: a die with
    /// user I/O waiting runs at most `gc_partial_ops` GC operations before a user one).
    pub gc_mode: GcMode,
    /// `tiny-tail`: GC operations a die may run while user I/O waits, before serving one.
    pub gc_partial_ops: u32,
    /// Where GC writes a moved page: `same-plane` (its victim's plane) or `global` (dSSD §2.2,
    /// §3 "global free block selection": the plane with the fewest valid pages that has room
    /// short of its last free block, scanned from a rotating start; the victim's own if none).
    pub gc_destination: GcDestination,
    /// When a plane starts its next victim: `backlog` (whenever it is below `gc_threshold`:
    /// after each erase too, so a plane works off its deficit in one go) or `per-write`
    /// (SimpleSSD's GCReclaimBlocks = 1: one victim per host write that finds its plane below
    /// `gc_threshold`; an erase or an imported GC page starts the next only on a plane below
    /// `gc_hard_threshold` or too low for a user write).
    pub gc_pacing: GcPacing,
    /// With demand mapping, how a GC move updates the entry of its page when the entry is not
    /// in the CMT: `cmt-insert` (MQSim, `Allocate_new_page_for_gc`: the new entry goes into
    /// the CMT dirty, evicting one slot, whose translation page is written back if dirty) or
    /// `cached-only` (only a cached entry is marked dirty; an uncached one is updated at no
    /// cost, an idealization kept to compare with). A cached entry is marked dirty either way.
    pub gc_mapping_update: GcMappingUpdate,
    /// Static wear levelling (MQSim's `Static_Wearleveling_Threshold`, enabled at 100 in its
    /// configurations): after an erase in a plane that leaves no GC running, if the plane's
    /// most- and least-erased blocks differ by at least this many erases, its least-erased
    /// block is collected like a GC victim (valid pages moved, then erased), so cold data
    /// stops pinning young blocks; as in MQSim, the round is skipped while that block is
    /// free or open. 0: off.
    pub static_wl_threshold: u32,
    /// Software superblock management's wear-status scan (WAS [40] in the dSSD paper, §6.4,
    /// Fig. 14(c)): at the start of the run the FTL reads one page of each of this many blocks
    /// (block `i / planes` of plane `i % planes`, its first page) to update their error rates;
    /// the pages take the background (GC read) queues and, with the controller model, cross the
    /// system bus into DRAM like any page read. The decoupled SSD's hardware management reads
    /// none. 0: off.
    pub status_scan_blocks: u32,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcMappingUpdate {
    #[default]
    CmtInsert,
    CachedOnly,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcPacing {
    #[default]
    Backlog,
    PerWrite,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcMode {
    #[default]
    PerPlane,
    Parallel,
    Preemptive,
    TinyTail,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcDestination {
    #[default]
    SamePlane,
    Global,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DynamicMapping {
    #[default]
    Static,
    Chip,
    Die,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WriteCompletion {
    #[default]
    Program,
    Transfer,
}

impl Section for FtlConfig {
    const NAME: &'static str = "ftl";
    const PARAMS: &'static [Param<Self>] = &[
        real!(overprovisioning, "fraction", Range::real(0.0, 0.89)),
        real!(
            gc_threshold,
            "fraction of a plane's blocks",
            Range::above(0.0, 0.49)
        ),
        real!(
            gc_hard_threshold,
            "fraction of a plane's blocks",
            Range::real(0.0, 0.49)
        ),
        int!(translation_entry_bytes, "bytes", 1, 32_768),
        int!(gc_partial_ops, "GC operations", 1, 1_000_000),
        int!(static_wl_threshold, "erases", 0, 1_000_000),
        int!(status_scan_blocks, "blocks", 0, u32::MAX as u64),
    ];
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DieScheduling {
    #[default]
    Priority,
    Fifo,
    IssueOrder,
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

impl Section for CacheConfig {
    const NAME: &'static str = "cache";
    const PARAMS: &'static [Param<Self>] = &[
        // Allocated as it fills: a large value costs memory only for pages a run caches.
        int!(capacity_bytes, "bytes", 0, 1 << 40),
        real!(dram_access_ns, "ns", TIME_NS),
        real!(dram_mb_s, "MB/s", RATE_MB_S),
    ];
}

/// State of the drive before the measured run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Fraction of the logical space written (sequentially, plane by plane) before the run.
    pub occupancy: f64,
    /// `sequential`: the written pages fill the first blocks of each plane, all valid.
    /// `aged`: a steady state (dSSD §6.1: "SSD is fully utilized and some random fraction of
    /// the pages are invalidated"): every block but `free_blocks` per plane is full, holding
    /// the written pages and, beside them, invalid pages spread by `invalid_distribution`.
    pub mode: PreconditionMode,
    /// `aged`: free blocks left per plane; 0 = the GC threshold's count (GC starts when the
    /// first user write opens a block).
    pub free_blocks: u32,
    /// `aged`: how invalid pages spread over the full blocks: `uniform` (every page equally
    /// likely invalid: Binomial counts per block, the total exact; seeded) or `equal` (every
    /// block the same count, ±1).
    pub invalid_distribution: InvalidDistribution,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PreconditionMode {
    #[default]
    Sequential,
    Aged,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InvalidDistribution {
    #[default]
    Uniform,
    Equal,
}

impl Section for PreconditionConfig {
    const NAME: &'static str = "precondition";
    const PARAMS: &'static [Param<Self>] = &[
        real!(
            occupancy,
            "fraction of the logical space",
            Range::real(0.0, 1.0)
        ),
        int!(
            free_blocks,
            "blocks per plane, 0 = GC threshold",
            0,
            1 << 24
        ),
    ];
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

/// Energy and area constants: finite and non-negative (a zero switches a term off).
const ENERGY: Range = Range::real(0.0, 1e12);

impl Section for EnergyConfig {
    const NAME: &'static str = "energy";
    const PARAMS: &'static [Param<Self>] = &[
        real!(flash_vcc_v, "V", ENERGY),
        real!(read_current_ma, "mA", ENERGY),
        real!(program_current_ma, "mA", ENERGY),
        real!(erase_current_ma, "mA", ENERGY),
        real!(bus_mw, "mW", ENERGY),
        real!(link_mw, "mW", ENERGY),
        real!(router_mw, "mW", ENERGY),
        real!(nossd_router_mw, "mW", ENERGY),
        real!(static_mw, "mW", ENERGY),
        real!(router_area_mm2, "mm2", ENERGY),
        real!(flash_chip_area_mm2, "mm2", Range::above(0.0, 1e12)),
        real!(link_area_channels, "channel areas", ENERGY),
    ];
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
            controller: Default::default(),
            fnoc: Default::default(),
            wear: Default::default(),
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
            command_timing: CommandTiming::Venice,
            onfi: OnfiTiming::default(),
            multiplane: Multiplane::SameOffset,
            channel_arbitration: ChannelArbitration::DataOutFirst,
            read_ns_by_page_type: Vec::new(),
            program_ns_by_page_type: Vec::new(),
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
            write_completion: WriteCompletion::Program,
            dynamic_mapping: DynamicMapping::Static,
            gc_mode: GcMode::PerPlane,
            gc_partial_ops: 1,
            gc_destination: GcDestination::SamePlane,
            gc_pacing: GcPacing::Backlog,
            gc_mapping_update: GcMappingUpdate::CmtInsert,
            static_wl_threshold: 100,
            status_scan_blocks: 0,
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
        Self {
            occupancy: 0.7,
            mode: PreconditionMode::Sequential,
            free_blocks: 0,
            invalid_distribution: InvalidDistribution::Uniform,
        }
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

    /// Largest configuration file read.
    pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        use std::io::Read;
        let io = |err| ConfigError::Io {
            path: path.display().to_string(),
            err,
        };
        // Bounded: a config is a few KB; `--ssd /dev/zero` must not read forever.
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(Self::MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > Self::MAX_CONFIG_BYTES {
            return Err(ConfigError::Parse {
                path: path.display().to_string(),
                message: format!(
                    "larger than {} bytes; not a configuration file",
                    Self::MAX_CONFIG_BYTES
                ),
            });
        }
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

    /// Every key against its declared range ([`schema`]), then the rules that tie keys of
    /// several sections together; the first violation is returned, naming the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        schema::check_ranges(self)?;
        self.check_consistency()?;
        self.check_model_state()
    }

    fn check_consistency(&self) -> Result<(), ConfigError> {
        let f = &self.flash;
        if !f.page_bytes.is_multiple_of(512) {
            return Err(invalid(
                "flash.page_bytes",
                f.page_bytes,
                "must be a multiple of 512 between 512 and 32768",
            ));
        }
        for (key, v) in [
            ("flash.read_ns_by_page_type", &f.read_ns_by_page_type),
            ("flash.program_ns_by_page_type", &f.program_ns_by_page_type),
        ] {
            if v.len() > 8 {
                return Err(invalid(key, format!("{v:?}"), "at most 8 page types"));
            }
            if let Some(bad) = v
                .iter()
                .find(|&&t| TIME_NS.check(schema::Value::Real(t)).is_err())
            {
                return Err(invalid(
                    key,
                    bad,
                    format!("every entry must be a finite number in {TIME_NS} (ns)"),
                ));
            }
        }
        let pages = self.physical_pages();
        if pages >= u32::MAX as u64 / 2 {
            return Err(invalid(
                "flash (geometry)",
                pages,
                "more than 2^31 physical pages; use larger pages or fewer blocks",
            ));
        }
        let ftl = &self.ftl;
        let blocks = pages / f.pages_per_block as u64;
        if ftl.status_scan_blocks as u64 > blocks {
            return Err(invalid(
                "ftl.status_scan_blocks",
                ftl.status_scan_blocks,
                format!("more than the drive's {blocks} blocks (flash geometry)"),
            ));
        }
        // GC needs at least two free blocks per plane (user and GC write frontiers) to make progress.
        let gc_blocks = (ftl.gc_threshold * f.blocks_per_plane as f64).floor() as u64;
        if gc_blocks < 2 {
            return Err(invalid(
                "ftl.gc_threshold",
                ftl.gc_threshold,
                format!(
                    "ftl.gc_threshold x flash.blocks_per_plane ({}) must leave at least 2 blocks per plane for GC",
                    f.blocks_per_plane
                ),
            ));
        }
        if ftl.gc_hard_threshold > ftl.gc_threshold {
            return Err(invalid(
                "ftl.gc_hard_threshold",
                ftl.gc_hard_threshold,
                format!("must be in [0, ftl.gc_threshold = {}]", ftl.gc_threshold),
            ));
        }
        let logical_per_plane = ((f.blocks_per_plane as f64 * f.pages_per_block as f64)
            * (1.0 - ftl.overprovisioning)) as u64;
        let usable = (f.blocks_per_plane as u64 - gc_blocks - 1) * f.pages_per_block as u64;
        if logical_per_plane > usable {
            return Err(invalid(
                "ftl.overprovisioning",
                ftl.overprovisioning,
                format!("the logical space ({logical_per_plane} pages per plane of flash.blocks_per_plane x flash.pages_per_block) does not fit beside the GC reserve ({gc_blocks} blocks of ftl.gc_threshold); raise it"),
            ));
        }
        if ftl.translation_entry_bytes > f.page_bytes {
            return Err(invalid(
                "ftl.translation_entry_bytes",
                ftl.translation_entry_bytes,
                format!("must be in 1..=flash.page_bytes ({})", f.page_bytes),
            ));
        }
        if let MappingConfig::Demand {
            cmt_bytes,
            entry_bytes,
        } = ftl.mapping
        {
            if cmt_bytes < entry_bytes as u64 {
                return Err(invalid(
                    "ftl.mapping.cmt_bytes",
                    cmt_bytes,
                    format!("must hold at least one entry of {entry_bytes} bytes"),
                ));
            }
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
        // The networked back ends place chip c on router c and controller i on the first
        // router of row i × rows / controllers: the mesh must hold every chip, and each
        // controller needs a row of its own.
        let chips = f.channels as u64 * f.chips_per_channel as u64;
        let (rows, cols) = self.mesh_dims();
        let routers = rows as u64 * cols as u64;
        if routers < chips {
            return Err(invalid(
                "network.rows x network.cols",
                format!("{rows}x{cols}"),
                format!("{routers} routers but the flash array has {chips} chips (flash.channels x flash.chips_per_channel); the network needs a router per chip"),
            ));
        }
        if routers > 4 * chips.max(256) {
            return Err(invalid(
                "network.rows x network.cols",
                format!("{rows}x{cols}"),
                format!("{routers} routers for {chips} chips (flash.channels x flash.chips_per_channel); at most 4 routers per chip (or 1024 routers) are modelled"),
            ));
        }
        if self.mesh_controllers() > rows {
            return Err(invalid(
                "network.controllers",
                self.network.controllers,
                format!("at most one controller per mesh row ({rows} rows): controller i attaches to the first router of row i x rows / controllers"),
            ));
        }
        if self.network.nossd_buffer_bytes < self.network.command_bytes {
            return Err(invalid(
                "network.nossd_buffer_bytes",
                self.network.nossd_buffer_bytes,
                format!(
                    "must hold a command packet (network.command_bytes = {})",
                    self.network.command_bytes
                ),
            ));
        }
        if self.precondition.mode == PreconditionMode::Aged {
            let free = self.precondition.free_blocks as u64;
            if free > gc_blocks {
                return Err(invalid(
                    "precondition.free_blocks",
                    free,
                    format!("aged preconditioning leaves at most the GC threshold's {gc_blocks} free blocks per plane (ftl.gc_threshold x flash.blocks_per_plane)"),
                ));
            }
        }
        self.check_network_layer()?;
        self.check_controller()?;
        self.check_wear()
    }

    /// Physical pages of the flash array (each factor is bounded by the schema, so the
    /// product fits a `u64`).
    pub fn physical_pages(&self) -> u64 {
        let f = &self.flash;
        f.channels as u64
            * f.chips_per_channel as u64
            * f.dies_per_chip as u64
            * f.planes_per_die as u64
            * f.blocks_per_plane as u64
            * f.pages_per_block as u64
    }

    /// Up-front state the model allocates for this drive, bytes (a close upper estimate:
    /// per-block, per-plane and per-die tables, the translation directory and the mesh).
    /// Mapping entries and caches grow with what a run touches and are not counted, except
    /// under aged preconditioning, whose GC touches map chunks all over the logical space
    /// at once: there the whole mapping table is counted.
    pub fn model_state_bytes(&self) -> u64 {
        let aged_map = if self.precondition.mode == PreconditionMode::Aged {
            self.logical_pages() * 4
        } else {
            0
        };
        self.preallocated_state_bytes() + aged_map
    }

    /// Logical pages: the physical ones less the over-provisioning.
    pub fn logical_pages(&self) -> u64 {
        (self.physical_pages() as f64 * (1.0 - self.ftl.overprovisioning)) as u64
    }

    /// The state allocated before a run whatever it touches; what grows (map chunks,
    /// reverse maps, the CMT and the data cache) the simulator measures as it runs against
    /// [`schema::model_state_limit`].
    pub fn preallocated_state_bytes(&self) -> u64 {
        let f = &self.flash;
        let planes = f.channels as u64
            * f.chips_per_channel as u64
            * f.dies_per_chip as u64
            * f.planes_per_die as u64;
        let blocks = planes * f.blocks_per_plane as u64;
        let dies = planes / f.planes_per_die as u64;
        let entries = (f.page_bytes / self.ftl.translation_entry_bytes.max(1)).max(1) as u64;
        let (rows, cols) = self.mesh_dims();
        let routers = rows as u64 * cols as u64;
        // Aged preconditioning's per-block layout.
        let aged = if self.precondition.mode == PreconditionMode::Aged {
            blocks * 4
        } else {
            0
        };
        // Block record + free-list slot; plane allocator; die queues and state;
        // a translation-directory word per translation page; the L2P map's chunk table (a
        // pointer per chunk); router and link tables.
        let chunks = self.physical_pages() >> crate::ssd::ftl::mapping::CHUNK_BITS;
        blocks * (32 + 4)
            + planes * 64
            + dies * 256
            + self.physical_pages() / entries * 4
            + chunks * 8
            + routers * 256
            + aged
    }

    /// The mapping state when every page has been written: a 4-byte map entry per logical
    /// page and a 4-byte reverse-map entry per physical page. A timed run grows toward it as
    /// it writes; lifetime mode allocates it up front.
    pub fn full_map_bytes(&self) -> u64 {
        self.logical_pages() * 4 + self.physical_pages() * 4
    }

    fn check_model_state(&self) -> Result<(), ConfigError> {
        let need = self.model_state_bytes();
        let limit = schema::model_state_limit()?;
        if need > limit {
            return Err(invalid(
                "flash (geometry)",
                format!("{:.1} GB of model state", need as f64 / 1e9),
                format!(
                    "{}; use fewer channels, chips, dies, planes or blocks",
                    schema::over_state_limit(limit)
                ),
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
    fn every_listed_choice_parses_and_a_wrong_word_names_its_key() {
        let keys = SsdConfig::default().choice_keys();
        assert!(keys.len() >= 25, "{} choice keys", keys.len());
        for k in &keys {
            let (section, leaf) = k.key.rsplit_once('.').unwrap();
            for c in &k.choices {
                let text = format!("[{section}]\n{leaf} = \"{c}\"\n");
                // Some words need other keys (a custom topology its file): only a word the
                // parser rejects as a word is a wrong list.
                if let Err(e) = SsdConfig::from_toml(&text, "c.toml") {
                    assert!(
                        !e.to_string().contains("unknown variant"),
                        "{}: {c}: {e}",
                        k.key
                    );
                }
            }
            let bad = format!("[{section}]\n{leaf} = \"nonsense\"\n");
            let e = SsdConfig::from_toml(&bad, "c.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains("c.toml") && e.contains(leaf), "{}: {e}", k.key);
        }
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
