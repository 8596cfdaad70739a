//! `lagoon compare`: every chosen design on one drive and workload, side by side.

use crate::batch::{self, Job, Record, RunKey};
use anyhow::{bail, Result};
use clap::Args;
use lagoon_core::config::SsdConfig;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use std::fmt::Write;

#[derive(Args)]
pub struct CompareArgs {
    #[arg(long, default_value = "perf-optimized", help = crate::help::ssd())]
    pub ssd: String,
    /// Trace file, synthetic spec or preset (`syn:hm_0`, `syn:mix1`); repeat for several flows.
    #[arg(long, required = true)]
    pub workload: Vec<String>,
    #[arg(long, default_value = "all", help = format!("`all`, or a comma-separated list of designs ({})", Arch::names()))]
    pub arch: String,
    /// Flash array and mesh as ROWSxCOLS over the same chips (e.g. 4x16; Venice Fig. 15).
    #[arg(long)]
    pub mesh: Option<String>,
    /// timed, timed:<speed-up>, or closed:<queue depth>.
    #[arg(long)]
    pub replay: Option<Replay>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Host I/O scheduler in front of every flow (PIQ paper).
    #[arg(long, value_parser = crate::help::scheduler())]
    pub host_scheduler: Option<lagoon_core::host::piq::Scheme>,
    /// Host scheduler queue length (requests waiting or outstanding); default 64. Needs
    /// --host-scheduler.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub host_queue: Option<u32>,
    /// Write the per-design records as JSON (`-` for standard output).
    #[arg(long)]
    pub json: Option<String>,
    /// Write the per-design records as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    /// Simulations at once (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn parse_designs(s: &str) -> Result<Vec<Arch>> {
    if s == "all" {
        return Ok(Arch::ALL.to_vec());
    }
    let mut v = Vec::new();
    for part in s.split(',') {
        match part.trim().parse::<Arch>() {
            Ok(a) => v.push(a),
            Err(e) => bail!("--arch '{part}': {e}"),
        }
    }
    Ok(v)
}

pub fn compare(a: CompareArgs) -> Result<()> {
    let designs = parse_designs(&a.arch)?;
    let mut ssd = SsdConfig::load(&a.ssd)?;
    let mesh = match &a.mesh {
        Some(m) => {
            batch::reshape(&mut ssd, m)?;
            m.clone()
        }
        None => {
            let (r, c) = ssd.mesh_dims();
            format!("{r}x{c}")
        }
    };
    let workload = a.workload.join(" + ");
    let sched = crate::host_scheduler(a.host_scheduler, a.host_queue)?;
    let jobs: Vec<Job> = designs
        .iter()
        .map(|&d| {
            let mut sc = Scenario::new(&a.ssd, ssd.clone(), d, a.workload.clone());
            sc.replay = a.replay;
            sc.seed = a.seed;
            sc.host_scheduler = sched;
            Job {
                key: RunKey {
                    experiment: "compare".into(),
                    ssd: a.ssd.clone(),
                    mesh: mesh.clone(),
                    replay: a.replay.map_or("default".into(), |r| r.to_string()),
                    workload: workload.clone(),
                    design: d.to_string(),
                },
                scenario: sc,
            }
        })
        .collect();
    let quiet = a.quiet || a.json.as_deref() == Some("-");
    let recs = batch::run_all(jobs, a.jobs.unwrap_or_else(batch::default_threads), quiet)?;
    if let Some(t) = &a.json {
        crate::write_out(t, &serde_json::to_string_pretty(&recs)?)?;
    }
    if let Some(p) = &a.csv {
        crate::reproduce::write_csv(p, &recs)?;
    }
    if a.json.as_deref() != Some("-") {
        print!("{}", table(&a.ssd, &mesh, &workload, &recs));
    }
    Ok(())
}

/// The human table: speed-up is baseline's execution time over the design's, when baseline ran.
pub fn table(ssd: &str, mesh: &str, workload: &str, recs: &[Record]) -> String {
    let base = recs
        .iter()
        .find(|r| r.key.design == "baseline")
        .map(|r| r.sim_time_ns);
    let mut s = String::new();
    let _ = writeln!(s, "{ssd} ({mesh}), workload {workload}");
    let _ = writeln!(
        s,
        "  {:<9} {:>12} {:>8} {:>10} {:>9} {:>9} {:>14} {:>10} {:>9}",
        "design",
        "exec ms",
        "speedup",
        "IOPS",
        "mean us",
        "p99 us",
        "conflict-free",
        "energy mJ",
        "power mW"
    );
    let opt = |v: Option<f64>, prec: usize| v.map_or("-".into(), |x| format!("{x:.prec$}"));
    for r in recs {
        let _ = writeln!(
            s,
            "  {:<9} {:>12.3} {:>8} {:>10.0} {:>9.1} {:>9.1} {:>13.2}% {:>10} {:>9}",
            r.key.design,
            r.sim_time_ns / 1e6,
            opt(base.map(|b| b / r.sim_time_ns), 2),
            r.iops,
            r.mean_latency_us,
            r.p99_latency_us,
            100.0 * r.conflict_free_fraction,
            opt(r.energy_mj, 3),
            opt(r.average_power_mw, 1),
        );
    }
    s
}
