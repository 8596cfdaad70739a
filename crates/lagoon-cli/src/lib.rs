//! The `lagoon` command as a library: the binary (`main.rs`) parses the command line and calls
//! [`dispatch`]; the Python package (crates/lagoon-py) calls the same batch and reproduce code.

pub mod compare;
pub mod import;
pub mod lifetime;
pub mod net;
#[cfg(unix)]
pub mod serve;
pub mod trace;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use lagoon_core::config::{presets, SsdConfig};
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;
use lagoon_lab::run::RunArgs;
use lagoon_lab::{
    batch, help, interrupt, invariants, out, outln, plot, progress, provenance, reproduce,
};
use std::path::Path;

#[derive(Parser)]
#[command(name = "lagoon", version = provenance::LONG_VERSION, about = "Simulate SSDs with networked flash back ends", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Simulate one drive, back end and workload.
    Run(RunArgs),
    /// Inspect, convert, cut and fit block traces (plain or gzip/zstd/xz/bzip2 compressed).
    Trace {
        #[command(subcommand)]
        command: trace::TraceCommand,
    },
    /// Every design on one or more drives (repeat --ssd) and one workload, side by side.
    Compare(compare::CompareArgs),
    /// Regenerate a paper's evaluation: runs, CSV/JSON, SVG figures and a summary (`all`: the
    /// five papers, and FIDELITY.md with every headline).
    Reproduce(reproduce::ReproduceArgs),
    /// Write a fresh drive to death (functional: FTL, GC, wear, superblocks; no timing) and
    /// report bad superblocks against data written (Decoupled SSD §5, §6.4).
    Lifetime(lifetime::LifetimeArgs),
    /// The configured network alone under synthetic traffic: latency against offered load.
    Net(net::NetArgs),
    /// Show a preset's configuration as TOML, or every key with its unit and valid range (or
    /// the words it takes).
    Config {
        #[arg(help = help::preset(), required_unless_present_any = ["keys", "markdown"])]
        preset: Option<String>,
        /// List every numeric key (unit, valid range) and every key that takes a word (the
        /// words), with its value in PRESET (default perf-optimized) or a TOML file given as
        /// PRESET.
        #[arg(long)]
        keys: bool,
        /// Print docs/CONFIG.md: every key's default, unit, range or words and doc, and the
        /// rules across keys (`lagoon config --markdown > docs/CONFIG.md`).
        #[arg(long, conflicts_with_all = ["preset", "keys"])]
        markdown: bool,
    },
    /// Convert another simulator's configuration: `lagoon import mqsim SSDCONFIG.xml [WORKLOAD.xml]`.
    Import {
        #[command(subcommand)]
        command: import::ImportCommand,
    },
    /// The simulated drive as a Network Block Device (fio, qemu-img, nbd-client), paced in
    /// real time, keeping the data written to it (docs/SERVE.md).
    #[cfg(unix)]
    Serve(serve::ServeArgs),
    /// Every back end on built-in defaults (what `lagoon` alone runs).
    Demo,
}

/// Run one parsed command line.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command.unwrap_or(Command::Demo) {
        Command::Run(a) => run(a),
        Command::Compare(a) => compare::compare(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Net(a) => net::net(a),
        Command::Lifetime(a) => lifetime::run(a),
        Command::Trace { command } => trace::trace(command),
        Command::Config {
            preset,
            keys,
            markdown,
        } => config(preset, keys, markdown),
        Command::Import { command } => import::import(command),
        #[cfg(unix)]
        Command::Serve(a) => serve::serve(a),
        Command::Demo => demo(),
    }
}

/// The exit status of a command's result, its error printed: 0, 2 for an error, 130 for a
/// command stopped by Ctrl-C.
pub fn exit_code(r: Result<()>) -> i32 {
    let broken_pipe = |e: &anyhow::Error| {
        e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        })
    };
    match r {
        Ok(()) => 0,
        // `lagoon ... | head` under Python, where SIGPIPE is ignored: end quietly, as the
        // binary (killed by SIGPIPE) does.
        Err(e) if broken_pipe(&e) => 128 + 13,
        Err(e) if e.downcast_ref::<Interrupted>().is_some() => {
            eprintln!("{e}");
            interrupt::EXIT_INTERRUPTED
        }
        Err(e) if interrupt::requested() && interrupt::is_cancellation(&e) => {
            eprintln!("interrupted: stopped by Ctrl-C; no output was written");
            interrupt::EXIT_INTERRUPTED
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    }
}

fn config(preset: Option<String>, keys: bool, markdown: bool) -> Result<()> {
    if markdown {
        print!("{}", lagoon_core::config::docs::markdown());
        return Ok(());
    }
    let name = preset.unwrap_or_else(|| "perf-optimized".into());
    if keys {
        let cfg = SsdConfig::load(&name)?;
        let mut s = format!("{:<34} {:<16} {:<22} unit\n", "key", "value", "valid range");
        for k in cfg.keys() {
            s.push_str(&format!(
                "{:<34} {:<16} {:<22} {}\n",
                k.key,
                k.value.to_string(),
                k.range.to_string(),
                k.unit
            ));
        }
        s.push_str(&format!("\n{:<34} {:<16} one of\n", "key", "value"));
        for c in cfg.choice_keys() {
            s.push_str(&format!(
                "{:<34} {:<16} {}\n",
                c.key,
                c.value,
                c.choices.join(" | ")
            ));
        }
        return out::stdout_text(&s);
    }
    match presets::text(&name) {
        Some(t) => out::stdout_text(t),
        None => bail!(
            "unknown SSD preset '{name}' (known presets: {})",
            presets::NAMES.join(", ")
        ),
    }
}

/// `text` (and a newline) to `target`: a file, or `-` for standard output; checked.
pub(crate) fn write_out(target: &str, text: &str) -> Result<()> {
    out::write(Path::new(target), "--json", format!("{text}\n").as_bytes())
}

/// A command stopped by Ctrl-C after writing what it had (`run`, `lifetime`): the process
/// exits with [`interrupt::EXIT_INTERRUPTED`].
#[derive(Debug)]
pub struct Interrupted(pub String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// One line per flow (several `--workload`s, or a `syn:mixN`): what the one-table summary
/// leaves out.
pub fn flow_lines(report: &Report) -> String {
    if report.flows.len() < 2 {
        return String::new();
    }
    let us = |v: f64| v / 1e3;
    let mut s = String::from(
        "flows            requests       IOPS   mean us    p99 us  read us  write us  conflicts  workload\n",
    );
    for (i, f) in report.flows.iter().enumerate() {
        s.push_str(&format!(
            "  {:<3} {:>19} {:>10.0} {:>9.1} {:>9.1} {:>8.1} {:>9.1} {:>8.2} %  {}\n",
            i,
            f.requests,
            f.iops,
            us(f.latency_ns.mean),
            us(f.latency_ns.p99 as f64),
            us(f.read_latency_ns.mean),
            us(f.write_latency_ns.mean),
            100.0 * f.path_conflict_fraction,
            f.name
        ));
    }
    s
}

fn run(a: RunArgs) -> Result<()> {
    let mut sc = a.scenario(SsdConfig::load(&a.ssd)?)?;
    a.check_outputs(&sc)?;
    batch::check_run_budget(&sc)?;
    interrupt::finish_on_first(true);
    sc.cancel = Some(interrupt::cancel());
    let quiet = a.quiet || a.stdout_taken();
    let (full, limit) = (
        sc.ssd.preallocated_state_bytes() + sc.ssd.full_map_bytes(),
        lagoon_core::config::schema::model_state_limit()?,
    );
    if full > limit && !quiet {
        eprintln!(
            "note: this drive's mapping tables grow to {:.2} GB of model state in all if the \
             workload writes all of it; the run stops with an error if the model's state \
             passes {:.2} GB",
            full as f64 / 1e9,
            limit as f64 / 1e9
        );
    }
    let pb = progress::Progress::new(
        quiet,
        None,
        "requests",
        "{spinner} [{elapsed_precise}] {pos} {unit} ({per_sec}) {msg}",
        "",
    );
    let report = sc.run(|done| pb.set_position(done))?;
    pb.finish_and_clear();
    invariants::ensure(&report)?;
    let interrupted = interrupt::requested();
    let mut prov = provenance::RunProvenance::new(&sc.ssd, provenance::command_line());
    prov.interrupted = interrupted;
    if let Some(target) = &a.json {
        write_out(target, &provenance::report_json(&report, &prov))?;
    }
    if !a.stdout_taken() {
        out!("{}{}", report.summary(), flow_lines(&report))?;
        if interrupted {
            outln!(
                "interrupted     the report covers the {} requests completed by Ctrl-C",
                report.requests
            )?;
        }
    }
    if let Some(path) = &a.cdf {
        write_cdf(path, &report)?;
    }
    if let Some(path) = &a.heatmap {
        write_heatmap(path, &report)?;
    }
    if let Some(path) = &a.timeline {
        let tl = report.timeline.as_ref().expect("timeline requested");
        out::write(path, "--timeline", tl.csv().as_bytes())?;
        if tl.window() > tl.requested {
            eprintln!(
                "note: --timeline {}: the run spans {:.3} s, so its windows are {} ms instead of \
                 the {} ms asked for (at most {} windows)",
                path.display(),
                report.sim_time_ns / 1e9,
                tl.window() as f64 / 1e9,
                tl.requested as f64 / 1e9,
                lagoon_core::ssd::datapath::MAX_WINDOWS,
            );
        }
    }
    if interrupted {
        return Err(Interrupted(format!(
            "interrupted: the outputs cover the {} requests completed before Ctrl-C",
            report.requests
        ))
        .into());
    }
    Ok(())
}

pub fn write_heatmap(path: &Path, report: &Report) -> Result<()> {
    let ic = &report.interconnect;
    let Some(m) = &ic.mesh else {
        bail!(
            "--heatmap: the {} back end has no per-link mesh utilization (use --arch venice)",
            report.arch
        );
    };
    let fc_util = ic
        .venice
        .as_ref()
        .map(|v| v.controller_utilization.clone())
        .unwrap_or_default();
    let fcs: Vec<(u32, f64)> = m
        .controller_routers
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, fc_util.get(i).copied().unwrap_or(f64::NAN)))
        .collect();
    let title = format!(
        "{} on {} ({}x{}), {}: link busy time, mean {:.1} %",
        report.arch,
        report.ssd,
        m.rows,
        m.cols,
        report.workload,
        100.0 * ic.mean_channel_utilization
    );
    let svg = plot::mesh_heatmap(
        &title,
        m.rows,
        m.cols,
        &m.links,
        &ic.channel_utilization,
        &fcs,
    );
    out::write(path, "--heatmap", svg.as_bytes())
}

fn write_cdf(path: &Path, report: &Report) -> Result<()> {
    let o = out::Output::create(path, "--cdf")?;
    let mut w = csv::Writer::from_writer(o);
    w.write_record(["class", "latency_ns", "cumulative_fraction"])?;
    for (class, cdf) in [
        ("all", &report.latency_cdf.all),
        ("read", &report.latency_cdf.read),
        ("write", &report.latency_cdf.write),
    ] {
        for (v, f) in cdf {
            w.write_record([class, &v.to_string(), &format!("{f:.6}")])?;
        }
    }
    w.into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write {}: {}", path.display(), e.error()))?
        .commit()
}

/// Every back end on the perf-optimized drive under a saturating random-read workload and a
/// mixed one: the path-conflict problem and what each design does about it, in two tables.
fn demo() -> Result<()> {
    let ssd = SsdConfig::load("perf-optimized")?;
    let workloads = [
        "syn:read=100,size=4k,addr=uniform,arrival=qd:64,count=100000",
        "syn:read=70,size=16k,addr=uniform,arrival=qd:64,count=50000",
    ];
    outln!("Lagoon demo: the perf-optimized drive (Venice Table 1) with each back end, closed loop at 64\n")?;
    let mut jobs = Vec::new();
    for w in workloads {
        for arch in Arch::ALL {
            let mut sc = Scenario::new("perf-optimized", ssd.clone(), arch, vec![w.to_string()]);
            sc.cancel = Some(interrupt::cancel());
            jobs.push(batch::Job {
                key: batch::RunKey {
                    experiment: "demo".into(),
                    ssd: "perf-optimized".into(),
                    mesh: "8x8".into(),
                    replay: "closed:64".into(),
                    workload: w.into(),
                    design: arch.to_string(),
                },
                scenario: sc,
            });
        }
    }
    let recs = batch::run_all(jobs, batch::default_threads(), false)?;
    for (w, chunk) in workloads.iter().zip(recs.chunks(Arch::ALL.len())) {
        outln!("{}", compare::table("perf-optimized", "8x8", w, chunk))?;
    }
    out!("{}", compare::notes(&recs))?;
    let iops = |d: &str| {
        recs.iter()
            .filter(|r| r.key.design == d)
            .map(|r| r.iops)
            .sum::<f64>()
    };
    if iops("venice") < iops("baseline") {
        outln!("Venice trails Baseline here. From Venice Table 1 each of its 8 controllers drives one 8-bit 1 GHz circuit")?;
        outln!("(1 GB/s, Eq. 1) where Baseline has 8 channels of 1.2 GB/s; at queue depth 64 scouts also fail and retry")?;
        outln!(
            "(docs/results/networked.md; docs/results/venice/summary.md for the paper's setting)."
        )?;
    }
    outln!("\nNext: `lagoon compare --workload syn:hm_0` (a Venice Table 2 stand-in), `lagoon reproduce venice --quick`,")?;
    outln!("`lagoon reproduce piq --quick`, or `lagoon run --help` to simulate your own trace.")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    /// clap's own consistency checks of the whole command line, as [`help::parse`] builds it
    /// (they run only in debug builds unless asked for).
    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        super::help::with_negative_numbers(super::Cli::command()).debug_assert();
        let Err(e) =
            super::help::parse::<super::Cli, _, _>(["lagoon", "lifetime", "--pe-mean", "-1"])
        else {
            panic!("-1 is outside wear.pe_mean's range");
        };
        assert!(e.to_string().contains("wear.pe_mean must be"), "{e}");
    }
}
