//! One simulation as the `lagoon run` command describes it: its options ([`RunArgs`], also
//! what `lagoon.run` takes from Python), the scenario they describe, and the checks made
//! before it simulates.

use crate::{help, out};
use anyhow::{bail, Context, Result};
use clap::{Args, Parser};
use lagoon_core::config::SsdConfig;
use lagoon_core::host::piq::Scheme;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;
use lagoon_workload::TraceFormat;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct RunArgs {
    #[arg(long, default_value = "perf-optimized", help = help::ssd())]
    pub ssd: String,
    /// Back end.
    #[arg(long, default_value = "baseline", value_parser = help::arch())]
    pub arch: Arch,
    /// Flash array as ROWSxCOLS over the same chips: ROWS channels (flash controllers) of COLS
    /// chips, and the networked designs' mesh with it (e.g. 4x16; Venice Fig. 15).
    #[arg(long, allow_hyphen_values = true)]
    pub mesh: Option<String>,
    /// Decoupled SSD configuration (dSSD Table 2): baseline | bw | dssd | dssd_b | dssd_f.
    /// Turns on the controller model (`controller.enabled`) and sets `controller.design`.
    #[arg(long)]
    pub design: Option<String>,
    /// Write per-window I/O and GC bandwidth and system-bus, DRAM and FC-link utilization
    /// as CSV (dSSD Fig. 2; `-`: standard output); the bus, DRAM and link columns need the
    /// controller model.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Timeline window, ms, in [0.001, 1e6].
    #[arg(long, default_value_t = 1.0, value_parser = help::within(lagoon_core::config::schema::Range::real(0.001, 1e6)))]
    pub timeline_window_ms: f64,
    /// Trace file, synthetic spec (`syn:read=100,size=4k,...`) or preset (`syn:hm_0`, Venice
    /// Table 2; `syn:mix1`, Table 3); repeat for several flows.
    #[arg(long, required = true)]
    pub workload: Vec<String>,
    /// Trace format; detected if omitted.
    #[arg(long, value_parser = help::format())]
    pub format: Option<TraceFormat>,
    /// Skip and count malformed trace lines instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Only this device's (volume's) requests of each trace (Alibaba and Tencent files
    /// interleave thousands).
    #[arg(long, visible_alias = "volume")]
    pub device: Option<u32>,
    /// timed, timed:<speed-up>, or closed:<queue depth>. Default: timed for traces, the
    /// spec's own arrival process for synthetic workloads.
    #[arg(long)]
    pub replay: Option<Replay>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Replay each workload this many times back to back.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// End the run at the last host completion, leaving GC and write-back behind it (as
    /// `reproduce dssd` measures I/O and GC "while I/O runs").
    #[arg(long)]
    pub stop_at_last_completion: bool,
    /// Host I/O scheduler in front of every flow (PIQ paper).
    #[arg(long, value_parser = help::scheduler())]
    pub host_scheduler: Option<Scheme>,
    /// Host scheduler queue length (requests waiting or outstanding), 1-512 in the PIQ paper;
    /// default 64. Needs --host-scheduler.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub host_queue: Option<u32>,
    /// Write the JSON report to a file, or `-` for standard output.
    #[arg(long)]
    pub json: Option<String>,
    /// Draw the per-link utilization of a mesh back end (venice) as an SVG heat map (`-`:
    /// standard output).
    #[arg(long)]
    pub heatmap: Option<PathBuf>,
    /// Write the end-to-end latency CDF (all, read, write) as CSV (`-`: standard output).
    #[arg(long)]
    pub cdf: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `lagoon run`'s command line alone, for [`RunArgs::parse_from`].
/// Simulate one drive, back end and workload.
#[derive(Parser)]
struct RunLine {
    #[command(flatten)]
    run: RunArgs,
}

impl RunArgs {
    /// `lagoon run`'s arguments from a command line without the program name
    /// (`["--workload", "syn:...", ...]`); a parse error is clap's, with its context (the
    /// flag, the value, the valid ones) for the caller to word.
    pub fn parse_from(args: &[String]) -> Result<RunArgs, clap::Error> {
        let argv = std::iter::once(String::from("lagoon run"));
        help::parse::<RunLine, _, _>(argv.chain(args.iter().cloned())).map(|l| l.run)
    }

    /// The simulation these arguments describe on drive `ssd` (what `--ssd` names: the CLI
    /// loads it; the Python package may build it from a dict).
    pub fn scenario(&self, mut ssd: SsdConfig) -> Result<Scenario> {
        let a = self;
        if let Some(m) = &a.mesh {
            crate::batch::reshape(&mut ssd, m).context("--mesh")?;
        }
        if let Some(d) = &a.design {
            crate::set_design(&mut ssd, d)?;
        }
        for w in &a.workload {
            if !lagoon_workload::SyntheticSpec::is_synthetic(w) && Path::new(w).is_file() {
                check_not_empty(Path::new(w))?;
            }
        }
        let mut sc = Scenario::new(&a.ssd, ssd, a.arch, a.workload.clone());
        sc.format = a.format;
        sc.lenient = a.lenient;
        sc.device = a.device;
        sc.replay = a.replay;
        sc.seed = a.seed;
        sc.host_scheduler = host_scheduler(a.host_scheduler, a.host_queue)?;
        if a.timeline.is_some() {
            sc.timeline_window = Some((a.timeline_window_ms * 1e9) as u64);
        }
        if a.repeat == 0 {
            bail!("--repeat must be at least 1");
        }
        sc.repeat = a.repeat;
        sc.stop_at_last_completion = a.stop_at_last_completion;
        Ok(sc)
    }
}

impl RunArgs {
    /// Every output this run writes, checked before it simulates: paths (`-` is standard
    /// output), and `--heatmap` only on a back end with a mesh.
    pub fn check_outputs(&self, sc: &Scenario) -> Result<()> {
        if let Some(j) = &self.json {
            out::check(Path::new(j), "--json")?;
        }
        if let Some(p) = &self.cdf {
            out::check(p, "--cdf")?;
        }
        if let Some(p) = &self.timeline {
            out::check(p, "--timeline")?;
        }
        if let Some(p) = &self.heatmap {
            let venice = sc.arch == Arch::Venice
                || (sc.arch == Arch::Net
                    && sc.ssd.network.routing == lagoon_core::config::RoutingKind::Venice);
            if !venice {
                bail!(
                    "--heatmap: the {} back end has no per-link mesh utilization (use --arch venice)",
                    sc.arch
                );
            }
            out::check(p, "--heatmap")?;
        }
        let stdout: Vec<&str> = [
            ("--json", self.json.as_deref().map(Path::new)),
            ("--cdf", self.cdf.as_deref()),
            ("--timeline", self.timeline.as_deref()),
            ("--heatmap", self.heatmap.as_deref()),
        ]
        .iter()
        .filter(|(_, p)| p.is_some_and(out::is_stdout))
        .map(|(f, _)| *f)
        .collect();
        if stdout.len() > 1 {
            bail!(
                "{} all name standard output (-); give files to all but one",
                stdout.join(", ")
            );
        }
        Ok(())
    }

    /// Whether an output goes to standard output (then the text summary does not).
    pub fn stdout_taken(&self) -> bool {
        self.json.as_deref() == Some("-")
            || [&self.cdf, &self.timeline, &self.heatmap]
                .iter()
                .any(|p| p.as_deref().is_some_and(out::is_stdout))
    }
}

/// `--host-scheduler` with its `--host-queue` (default 64); a queue length alone is an error.
pub fn host_scheduler(s: Option<Scheme>, queue: Option<u32>) -> Result<Option<(Scheme, u32)>> {
    match (s, queue) {
        (Some(s), q) => Ok(Some((s, q.unwrap_or(64)))),
        (None, Some(_)) => bail!(
            "--host-queue sets the host scheduler's queue length: give --host-scheduler too ({})",
            Scheme::ALL.map(|x| x.to_string()).join(", ")
        ),
        (None, None) => Ok(None),
    }
}

/// Lines looked at for content before a trace is called empty: the first 1 MiB.
const EMPTY_SCAN_BYTES: u64 = 1 << 20;

/// An error naming `path` as empty when it (decompressed) holds no line but blank ones and
/// `#` comments in its first MiB, so "empty" is said as such rather than as a format that
/// cannot be detected. Other read errors are left to the reader that follows.
pub fn check_not_empty(path: &Path) -> Result<()> {
    use std::io::{BufRead, Read};
    let Ok((input, _)) = lagoon_workload::trace::open_input(path) else {
        return Ok(());
    };
    let mut r = std::io::BufReader::new(input.take(EMPTY_SCAN_BYTES));
    let mut line = Vec::new();
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {
                let t = String::from_utf8_lossy(&line);
                let t = t.trim();
                if !t.is_empty() && !t.starts_with('#') {
                    return Ok(());
                }
            }
            Err(_) => return Ok(()),
        }
    }
    if r.into_inner().limit() == 0 {
        return Ok(()); // a MiB of blank lines: not called empty, detection decides
    }
    bail!(
        "{}: the trace is empty (no request lines{})",
        path.display(),
        if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
            ", 0 bytes"
        } else {
            ", only blank lines and comments"
        }
    )
}
