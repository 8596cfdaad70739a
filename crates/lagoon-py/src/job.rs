//! A reproduction's runs on Dask workers: each job travels as JSON text (a [`Spec`]: a timed
//! run's key and scenario, or a functional lifetime's name and spec; the drive, and anything
//! else holding floats, as TOML) and its result comes back as Python objects, so every number
//! crosses exactly (TOML writes floats shortest-round-trip and Python floats are the same
//! f64).

use anyhow::{anyhow, Context, Result};
use lagoon_core::config::SsdConfig;
use lagoon_core::scenario::Scenario;
use lagoon_lab::batch::{AgeJob, Aged, Executor, Job, Record, RunKey};
use pyo3::prelude::*;
use serde::{Deserialize, Serialize};

/// What a worker is sent: a timed run or a functional lifetime.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Spec {
    Run(Box<Wire>),
    /// An [`AgeJob`]: its name, the drive and the lifetime spec as TOML.
    Age {
        name: String,
        ssd: String,
        spec: String,
    },
}

/// A job read back from its text.
pub enum WireJob {
    Run(Job),
    Age(AgeJob),
}

/// A [`Job`] as text. Every field of [`Scenario`] is here (`to_wire` names them all, so a new
/// field fails to compile until it travels too).
#[derive(Serialize, Deserialize)]
struct Wire {
    key: RunKey,
    ssd_name: String,
    /// The drive as TOML (exact: floats are written shortest-round-trip).
    ssd: String,
    arch: String,
    workloads: Vec<String>,
    format: Option<String>,
    lenient: bool,
    device: Option<u32>,
    replay: Option<String>,
    seed: u64,
    repeat: u32,
    host_scheduler: Option<(String, u32)>,
    timeline_window: Option<u64>,
    #[serde(default)]
    stop_at_last_completion: bool,
    /// An aged drive's block remapping (`reproduce superblocks`' timed windows).
    #[serde(default)]
    block_remap: Option<lagoon_core::ssd::dynamic_superblock::BlockRemap>,
}

pub fn to_wire(job: &Job) -> Result<String> {
    let Scenario {
        ssd_name,
        ssd,
        arch,
        workloads,
        format,
        lenient,
        device,
        replay,
        seed,
        repeat,
        host_scheduler,
        timeline_window,
        stop_at_last_completion,
        block_remap,
        // A process-local handle: a worker's runs are stopped by the worker's own signal.
        cancel: _,
    } = &job.scenario;
    let w = Wire {
        key: job.key.clone(),
        ssd_name: ssd_name.clone(),
        ssd: toml::to_string(ssd)?,
        arch: arch.to_string(),
        workloads: workloads.clone(),
        format: format.map(|f| f.to_string()),
        lenient: *lenient,
        device: *device,
        replay: replay.map(|r| r.to_string()),
        seed: *seed,
        repeat: *repeat,
        host_scheduler: host_scheduler.map(|(s, q)| (s.to_string(), q)),
        timeline_window: *timeline_window,
        stop_at_last_completion: *stop_at_last_completion,
        block_remap: block_remap.as_deref().cloned(),
    };
    Ok(serde_json::to_string(&Spec::Run(Box::new(w)))?)
}

pub fn age_to_wire(job: &AgeJob) -> Result<String> {
    // The cancel handle is process-local: a worker's lifetimes stop with its own signal.
    let AgeJob {
        name,
        cfg,
        spec,
        cancel: _,
    } = job;
    Ok(serde_json::to_string(&Spec::Age {
        name: name.clone(),
        ssd: toml::to_string(cfg)?,
        spec: toml::to_string(spec)?,
    })?)
}

pub fn from_wire(text: &str) -> Result<WireJob> {
    Ok(match serde_json::from_str(text).context("a job spec")? {
        Spec::Run(w) => WireJob::Run(run_from_wire(*w)?),
        Spec::Age { name, ssd, spec } => WireJob::Age(AgeJob {
            cancel: None,
            name,
            cfg: toml::from_str(&ssd).context("a lifetime spec's drive")?,
            spec: toml::from_str(&spec).context("a lifetime spec")?,
        }),
    })
}

fn run_from_wire(w: Wire) -> Result<Job> {
    let ssd: SsdConfig = toml::from_str(&w.ssd).context("a job spec's drive")?;
    let parse = |what: &str, e: String| anyhow!("a job spec's {what}: {e}");
    let mut sc = Scenario::new(
        &w.ssd_name,
        ssd,
        w.arch.parse().map_err(|e| parse("arch", e))?,
        w.workloads,
    );
    sc.format = match w.format {
        Some(f) => Some(f.parse().map_err(|e| parse("format", format!("{e}")))?),
        None => None,
    };
    sc.lenient = w.lenient;
    sc.device = w.device;
    sc.replay = match w.replay {
        Some(r) => Some(r.parse().map_err(|e| parse("replay", e))?),
        None => None,
    };
    sc.seed = w.seed;
    sc.repeat = w.repeat;
    sc.host_scheduler = match w.host_scheduler {
        Some((s, q)) => Some((s.parse().map_err(|e| parse("host scheduler", e))?, q)),
        None => None,
    };
    sc.timeline_window = w.timeline_window;
    sc.stop_at_last_completion = w.stop_at_last_completion;
    sc.block_remap = w.block_remap.map(std::sync::Arc::new);
    Ok(Job {
        key: w.key,
        scenario: sc,
    })
}

/// A record as (fields dict, latency CDF, timeline CSV): the last two are not serialized
/// with the record (runs.json leaves them out).
pub fn record_to_py<'py>(py: Python<'py>, r: &Record) -> PyResult<Bound<'py, PyAny>> {
    let fields = pythonize::pythonize(py, r)?;
    (fields, r.cdf.clone(), r.timeline_csv.clone())
        .into_pyobject(py)
        .map(|t| t.into_any())
}

/// A lifetime's result as Python objects (report, remap).
pub fn aged_to_py<'py>(py: Python<'py>, a: &Aged) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, a)?)
}

fn aged_from_py(obj: &Bound<'_, PyAny>) -> Result<Aged> {
    pythonize::depythonize(obj).map_err(|e| anyhow!("a worker's lifetime: {e}"))
}

fn record_from_py(obj: &Bound<'_, PyAny>) -> Result<Record> {
    let (fields, cdf, timeline): (Bound<'_, PyAny>, Vec<(u64, f64)>, Option<String>) = obj
        .extract()
        .map_err(|e| anyhow!("a worker's record: {e}"))?;
    let mut r: Record =
        pythonize::depythonize(&fields).map_err(|e| anyhow!("a worker's record: {e}"))?;
    r.cdf = cdf;
    r.timeline_csv = timeline;
    Ok(r)
}

/// Runs a batch through a Python callable: `f(specs, quiet)` returns the results in order
/// (`lagoon._dask` sends the specs to a Dask cluster). The exception it raised last is kept,
/// to be raised as itself (a KeyboardInterrupt stays one).
pub struct PyExecutor {
    f: Py<PyAny>,
    error: std::sync::Mutex<Option<PyErr>>,
}

impl PyExecutor {
    pub fn new(f: Py<PyAny>) -> Self {
        Self {
            f,
            error: std::sync::Mutex::new(None),
        }
    }

    /// The exception the callable raised, if it raised one.
    pub fn take_error(&self) -> Option<PyErr> {
        self.error.lock().expect("no panic while holding").take()
    }

    /// `f(specs, quiet)`, each of its results read by `read`; one result per spec.
    fn call<T>(
        &self,
        specs: Vec<String>,
        quiet: bool,
        read: impl Fn(&Bound<'_, PyAny>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = specs.len();
        Python::attach(|py| {
            let out = self.f.call1(py, (specs, quiet)).map_err(|e| {
                let msg = anyhow!("{}", e.value(py));
                *self.error.lock().expect("no panic while holding") = Some(e);
                msg
            })?;
            let results = out
                .bind(py)
                .try_iter()
                .map_err(|e| anyhow!("the executor's result: {e}"))?
                .map(|o| read(&o.map_err(|e| anyhow!("{e}"))?))
                .collect::<Result<Vec<_>>>()?;
            if results.len() != n {
                return Err(anyhow!(
                    "the executor returned {} results for {n} jobs",
                    results.len()
                ));
            }
            Ok(results)
        })
    }
}

impl Executor for PyExecutor {
    fn run(&self, jobs: Vec<Job>, quiet: bool) -> Result<Vec<Record>> {
        let specs = jobs.iter().map(to_wire).collect::<Result<Vec<_>>>()?;
        self.call(specs, quiet, record_from_py)
    }

    fn age(&self, jobs: Vec<AgeJob>, quiet: bool) -> Result<Vec<Aged>> {
        let specs = jobs.iter().map(age_to_wire).collect::<Result<Vec<_>>>()?;
        self.call(specs, quiet, aged_from_py)
    }

    fn describe(&self) -> String {
        Python::attach(|py| {
            self.f
                .bind(py)
                .str()
                .map_or("a Python executor".into(), |s| s.to_string())
        })
    }
}
