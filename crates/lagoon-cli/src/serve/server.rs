//! The server's event loop: one `ppoll` over the listener and every connection, the
//! requests of each into the store and the drive, the replies at their simulated completion.
//! What each connection may hold is bounded in `conn.rs`; a client that leaves a message half
//! sent or its replies unread for `--stall-timeout` is closed; SIGINT and SIGTERM are open
//! only inside the wait (`pace::SignalGate`).

use super::conn::{Conn, Io, Stream, WRITE_POOL};
use super::log::{Entry, Log};
use super::nbd::{self, Export, Request, Step};
use super::pace::{self, Clock, Pace, PacingError, SignalGate};
use super::store::{Store, StoreError};
use anyhow::Result;
use lagoon_core::cancel::{Cancel, Request as CancelRequest};
use lagoon_core::host::flows::LiveCompletion;
use lagoon_core::sim::Simulator;
use lagoon_workload::{IoRequest, Op};
use std::collections::HashMap;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Largest payload advertised (`NBD_INFO_BLOCK_SIZE` maximum) and accepted.
pub(super) const MAX_PAYLOAD: u32 = 32 << 20;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
    Flush,
    Trim,
    WriteZeroes,
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
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
    /// Its place in `--log`.
    log_seq: Option<u64>,
}

impl Pending {
    /// Its `--log` line: `completed` (ps) if known, `sent` the wall ns its reply left.
    fn entry(&self, completed: Option<u64>, sent: Option<(u64, u64)>) -> Entry {
        Entry {
            kind: self.kind,
            arrival_ps: self.arrival_ps,
            flow: self.flow,
            offset: self.offset,
            len: self.len,
            sim_ns: completed.map(|c| (c - self.arrival_ps) / 1000),
            replied: sent,
        }
    }
}

/// What the server itself counts (the report's `serve` section).
#[derive(serde::Serialize, Default)]
pub(super) struct ServeStats {
    pub(super) connections: u64,
    connections_refused: u64,
    connections_closed_on_error: u64,
    /// Closed after `--stall-timeout` with a message half sent or replies unread.
    connections_closed_stalled: u64,
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
    /// The most bytes of the shared pool for large writes' payloads held at once.
    write_pool_peak_bytes: u64,
}

impl ServeStats {
    /// Requests that reached the drive (every command but the ones refused at once).
    pub(super) fn served(&self) -> u64 {
        self.reads + self.writes + self.flushes + self.trims + self.write_zeroes
    }
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
    pub(super) log: Option<Log>,
    done: Vec<LiveCompletion>,
    scratch: Vec<libc::pollfd>,
    ids: Vec<usize>,
    cancel: Cancel,
    /// `--stall-timeout`, wall ns.
    pub(super) stall_ns: u64,
    /// Bytes of [`WRITE_POOL`] reserved.
    pool_used: u64,
    /// Test hook (`LAGOON_SERVE_SIGNAL_BEFORE_WAIT`): raise SIGINT once, after the loop
    /// looked at the stop flag and before a wait without a time limit.
    pub(super) signal_before_wait: bool,
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
        log: Option<Log>,
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
            ids: Vec::new(),
            sim,
            cancel,
            stall_ns: 30_000_000_000,
            pool_used: 0,
            signal_before_wait: false,
        }
    }

    pub(super) fn run(&mut self, linger: Option<Duration>) -> Result<()> {
        let gate = SignalGate::close()?;
        // SAFETY: getpid and gettid take nothing and cannot fail.
        let off_main = unsafe { libc::getpid() as libc::c_long != libc::syscall(libc::SYS_gettid) };
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
                for i in 0..self.conns.len() {
                    if let Some(c) = self.conns[i].as_mut() {
                        c.draining = true;
                        self.release(i);
                    }
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
            // Requests a throttle held back, then clients that stalled.
            for i in 0..self.conns.len() {
                if self.conns[i].as_ref().is_some_and(|c| !c.input.is_empty()) {
                    self.parse(i)?;
                    self.send(i);
                }
            }
            let stall_due = self.stall_deadline();
            // How long to sleep: until SPIN_NS before the next simulated event (realtime), or
            // the next event itself (none), or the linger or stall deadline.
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
            let mut limit = |t: u64| timeout = Some(timeout.map_or(t, |o| o.min(t)));
            if let (Some(l), Some(s)) = (linger, idle_since) {
                limit(l.saturating_sub(s.elapsed()).as_nanos() as u64);
            }
            if let Some(d) = stall_due {
                limit(d.saturating_sub(now));
            }
            if finishing {
                limit(10_000_000);
            }
            if off_main {
                // Signals go to another thread (under Python's `lagoon`, whose main thread
                // sets the flag): look at the flag every 50 ms.
                limit(50_000_000);
            }
            if self.signal_before_wait && timeout.is_none() {
                self.signal_before_wait = false;
                // SAFETY: raising a signal in this thread; its handler only sets a flag.
                unsafe { libc::raise(libc::SIGINT) };
            }
            self.wait(timeout, &gate)?;
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
        drop(gate);
        Ok(())
    }

    /// The log, with what never completed written as such.
    pub(super) fn finish_log(&mut self) -> Option<Result<()>> {
        let log = self.log.take()?;
        let left: HashMap<u64, Entry> = self
            .pending
            .values()
            .filter_map(|p| Some((p.log_seq?, p.entry(None, None))))
            .collect();
        Some(log.finish(|seq| left.get(&seq).copied()))
    }

    fn out_empty(&self) -> bool {
        self.conns.iter().flatten().all(|c| c.out_empty())
    }

    /// The earliest wall time (ns) a connection waiting on its client would have stalled for
    /// `--stall-timeout`; a connection that waits on nothing starts its clock again.
    fn stall_deadline(&mut self) -> Option<u64> {
        let now = self.clock.wall_ns();
        let mut next = None::<u64>;
        for i in 0..self.conns.len() {
            let blocked = self.pool_blocked(i);
            let Some(c) = self.conns[i].as_mut() else {
                continue;
            };
            if !c.waits_on_client(blocked) {
                c.progress_ns = now;
                continue;
            }
            let due = c.progress_ns.saturating_add(self.stall_ns);
            next = Some(next.map_or(due, |n| n.min(due)));
        }
        next
    }

    /// Close connection `i` if the wait just ended found nothing from it (no bytes to read,
    /// no room to write) and it has waited on its client past `--stall-timeout`.
    fn close_if_stalled(&mut self, i: usize, now: u64) {
        let blocked = self.pool_blocked(i);
        if self.conns[i].as_ref().is_some_and(|c| {
            c.waits_on_client(blocked) && now >= c.progress_ns.saturating_add(self.stall_ns)
        }) {
            self.stats.connections_closed_stalled += 1;
            self.close(i, false);
        }
    }

    /// Whether connection `i` waits for room in the write pool.
    fn pool_blocked(&self, i: usize) -> bool {
        self.conns[i].as_ref().is_some_and(|c| {
            matches!(c.read_room(self.ex.max_payload), (0, Some(n)) if self.pool_used + n > WRITE_POOL)
        })
    }

    /// How many bytes connection `i` may read now; a large write at the front of its input
    /// gets its payload's reservation here when the pool has room.
    fn room(&mut self, i: usize) -> usize {
        let Some(c) = self.conns[i].as_mut() else {
            return 0;
        };
        match c.read_room(self.ex.max_payload) {
            (0, Some(n)) if self.pool_used + n <= WRITE_POOL => {
                c.reserved = n;
                self.pool_used += n;
                self.stats.write_pool_peak_bytes =
                    self.stats.write_pool_peak_bytes.max(self.pool_used);
                let room = c.read_room(self.ex.max_payload).0;
                c.input.reserve_exact(room);
                room
            }
            (room, _) => room,
        }
    }

    /// Give connection `i`'s pool reservation back.
    fn release(&mut self, i: usize) {
        if let Some(c) = self.conns[i].as_mut() {
            self.pool_used -= c.reserved;
            c.reserved = 0;
        }
    }

    /// Poll the listener and the connections, then read, accept and write what is ready.
    fn wait(&mut self, timeout_ns: Option<u64>, gate: &SignalGate) -> Result<()> {
        let mut fds = std::mem::take(&mut self.scratch);
        let mut ids = std::mem::take(&mut self.ids);
        fds.clear();
        ids.clear();
        let lfd = self.listener.as_ref().map(|l| l.fd());
        if let Some(fd) = lfd {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        for i in 0..self.conns.len() {
            let room = self.room(i);
            let Some(c) = &self.conns[i] else { continue };
            let mut ev = 0;
            if room > 0 {
                ev |= libc::POLLIN;
            }
            if !c.out_empty() {
                ev |= libc::POLLOUT;
            }
            fds.push(libc::pollfd {
                fd: c.stream.fd(),
                events: ev,
                revents: 0,
            });
            ids.push(i);
        }
        pace::poll(&mut fds, timeout_ns, gate)?;
        let off = lfd.is_some() as usize;
        if lfd.is_some() && fds[0].revents & libc::POLLIN != 0 {
            self.accept();
        }
        let now = self.clock.wall_ns();
        for (k, &i) in ids.iter().enumerate() {
            let (r, asked) = (fds[off + k].revents, fds[off + k].events);
            if r == 0 {
                self.close_if_stalled(i, now);
                continue;
            }
            if r & libc::POLLOUT != 0 {
                self.send(i);
            }
            if asked & libc::POLLIN != 0 && r & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0
            {
                self.receive(i)?;
            } else if r & (libc::POLLHUP | libc::POLLERR) != 0 {
                // Gone while the server was not reading from it: nothing can reach it.
                let mid = self.conns[i]
                    .as_ref()
                    .is_some_and(|c| !c.input.is_empty() || !c.session.in_transmission());
                self.close(i, mid);
            }
        }
        self.scratch = fds;
        self.ids = ids;
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
            self.conns[slot] = Some(Conn::new(s, flow, self.clock.wall_ns()));
            self.flow_conn[flow] = Some(slot);
            self.stats.connections += 1;
            self.send(slot);
        }
    }

    fn close(&mut self, i: usize, on_error: bool) {
        self.release(i);
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
        match c.send(&self.store) {
            Io::Moved(n) => {
                if n > 0 {
                    c.progress_ns = self.clock.wall_ns();
                }
                if c.draining && c.inflight == 0 && c.out_empty() {
                    self.close(i, false);
                }
            }
            Io::Eof | Io::Closed => self.close(i, true),
        }
    }

    /// Read what the client sent and handle every complete message.
    fn receive(&mut self, i: usize) -> Result<()> {
        // At most 4 reads per call: a client streaming large writes must not keep the loop
        // from answering the completions due meanwhile.
        for _ in 0..4 {
            let room = self.room(i);
            let Some(c) = self.conns[i].as_mut() else {
                return Ok(());
            };
            if room == 0 {
                break;
            }
            match c.receive(room) {
                Io::Moved(0) => break,
                Io::Moved(_) => c.progress_ns = self.clock.wall_ns(),
                Io::Eof if c.input.is_empty() && c.session.in_transmission() => {
                    // The client is done sending: answer what it asked, then close.
                    c.draining = true;
                    if c.inflight == 0 && c.out_empty() {
                        self.close(i, false);
                    }
                    return Ok(());
                }
                // Gone mid-message, or mid-negotiation, or the stream failed.
                Io::Eof | Io::Closed => {
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
            if c.draining {
                self.release(i);
            } else {
                c.input = input;
                if used > 0 {
                    // A reservation was for the message at the front, now handled.
                    c.consume(used);
                    self.release(i);
                }
            }
        }
        r
    }

    fn parse_from(&mut self, i: usize, input: &[u8], used: &mut usize) -> Result<()> {
        loop {
            let Some(c) = self.conns[i].as_mut() else {
                return Ok(());
            };
            if c.draining || c.throttled() {
                return Ok(());
            }
            match c.step(&input[*used..], &self.ex) {
                Step::More => return Ok(()),
                Step::Handled(n) | Step::Transmission(n) => *used += n,
                Step::Close(_why) => {
                    c.draining = true;
                    self.stats.connections_closed_on_error += 1;
                    if c.out_empty() && c.inflight == 0 {
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
        nbd::simple_reply(c.out(), error, handle);
        match error {
            nbd::EINVAL => self.stats.einval += 1,
            nbd::ENOSPC => self.stats.enospc += 1,
            nbd::EIO => self.stats.eio += 1,
            _ => {}
        }
    }

    /// Queue a successful reply to request `p` on its (live) connection; a read's data that
    /// cannot be read from the store closes the connection (its header is already queued).
    fn reply_ok(&mut self, p: &Pending) {
        let c = self.conns[p.conn].as_mut().expect("live");
        if p.kind != Kind::Read {
            nbd::simple_reply(c.out(), 0, p.handle);
        } else if c
            .reply_read(p.handle, p.offset, p.len, &self.store)
            .is_err()
        {
            self.stats.eio += 1;
            self.close(p.conn, true);
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
        match kind {
            Kind::Read => self.stats.reads += 1,
            Kind::Write => self.stats.writes += 1,
            Kind::Flush => self.stats.flushes += 1,
            Kind::Trim => self.stats.trims += 1,
            Kind::WriteZeroes => self.stats.write_zeroes += 1,
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
            parts: 0,
            fua,
            flushing: false,
            replied: false,
            log_seq: self.log.as_mut().map(|l| l.arrive()),
        };
        if self.null {
            // `--ssd null`: no device time at all; the reply leaves now (the floor).
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
                self.sim
                    .submit_live(flow, io(Op::Read, r.offset, r.len), tag);
            }
            Kind::Write => {
                self.stats.fua_writes += fua as u64;
                self.sim
                    .submit_live(flow, io(Op::Write, r.offset, r.len), tag);
            }
            Kind::Flush => self.sim.flush_live(flow, tag),
            Kind::Trim => {
                self.stats.trimmed_pages_with_data +=
                    self.sim.trim_live(flow, r.offset, r.len as u64);
            }
            Kind::WriteZeroes => {
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
        p.parts = parts;
        if p.parts == 0 {
            // A trim (or a write-zeroes of whole pages): done in the FTL now.
            if fua {
                p.parts = 1;
                p.flushing = true;
                self.sim.flush_live(flow, tag);
            } else {
                return self.answer(p, t);
            }
        }
        if self.pace == Pace::None {
            self.reply_ok(&p);
            p.replied = true;
        }
        if let Some(c) = self.conns[i].as_mut() {
            c.inflight += 1;
        }
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
                self.reply_ok(&p);
                let now = self.clock.wall_ns();
                self.send(p.conn);
                let err = now.saturating_sub(due);
                sent = Some((((now - p.arrival_wall) as f64 / self.pace.k()) as u64, err));
                self.pacing.record(err);
                if matches!(p.kind, Kind::Read | Kind::Write) {
                    self.replied.record(now - p.arrival_wall);
                }
            } else {
                self.stats.replies_dropped += 1;
            }
        } else if live {
            // `--pace none`: the reply left at arrival; a draining connection may now close.
            self.send(p.conn);
        }
        if let (Some(log), Some(seq)) = (self.log.as_mut(), p.log_seq) {
            log.complete(seq, p.entry(Some(completed), sent));
        }
        Ok(())
    }
}
