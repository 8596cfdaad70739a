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
//! closes and its requests have left the drive.

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
use std::path::PathBuf;
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
    #[arg(long, default_value = "baseline", value_parser = crate::help::arch())]
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
    #[arg(long)]
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
    #[arg(long, default_value = "1G")]
    memory: String,
    /// The export's image file (created, or reused with its data): data survives the server.
    #[arg(long)]
    backing: Option<PathBuf>,
    /// Export name clients may ask for (the default export "" is the same).
    #[arg(long, default_value = "lagoon")]
    export_name: String,
    /// End this many seconds after the last client disconnects, if none connects
    /// meanwhile; `never`: serve until SIGINT/SIGTERM.
    #[arg(long, default_value = "2")]
    linger: String,
    /// Write the JSON report (`lagoon run --json`'s, plus a `serve` section) here, or `-`.
    #[arg(long)]
    json: Option<String>,
    /// Per-request log: a DiskSim ASCII trace of the reads and writes served (`lagoon run
    /// --workload FILE` replays it), each followed by a `#` line with its latencies.
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
    wall_time_s: f64,
}

fn parse_size(what: &str, v: &str) -> Result<u64> {
    lagoon_workload::synthetic::parse_bytes(v)
        .with_context(|| format!("{what} {v}: expected bytes such as 4096, 512M or 16G"))
}

/// Ask the server to finish (first signal) or stop at once (second).
static SIGNALLED: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();

extern "C" fn on_signal(_: libc::c_int) {
    if let Some(c) = SIGNALLED.get() {
        if c.is_set() {
            c.abort();
        } else {
            c.finish();
        }
    }
}

fn install_signals(c: &Cancel) {
    let _ = SIGNALLED.set(c.clone());
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a handler that only touches an atomic (async-signal-safe); no SA_RESTART,
        // so `ppoll` returns at once.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub fn serve(a: ServeArgs) -> Result<()> {
    // `--ssd null`: no device time at all (the client's and the socket's floor); the
    // perf-optimized drive only gives the export its size.
    let null = a.ssd == "null";
    let mut ssd = SsdConfig::load(if null { "perf-optimized" } else { &a.ssd })?;
    if let Some(m) = &a.mesh {
        crate::batch::reshape(&mut ssd, m).context("--mesh")?;
    }
    if let Some(d) = &a.design {
        crate::set_design(&mut ssd, d)?;
    }
    ssd.validate()?;
    let budget = parse_size("--memory", &a.memory)?;
    let linger = match a.linger.as_str() {
        "never" => None,
        s => match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Some(Duration::from_secs_f64(v)),
            _ => bail!("--linger {s}: expected seconds or `never`"),
        },
    };
    let flows: Vec<Flow> = (0..a.max_connections)
        .map(|i| Flow {
            name: format!("nbd-{i}"),
            source: Box::new(std::iter::empty()),
            replay: Replay::Live,
        })
        .collect();
    let mut sim = Simulator::new(&ssd, a.arch, flows, a.seed);
    sim.share_namespace();
    let capacity = sim.ftl().logical_pages * sim.ftl().geo.page_bytes as u64;
    let page = sim.ftl().geo.page_bytes;
    let size = match (&a.size, &a.backing) {
        (Some(s), _) => parse_size("--size", s)?,
        (None, Some(p)) if p.exists() => std::fs::metadata(p)?.len(),
        _ => capacity,
    };
    if size == 0 || size % 512 != 0 || size > capacity {
        bail!(
            "export size {size}: expected a positive multiple of 512 bytes no larger than the drive's logical capacity ({capacity} bytes)"
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
    let store = Store::new(size, budget, a.backing.as_deref())
        .with_context(|| format!("--backing {:?}", a.backing))?;
    let (listener, endpoint) = match (&a.socket, &a.listen) {
        (Some(p), _) => {
            if p.exists() {
                // A stale socket of an earlier server: only a socket is replaced.
                use std::os::unix::fs::FileTypeExt;
                if std::fs::metadata(p)?.file_type().is_socket() {
                    std::fs::remove_file(p)?;
                } else {
                    bail!("--socket {}: exists and is not a socket", p.display());
                }
            }
            let l = UnixListener::bind(p).with_context(|| format!("--socket {}", p.display()))?;
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
    let log = match &a.log {
        Some(p) => {
            let mut w = std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("--log {}", p.display()))?,
            );
            writeln!(w, "# lagoon serve log ({}, {}, {}): each read or write served is a DiskSim ASCII line (arrival_ms connection block size_blocks flags, bit 0 = read),", a.ssd, a.arch, a.pace)?;
            writeln!(w, "# then `# <op> simulated_ns replied_ns pacing_error_ns` (simulated: arrival to simulated completion; replied: arrival to reply sent, wall ns / K);")?;
            writeln!(w, "# trims, write-zeroes and flushes are `#` lines only. Replay: lagoon run --workload THIS --format disksim")?;
            Some(w)
        }
        None => None,
    };
    let cancel = Cancel::new();
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
    let wall = Instant::now();
    srv.run(linger)?;
    let Server {
        sim,
        mut store,
        stats,
        pacing,
        replied,
        log,
        ..
    } = srv;
    store
        .flush()
        .context("writing the data back to --backing")?;
    if let Some(mut w) = log {
        w.flush()?;
    }
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
        store_budget_bytes: budget,
        backing: a.backing.clone(),
        store_spills: store.spills,
        store_chunks_written_back: store.written_back,
        wall_time_s: wall_s,
    };
    if !a.quiet {
        let p = &serve.pacing_error;
        eprint!("{}", report.summary());
        eprintln!(
            "served {} requests ({} connections); pacing error (reply sent - simulated completion, wall): mean {:.1} us, p99 {:.1} us, max {:.1} us",
            p.replies,
            serve.stats.connections,
            p.mean_ns / 1e3,
            p.p99_ns as f64 / 1e3,
            p.max_ns as f64 / 1e3
        );
    }
    if let Some(target) = &a.json {
        let mut v = serde_json::to_value(&report)?;
        v.as_object_mut()
            .expect("a report is an object")
            .insert("serve".into(), serde_json::to_value(&serve)?);
        crate::write_out(target, &serde_json::to_string_pretty(&v)?)?;
    }
    Ok(())
}
