//! `lagoon compare`: every chosen design on one or more drives and one workload, side by
//! side.

use anyhow::{bail, Result};
use clap::Args;
use lagoon_core::config::{presets, ConfigError, SsdConfig};
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use lagoon_lab::batch::{self, Job, Record, RunKey};
use std::fmt::Write;

#[derive(Args)]
pub struct CompareArgs {
    #[arg(long, default_value = "perf-optimized", help = format!(
        "{}. Repeat to compare drives (e.g. network topologies): every --arch runs on each, \
         in one table whose ssd column names the drive (a preset's name, a file's stem, or \
         its path if two stems collide); speedup is over baseline on the same drive",
        lagoon_lab::help::ssd()
    ))]
    pub ssd: Vec<String>,
    /// Trace file, synthetic spec or preset (`syn:hm_0`, `syn:mix1`); repeat for several flows.
    #[arg(long, required = true)]
    pub workload: Vec<String>,
    #[arg(long, default_value = "all", help = format!("`all`, or a comma-separated list of designs ({})", Arch::names()))]
    pub arch: String,
    /// Flash array and mesh as ROWSxCOLS over the same chips (e.g. 4x16; Venice Fig. 15).
    #[arg(long, allow_hyphen_values = true)]
    pub mesh: Option<String>,
    /// timed, timed:<speed-up>, or closed:<queue depth>.
    #[arg(long)]
    pub replay: Option<Replay>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Host I/O scheduler in front of every flow (PIQ paper).
    #[arg(long, value_parser = lagoon_lab::help::scheduler())]
    pub host_scheduler: Option<lagoon_core::host::piq::Scheme>,
    /// Host scheduler queue length (requests waiting or outstanding); default 64. Needs
    /// --host-scheduler.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub host_queue: Option<u32>,
    /// Write the records (one per drive and design) as JSON (`-` for standard output).
    #[arg(long)]
    pub json: Option<String>,
    /// Write the records (one per drive and design) as CSV (`-` for standard output).
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    /// Simulations at once (default: every core, fewer if memory is short).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
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

/// One `--ssd`: as given, as named in the table and records, loaded, and its mesh.
struct Drive {
    spec: String,
    name: String,
    ssd: SsdConfig,
    mesh: String,
}

/// The `ssd` name of each `--ssd`: a preset's name, a TOML file's stem, or, for a file whose
/// stem another drive also goes by, its path as given. One `--ssd` keeps its spelling (the
/// single-drive table and records show it as given). The same value twice is an error.
fn drive_names(specs: &[String]) -> Result<Vec<String>> {
    if let [one] = specs {
        return Ok(vec![one.clone()]);
    }
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].contains(s) {
            bail!("--ssd {s} is given twice");
        }
    }
    let is_preset = |s: &str| presets::NAMES.contains(&s);
    let short: Vec<String> = specs.iter().map(|s| crate::net::label(s)).collect();
    let names: Vec<String> = specs
        .iter()
        .zip(&short)
        .map(|(s, n)| {
            if !is_preset(s) && short.iter().filter(|m| *m == n).count() > 1 {
                s.clone()
            } else {
                n.clone()
            }
        })
        .collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            bail!("--ssd: two drives would both be named '{n}'; rename one of the files");
        }
    }
    Ok(names)
}

pub fn compare(a: CompareArgs) -> Result<()> {
    let designs = parse_designs(&a.arch)?;
    if let Some(j) = &a.json {
        lagoon_lab::out::check(std::path::Path::new(j), "--json")?;
    }
    if let Some(c) = &a.csv {
        lagoon_lab::out::check(c, "--csv")?;
    }
    if a.json.as_deref() == Some("-") && a.csv.as_deref().is_some_and(lagoon_lab::out::is_stdout) {
        bail!("--json and --csv both name standard output (-); give a file to one");
    }
    let several = a.ssd.len() > 1;
    let mut drives = Vec::with_capacity(a.ssd.len());
    // Every drive is loaded (and reshaped) before anything runs, so a bad `--ssd` is one error.
    for (spec, name) in a.ssd.iter().zip(drive_names(&a.ssd)?) {
        // With several drives an error says which, unless it already names the file or
        // preset; with one it reads as it always has.
        let which = |e: anyhow::Error| {
            if several {
                e.context(format!("--ssd {spec}"))
            } else {
                e
            }
        };
        let mut ssd = SsdConfig::load(spec).map_err(|e| match &e {
            ConfigError::Parse { .. } | ConfigError::Io { .. } => e.into(),
            ConfigError::UnknownPreset(name, _) if name == spec => e.into(),
            _ => which(e.into()),
        })?;
        let mesh = match &a.mesh {
            Some(m) => {
                batch::reshape(&mut ssd, m).map_err(which)?;
                m.clone()
            }
            None => {
                let (r, c) = ssd.mesh_dims();
                format!("{r}x{c}")
            }
        };
        drives.push(Drive {
            spec: spec.clone(),
            name,
            ssd,
            mesh,
        });
    }
    let workload = a.workload.join(" + ");
    let sched = lagoon_lab::run::host_scheduler(a.host_scheduler, a.host_queue)?;
    // Drive-major: each drive's designs together, in --arch order.
    let jobs: Vec<Job> = drives
        .iter()
        .flat_map(|dr| designs.iter().map(move |&d| (dr, d)))
        .map(|(dr, d)| {
            let mut sc = Scenario::new(&dr.spec, dr.ssd.clone(), d, a.workload.clone());
            sc.replay = a.replay;
            sc.seed = a.seed;
            sc.host_scheduler = sched;
            sc.cancel = Some(lagoon_lab::interrupt::cancel());
            Job {
                key: RunKey {
                    experiment: "compare".into(),
                    ssd: dr.name.clone(),
                    mesh: dr.mesh.clone(),
                    replay: a.replay.map_or("default".into(), |r| r.to_string()),
                    workload: workload.clone(),
                    design: d.to_string(),
                },
                scenario: sc,
            }
        })
        .collect();
    let stdout_taken =
        a.json.as_deref() == Some("-") || a.csv.as_deref().is_some_and(lagoon_lab::out::is_stdout);
    let quiet = a.quiet || stdout_taken;
    let per_job = batch::check_memory(&jobs)?;
    let threads = batch::jobs_for_memory(per_job, a.jobs);
    let recs = batch::run_all(jobs, threads, quiet)?;
    if let Some(t) = &a.json {
        crate::write_out(t, &serde_json::to_string_pretty(&recs)?)?;
    }
    if let Some(p) = &a.csv {
        lagoon_lab::reproduce::write_csv(p, &recs)?;
    }
    if !stdout_taken {
        let text = match drives.as_slice() {
            [one] => table(&one.name, &one.mesh, &workload, &recs),
            _ => {
                let heads: Vec<(&str, &str)> = drives
                    .iter()
                    .map(|d| (d.name.as_str(), d.mesh.as_str()))
                    .collect();
                table_by_ssd(&heads, &workload, &recs)
            }
        };
        lagoon_lab::out!("{text}{}", notes(&recs))?;
    }
    Ok(())
}

/// What the table's columns mean, and why the numbers may surprise: printed under it.
pub fn notes(recs: &[Record]) -> String {
    let mut s = String::from(
        "speedup: Baseline's execution time (first arrival to last completion) over the design's, on the same drive.\n\
         conflict-free: requests none of whose flash transfers waited for a flash controller or a path \
         (Venice §6.3's \"conflict-free on the first try\"; waiting for a busy die is not a path conflict).\n",
    );
    let speedups: Vec<f64> = recs
        .iter()
        .filter_map(|r| {
            let b = recs
                .iter()
                .find(|b| b.key.ssd == r.key.ssd && b.key.design == "baseline")?;
            Some(b.sim_time_ns / r.sim_time_ns)
        })
        .collect();
    if speedups.len() > 1 && speedups.iter().all(|x| (x - 1.0).abs() < 0.01) {
        s.push_str(
            "note: every execution time is within 1 % of Baseline's. Under timed replay (the default for \
             traces and for syn: workloads with arrival times) a run lasts as long as its arrivals while \
             the drive keeps up, so the designs differ in latency (mean us, p99 us), not in execution \
             time; --replay closed:32 keeps 32 requests outstanding and compares throughput.\n",
        );
    }
    s
}

/// The human table for one drive: speed-up is baseline's execution time over the design's,
/// when baseline ran.
pub fn table(ssd: &str, mesh: &str, workload: &str, recs: &[Record]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{ssd} ({mesh}), workload {workload}");
    rows(&mut s, recs, None);
    s
}

/// The human table for several drives (name, mesh), with an `ssd` column: speed-up is
/// baseline's execution time on the same drive over the design's, when baseline ran there.
pub fn table_by_ssd(drives: &[(&str, &str)], workload: &str, recs: &[Record]) -> String {
    let mut s = String::new();
    for (name, mesh) in drives {
        let _ = write!(s, "{name} ({mesh}), ");
    }
    let _ = writeln!(s, "workload {workload}");
    let width = drives.iter().map(|d| d.0.len()).max().unwrap_or(0).max(3);
    rows(&mut s, recs, Some(width));
    s
}

/// Column heads and one line per record; an `ssd` column of `ssd_width` when given.
fn rows(s: &mut String, recs: &[Record], ssd_width: Option<usize>) {
    let ssd_col = |name: &str| ssd_width.map_or(String::new(), |w| format!("{name:<w$} "));
    let _ = writeln!(
        s,
        "  {}{:<9} {:>12} {:>8} {:>10} {:>9} {:>9} {:>14} {:>10} {:>9}",
        ssd_col("ssd"),
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
        let base = recs
            .iter()
            .find(|b| b.key.ssd == r.key.ssd && b.key.design == "baseline")
            .map(|b| b.sim_time_ns);
        let _ = writeln!(
            s,
            "  {}{:<9} {:>12.3} {:>8} {:>10.0} {:>9.1} {:>9.1} {:>13.2}% {:>10} {:>9}",
            ssd_col(&r.key.ssd),
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
}
