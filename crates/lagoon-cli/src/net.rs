//! `lagoon net`: the configured network alone under synthetic traffic (issue 11), the way
//! network simulators (BookSim2, SuperSim) validate a network: latency against offered load,
//! one curve per configuration. Windows and units: `lagoon_core::interconnect::network::traffic`.

use anyhow::{bail, Context, Result};
use clap::Args;
use lagoon_core::config::SsdConfig;
use lagoon_core::interconnect::network::traffic::{run_point, LoadPoint, Pattern, Windows};
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct NetArgs {
    /// Preset or TOML file whose `[network]` is simulated; repeat to compare configurations
    /// (one line each in --plot).
    #[arg(long, default_value = "perf-optimized")]
    pub ssd: Vec<String>,
    /// Traffic pattern over the flash-chip endpoints.
    #[arg(long, default_value = "uniform", value_parser = traffic())]
    pub traffic: Pattern,
    /// Offered loads, flits per endpoint per cycle (a cycle = one flit on a link), in (0, 1];
    /// a load too light to give --min-packets in --max-samples samples is flagged, not measured.
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        allow_negative_numbers = true
    )]
    pub load: Vec<f64>,
    /// Write the points as JSON to a file, or `-` for standard output.
    #[arg(long)]
    pub json: Option<String>,
    /// Draw mean latency against offered load as SVG, up to each configuration's saturation
    /// (`-`: standard output).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Cycles before sampling (BookSim: warmup_periods x sample_period).
    #[arg(long, default_value_t = Windows::default().warmup_cycles)]
    pub warmup_cycles: u64,
    /// One sample period: packets created in the samples are measured, flits delivered in
    /// them counted.
    #[arg(long, default_value_t = Windows::default().sample_cycles)]
    pub sample_cycles: u64,
    /// Samples at most: sampling stops once the mean latency changed by at most --converge
    /// over a sample with --min-packets measured (BookSim's max_samples).
    #[arg(long, default_value_t = Windows::default().max_samples)]
    pub max_samples: u32,
    /// Packets a point needs at least to be measured.
    #[arg(long, default_value_t = Windows::default().min_packets)]
    pub min_packets: u64,
    /// Largest relative change of the mean latency over a sample that counts as converged.
    #[arg(long, default_value_t = Windows::default().converge)]
    pub converge: f64,
    /// Longest wait for the measured packets after the last sample (injection goes on).
    #[arg(long, default_value_t = Windows::default().drain_cycles)]
    pub drain_cycles: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Simulations at once (default: every core).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
}

fn traffic() -> impl clap::builder::TypedValueParser<Value = Pattern> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Pattern::ALL.map(|p| p.name()))
        .map(|s| s.parse::<Pattern>().expect("a listed pattern"))
}

#[derive(Serialize)]
struct Point {
    config: String,
    #[serde(flatten)]
    point: LoadPoint,
}

#[derive(Serialize)]
struct Output<'a> {
    traffic: Pattern,
    windows: Windows,
    seed: u64,
    points: &'a [Point],
}

/// A configuration's label: a preset's name, or a file's stem (also `compare`'s ssd name).
pub(crate) fn label(spec: &str) -> String {
    Path::new(spec)
        .file_stem()
        .map_or(spec.to_string(), |s| s.to_string_lossy().into_owned())
}

pub fn net(a: NetArgs) -> Result<()> {
    if let Some(&l) = a.load.iter().find(|&&l| !(l > 0.0 && l <= 1.0)) {
        bail!("--load {l}: an offered load is in (0, 1] flits per endpoint per cycle");
    }
    if a.sample_cycles == 0 {
        bail!("--sample-cycles must be at least 1");
    }
    if a.min_packets == 0 {
        bail!("--min-packets must be at least 1");
    }
    if let Some(j) = &a.json {
        crate::out::check(Path::new(j), "--json")?;
    }
    if let Some(p) = &a.plot {
        crate::out::check(p, "--plot")?;
    }
    if a.json.as_deref() == Some("-") && a.plot.as_deref().is_some_and(crate::out::is_stdout) {
        bail!("--json and --plot both name standard output (-); give a file to one");
    }
    let cfgs: Vec<(String, SsdConfig)> = a
        .ssd
        .iter()
        .map(|s| {
            Ok((
                label(s),
                SsdConfig::load(s).with_context(|| format!("--ssd {s}"))?,
            ))
        })
        .collect::<Result<_>>()?;
    let w = Windows {
        warmup_cycles: a.warmup_cycles,
        sample_cycles: a.sample_cycles,
        drain_cycles: a.drain_cycles,
        max_samples: a.max_samples,
        min_packets: a.min_packets,
        converge: a.converge,
    };
    let cancel = crate::interrupt::cancel();
    let jobs: Vec<(usize, f64)> = (0..cfgs.len())
        .flat_map(|c| a.load.iter().map(move |&l| (c, l)))
        .collect();
    let threads = a.jobs.unwrap_or_else(crate::batch::default_threads);
    let points = crate::batch::in_pool(jobs.len(), threads, |k| {
        let (c, load) = jobs[k];
        let (name, cfg) = &cfgs[c];
        let point = run_point(cfg, a.traffic, load, w, a.seed, Some(&cancel))
            .with_context(|| format!("{name} at load {load}"))?;
        if cancel.is_set() {
            bail!("interrupted by Ctrl-C");
        }
        Ok(Point {
            config: name.clone(),
            point,
        })
    })?;
    if let Some(target) = &a.json {
        let out = Output {
            traffic: a.traffic,
            windows: w,
            seed: a.seed,
            points: &points,
        };
        crate::write_out(target, &serde_json::to_string_pretty(&out)?)?;
    }
    let stdout_taken =
        a.json.as_deref() == Some("-") || a.plot.as_deref().is_some_and(crate::out::is_stdout);
    if !stdout_taken {
        crate::out!("{}", table(a.traffic, &points))?;
    }
    if let Some(path) = &a.plot {
        let names: Vec<&String> = cfgs.iter().map(|c| &c.0).collect();
        crate::out::write(path, "--plot", plot(a.traffic, &names, &points).as_bytes())?;
    }
    Ok(())
}

fn table(traffic: Pattern, points: &[Point]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{traffic} traffic; loads in flits per endpoint per cycle, latency in cycles\n{:<20} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8}  state",
        "config", "offered", "generated", "accepted", "mean", "p50", "p99", "max", "hops", "packets"
    );
    for p in points {
        let (q, l) = (&p.point, &p.point.latency_cycles);
        if let Some(why) = &q.unmeasured {
            let _ = writeln!(s, "{:<20} {:>8} {why}", p.config, q.offered_load);
            continue;
        }
        let state = match (q.saturated, q.converged) {
            (true, _) => "saturated".to_string(),
            (false, true) => format!("converged in {} samples", q.samples),
            (false, false) => format!("not converged in {} samples", q.samples),
        };
        let _ = writeln!(
            s,
            "{:<20} {:>8} {:>9.4} {:>8.4} {:>8.1} {:>8.0} {:>8.0} {:>8.0} {:>6.2} {:>8}  {state}",
            p.config,
            q.offered_load,
            q.generated_load,
            q.accepted_load,
            l.mean,
            l.p50,
            l.p99,
            l.max,
            q.hops_mean,
            q.packets_measured,
        );
    }
    let _ = writeln!(
        s,
        "saturated: the flits in the network and its source queues grew over the samples by more than the sampling error of the flits created (3 standard deviations), or measured packets were still undelivered after the drain"
    );
    s
}

/// Mean latency against offered load, a line per configuration, each up to its last point
/// below saturation (beyond it latency grows with the run's length, not the network).
fn plot(traffic: Pattern, names: &[&String], points: &[Point]) -> String {
    let series: Vec<(String, Vec<(f64, f64)>)> = names
        .iter()
        .map(|&n| {
            let mut pts: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| &p.config == n && !p.point.saturated && p.point.unmeasured.is_none())
                .map(|p| (p.point.offered_load, p.point.latency_cycles.mean))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            (n.clone(), pts)
        })
        .collect();
    crate::plot::lines(
        &format!("Latency vs offered load, {traffic} traffic (to saturation)"),
        "offered load (flits per endpoint per cycle)",
        "mean packet latency (cycles)",
        &series,
        false,
    )
}
