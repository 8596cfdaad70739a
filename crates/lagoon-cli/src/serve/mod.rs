//! `lagoon serve`: the simulated drive as a Network Block Device that real software (fio,
//! qemu-img, QEMU guests, the kernel's nbd-client) drives, paced in real time, keeping the
//! data written to it (docs/SERVE.md).
//!
//! ```text
//!  client ─NBD─▶ conn (nbd.rs codec) ─▶ store.rs (data) ─▶ Simulator::submit_live (flow = conn)
//!                                                     advance_to(wall / K) │
//!  client ◀─reply at K × simulated completion (pace.rs) ◀─ take_live_completions
//! ```
//! One thread, one `ppoll` loop: no hand-off between threads stands between a simulated
//! completion and its reply. `--max-connections N` flows (NVMe queue pairs on one shared
//! namespace) are built up front; a connection takes a free one and gives it back when it
//! closes and its requests have left the drive. Every option is checked, and every file
//! opened, before the server listens.

mod conn;
mod log;
pub mod nbd;
mod pace;
mod server;
pub mod store;

use anyhow::{bail, Context, Result};
use clap::Args;
use lagoon_core::cancel::Cancel;
use lagoon_core::config::SsdConfig;
use lagoon_core::host::{Flow, Replay};
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::sim::Simulator;
use nbd::Export;
use pace::{Clock, Pace};
use server::{Listener, ServeStats, Server, MAX_PAYLOAD};
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use store::Store;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("endpoint").required(true).args(["socket", "listen"])))]
pub struct ServeArgs {
    /// A preset or TOML file as for `lagoon run`, or `null`: no device time at all, every
    /// reply at once (to measure the client's and the socket's own floor).
    #[arg(long, default_value = "perf-optimized")]
    ssd: String,
    /// Back end.
    #[arg(long, default_value = "baseline", value_parser = lagoon_lab::help::arch())]
    arch: Arch,
    /// Flash array as ROWSxCOLS (as `lagoon run --mesh`).
    #[arg(long)]
    mesh: Option<String>,
    /// Decoupled SSD configuration (as `lagoon run --design`).
    #[arg(long)]
    design: Option<String>,
    /// Listen on this Unix socket (created; removed at the end).
    #[arg(long)]
    socket: Option<PathBuf>,
    /// Listen on this TCP address (e.g. 127.0.0.1:10809).
    #[arg(long)]
    listen: Option<String>,
    /// Export size (4096, 64M, 16G, ...); default: the drive's logical capacity, or the
    /// backing file's size.
    #[arg(long, allow_hyphen_values = true)]
    size: Option<String>,
    /// realtime (replies at the simulated completion), realtime:K (simulated time K times
    /// slower than the wall clock), none (replies at once; simulated latency only reported).
    #[arg(long, default_value = "realtime")]
    pace: Pace,
    /// Connections served at once (each its own NVMe queue pair); more are closed.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    max_connections: u32,
    /// Memory for written data (bytes: 512M, 4G); beyond it writes go to --backing, or get
    /// ENOSPC without one.
    #[arg(long, default_value = "1G", allow_hyphen_values = true)]
    memory: String,
    /// The export's image file (created, or reused with its data): data survives the server.
    #[arg(long)]
    backing: Option<PathBuf>,
    /// Export name clients may ask for (the default export "" is the same).
    #[arg(long, default_value = "lagoon")]
    export_name: String,
    /// End this many seconds after the last client disconnects, if none connects
    /// meanwhile; `never`: serve until SIGINT/SIGTERM.
    #[arg(long, default_value = "2", allow_hyphen_values = true)]
    linger: String,
    /// Close a connection that leaves a message half sent (a header without its payload, a
    /// negotiation not finished), or its replies unread, for this many seconds.
    #[arg(long, default_value = "30", allow_hyphen_values = true)]
    stall_timeout: String,
    /// Write the JSON report (`lagoon run --json`'s, plus a `serve` section) here, or `-`.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Per-request log: a DiskSim ASCII trace of the reads and writes served in arrival
    /// order (`lagoon run --workload FILE` replays it), each followed by a `#` line with its
    /// latencies; `-`: standard output.
    #[arg(long)]
    log: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No summary on standard error.
    #[arg(long)]
    quiet: bool,
}

/// The report's `serve` section.
#[derive(serde::Serialize)]
struct ServeReport {
    lagoon_version: &'static str,
    command: Vec<String>,
    endpoint: String,
    pace: String,
    dilation_k: f64,
    export_bytes: u64,
    max_connections: u32,
    /// Reply sent minus simulated completion (wall clock, ns); divide by K for simulated ns.
    pacing_error: pace::PacingSummary,
    /// Server arrival (request read) to reply sent, wall clock, reads and writes.
    replied_latency_wall_ns: pace::PacingSummary,
    stats: ServeStats,
    store_memory_bytes: u64,
    store_budget_bytes: u64,
    backing: Option<PathBuf>,
    store_spills: u64,
    store_chunks_written_back: u64,
    stall_timeout_s: f64,
    wall_time_s: f64,
}

fn parse_size(what: &str, v: &str) -> Result<u64> {
    lagoon_workload::synthetic::parse_bytes(v)
        .with_context(|| format!("{what} {v}: expected bytes such as 4096, 512M or 16G"))
}

/// Seconds for `flag`, within `[min, max]` (a value `Duration` cannot hold never reaches it).
fn seconds(flag: &str, v: &str, min: f64, max: f64, or: &str) -> Result<Duration> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && (min..=max).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => bail!("{flag} {v}: expected seconds from {min} to {max}{or}"),
    }
}

/// The longest `--linger` (a year) and `--stall-timeout` (a day).
const MAX_LINGER_S: f64 = 31_536_000.0;
const MAX_STALL_S: f64 = 86_400.0;
/// proto.md: a string (an export name) MUST be no longer than 4096 bytes.
const MAX_EXPORT_NAME: usize = 4096;

/// The command line's numbers, each checked by name.
struct Limits {
    budget: u64,
    linger: Option<Duration>,
    stall: Duration,
    size: Option<u64>,
}

fn limits(a: &ServeArgs) -> Result<Limits> {
    let linger = match a.linger.as_str() {
        "never" => None,
        s => Some(seconds("--linger", s, 0.0, MAX_LINGER_S, ", or never")?),
    };
    let stall = seconds("--stall-timeout", &a.stall_timeout, 0.01, MAX_STALL_S, "")?;
    let budget = parse_size("--memory", &a.memory)?;
    if budget < store::CHUNK as u64 && a.backing.is_none() {
        bail!(
            "--memory {}: every write would get ENOSPC; give at least {} bytes (one chunk), or --backing FILE to write through to an image",
            a.memory,
            store::CHUNK
        );
    }
    let phys = physical_memory();
    if phys.is_some_and(|p| budget > p) {
        bail!(
            "--memory {}: more than this machine's {} bytes of memory",
            a.memory,
            phys.unwrap_or_default()
        );
    }
    let name = &a.export_name;
    if name.len() > MAX_EXPORT_NAME || name.contains('\0') {
        bail!(
            "--export-name: {} bytes; an NBD export name is at most {MAX_EXPORT_NAME} bytes of UTF-8 without NUL",
            name.len()
        );
    }
    let size = a
        .size
        .as_deref()
        .map(|s| parse_size("--size", s))
        .transpose()?;
    Ok(Limits {
        budget,
        linger,
        stall,
        size,
    })
}

fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf takes a constant and reads nothing of ours.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

/// The output paths, checked before the drive is built: `--json` and `--log` writable (a
/// device that refuses a byte, such as /dev/full, too; JSON takes a leading newline), not
/// both standard output; `--backing` a regular file or one that can be created.
fn check_paths(a: &ServeArgs) -> Result<()> {
    use lagoon_lab::out;
    if let (Some(j), Some(l)) = (&a.json, &a.log) {
        if out::is_stdout(j) && out::is_stdout(l) {
            bail!("--json and --log both name standard output (-); give a file to one");
        }
    }
    if let Some(j) = &a.json {
        out::check(j, "--json")?;
        if std::fs::metadata(j).is_ok_and(|m| !m.is_file()) {
            std::fs::OpenOptions::new()
                .write(true)
                .open(j)
                .and_then(|mut f| f.write_all(b"\n"))
                .with_context(|| format!("--json {}: cannot write", j.display()))?;
        }
    }
    if let Some(b) = &a.backing {
        match std::fs::metadata(b) {
            Ok(m) if !m.is_file() => bail!(
                "--backing {}: not a regular file (the image must be a file; it is created if missing)",
                b.display()
            ),
            Ok(_) => {}
            Err(_) => {
                let parent = b.parent().filter(|d| !d.as_os_str().is_empty());
                if parent.is_some_and(|d| !d.is_dir()) {
                    bail!(
                        "--backing {}: the directory {} does not exist",
                        b.display(),
                        parent.unwrap_or(Path::new(".")).display()
                    );
                }
            }
        }
    }
    Ok(())
}

/// The export's size: `--size`, else the backing image's, else the drive's capacity.
fn export_size(a: &ServeArgs, given: Option<u64>, capacity: u64) -> Result<u64> {
    let (size, from) = match (given, &a.backing) {
        (Some(s), _) => (
            s,
            format!("--size {}", a.size.as_deref().unwrap_or_default()),
        ),
        (None, Some(p)) if p.exists() => {
            let len = std::fs::metadata(p)
                .with_context(|| format!("--backing {}", p.display()))?
                .len();
            (
                len,
                format!("--backing {} (its size, {len} bytes)", p.display()),
            )
        }
        _ => return Ok(capacity),
    };
    if size == 0 || size % 512 != 0 || size > capacity {
        bail!(
            "{from}: the export must be a positive multiple of 512 bytes no larger than the drive's logical capacity ({capacity} bytes)"
        );
    }
    if let Some(p) = &a.backing {
        if p.exists() && std::fs::metadata(p)?.len() > size {
            bail!(
                "--backing {}: the image is larger than --size {size}",
                p.display()
            );
        }
    }
    Ok(size)
}

/// The stop flag for SIGTERM's handler (SIGINT's is the process's, `interrupt.rs`).
static SIGTERM_FLAG: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();

extern "C" fn on_sigterm(_: libc::c_int) {
    if let Some(c) = SIGTERM_FLAG.get() {
        if c.is_set() {
            c.abort();
        } else {
            c.finish();
        }
    }
}

/// SIGINT is the process's Ctrl-C (`interrupt::install`): its first asks the server to
/// finish, the second to stop; SIGTERM does the same on the same flag.
fn install_signals(c: &Cancel) {
    lagoon_lab::interrupt::finish_on_first(true);
    let _ = SIGTERM_FLAG.set(c.clone());
    // SAFETY: a handler that only touches an atomic (async-signal-safe).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigterm as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

pub fn serve(a: ServeArgs) -> Result<()> {
    let lim = limits(&a)?;
    check_paths(&a)?;
    // `--ssd null`: no device time at all (the client's and the socket's floor); the
    // perf-optimized drive only gives the export its size.
    let null = a.ssd == "null";
    let mut ssd = SsdConfig::load(if null { "perf-optimized" } else { &a.ssd })?;
    if let Some(m) = &a.mesh {
        lagoon_lab::batch::reshape(&mut ssd, m).context("--mesh")?;
    }
    if let Some(d) = &a.design {
        lagoon_lab::set_design(&mut ssd, d)?;
    }
    ssd.validate()?;
    let flows: Vec<Flow> = (0..a.max_connections)
        .map(|i| Flow {
            name: format!("nbd-{i}"),
            source: Box::new(std::iter::empty()),
            replay: Replay::Live,
        })
        .collect();
    // Building the drive can take long (steady preconditioning): Ctrl-C stops it there.
    let stop = crate::interrupt::cancel();
    let mut sim =
        lagoon_core::cancel::within(Some(&stop), || Simulator::new(&ssd, a.arch, flows, a.seed));
    if stop.is_set() {
        return Err(lagoon_core::sim::SimError::Cancelled { time_ns: 0.0 }.into());
    }
    sim.share_namespace();
    let capacity = sim.ftl().logical_pages * sim.ftl().geo.page_bytes as u64;
    let page = sim.ftl().geo.page_bytes;
    let size = export_size(&a, lim.size, capacity)?;
    let store = Store::new(size, lim.budget, a.backing.as_deref()).with_context(|| {
        format!(
            "--backing {}: cannot use it as a {size}-byte image",
            a.backing.as_deref().unwrap_or(Path::new("")).display()
        )
    })?;
    let what = format!("{}, {}, {}", a.ssd, a.arch, a.pace);
    let log = a
        .log
        .as_deref()
        .map(|p| log::Log::open(p, &what))
        .transpose()?;
    let (listener, endpoint) = match (&a.socket, &a.listen) {
        (Some(p), _) => {
            // Bound under a temporary name and renamed once listening, so that the socket
            // appears only when it takes connections; a stale socket of an earlier server
            // is replaced (only a socket).
            use std::os::unix::fs::FileTypeExt;
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            let tmp = p.with_file_name(format!(".{name}"));
            for q in [p, &tmp] {
                if let Ok(m) = std::fs::symlink_metadata(q) {
                    if !m.file_type().is_socket() {
                        bail!("--socket {}: exists and is not a socket", q.display());
                    }
                    std::fs::remove_file(q)
                        .with_context(|| format!("--socket {}: cannot replace", q.display()))?;
                }
            }
            let l =
                UnixListener::bind(&tmp).with_context(|| format!("--socket {}", p.display()))?;
            std::fs::rename(&tmp, p).with_context(|| format!("--socket {}", p.display()))?;
            l.set_nonblocking(true)?;
            (
                Listener::Unix(l, p.clone()),
                format!("unix:{}", p.display()),
            )
        }
        (None, Some(addr)) => {
            let l = TcpListener::bind(addr).with_context(|| format!("--listen {addr}"))?;
            l.set_nonblocking(true)?;
            let at = l.local_addr()?;
            (Listener::Tcp(l), format!("tcp:{at}"))
        }
        _ => unreachable!("clap requires one endpoint"),
    };
    let cancel = lagoon_lab::interrupt::cancel();
    install_signals(&cancel);
    // A client that vanishes must not end the server through SIGPIPE (main.rs restores its
    // default action for printing commands): writes to it fail with EPIPE instead.
    // SAFETY: setting a signal's disposition to ignore.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    pace::tighten_timer_slack();
    sim.start_live()?;
    if !a.quiet {
        eprintln!(
            "lagoon serve: {} ({} bytes, export \"{}\") on {endpoint}, {} on {}, pace {}; Ctrl-C ends and reports",
            a.ssd, size, a.export_name, a.arch, a.ssd, a.pace
        );
    }
    let ex = Export {
        name: a.export_name.clone(),
        description: format!("lagoon {} {}", a.ssd, a.arch),
        size,
        block_min: 512,
        block_preferred: page,
        max_payload: MAX_PAYLOAD,
    };
    let mut srv = Server::new(
        sim,
        Clock::new(a.pace.k()),
        a.pace,
        ex,
        store,
        listener,
        log,
        cancel,
        a.max_connections as usize,
    );
    srv.null = null;
    srv.stall_ns = lim.stall.as_nanos() as u64;
    srv.signal_before_wait = std::env::var_os("LAGOON_SERVE_SIGNAL_BEFORE_WAIT").is_some();
    let wall = Instant::now();
    srv.run(lim.linger)?;
    let logged = srv.finish_log();
    let Server {
        sim,
        mut store,
        stats,
        pacing,
        replied,
        ..
    } = srv;
    let backed = store.flush().with_context(|| {
        format!(
            "--backing {}: writing the data back",
            a.backing.as_deref().unwrap_or(Path::new("")).display()
        )
    });
    let outcome = sim.finish_live();
    let wall_s = wall.elapsed().as_secs_f64();
    let report = Report::new(
        &outcome,
        &a.ssd,
        &a.arch.to_string(),
        &format!("nbd:{endpoint}"),
        a.seed,
        wall_s,
    );
    let serve = ServeReport {
        lagoon_version: env!("CARGO_PKG_VERSION"),
        command: std::env::args().collect(),
        endpoint,
        pace: a.pace.to_string(),
        dilation_k: a.pace.k(),
        export_bytes: size,
        max_connections: a.max_connections,
        pacing_error: pacing.summary(),
        replied_latency_wall_ns: replied.summary(),
        stats,
        store_memory_bytes: store.memory_bytes(),
        store_budget_bytes: lim.budget,
        backing: a.backing.clone(),
        store_spills: store.spills,
        store_chunks_written_back: store.written_back,
        stall_timeout_s: lim.stall.as_secs_f64(),
        wall_time_s: wall_s,
    };
    if !a.quiet {
        eprint!("{}", report.summary());
        let p = &serve.pacing_error;
        let pacing = if a.pace == Pace::None {
            "no pacing (--pace none answers at once)".to_string()
        } else {
            format!(
                "pacing error (reply sent - simulated completion, wall): mean {:.1} us, p99 {:.1} us, max {:.1} us",
                p.mean_ns / 1e3,
                p.p99_ns as f64 / 1e3,
                p.max_ns as f64 / 1e3
            )
        };
        eprintln!(
            "served {} requests ({} connections); {pacing}",
            serve.stats.served(),
            serve.stats.connections,
        );
    }
    if let Some(target) = &a.json {
        let mut v = serde_json::to_value(&report)?;
        v.as_object_mut()
            .expect("a report is an object")
            .insert("serve".into(), serde_json::to_value(&serve)?);
        lagoon_lab::out::write(
            target,
            "--json",
            format!("{}\n", serde_json::to_string_pretty(&v)?).as_bytes(),
        )
        .with_context(|| format!("--json {}", target.display()))?;
    }
    backed?;
    logged.transpose()?;
    Ok(())
}
