//! Energy and area of a run (Venice §5, §6.4, §6.6, Table 4 and footnote 7).
//!
//! Energy is the sum of
//! - flash array operations: each page read costs `read_current_ma` × `flash_vcc_v` × tR,
//!   each page program `program_current_ma` × VCC × tPROG, each block erase
//!   `erase_current_ma` × VCC × tBERS (per plane page / per block, so a multi-plane command
//!   costs as many operations as it has planes and the total does not depend on scheduling);
//! - data movement: shared buses (baseline, pSSD, pnSSD's row and column buses, the ideal
//!   SSD's per-chip channels) cost `bus_mw` while busy; mesh links (NoSSD, Venice) cost
//!   `link_mw` while busy;
//! - routers: `router_mw` (Venice) or `nossd_router_mw` (NoSSD) per router, for the whole run;
//! - static power `static_mw` (controller, DRAM, PCIe, flash standby) for the whole run.
//!
//! Average power is energy over execution time. Venice §6.4 computes energy the other way
//! round (average power × execution time); the static term is what makes energy fall with
//! execution time, as in the paper, since flash operation energy is the same in every design.
//!
//! Area follows footnote 7: buses and links in units of one shared channel's area (a link is
//! `link_area_channels` = 0.04 of one), router chips in mm², and the interconnect's area
//! against the baseline's `flash.channels` buses (Venice 8×8: 112 × 0.04 / 8 = 0.56, −44 %).
//! Everything here is computed from a finished run's [`Outcome`]; nothing runs during the
//! simulation.

use crate::config::SsdConfig;
use crate::interconnect::Arch;
use crate::sim::Outcome;
use crate::time::to_ns_f64;
use serde::Serialize;

/// What a run did that costs energy; all a report needs besides the configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Activity {
    /// Execution time: first arrival to last completion, ns.
    pub sim_time_ns: f64,
    /// Plane page reads (copybacks included).
    pub page_reads: u64,
    /// Plane page programs (copybacks included).
    pub page_programs: u64,
    /// Blocks erased.
    pub block_erases: u64,
    /// Sum over shared buses of the time each carried a transfer, ns.
    pub bus_busy_ns: f64,
    /// Sum over mesh links of the time each was busy (NoSSD: per direction; Venice: reserved), ns.
    pub link_busy_ns: f64,
}

/// Energy of one run, mJ (= mW × s), and its average power.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EnergyReport {
    /// Everything below (flash + interconnect + static).
    pub total_mj: f64,
    /// `total_mj` over the execution time.
    pub average_power_mw: f64,
    pub flash_read_mj: f64,
    pub flash_program_mj: f64,
    pub flash_erase_mj: f64,
    /// Read + program + erase.
    pub flash_mj: f64,
    /// Shared channel buses while busy.
    pub bus_mj: f64,
    /// Mesh links while busy.
    pub link_mj: f64,
    /// Routers over the whole run.
    pub router_mj: f64,
    /// Bus + link + router.
    pub interconnect_mj: f64,
    /// Static power over the whole run.
    pub static_mj: f64,
    /// `interconnect_mj` over the execution time.
    pub interconnect_power_mw: f64,
    /// Energy of one page read, program and block erase, nJ.
    pub read_page_nj: f64,
    pub program_page_nj: f64,
    pub erase_block_nj: f64,
    /// The activity charged: summed busy time of buses and of mesh links, ns.
    pub bus_busy_ns: f64,
    pub link_busy_ns: f64,
    pub page_reads: u64,
    pub page_programs: u64,
    pub block_erases: u64,
    /// Routers charged (`rows` × `cols` for NoSSD and Venice, else 0).
    pub routers: u32,
}

/// Interconnect area (Venice §6.6, Table 4, footnote 7).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AreaReport {
    /// Shared buses: `flash.channels` (baseline, pSSD), rows + columns (pnSSD), one per chip (ideal).
    pub buses: u32,
    /// Mesh links between routers: rows × (cols − 1) + (rows − 1) × cols (NoSSD, Venice);
    /// controller and chip injection/ejection links are not counted (§6.6).
    pub links: u32,
    pub routers: u32,
    /// Buses × 1 channel unit.
    pub bus_area_channel_units: f64,
    /// Links × `link_area_channels`.
    pub link_area_channel_units: f64,
    /// Bus + link area.
    pub interconnect_area_channel_units: f64,
    /// The baseline's buses: `flash.channels` channel units.
    pub baseline_area_channel_units: f64,
    /// `interconnect_area_channel_units` / `baseline_area_channel_units` (Venice 8×8: 0.56).
    pub interconnect_area_vs_baseline: f64,
    /// The ratio minus one (Venice 8×8: −0.44, "44 % lower area").
    pub interconnect_area_change_vs_baseline: f64,
    /// PCB area of the router chips, mm² (Venice: routers × `router_area_mm2`; designs without
    /// routers: 0; NoSSD: null, its routers are inside the flash chips and not modelled).
    pub router_area_mm2: Option<f64>,
    /// One router's area as a fraction of one flash chip's (Venice: 8 / 100 = 0.08).
    pub router_area_per_flash_chip: Option<f64>,
}

/// Mesh links of a `rows` × `cols` 2D mesh.
pub fn mesh_links(rows: u32, cols: u32) -> u32 {
    if rows == 0 || cols == 0 {
        return 0;
    }
    rows * (cols - 1) + (rows - 1) * cols
}

fn is_mesh(arch: Arch) -> bool {
    matches!(arch, Arch::Nossd | Arch::Venice)
}

/// Routers and router-to-router links of `[network]`'s topology (`--arch net`).
fn network_size(cfg: &SsdConfig) -> (u32, u32) {
    use crate::interconnect::network::topology;
    match topology::build(cfg) {
        Ok(t) => {
            let ports: u32 = (0..t.routers())
                .map(|r| {
                    (0..t.network_ports(r))
                        .filter(|&p| t.neighbor(r, p).is_some())
                        .count() as u32
                })
                .sum();
            (t.routers(), ports / 2)
        }
        Err(_) => (0, 0),
    }
}

impl Activity {
    /// Read a finished run. `channel_utilization` holds, per back end: buses (baseline,
    /// pSSD, ideal), controllers' row/column bus time (pnSSD), undirected mesh links
    /// (Venice), or the network layer's router-to-router link directions (NoSSD, net).
    pub fn from_outcome(o: &Outcome, arch: Arch) -> Self {
        let t = to_ns_f64(o.sim_time);
        let util = &o.interconnect.channel_utilization;
        let busy = |u: &[f64]| u.iter().sum::<f64>() * t;
        let (bus, link) = match arch {
            Arch::Baseline | Arch::Pssd | Arch::Pnssd | Arch::Ideal => (busy(util), 0.0),
            Arch::Venice | Arch::Nossd | Arch::Net => (0.0, busy(util)),
        };
        Activity {
            sim_time_ns: t,
            page_reads: o.flash.page_reads,
            page_programs: o.flash.page_programs,
            block_erases: o.ftl.erases,
            bus_busy_ns: bus,
            link_busy_ns: link,
        }
    }
}

/// Routers of a design (one per flash node on the mesh; none on buses).
pub fn routers(cfg: &SsdConfig, arch: Arch) -> u32 {
    if is_mesh(arch) {
        let (r, c) = cfg.mesh_dims();
        r * c
    } else if arch == Arch::Net {
        network_size(cfg).0
    } else {
        0
    }
}

/// The energy of `a` on drive `cfg` with back end `arch`.
pub fn energy(cfg: &SsdConfig, arch: Arch, a: &Activity) -> EnergyReport {
    let e = &cfg.energy;
    let f = &cfg.flash;
    // mA × V = mW; mW × ns × 1e-9 = mJ; mJ × 1e6 = nJ.
    let op_mj = |ma: f64, t_ns: f64| ma * e.flash_vcc_v * t_ns * 1e-9;
    let read_op = op_mj(e.read_current_ma, f.read_ns);
    let program_op = op_mj(e.program_current_ma, f.program_ns);
    let erase_op = op_mj(e.erase_current_ma, f.erase_ns);
    let flash_read_mj = a.page_reads as f64 * read_op;
    let flash_program_mj = a.page_programs as f64 * program_op;
    let flash_erase_mj = a.block_erases as f64 * erase_op;
    let flash_mj = flash_read_mj + flash_program_mj + flash_erase_mj;
    let bus_mj = e.bus_mw * a.bus_busy_ns * 1e-9;
    let link_mj = e.link_mw * a.link_busy_ns * 1e-9;
    let n_routers = routers(cfg, arch);
    let router_power = match arch {
        Arch::Venice => e.router_mw,
        // The layer's router is a buffered packet router, as NoSSD's.
        Arch::Nossd | Arch::Net => e.nossd_router_mw,
        _ => 0.0,
    };
    let seconds = a.sim_time_ns * 1e-9;
    let router_mj = n_routers as f64 * router_power * seconds;
    let interconnect_mj = bus_mj + link_mj + router_mj;
    let static_mj = e.static_mw * seconds;
    let total_mj = flash_mj + interconnect_mj + static_mj;
    let per_s = |mj: f64| if seconds > 0.0 { mj / seconds } else { 0.0 };
    EnergyReport {
        total_mj,
        average_power_mw: per_s(total_mj),
        flash_read_mj,
        flash_program_mj,
        flash_erase_mj,
        flash_mj,
        bus_mj,
        link_mj,
        router_mj,
        interconnect_mj,
        static_mj,
        interconnect_power_mw: per_s(interconnect_mj),
        read_page_nj: read_op * 1e6,
        program_page_nj: program_op * 1e6,
        erase_block_nj: erase_op * 1e6,
        bus_busy_ns: a.bus_busy_ns,
        link_busy_ns: a.link_busy_ns,
        page_reads: a.page_reads,
        page_programs: a.page_programs,
        block_erases: a.block_erases,
        routers: n_routers,
    }
}

/// The interconnect area of back end `arch` on drive `cfg`.
pub fn area(cfg: &SsdConfig, arch: Arch) -> AreaReport {
    let e = &cfg.energy;
    let f = &cfg.flash;
    let (rows, cols) = cfg.mesh_dims();
    let buses = match arch {
        Arch::Baseline | Arch::Pssd => f.channels,
        Arch::Pnssd => rows + cols,
        Arch::Ideal => f.channels * f.chips_per_channel,
        Arch::Nossd | Arch::Venice | Arch::Net => 0,
    };
    let links = if is_mesh(arch) {
        mesh_links(rows, cols)
    } else if arch == Arch::Net {
        network_size(cfg).1
    } else {
        0
    };
    let n_routers = routers(cfg, arch);
    let bus_units = buses as f64;
    let link_units = links as f64 * e.link_area_channels;
    let total = bus_units + link_units;
    let baseline = f.channels as f64;
    let ratio = total / baseline;
    let (router_area_mm2, router_area_per_flash_chip) = match arch {
        Arch::Venice => (
            Some(n_routers as f64 * e.router_area_mm2),
            Some(e.router_area_mm2 / e.flash_chip_area_mm2),
        ),
        Arch::Nossd | Arch::Net => (None, None),
        _ => (Some(0.0), Some(0.0)),
    };
    AreaReport {
        buses,
        links,
        routers: n_routers,
        bus_area_channel_units: bus_units,
        link_area_channel_units: link_units,
        interconnect_area_channel_units: total,
        baseline_area_channel_units: baseline,
        interconnect_area_vs_baseline: ratio,
        interconnect_area_change_vs_baseline: ratio - 1.0,
        router_area_mm2,
        router_area_per_flash_chip,
    }
}

/// The back end a finished run used (its interconnect's name), and that run's energy and area.
pub fn of_outcome(o: &Outcome) -> Option<(Arch, EnergyReport, AreaReport)> {
    let arch: Arch = o.interconnect_name.parse().ok()?;
    let a = Activity::from_outcome(o, arch);
    Some((arch, energy(&o.config, arch, &a), area(&o.config, arch)))
}

#[cfg(test)]
mod tests;
