//! What a run reports, as a documented serde struct (JSON) and a readable summary.
//! Rates use the exact simulated time (first arrival at 0 to last completion), never a
//! truncated one.

use crate::energy::{AreaReport, EnergyReport};
use crate::interconnect::InterconnectStats;
use crate::sim::{FlashCounters, Outcome};
use crate::ssd::ftl::FtlCounters;
use crate::stats::{FlowLatency, LatencySummary, ALL, READ, WRITE};
use crate::time::{to_ns_f64, PS_PER_S};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    pub name: String,
    pub replay: String,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub latency_ns: LatencySummary,
    pub read_latency_ns: LatencySummary,
    pub write_latency_ns: LatencySummary,
    pub device_latency_ns: LatencySummary,
    pub path_conflict_fraction: f64,
    /// Arrivals earlier than the previous one in the trace (replayed in order).
    pub reordered_arrivals: u64,
    /// Malformed trace lines skipped (lenient parsing only).
    pub skipped_lines: u64,
    /// The flow's host I/O scheduler (PIQ paper), when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_scheduler: Option<crate::host::piq::SchedulerStats>,
}

/// Venice §6.3 metrics.
#[derive(Clone, Debug, Serialize)]
pub struct VeniceReport {
    /// Requests none of whose transfers waited for a controller or re-sent a scout.
    pub first_try_fraction: f64,
    /// Transfers whose first scout reserved a path.
    pub first_try_transfer_fraction: f64,
    pub scout_retries: u64,
    pub mean_path_hops: f64,
    pub nonminimal_fraction: f64,
    pub backtracks: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct WearReport {
    pub min_erases: u32,
    pub mean_erases: f64,
    pub max_erases: u32,
}

/// The full result of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub ssd: String,
    pub arch: String,
    pub workload: String,
    pub replay: String,
    pub seed: u64,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// First arrival (time 0) to last completion.
    pub sim_time_ns: f64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub bandwidth_mb_s: f64,
    /// End to end: host arrival to completion seen by the host.
    pub latency_ns: LatencySummary,
    pub read_latency_ns: LatencySummary,
    pub write_latency_ns: LatencySummary,
    /// Device: submission queue entry to completion (excludes host-side waiting for a full queue).
    pub device_latency_ns: LatencySummary,
    pub device_read_latency_ns: LatencySummary,
    pub device_write_latency_ns: LatencySummary,
    /// Requests at least one of whose flash transfers waited for its FC or path.
    pub path_conflict_fraction: f64,
    pub interconnect: InterconnectStats,
    /// Venice path reservation (only for `--arch venice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub venice: Option<VeniceReport>,
    /// System bus, DRAM, ECC and FC-to-FC link (only with `controller.enabled`; dSSD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<crate::ssd::datapath::ControllerStats>,
    /// Per-window series (`--timeline`), written as CSV, not in the JSON.
    #[serde(skip)]
    pub timeline: Option<crate::ssd::datapath::Timeline>,
    /// The drive's flash page size (for rates of page counters), bytes.
    #[serde(skip)]
    pub config_page_bytes: u32,
    /// Span the utilizations below (dies, channels, links, controllers) are fractions of:
    /// from 0 to the later of the last completion and the last flash or network event.
    pub utilization_span_ns: f64,
    /// Mean over dies of the time an operation occupied the die (including its transfers).
    pub die_utilization: f64,
    /// Average number of chips busy (PIQ paper's "chip utilization"): each die's busy
    /// fraction summed, over dies per chip.
    pub mean_busy_chips: f64,
    /// Mean over dies of the time the flash array was busy (tR/tPROG/tBERS).
    pub die_array_utilization: f64,
    pub flash: FlashCounters,
    pub ftl: FtlCounters,
    /// Flash page programs per page written by the host to flash.
    pub write_amplification: f64,
    /// The GC moves' share of it: GC page programs per host page written to flash.
    pub write_amplification_gc: f64,
    /// The mapping table's share of it: translation-page programs per host page written to
    /// flash (demand mapping; DFTL batch write-backs, `ftl.translation_entries_written` over
    /// `ftl.translation_writebacks` entries each).
    pub write_amplification_mapping: f64,
    pub wear: WearReport,
    /// Energy and average power (Venice §6.4, Table 4; `crate::energy`); null for an unknown back end.
    pub energy: Option<EnergyReport>,
    /// Interconnect area (Venice §6.6, Table 4, footnote 7); null for an unknown back end.
    pub area: Option<AreaReport>,
    pub cache_read_hits: u64,
    pub cache_write_merges: u64,
    pub flows: Vec<FlowReport>,
    /// Malformed trace lines skipped over all flows (lenient parsing only).
    pub skipped_lines: u64,
    pub wall_time_s: f64,
    pub events: u64,
    pub events_per_s: f64,
    pub requests_per_wall_s: f64,
    /// Bytes of FTL and in-flight state at the end of the run.
    pub model_state_bytes: u64,
    /// End-to-end latency CDFs (exported as CSV with `--cdf`, not part of the JSON).
    #[serde(skip)]
    pub latency_cdf: LatencyCdf,
}

/// (latency_ns, cumulative fraction) points.
#[derive(Clone, Debug, Default)]
pub struct LatencyCdf {
    pub all: Vec<(u64, f64)>,
    pub read: Vec<(u64, f64)>,
    pub write: Vec<(u64, f64)>,
}

fn rate(n: f64, sim_time_s: f64) -> f64 {
    if sim_time_s > 0.0 {
        n / sim_time_s
    } else {
        0.0
    }
}

impl Report {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        o: &Outcome,
        ssd: &str,
        arch: &str,
        workload: &str,
        seed: u64,
        wall_time_s: f64,
    ) -> Self {
        let t = o.sim_time as f64 / PS_PER_S as f64;
        let requests: u64 = o.flows.iter().map(|f| f.completed).sum();
        let bytes: u64 = o.flows.iter().map(|f| f.bytes).sum();
        let host_pages = o.ftl.host_page_writes.max(1) as f64;
        let flows: Vec<FlowReport> = o
            .flows
            .iter()
            .map(|f| FlowReport {
                name: f.name.clone(),
                replay: f.replay.to_string(),
                requests: f.completed,
                reads: f.reads,
                writes: f.writes,
                iops: rate(f.completed as f64, t),
                bandwidth_mb_s: rate(f.bytes as f64, t) / 1e6,
                latency_ns: f.latency.e2e[ALL].summary(),
                read_latency_ns: f.latency.e2e[READ].summary(),
                write_latency_ns: f.latency.e2e[WRITE].summary(),
                device_latency_ns: f.latency.device[ALL].summary(),
                path_conflict_fraction: if f.completed > 0 {
                    f.conflicted as f64 / f.completed as f64
                } else {
                    0.0
                },
                reordered_arrivals: f.reordered_arrivals,
                skipped_lines: 0,
                host_scheduler: f.scheduler.clone(),
            })
            .collect();
        let l: &FlowLatency = &o.latency;
        let (energy, area) =
            crate::energy::of_outcome(o).map_or((None, None), |(_, e, a)| (Some(e), Some(a)));
        Report {
            ssd: ssd.to_string(),
            arch: arch.to_string(),
            workload: workload.to_string(),
            replay: flows
                .iter()
                .map(|f| f.replay.clone())
                .collect::<Vec<_>>()
                .join(","),
            seed,
            requests,
            reads: o.flows.iter().map(|f| f.reads).sum(),
            writes: o.flows.iter().map(|f| f.writes).sum(),
            sim_time_ns: to_ns_f64(o.sim_time),
            iops: rate(requests as f64, t),
            bandwidth_mb_s: rate(bytes as f64, t) / 1e6,
            latency_ns: l.e2e[ALL].summary(),
            read_latency_ns: l.e2e[READ].summary(),
            write_latency_ns: l.e2e[WRITE].summary(),
            device_latency_ns: l.device[ALL].summary(),
            device_read_latency_ns: l.device[READ].summary(),
            device_write_latency_ns: l.device[WRITE].summary(),
            path_conflict_fraction: if requests > 0 {
                o.conflicted_requests as f64 / requests as f64
            } else {
                0.0
            },
            interconnect: o.interconnect.clone(),
            controller: o.controller.clone(),
            timeline: o.timeline.clone(),
            config_page_bytes: o.config.flash.page_bytes,
            venice: o.interconnect.venice.as_ref().map(|v| VeniceReport {
                first_try_fraction: if requests > 0 {
                    1.0 - o.conflicted_requests as f64 / requests as f64
                } else {
                    1.0
                },
                first_try_transfer_fraction: v.first_try_transfer_fraction,
                scout_retries: v.scout_retries,
                mean_path_hops: v.mean_path_hops,
                nonminimal_fraction: v.nonminimal_fraction,
                backtracks: v.backtracks,
            }),
            utilization_span_ns: to_ns_f64(o.busy_span),
            die_utilization: o.die_busy_fraction,
            mean_busy_chips: o.die_busy_fraction
                * (o.config.flash.channels * o.config.flash.chips_per_channel) as f64,
            die_array_utilization: o.die_array_fraction,
            flash: o.flash.clone(),
            ftl: o.ftl.clone(),
            write_amplification: if o.ftl.host_page_writes > 0 {
                o.flash.page_programs as f64 / host_pages
            } else {
                0.0
            },
            write_amplification_gc: if o.ftl.host_page_writes > 0 {
                o.ftl.gc_page_moves as f64 / host_pages
            } else {
                0.0
            },
            write_amplification_mapping: if o.ftl.host_page_writes > 0 {
                o.ftl.translation_page_writes as f64 / host_pages
            } else {
                0.0
            },
            wear: WearReport {
                min_erases: o.wear.0,
                mean_erases: o.wear.1,
                max_erases: o.wear.2,
            },
            energy,
            area,
            cache_read_hits: o.cache_read_hits,
            cache_write_merges: o.cache_write_merges,
            flows,
            skipped_lines: 0,
            wall_time_s,
            events: o.events,
            events_per_s: rate(o.events as f64, wall_time_s),
            requests_per_wall_s: rate(requests as f64, wall_time_s),
            model_state_bytes: o.state_bytes as u64,
            latency_cdf: LatencyCdf {
                all: l.e2e[ALL].cdf(),
                read: l.e2e[READ].cdf(),
                write: l.e2e[WRITE].cdf(),
            },
        }
    }

    /// JSON without the wall-clock fields, for byte-identical determinism checks.
    pub fn deterministic_json(&self) -> String {
        let mut v = serde_json::to_value(self).expect("report serializes");
        for k in ["wall_time_s", "events_per_s", "requests_per_wall_s"] {
            v.as_object_mut().unwrap().remove(k);
        }
        serde_json::to_string_pretty(&v).unwrap()
    }

    /// A readable summary.
    pub fn summary(&self) -> String {
        let us = |v: f64| v / 1000.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Lagoon run: ssd={} arch={} replay={} seed={}",
            self.ssd, self.arch, self.replay, self.seed
        );
        let _ = writeln!(s, "workload     {}", self.workload);
        let _ = writeln!(
            s,
            "requests     {} ({} reads, {} writes)",
            self.requests, self.reads, self.writes
        );
        if self.skipped_lines > 0 {
            let _ = writeln!(
                s,
                "skipped      {} malformed trace lines (lenient parsing)",
                self.skipped_lines
            );
        }
        let backwards: u64 = self.flows.iter().map(|f| f.reordered_arrivals).sum();
        if backwards > 0 {
            let _ = writeln!(
                s,
                "arrivals     {backwards} went backwards in time; replayed at the previous arrival's time"
            );
        }
        let _ = writeln!(s, "sim time     {:.3} ms", self.sim_time_ns / 1e6);
        let _ = writeln!(
            s,
            "IOPS         {:.0}    bandwidth {:.1} MB/s",
            self.iops, self.bandwidth_mb_s
        );
        let _ = writeln!(
            s,
            "latency (us)      mean      p50      p90      p99    p99.9   p99.99      max"
        );
        for (name, l) in [
            ("all", &self.latency_ns),
            ("read", &self.read_latency_ns),
            ("write", &self.write_latency_ns),
            ("device", &self.device_latency_ns),
        ] {
            if l.count == 0 {
                continue;
            }
            let _ = writeln!(
                s,
                "  {:<8} {:>9.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
                name,
                us(l.mean),
                us(l.p50 as f64),
                us(l.p90 as f64),
                us(l.p99 as f64),
                us(l.p999 as f64),
                us(l.p9999 as f64),
                us(l.max as f64)
            );
        }
        let _ = writeln!(
            s,
            "path conflicts  {:.2} % of requests, {:.2} % of transfers; channel utilization {:.1} %",
            100.0 * self.path_conflict_fraction,
            100.0 * self.interconnect.conflicted_transfers as f64 / self.interconnect.transfers.max(1) as f64,
            100.0 * self.interconnect.mean_channel_utilization
        );
        let _ = writeln!(
            s,
            "dies            {:.1} % busy, {:.1} % array busy",
            100.0 * self.die_utilization,
            100.0 * self.die_array_utilization
        );
        if self.utilization_span_ns > self.sim_time_ns {
            let _ = writeln!(
                s,
                "                utilizations over {:.3} ms: flash work continued {:.3} ms after the last completion",
                self.utilization_span_ns / 1e6,
                (self.utilization_span_ns - self.sim_time_ns) / 1e6
            );
        }
        if let Some(v) = &self.venice {
            let _ = writeln!(
                s,
                "venice          first try {:.2} % of requests ({:.2} % of transfers), {} scout retries, {:.2} hops/path, {:.1} % non-minimal, {} backtracks",
                100.0 * v.first_try_fraction,
                100.0 * v.first_try_transfer_fraction,
                v.scout_retries,
                v.mean_path_hops,
                100.0 * v.nonminimal_fraction,
                v.backtracks
            );
        }
        if let Some(n) = &self.interconnect.network {
            let _ = writeln!(
                s,
                "network         {} of {} routers and {} links: {} messages, {:.1} ns mean network latency, {:.2} hops{}",
                n.topology,
                n.routers,
                n.links,
                n.messages,
                n.mean_latency_ns,
                n.mean_hops,
                if n.probe_retries > 0 {
                    format!(", {} probe retries", n.probe_retries)
                } else {
                    String::new()
                }
            );
        }
        let f = &self.flash;
        let _ = writeln!(
            s,
            "flash commands  {} read ({} mapping), {} program ({} mapping), {} erase; {} multi-plane",
            f.read_commands, f.mapping_reads, f.program_commands, f.mapping_writes, f.erase_commands, f.multiplane_commands
        );
        let _ = writeln!(
            s,
            "FTL             {} GC runs ({} static wear levelling), {} pages moved, write amplification {:.3} (GC {:.3}, mapping {:.3}), {} unwritten-page reads",
            self.ftl.gc_runs, self.ftl.static_wl_runs, self.ftl.gc_page_moves, self.write_amplification, self.write_amplification_gc, self.write_amplification_mapping, self.ftl.unwritten_page_reads
        );
        if let Some(e) = &self.energy {
            let _ = writeln!(
                s,
                "energy          {:.3} mJ, {:.1} mW average: flash {:.3} mJ (read {:.3}, program {:.3}, erase {:.3}), bus {:.4}, links {:.4}, routers {:.4}, static {:.3} mJ",
                e.total_mj, e.average_power_mw, e.flash_mj, e.flash_read_mj, e.flash_program_mj, e.flash_erase_mj, e.bus_mj, e.link_mj, e.router_mj, e.static_mj
            );
        }
        if let Some(a) = &self.area {
            let routers = match a.router_area_mm2 {
                Some(mm2) => format!("{mm2:.0} mm2 of routers"),
                None => "routers inside the flash chips".into(),
            };
            let _ = writeln!(
                s,
                "area            {} buses + {} links = {:.2} channel areas ({:+.1} % vs {:.0} baseline channels), {} routers, {}",
                a.buses, a.links, a.interconnect_area_channel_units, 100.0 * a.interconnect_area_change_vs_baseline, a.baseline_area_channel_units, a.routers, routers
            );
        }
        let _ = writeln!(
            s,
            "simulator       {} events in {:.3} s wall ({:.0} requests/s, {:.2} M events/s)",
            self.events,
            self.wall_time_s,
            self.requests_per_wall_s,
            self.events_per_s / 1e6
        );
        s
    }
}
