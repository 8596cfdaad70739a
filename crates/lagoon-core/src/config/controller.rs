//! `[controller]` and `[fnoc]`: the SSD controller's internals as contended resources and the
//! flash-controller network of the Decoupled SSD (Kim, Jung, Kim, ISCA 2023; SPEC §1.6).
//!
//! With `controller.enabled = false` (every preset before issue 12) the controller's system
//! bus, DRAM crossings and ECC take no time: results are those of Lagoon before it.

use super::schema::{int, key_error as invalid, real, Param, Range, Section};
use super::{ConfigError, RoutingKind, SsdConfig, Switching, TopologyKind};
use serde::{Deserialize, Serialize};

/// The architectural configurations of dSSD Table 2.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Design {
    /// Conventional SSD: GC pages go flash → FC → bus → DRAM → bus → FC → flash (§3, Fig. 1).
    #[default]
    Baseline,
    /// Baseline with the system bus × `onchip_bandwidth_scale` (Table 2 "BW").
    Bw,
    /// Decoupled controllers (§4.1) on BW's bus: GC pages go FC → system bus → FC (dBUF to
    /// dBUF), never through DRAM.
    Dssd,
    /// dSSD with a separate bus between flash controllers (Table 2 "dSSD_b"); system bus × 1.
    DssdB,
    /// dSSD with the flash-controller network-on-chip `[fnoc]` (Table 2 "dSSD_f", §4.2).
    DssdF,
}

impl Design {
    pub const ALL: [Design; 5] = [
        Design::Baseline,
        Design::Bw,
        Design::Dssd,
        Design::DssdB,
        Design::DssdF,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Design::Baseline => "baseline",
            Design::Bw => "bw",
            Design::Dssd => "dssd",
            Design::DssdB => "dssd_b",
            Design::DssdF => "dssd_f",
        }
    }
    pub fn from_name(s: &str) -> Option<Design> {
        Design::ALL.into_iter().find(|d| d.name() == s)
    }
    /// GC moves pages by global copyback (§4.2) rather than through DRAM.
    pub fn global_copyback(self) -> bool {
        matches!(self, Design::Dssd | Design::DssdB | Design::DssdF)
    }
    /// The system bus carries the extra on-chip bandwidth (§6.1: BW and dSSD).
    pub fn wide_bus(self) -> bool {
        matches!(self, Design::Bw | Design::Dssd)
    }
}

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The controller's front end (§2.1, Fig. 1): system bus, DRAM crossings and ECC engines.
/// DRAM bandwidth and access time are `cache.dram_mb_s` and `cache.dram_access_ns` (one DRAM).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerConfig {
    /// Model the system bus, DRAM crossings and ECC of every data movement. false: they take
    /// no time (Lagoon before issue 12).
    pub enabled: bool,
    /// Table 2 configuration: baseline | bw | dssd | dssd_b | dssd_f.
    pub design: Design,
    /// System bus bandwidth before scaling, MB/s (dSSD Table 1: 8 GB/s).
    pub system_bus_mb_s: f64,
    /// Time to win bus arbitration and start a burst, per grant, ns.
    pub system_bus_grant_ns: f64,
    /// Total on-chip bandwidth of BW, dSSD, dSSD_b and dSSD_f over Baseline's bus (§6.1: 1.25).
    pub onchip_bandwidth_scale: f64,
    /// ECC decode per page read, at the page's flash controller (one engine per FC), ns.
    pub ecc_ns_per_page: f64,
    /// dSSD_b's dedicated bus between flash controllers, MB/s.
    pub dedicated_bus_mb_s: f64,
    /// The source dBUF of an FC, bytes (§6.5: "two 32KB dBUFs", read as one per direction,
    /// a documented choice): global copyback pages read at this FC until they reach their
    /// destination FC; a GC read waits for room. At least two pages (one page can stall GC).
    pub dbuf_bytes: u32,
    /// The destination dBUF of an FC, bytes; 0 = unbounded (default). Pages arrived here
    /// until their program has moved them into the chip; a page leaves its source only with
    /// a slot reserved here. Bounded, GC can stall at high occupancy (slots held by pages
    /// whose programs wait for their plane's GC; the property test finds it), reported as
    /// an error, not a hang: docs/MODEL.md.
    pub dbuf_destination_bytes: u32,
    /// Charge the DRAM for reading out data it has just stored, on its way on (a write or
    /// conventional GC page to its program, a read-miss page to the host). false: SimpleSSD's
    /// accounting, the simulator of the paper (§6.1): its cache layer charges a DRAM access
    /// when a page is written into DRAM and when a host read hits, not when data is forwarded
    /// (icl/generic_cache.cc), so the DRAM is crossed once per page and the system bus twice.
    pub dram_forward_reads: bool,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            design: Design::Baseline,
            system_bus_mb_s: 8000.0,
            system_bus_grant_ns: 0.0,
            onchip_bandwidth_scale: 1.25,
            ecc_ns_per_page: 0.0,
            dedicated_bus_mb_s: 2000.0,
            dbuf_bytes: 32768,
            dbuf_destination_bytes: 0,
            dram_forward_reads: false,
        }
    }
}

impl Section for ControllerConfig {
    const NAME: &'static str = "controller";
    const PARAMS: &'static [Param<Self>] = &[
        real!(system_bus_mb_s, "MB/s", Range::real(1.0, 1e8)),
        real!(system_bus_grant_ns, "ns", Range::real(0.0, 1e6)),
        real!(onchip_bandwidth_scale, "x", Range::real(1.0, 64.0)),
        real!(ecc_ns_per_page, "ns", Range::real(0.0, 1e7)),
        real!(dedicated_bus_mb_s, "MB/s", Range::real(1.0, 1e8)),
        int!(dbuf_bytes, "bytes per FC", 1, 1 << 30),
        int!(
            dbuf_destination_bytes,
            "bytes per FC (0 = unbounded)",
            0,
            1 << 30
        ),
    ];
}

impl ControllerConfig {
    /// System bus bandwidth of the design, MB/s (Table 2).
    pub fn bus_mb_s(&self) -> f64 {
        if self.design.wide_bus() {
            self.system_bus_mb_s * self.onchip_bandwidth_scale
        } else {
            self.system_bus_mb_s
        }
    }
}

/// dSSD_f's flash-controller network (§4.1, §6.3, Table 1: 1D mesh, k = 8, dimension order),
/// built on the general network layer with one endpoint per flash controller.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FnocConfig {
    /// line (Table 1's 1D mesh) | ring | crossbar (Fig. 13); any topology of the layer.
    pub topology: TopologyKind,
    pub routing: RoutingKind,
    pub switching: Switching,
    pub vcs: u32,
    pub flit_bytes: u32,
    /// Largest packet, flits; a page and its header go as one message.
    pub packet_flits: u32,
    /// Router input / output buffer per port, bytes (Fig. 13(b)).
    pub input_buffer_bytes: u32,
    pub output_buffer_bytes: u32,
    /// Router channel (link) bandwidth per direction, MB/s (Fig. 12-13).
    pub link_mb_s: f64,
    /// Router pipeline delay, ns (rounded up to link byte-cycles).
    pub router_delay_ns: f64,
    pub link_latency_ns: f64,
    /// Command and packet header carried with each page (§4.2), bytes.
    pub header_bytes: u32,
}

impl Default for FnocConfig {
    fn default() -> Self {
        Self {
            topology: TopologyKind::Line,
            routing: RoutingKind::Dor,
            switching: Switching::Wormhole,
            vcs: 2,
            flit_bytes: 32,
            packet_flits: 1024,
            input_buffer_bytes: 512,
            output_buffer_bytes: 512,
            link_mb_s: 2000.0,
            router_delay_ns: 2.0,
            link_latency_ns: 1.0,
            header_bytes: 16,
        }
    }
}

impl Section for FnocConfig {
    const NAME: &'static str = "fnoc";
    const PARAMS: &'static [Param<Self>] = &[
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
        real!(link_mb_s, "MB/s", Range::real(1.0, 1e6)),
        real!(router_delay_ns, "ns", Range::real(0.0, 1e6)),
        real!(link_latency_ns, "ns", Range::real(0.0, 1e6)),
        int!(header_bytes, "bytes", 0, 4096),
    ];
}

impl SsdConfig {
    /// The drive seen by the fNoC: one "chip" endpoint per flash controller on a
    /// `flash.channels`-router topology, with `[fnoc]`'s router and links in `[network]`.
    /// Links are one byte wide at `link_mb_s`.
    pub fn fnoc_view(&self) -> SsdConfig {
        let f = &self.fnoc;
        let mut c = self.clone();
        c.controller.enabled = false;
        c.flash.chips_per_channel = 1;
        // A view of the links only: no flash scan runs on it.
        c.ftl.status_scan_blocks = 0;
        c.network.rows = 0;
        c.network.cols = 0;
        c.network.controllers = 0;
        c.network.topology = f.topology;
        c.network.routing = f.routing;
        c.network.switching = f.switching;
        c.network.vcs = f.vcs;
        c.network.flit_bytes = f.flit_bytes;
        c.network.packet_flits = f.packet_flits;
        c.network.input_buffer_bytes = f.input_buffer_bytes;
        c.network.output_buffer_bytes = f.output_buffer_bytes;
        c.network.link_width_bytes = 1;
        c.network.link_cycle_ns = 1e3 / f.link_mb_s;
        let cycle = c.network.link_cycle_ns;
        c.network.router_delay_cycles = (f.router_delay_ns / cycle).ceil() as u32;
        c.network.link_latency_ns = f.link_latency_ns;
        c.network.dims = Vec::new();
        c.network.custom_topology = String::new();
        c.network.controller_attach = super::ControllerAttach::Spread;
        c
    }

    /// `[controller]` and `[fnoc]` rules that tie keys together; the fNoC is checked as the
    /// network layer checks `[network]`, its errors renamed to `fnoc.*`.
    pub(super) fn check_controller(&self) -> Result<(), ConfigError> {
        let c = &self.controller;
        if c.enabled && c.design.global_copyback() && c.dbuf_bytes < 2 * self.flash.page_bytes {
            return Err(invalid(
                "controller.dbuf_bytes",
                c.dbuf_bytes,
                format!(
                    "must hold at least two pages of flash.page_bytes = {} (one page can stall GC)",
                    self.flash.page_bytes
                ),
            ));
        }
        if !self.controller.enabled || self.controller.design != Design::DssdF {
            return Ok(());
        }
        if self.fnoc.topology == TopologyKind::Custom {
            return Err(invalid(
                "fnoc.topology",
                self.fnoc.topology,
                "custom topologies are not provided for the fNoC",
            ));
        }
        let view = self.fnoc_view();
        let rename = |e: ConfigError| match e {
            ConfigError::Invalid { key, value, reason } => ConfigError::Invalid {
                key: key.replacen("network.", "fnoc.", 1),
                value,
                reason: reason.replace("network.", "fnoc."),
            },
            e => e,
        };
        view.check_network_layer().map_err(rename)
    }
}
