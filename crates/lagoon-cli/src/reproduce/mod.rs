//! `lagoon reproduce <paper>`: every run behind a paper's evaluation, with CSV/JSON data, SVG
//! figures and a summary beside the paper's numbers (SPEC §4).

pub mod dssd;
pub mod mqsimnet;
pub mod piq;
pub mod superblocks;
pub mod venice;

use crate::batch::{Executor, Job, Record, Threads};
use crate::plot;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReproduceArgs {
    /// The paper to reproduce: `venice`, `piq`, `mqsimnet`, `dssd` or `superblocks` (the
    /// Decoupled SSD's dynamic superblocks, §6.4, in the lifetime mode).
    pub paper: String,
    /// Fewer requests per run (every figure kept): about 22 s (venice) and 3 s (piq) on 2
    /// cores; superblocks: smaller superblocks and drives, ~35 s (docs/BENCHMARKS.md).
    #[arg(long)]
    pub quick: bool,
    /// Output directory (default: results/<paper>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Trace files to run. venice: instead of the `syn:` presets (Figures 9, 10, 13, 14; mixes
    /// and sensitivity need the presets). piq: the traces replayed (default ../shared/traces).
    #[arg(long)]
    pub traces: Option<PathBuf>,
    /// Requests per synthetic run (venice: 2,000 with --quick, 100,000 otherwise; piq: 2,000
    /// / 20,000). Trace runs replay the whole trace.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub requests: Option<u64>,
    /// Simulations at once (default: every core).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// A Markdown file appended to summary.md (explanations written after looking at results).
    #[arg(long)]
    pub notes: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Where the runs execute; `None` = `--jobs` local threads. The Python package sets it to
    /// spread a reproduction over Dask workers.
    #[arg(skip)]
    pub executor: Option<std::sync::Arc<dyn Executor>>,
    /// Tests only (dssd, superblocks): every figure on a drive with few, small blocks, in
    /// seconds.
    #[arg(long, hide = true)]
    pub tiny_drive: bool,
}

pub fn reproduce(mut a: ReproduceArgs) -> Result<()> {
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("results/{}", a.paper)));
    a.out = Some(out);
    match a.paper.as_str() {
        "venice" => venice::run(&a),
        "piq" => piq::run(&a),
        "mqsimnet" => mqsimnet::run(&a),
        "dssd" => dssd::run(&a),
        "superblocks" => superblocks::run(&a),
        other => bail!(
            "reproduce: unknown paper '{other}' (known: venice, piq, mqsimnet, dssd, superblocks)"
        ),
    }
}

impl ReproduceArgs {
    pub fn out_dir(&self) -> &Path {
        self.out.as_deref().expect("set by reproduce()")
    }

    /// The executor the runs go to: the one set by the caller, else `--jobs` local threads.
    pub fn executor(&self) -> std::sync::Arc<dyn Executor> {
        self.executor.clone().unwrap_or_else(|| {
            std::sync::Arc::new(Threads(
                self.jobs.unwrap_or_else(crate::batch::default_threads),
            ))
        })
    }

    /// Run `jobs` (`what` they are, for the progress line) on the executor and save every
    /// record as runs.csv and runs.json in the output directory; the records and wall seconds.
    pub(crate) fn run_jobs(&self, jobs: Vec<Job>, what: &str) -> Result<(Vec<Record>, f64)> {
        let executor = self.executor();
        if !self.quiet {
            eprintln!(
                "reproduce {}: {} runs ({what}) on {} -> {}",
                self.paper,
                jobs.len(),
                executor.describe(),
                self.out_dir().display()
            );
        }
        let start = std::time::Instant::now();
        let recs = executor.run(jobs, self.quiet)?;
        let wall = start.elapsed().as_secs_f64();
        let out = self.out_dir();
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        write_csv(&out.join("runs.csv"), &recs)?;
        write_json(&out.join("runs.json"), &recs)?;
        Ok((recs, wall))
    }

    /// The command that regenerates these results, for the summaries.
    pub fn command_line(&self) -> String {
        let mut c = format!("lagoon reproduce {}", self.paper);
        if self.quick {
            c.push_str(" --quick");
        }
        if let Some(r) = self.requests {
            c.push_str(&format!(" --requests {r}"));
        }
        if let Some(t) = &self.traces {
            c.push_str(&format!(" --traces {}", t.display()));
        }
        if self.seed != 1 {
            c.push_str(&format!(" --seed {}", self.seed));
        }
        c.push_str(&format!(" --out {}", self.out_dir().display()));
        if let Some(n) = &self.notes {
            c.push_str(&format!(" --notes {}", n.display()));
        }
        c
    }
}

pub(crate) fn write(p: &Path, s: &str) -> Result<()> {
    std::fs::write(p, s).with_context(|| format!("cannot write {}", p.display()))
}

/// `v` as pretty-printed JSON (summary.json, runs.json).
pub(crate) fn write_json(p: &Path, v: &impl serde::Serialize) -> Result<()> {
    write(p, &serde_json::to_string_pretty(v)?)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A CSV file at `p` with its header written; an error names the file.
pub(crate) fn csv_file(p: &Path, header: &[&str]) -> Result<csv::Writer<std::fs::File>> {
    let mut w =
        csv::Writer::from_path(p).with_context(|| format!("cannot write {}", p.display()))?;
    w.write_record(header)?;
    Ok(w)
}

/// Every record as CSV (one row per run).
pub fn write_csv(p: &Path, recs: &[Record]) -> Result<()> {
    let mut w = csv_file(
        p,
        &[
            "experiment",
            "ssd",
            "mesh",
            "replay",
            "workload",
            "design",
            "requests",
            "sim_time_ns",
            "iops",
            "mean_latency_us",
            "p99_latency_us",
            "read_latency_us",
            "write_latency_us",
            "read_host_wait_us",
            "write_host_wait_us",
            "mean_busy_chips",
            "scheduler_conflict_fraction",
            "conflict_free_fraction",
            "first_try_transfer_fraction",
            "energy_mj",
            "average_power_mw",
        ],
    )?;
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    for r in recs {
        let k = &r.key;
        w.write_record([
            k.experiment.clone(),
            k.ssd.clone(),
            k.mesh.clone(),
            k.replay.clone(),
            k.workload.clone(),
            k.design.clone(),
            r.requests.to_string(),
            format!("{}", r.sim_time_ns),
            format!("{}", r.iops),
            format!("{}", r.mean_latency_us),
            format!("{}", r.p99_latency_us),
            format!("{}", r.read_latency_us),
            format!("{}", r.write_latency_us),
            format!("{}", r.read_host_wait_us),
            format!("{}", r.write_host_wait_us),
            format!("{}", r.mean_busy_chips),
            opt(r.scheduler_conflict_fraction),
            format!("{}", r.conflict_free_fraction),
            opt(r.first_try_transfer_fraction),
            opt(r.energy_mj),
            opt(r.average_power_mw),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// Per-workload values of one design (or scheduler), in workload order.
pub type Series = Vec<(String, Vec<f64>)>;

pub(crate) fn finite(v: &[f64]) -> Vec<f64> {
    v.iter().copied().filter(|x| x.is_finite()).collect()
}

/// (name, path) for every regular file in `dir`, sorted by name.
pub(crate) fn trace_files(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let p = e?.path();
        if p.is_file() && p.extension().is_none_or(|x| x != "md") {
            let name = p
                .file_stem()
                .map_or("trace".into(), |s| s.to_string_lossy().into_owned());
            v.push((name, p.to_string_lossy().into_owned()));
        }
    }
    v.sort();
    Ok(v)
}

/// One row per series × workload: `workload, <series_name>, <value columns...>`.
pub(crate) fn write_rows(
    p: &Path,
    series_name: &str,
    workloads: &[String],
    cols: &[(&str, &Series)],
) -> Result<()> {
    let mut head = vec!["workload", series_name];
    head.extend(cols.iter().map(|c| c.0));
    let mut w = csv_file(p, &head)?;
    for (k, (d, _)) in cols[0].1.iter().enumerate() {
        for (i, wl) in workloads.iter().enumerate() {
            let mut row = vec![wl.clone(), d.clone()];
            for (_, s) in cols {
                row.push(format!("{:.6}", s[k].1[i]));
            }
            w.write_record(&row)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Bars per workload plus an "average" group (arithmetic mean of the finite values), labelled
/// with how many workloads it covers when some are missing.
pub(crate) fn bars_with_average(
    title: &str,
    y: &str,
    workloads: &[String],
    s: &Series,
    reference: Option<f64>,
) -> String {
    let mut groups = workloads.to_vec();
    groups.push(average_label(workloads.len(), s));
    let series: Series = s
        .iter()
        .map(|(d, v)| {
            let mut v = v.clone();
            v.push(mean(&finite(v.as_slice())));
            (d.clone(), v)
        })
        .collect();
    plot::bars(title, "workload", y, &groups, &series, reference)
}

/// "average", or "average (k of n)" when only k of n workloads have a value (the range
/// "k1-k2 of n" when the series differ).
pub(crate) fn average_label(n: usize, s: &Series) -> String {
    let counts: Vec<usize> = s.iter().map(|(_, v)| finite(v).len()).collect();
    let (lo, hi) = (
        counts.iter().copied().min().unwrap_or(0),
        counts.iter().copied().max().unwrap_or(0),
    );
    match (lo, hi) {
        (l, _) if l == n => "average".into(),
        (l, h) if l == h => format!("average ({l} of {n})"),
        (l, h) => format!("average ({l}-{h} of {n})"),
    }
}
