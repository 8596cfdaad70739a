//! One client connection and the memory it may hold (docs/SERVE.md, "Memory"): what it sent
//! and the server has not handled yet, and what the server owes it.
//!
//! - Input: at most [`INPUT_FREE`] bytes, or one WRITE's whole message when the server has
//!   reserved its payload in the shared write pool ([`WRITE_POOL`]).
//! - Output: reply headers, option replies and small reads' data, at most [`OUT_CAP`] (past
//!   it the server stops taking requests from the connection); a read whose data does not
//!   fit is sent from the store piece by piece ([`PIECE`]) as the socket takes it, so a client
//!   that does not read its replies holds no more than that.

use super::nbd::{self, Session};
use super::store::Store;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;

/// Input a connection may hold without a reservation: any negotiation message, any request
/// header, and small writes whole.
pub(super) const INPUT_FREE: usize = 256 << 10;
/// Reply bytes a connection may have waiting before the server stops taking its requests;
/// a read's data is copied in only while it fits.
pub(super) const OUT_CAP: usize = 1 << 20;
/// Largest piece of a large read's data copied from the store at once.
pub(super) const PIECE: usize = 256 << 10;
/// Write payloads larger than [`INPUT_FREE`] being received, all connections together.
pub(super) const WRITE_POOL: u64 = 256 << 20;
/// Requests one connection may have unanswered (in the drive, or their data not yet sent)
/// before the server stops taking its requests.
pub(super) const MAX_UNANSWERED: u32 = 1024;

pub(super) enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    pub(super) fn fd(&self) -> RawFd {
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

/// A large read's data still to send: it goes into the stream where `out` reaches `at`.
struct Data {
    at: usize,
    offset: u64,
    left: u64,
}

/// What reading from or writing to a connection came to.
pub(super) enum Io {
    /// `n` bytes moved (0: the socket would block, or nothing to do).
    Moved(usize),
    /// The client closed its side (end of file on reading).
    Eof,
    /// The stream failed (or a read's data could not be read): close the connection.
    Closed,
}

pub(super) struct Conn {
    pub(super) stream: Stream,
    pub(super) session: Session,
    pub(super) input: Vec<u8>,
    /// Bytes of the shared write pool held for the write at the front of `input`.
    pub(super) reserved: u64,
    out: Vec<u8>,
    out_pos: usize,
    data: VecDeque<Data>,
    piece: Vec<u8>,
    piece_pos: usize,
    pub(super) flow: usize,
    /// Requests of this connection in the drive.
    pub(super) inflight: u32,
    /// NBD_CMD_DISC received, or the protocol asked to close: no more reading.
    pub(super) draining: bool,
    /// Wall ns of the last byte moved either way, or of the last moment the server was
    /// waiting for nothing from this client (see [`Conn::waits_on_client`]).
    pub(super) progress_ns: u64,
}

impl Conn {
    pub(super) fn new(stream: Stream, flow: usize, now_ns: u64) -> Conn {
        let mut out = Vec::with_capacity(64);
        nbd::greeting(&mut out);
        Conn {
            stream,
            session: Session::new(),
            input: Vec::new(),
            reserved: 0,
            out,
            out_pos: 0,
            data: VecDeque::new(),
            piece: Vec::new(),
            piece_pos: 0,
            flow,
            inflight: 0,
            draining: false,
            progress_ns: now_ns,
        }
    }

    /// Reply bytes waiting in memory (headers, option replies, small reads' data).
    pub(super) fn out_waiting(&self) -> usize {
        self.out.len() - self.out_pos + self.piece.len() - self.piece_pos
    }

    /// Whether everything owed has been handed to the socket.
    pub(super) fn out_empty(&self) -> bool {
        self.out_pos >= self.out.len() && self.data.is_empty() && self.piece_pos >= self.piece.len()
    }

    /// Whether the server takes no more requests from this connection for now: too many
    /// unanswered, or too many reply bytes it has not read.
    pub(super) fn throttled(&self) -> bool {
        self.inflight + self.data.len() as u32 >= MAX_UNANSWERED || self.out_waiting() >= OUT_CAP
    }

    /// The protocol's next step on `input`, its replies queued.
    pub(super) fn step(&mut self, input: &[u8], ex: &nbd::Export) -> nbd::Step {
        self.session.step(input, ex, &mut self.out)
    }

    /// The output buffer, to append a reply to.
    pub(super) fn out(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// Queue a successful read's reply: the header, then the data, copied now when it fits
    /// under [`OUT_CAP`], else sent from the store as the socket takes it.
    pub(super) fn reply_read(
        &mut self,
        handle: u64,
        offset: u64,
        len: u32,
        store: &Store,
    ) -> std::io::Result<()> {
        nbd::simple_reply(&mut self.out, 0, handle);
        if self.out_waiting() + len as usize <= OUT_CAP {
            let at = self.out.len();
            self.out.resize(at + len as usize, 0);
            return store.read(offset, &mut self.out[at..]);
        }
        self.data.push_back(Data {
            at: self.out.len(),
            offset,
            left: len as u64,
        });
        Ok(())
    }

    /// How many bytes may be read from the client now: up to [`INPUT_FREE`], or to the end
    /// of a large write whose payload has its reservation; and the payload of the large
    /// write at the front, when it has none yet.
    pub(super) fn read_room(&self, ex_max_payload: u32) -> (usize, Option<u64>) {
        if self.draining || self.throttled() {
            return (0, None);
        }
        match self.session.message_len(&self.input, ex_max_payload) {
            // Only a write's message is longer than INPUT_FREE: its 28-byte header is free.
            Some(n) if n > INPUT_FREE => {
                if self.reserved == 0 {
                    return (0, Some(n as u64 - 28));
                }
                (n - self.input.len(), None)
            }
            _ => (INPUT_FREE.saturating_sub(self.input.len()), None),
        }
    }

    /// Read up to `room` bytes into the input.
    pub(super) fn receive(&mut self, room: usize) -> Io {
        let mut buf = [0u8; 64 << 10];
        let want = room.min(buf.len());
        loop {
            match self.stream.read(&mut buf[..want]) {
                Ok(0) => return Io::Eof,
                Ok(n) => {
                    self.input.extend_from_slice(&buf[..n]);
                    return Io::Moved(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Io::Moved(0),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Io::Closed,
            }
        }
    }

    /// Forget the first `used` bytes of input; a large write's buffer is given back.
    pub(super) fn consume(&mut self, used: usize) {
        self.input.drain(..used);
        if self.input.capacity() > 2 * INPUT_FREE {
            self.input.shrink_to(INPUT_FREE);
        }
    }

    /// Whether the client has something to do for the server to go on: finish a message it
    /// started (or the negotiation), or read replies. A connection the server itself holds
    /// back (throttled, waiting for the write pool) or that is idle between requests is not.
    pub(super) fn waits_on_client(&self, pool_blocked: bool) -> bool {
        let mid_message = !self.draining
            && !self.throttled()
            && !pool_blocked
            && (!self.input.is_empty() || !self.session.in_transmission());
        mid_message || !self.out_empty()
    }

    /// Hand the socket what it takes: reply bytes in order, large reads' data copied from
    /// the store a piece at a time. A store error after a read's header went out closes
    /// the connection (proto.md: a hard disconnect).
    pub(super) fn send(&mut self, store: &Store) -> Io {
        let mut moved = 0;
        loop {
            let chunk: &[u8] = if self.piece_pos < self.piece.len() {
                &self.piece[self.piece_pos..]
            } else if let Some(d) = self.data.front_mut().filter(|d| d.at == self.out_pos) {
                let n = d.left.min(PIECE as u64) as usize;
                self.piece.resize(n, 0);
                if store.read(d.offset, &mut self.piece).is_err() {
                    return Io::Closed;
                }
                self.piece_pos = 0;
                d.offset += n as u64;
                d.left -= n as u64;
                if d.left == 0 {
                    self.data.pop_front();
                }
                continue;
            } else {
                let end = self.data.front().map_or(self.out.len(), |d| d.at);
                if self.out_pos >= end {
                    break;
                }
                &self.out[self.out_pos..end]
            };
            match self.stream.write(chunk) {
                Ok(0) => return Io::Closed,
                Ok(n) => {
                    moved += n;
                    if self.piece_pos < self.piece.len() {
                        self.piece_pos += n;
                    } else {
                        self.out_pos += n;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Io::Closed,
            }
        }
        if self.piece_pos >= self.piece.len() && self.data.is_empty() {
            // Nothing large in transit: the piece buffer is given back.
            self.piece = Vec::new();
            self.piece_pos = 0;
        }
        if self.out_pos == self.out.len() && self.data.is_empty() {
            self.out.clear();
            self.out_pos = 0;
        } else if self.out_pos > (64 << 10) {
            let gone = self.out_pos;
            self.out.drain(..gone);
            self.out_pos = 0;
            for d in &mut self.data {
                d.at -= gone;
            }
        }
        if self.out.capacity() > 2 * OUT_CAP && self.out.len() <= OUT_CAP {
            self.out.shrink_to(OUT_CAP);
        }
        Io::Moved(moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Replies leave in the order they were queued, whether a read's data was copied in at
    /// once or sent from the store in pieces; the memory held stays under the bounds.
    #[test]
    fn replies_keep_their_order_and_large_reads_hold_only_a_piece() {
        let (a, mut b) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let mut store = Store::new(16 << 20, 16 << 20, None).unwrap();
        let big: Vec<u8> = (0..(5usize << 20)).map(|i| (i / 4096) as u8 | 1).collect();
        store.write(0, &big).unwrap();
        let mut c = Conn::new(Stream::Unix(a), 0, 0);
        let mut want = c.out.clone(); // the greeting
        let header = |h: u64| {
            let mut v = Vec::new();
            nbd::simple_reply(&mut v, 0, h);
            v
        };
        c.reply_read(1, 0, 4096, &store).unwrap(); // copied in
        c.reply_read(2, 0, 5 << 20, &store).unwrap(); // larger than OUT_CAP: from the store
        nbd::simple_reply(c.out(), 0, 3);
        c.reply_read(4, 4096, 8192, &store).unwrap(); // fits again
        c.reply_read(5, 1 << 20, 2 << 20, &store).unwrap();
        for (h, off, len) in [
            (1, 0, 4096),
            (2, 0, 5 << 20),
            (3, 0, 0),
            (4, 4096, 8192),
            (5, 1 << 20, 2 << 20),
        ] {
            want.extend(header(h));
            want.extend_from_slice(&big[off..off + len]);
        }
        assert_eq!(c.data.len(), 2, "the two large reads wait in the store");
        assert!(c.out_waiting() < OUT_CAP);
        let mut got = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        while !c.out_empty() {
            assert!(matches!(c.send(&store), Io::Moved(_)));
            assert!(c.out_waiting() <= OUT_CAP + PIECE);
            b.set_nonblocking(true).unwrap();
            while let Ok(n) = b.read(&mut buf) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
        }
        assert!(got == want, "{} bytes, {} wanted", got.len(), want.len());
        assert_eq!(c.piece.capacity(), 0, "the piece buffer is given back");
    }

    #[test]
    fn throttled_past_its_unanswered_requests_or_reply_bytes() {
        let (a, _b) = UnixStream::pair().unwrap();
        let mut c = Conn::new(Stream::Unix(a), 0, 0);
        assert!(!c.throttled());
        c.inflight = MAX_UNANSWERED;
        assert!(c.throttled());
        c.inflight = 0;
        c.out().resize(OUT_CAP, 0);
        assert!(c.throttled());
        assert_eq!(c.read_room(1 << 20), (0, None));
    }
}
