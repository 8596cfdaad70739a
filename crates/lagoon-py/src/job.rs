//! A reproduction's runs on Dask workers: each job travels as JSON text (a [`Wire`]: its key
//! and scenario, the drive as TOML) and its record comes back as Python objects, so every
//! number crosses exactly (Python floats are the same f64).

use anyhow::{anyhow, Context, Result};
use lagoon_cli::batch::{Executor, Job, Record, RunKey};
use lagoon_core::config::SsdConfig;
use lagoon_core::scenario::Scenario;
use pyo3::prelude::*;
use serde::{Deserialize, Serialize};

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
    Ok(serde_json::to_string(&w)?)
}

pub fn from_wire(text: &str) -> Result<Job> {
    let w: Wire = serde_json::from_str(text).context("a job spec")?;
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

/// Runs a batch through a Python callable: `f(specs, quiet)` returns the records in order
/// (`lagoon._dask` sends the specs to a Dask cluster).
pub struct PyExecutor(pub Py<PyAny>);

impl Executor for PyExecutor {
    fn run(&self, jobs: Vec<Job>, quiet: bool) -> Result<Vec<Record>> {
        let specs = jobs.iter().map(to_wire).collect::<Result<Vec<_>>>()?;
        Python::attach(|py| {
            let out = self
                .0
                .call1(py, (specs, quiet))
                .map_err(|e| anyhow!("{}", e.value(py)))?;
            let recs = out
                .bind(py)
                .try_iter()
                .map_err(|e| anyhow!("the executor's result: {e}"))?
                .map(|o| record_from_py(&o.map_err(|e| anyhow!("{e}"))?))
                .collect::<Result<Vec<_>>>()?;
            if recs.len() != jobs.len() {
                return Err(anyhow!(
                    "the executor returned {} records for {} runs",
                    recs.len(),
                    jobs.len()
                ));
            }
            Ok(recs)
        })
    }

    fn describe(&self) -> String {
        Python::attach(|py| {
            self.0
                .bind(py)
                .str()
                .map_or("a Python executor".into(), |s| s.to_string())
        })
    }
}
