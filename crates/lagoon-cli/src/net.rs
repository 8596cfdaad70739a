//! `lagoon net`: the configured network alone under synthetic traffic (issue 11), the way
//! network simulators (BookSim2, SuperSim) validate a network: latency against offered load,
//! one curve per configuration. Windows and units: `lagoon_core::interconnect::network::traffic`.

use anyhow::{bail, Context, Result};
use clap::Args;
use lagoon_core::config::SsdConfig;
use lagoon_core::interconnect::network::traffic::{
    run_point, Latency, LoadPoint, Pattern, Windows,
};
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
    /// Write the points as JSON to a file, or `-` for standard output (a load too light to
    /// measure has its measured fields null).
    #[arg(long)]
    pub json: Option<String>,
    /// Draw mean latency against offered load as SVG, a line per configuration through its
    /// loads below saturation, the saturated loads ringed beside it and loads too light to
    /// measure named under the plot (`-`: standard output).
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
    points: Vec<JsonPoint<'a>>,
}

/// A point as `--json` writes it: [`LoadPoint`]'s fields in its order, those a point reports
/// only when it was measured `null` for a load too light to measure (never 0, which reads as
/// a latency or a load).
#[derive(Serialize)]
struct JsonPoint<'a> {
    config: &'a str,
    offered_load: f64,
    generated_load: Option<f64>,
    accepted_load: Option<f64>,
    latency_cycles: Option<Latency>,
    hops_mean: Option<f64>,
    saturated: Option<bool>,
    converged: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unmeasured: Option<&'a str>,
    samples: u32,
    packets_measured: u64,
    packets_unfinished: Option<u64>,
    backlog_flits_start: Option<u64>,
    backlog_flits_end: Option<u64>,
    cycle_ns: f64,
    events: u64,
}

impl<'a> JsonPoint<'a> {
    fn of(p: &'a Point) -> Self {
        let q = &p.point;
        let m = |v| q.unmeasured.is_none().then_some(v);
        JsonPoint {
            config: &p.config,
            offered_load: q.offered_load,
            generated_load: m(q.generated_load),
            accepted_load: m(q.accepted_load),
            latency_cycles: q.unmeasured.is_none().then_some(q.latency_cycles),
            hops_mean: m(q.hops_mean),
            saturated: q.unmeasured.is_none().then_some(q.saturated),
            converged: q.unmeasured.is_none().then_some(q.converged),
            unmeasured: q.unmeasured.as_deref(),
            samples: q.samples,
            packets_measured: q.packets_measured,
            packets_unfinished: q.unmeasured.is_none().then_some(q.packets_unfinished),
            backlog_flits_start: q.unmeasured.is_none().then_some(q.backlog_flits_start),
            backlog_flits_end: q.unmeasured.is_none().then_some(q.backlog_flits_end),
            cycle_ns: q.cycle_ns,
            events: q.events,
        }
    }
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
        lagoon_lab::out::check(Path::new(j), "--json")?;
    }
    if let Some(p) = &a.plot {
        lagoon_lab::out::check(p, "--plot")?;
    }
    if a.json.as_deref() == Some("-") && a.plot.as_deref().is_some_and(lagoon_lab::out::is_stdout) {
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
    let cancel = lagoon_lab::interrupt::cancel();
    let jobs: Vec<(usize, f64)> = (0..cfgs.len())
        .flat_map(|c| a.load.iter().map(move |&l| (c, l)))
        .collect();
    let threads = a.jobs.unwrap_or_else(lagoon_lab::batch::default_threads);
    let points = lagoon_lab::batch::in_pool(jobs.len(), threads, |k| {
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
            points: points.iter().map(JsonPoint::of).collect(),
        };
        crate::write_out(target, &serde_json::to_string_pretty(&out)?)?;
    }
    let stdout_taken =
        a.json.as_deref() == Some("-") || a.plot.as_deref().is_some_and(lagoon_lab::out::is_stdout);
    if !stdout_taken {
        lagoon_lab::out!("{}", table(a.traffic, &points))?;
    }
    if let Some(path) = &a.plot {
        let names: Vec<&String> = cfgs.iter().map(|c| &c.0).collect();
        lagoon_lab::out::write(path, "--plot", plot(a.traffic, &names, &points).as_bytes())?;
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

/// Mean latency against offered load, a line per configuration through its points below
/// saturation; every saturated point drawn too, ringed and off the line (its latency grows
/// with the run's length, not the network); the loads too light to measure named under the
/// plot.
fn plot(traffic: Pattern, names: &[&String], points: &[Point]) -> String {
    let mut series = Vec::new();
    let mut saturated = Vec::new();
    let mut unmeasured = Vec::new();
    for &n in names {
        let mut pts: Vec<(f64, f64, bool)> = Vec::new();
        for p in points.iter().filter(|p| &p.config == n) {
            match p.point.unmeasured {
                Some(_) => {
                    let l = p.point.offered_load;
                    let l = if l < 1e-3 {
                        format!("{l:e}")
                    } else {
                        l.to_string()
                    };
                    unmeasured.push(format!("{l} ({n})"))
                }
                None => pts.push((
                    p.point.offered_load,
                    p.point.latency_cycles.mean,
                    p.point.saturated,
                )),
            }
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push((n.clone(), pts.iter().map(|p| (p.0, p.1)).collect()));
        saturated.push(pts.iter().map(|p| p.2).collect::<Vec<bool>>());
    }
    let notes: Vec<String> = (!unmeasured.is_empty())
        .then(|| {
            format!(
                "not drawn, too light to measure in the sampling windows: load {}",
                unmeasured.join(", ")
            )
        })
        .into_iter()
        .collect();
    let any_saturated = saturated.iter().flatten().any(|&s| s);
    let st = lagoon_lab::plot::LineStyle {
        flagged: any_saturated.then_some((
            saturated.as_slice(),
            "ringed: saturated (the mean latency of the packets delivered, which grows with the run's length)",
        )),
        notes: &notes,
        ..Default::default()
    };
    lagoon_lab::plot::lines_with(
        &st,
        &format!("Latency vs offered load, {traffic} traffic"),
        "offered load (flits per endpoint per cycle)",
        "mean packet latency (cycles)",
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a point reports only when it was measured (null otherwise).
    const MEASURED: [&str; 9] = [
        "generated_load",
        "accepted_load",
        "latency_cycles",
        "hops_mean",
        "saturated",
        "converged",
        "packets_unfinished",
        "backlog_flits_start",
        "backlog_flits_end",
    ];

    /// `--json` writes every field of a point, in [`LoadPoint`]'s order; an unmeasured
    /// point's measured fields are null.
    #[test]
    fn json_points_have_every_field_and_null_where_unmeasured() {
        let cfg = SsdConfig::load("perf-optimized").unwrap();
        for load in [0.05, 1e-15] {
            let point =
                run_point(&cfg, Pattern::Uniform, load, Windows::default(), 1, None).unwrap();
            let p = Point {
                config: "c".into(),
                point,
            };
            let whole = serde_json::to_string(&p).unwrap();
            let ours = serde_json::to_string(&JsonPoint::of(&p)).unwrap();
            let keys = |s: &str| -> Vec<String> {
                let v: serde_json::Value = serde_json::from_str(s).unwrap();
                let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
                k.sort();
                k
            };
            assert_eq!(keys(&whole), keys(&ours));
            let order = |s: &str| -> Vec<usize> {
                keys(s)
                    .iter()
                    .map(|k| s.find(&format!("\"{k}\"")).unwrap())
                    .collect()
            };
            let (a, b) = (order(&whole), order(&ours));
            let rank = |v: &[usize]| {
                let mut r: Vec<usize> = (0..v.len()).collect();
                r.sort_by_key(|&i| v[i]);
                r
            };
            assert_eq!(rank(&a), rank(&b), "{ours}");
            if load < 1e-9 {
                let v: serde_json::Value = serde_json::from_str(&ours).unwrap();
                for k in MEASURED {
                    assert!(v[k].is_null(), "{k}: {ours}");
                }
            } else {
                assert_eq!(whole, ours);
            }
        }
    }
}
