//! `lagoon._lagoon`: the simulator for the Python package (crates/lagoon-py/python/lagoon).
//! Everything here calls the same library code as the `lagoon` command, so a run from Python
//! and the same run from the command line give the same report; errors carry the command's
//! one-line message. The GIL is released while simulations run.

mod drive;
mod job;

use anyhow::Result;
use lagoon_cli::reproduce::ReproduceArgs;
use lagoon_cli::RunArgs;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Arc;

// Named as `lagoon.LagoonError` (where the package exports it), so it pickles: an error on a
// Dask worker reaches the client as itself.
create_exception!(
    lagoon,
    LagoonError,
    PyException,
    "A simulation, configuration or import error, with the lagoon command's message."
);

/// An error as the command prints it after `error: ` (the whole cause chain on one line).
fn err(e: anyhow::Error) -> PyErr {
    LagoonError::new_err(format!("{e:#}"))
}

/// Every preset name, as `--ssd` accepts them.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    lagoon_core::config::presets::NAMES.to_vec()
}

/// A configuration (preset name, TOML path or dict) as a dict of every key.
#[pyfunction]
fn config<'py>(py: Python<'py>, spec: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let cfg = drive::load(spec, None).map_err(err)?;
    Ok(pythonize::pythonize(py, &cfg)?)
}

/// A configuration from TOML text (`base = ...` allowed) as a dict; errors name `origin`.
#[pyfunction]
fn config_from_toml<'py>(py: Python<'py>, text: &str, origin: &str) -> PyResult<Bound<'py, PyAny>> {
    let cfg = lagoon_core::config::SsdConfig::from_toml(text, origin).map_err(|e| err(e.into()))?;
    Ok(pythonize::pythonize(py, &cfg)?)
}

/// One simulation: `args` are `lagoon run`'s options (`["--workload", "syn:...", ...]`), `ssd`
/// a dict configuration used instead of loading `--ssd`, `overrides` dotted keys set on the
/// drive (`{"flash.read_ns": 3000}`). Returns the JSON report, as `--json` writes it, and the
/// latency CDFs (all, read, write) that `--cdf` writes.
#[pyfunction]
#[pyo3(signature = (args, ssd=None, overrides=None))]
#[allow(clippy::type_complexity)]
fn run(
    py: Python<'_>,
    args: Vec<String>,
    ssd: Option<&Bound<'_, PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<(String, [Vec<(u64, f64)>; 3])> {
    let a = RunArgs::parse_from(&args).map_err(err)?;
    let spec = match ssd {
        Some(s) => s.clone(),
        None => a.ssd.clone().into_pyobject(py)?.into_any(),
    };
    let cfg = drive::load(&spec, overrides).map_err(err)?;
    let sc = a.scenario(cfg).map_err(err)?;
    let report = py.detach(|| sc.run(|_| {})).map_err(|e| err(e.into()))?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| err(e.into()))?;
    let c = report.latency_cdf;
    Ok((json, [c.all, c.read, c.write]))
}

/// One job of a reproduction on a worker, from [`job::to_wire`] or [`job::age_to_wire`]: a
/// timed run's record, or a lifetime's (report, remap).
#[pyfunction]
fn run_job<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyAny>> {
    match job::from_wire(spec).map_err(err)? {
        job::WireJob::Run(j) => {
            let rec = py.detach(|| j.run()).map_err(err)?;
            job::record_to_py(py, &rec)
        }
        job::WireJob::Age(j) => {
            let aged = py.detach(|| j.run(|_| {})).map_err(err)?;
            job::aged_to_py(py, &aged)
        }
    }
}

/// `lagoon reproduce PAPER`: `executor(specs)`, if given, runs a list of job specs anywhere
/// (Dask) and returns their records in order; otherwise `jobs` local threads.
#[pyfunction]
#[pyo3(signature = (paper, out, quick=false, requests=None, traces=None, seed=1, notes=None, jobs=None, quiet=false, executor=None, tiny_drive=false))]
#[allow(clippy::too_many_arguments)]
fn reproduce(
    py: Python<'_>,
    paper: String,
    out: PathBuf,
    quick: bool,
    requests: Option<u64>,
    traces: Option<PathBuf>,
    seed: u64,
    notes: Option<PathBuf>,
    jobs: Option<usize>,
    quiet: bool,
    executor: Option<Py<PyAny>>,
    tiny_drive: bool,
) -> PyResult<()> {
    let a = ReproduceArgs {
        paper,
        quick,
        out: Some(out),
        traces,
        requests,
        jobs,
        notes,
        seed,
        quiet,
        executor: executor.map(|f| Arc::new(job::PyExecutor(f)) as _),
        tiny_drive,
    };
    py.detach(|| lagoon_cli::reproduce::reproduce(a))
        .map_err(err)
}

/// `lagoon import mqsim`: the TOML, the `--workload` arguments and the parameters not
/// modelled, as a dict; files written when `out` is given.
#[pyfunction]
#[pyo3(signature = (ssd_xml, workload_xml=None, out=None))]
fn import_mqsim<'py>(
    py: Python<'py>,
    ssd_xml: PathBuf,
    workload_xml: Option<PathBuf>,
    out: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let imp = import(&ssd_xml, workload_xml.as_deref(), out.as_deref()).map_err(err)?;
    Ok(pythonize::pythonize(py, &imp)?)
}

fn import(
    ssd: &std::path::Path,
    workload: Option<&std::path::Path>,
    out: Option<&std::path::Path>,
) -> Result<lagoon_cli::import::mqsim::Import> {
    let imp = lagoon_cli::import::mqsim::import(ssd, workload)?;
    if let Some(dir) = out {
        imp.write(dir)?;
    }
    Ok(imp)
}

#[pymodule]
fn _lagoon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LagoonError", m.py().get_type::<LagoonError>())?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(config, m)?)?;
    m.add_function(wrap_pyfunction!(config_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_job, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(import_mqsim, m)?)?;
    Ok(())
}
