//! `lagoon reproduce PAPER --sensitivity` (issue 34): where the authors' simulator is private
//! (Venice, MQSimNet, the Decoupled SSD), or was not run on a headline (PIQ), a search over
//! the parameters the paper leaves open or ambiguous, and over some it gives, to see how far
//! a result rests on them. Each reading runs the paper's whole reproduction (the same code that
//! makes its headlines.json) with every run's drive, workload or replay changed as the reading
//! says; first one parameter at a time, then in pairs: per headline the two parameters that
//! bring it closest to the paper's value, and the pairs a paper's readings name
//! ([`declared_pairs`]). For each headline the search reports the reachable range and the
//! readings under which the paper's number comes out by the project's rule
//! ([`claims::verdict`]), or that none does.
//!
//! Output (`--out`, default results/sensitivity/PAPER): sensitivity.json (every reading,
//! every headline's value with its interval), sensitivity.csv, points/NN.json (each reading's
//! own headlines.json, with its provenance), summary.md (the evidence file the data files
//! name: what was run, how to repeat it, the ranges) and a figure per kind of headline with
//! the paper's number on the reachable range.

use super::book;
use super::claims::{self, Kind, Stat};
use super::{write_json, ReproduceArgs};
use crate::batch::Job;
use anyhow::{bail, Context, Result};
use lagoon_core::config::SsdConfig;
use lagoon_core::host::Replay;
use lagoon_core::scenario::Scenario;
use lagoon_core::workload::presets::expand_workload;
use lagoon_core::workload::synthetic::Arrival;
use lagoon_core::workload::SyntheticSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How a reading changes every run of a reproduction.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Apply {
    /// Keys laid over every run's drive (TOML, [`lagoon_core::config::SsdConfig::patched`]).
    Config { toml: String },
    /// A numeric key of every run's drive multiplied by `factor` (whole-number keys rounded):
    /// keeps the sweeps an experiment makes over that key.
    Scale { key: String, factor: f64 },
    /// Every synthetic workload's arrivals in bursts of mean length `burst` at the same mean
    /// rate (1: Poisson). Closed-loop, fixed and empirical arrivals are left as they are.
    Burst { burst: f64 },
    /// Every synthetic request starts on a page of channel 0: starts aligned to `channels x
    /// page` bytes, so under channel-first striping one channel's chips take every first page.
    OneChannel,
    /// Runs replayed by arrival times replay `speed` times faster.
    ReplaySpeed { speed: f64 },
    /// Runs replayed by arrival times run closed-loop at this depth instead.
    Closed { depth: u32 },
    /// A reading of how the reproduction computes a quantity ([`ReproduceArgs::knob`]).
    Knob { name: String, value: String },
}

impl Apply {
    /// The reading in words, as the summary shows it.
    pub fn setting(&self) -> String {
        match self {
            Apply::Config { toml } => toml.clone(),
            Apply::Scale { key, factor } => format!("{key} x {factor}"),
            Apply::Burst { burst } if *burst == 1.0 => "arrivals: Poisson (bursts of 1)".into(),
            Apply::Burst { burst } => format!("arrivals: bursts of mean length {burst}"),
            Apply::OneChannel => {
                "addresses: every request starts on channel 0 (start aligned to channels x page)"
                    .into()
            }
            Apply::ReplaySpeed { speed } => format!("timed replay at {speed}x the arrival rate"),
            Apply::Closed { depth } => format!("timed runs replayed closed-loop at QD {depth}"),
            Apply::Knob { name, value } => format!("{name} = {value}"),
        }
    }

    /// A drive as the reading gives it (itself for readings of the workload or replay).
    pub fn apply_config(&self, c: &SsdConfig) -> Result<SsdConfig> {
        let origin = || format!("sensitivity reading '{}'", self.setting());
        Ok(match self {
            Apply::Config { toml } => c.patched(toml, &origin())?,
            Apply::Scale { key, factor } => {
                let mut t = toml::Table::try_from(c)?;
                let (path, last) = key.rsplit_once('.').unwrap_or(("", key));
                let mut at = &mut t;
                for part in path.split('.').filter(|p| !p.is_empty()) {
                    at = at
                        .get_mut(part)
                        .and_then(toml::Value::as_table_mut)
                        .with_context(|| format!("{}: no section {part}", origin()))?;
                }
                let v = match at.get(last) {
                    Some(toml::Value::Integer(i)) => {
                        toml::Value::Integer(((*i as f64) * factor).round().max(1.0) as i64)
                    }
                    Some(toml::Value::Float(x)) => toml::Value::Float(x * factor),
                    _ => bail!("{}: {key} is not a numeric key", origin()),
                };
                c.patched(&format!("{key} = {v}"), &origin())?
            }
            _ => c.clone(),
        })
    }

    /// Change `sc` as the reading says; an error names the reading.
    pub fn apply(&self, sc: &mut Scenario) -> Result<()> {
        match self {
            Apply::Config { .. } | Apply::Scale { .. } => {
                sc.ssd = self.apply_config(&sc.ssd)?;
            }
            Apply::Burst { .. } | Apply::OneChannel => {
                let (channels, page) = (sc.ssd.flash.channels, sc.ssd.flash.page_bytes);
                let mut specs = Vec::new();
                for w in &sc.workloads {
                    for one in expand_workload(w)? {
                        if !SyntheticSpec::is_synthetic(&one) {
                            specs.push(one);
                            continue;
                        }
                        let mut s = SyntheticSpec::parse(&one)?;
                        match (self, s.arrival.clone()) {
                            (
                                Apply::Burst { burst },
                                Arrival::Poisson { mean_ns } | Arrival::Bursty { mean_ns, .. },
                            ) => {
                                s.arrival = if *burst == 1.0 {
                                    Arrival::Poisson { mean_ns }
                                } else {
                                    Arrival::Bursty {
                                        mean_ns,
                                        burst: *burst,
                                    }
                                };
                            }
                            (Apply::OneChannel, _) => {
                                s.align = u64::from(channels) * u64::from(page);
                            }
                            _ => {}
                        }
                        specs.push(s.to_string());
                    }
                }
                sc.workloads = specs;
            }
            Apply::ReplaySpeed { speed } => {
                if let Some(r) = timed(sc) {
                    sc.replay = Some(Replay::Timed { speedup: r * speed });
                }
            }
            Apply::Closed { depth } => {
                if timed(sc).is_some() {
                    sc.replay = Some(Replay::Closed { depth: *depth });
                }
            }
            Apply::Knob { .. } => {}
        }
        Ok(())
    }
}

/// The speed-up of a run every flow of which is replayed by arrival times
/// ([`Scenario::replay_of`]), else None.
fn timed(sc: &Scenario) -> Option<f64> {
    let mut speed = None;
    for w in &sc.workloads {
        for one in expand_workload(w).ok()? {
            let spec = SyntheticSpec::is_synthetic(&one)
                .then(|| SyntheticSpec::parse(&one))
                .transpose()
                .ok()?;
            match sc.replay_of(spec.as_ref()) {
                Replay::Timed { speedup } => speed = Some(speedup),
                _ => return None,
            }
        }
    }
    speed
}

/// Apply every reading to every job.
pub fn apply_all(reading: &[Apply], jobs: &mut [Job]) -> Result<()> {
    for j in jobs.iter_mut() {
        for r in reading {
            r.apply(&mut j.scenario)
                .with_context(|| format!("run {}", j.key.workload))?;
        }
    }
    Ok(())
}

/// One open parameter: the reading the reproduction makes and the others searched.
pub struct Axis {
    pub name: &'static str,
    /// What the paper says or leaves open, and why these readings.
    pub why: &'static str,
    pub as_built: &'static str,
    pub readings: Vec<(String, Apply)>,
}

fn cfg(label: &str, toml: &str) -> (String, Apply) {
    (label.into(), Apply::Config { toml: toml.into() })
}

fn knob(label: &str, name: &str, value: &str) -> (String, Apply) {
    (
        label.into(),
        Apply::Knob {
            name: name.into(),
            value: value.into(),
        },
    )
}

fn scale(label: &str, key: &str, factor: f64) -> (String, Apply) {
    (
        label.into(),
        Apply::Scale {
            key: key.into(),
            factor,
        },
    )
}

fn burst_axis(why: &'static str, as_built: &'static str) -> Axis {
    Axis {
        name: "arrival burstiness",
        why,
        as_built,
        readings: vec![
            ("Poisson".into(), Apply::Burst { burst: 1.0 }),
            ("bursts of 20".into(), Apply::Burst { burst: 20.0 }),
        ],
    }
}

fn rate_axis(why: &'static str) -> Axis {
    Axis {
        name: "arrival rate",
        why,
        as_built: "as the stand-ins give it",
        readings: vec![
            ("4x".into(), Apply::ReplaySpeed { speed: 4.0 }),
            ("16x".into(), Apply::ReplaySpeed { speed: 16.0 }),
            ("closed loop, QD 32".into(), Apply::Closed { depth: 32 }),
        ],
    }
}

/// The open parameters of each paper whose authors' simulator is private.
pub fn axes(paper: &str) -> Result<Vec<Axis>> {
    Ok(match paper {
        "venice" => vec![
            Axis {
                name: "host link",
                why: "Table 1 gives PCIe Gen4 x4 (8 GB/s); the authors' MQSim gives the paper's ideal-SSD speed-ups only with the link lifted (SPEC §4)",
                as_built: "8 GB/s (x4 at 2 GB/s)",
                readings: vec![
                    cfg("16 GB/s", "host.pcie_lanes = 8"),
                    cfg("32 GB/s", "host.pcie_lanes = 16"),
                ],
            },
            rate_axis("Venice runs its traces in MQSim (§5) without saying how fast they reach the drive; the stand-ins carry Table 2's mean inter-arrival times"),
            burst_axis("Table 2 gives mean inter-arrival times only; the stand-ins' bursts (B = 6.2) come from an MSR trace's CV^2", "bursts of 6.2"),
            Axis {
                name: "address skew",
                why: "the stand-ins spread addresses uniformly; real traces have hot spots, and Venice's gain is that any idle controller reaches a busy channel's chip (§3)",
                as_built: "uniform",
                readings: vec![("one hot channel".into(), Apply::OneChannel)],
            },
            Axis {
                name: "interconnect link",
                why: "given: Table 1's 8-bit 1 GHz links (1 GB/s, below the 1.2 GB/s channel); wider links test whether the link rate holds Venice back",
                as_built: "as in the preset",
                readings: vec![
                    scale("2x wider", "network.link_width_bytes", 2.0),
                    scale("4x wider", "network.link_width_bytes", 4.0),
                ],
            },
            Axis {
                name: "scout retry",
                why: "§4 re-sends a cancelled scout immediately (footnote 3 leaves when to re-send to the extended paper); Lagoon's default waits for a release (MODEL.md: immediate re-sends block other scouts)",
                as_built: "on-release",
                readings: vec![cfg("immediate", "network.scout_retry = \"immediate\"")],
            },
            Axis {
                name: "router visit bound",
                why: "given: §4 lets a scout visit a router at most three times in a 2D mesh; 1 and 8 test how much the bound matters",
                as_built: "3",
                readings: vec![
                    cfg("1", "network.max_router_visits = 1"),
                    cfg("8", "network.max_router_visits = 8"),
                ],
            },
            Axis {
                name: "page size",
                why: "given: Table 1's 4 KB (performance-optimized) and 16 KB (cost-optimized) pages; both drives at one size test how much the result rests on the transfer size",
                as_built: "4 KB (perf), 16 KB (cost)",
                readings: vec![
                    cfg("8 KB", "flash.page_bytes = 8192"),
                    cfg("16 KB", "flash.page_bytes = 16384"),
                ],
            },
            Axis {
                name: "write cache",
                why: "Table 1 does not say whether MQSim's DRAM write cache was on",
                as_built: "on",
                readings: vec![cfg("off", "cache.enabled = false")],
            },
            Axis {
                name: "conflict-free counts",
                why: "§6.3 gives the requests with 'conflict-free paths (on the first try)'; whether a wait for a free controller is a conflict is not said",
                as_built: "no wait and no failed scout",
                readings: vec![knob("no failed scout", "conflict_free", "first-scout")],
            },
        ],
        "mqsimnet" => vec![
            Axis {
                name: "link rate",
                why: "Table I gives a 1 ns network channel latency, not how many bytes a link moves per cycle",
                as_built: "as in the preset",
                readings: vec![
                    scale("2x slower", "network.link_cycle_ns", 2.0),
                    scale("4x slower", "network.link_cycle_ns", 4.0),
                    scale("2x faster", "network.link_cycle_ns", 0.5),
                ],
            },
            Axis {
                name: "packet size",
                why: "given: Table I's 64-byte flits in 512-flit packets; smaller and larger flits test how much the latency rests on them",
                as_built: "as in the preset",
                readings: vec![
                    scale("flits 4x smaller", "network.flit_bytes", 0.25),
                    scale("flits 4x larger", "network.flit_bytes", 4.0),
                ],
            },
            Axis {
                name: "router delay",
                why: "SuperSim's router latency is not given",
                as_built: "as in the preset",
                readings: vec![
                    scale("4x", "network.router_delay_cycles", 4.0),
                    scale("16x", "network.router_delay_cycles", 16.0),
                ],
            },
            rate_axis("MQSimNet runs MSR traces 'not large enough to generate high traffic' (§IV) without saying how fast they reach the drive; the stand-ins carry Venice Table 2's mean inter-arrival times"),
            burst_axis("the stand-ins' bursts (B = 6.2) come from an MSR trace's CV^2; MQSimNet's traces are not given", "bursts of 6.2"),
            Axis {
                name: "write cache",
                why: "Table I gives MQSim's DRAM write cache; whether the Table II runs had it on is not said",
                as_built: "on",
                readings: vec![cfg("off", "cache.enabled = false")],
            },
        ],
        "dssd" => vec![
            Axis {
                name: "GC rate",
                why: "§2 starts GC below 'a predetermined threshold' of free blocks; neither it nor how many victims GC takes at once is given",
                as_built: "threshold 5 %, 1 victim per plane",
                readings: vec![
                    cfg("threshold 2 %", "ftl.gc_threshold = 0.02"),
                    cfg("threshold 6 %", "ftl.gc_threshold = 0.06"),
                    cfg("4 victims per plane", "ftl.gc_victims_per_plane = 4"),
                ],
            },
            Axis {
                name: "DRAM-hit run length",
                why: "§6.1's 'DRAM hit' runs have every I/O served by the DRAM; how much they write is not given",
                as_built: "16 KB per request, at most the cache",
                readings: vec![
                    knob("a quarter of the cache", "dram_hit_fraction", "0.25"),
                    knob("the whole cache", "dram_hit_fraction", "1"),
                ],
            },
            Axis {
                name: "system bus",
                why: "given: Table 1's 8 GB/s system bus; how SimpleSSD's bus model charges each transfer is not, so x0.5 and x2 bound its effective rate",
                as_built: "as in the preset",
                readings: vec![
                    scale("0.5x", "controller.system_bus_mb_s", 0.5),
                    scale("2x", "controller.system_bus_mb_s", 2.0),
                ],
            },
            Axis {
                name: "fNoC link rate",
                why: "§6.1 gives dSSD_f's 2 GB/s links; the router and link timing of the authors' BookSim network are not given",
                as_built: "as in the preset",
                readings: vec![
                    scale("0.5x", "fnoc.link_mb_s", 0.5),
                    scale("2x", "fnoc.link_mb_s", 2.0),
                ],
            },
            Axis {
                name: "flash channel rate",
                why: "given: Table 1's 1 GB/s flash bus (1000 MHz, 8 bits); its command and timing overheads are not",
                as_built: "as in the preset",
                readings: vec![scale("0.5x", "flash.channel_mb_s", 0.5), scale("2x", "flash.channel_mb_s", 2.0)],
            },
        ],
        "superblocks" => vec![
            Axis {
                name: "endurance spread",
                why: "given: §6.4's Gaussian endurance (mean 5,578, sigma 826.9 P/E cycles); Fig. 14b varies sigma itself, these readings carry that to every headline",
                as_built: "sigma as in the preset",
                readings: vec![
                    scale("sigma 0.5x", "wear.pe_sigma", 0.5),
                    scale("sigma 2x", "wear.pe_sigma", 2.0),
                ],
            },
            Axis {
                name: "a few bad superblocks",
                why: "§6.4 gives endurance 'at the point of the small number of bad blocks' without a count; the reproduction takes 2 % of BASELINE's superblocks",
                as_built: "2 %",
                readings: vec![
                    knob("0.5 %", "at_bad", "0.005"),
                    knob("5 %", "at_bad", "0.05"),
                ],
            },
            Axis {
                name: "WAS window",
                why: "Fig. 14(c) gives the scan's size, not how many host I/Os the scan delays",
                as_built: "2,000 (quick) or 20,000 page I/Os",
                readings: vec![
                    knob("0.25x the I/Os", "was_window", "0.25"),
                    knob("4x the I/Os", "was_window", "4"),
                ],
            },
            Axis {
                name: "reserve",
                why: "given: §6.4 provisions 7 % of the blocks as RESERV's recycled blocks; 3 % and 15 % test how much RESERV's gains rest on it",
                as_built: "7 %",
                readings: vec![
                    cfg("3 %", "wear.reserve_fraction = 0.03"),
                    cfg("15 %", "wear.reserve_fraction = 0.15"),
                ],
            },
        ],
        // PIQ's simulator is public (validation/ssdsim holds its runs); the search covers the
        // numbers those runs do not measure, over the readings the SSDsim runs found decisive.
        "piq" => vec![
            Axis {
                name: "device slots",
                why: "§V-A does not give how many requests SSDsim's device holds; SSDsim's default is 5 and the PIQ effects vanish at 16-32 (validation/ssdsim)",
                as_built: "5 (SSDsim's default)",
                readings: vec![
                    scale("x 3.2 (16)", "host.io_queue_depth", 3.2),
                    scale("x 6.4 (32)", "host.io_queue_depth", 6.4),
                ],
            },
            Axis {
                name: "arrival rate",
                why: "the paper replays MSR traces whose recorded rates are light; validation/ssdsim finds the paper's sizes only at 100-1000x",
                as_built: "as recorded",
                readings: vec![
                    ("10x".into(), Apply::ReplaySpeed { speed: 10.0 }),
                    ("100x".into(), Apply::ReplaySpeed { speed: 100.0 }),
                    ("1000x".into(), Apply::ReplaySpeed { speed: 1000.0 }),
                ],
            },
            Axis {
                name: "write completion",
                why: "SSDsim completes a write at its transfer; whether the paper's latencies count the program is not said",
                as_built: "at transfer (SSDsim)",
                readings: vec![cfg("at program", "ftl.write_completion = \"program\"")],
            },
        ],
        other => bail!("--sensitivity: {other} has no sensitivity search"),
    })
}

/// Pairs of axes searched together whatever the one-at-a-time runs show, with the reason: an
/// interaction the authors' simulator or the paper points at (one axis alone cannot show it).
pub fn declared_pairs(paper: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    match paper {
        "venice" => vec![("host link", "arrival rate", "MQSim gives the paper's ideal-SSD speed-ups only with the host link lifted and a saturating replay (SPEC §4)")],
        "dssd" => vec![("GC rate", "DRAM-hit run length", "the two readings issue 34 names for the dSSD designs")],
        _ => vec![],
    }
}

/// One reading of the search: a label per axis it changes (none: as built).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    pub id: String,
    /// Axis name -> the reading's label; axes not named are as built.
    pub readings: BTreeMap<String, String>,
    pub settings: Vec<String>,
    pub values: BTreeMap<String, Stat>,
    pub runs: usize,
    pub wall_s: f64,
}

/// Per headline: the paper's value, the as-built reading's, the reachable range and the
/// readings that give the paper's value by the rule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reach {
    pub id: String,
    pub quantity: String,
    pub kind: Kind,
    pub unit: String,
    pub paper: f64,
    pub as_built: f64,
    pub low: f64,
    pub low_at: String,
    pub high: f64,
    pub high_at: String,
    /// Points whose mean gives the paper's value by the rule.
    pub reproduced_at: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AxisOut {
    pub name: String,
    pub why: String,
    pub as_built: String,
    pub readings: Vec<(String, String)>,
    /// Mean over headlines of the largest fraction of the as-built gap to the paper's value
    /// (in the rule's measure) one of the axis's readings closes.
    pub toward_paper: f64,
}

/// Two axes searched together, and the headlines whose two best axes they are (a declared
/// pair's reason in parentheses).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pair {
    pub axes: [String; 2],
    pub for_headlines: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Search {
    pub paper: String,
    pub command: String,
    pub per_reading: String,
    pub lagoon: String,
    pub commit: String,
    pub seeds: Vec<u64>,
    pub axes: Vec<AxisOut>,
    pub pairwise: Vec<Pair>,
    pub points: Vec<Point>,
    pub headlines: Vec<Reach>,
}

impl Search {
    /// `dir/sensitivity.json`, checked ([`Search::check`]).
    pub fn read(dir: &Path) -> Result<Self> {
        super::folder::read_checked(dir, JSON, Search::check)
    }

    /// What a sensitivity.json must hold to be drawn from (issue 42): a paper Lagoon knows,
    /// 1 to 100 seeds, each point and headline once, every value finite and inside its
    /// interval, each headline's range the lowest and highest of the points' values and its
    /// as-built value the first point's, and the paper's value finite.
    pub fn check(&self) -> Result<()> {
        use super::folder::shown;
        super::check_paper(&self.paper)?;
        if !(1..=100).contains(&self.seeds.len()) {
            bail!("seeds: {} of them; a search has 1 to 100", self.seeds.len());
        }
        let mut ids = std::collections::BTreeSet::new();
        for (i, p) in self.points.iter().enumerate() {
            let at = format!("points[{i}] (id {})", shown(&p.id));
            if !ids.insert(p.id.as_str()) {
                bail!("{at}: the id is given twice");
            }
            if !(p.wall_s.is_finite() && p.wall_s >= 0.0) {
                bail!("{at}: wall_s {}: not a number of seconds", p.wall_s);
            }
            for (h, st) in &p.values {
                claims::check_stat(st).map_err(|e| anyhow::anyhow!("{at}: {}: {e}", shown(h)))?;
            }
        }
        let mut ids = std::collections::BTreeSet::new();
        for (i, r) in self.headlines.iter().enumerate() {
            let at = format!("headlines[{i}] (id {})", shown(&r.id));
            if !ids.insert(r.id.as_str()) {
                bail!("{at}: the id is given twice");
            }
            let finite = [r.paper, r.as_built, r.low, r.high]
                .iter()
                .all(|v| v.is_finite());
            if !finite || r.as_built < r.low || r.as_built > r.high {
                bail!(
                    "{at}: paper {}, as built {}, range {} to {}: not finite numbers, or as built outside the range",
                    r.paper,
                    r.as_built,
                    r.low,
                    r.high
                );
            }
            if r.reproduced_at.len() > self.points.len() {
                bail!("{at}: reproduced at more readings than the search has");
            }
            // The range is the points' own: lowest and highest of their values, as built the
            // first point's.
            let v: Vec<f64> = self
                .points
                .iter()
                .filter_map(|p| p.values.get(&r.id).map(|s| s.mean))
                .collect();
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            let first = self.points.first().and_then(|p| p.values.get(&r.id));
            if (lo, hi) != (r.low, r.high) || first.map(|s| s.mean) != Some(r.as_built) {
                bail!("{at}: range {} to {} (as built {}), but the points give {lo} to {hi} (as built {:?})", r.low, r.high, r.as_built, first.map(|s| s.mean));
            }
        }
        for (i, ax) in self.axes.iter().enumerate() {
            if !ax.toward_paper.is_finite() {
                bail!(
                    "axes[{i}] ({}): toward_paper {}: not a finite number",
                    shown(&ax.name),
                    ax.toward_paper
                );
            }
        }
        Ok(())
    }
}

/// A point's readings as "axis: reading + axis: reading" (empty as built).
fn joined(readings: &BTreeMap<String, String>) -> String {
    readings
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// A point as the summary names it: its readings, or "as built".
fn label(readings: &BTreeMap<String, String>) -> String {
    if readings.is_empty() {
        "as built".into()
    } else {
        joined(readings)
    }
}

/// The rule's measure of a value: a ratio's effect, a rate's complement, an absolute value.
fn measure(kind: Kind, v: f64) -> f64 {
    match kind {
        Kind::Ratio => v - 1.0,
        Kind::Rate => 1.0 - v,
        Kind::Absolute => v,
    }
}

pub const JSON: &str = "sensitivity.json";

/// `lagoon reproduce PAPER --sensitivity`.
pub fn run(a: &ReproduceArgs) -> Result<()> {
    let axes = axes(&a.paper)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("results/sensitivity/{}", a.paper)));
    if crate::out::is_stdout(&out) {
        bail!("--out names the directory the search writes; - (standard output) is not one");
    }
    if a.render_only {
        if !super::folder::has(&out, JSON) {
            bail!(
                "--render-only: {} holds no sensitivity search (no {JSON})",
                out.display()
            );
        }
        let s = Search::read(&out)?;
        if s.paper != a.paper {
            bail!(
                "--render-only: {} is a search of {}, not {}",
                out.display(),
                s.paper,
                a.paper
            );
        }
        return render(&out, &s);
    }
    if out.exists() && std::fs::read_dir(&out)?.next().is_some() && !out.join(JSON).is_file() {
        bail!(
            "--out {}: exists and is not a sensitivity search's output (no {JSON}); give a new or empty directory",
            out.display()
        );
    }
    let work = book::work_dir(&out);
    std::fs::create_dir_all(work.join("points")).with_context(|| {
        format!(
            "--out {}: cannot create {} beside it",
            out.display(),
            work.display()
        )
    })?;
    let done = search(a, &axes, &work).and_then(|()| book::finish_dir(&work, &out));
    if let Err(e) = done {
        let _ = std::fs::remove_dir_all(&work);
        return Err(e);
    }
    if !a.quiet {
        eprintln!("sensitivity: {}", out.join("summary.md").display());
    }
    Ok(())
}

fn search(a: &ReproduceArgs, axes: &[Axis], work: &Path) -> Result<()> {
    let seeds = a.seeds.or(Some(1));
    let one = |reading: Vec<Apply>, dir: PathBuf| ReproduceArgs {
        out: Some(dir),
        notes: None,
        seeds,
        render_only: false,
        refresh_evidence: false,
        sensitivity: false,
        quiet: true,
        work: None,
        reading,
        ..a.clone()
    };
    // Points: as built, then each axis's readings one at a time.
    let mut plan: Vec<BTreeMap<String, (String, Apply)>> = vec![BTreeMap::new()];
    for ax in axes {
        for r in &ax.readings {
            plan.push(BTreeMap::from([(ax.name.to_string(), r.clone())]));
        }
    }
    let pb = crate::progress::Progress::new(
        a.quiet,
        None,
        "readings",
        "{spinner} [{elapsed_precise}] {pos} {unit} {msg}",
        &format!(" of {}'s parameters", a.paper),
    );
    let mut points: Vec<Point> = Vec::new();
    let run_point = |p: &BTreeMap<String, (String, Apply)>,
                     points: &mut Vec<Point>|
     -> Result<claims::HeadlinesFile> {
        let id = format!("{:02}", points.len());
        let readings: BTreeMap<String, String> =
            p.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect();
        let label = label(&readings);
        pb.set_message(label.clone());
        let dir = work.join(format!(".point-{id}"));
        let reading: Vec<Apply> = p.values().map(|v| v.1.clone()).collect();
        let t0 = std::time::Instant::now();
        super::reproduce(one(reading, dir.clone())).with_context(|| format!("reading {label}"))?;
        let h = claims::read_headlines(&dir)?;
        std::fs::copy(
            dir.join("headlines.json"),
            work.join("points").join(format!("{id}.json")),
        )?;
        std::fs::remove_dir_all(&dir)?;
        let values = h
            .headlines
            .iter()
            .filter_map(|x| x.lagoon.map(|s| (x.id.clone(), s)))
            .collect();
        points.push(Point {
            id,
            readings,
            settings: p.values().map(|v| v.1.setting()).collect(),
            values,
            runs: h.provenance.runs,
            wall_s: (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        });
        pb.inc(1);
        Ok(h)
    };
    let mut base = None;
    for p in &plan {
        let h = run_point(p, &mut points)?;
        base.get_or_insert(h);
    }
    let base = base.context("no reading ran")?;
    // How far an axis moves a headline toward the paper: the largest fraction of the
    // as-built reading's gap to the paper's value (in the rule's measure) that one of the
    // axis's readings closes (0 when none closes any; None without a gap).
    let closes = |name: &str, x: &claims::Headline| -> Option<f64> {
        let kind = x.paper.kind;
        let target = measure(kind, x.paper.value);
        let gap = |v: f64| (measure(kind, v) - target).abs();
        let g0 = gap(points[0].values.get(&x.id)?.mean);
        if g0.is_nan() || g0 <= 0.0 {
            return None;
        }
        Some(
            points
                .iter()
                .filter(|p| !p.readings.is_empty() && p.readings.keys().all(|k| k == name))
                .filter_map(|p| p.values.get(&x.id).map(|s| gap(s.mean)))
                .filter(|g| g.is_finite())
                .map(|g| (g0 - g) / g0)
                .fold(0.0, f64::max),
        )
    };
    let axes_out: Vec<AxisOut> = axes
        .iter()
        .map(|ax| {
            let v: Vec<f64> = base
                .headlines
                .iter()
                .filter_map(|x| closes(ax.name, x))
                .collect();
            AxisOut {
                name: ax.name.into(),
                why: ax.why.into(),
                as_built: ax.as_built.into(),
                readings: ax
                    .readings
                    .iter()
                    .map(|(l, r)| (l.clone(), r.setting()))
                    .collect(),
                toward_paper: if v.is_empty() {
                    0.0
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                },
            }
        })
        .collect();
    // Pairs: for each headline the two axes that close most of its gap (both closing some),
    // and the pairs the paper's readings name ([`declared_pairs`]); every reading of one
    // with every reading of the other.
    let mut pairs: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut pair = |a1: &str, a2: &str, what: String| {
        let (p, q) = if a1 < a2 { (a1, a2) } else { (a2, a1) };
        pairs
            .entry((p.to_string(), q.to_string()))
            .or_default()
            .push(what);
    };
    for x in &base.headlines {
        let mut by: Vec<(f64, &str)> = axes
            .iter()
            .filter_map(|ax| closes(ax.name, x).map(|c| (c, ax.name)))
            .filter(|(c, _)| *c > 0.0)
            .collect();
        by.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        if let [(_, a1), (_, a2), ..] = by[..] {
            pair(a1, a2, x.id.clone());
        }
    }
    for (a1, a2, why) in declared_pairs(&a.paper) {
        pair(a1, a2, format!("({why})"));
    }
    let by_name = |n: &str| {
        axes.iter()
            .find(|ax| ax.name == n)
            .expect("an axis of the paper")
    };
    let mut pairwise = Vec::new();
    for ((n1, n2), why) in &pairs {
        let (ax1, ax2) = (by_name(n1), by_name(n2));
        for r1 in &ax1.readings {
            for r2 in &ax2.readings {
                let p = BTreeMap::from([
                    (ax1.name.to_string(), r1.clone()),
                    (ax2.name.to_string(), r2.clone()),
                ]);
                run_point(&p, &mut points)?;
            }
        }
        pairwise.push(Pair {
            axes: [n1.clone(), n2.clone()],
            for_headlines: why.clone(),
        });
    }
    pb.finish_and_clear();
    let mut reach = Vec::new();
    for x in &base.headlines {
        let (kind, paper) = (x.paper.kind, x.paper.value);
        let at: Vec<(&Point, f64)> = points
            .iter()
            .filter_map(|p| p.values.get(&x.id).map(|s| (p, s.mean)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        let Some(&(p0, v0)) = at.first() else {
            continue;
        };
        let (mut lo, mut hi) = ((p0, v0), (p0, v0));
        for &(p, v) in &at {
            if v < lo.1 {
                lo = (p, v);
            }
            if v > hi.1 {
                hi = (p, v);
            }
        }
        reach.push(Reach {
            id: x.id.clone(),
            quantity: x.quantity.clone(),
            kind,
            unit: x.paper.unit.clone(),
            paper,
            as_built: points[0].values.get(&x.id).map_or(f64::NAN, |s| s.mean),
            low: lo.1,
            low_at: label(&lo.0.readings),
            high: hi.1,
            high_at: label(&hi.0.readings),
            reproduced_at: at
                .iter()
                .filter(|(_, v)| claims::verdict(kind, paper, *v).0)
                .map(|(p, _)| label(&p.readings))
                .collect(),
        });
    }
    let per_reading = ReproduceArgs {
        sensitivity: false,
        out: None,
        notes: None,
        seeds,
        ..a.clone()
    }
    .command_line();
    let s = Search {
        paper: a.paper.clone(),
        command: a.command_line(),
        per_reading,
        lagoon: crate::provenance::VERSION.into(),
        commit: crate::provenance::COMMIT.into(),
        seeds: base.provenance.seeds.clone(),
        axes: axes_out,
        pairwise,
        points,
        headlines: reach,
    };
    write_json(&work.join(JSON), &s)?;
    write_csv(&work.join("sensitivity.csv"), &s, &base)?;
    render(work, &s)
}

fn write_csv(p: &Path, s: &Search, h: &claims::HeadlinesFile) -> Result<()> {
    let mut w = super::csv_file(
        p,
        &[
            "point",
            "readings",
            "headline",
            "value",
            "ci95_lo",
            "ci95_hi",
            "paper",
            "reproduces",
        ],
    )?;
    for pt in &s.points {
        let readings = joined(&pt.readings);
        for x in &h.headlines {
            let Some(st) = pt.values.get(&x.id) else {
                continue;
            };
            let (lo, hi) = st.ci95.map_or((String::new(), String::new()), |c| {
                (format!("{}", c[0]), format!("{}", c[1]))
            });
            w.write_record([
                pt.id.clone(),
                readings.clone(),
                x.id.clone(),
                format!("{}", st.mean),
                lo,
                hi,
                format!("{}", x.paper.value),
                claims::verdict(x.paper.kind, x.paper.value, st.mean)
                    .0
                    .to_string(),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

/// A value as the summary prints it.
fn show(kind: Kind, v: f64, unit: &str) -> String {
    let shown = book::fmt_value(v, unit, kind);
    match (kind, unit) {
        (Kind::Rate, _) | (_, "%") => shown,
        (_, u) => format!("{shown} {u}"),
    }
}

/// summary.md and the figures of the search `s`, into `dir`.
pub fn render(dir: &Path, s: &Search) -> Result<()> {
    let mut m = String::new();
    let _ = writeln!(
        m,
        "# Sensitivity search: {}\n\nWritten by `{}` from its runs (`{JSON}`, `sensitivity.csv`, and each reading's own headlines.json with its provenance in `points/`); nothing here is written by hand. Lagoon {} at commit {}.\n",
        s.paper, s.command, s.lagoon, s.commit
    );
    let _ = writeln!(
        m,
        "Each reading runs the whole reproduction, `{}`, with every run changed as the reading says, on seeds {:?}; a value is the reproduction's headline (the mean over those seeds). First each parameter's readings one at a time (the others as built), then, for each headline, every pair of readings of the two parameters that bring it closest to the paper's value, and the pairs the paper's readings name (below). A reading gives the paper's number when the project's rule (the headlines' `rule`) holds between the paper's value and the reading's.\n\nTo repeat: `{}`.\n",
        s.per_reading,
        s.seeds,
        s.command
    );
    let _ = writeln!(m, "## The parameters\n\n| parameter | as built | readings searched | what the paper gives or leaves open | toward the paper |\n|---|---|---|---|---|");
    for ax in &s.axes {
        let r = ax
            .readings
            .iter()
            .map(|(l, set)| format!("{l} (`{set}`)"))
            .collect::<Vec<_>>()
            .join("; ");
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {:.3} |",
            ax.name, ax.as_built, r, ax.why, ax.toward_paper
        );
    }
    let _ = writeln!(m, "\nToward the paper: per headline, the largest fraction of the as-built reading's gap to the paper's value that one of the parameter's readings closes, in the rule's measure (a ratio's effect, a rate's complement, an absolute value); 0 when none closes any; the mean over headlines.\n\n## Pairs searched\n\n| parameters | for (the headlines whose two best parameters they are; a named pair's reason in parentheses) |\n|---|---|");
    for p in &s.pairwise {
        let _ = writeln!(
            m,
            "| {} and {} | {} |",
            p.axes[0],
            p.axes[1],
            p.for_headlines
                .iter()
                .map(|h| if h.starts_with('(') {
                    h.clone()
                } else {
                    format!("`{h}`")
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(m);
    let reached = s
        .headlines
        .iter()
        .filter(|r| !r.reproduced_at.is_empty())
        .count();
    let _ = writeln!(
        m,
        "## Every headline\n\n{} of {} headlines come out as the paper's under at least one reading; {} under none.\n\n| headline | paper | as built | reachable range (lowest at; highest at) | readings that give the paper's value |\n|---|---|---|---|---|",
        reached,
        s.headlines.len(),
        s.headlines.len() - reached
    );
    for r in &s.headlines {
        let by = if r.reproduced_at.is_empty() {
            "none".to_string()
        } else {
            r.reproduced_at.join("; ")
        };
        let _ = writeln!(
            m,
            "| `{}` | {} | {} | {} to {} ({}; {}) | {} |",
            r.id,
            show(r.kind, r.paper, &r.unit),
            show(r.kind, r.as_built, &r.unit),
            show(r.kind, r.low, &r.unit),
            show(r.kind, r.high, &r.unit),
            r.low_at,
            r.high_at,
            by
        );
    }
    let _ = writeln!(
        m,
        "\n## Every reading\n\n| point | readings | runs | wall s |\n|---|---|---|---|"
    );
    for p in &s.points {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} |",
            p.id,
            if p.settings.is_empty() {
                "as built".to_string()
            } else {
                p.settings
                    .iter()
                    .map(|x| format!("`{x}`"))
                    .collect::<Vec<_>>()
                    .join(" + ")
            },
            p.runs,
            p.wall_s
        );
    }
    let mut figs = Vec::new();
    for (kind, file, axis) in [
        (
            Kind::Ratio,
            "sensitivity_ratios.svg",
            "value (x); the paper's effect is measured from 1",
        ),
        (Kind::Rate, "sensitivity_rates.svg", "requests (%)"),
        (Kind::Absolute, "sensitivity_absolute.svg", "value"),
    ] {
        let rows: Vec<crate::plot::Range> = s
            .headlines
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| {
                let k = if kind == Kind::Rate { 100.0 } else { 1.0 };
                crate::plot::Range {
                    label: r.id.clone(),
                    low: k * r.low,
                    high: k * r.high,
                    mark: k * r.as_built,
                    target: k * r.paper,
                }
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let x_label = if kind == Kind::Absolute {
            format!(
                "{} ({})",
                axis,
                s.headlines
                    .iter()
                    .find(|r| r.kind == kind)
                    .map_or("", |r| r.unit.as_str())
            )
        } else {
            axis.to_string()
        };
        let svg = crate::plot::ranges(
            &format!(
                "{}: reachable range of each headline over {} readings",
                s.paper,
                s.points.len()
            ),
            &x_label,
            &rows,
            (kind == Kind::Ratio).then_some(1.0),
            (kind == Kind::Rate).then_some(100.0),
        );
        figs.push((file, svg));
    }
    let _ = writeln!(m, "\n## Figures\n");
    for (f, _) in &figs {
        let _ = writeln!(m, "![{f}]({f})\n");
    }
    let _ = writeln!(
        m,
        "Bars: the range the readings reach; dot: as built; diamond: the paper's value."
    );
    // Every name written checked before the first write (a link to outside).
    for f in figs.iter().map(|f| f.0).chain(["summary.md"]) {
        super::folder::path(dir, f)?;
    }
    for (f, svg) in &figs {
        super::folder::write(dir, f, svg)?;
    }
    super::folder::write(dir, "summary.md", &m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lagoon_core::interconnect::Arch;

    fn scenario(w: &str) -> Scenario {
        Scenario::new(
            "perf-optimized",
            SsdConfig::load("perf-optimized").unwrap(),
            Arch::Baseline,
            vec![w.to_string()],
        )
    }

    fn spec(sc: &Scenario, i: usize) -> SyntheticSpec {
        SyntheticSpec::parse(&sc.workloads[i]).unwrap()
    }

    /// Bursts keep each stand-in's mean inter-arrival time; Poisson is bursts of one; a
    /// closed-loop spec is left alone.
    #[test]
    fn a_burst_reading_keeps_the_mean_rate() {
        let mut sc = scenario("syn:hm_0,count=100");
        let Arrival::Bursty { mean_ns, burst } = spec(&sc, 0).arrival else {
            panic!("hm_0 is bursty")
        };
        assert_eq!(burst, 6.2);
        Apply::Burst { burst: 20.0 }.apply(&mut sc).unwrap();
        assert_eq!(
            spec(&sc, 0).arrival,
            Arrival::Bursty {
                mean_ns,
                burst: 20.0
            }
        );
        Apply::Burst { burst: 1.0 }.apply(&mut sc).unwrap();
        assert_eq!(spec(&sc, 0).arrival, Arrival::Poisson { mean_ns });
        let mut qd = scenario("syn:read=100,arrival=qd:8,count=10");
        Apply::Burst { burst: 20.0 }.apply(&mut qd).unwrap();
        assert_eq!(spec(&qd, 0).arrival, Arrival::ClosedLoop { depth: 8 });
    }

    /// A mix becomes its flows, each changed; the other keys of every flow stay.
    #[test]
    fn a_mix_is_read_flow_by_flow() {
        let mut sc = scenario("syn:mix1,count=300");
        let flows = expand_workload("syn:mix1,count=300").unwrap();
        Apply::OneChannel.apply(&mut sc).unwrap();
        assert_eq!(sc.workloads.len(), flows.len());
        for (i, f) in flows.iter().enumerate() {
            let (mut was, now) = (SyntheticSpec::parse(f).unwrap(), spec(&sc, i));
            assert_eq!(now.align, 8 * 4096);
            was.align = now.align;
            assert_eq!(was, now);
        }
    }

    /// The replay readings change only runs replayed by arrival times.
    #[test]
    fn replay_readings_change_only_timed_runs() {
        let mut sc = scenario("syn:hm_0,count=10");
        Apply::ReplaySpeed { speed: 4.0 }.apply(&mut sc).unwrap();
        assert_eq!(sc.replay, Some(Replay::Timed { speedup: 4.0 }));
        Apply::ReplaySpeed { speed: 4.0 }.apply(&mut sc).unwrap();
        assert_eq!(sc.replay, Some(Replay::Timed { speedup: 16.0 }));
        Apply::Closed { depth: 32 }.apply(&mut sc).unwrap();
        assert_eq!(sc.replay, Some(Replay::Closed { depth: 32 }));
        let mut qd = scenario("syn:read=100,arrival=qd:8,count=10");
        Apply::ReplaySpeed { speed: 4.0 }.apply(&mut qd).unwrap();
        Apply::Closed { depth: 32 }.apply(&mut qd).unwrap();
        assert_eq!(qd.replay, None);
    }

    /// A scale multiplies the run's own value (so an experiment's sweep over the key stays a
    /// sweep), rounds whole-number keys, and names the reading when the key is wrong.
    #[test]
    fn a_scale_multiplies_the_runs_own_value() {
        let mut sc = scenario("syn:hm_0,count=10");
        sc.ssd.controller.system_bus_mb_s = 3000.0;
        Apply::Scale {
            key: "controller.system_bus_mb_s".into(),
            factor: 0.5,
        }
        .apply(&mut sc)
        .unwrap();
        assert_eq!(sc.ssd.controller.system_bus_mb_s, 1500.0);
        let w = sc.ssd.network.link_width_bytes;
        Apply::Scale {
            key: "network.link_width_bytes".into(),
            factor: 2.0,
        }
        .apply(&mut sc)
        .unwrap();
        assert_eq!(sc.ssd.network.link_width_bytes, 2 * w);
        for bad in ["network.no_such_key", "nosection.key", "network.routing"] {
            let e = Apply::Scale {
                key: bad.into(),
                factor: 2.0,
            }
            .apply(&mut sc)
            .unwrap_err();
            let e = format!("{e:#}");
            assert!(
                e.contains("sensitivity reading")
                    && e.contains(bad.split('.').next_back().unwrap()),
                "{e}"
            );
        }
        let e = Apply::Config {
            toml: "flash.page_bytes = 3".into(),
        }
        .apply(&mut sc)
        .unwrap_err();
        assert!(format!("{e:#}").contains("flash.page_bytes"), "{e:#}");
    }

    /// Every paper's axes read a valid drive on the paper's own preset(s), and every reading
    /// changes something on one of them.
    #[test]
    fn every_reading_of_every_paper_applies() {
        let mut changed: BTreeMap<(String, String), bool> = BTreeMap::new();
        for (paper, preset, w) in [
            ("venice", "perf-optimized", "syn:hm_0,count=10"),
            ("venice", "cost-optimized", "syn:mix2,count=10"),
            ("mqsimnet", "mqsimnet", "syn:hm_0,count=10"),
            ("dssd", "dssd-ull", "syn:read=0,size=128k,addr=seq,count=16"),
            ("superblocks", "dssd-superblock", "syn:read=0,count=16"),
            (
                "piq",
                "piq-ssdsim",
                "syn:read=50,arrival=poisson:100us,count=16",
            ),
        ] {
            for ax in axes(paper).unwrap() {
                assert!(!ax.readings.is_empty(), "{paper}: {}", ax.name);
                for (label, r) in &ax.readings {
                    let mut sc = scenario(w);
                    sc.ssd = SsdConfig::load(preset).unwrap();
                    if paper == "piq" {
                        // The reproduction's headline device completes writes at transfer.
                        sc.ssd.ftl.write_completion =
                            lagoon_core::config::WriteCompletion::Transfer;
                    }
                    let was = (
                        toml::to_string(&sc.ssd).unwrap(),
                        sc.workloads.clone(),
                        sc.replay,
                    );
                    r.apply(&mut sc)
                        .unwrap_or_else(|e| panic!("{paper}: {} {label}: {e:#}", ax.name));
                    let now = (
                        toml::to_string(&sc.ssd).unwrap(),
                        sc.workloads.clone(),
                        sc.replay,
                    );
                    *changed
                        .entry((paper.to_string(), format!("{}: {label}", ax.name)))
                        .or_default() |= now != was || matches!(r, Apply::Knob { .. });
                }
            }
        }
        for ((paper, reading), c) in changed {
            assert!(c, "{paper}: {reading} changed nothing");
        }
        assert!(axes("nopaper").is_err());
    }
}
