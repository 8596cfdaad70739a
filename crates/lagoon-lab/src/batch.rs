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

/// Memory a flow takes besides the drive's model state, by what it records: its host queue,
/// source and report entries, about 2.3 KB, and 73 bytes a request while its latency records
/// keep values ([`lagoon_core::stats::FEW`] requests or fewer); a flow of more requests holds
/// histograms, about 560 KB. Measured (peak RSS, `lagoon run --quiet`, docs/ROBUSTNESS.md):
/// 3,000 one-request flows 19.9 MB against 13.3 MB for one; 300 flows of 1,000 reads 35.3 MB;
/// 300 flows of 5,000 reads 165 MB.
pub const FLOW_BASE_BYTES: u64 = 2_300;
/// See [`FLOW_BASE_BYTES`].
pub const KEPT_REQUEST_BYTES: u64 = 73;
/// See [`FLOW_BASE_BYTES`].
pub const FLOW_STATE_BYTES: u64 = 560 * 1024;

/// The state of a flow of `requests` requests (None: not known before the run, a trace).
pub fn flow_state_bytes(requests: Option<u64>) -> u64 {
    match requests {
        Some(n) if n <= lagoon_core::stats::FEW as u64 => FLOW_BASE_BYTES + n * KEPT_REQUEST_BYTES,
        _ => FLOW_STATE_BYTES,
    }
}

/// Flows a scenario's workloads make (a `syn:mixN` preset is several), and their state
/// ([`flow_state_bytes`]; a synthetic flow's requests are its count times `--repeat`).
pub fn flows_and_state(sc: &Scenario) -> Result<(u64, u64)> {
    let (mut n, mut bytes) = (0u64, 0u64);
    for w in &sc.workloads {
        for f in lagoon_workload::expand_workload(w).map_err(|e| anyhow!("{e}"))? {
            let requests = lagoon_workload::SyntheticSpec::is_synthetic(&f)
                .then(|| lagoon_workload::SyntheticSpec::parse(&f).ok())
                .flatten()
                .and_then(|s| s.count.checked_mul(sc.repeat.max(1) as u64));
            n += 1;
            bytes = bytes.saturating_add(flow_state_bytes(requests));
        }
    }
    Ok((n, bytes))
}

/// Flows a scenario's workloads make (a `syn:mixN` preset is several).
pub fn flows(sc: &Scenario) -> Result<u64> {
    Ok(flows_and_state(sc)?.0)
}

/// What a simulation holds from its start: the drive's up-front model state and its flows.
pub fn run_state_bytes(sc: &Scenario) -> Result<u64> {
    Ok(sc
        .ssd
        .preallocated_state_bytes()
        .saturating_add(flows_and_state(sc)?.1))
}

/// Refuse a simulation whose flows and drive state pass the model-state limit
/// (`LAGOON_MAX_STATE_GB`) or what is left under this process's own memory limits
/// ([`memory_limits`]: RLIMIT_AS, the cgroup's, the system's), saying what to change.
pub fn check_run_budget(sc: &Scenario) -> Result<()> {
    check_budget_within(sc, &memory_limits()).map(|_| ())
}

/// [`check_run_budget`] against limits read once (a study checks hundreds of runs: each
/// reading of /proc and the cgroup files costs milliseconds on a loaded machine); the bytes
/// the run takes from its start ([`run_state_bytes`]).
fn check_budget_within(sc: &Scenario, limits: &[MemoryLimit]) -> Result<u64> {
    let limit = lagoon_core::config::schema::model_state_limit()?;
    let (n, flow_bytes) = flows_and_state(sc)?;
    let drive = sc.ssd.preallocated_state_bytes();
    let need = drive.saturating_add(flow_bytes);
    let what = || {
        format!(
            "{n} flows (--workload, a syn:mix counting its flows) take about {:.2} GB ({:.3} MB each) beside {:.2} GB of drive state: {:.2} GB",
            flow_bytes as f64 / 1e9,
            flow_bytes as f64 / n.max(1) as f64 / 1e6,
            drive as f64 / 1e9,
            need as f64 / 1e9,
        )
    };
    if need > limit {
        return Err(anyhow!(
            "{}, more than the model-state limit of {:.2} GB; give fewer --workload flows, or raise LAGOON_MAX_STATE_GB on a machine with the memory",
            what(),
            limit as f64 / 1e9
        ));
    }
    if let Some(l) = limits.iter().min_by_key(|l| l.left) {
        if need > l.left {
            return Err(anyhow!(
                "{}, more than the {:.2} GB this process has left under {}; give fewer --workload flows or fewer requests a flow, or run with more memory",
                what(),
                l.left as f64 / 1e9,
                l.what
            ));
        }
    }
    Ok(need)
}

/// One limit on the memory this process may still take: what it is (for messages), the
/// bytes left under it, and what each extra thread costs against it besides its data.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryLimit {
    pub what: String,
    pub left: u64,
    pub per_thread: u64,
}

/// Address space a worker thread takes besides its data: its stack (2 MiB, Rust's default)
/// and the malloc arena glibc reserves for a thread that allocates while another does
/// (64 MiB, `HEAP_MAX_SIZE` on 64-bit). Only an address-space limit (RLIMIT_AS) counts it:
/// the reservation is not resident memory.
pub const THREAD_ADDRESS_SPACE: u64 = 66 << 20;

/// The limits on this process's memory, each with what is left under it: the system's
/// `MemAvailable`; its cgroup's `memory.max` less `memory.current` (v2; at its own level
/// and every level above) or `memory.limit_in_bytes` less `memory.usage_in_bytes` (v1);
/// its address-space limit (RLIMIT_AS, `ulimit -v`) less its `VmSize`, and its data limit
/// (RLIMIT_DATA, `ulimit -d`) less its `VmData`.
pub fn memory_limits() -> Vec<MemoryLimit> {
    let mut out = Vec::new();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    if let Some(b) = kb_field(&meminfo, "MemAvailable:") {
        out.push(MemoryLimit {
            what: "the system's available memory (MemAvailable)".into(),
            left: b,
            per_thread: 0,
        });
    }
    out.extend(cgroup_limit());
    #[cfg(unix)]
    {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        for (res, name, field, per_thread) in [
            (
                libc::RLIMIT_AS,
                "the address-space limit (RLIMIT_AS, ulimit -v)",
                "VmSize:",
                THREAD_ADDRESS_SPACE,
            ),
            (
                libc::RLIMIT_DATA,
                "the data limit (RLIMIT_DATA, ulimit -d)",
                "VmData:",
                2 << 20, // the stack; an arena's reservation is not writable data
            ),
        ] {
            let mut r = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit writes the struct it is given.
            if unsafe { libc::getrlimit(res, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
                continue;
            }
            let used = kb_field(&status, field).unwrap_or(0);
            out.push(MemoryLimit {
                what: format!("{name} of {:.2} GB", r.rlim_cur as f64 / 1e9),
                left: r.rlim_cur.saturating_sub(used),
                per_thread,
            });
        }
    }
    out
}

/// A `NAME:  N kB` line of a /proc file, in bytes.
fn kb_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The tightest limit of this process's memory cgroup, if it has one (`/proc/self/cgroup`:
/// v2 `0::/path`, v1 `N:memory:/path`).
fn cgroup_limit() -> Option<MemoryLimit> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let num = |p: &std::path::Path| -> Option<u64> {
        std::fs::read_to_string(p).ok()?.trim().parse().ok()
    };
    let mut best: Option<MemoryLimit> = None;
    let mut consider = |max: Option<u64>, used: Option<u64>, file: String| {
        // v1 writes "no limit" as a number near 2^63.
        if let Some(max) = max.filter(|&m| m < 1 << 60) {
            let left = max.saturating_sub(used.unwrap_or(0));
            if best.as_ref().is_none_or(|b| left < b.left) {
                best = Some(MemoryLimit {
                    what: format!(
                        "the cgroup's memory limit ({file}: {:.2} GB)",
                        max as f64 / 1e9
                    ),
                    left,
                    per_thread: 0,
                });
            }
        }
    };
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            // v2: this cgroup and every one above it (under /sys/fs/cgroup/unified on a
            // hybrid v1/v2 system).
            let root = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
                .into_iter()
                .map(std::path::PathBuf::from)
                .find(|r| r.join("cgroup.controllers").exists())
                .unwrap_or_else(|| "/sys/fs/cgroup".into());
            let mut dir = root.join(path);
            loop {
                let max = dir.join("memory.max");
                consider(
                    num(&max),
                    num(&dir.join("memory.current")),
                    max.display().to_string(),
                );
                if dir == root || !dir.pop() {
                    break;
                }
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = std::path::PathBuf::from("/sys/fs/cgroup/memory").join(path);
            let max = dir.join("memory.limit_in_bytes");
            consider(
                num(&max),
                num(&dir.join("memory.usage_in_bytes")),
                max.display().to_string(),
            );
        }
    }
    best
}

/// Memory this process can still take, bytes: the least left under any of
/// [`memory_limits`].
pub fn available_memory() -> Option<u64> {
    memory_limits().iter().map(|l| l.left).min()
}

/// Simulations to run at once: `wanted` (`--jobs`, else [`default_threads`]), but no more
/// than three quarters of what is left under each of [`memory_limits`] holds at `per_job`
/// bytes each (and, under an address-space limit, each thread's stack and arena); at least
/// one. An explicit `--jobs` follows the same rule as the default: when the memory caps it,
/// a one-line note says so.
pub fn jobs_for_memory(per_job: u64, wanted: Option<usize>) -> usize {
    let want = wanted.unwrap_or_else(default_threads).max(1);
    let limits = memory_limits();
    let Some((fit, by)) = fit_jobs(per_job, &limits) else {
        return want;
    };
    if let Some(asked) = wanted.filter(|&w| w > fit) {
        static NOTED: AtomicUsize = AtomicUsize::new(0);
        if NOTED.swap(fit, Ordering::Relaxed) != fit {
            eprintln!(
                "note: --jobs {asked}: {fit} runs at once fit in memory (about {:.1} MB each, \
                 three quarters of the {:.2} GB left under {}); running {fit}",
                per_job as f64 / 1e6,
                by.left as f64 / 1e9,
                by.what
            );
        }
    }
    want.min(fit)
}

/// Runs of `per_job` bytes that fit in three quarters of what each limit leaves, and the
/// limit that allows fewest (None when no limit is known or `per_job` is 0).
pub fn fit_jobs(per_job: u64, limits: &[MemoryLimit]) -> Option<(usize, MemoryLimit)> {
    if per_job == 0 {
        return None;
    }
    limits
        .iter()
        .map(|l| {
            let each = per_job.saturating_add(l.per_thread);
            let fit = (l.left / 4 * 3 / each).max(1);
            (usize::try_from(fit).unwrap_or(usize::MAX), l.clone())
        })
        .min_by_key(|(fit, _)| *fit)
}

/// Every job within the model-state budget (checked before the first runs), and the largest
/// start-up state of one, bytes.
pub fn check_memory(jobs: &[Job]) -> Result<u64> {
    let limits = memory_limits();
    let mut most = 0;
    for j in jobs {
        crate::interrupt::check()?;
        let need = check_budget_within(&j.scenario, &limits).map_err(|e| {
            let k = &j.key;
            anyhow!(
                "run {} / {} / {} / {}: {e}",
                k.experiment,
                k.ssd,
                k.workload,
                k.design
            )
        })?;
        most = most.max(need);
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
        assert_eq!(jobs_for_memory(0, Some(8)), 8);
        assert_eq!(jobs_for_memory(1, Some(3)), 3);
        if let Some(avail) = available_memory() {
            // Runs that each need all the memory there is: one at a time.
            assert_eq!(jobs_for_memory(avail, Some(8)), 1);
        }
        let gb = 1u64 << 30;
        let limit = |left, per_thread| MemoryLimit {
            what: "x".into(),
            left,
            per_thread,
        };
        // Three quarters of 4 GiB hold three runs of 1 GiB; the tightest limit decides.
        let fit = |per_job, limits: &[MemoryLimit]| fit_jobs(per_job, limits).unwrap().0;
        assert_eq!(fit(gb, &[limit(4 * gb, 0)]), 3);
        assert_eq!(fit(gb, &[limit(40 * gb, 0), limit(2 * gb, 0)]), 1);
        // An address-space limit counts each thread's stack and arena: three quarters of
        // 1 GiB hold 768 runs of 1 MiB, but 11 (768 / 67) at 66 MiB more each.
        assert_eq!(fit(1 << 20, &[limit(gb, 0)]), 768);
        assert_eq!(fit(1 << 20, &[limit(gb, THREAD_ADDRESS_SPACE)]), 11);
        assert_eq!(fit_jobs(0, &[limit(gb, 0)]), None);
        assert_eq!(fit_jobs(gb, &[]), None);
        // A flow counts in a run's state.
        let cfg = SsdConfig::load("perf-optimized").unwrap();
        let one = Scenario::new(
            "p",
            cfg.clone(),
            lagoon_core::interconnect::Arch::Baseline,
            vec!["syn:count=100000".into()],
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
        // A flow is counted by its requests while its latencies are kept as values.
        assert_eq!(
            flow_state_bytes(Some(1)),
            FLOW_BASE_BYTES + KEPT_REQUEST_BYTES
        );
        assert_eq!(
            flow_state_bytes(Some(lagoon_core::stats::FEW as u64 + 1)),
            FLOW_STATE_BYTES
        );
        assert_eq!(flow_state_bytes(None), FLOW_STATE_BYTES);
        let mut few = Scenario::new(
            "p",
            SsdConfig::load("perf-optimized").unwrap(),
            lagoon_core::interconnect::Arch::Baseline,
            vec!["syn:count=3".into(); 10],
        );
        few.repeat = 2;
        assert_eq!(
            flows_and_state(&few).unwrap(),
            (10, 10 * (FLOW_BASE_BYTES + 6 * KEPT_REQUEST_BYTES))
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
