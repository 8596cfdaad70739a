//! The `lagoon` command.

mod batch;
mod compare;
mod plot;
mod reproduce;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lagoon_core::config::{presets, SsdConfig};
use lagoon_core::host::piq::Scheme;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;
use lagoon_workload::{open_trace, TraceFormat, TraceStats};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "lagoon", version, about = "Simulate SSDs with networked flash back ends", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one drive, back end and workload.
    Run(RunArgs),
    /// Inspect block traces.
    Trace {
        #[command(subcommand)]
        command: TraceCommand,
    },
    /// Every design on one drive and workload, side by side.
    Compare(compare::CompareArgs),
    /// Regenerate a paper's evaluation: runs, CSV/JSON, SVG figures and a summary.
    Reproduce(reproduce::ReproduceArgs),
    /// Show a preset's configuration as TOML.
    Config {
        /// Preset name (perf-optimized, cost-optimized).
        preset: String,
    },
    /// Every back end on built-in defaults (what `lagoon` alone runs).
    Demo,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Requests, read %, average size, inter-arrival time and span of a trace.
    Stats {
        file: PathBuf,
        #[arg(long)]
        format: Option<TraceFormat>,
        /// Skip and count malformed lines instead of stopping at the first.
        #[arg(long)]
        lenient: bool,
        /// Write JSON to a file, or `-` for standard output.
        #[arg(long)]
        json: Option<String>,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Preset name (perf-optimized, cost-optimized) or a TOML file.
    #[arg(long, default_value = "perf-optimized")]
    ssd: String,
    /// Back end: baseline (shared channels), pssd (2x channel rate), venice (router mesh,
    /// path reservation) or ideal (path-conflict-free).
    #[arg(long, default_value = "baseline")]
    arch: Arch,
    /// Flash array as ROWSxCOLS over the same chips: ROWS channels (flash controllers) of COLS
    /// chips, and the networked designs' mesh with it (e.g. 4x16; Venice Fig. 15).
    #[arg(long)]
    mesh: Option<String>,
    /// Trace file, synthetic spec (`syn:read=100,size=4k,...`) or preset (`syn:hm_0`, Venice
    /// Table 2; `syn:mix1`, Table 3); repeat for several flows.
    #[arg(long, required = true)]
    workload: Vec<String>,
    /// Trace format (mqsim, msr, msr-ms, fiu, blkparse, umass); detected if omitted.
    #[arg(long)]
    format: Option<TraceFormat>,
    /// Skip and count malformed trace lines instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// timed, timed:<speed-up>, or closed:<queue depth>. Default: timed for traces, the
    /// spec's own arrival process for synthetic workloads.
    #[arg(long)]
    replay: Option<Replay>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Replay each workload this many times back to back.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Host I/O scheduler in front of every flow: noop, rws, piq-r, piq-w or piq (PIQ paper).
    #[arg(long)]
    host_scheduler: Option<Scheme>,
    /// Host scheduler queue length (requests waiting or outstanding), 1-512 in the PIQ paper.
    #[arg(long, default_value_t = 64)]
    host_queue: u32,
    /// Write the JSON report to a file, or `-` for standard output.
    #[arg(long)]
    json: Option<String>,
    /// Draw the per-link utilization of a mesh back end (venice) as an SVG heat map.
    #[arg(long)]
    heatmap: Option<PathBuf>,
    /// Write the end-to-end latency CDF (all, read, write) as CSV.
    #[arg(long)]
    cdf: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Demo) {
        Command::Run(a) => run(a),
        Command::Compare(a) => compare::compare(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Trace {
            command:
                TraceCommand::Stats {
                    file,
                    format,
                    lenient,
                    json,
                },
        } => trace_stats(&file, format, lenient, json),
        Command::Config { preset } => match presets::text(&preset) {
            Some(t) => {
                print!("{t}");
                Ok(())
            }
            None => Err(anyhow::anyhow!(
                "unknown SSD preset '{preset}' (known presets: {})",
                presets::NAMES.join(", ")
            )),
        },
        Command::Demo => demo(),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn write_out(target: &str, text: &str) -> Result<()> {
    if target == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
    } else {
        std::fs::write(target, text).with_context(|| format!("cannot write {target}"))?;
    }
    Ok(())
}

fn progress_bar(quiet: bool, total: Option<u64>) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    pb.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} requests ({per_sec}) {msg}",
        )
        .expect("valid template"),
    );
    pb
}

fn run(a: RunArgs) -> Result<()> {
    let mut ssd = SsdConfig::load(&a.ssd)?;
    if let Some(m) = &a.mesh {
        batch::reshape(&mut ssd, m).context("--mesh")?;
    }
    let mut sc = Scenario::new(&a.ssd, ssd, a.arch, a.workload);
    sc.format = a.format;
    sc.lenient = a.lenient;
    sc.replay = a.replay;
    sc.seed = a.seed;
    sc.host_scheduler = a.host_scheduler.map(|s| (s, a.host_queue));
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    sc.repeat = a.repeat;
    let quiet = a.quiet || a.json.as_deref() == Some("-");
    let pb = progress_bar(quiet, None);
    let report = sc.run(|done| pb.set_position(done))?;
    pb.finish_and_clear();
    if let Some(target) = &a.json {
        write_out(target, &serde_json::to_string_pretty(&report)?)?;
    }
    if a.json.as_deref() != Some("-") {
        print!("{}", report.summary());
    }
    if let Some(path) = &a.cdf {
        write_cdf(path, &sc, &report)?;
    }
    if let Some(path) = &a.heatmap {
        write_heatmap(path, &report)?;
    }
    Ok(())
}

pub(crate) fn write_heatmap(path: &Path, report: &Report) -> Result<()> {
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
        "{} on {} ({}x{}): link utilization, mean {:.1} %",
        report.arch,
        report.ssd,
        m.rows,
        m.cols,
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
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}

fn write_cdf(path: &Path, _sc: &Scenario, report: &Report) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
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
    w.flush()?;
    Ok(())
}

fn trace_stats(
    file: &Path,
    format: Option<TraceFormat>,
    lenient: bool,
    json: Option<String>,
) -> Result<()> {
    let reader = open_trace(file, format, lenient)?;
    let detected = reader.format();
    let stats = TraceStats::from_results(reader)?;
    if let Some(target) = &json {
        let mut v = serde_json::to_value(&stats)?;
        v["file"] = serde_json::Value::String(file.display().to_string());
        v["format"] = serde_json::Value::String(detected.to_string());
        write_out(target, &serde_json::to_string_pretty(&v)?)?;
    }
    if json.as_deref() != Some("-") {
        println!("{} ({})", file.display(), detected);
        print!("{stats}");
    }
    Ok(())
}

/// Every back end on the perf-optimized drive under a saturating random-read workload and a
/// mixed one: the path-conflict problem and what each design does about it, in two tables.
fn demo() -> Result<()> {
    let ssd = SsdConfig::load("perf-optimized")?;
    let workloads = [
        "syn:read=100,size=4k,addr=uniform,arrival=qd:64,count=100000",
        "syn:read=70,size=16k,addr=uniform,arrival=qd:64,count=50000",
    ];
    println!("Lagoon demo: the perf-optimized drive (Venice Table 1) with each back end, closed loop at 64\n");
    let mut jobs = Vec::new();
    for w in workloads {
        for arch in Arch::ALL {
            jobs.push(batch::Job {
                key: batch::RunKey {
                    experiment: "demo".into(),
                    ssd: "perf-optimized".into(),
                    mesh: "8x8".into(),
                    replay: "closed:64".into(),
                    workload: w.into(),
                    design: arch.to_string(),
                },
                scenario: Scenario::new("perf-optimized", ssd.clone(), arch, vec![w.to_string()]),
            });
        }
    }
    let recs = batch::run_all(jobs, batch::default_threads(), false)?;
    for (w, chunk) in workloads.iter().zip(recs.chunks(Arch::ALL.len())) {
        println!("{}", compare::table("perf-optimized", "8x8", w, chunk));
    }
    println!("Next: `lagoon compare --workload syn:hm_0` (a Venice Table 2 stand-in), `lagoon reproduce venice --quick`,");
    println!("`lagoon reproduce piq --quick`, or `lagoon run --help` to simulate your own trace.");
    Ok(())
}
