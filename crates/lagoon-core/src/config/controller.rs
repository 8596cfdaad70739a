//! `[controller]` and `[fnoc]`: the SSD controller's internals as contended resources and the
//! flash-controller network of the Decoupled SSD (Kim, Jung, Kim, ISCA 2023; SPEC §1.6).
//!
//! With `controller.enabled = false` (every preset before issue 12) the controller's system
//! bus, DRAM crossings and ECC take no time: results are those of Lagoon before it.

use super::declare::section;
use super::network::router;
use super::schema::{word_keys, Range};
use super::{RoutingKind, SsdConfig, Switching, TopologyKind};
use serde::{Deserialize, Serialize};

/// The architectural configurations of dSSD Table 2.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Design {
    /// Conventional SSD: GC pages go flash → FC → bus → DRAM → bus → FC → flash (§3, Fig. 1).
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

word_keys!(Design);

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

section! {
    /// The controller's front end (§2.1, Fig. 1): system bus, DRAM crossings and ECC engines.
    /// DRAM bandwidth and access time are `cache.dram_mb_s` and `cache.dram_access_ns` (one DRAM).
    pub struct ControllerConfig = "controller" {
        /// Model the system bus, DRAM crossings and ECC of every data movement. false: they take
        /// no time (Lagoon before issue 12).
        enabled: bool = false;
        /// Table 2 configuration: baseline | bw | dssd | dssd_b | dssd_f.
        design: Design = Design::Baseline;
        /// System bus bandwidth before scaling, MB/s (dSSD Table 1: 8 GB/s).
        system_bus_mb_s: f64 = 8000.0, "MB/s", Range::real(1.0, 1e8);
        /// Time to win bus arbitration and start a burst, per grant, ns (dSSD is silent).
        system_bus_grant_ns: f64 = 0.0, "ns", Range::real(0.0, 1e6);
        /// Total on-chip bandwidth of BW, dSSD, dSSD_b and dSSD_f over Baseline's bus (§6.1: 1.25).
        onchip_bandwidth_scale: f64 = 1.25, "x", Range::real(1.0, 64.0);
        /// ECC decode per page read, at the page's flash controller (one engine per FC), ns
        /// (dSSD is silent).
        ecc_ns_per_page: f64 = 0.0, "ns", Range::real(0.0, 1e7);
        /// dSSD_b's dedicated bus between flash controllers, MB/s (the extra 0.25 x 8 GB/s).
        dedicated_bus_mb_s: f64 = 2000.0, "MB/s", Range::real(1.0, 1e8);
        /// The source dBUF of an FC, bytes (§6.5: "two 32KB dBUFs", read as one per direction,
        /// a documented choice): global copyback pages read at this FC until they reach their
        /// destination FC; a GC read waits for room. At least two pages (one page can stall GC).
        dbuf_bytes: u32 = 32768, "bytes per FC", Range::int(1, 1 << 30);
        /// The destination dBUF of an FC, bytes; 0 = unbounded (default). Pages arrived here
        /// until their program has moved them into the chip; a page leaves its source only with
        /// a slot reserved here. Bounded, GC can stall at high occupancy (slots held by pages
        /// whose programs wait for their plane's GC; the property test finds it), reported as
        /// an error, not a hang: docs/MODEL.md.
        dbuf_destination_bytes: u32 = 0, "bytes per FC (0 = unbounded)", Range::int(0, 1 << 30);
        /// Charge the DRAM for reading out data it has just stored, on its way on (a write or
        /// conventional GC page to its program, a read-miss page to the host). false: SimpleSSD's
        /// accounting, the simulator of the paper (§6.1): its cache layer charges a DRAM access
        /// when a page is written into DRAM and when a host read hits, not when data is forwarded
        /// (icl/generic_cache.cc), so the DRAM is crossed once per page and the system bus twice.
        dram_forward_reads: bool = false;
    }
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

section! {
    /// dSSD_f's flash-controller network (§4.1, §6.3, Table 1: 1D mesh, k = 8, dimension order),
    /// built on the general network layer with one endpoint per flash controller.
    pub struct FnocConfig = "fnoc" {
        /// Default: line, Table 1's 1D mesh (k = flash.channels); ring and crossbar in Fig. 13.
        router::topology = TopologyKind::Line;
        /// Default: dimension order (Table 1).
        router::routing = RoutingKind::Dor;
        /// Default: BookSim's flow control (dSSD is silent).
        router::switching = Switching::Wormhole;
        /// Default: dSSD is silent.
        router::vcs = 2;
        /// Default: dSSD is silent.
        router::flit_bytes = 32;
        /// Default: a page and its header go as one packet (§4.2).
        router::packet_flits = 1024;
        /// Default: §6.5's "small input buffer"; Fig. 13(b) varies it.
        router::input_buffer_bytes = 512;
        /// Default: as the input buffer (Fig. 13(b)).
        router::output_buffer_bytes = 512;
        /// Router channel (link) bandwidth per direction, MB/s (the extra 0.25 x 8 GB/s per link
        /// direction: §6.1, Fig. 12-13).
        link_mb_s: f64 = 2000.0, "MB/s", Range::real(1.0, 1e6);
        /// Router pipeline delay, ns, rounded up to link byte-cycles (dSSD is silent: two 1 GHz
        /// cycles).
        router_delay_ns: f64 = 2.0, "ns", Range::real(0.0, 1e6);
        /// Default: dSSD is silent.
        router::link_latency_ns = 1.0;
        /// Command and packet header carried with each page (§4.2), bytes.
        header_bytes: u32 = 16, "bytes", Range::int(0, 4096);
    }
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
}
