//! `lagoon._lagoon`: the simulator for the Python package (crates/lagoon-py/python/lagoon).
//! Everything here calls the same library code as the `lagoon` command, so a run from Python
//! and the same run from the command line give the same report; errors carry the command's
//! one-line message. The GIL is released while simulations run.

mod drive;
mod job;

use anyhow::Result;
use lagoon_core::cancel::Cancel;
use lagoon_lab::reproduce::ReproduceArgs;
use lagoon_lab::run::RunArgs;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    LagoonError::new_err(one_line(&e))
}

/// One line, as the command prints it (TOML's errors end their key on a line of its own).
fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `lagoon run` message as `lagoon.run` words it: each of the command's flags (clap's
/// `'--arch <ARCH>'` or a bare `--arch`) as the keyword argument it came from (`arch`,
/// `host_scheduler`), since the caller never typed the flag.
fn python_names(msg: &str) -> String {
    let run = <lagoon_lab::run::RunArgs as clap::Args>::augment_args(clap::Command::new("run"));
    // Longest first: `--timeline-window-ms` before `--timeline`.
    let mut longs: Vec<&str> = run.get_arguments().filter_map(|a| a.get_long()).collect();
    longs.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let mut out = msg.to_string();
    for long in longs {
        let param = long.replace('-', "_");
        let flag = format!("--{long}");
        // clap's `'--flag <VALUE>'`
        let quoted = format!("'{flag} <");
        while let Some(i) = out.find(&quoted) {
            let Some(end) = out[i..].find(">'").map(|e| i + e + 2) else {
                break;
            };
            out.replace_range(i..end, &param);
        }
        // a bare `--flag` (not the start of a longer one)
        let mut from = 0;
        while let Some(k) = out[from..].find(&flag).map(|k| from + k) {
            let next = out[k + flag.len()..].chars().next();
            if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') {
                from = k + flag.len();
                continue;
            }
            out.replace_range(k..k + flag.len(), &param);
            from = k + param.len();
        }
    }
    out
}

/// A `lagoon.run` argument clap refused: a ValueError naming the keyword argument, with the
/// values it takes when it has a list (`arch: invalid value 'venise'; [possible values:
/// baseline, ...]; tip: a similar value exists: 'venice'`).
fn arg_error(e: clap::Error) -> PyErr {
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| {
        !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
    });
    let first = lines.next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let mut msg = python_names(first);
    if let Some(clap::error::ContextValue::String(flag)) =
        e.get(clap::error::ContextKind::InvalidArg)
    {
        let param = python_names(&format!("'{flag}'"));
        msg = format!("{param}: {}", msg.replace(&format!(" for {param}"), ""));
    }
    for l in lines {
        msg.push_str("; ");
        msg.push_str(&python_names(l));
    }
    pyo3::exceptions::PyValueError::new_err(msg)
}

/// The cancellation flag of the simulations running now in this process: Ctrl-C (seen by
/// [`interruptible`] on the main thread) or [`cancel_all`] aborts it, and the next
/// simulations get a fresh one.
static CURRENT: Mutex<Option<Cancel>> = Mutex::new(None);

fn current_cancel() -> Cancel {
    CURRENT
        .lock()
        .expect("no panic while holding")
        .get_or_insert_with(Cancel::new)
        .clone()
}

/// Abort every simulation, lifetime and reproduction running in this process (what Ctrl-C
/// does; `lagoon.sweep` calls it on KeyboardInterrupt for its worker threads).
#[pyfunction]
fn cancel_all() {
    if let Some(c) = CURRENT.lock().expect("no panic while holding").take() {
        c.abort();
    }
}

/// How often the calling thread looks at Python's signals while Rust works.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// `f` on a thread of its own with the GIL released, while this thread looks at Python's
/// signals every 50 ms: a KeyboardInterrupt (or another exception from a signal handler)
/// aborts the simulations ([`cancel_all`]), waits for `f` to stop (a simulation looks at the
/// flag every 65,536 events) and is raised. On a thread other than Python's main one there
/// are no signals to see and `f` runs to its end (or to [`cancel_all`]).
fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    interruptible_with(py, None, f)
}

/// [`interruptible`], aborting `also` too (the `lagoon` command's own flag).
fn interruptible_with<T: Send>(
    py: Python<'_>,
    also: Option<&Cancel>,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|s| {
            // The worker says when it is done, so a short run returns at once rather than at
            // the next look at the signals.
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let h = s.spawn(move || {
                let r = f();
                let _ = tx.send(());
                r
            });
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            cancel_all();
                            if let Some(c) = also {
                                c.abort();
                            }
                            let _ = h.join();
                            return Err(e);
                        }
                    }
                    // Done, or the worker panicked (its sender dropped): join it.
                    _ => return Ok(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
                }
            }
        })
    })
}

/// The `lagoon` command (the console script of `pip install`): `argv` with the program name
/// first; returns the exit status. Ctrl-C stops it as it stops the binary. The one thing here
/// that needs the command's crate (its argument parsing and dispatch): cargo feature
/// `command`, which the wheel turns on (pyproject.toml); everything else goes through the lab.
#[cfg(feature = "command")]
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> PyResult<i32> {
    let parsed: lagoon_cli::Cli = match lagoon_lab::help::parse(&argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return Ok(e.exit_code());
        }
    };
    let cancel = lagoon_lab::interrupt::cancel();
    let r = interruptible_with(py, Some(&cancel), || lagoon_cli::dispatch(parsed));
    match r {
        Ok(r) => Ok(lagoon_cli::exit_code(r)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => {
            eprintln!("interrupted: stopped by Ctrl-C");
            Ok(lagoon_lab::interrupt::EXIT_INTERRUPTED)
        }
        Err(e) => Err(e),
    }
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
    let a = RunArgs::parse_from(&args).map_err(arg_error)?;
    let spec = match ssd {
        Some(s) => s.clone(),
        None => a.ssd.clone().into_pyobject(py)?.into_any(),
    };
    // Errors that name a flag name the keyword argument instead.
    let named = |e: anyhow::Error| LagoonError::new_err(python_names(&one_line(&e)));
    let cfg = drive::load(&spec, overrides).map_err(named)?;
    let mut sc = a.scenario(cfg).map_err(named)?;
    lagoon_lab::batch::check_run_budget(&sc).map_err(err)?;
    sc.cancel = Some(current_cancel());
    let report = interruptible(py, || sc.run(|_| {}))?.map_err(|e| err(e.into()))?;
    lagoon_lab::invariants::ensure(&report).map_err(err)?;
    let prov = lagoon_lab::provenance::RunProvenance::new(
        &sc.ssd,
        format!("lagoon.run: lagoon run {}", args.join(" ")),
    );
    let json = lagoon_lab::provenance::report_json(&report, &prov);
    let c = report.latency_cdf;
    Ok((json, [c.all, c.read, c.write]))
}

/// One job of a reproduction on a worker, from [`job::to_wire`] or [`job::age_to_wire`]: a
/// timed run's record, or a lifetime's (report, remap).
#[pyfunction]
fn run_job<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyAny>> {
    match job::from_wire(spec).map_err(err)? {
        job::WireJob::Run(mut j) => {
            j.scenario.cancel = Some(current_cancel());
            let rec = interruptible(py, || j.run())?.map_err(err)?;
            job::record_to_py(py, &rec)
        }
        job::WireJob::Age(mut j) => {
            j.cancel = Some(current_cancel());
            let aged = interruptible(py, || j.run(|_| {}))?.map_err(err)?;
            job::aged_to_py(py, &aged)
        }
    }
}

/// `lagoon reproduce PAPER`: `executor(specs)`, if given, runs a list of job specs anywhere
/// (Dask) and returns their records in order; otherwise `jobs` local threads.
/// With an executor (Dask) the Python calls it makes run on this thread, so Ctrl-C reaches
/// them as a KeyboardInterrupt (they cancel their futures) and is raised here; without one,
/// the local runs stop through [`interruptible`].
#[pyfunction]
#[pyo3(signature = (paper, out, quick=false, requests=None, traces=None, seed=1, notes=None, jobs=None, quiet=false, executor=None, tiny_drive=false, seeds=None, render_only=false, refresh_evidence=false, sensitivity=false))]
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
    seeds: Option<u64>,
    render_only: bool,
    refresh_evidence: bool,
    sensitivity: bool,
) -> PyResult<()> {
    let py_exec = executor.map(|f| Arc::new(job::PyExecutor::new(f)));
    let a = ReproduceArgs {
        paper,
        quick,
        out: Some(out),
        traces,
        requests,
        jobs,
        notes,
        seed,
        seeds,
        render_only,
        refresh_evidence,
        sensitivity,
        reading: Vec::new(),
        quiet,
        executor: py_exec.clone().map(|e| e as _),
        cancel: Some(current_cancel()),
        work: None,
        tiny_drive,
    };
    let r = match &py_exec {
        Some(_) => py.detach(|| lagoon_lab::reproduce::reproduce(a)),
        None => interruptible(py, || lagoon_lab::reproduce::reproduce(a))?,
    };
    r.map_err(|e| {
        // An exception raised in the executor (a KeyboardInterrupt in the Dask wait) is
        // raised as itself.
        py_exec
            .as_ref()
            .and_then(|x| x.take_error())
            .unwrap_or_else(|| err(e))
    })
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
    let imp = interruptible(py, || {
        import(&ssd_xml, workload_xml.as_deref(), out.as_deref())
    })?
    .map_err(err)?;
    Ok(pythonize::pythonize(py, &imp)?)
}

fn import(
    ssd: &std::path::Path,
    workload: Option<&std::path::Path>,
    out: Option<&std::path::Path>,
) -> Result<lagoon_lab::import::mqsim::Import> {
    let imp = lagoon_lab::import::mqsim::import(ssd, workload)?;
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
    m.add_function(wrap_pyfunction!(cancel_all, m)?)?;
    #[cfg(feature = "command")]
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
