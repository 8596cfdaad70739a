//! `--log`: the requests served as a DiskSim ASCII trace, in arrival order, so that
//! `lagoon run --workload LOG --format disksim` replays them as they came. A request's line is
//! written once it and every request that arrived before it have completed (their latencies
//! follow each line as a `#` comment); until then it waits in a queue as long as the requests
//! in the drive.

use super::server::Kind;
use anyhow::{Context, Result};
use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::path::Path;

/// One request's line, filled in at its completion.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) arrival_ps: u64,
    pub(super) flow: usize,
    pub(super) offset: u64,
    pub(super) len: u32,
    /// Arrival to simulated completion, ns; `None` while in the drive.
    pub(super) sim_ns: Option<u64>,
    /// Arrival to reply sent, wall ns / K, and the pacing error (wall ns); `None`: no reply
    /// was sent (answered at arrival under `--pace none`, or the client had gone).
    pub(super) replied: Option<(u64, u64)>,
}

pub(super) struct Log {
    w: BufWriter<Box<dyn Write>>,
    /// `--log PATH`, for errors.
    name: String,
    queue: VecDeque<Option<Entry>>,
    /// Sequence number of `queue[0]`.
    first: u64,
    error: Option<std::io::Error>,
}

impl Log {
    /// Open `path` (`-`: standard output) and write the header, so that a path that cannot
    /// be written (a missing folder, `/proc/version`, `/dev/full`) fails before the server
    /// listens.
    pub(super) fn open(path: &Path, what: &str) -> Result<Log> {
        let name = format!("--log {}", path.display());
        lagoon_lab::out::check(path, "--log")?;
        let w: Box<dyn Write> = if lagoon_lab::out::is_stdout(path) {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::fs::File::create(path).with_context(|| format!("{name}: cannot write"))?)
        };
        let mut log = Log {
            w: BufWriter::with_capacity(1 << 16, w),
            name,
            queue: VecDeque::new(),
            first: 0,
            error: None,
        };
        let header = format!(
            "# lagoon serve log ({what}): each read or write served is a DiskSim ASCII line (arrival_ms connection block size_blocks flags, bit 0 = read), in arrival order,\n\
             # then `# <op> simulated_ns replied_ns pacing_error_ns` (simulated: arrival to simulated completion; replied: arrival to reply sent, wall ns / K; -1: no reply sent);\n\
             # trims, write-zeroes and flushes are `#` lines only. Replay: lagoon run --workload THIS --format disksim\n"
        );
        log.w
            .write_all(header.as_bytes())
            .and_then(|()| log.w.flush())
            .with_context(|| format!("{}: cannot write", log.name))?;
        Ok(log)
    }

    /// A request arrived: its place in the log.
    pub(super) fn arrive(&mut self) -> u64 {
        self.queue.push_back(None);
        self.first + self.queue.len() as u64 - 1
    }

    /// Request `seq` completed: write it and every completed one after it that waited.
    pub(super) fn complete(&mut self, seq: u64, e: Entry) {
        let i = (seq - self.first) as usize;
        self.queue[i] = Some(e);
        while let Some(Some(e)) = self.queue.front() {
            let e = *e;
            self.queue.pop_front();
            self.first += 1;
            self.line(&e);
        }
    }

    fn line(&mut self, e: &Entry) {
        if self.error.is_some() {
            return;
        }
        let ms = e.arrival_ps as f64 / 1e9;
        let conn = e.flow;
        let sim = e.sim_ns.map_or(-1, |v| v as i64);
        let (replied, err) = e.replied.map_or((-1, -1), |(r, p)| (r as i64, p as i64));
        let r = match e.kind {
            Kind::Read | Kind::Write => writeln!(
                self.w,
                "{ms:.6} {conn} {} {} {}\n# {} {sim} {replied} {err}",
                e.offset / 512,
                (e.len as u64).div_ceil(512),
                (e.kind == Kind::Read) as u8,
                e.kind.name()
            ),
            _ => writeln!(
                self.w,
                "# {} at {ms:.6} ms connection {conn} offset {} bytes {} {sim} {replied} {err}",
                e.kind.name(),
                e.offset,
                e.len
            ),
        };
        if let Err(err) = r {
            self.error = Some(err);
        }
    }

    /// Write what is left (a request the drive never completed shows -1) and flush; the
    /// first write error, naming the flag and the path.
    pub(super) fn finish(mut self, unfinished: impl Fn(u64) -> Option<Entry>) -> Result<()> {
        while let Some(e) = self.queue.pop_front() {
            let seq = self.first;
            self.first += 1;
            if let Some(e) = e.or_else(|| unfinished(seq)) {
                self.line(&e);
            }
        }
        if self.error.is_none() {
            if let Err(e) = self.w.flush() {
                self.error = Some(e);
            }
        }
        match self.error.take() {
            Some(e) => Err(e).with_context(|| format!("{}: cannot write", self.name)),
            None => Ok(()),
        }
    }
}
