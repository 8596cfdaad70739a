//! The server's event loop: one `ppoll` over the listener and every connection, the
//! requests of each into the store and the drive, the replies at their simulated completion.

use super::nbd::{self, Export, Request, Session, Step};
use super::pace::{self, Clock, Pace, PacingError};
use super::store::{Store, StoreError};
use anyhow::Result;
use lagoon_core::cancel::{Cancel, Request as CancelRequest};
use lagoon_core::host::flows::LiveCompletion;
use lagoon_core::sim::Simulator;
use lagoon_workload::{IoRequest, Op};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Largest payload advertised (`NBD_INFO_BLOCK_SIZE` maximum) and accepted.
pub(super) const MAX_PAYLOAD: u32 = 32 << 20;
/// Requests one connection may have in flight before the server stops reading from it.
const MAX_INFLIGHT: u32 = 1024;
/// Reply bytes one connection may have waiting before the server stops reading from it.
const MAX_OUT: usize = 64 << 20;

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn fd(&self) -> RawFd {
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(b),
            Stream::Tcp(s) => s.read(b),
        }
    }
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(b),
            Stream::Tcp(s) => s.write(b),
        }
    }
}

pub(super) enum Listener {
    Unix(UnixListener, PathBuf),
    Tcp(TcpListener),
}

impl Listener {
    fn fd(&self) -> RawFd {
        match self {
            Listener::Unix(l, _) => l.as_raw_fd(),
            Listener::Tcp(l) => l.as_raw_fd(),
        }
    }
    fn accept(&self) -> std::io::Result<Stream> {
        let s = match self {
            Listener::Unix(l, _) => Stream::Unix(l.accept()?.0),
            Listener::Tcp(l) => {
                let (s, _) = l.accept()?;
                s.set_nodelay(true)?;
                Stream::Tcp(s)
            }
        };
        match &s {
            Stream::Unix(u) => u.set_nonblocking(true)?,
            Stream::Tcp(t) => t.set_nonblocking(true)?,
        }
        Ok(s)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Listener::Unix(_, p) = self {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// One client connection.
struct Conn {
    stream: Stream,
    session: Session,
    input: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    flow: usize,
    /// Requests of this connection not yet answered.
    inflight: u32,
    /// NBD_CMD_DISC received, or the protocol asked to close: no more reading.
    draining: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Flush,
    Trim,
    WriteZeroes,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Flush => "flush",
            Kind::Trim => "trim",
            Kind::WriteZeroes => "write_zeroes",
        }
    }
}

/// A request in the drive.
struct Pending {
    conn: usize,
    /// The connection's serial number (a closed connection's slot may be reused).
    serial: u64,
    flow: usize,
    handle: u64,
    kind: Kind,
    offset: u64,
    len: u32,
    arrival_wall: u64,
    arrival_ps: u64,
    /// Submissions still to complete (a large WRITE_ZEROES is several).
    parts: u32,
    /// FUA: a flush follows the last part; `flushing` once it is under way.
    fua: bool,
    flushing: bool,
    /// `--pace none`: already answered.
    replied: bool,
}

/// What the server itself counts (the report's `serve` section).
#[derive(serde::Serialize, Default)]
pub(super) struct ServeStats {
    pub(super) connections: u64,
    connections_refused: u64,
    connections_closed_on_error: u64,
    reads: u64,
    writes: u64,
    flushes: u64,
    trims: u64,
    write_zeroes: u64,
    fua_writes: u64,
    /// Requests answered with an error before reaching the drive, by error.
    einval: u64,
    enospc: u64,
    eio: u64,
    /// Replies for clients that had gone.
    replies_dropped: u64,
    trimmed_pages_with_data: u64,
}

pub(super) struct Server {
    pub(super) sim: Simulator,
    clock: Clock,
    pace: Pace,
    ex: Export,
    pub(super) store: Store,
    listener: Option<Listener>,
    conns: Vec<Option<Conn>>,
    serials: Vec<u64>,
    next_serial: u64,
    /// The connection holding each flow, and each flow's requests in the drive.
    flow_conn: Vec<Option<usize>>,
    flow_inflight: Vec<u32>,
    pending: HashMap<u64, Pending>,
    next_tag: u64,
    pub(super) stats: ServeStats,
    pub(super) pacing: PacingError,
    pub(super) replied: PacingError,
    /// `--ssd null`: every request answered at once, nothing simulated.
    pub(super) null: bool,
    pub(super) log: Option<std::io::BufWriter<std::fs::File>>,
    done: Vec<LiveCompletion>,
    scratch: Vec<libc::pollfd>,
    cancel: Cancel,
}

impl Server {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        sim: Simulator,
        clock: Clock,
        pace: Pace,
        ex: Export,
        store: Store,
        listener: Listener,
        log: Option<std::io::BufWriter<std::fs::File>>,
        cancel: Cancel,
        flows: usize,
    ) -> Self {
        Server {
            clock,
            pace,
            ex,
            store,
            listener: Some(listener),
            conns: Vec::new(),
            serials: Vec::new(),
            next_serial: 0,
            flow_conn: vec![None; flows],
            flow_inflight: vec![0; flows],
            pending: HashMap::new(),
            next_tag: 0,
            stats: ServeStats::default(),
            pacing: PacingError::default(),
            replied: PacingError::default(),
            null: false,
            log,
            done: Vec::new(),
            scratch: Vec::new(),
            sim,
            cancel,
        }
    }

    pub(super) fn run(&mut self, linger: Option<Duration>) -> Result<()> {
        let mut idle_since: Option<Instant> = None;
        let mut stop_at: Option<Instant> = None;
        loop {
            let finishing = self.cancel.is_set();
            if self.cancel.request() == CancelRequest::Abort {
                break;
            }
            if finishing && stop_at.is_none() {
                // Stop taking work; finish what is in flight (bounded).
                stop_at = Some(Instant::now() + Duration::from_secs(10));
                self.listener = None;
                for c in self.conns.iter_mut().flatten() {
                    c.draining = true;
                }
            }
            let open = self.conns.iter().flatten().count();
            if finishing
                && (self.pending.is_empty() && self.out_empty()
                    || stop_at.is_some_and(|t| Instant::now() > t))
            {
                break;
            }
            if open == 0 && self.pending.is_empty() && self.stats.connections > 0 {
                let since = *idle_since.get_or_insert_with(Instant::now);
                if linger.is_some_and(|l| since.elapsed() >= l) {
                    break;
                }
            } else {
                idle_since = None;
            }
            // How long to sleep: until SPIN_NS before the next simulated event (realtime), or
            // the next event itself (none), or the linger deadline.
            let now = self.clock.wall_ns();
            let mut timeout = self.sim.next_event_time().map(|t| {
                let due = self.clock.wall_of(t);
                let margin = if matches!(self.pace, Pace::Realtime { .. }) {
                    pace::SPIN_NS
                } else {
                    0
                };
                due.saturating_sub(now + margin)
            });
            if let (Some(l), Some(s)) = (linger, idle_since) {
                let left = l.saturating_sub(s.elapsed()).as_nanos() as u64;
                timeout = Some(timeout.map_or(left, |t| t.min(left)));
            }
            if finishing {
                timeout = Some(timeout.map_or(10_000_000, |t| t.min(10_000_000)));
            }
            self.wait(timeout)?;
            self.advance()?;
        }
        // What is still in the drive (--pace none, or a stop): run it out, unanswered.
        while !self.pending.is_empty() {
            let Some(t) = self.sim.next_event_time() else {
                break;
            };
            self.sim.advance_to(t)?;
            self.collect()?;
        }
        Ok(())
    }

    fn out_empty(&self) -> bool {
        self.conns
            .iter()
            .flatten()
            .all(|c| c.out_pos >= c.out.len())
    }

    /// Poll the listener and the connections, then read, accept and write what is ready.
    fn wait(&mut self, timeout_ns: Option<u64>) -> Result<()> {
        let mut fds = std::mem::take(&mut self.scratch);
        fds.clear();
        let lfd = self.listener.as_ref().map(|l| l.fd());
        if let Some(fd) = lfd {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let mut ids = Vec::with_capacity(self.conns.len());
        for (i, c) in self.conns.iter().enumerate() {
            let Some(c) = c else { continue };
            let mut ev = 0;
            if !c.draining && c.inflight < MAX_INFLIGHT && c.out.len() - c.out_pos < MAX_OUT {
                ev |= libc::POLLIN;
            }
            if c.out_pos < c.out.len() {
                ev |= libc::POLLOUT;
            }
            fds.push(libc::pollfd {
                fd: c.stream.fd(),
                events: ev,
                revents: 0,
            });
            ids.push(i);
        }
        pace::poll(&mut fds, timeout_ns)?;
        let off = lfd.is_some() as usize;
        if lfd.is_some() && fds[0].revents & libc::POLLIN != 0 {
            self.accept();
        }
        for (k, &i) in ids.iter().enumerate() {
            let r = fds[off + k].revents;
            if r == 0 {
                continue;
            }
            if r & libc::POLLOUT != 0 {
                self.send(i);
            }
            if r & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
                self.receive(i)?;
            }
        }
        self.scratch = fds;
        Ok(())
    }

    fn accept(&mut self) {
        loop {
            let Some(l) = &self.listener else { return };
            let s = match l.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => return,
            };
            // A free flow: no connection and nothing of an earlier one left in the drive.
            let free = (0..self.flow_conn.len())
                .find(|&f| self.flow_conn[f].is_none() && self.flow_inflight[f] == 0);
            let Some(flow) = free else {
                self.stats.connections_refused += 1;
                drop(s); // closed: more than --max-connections
                continue;
            };
            let mut out = Vec::with_capacity(64);
            nbd::greeting(&mut out);
            let slot = self
                .conns
                .iter()
                .position(|c| c.is_none())
                .unwrap_or_else(|| {
                    self.conns.push(None);
                    self.serials.push(0);
                    self.conns.len() - 1
                });
            self.next_serial += 1;
            self.serials[slot] = self.next_serial;
            self.conns[slot] = Some(Conn {
                stream: s,
                session: Session::new(),
                input: Vec::new(),
                out,
                out_pos: 0,
                flow,
                inflight: 0,
                draining: false,
            });
            self.flow_conn[flow] = Some(slot);
            self.stats.connections += 1;
            self.send(slot);
        }
    }

    fn close(&mut self, i: usize, on_error: bool) {
        if let Some(c) = self.conns[i].take() {
            self.flow_conn[c.flow] = None;
            if on_error {
                self.stats.connections_closed_on_error += 1;
            }
        }
    }

    /// Write what the connection has waiting, as far as the socket takes it.
    fn send(&mut self, i: usize) {
        let Some(c) = self.conns[i].as_mut() else {
            return;
        };
        while c.out_pos < c.out.len() {
            match c.stream.write(&c.out[c.out_pos..]) {
                Ok(0) => return self.close(i, true),
                Ok(n) => c.out_pos += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return self.close(i, true),
            }
        }
        if c.out_pos == c.out.len() {
            c.out.clear();
            c.out_pos = 0;
            if c.draining && c.inflight == 0 {
                self.close(i, false);
            }
        } else if c.out_pos > (1 << 20) {
            c.out.drain(..c.out_pos);
            c.out_pos = 0;
        }
    }

    /// Read what the client sent and handle every complete message.
    fn receive(&mut self, i: usize) -> Result<()> {
        let mut buf = [0u8; 64 << 10];
        // At most 256 KiB per call: a client streaming large writes must not keep the loop
        // from answering the completions due meanwhile.
        for _ in 0..4 {
            let Some(c) = self.conns[i].as_mut() else {
                return Ok(());
            };
            if c.draining || c.input.len() > MAX_PAYLOAD as usize + (1 << 20) {
                break;
            }
            match c.stream.read(&mut buf) {
                Ok(0) => {
                    // The client went away (a request's payload may be cut short).
                    let mid = c_mid_message(c);
                    self.close(i, mid);
                    return Ok(());
                }
                Ok(n) => c.input.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.close(i, true);
                    return Ok(());
                }
            }
            self.parse(i)?;
        }
        self.parse(i)?;
        self.send(i);
        Ok(())
    }

    /// Handle the complete messages at the front of connection `i`'s input.
    fn parse(&mut self, i: usize) -> Result<()> {
        let Some(c) = self.conns[i].as_mut() else {
            return Ok(());
        };
        let input = std::mem::take(&mut c.input);
        let mut used = 0;
        let r = self.parse_from(i, &input, &mut used);
        if let Some(c) = self.conns[i].as_mut() {
            if !c.draining {
                c.input = input;
                c.input.drain(..used);
            }
        }
        r
    }

    fn parse_from(&mut self, i: usize, input: &[u8], used: &mut usize) -> Result<()> {
        loop {
            let Some(c) = self.conns[i].as_mut() else {
                return Ok(());
            };
            if c.draining || c.inflight >= MAX_INFLIGHT {
                return Ok(());
            }
            match c.session.step(&input[*used..], &self.ex, &mut c.out) {
                Step::More => return Ok(()),
                Step::Handled(n) | Step::Transmission(n) => *used += n,
                Step::Close(_why) => {
                    c.draining = true;
                    self.stats.connections_closed_on_error += 1;
                    if c.out_pos >= c.out.len() && c.inflight == 0 {
                        self.close(i, false);
                    } else {
                        self.send(i);
                    }
                    return Ok(());
                }
                Step::Request(n, r) => {
                    let payload = &input[*used + 28..*used + n];
                    *used += n;
                    self.request(i, r, payload)?;
                }
            }
        }
    }

    /// Answer request `r` of connection `i` at once with `error`.
    fn reply_now(&mut self, i: usize, handle: u64, error: u32) {
        let c = self.conns[i].as_mut().expect("open");
        nbd::simple_reply(&mut c.out, error, handle);
        match error {
            nbd::EINVAL => self.stats.einval += 1,
            nbd::ENOSPC => self.stats.enospc += 1,
            nbd::EIO => self.stats.eio += 1,
            _ => {}
        }
    }

    /// A request arrived now: into the store, then into the drive.
    fn request(&mut self, i: usize, r: Request, payload: &[u8]) -> Result<()> {
        if r.cmd == nbd::CMD_DISC {
            let c = self.conns[i].as_mut().expect("open");
            c.draining = true;
            return Ok(());
        }
        if let Some(e) = nbd::check(&r, &self.ex) {
            self.reply_now(i, r.handle, e);
            return Ok(());
        }
        // Replies due now go first: copying a large write into the store takes a while.
        self.advance()?;
        if self.conns[i].is_none() {
            return Ok(());
        }
        let wall = self.clock.wall_ns();
        let t = self.clock.sim_ps(wall);
        self.sim.advance_to(t)?;
        let flow = self.conns[i].as_ref().expect("open").flow;
        let fua = r.flags & nbd::CMD_FLAG_FUA != 0;
        let (kind, mut parts) = match r.cmd {
            nbd::CMD_READ => (Kind::Read, 1),
            nbd::CMD_WRITE => (Kind::Write, 1),
            nbd::CMD_FLUSH => (Kind::Flush, 1),
            nbd::CMD_TRIM => (Kind::Trim, 0),
            _ => (Kind::WriteZeroes, 0),
        };
        // Data first: a refused write changes nothing, in the store or the drive.
        let stored = match kind {
            Kind::Write => self.store.write(r.offset, payload),
            Kind::Trim | Kind::WriteZeroes => self.store.zero(r.offset, r.len as u64),
            Kind::Flush => self.store.flush().map_err(StoreError::Io),
            Kind::Read => Ok(()),
        };
        if let Err(e) = stored {
            let code = match e {
                StoreError::NoSpace => nbd::ENOSPC,
                StoreError::Io(_) => nbd::EIO,
            };
            self.reply_now(i, r.handle, code);
            return Ok(());
        }
        if fua && kind != Kind::Read && kind != Kind::Flush {
            // The data is persistent (in --backing) before the drive's own flush.
            if self.store.flush().is_err() {
                self.reply_now(i, r.handle, nbd::EIO);
                return Ok(());
            }
        }
        if self.null {
            // `--ssd null`: no device time at all; the reply leaves now (the floor).
            match kind {
                Kind::Read => self.stats.reads += 1,
                Kind::Write => self.stats.writes += 1,
                Kind::Flush => self.stats.flushes += 1,
                Kind::Trim => self.stats.trims += 1,
                Kind::WriteZeroes => self.stats.write_zeroes += 1,
            }
            let p = Pending {
                conn: i,
                serial: self.serials[i],
                flow,
                handle: r.handle,
                kind,
                offset: r.offset,
                len: r.len,
                arrival_wall: wall,
                arrival_ps: t,
                parts: 0,
                fua,
                flushing: false,
                replied: false,
            };
            return self.answer(p, t);
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        let io = |op, offset, size| IoRequest {
            arrival_ns: 0,
            offset_bytes: offset,
            size_bytes: size,
            op,
            device: 0,
        };
        match kind {
            Kind::Read => {
                self.stats.reads += 1;
                self.sim
                    .submit_live(flow, io(Op::Read, r.offset, r.len), tag);
            }
            Kind::Write => {
                self.stats.writes += 1;
                self.stats.fua_writes += fua as u64;
                self.sim
                    .submit_live(flow, io(Op::Write, r.offset, r.len), tag);
            }
            Kind::Flush => {
                self.stats.flushes += 1;
                self.sim.flush_live(flow, tag);
            }
            Kind::Trim => {
                self.stats.trims += 1;
                self.stats.trimmed_pages_with_data +=
                    self.sim.trim_live(flow, r.offset, r.len as u64);
            }
            Kind::WriteZeroes => {
                self.stats.write_zeroes += 1;
                // Whole pages deallocated (NVMe Write Zeroes with deallocate) unless the
                // client forbids holes; partial pages and NO_HOLE ranges are written.
                let page = self.ex.block_preferred as u64;
                let (off, end) = (r.offset, r.offset + r.len as u64);
                let mut writes = Vec::new();
                if r.flags & nbd::CMD_FLAG_NO_HOLE != 0 {
                    writes.push((off, end));
                } else {
                    let (a, b) = (off.div_ceil(page) * page, end / page * page);
                    if a < b {
                        self.stats.trimmed_pages_with_data += self.sim.trim_live(flow, a, b - a);
                        writes.push((off, a));
                        writes.push((b, end));
                    } else {
                        writes.push((off, end));
                    }
                }
                for (s, e) in writes {
                    let mut at = s;
                    while at < e {
                        let n = (e - at).min(MAX_PAYLOAD as u64);
                        self.sim.submit_live(flow, io(Op::Write, at, n as u32), tag);
                        parts += 1;
                        at += n;
                    }
                }
            }
        }
        let mut p = Pending {
            conn: i,
            serial: self.serials[i],
            flow,
            handle: r.handle,
            kind,
            offset: r.offset,
            len: r.len,
            arrival_wall: wall,
            arrival_ps: t,
            parts,
            fua,
            flushing: false,
            replied: false,
        };
        if parts == 0 {
            // A trim (or a write-zeroes of whole pages): done in the FTL now.
            if fua {
                p.parts = 1;
                p.flushing = true;
                self.sim.flush_live(flow, tag);
            } else {
                self.answer(p, t)?;
                return Ok(());
            }
        }
        if self.pace == Pace::None {
            let c = self.conns[i].as_mut().expect("open");
            nbd::simple_reply(&mut c.out, 0, r.handle);
            if kind == Kind::Read {
                let at = c.out.len();
                c.out.resize(at + r.len as usize, 0);
                self.store.read(r.offset, &mut c.out[at..])?;
            }
            p.replied = true;
        }
        self.conns[i].as_mut().expect("open").inflight += 1;
        self.flow_inflight[flow] += 1;
        self.pending.insert(tag, p);
        Ok(())
    }

    /// Move the simulation to the wall clock and answer what completed.
    fn advance(&mut self) -> Result<()> {
        let now = self.clock.sim_ps(self.clock.wall_ns());
        if self.sim.next_event_time().is_some_and(|t| t <= now) {
            self.sim.advance_to(now)?;
        }
        self.collect()
    }

    /// Answer the completions the simulation produced.
    fn collect(&mut self) -> Result<()> {
        loop {
            let mut done = std::mem::take(&mut self.done);
            self.sim.take_live_completions(&mut done);
            if done.is_empty() {
                self.done = done;
                return Ok(());
            }
            for c in done.drain(..) {
                let Some(p) = self.pending.get_mut(&c.tag) else {
                    continue;
                };
                p.parts -= 1;
                if p.parts > 0 {
                    continue;
                }
                if p.fua && !p.flushing {
                    p.flushing = true;
                    p.parts = 1;
                    let flow = p.flow;
                    self.sim.flush_live(flow, c.tag);
                    continue;
                }
                let p = self.pending.remove(&c.tag).expect("present");
                self.flow_inflight[p.flow] -= 1;
                if let Some(conn) = self.conns[p.conn].as_mut() {
                    if self.serials[p.conn] == p.serial {
                        conn.inflight -= 1;
                    }
                }
                self.answer(p, c.completed)?;
            }
            self.done = done;
        }
    }

    /// Send request `p`'s reply (its simulated completion at `completed` ps), log it.
    fn answer(&mut self, p: Pending, completed: u64) -> Result<()> {
        let due = self.clock.wall_of(completed);
        let live = self.conns[p.conn].is_some() && self.serials[p.conn] == p.serial;
        let mut sent = None;
        if !p.replied {
            if live {
                let c = self.conns[p.conn].as_mut().expect("live");
                nbd::simple_reply(&mut c.out, 0, p.handle);
                if p.kind == Kind::Read {
                    let at = c.out.len();
                    c.out.resize(at + p.len as usize, 0);
                    self.store.read(p.offset, &mut c.out[at..])?;
                }
                let now = self.clock.wall_ns();
                self.send(p.conn);
                sent = Some(now);
                let err = now.saturating_sub(due);
                self.pacing.record(err);
                if matches!(p.kind, Kind::Read | Kind::Write) {
                    self.replied.record(now - p.arrival_wall);
                }
            } else {
                self.stats.replies_dropped += 1;
            }
        } else if live {
            let c = self.conns[p.conn].as_ref().expect("live");
            if c.draining && c.inflight == 0 {
                self.send(p.conn);
            }
        }
        if let Some(w) = &mut self.log {
            let k = self.pace.k();
            let sim_ns = (completed - p.arrival_ps) / 1000;
            let (replied_ns, err_ns) = match sent {
                Some(s) => (
                    ((s - p.arrival_wall) as f64 / k) as u64,
                    s.saturating_sub(due) as i64,
                ),
                None => (0, -1),
            };
            let ms = p.arrival_ps as f64 / 1e9;
            let conn = p.flow;
            match p.kind {
                Kind::Read | Kind::Write => {
                    let flags = (p.kind == Kind::Read) as u8;
                    writeln!(
                        w,
                        "{ms:.6} {conn} {} {} {flags}\n# {} {sim_ns} {replied_ns} {err_ns}",
                        p.offset / 512,
                        (p.len as u64).div_ceil(512),
                        p.kind.name()
                    )?;
                }
                _ => writeln!(
                    w,
                    "# {} at {ms:.6} ms connection {conn} offset {} bytes {} {sim_ns} {replied_ns} {err_ns}",
                    p.kind.name(),
                    p.offset,
                    p.len
                )?,
            }
        }
        Ok(())
    }
}

/// Whether a connection that ended had a message half sent (a client vanishing mid-request).
fn c_mid_message(c: &Conn) -> bool {
    !c.input.is_empty() || !c.session.in_transmission()
}
