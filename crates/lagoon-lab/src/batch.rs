//! Many independent simulations on a few threads with one progress bar: what `compare` and
//! `reproduce` run. Results come back in job order whatever the thread count, so outputs are
//! byte-identical between runs. Thousands of runs belong on a cluster (SPEC §5: through Dask),
//! not here.

use anyhow::{anyhow, Result};
use lagoon_core::config::SsdConfig;
use lagoon_core::lifetime::{self, LifetimeReport, LifetimeSpec};
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;
use lagoon_core::ssd::dynamic_superblock::BlockRemap;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a run is, as the figure and table code looks it up.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunKey {
    pub experiment: String,
    pub ssd: String,
    /// Flash array / mesh as ROWSxCOLS.
    pub mesh: String,
    pub replay: String,
    pub workload: String,
    pub design: String,
}

pub struct Job {
    pub key: RunKey,
    pub scenario: Scenario,
}

impl Job {
    /// Run the simulation; an error names the run.
    pub fn run(&self) -> Result<Record> {
        let k = &self.key;
        self.scenario
            .run(|_| {})
            .map(|r| {
                let mut rec = Record::new(k.clone(), &r);
                rec.config_hash = crate::provenance::config_hash(&self.scenario.ssd);
                rec
            })
            .map_err(|e| {
                anyhow!(
                    "run {} / {} / {} / {} / {}: {e}",
                    k.experiment,
                    k.ssd,
                    k.mesh,
                    k.workload,
                    k.design
                )
            })
    }
}

/// A functional lifetime ([`lifetime::age`]): a drive written to death, or to an age, with no
/// timing model (`reproduce superblocks`). It comes back as its report and the aged drive's
/// block remapping.
#[derive(Clone, Debug)]
pub struct AgeJob {
    /// What it is, for errors and progress ("fig14a RESERV|0.1").
    pub name: String,
    pub cfg: SsdConfig,
    pub spec: LifetimeSpec,
    /// Stops the lifetime when set (Ctrl-C); it does not travel to Dask workers.
    pub cancel: Option<lagoon_core::cancel::Cancel>,
}

pub type Aged = (LifetimeReport, BlockRemap);

impl AgeJob {
    /// Age the drive; `progress(done)` now and then with page programs done. An error names
    /// the lifetime.
    pub fn run(&self, mut progress: impl FnMut(u64)) -> Result<Aged> {
        lifetime::age_cancellable(&self.cfg, &self.spec, self.cancel.as_ref(), |d, _| {
            progress(d)
        })
        .map_err(|e| anyhow!("{}: {e}", self.name))
    }
}

/// The numbers the tables and figures use, from one run's report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub key: RunKey,
    #[serde(default = "first_seed")]
    pub seed: u64,
    pub requests: u64,
    pub sim_time_ns: f64,
    pub iops: f64,
    pub mean_latency_us: f64,
    /// Submission queue entry to completion (no host-side wait).
    pub device_latency_us: f64,
    pub p99_latency_us: f64,
    pub read_latency_us: f64,
    pub write_latency_us: f64,
    /// Time in the host before the device fetched the request (backlog and host scheduler).
    pub read_host_wait_us: f64,
    pub write_host_wait_us: f64,
    /// Average number of chips busy (PIQ's chip utilization).
    pub mean_busy_chips: f64,
    /// Requests that conflicted with one already in the host scheduler (PIQ Table I).
    pub scheduler_conflict_fraction: Option<f64>,
    /// The host scheduler's counts (PIQ Table I, Figs. 2a and 9): reads and writes that entered
    /// it, the fraction of each that conflicted on entry, and the fraction of reads it
    /// dispatched ahead of a write that arrived before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_reads: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_writes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_conflict_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_conflict_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prioritized_read_fraction: Option<f64>,
    /// Requests none of whose transfers waited for an FC or path (Venice §6.3's
    /// "conflict-free on the first try").
    pub conflict_free_fraction: f64,
    /// Venice: transfers whose first scout reserved a path.
    pub first_try_transfer_fraction: Option<f64>,
    /// `--arch net`: mean time from a message's hand-over to the network to its arrival.
    pub network_latency_ns: Option<f64>,
    pub energy_mj: Option<f64>,
    pub average_power_mw: Option<f64>,
    /// Controller model (dSSD): GC page moves per second while host I/O runs (up to the
    /// last completion), MB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_bus_utilization: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_mb_s: Option<f64>,
    #[serde(skip)]
    pub cdf: Vec<(u64, f64)>,
    /// `--timeline` CSV, when the run recorded one.
    #[serde(skip)]
    pub timeline_csv: Option<String>,
    /// Controller model counters (dSSD figures: latency breakdown, dBUF waits).
    #[serde(skip)]
    pub controller: Option<lagoon_core::ssd::datapath::ControllerStats>,
    /// [`crate::provenance::config_hash`] of the drive simulated.
    #[serde(default)]
    pub config_hash: String,
}

fn first_seed() -> u64 {
    1
}

impl Record {
    pub fn new(key: RunKey, r: &Report) -> Self {
        let sched = || r.flows.first().and_then(|f| f.host_scheduler.as_ref());
        Record {
            key,
            seed: r.seed,
            requests: r.requests,
            sim_time_ns: r.sim_time_ns,
            iops: r.iops,
            mean_latency_us: r.latency_ns.mean / 1e3,
            device_latency_us: r.device_latency_ns.mean / 1e3,
            p99_latency_us: r.latency_ns.p99 as f64 / 1e3,
            read_latency_us: r.read_latency_ns.mean / 1e3,
            write_latency_us: r.write_latency_ns.mean / 1e3,
            read_host_wait_us: (r.read_latency_ns.mean - r.device_read_latency_ns.mean).max(0.0)
                / 1e3,
            write_host_wait_us: (r.write_latency_ns.mean - r.device_write_latency_ns.mean).max(0.0)
                / 1e3,
            mean_busy_chips: r.mean_busy_chips,
            scheduler_conflict_fraction: r.flows.first().and_then(|f| {
                let h = f.host_scheduler.as_ref()?;
                Some(
                    (h.read_conflicts + h.write_conflicts) as f64
                        / (h.reads + h.writes).max(1) as f64,
                )
            }),
            host_reads: sched().map(|h| h.reads),
            host_writes: sched().map(|h| h.writes),
            read_conflict_fraction: sched()
                .and_then(|h| (h.reads > 0).then(|| h.read_conflicts as f64 / h.reads as f64)),
            write_conflict_fraction: sched()
                .and_then(|h| (h.writes > 0).then(|| h.write_conflicts as f64 / h.writes as f64)),
            prioritized_read_fraction: sched()
                .and_then(|h| (h.reads > 0).then(|| h.prioritized_reads as f64 / h.reads as f64)),
            conflict_free_fraction: 1.0 - r.path_conflict_fraction,
            first_try_transfer_fraction: r
                .interconnect
                .venice
                .as_ref()
                .map(|v| v.first_try_transfer_fraction),
            network_latency_ns: r.interconnect.network.as_ref().map(|n| n.mean_latency_ns),
            energy_mj: r.energy.as_ref().map(|e| e.total_mj),
            average_power_mw: r.energy.as_ref().map(|e| e.average_power_mw),
            gc_mb_s: r.controller.as_ref().map(|c| {
                c.gc_page_ops_during_io as f64 / 2.0 * r.config_page_bytes as f64
                    / (r.sim_time_ns * 1e-9).max(1e-12)
                    / 1e6
            }),
            system_bus_utilization: r.controller.as_ref().map(|c| c.system_bus_utilization),
            bandwidth_mb_s: r.controller.as_ref().map(|_| r.bandwidth_mb_s),
            cdf: r.latency_cdf.all.clone(),
            timeline_csv: r.timeline.as_ref().map(|t| t.csv()),
            controller: r.controller.clone(),
            config_hash: String::new(),
        }
    }
}

/// Memory a simulation's flows take besides the drive's model state: host queues, request
/// slabs and latency histograms per flow, about 560 KB each (measured: 2,000 one-request
/// `--workload` flows peak at 1.11 GB RSS against 11.6 MB for one; docs/ROBUSTNESS.md).
pub const FLOW_STATE_BYTES: u64 = 560 * 1024;

/// Flows a scenario's workloads make (a `syn:mixN` preset is several).
pub fn flows(sc: &Scenario) -> Result<u64> {
    let mut n = 0u64;
    for w in &sc.workloads {
        n += lagoon_workload::expand_workload(w)
            .map_err(|e| anyhow!("{e}"))?
            .len() as u64;
    }
    Ok(n)
}

/// What a simulation holds from its start: the drive's up-front model state and its flows.
pub fn run_state_bytes(sc: &Scenario) -> Result<u64> {
    Ok(sc
        .ssd
        .preallocated_state_bytes()
        .saturating_add(flows(sc)?.saturating_mul(FLOW_STATE_BYTES)))
}

/// Refuse a simulation whose flows and drive state pass the model-state limit
/// (`LAGOON_MAX_STATE_GB`), saying what to change.
pub fn check_run_budget(sc: &Scenario) -> Result<()> {
    let limit = lagoon_core::config::schema::model_state_limit()?;
    let n = flows(sc)?;
    let need = run_state_bytes(sc)?;
    if need > limit {
        return Err(anyhow!(
            "{n} flows (--workload, a syn:mix counting its flows) take about {:.2} GB ({:.2} MB each) beside {:.2} GB of drive state: {:.2} GB, more than the model-state limit of {:.2} GB; give fewer --workload flows, or raise LAGOON_MAX_STATE_GB on a machine with the memory",
            (n * FLOW_STATE_BYTES) as f64 / 1e9,
            FLOW_STATE_BYTES as f64 / 1e6,
            sc.ssd.preallocated_state_bytes() as f64 / 1e9,
            need as f64 / 1e9,
            limit as f64 / 1e9
        ));
    }
    Ok(())
}

/// Memory the system can give without swapping (Linux `MemAvailable`), bytes.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Simulations to run at once: `wanted`, but no more than three quarters of the available
/// memory holds at `per_job` bytes each (at least one).
pub fn jobs_for_memory(per_job: u64, wanted: usize) -> usize {
    match available_memory() {
        Some(avail) if per_job > 0 => {
            let fit = (avail / 4 * 3 / per_job).max(1);
            wanted
                .min(usize::try_from(fit).unwrap_or(usize::MAX))
                .max(1)
        }
        _ => wanted.max(1),
    }
}

/// Every job within the model-state budget (checked before the first runs), and the largest
/// start-up state of one, bytes.
pub fn check_memory(jobs: &[Job]) -> Result<u64> {
    let mut most = 0;
    for j in jobs {
        check_run_budget(&j.scenario).map_err(|e| {
            let k = &j.key;
            anyhow!(
                "run {} / {} / {} / {}: {e}",
                k.experiment,
                k.ssd,
                k.workload,
                k.design
            )
        })?;
        most = most.max(run_state_bytes(&j.scenario)?);
    }
    Ok(most)
}

/// Reshape the flash array to `rows` channels (flash controllers) of `cols` chips, with the
/// mesh of the networked designs following it (Venice Fig. 15: 4x16, 8x8, 16x4 over the same
/// chips). The chip count must not change.
pub fn reshape(ssd: &mut SsdConfig, spec: &str) -> Result<()> {
    let (r, c) = spec
        .split_once('x')
        .and_then(|(r, c)| Some((r.parse::<u32>().ok()?, c.parse::<u32>().ok()?)))
        .ok_or_else(|| {
            anyhow!(
                "mesh '{spec}': expected ROWSxCOLS, two positive whole numbers (channels x chips per channel), e.g. 8x8"
            )
        })?;
    let chips = ssd.flash.channels * ssd.flash.chips_per_channel;
    if r == 0 || c == 0 || r * c != chips {
        return Err(anyhow!(
            "mesh '{spec}': {r}x{c} = {} chips, but the drive has {chips} ({} channels x {} chips); the chip count must stay the same",
            r * c,
            ssd.flash.channels,
            ssd.flash.chips_per_channel
        ));
    }
    ssd.flash.channels = r;
    ssd.flash.chips_per_channel = c;
    ssd.network.rows = 0;
    ssd.network.cols = 0;
    ssd.network.controllers = 0;
    ssd.validate()?;
    Ok(())
}

/// Run every job on `threads` threads; records in job order. The first failing run stops the
/// batch with its label.
pub fn run_all(jobs: Vec<Job>, threads: usize, quiet: bool) -> Result<Vec<Record>> {
    let n = jobs.len();
    let pb = crate::progress::Progress::new(
        quiet,
        Some(n as u64),
        "runs",
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {unit} (eta {eta}) {msg}",
        "",
    );
    let walls: Mutex<Vec<f64>> = Mutex::new(vec![0.0; n]);
    let out = in_pool(n, threads, |i| {
        let job = &jobs[i];
        let k = &job.key;
        pb.set_message(format!("{} {} {} {}", k.ssd, k.mesh, k.workload, k.design));
        let t0 = std::time::Instant::now();
        let out = job.run();
        walls.lock().expect("no panics while holding")[i] = t0.elapsed().as_secs_f64();
        pb.inc(1);
        out
    });
    pb.finish_and_clear();
    if !quiet && n > 1 {
        eprintln!(
            "{}",
            slowest(&jobs, &walls.into_inner().expect("threads joined"), 5)
        );
    }
    out
}

/// `f(i)` for every `i < n` on `threads` threads, the indices claimed in order; once one has
/// failed no further index starts. The results in index order, or the first error in that
/// order: every index before a failed one was claimed before it and runs to its end, so that
/// error is the same on any number of threads.
pub fn in_pool<T: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<T>>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || failed.load(Ordering::Relaxed) {
                    break;
                }
                let r = f(i);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                results.lock().expect("no panics while holding")[i] = Some(r);
            });
        }
    });
    let mut out = Vec::with_capacity(n);
    for r in results.into_inner().expect("threads joined") {
        match r {
            Some(Ok(x)) => out.push(x),
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    if out.len() != n {
        return Err(anyhow!("a run failed; {} of {n} finished", out.len()));
    }
    Ok(out)
}

/// The `k` runs that took longest (wall clock), one line: where a batch spends its time.
fn slowest(jobs: &[Job], walls: &[f64], k: usize) -> String {
    let total: f64 = walls.iter().sum();
    let mut idx: Vec<usize> = (0..jobs.len()).collect();
    idx.sort_by(|&a, &b| walls[b].total_cmp(&walls[a]));
    let list: Vec<String> = idx
        .iter()
        .take(k)
        .map(|&i| {
            let k = &jobs[i].key;
            format!(
                "{:.1} s {} {} {} {} {}",
                walls[i], k.ssd, k.mesh, k.replay, k.workload, k.design
            )
        })
        .collect();
    // Run time per design, largest first.
    let mut by: Vec<(String, f64)> = Vec::new();
    for (j, w) in jobs.iter().zip(walls) {
        match by.iter_mut().find(|(d, _)| *d == j.key.design) {
            Some((_, t)) => *t += w,
            None => by.push((j.key.design.clone(), *w)),
        }
    }
    by.sort_by(|a, b| b.1.total_cmp(&a.1));
    let by: Vec<String> = by.iter().map(|(d, t)| format!("{d} {t:.0} s")).collect();
    format!(
        "{} runs, {total:.1} s of run time ({}); slowest: {}",
        jobs.len(),
        by.join(", "),
        list.join("; ")
    )
}

/// Where a batch's runs execute: this machine's threads ([`Threads`], what the CLI uses) or
/// elsewhere (the Python package sends them to Dask workers). Records come back in job order,
/// so whatever executes them, the files written from them are the same.
pub trait Executor: Send + Sync {
    fn run(&self, jobs: Vec<Job>, quiet: bool) -> Result<Vec<Record>>;
    /// Functional lifetimes, results in job order.
    fn age(&self, jobs: Vec<AgeJob>, quiet: bool) -> Result<Vec<Aged>>;
    /// How it runs, for the progress line ("on 2 threads").
    fn describe(&self) -> String;

    /// [`Self::run`], handing out the jobs `first` picks before the others (the longest, so
    /// no worker is left alone with one at the end); records still come back in job order.
    fn run_first(
        &self,
        jobs: Vec<Job>,
        first: &dyn Fn(&Job) -> bool,
        quiet: bool,
    ) -> Result<Vec<Record>> {
        let mut indexed: Vec<(usize, Job)> = jobs.into_iter().enumerate().collect();
        indexed.sort_by_key(|(_, j)| !first(j)); // stable: each group keeps its order
        let (order, dispatched): (Vec<usize>, Vec<Job>) = indexed.into_iter().unzip();
        let mut recs: Vec<Option<Record>> = (0..order.len()).map(|_| None).collect();
        for (rec, i) in self.run(dispatched, quiet)?.into_iter().zip(order) {
            recs[i] = Some(rec);
        }
        Ok(recs
            .into_iter()
            .map(|r| r.expect("a record per job"))
            .collect())
    }
}

/// Runs on this many local threads ([`run_all`]).
pub struct Threads(pub usize);

impl Executor for Threads {
    fn run(&self, jobs: Vec<Job>, quiet: bool) -> Result<Vec<Record>> {
        run_all(jobs, self.0, quiet)
    }
    fn age(&self, jobs: Vec<AgeJob>, quiet: bool) -> Result<Vec<Aged>> {
        age_all(&jobs, self.0, quiet)
    }
    fn describe(&self) -> String {
        format!("{} threads", self.0)
    }
}

/// Every lifetime on `threads` threads, results in job order; one progress bar over the page
/// programs of all of them.
fn age_all(jobs: &[AgeJob], threads: usize, quiet: bool) -> Result<Vec<Aged>> {
    let done = AtomicU64::new(0);
    let pb = crate::progress::life_bar(quiet, "lifetimes");
    pb.set_length(
        jobs.iter()
            .map(|j| lifetime::expected_programs(&j.cfg))
            .sum(),
    );
    let out = in_pool(jobs.len(), threads, |i| {
        let mut last = 0;
        jobs[i].run(|d| {
            let add = d - last;
            last = d;
            pb.set_position(done.fetch_add(add, Ordering::Relaxed) + add);
        })
    });
    pb.finish_and_clear();
    out
}

/// Threads to use by default: every core the machine offers.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_capped_by_memory() {
        assert_eq!(jobs_for_memory(0, 8), 8);
        assert_eq!(jobs_for_memory(1, 3), 3);
        if let Some(avail) = available_memory() {
            // Runs that each need all the memory there is: one at a time.
            assert_eq!(jobs_for_memory(avail, 8), 1);
            assert_eq!(jobs_for_memory(avail / 3, 8), 2);
        }
        // A flow counts in a run's state.
        let cfg = SsdConfig::load("perf-optimized").unwrap();
        let one = Scenario::new(
            "p",
            cfg.clone(),
            lagoon_core::interconnect::Arch::Baseline,
            vec!["syn:count=1".into()],
        );
        let mix = Scenario::new(
            "p",
            cfg,
            lagoon_core::interconnect::Arch::Baseline,
            vec!["syn:mix1".into()],
        );
        assert_eq!(
            run_state_bytes(&mix).unwrap() - run_state_bytes(&one).unwrap(),
            (flows(&mix).unwrap() - 1) * FLOW_STATE_BYTES
        );
        assert!(flows(&mix).unwrap() > 1);
    }
    use lagoon_core::interconnect::Arch;

    /// Runs jobs on one thread and remembers the order they were handed out in.
    struct Spy(Mutex<Vec<String>>);

    impl Executor for Spy {
        fn run(&self, jobs: Vec<Job>, quiet: bool) -> Result<Vec<Record>> {
            let mut seen = self.0.lock().unwrap();
            seen.extend(jobs.iter().map(|j| j.key.workload.clone()));
            run_all(jobs, 1, quiet)
        }
        fn age(&self, jobs: Vec<AgeJob>, quiet: bool) -> Result<Vec<Aged>> {
            age_all(&jobs, 1, quiet)
        }
        fn describe(&self) -> String {
            "a spy".into()
        }
    }

    #[test]
    fn run_first_hands_out_the_picked_jobs_first_and_returns_job_order() {
        let job = |w: &str, exp: &str| Job {
            key: RunKey {
                experiment: exp.into(),
                ssd: "perf-optimized".into(),
                mesh: "8x8".into(),
                replay: "timed".into(),
                workload: w.into(),
                design: "baseline".into(),
            },
            scenario: Scenario::new(
                "perf-optimized",
                SsdConfig::default(),
                Arch::Baseline,
                vec![format!("syn:read=100,size=4k,count={}", w.len() * 10)],
            ),
        };
        let jobs = vec![
            job("a", "main"),
            job("bb", "long"),
            job("ccc", "main"),
            job("dddd", "long"),
        ];
        let spy = Spy(Mutex::new(Vec::new()));
        let recs = spy
            .run_first(jobs, &|j: &Job| j.key.experiment == "long", true)
            .unwrap();
        assert_eq!(*spy.0.lock().unwrap(), ["bb", "dddd", "a", "ccc"]);
        let back: Vec<(&str, u64)> = recs
            .iter()
            .map(|r| (r.key.workload.as_str(), r.requests))
            .collect();
        assert_eq!(back, [("a", 10), ("bb", 20), ("ccc", 30), ("dddd", 40)]);
    }

    /// Lifetimes come back in job order and equal to one run alone, on any number of
    /// threads; a failing one is named.
    #[test]
    fn lifetimes_come_back_in_job_order_on_any_thread_count() {
        use lagoon_core::config::SuperblockMode;
        let job = |mode: SuperblockMode, sigma: f64| {
            let mut cfg = SsdConfig::default();
            let f = &mut cfg.flash;
            (
                f.channels,
                f.chips_per_channel,
                f.dies_per_chip,
                f.planes_per_die,
            ) = (2, 2, 1, 2);
            (f.blocks_per_plane, f.pages_per_block, f.page_bytes) = (64, 8, 4096);
            (cfg.wear.pe_mean, cfg.wear.pe_sigma, cfg.wear.superblock) = (60.0, sigma, mode);
            AgeJob {
                name: format!("{mode:?} {sigma}"),
                cfg,
                spec: LifetimeSpec::default(),
                cancel: None,
            }
        };
        let jobs: Vec<AgeJob> = [SuperblockMode::Static, SuperblockMode::Reserv]
            .into_iter()
            .flat_map(|m| [0.0, 9.0, 18.0].map(|s| job(m, s)))
            .collect();
        let alone: Vec<Aged> = jobs.iter().map(|j| j.run(|_| {}).unwrap()).collect();
        let strip = |mut a: Aged| {
            (a.0.wall_s, a.0.page_programs_per_s) = (0.0, 0.0);
            a
        };
        for threads in [1, 3] {
            let got = Threads(threads).age(jobs.clone(), true).unwrap();
            assert_eq!(got.len(), jobs.len());
            for (g, a) in got.into_iter().zip(&alone) {
                assert_eq!(strip(g), strip(a.clone()), "{threads} threads");
            }
        }
        // Lifetimes differ (so order is checked): sigma shortens a static drive's life.
        assert_ne!(alone[0].0.host_bytes_written, alone[2].0.host_bytes_written);
        let mut bad = jobs.clone();
        bad[4].spec.request_bytes = 1000;
        let e = Threads(2).age(bad, true).unwrap_err().to_string();
        assert!(e.starts_with("Reserv 9: request size 1000 bytes"), "{e}");
    }
}
