//! `lagoon reproduce <paper>`: every run behind a paper's evaluation, with CSV/JSON data, SVG
//! figures and a summary beside the paper's numbers (SPEC §4).

pub mod book;
pub mod claims;
pub mod dssd;
pub mod evidence;
pub mod fidelity;
pub mod folder;
pub mod mqsimnet;
pub mod piq;
pub mod sensitivity;
pub mod superblocks;
pub mod venice;

use crate::batch::{Executor, Job, Record, Threads};
use anyhow::{bail, Context, Result};
use book::{Headlines, Manifest};
use claims::Provenance;
use clap::Args;
use lagoon_core::cancel::Cancel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The papers `lagoon reproduce` knows.
pub const PAPERS: [&str; 5] = ["venice", "piq", "mqsimnet", "dssd", "superblocks"];
/// A paper name read from a results file is one of [`PAPERS`].
pub fn check_paper(name: &str) -> Result<()> {
    if !PAPERS.contains(&name) {
        bail!(
            "paper {}: none of {}",
            folder::shown(name),
            PAPERS.join(", ")
        );
    }
    Ok(())
}

/// The largest `--notes` file (a Markdown text written by hand).
pub const MAX_NOTES_BYTES: u64 = 1 << 20;

#[derive(Args, Clone)]
pub struct ReproduceArgs {
    /// The paper to reproduce: `venice`, `piq`, `mqsimnet`, `dssd` or `superblocks` (the
    /// Decoupled SSD's dynamic superblocks, §6.4, in the lifetime mode); or `all`: the five
    /// into OUT/<paper> (OUT from --out, default results), then OUT/FIDELITY.md, every
    /// headline of every paper in one table from their headlines.json (--quick, --seed,
    /// --seeds and --jobs apply to each; a notes.md already in OUT/<paper> is appended to its
    /// summary and kept).
    pub paper: String,
    /// Fewer requests per run and 2 seeds (every figure kept); CPU time per paper in
    /// docs/BENCHMARKS.md ("Reproductions").
    #[arg(long)]
    pub quick: bool,
    /// Output directory (default: results/<paper>; with `all`, results). Written under a temporary name and
    /// renamed at the end; a directory that holds something other than a reproduction's
    /// output is refused before any simulation.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Trace files to run. venice: instead of the `syn:` presets (Figures 9, 10, 13, 14; mixes
    /// and sensitivity need the presets). piq, mqsimnet: the traces replayed (default
    /// ../shared/traces).
    #[arg(long)]
    pub traces: Option<PathBuf>,
    /// Requests per synthetic run (venice: 2,000 with --quick, 100,000 otherwise; piq: 2,000
    /// / 20,000). Trace runs replay the whole trace.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub requests: Option<u64>,
    /// Simulations at once (default: every core, fewer if memory is short).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// A Markdown file (at most 1 MiB) appended to summary.md and kept in --out as notes.md:
    /// explanations written after looking at results. Without it, a notes.md already in
    /// --out is appended and kept (by a new run and by --render-only alike).
    #[arg(long)]
    pub notes: Option<PathBuf>,
    /// The first seed; headline cells run this and the next `--seeds` - 1.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seeds per headline cell, for their 95 % intervals (default 5; 2 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub seeds: Option<u64>,
    /// Redraw the figures and summary.md of the reproduction in --out from its files
    /// (figures.json, headlines.json, CSVs), without simulating.
    #[arg(long)]
    pub render_only: bool,
    /// Rewrite only the evidence fields of --out's headlines.json (evidence, evidence_file,
    /// the authors' simulator's value and the reason's sentence on it) from the paper's data
    /// file, then redraw as --render-only does; nothing is simulated.
    #[arg(long)]
    pub refresh_evidence: bool,
    /// Search the parameters the paper leaves open, and some it gives (venice, mqsimnet, dssd,
    /// superblocks, piq):
    /// each reading runs the whole reproduction (with --quick, --requests, --seeds as given;
    /// one seed by default) changed as it says, one parameter at a time, then in pairs (per
    /// headline its two best parameters, and the pairs the paper's readings name). Writes
    /// --out (default results/sensitivity/PAPER): every headline's reachable range, the
    /// readings that give the paper's number, figures (docs/results/sensitivity). With
    /// --render-only, redraws the search's summary.md and figures from its sensitivity.json.
    #[arg(long, conflicts_with_all = ["refresh_evidence", "notes"])]
    pub sensitivity: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Where the runs execute; `None` = `--jobs` local threads. The Python package sets it to
    /// spread a reproduction over Dask workers.
    #[arg(skip)]
    pub executor: Option<std::sync::Arc<dyn Executor>>,
    /// Stops the runs when set (Ctrl-C).
    #[arg(skip)]
    pub cancel: Option<Cancel>,
    /// Where the files are written while the reproduction runs (set by [`reproduce`]).
    #[arg(skip)]
    pub work: Option<PathBuf>,
    /// Tests only (dssd, superblocks): every figure on a drive with few, small blocks, in
    /// seconds.
    #[arg(long, hide = true)]
    pub tiny_drive: bool,
    /// A sensitivity reading: how every run is changed ([`sensitivity::Apply`]).
    #[arg(skip)]
    pub reading: Vec<sensitivity::Apply>,
}

/// `--notes`: read in full before any simulation, at most [`MAX_NOTES_BYTES`] of UTF-8.
fn read_notes(p: &Path) -> Result<String> {
    let meta = std::fs::metadata(p).with_context(|| format!("--notes {}", p.display()))?;
    if !meta.is_file() {
        bail!("--notes {}: not a file", p.display());
    }
    if meta.len() > MAX_NOTES_BYTES {
        bail!(
            "--notes {}: {} bytes, more than the {} a notes file may have",
            p.display(),
            meta.len(),
            MAX_NOTES_BYTES
        );
    }
    let bytes = std::fs::read(p).with_context(|| format!("--notes {}", p.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "--notes {}: not UTF-8 text (byte {})",
            p.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

pub fn reproduce(mut a: ReproduceArgs) -> Result<()> {
    if a.paper == "all" {
        if a.sensitivity {
            bail!(
                "reproduce all --sensitivity: give one paper ({})",
                PAPERS.join(", ")
            );
        }
        return all(a);
    }
    if !PAPERS.contains(&a.paper.as_str()) {
        bail!(
            "reproduce: unknown paper '{}' (known: {}, or all)",
            a.paper,
            PAPERS.join(", ")
        );
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("results/{}", a.paper)));
    if crate::out::is_stdout(&out) {
        bail!("--out names the directory the reproduction writes; - (standard output) is not one");
    }
    a.out = Some(out.clone());
    if a.cancel.is_none() {
        a.cancel = Some(crate::interrupt::cancel());
    }
    // Every flag and path the user named, before the first simulation.
    a.check_seeds()?;
    check_out(&out)?;
    if a.sensitivity {
        check_traces(&a)?;
        return sensitivity::run(&a);
    }
    // Everything the user named is checked before the first simulation. Without --notes a
    // folder's own notes.md (written by hand) is kept: a redraw appends it (book::render), a
    // new run carries it over.
    let simulate = !(a.render_only || a.refresh_evidence);
    let notes = match &a.notes {
        Some(p) => Some(read_notes(p)?),
        None if simulate && out.is_dir() => folder::notes(&out, MAX_NOTES_BYTES)?,
        None => None,
    };
    if !simulate {
        let flag = if a.refresh_evidence {
            "--refresh-evidence"
        } else {
            "--render-only"
        };
        if !folder::has(&out, "figures.json") {
            bail!(
                "{flag}: {} holds no reproduction (no figures.json)",
                out.display()
            );
        }
        let h = claims::read_headlines(&out)?;
        if h.paper != a.paper {
            bail!(
                "{flag}: {} is a reproduction of {}, not {}",
                out.display(),
                h.paper,
                a.paper
            );
        }
        if a.refresh_evidence {
            let changed = book::refresh_evidence(&out)?;
            if !a.quiet {
                eprintln!(
                    "{}: evidence rewritten for {} of {} headlines{}",
                    out.join("headlines.json").display(),
                    changed.len(),
                    h.headlines.len(),
                    if changed.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", changed.join(", "))
                    }
                );
            }
        }
        if a.paper == "superblocks" {
            superblocks::lifetime_headlines(&out)?;
        }
        let h = claims::read_headlines(&out)?;
        book::render(&out, notes.as_deref())?;
        println!("{}", book::verdict_line(&h, &out.display().to_string()));
        return Ok(());
    }
    check_traces(&a)?;
    if !book::replaceable(&out)? {
        bail!(
            "--out {}: exists and is not a reproduction's output (no summary.md and runs.csv); give a new or empty directory",
            out.display()
        );
    }
    let work = book::work_dir(&out);
    std::fs::create_dir_all(&work).with_context(|| {
        format!(
            "--out {}: cannot create {} beside it",
            out.display(),
            work.display()
        )
    })?;
    a.work = Some(work.clone());
    let done = match a.paper.as_str() {
        "venice" => venice::run(&a),
        "piq" => piq::run(&a),
        "mqsimnet" => mqsimnet::run(&a),
        "dssd" => dssd::run(&a),
        _ => superblocks::run(&a),
    }
    .and_then(|()| book::render(&work, notes.as_deref()))
    .and_then(|()| book::finish_dir(&work, &out));
    if let Err(e) = done {
        let _ = std::fs::remove_dir_all(&work);
        return Err(e);
    }
    if !a.quiet {
        let h = claims::read_headlines(&out)?;
        eprintln!("{}", book::verdict_line(&h, &out.display().to_string()));
        eprintln!("summary: {}", out.join("summary.md").display());
    }
    Ok(())
}

/// The papers whose runs replay the trace files of `--traces`.
pub const REPLAY_TRACES: [&str; 3] = ["venice", "piq", "mqsimnet"];

/// `--traces` before any simulation: given only to a paper that replays traces, a directory
/// that holds trace files, each of which detection reads (an error names the file).
fn check_traces(a: &ReproduceArgs) -> Result<()> {
    let Some(t) = &a.traces else {
        return Ok(());
    };
    if !REPLAY_TRACES.contains(&a.paper.as_str()) {
        bail!(
            "--traces: reproduce {} replays no traces (its runs are synthetic); --traces is for {}",
            a.paper,
            REPLAY_TRACES.join(", ")
        );
    }
    if !t.is_dir() {
        bail!("--traces {}: no such directory", t.display());
    }
    let files = trace_files(t).with_context(|| format!("--traces {}", t.display()))?;
    if files.is_empty() {
        bail!(
            "--traces {}: no trace files in it (reproduce {} replays every file of the directory but *.md; it holds none)",
            t.display(),
            a.paper
        );
    }
    for (_, f) in &files {
        lagoon_workload::trace::detect(Path::new(f))
            .with_context(|| format!("--traces {}", t.display()))?;
    }
    Ok(())
}

/// `--out` before any simulation: a directory or nothing yet, which this process can replace
/// at the end (the old output is moved aside and removed: it and every directory in it that
/// holds something must be writable). A read-only previous output failed only after every
/// run.
pub(crate) fn check_out(out: &Path) -> Result<()> {
    let Ok(meta) = std::fs::metadata(out) else {
        return Ok(()); // created beside its parent's other entries: checked by creating it
    };
    if !meta.is_dir() {
        bail!(
            "--out {}: not a directory (a reproduction writes a directory of files)",
            out.display()
        );
    }
    // Directories only, at most 10,000 of them looked at (an output holds a few).
    let mut todo = vec![out.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = todo.pop() {
        seen += 1;
        if seen > 10_000 {
            break;
        }
        let mut empty = true;
        for e in std::fs::read_dir(&d)
            .with_context(|| format!("--out {}: cannot read {}", out.display(), d.display()))?
            .flatten()
        {
            empty = false;
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(e.path());
            }
        }
        // Removing an entry needs its directory writable; an empty one is removed by its
        // parent's right.
        if !empty {
            writable(&d).map_err(|e| {
                anyhow::anyhow!(
                    "--out {}: cannot replace it: {} is not writable ({e}), and its files are removed at the end",
                    out.display(),
                    d.display()
                )
            })?;
        }
    }
    Ok(())
}

/// Whether this process may create and remove entries in directory `d` (root may, except on
/// a read-only file system).
fn writable(d: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(d.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: a NUL-terminated path; access() only reads it.
        if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(unix))]
    let _ = d;
    Ok(())
}

/// `lagoon reproduce all`: each paper into OUT/<paper>, then OUT/FIDELITY.md; with
/// --render-only or --refresh-evidence, each paper that OUT holds is redrawn (its notes.md
/// appended) and FIDELITY.md written, without simulating.
fn all(a: ReproduceArgs) -> Result<()> {
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("results"));
    if crate::out::is_stdout(&out) {
        bail!("--out names the directory `reproduce all` writes; - (standard output) is not one");
    }
    for (set, flag) in [
        (a.traces.is_some(), "--traces"),
        (a.requests.is_some(), "--requests"),
        (a.notes.is_some(), "--notes"),
    ] {
        if set {
            bail!("reproduce all: {flag} means something else for each paper; give it to `lagoon reproduce PAPER`");
        }
    }
    let simulate = !(a.render_only || a.refresh_evidence);
    // Which papers, and each one's notes (kept by each paper's run): everything checked
    // before the first simulation.
    let mut todo = Vec::new();
    for paper in PAPERS {
        let dir = out.join(paper);
        if !simulate && !folder::has(&dir, "headlines.json") {
            continue;
        }
        if simulate && !book::replaceable(&dir)? {
            bail!(
                "--out {}: {} exists and is not a reproduction's output",
                out.display(),
                dir.display()
            );
        }
        check_out(&dir)?;
        if dir.is_dir() {
            folder::notes(&dir, MAX_NOTES_BYTES)?;
        }
        todo.push((paper, dir));
    }
    if todo.is_empty() {
        bail!(
            "reproduce all: no paper's directory in {} has a headlines.json ({})",
            out.display(),
            PAPERS.join(", ")
        );
    }
    let n = todo.len();
    for (i, (paper, dir)) in todo.into_iter().enumerate() {
        if simulate && !a.quiet {
            eprintln!(
                "reproduce all: {paper} ({} of {n}) -> {}",
                i + 1,
                dir.display()
            );
        }
        let one = ReproduceArgs {
            paper: paper.to_string(),
            out: Some(dir.clone()),
            work: None,
            ..a.clone()
        };
        reproduce(one)?;
    }
    let (papers, headlines) = fidelity::write(&out)?;
    println!(
        "{}: {headlines} headlines of {papers} papers",
        out.join(fidelity::FILE).display()
    );
    Ok(())
}

impl ReproduceArgs {
    /// Where the reproduction writes now (its temporary directory while it runs).
    pub fn out_dir(&self) -> &Path {
        self.work
            .as_deref()
            .or(self.out.as_deref())
            .expect("set by reproduce()")
    }

    /// How many seeds each headline cell runs: `--seeds`, else 5 (2 with --quick; a
    /// sensitivity search, 1).
    fn seed_count(&self) -> u64 {
        self.seeds.unwrap_or(match (self.sensitivity, self.quick) {
            (true, _) => 1,
            (false, true) => 2,
            (false, false) => 5,
        })
    }

    /// `--seed` and `--seeds` together stay within u64 (18446744073709551615 with 3 seeds
    /// ran 2^64 - 1, 0 and 1).
    fn check_seeds(&self) -> Result<()> {
        let n = self.seed_count();
        if self.seed.checked_add(n - 1).is_none() {
            bail!(
                "--seed {} with --seeds {n}: the seeds would run past 18446744073709551615 (2^64 - 1); give --seed at most {}",
                self.seed,
                u64::MAX - (n - 1)
            );
        }
        Ok(())
    }

    /// The seeds of the headline cells: `--seed` and the next ones, `--seeds` in all
    /// (within u64: [`Self::check_seeds`] ran first).
    pub fn seeds(&self) -> Vec<u64> {
        (0..self.seed_count())
            .map(|i| self.seed.checked_add(i).expect("checked by check_seeds"))
            .collect()
    }

    /// The executor the runs go to: the one set by the caller, else `--jobs` local threads.
    pub fn executor(&self) -> std::sync::Arc<dyn Executor> {
        self.executor_for(0)
    }

    /// [`Self::executor`] for runs that each hold `per_job` bytes from their start: local
    /// threads are capped by what memory holds ([`crate::batch::jobs_for_memory`]).
    pub fn executor_for(&self, per_job: u64) -> std::sync::Arc<dyn Executor> {
        self.executor.clone().unwrap_or_else(|| {
            std::sync::Arc::new(Threads(crate::batch::jobs_for_memory(per_job, self.jobs)))
        })
    }

    /// Run `jobs` (`what` they are, for the progress line) on the executor and save every
    /// record as runs.csv and runs.json in the output directory.
    pub(crate) fn run_jobs(&self, jobs: Vec<Job>, what: &str) -> Result<Ran> {
        self.run_jobs_first(jobs, what, &|_| false)
    }

    /// [`Self::run_jobs`], handing out the jobs `first` picks before the others (the
    /// longest, so no thread is left alone with one at the end); records in job order.
    pub(crate) fn run_jobs_first(
        &self,
        mut jobs: Vec<Job>,
        what: &str,
        first: &dyn Fn(&Job) -> bool,
    ) -> Result<Ran> {
        if let Some(c) = &self.cancel {
            for j in jobs.iter_mut() {
                j.scenario.cancel = Some(c.clone());
            }
        }
        sensitivity::apply_all(&self.reading, &mut jobs)?;
        let per_job = crate::batch::check_memory(&jobs)?;
        let executor = self.executor_for(per_job);
        if !self.quiet {
            eprintln!(
                "reproduce {}: {} runs ({what}) on {} -> {}",
                self.paper,
                jobs.len(),
                executor.describe(),
                self.out.as_deref().unwrap_or(self.out_dir()).display()
            );
        }
        let start = std::time::Instant::now();
        let recs = executor.run_first(jobs, first, self.quiet)?;
        let wall = start.elapsed().as_secs_f64();
        let out = self.out_dir();
        write_csv(&out.join("runs.csv"), &recs)?;
        write_json(&out.join("runs.json"), &recs)?;
        Ok(Ran {
            recs,
            wall,
            executor: executor.describe(),
        })
    }

    /// The value a sensitivity reading gives the reproduction's `name` ([`sensitivity::Apply::Knob`]),
    /// None as built.
    pub fn knob(&self, name: &str) -> Option<&str> {
        self.reading.iter().find_map(|r| match r {
            sensitivity::Apply::Knob { name: n, value } if n == name => Some(value.as_str()),
            _ => None,
        })
    }

    /// [`Self::knob`] as a number; an error names the knob.
    pub fn knob_f64(&self, name: &str) -> Result<Option<f64>> {
        self.knob(name)
            .map(|v| {
                v.parse::<f64>()
                    .with_context(|| format!("sensitivity knob {name} = {v}: not a number"))
            })
            .transpose()
    }

    /// The command that regenerates these results, for the summaries.
    pub fn command_line(&self) -> String {
        let mut c = format!("lagoon reproduce {}", self.paper);
        if self.sensitivity {
            c.push_str(" --sensitivity");
        }
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
        if let Some(n) = self.seeds {
            c.push_str(&format!(" --seeds {n}"));
        }
        if let Some(o) = &self.out {
            c.push_str(&format!(" --out {}", o.display()));
        }
        if let Some(n) = &self.notes {
            c.push_str(&format!(" --notes {}", n.display()));
        }
        c
    }

    /// The reproduction's provenance: `configs` the presets its runs start from.
    pub(crate) fn provenance(
        &self,
        seed_varies: &str,
        presets: &[&str],
        ran: &Ran,
    ) -> Result<Provenance> {
        let (runs, wall_s) = (ran.recs.len(), ran.wall);
        let mut configs = BTreeMap::new();
        for p in presets {
            let cfg = lagoon_core::config::SsdConfig::load(p)?;
            configs.insert(p.to_string(), crate::provenance::config_hash(&cfg));
        }
        Ok(Provenance {
            lagoon: crate::provenance::VERSION.into(),
            commit: crate::provenance::COMMIT.into(),
            command: self.command_line(),
            seeds: self.seeds(),
            seed_varies: seed_varies.into(),
            configs,
            runs,
            wall_s: (wall_s * 10.0).round() / 10.0,
            executor: ran.executor.clone(),
        })
    }

    /// The data files' last two: figures.json and headlines.json (with headline_seeds.csv).
    pub(crate) fn finish(
        &self,
        manifest: &Manifest,
        headlines: &Headlines,
        prov: Provenance,
    ) -> Result<()> {
        let out = self.out_dir();
        manifest.write(out)?;
        headlines.write(out, &claims::paper(&self.paper)?, prov)?;
        Ok(())
    }
}

/// A batch's records, its wall-clock seconds and what ran it.
pub(crate) struct Ran {
    pub recs: Vec<Record>,
    pub wall: f64,
    pub executor: String,
}

/// Write a file of a reproduction's folder ([`folder::replace`]: never through a link).
pub(crate) fn write(p: &Path, s: &str) -> Result<()> {
    folder::replace(p, s)
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

/// A CSV file whose header is `lead`, then `value` with its interval's columns
/// ([`book::ci_cols`]).
pub(crate) fn ci_csv_file(
    p: &Path,
    lead: &[&str],
    value: &str,
) -> Result<csv::Writer<std::fs::File>> {
    let cols = book::ci_cols(value);
    let mut head: Vec<&str> = lead.to_vec();
    head.extend(cols.iter().map(String::as_str));
    csv_file(p, &head)
}

/// A CSV from its header and rows of cells.
pub(crate) fn csv_rows(p: &Path, head: &[String], rows: &[Vec<String>]) -> Result<()> {
    let mut w = csv_file(p, &head.iter().map(String::as_str).collect::<Vec<_>>())?;
    for r in rows {
        w.write_record(r)?;
    }
    w.flush()?;
    Ok(())
}

/// Every record as CSV (one row per run).
pub fn write_csv(p: &Path, recs: &[Record]) -> Result<()> {
    let mut w = csv_file(
        p,
        &[
            "experiment",
            "seed",
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
            "config_hash",
        ],
    )?;
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    for r in recs {
        let k = &r.key;
        w.write_record([
            k.experiment.clone(),
            r.seed.to_string(),
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
            r.config_hash.clone(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

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

/// Per-seed values of one quantity for each series (design, scheduler) and workload, as a
/// CSV with 95 % intervals: a row per series × workload (`workload`, `series_col`, the value
/// and [`book::ci_cols`]), then per series an `average` row whose per-seed value is the mean
/// over workloads of that seed's values (paired: every workload of a seed shares it). `f`
/// gives (series, workload, seed) -> value, NaN where there is none. Returns each series'
/// per-seed averages, for headlines.
#[allow(clippy::too_many_arguments)]
pub(crate) fn seeded_table(
    p: &Path,
    series_col: &str,
    value_col: &str,
    workloads: &[String],
    series: &[String],
    seeds: &[u64],
    digits: usize,
    f: impl Fn(&str, &str, u64) -> f64,
) -> Result<BTreeMap<String, Vec<(u64, f64)>>> {
    let mut w = ci_csv_file(p, &["workload", series_col], value_col)?;
    let mut averages = BTreeMap::new();
    for s in series {
        for wl in workloads {
            let v: Vec<f64> = seeds.iter().map(|&seed| f(s, wl, seed)).collect();
            let mut row = vec![wl.clone(), s.clone()];
            row.extend(book::ci_cells(&claims::stat(&v), digits));
            w.write_record(&row)?;
        }
        let per_seed: Vec<(u64, f64)> = seeds
            .iter()
            .map(|&seed| {
                let v: Vec<f64> = workloads.iter().map(|wl| f(s, wl, seed)).collect();
                (seed, mean(&finite(&v)))
            })
            .collect();
        let k = workloads
            .iter()
            .filter(|wl| f(s, wl, seeds[0]).is_finite())
            .count();
        let label = if k == workloads.len() {
            "average".to_string()
        } else {
            format!("average ({k} of {})", workloads.len())
        };
        let st = claims::stat(&per_seed.iter().map(|x| x.1).collect::<Vec<_>>());
        let mut row = vec![label, s.clone()];
        row.extend(book::ci_cells(&st, digits));
        w.write_record(&row)?;
        averages.insert(s.clone(), per_seed);
    }
    w.flush()?;
    Ok(averages)
}

/// The mean of each series' per-seed values (summary.json).
pub(crate) fn seed_means(m: &BTreeMap<String, Vec<(u64, f64)>>) -> serde_json::Value {
    serde_json::Value::Object(
        m.iter()
            .map(|(k, v)| {
                let x: Vec<f64> = v.iter().map(|p| p.1).collect();
                (k.clone(), serde_json::json!(claims::stat(&x).mean))
            })
            .collect(),
    )
}
