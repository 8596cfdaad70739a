//! A fuzzer for `lagoon serve`'s NBD side (docs/ROBUSTNESS.md): hostile and careless clients
//! in six classes against a running server, on a Unix socket or 127.0.0.1 only.
//!
//! - `handshake`: random option sequences (every option, malformed and oversized data,
//!   unknown client flags, missing magic, more than 64 options, names up to 4 KiB).
//! - `pipeline`: up to 64 random requests at once (every command, flags, lengths from 0 to
//!   past 32 MiB, offsets past the end), each reply checked: one per request, the error the
//!   protocol table gives, and read data equal to a shadow copy of the export.
//! - `partial`: a write header with part of its payload, or part of a header or of the
//!   negotiation, then gone, stalled (the server must close it after `--stall-timeout`), or
//!   finished slowly (it must be answered).
//! - `slow_reader`: up to 120 reads of up to 32 MiB never read, or read slowly; the server
//!   must close a reader that stalls.
//! - `many`: more connections than `--max-connections` at once, each writing and reading
//!   back its own blocks.
//! - `random`: random bytes before or after the negotiation, or a valid request with bytes
//!   flipped.
//!
//! After every case a fresh client writes and reads back a block within 30 s (else: a
//! hang), the server must still run (else: a crash), and its peak resident memory must stay
//! under the bound docs/SERVE.md states for its options. The servers rotate over drives,
//! paces, a backing file and both kinds of socket.
//!
//! `LAGOON_FUZZ_CASES` (default 18, what CI runs), `LAGOON_FUZZ_SEED` (default 1),
//! `LAGOON_FUZZ_SECONDS` (a time limit, default none). The long run behind
//! docs/ROBUSTNESS.md: `LAGOON_FUZZ_CASES=3000 cargo test --release -p lagoon-cli --test
//! fuzz_nbd -- --nocapture`.

mod nbd;

use nbd::*;
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CLASSES: [&str; 6] = [
    "handshake",
    "pipeline",
    "partial",
    "slow_reader",
    "many",
    "random",
];
const SIZE: u64 = 64 << 20;
/// The last 8 MiB: written by every class but `pipeline`, whose shadow copy ends here.
const SCRATCH: u64 = SIZE - (8 << 20);
const MAX_PAYLOAD: u32 = 32 << 20;
const MAX_CONNECTIONS: u32 = 12;
const STALL_S: f64 = 2.0;
/// Cases per server before the next configuration.
const PER_SERVER: u64 = 6;
/// docs/SERVE.md's bound, beside `--memory`: the program and the model (64 MiB allowed), the
/// write pool (256 MiB), and per connection 256 KiB of input, 1 MiB of replies and a 256 KiB
/// piece of a large read, with 64 KiB to spare.
fn memory_bound(memory: u64) -> u64 {
    (64 << 20) + memory + (256 << 20) + MAX_CONNECTIONS as u64 * (1600 << 10)
}

fn env(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

type R = Xoshiro256PlusPlus;

/// One server configuration.
struct Config {
    ssd: &'static str,
    arch: &'static str,
    pace: &'static str,
    tcp: bool,
    memory: &'static str,
    memory_bytes: u64,
    backing: bool,
}

static CONFIGS: [Config; 4] = [
    Config {
        ssd: "perf-optimized",
        arch: "baseline",
        pace: "realtime",
        tcp: false,
        memory: "64M",
        memory_bytes: 64 << 20,
        backing: false,
    },
    Config {
        ssd: "cost-optimized",
        arch: "venice",
        pace: "realtime:10",
        tcp: true,
        memory: "64M",
        memory_bytes: 64 << 20,
        backing: false,
    },
    Config {
        ssd: "null",
        arch: "baseline",
        pace: "realtime",
        tcp: false,
        memory: "4M",
        memory_bytes: 4 << 20,
        backing: true,
    },
    Config {
        ssd: "perf-optimized",
        arch: "baseline",
        pace: "none",
        tcp: true,
        memory: "64M",
        memory_bytes: 64 << 20,
        backing: false,
    },
];

fn start(c: &Config, image: &std::path::Path) -> Server {
    let stall = STALL_S.to_string();
    let max = MAX_CONNECTIONS.to_string();
    let mut args = vec![
        "--ssd",
        c.ssd,
        "--arch",
        c.arch,
        "--pace",
        c.pace,
        "--size",
        "64M",
        "--memory",
        c.memory,
        "--max-connections",
        &max,
        "--stall-timeout",
        &stall,
        "--linger",
        "never",
    ];
    let img = image.to_str().unwrap().to_string();
    if c.backing {
        args.extend(["--backing", &img]);
    }
    if c.tcp {
        Server::start_tcp(&args)
    } else {
        Server::start(&args)
    }
}

/// What the export holds, as far as the fuzzer knows: bytes, and sectors whose content
/// overlapping requests in flight left undefined.
struct Shadow {
    data: Vec<u8>,
    unknown: Vec<bool>,
}

impl Shadow {
    fn new() -> Shadow {
        Shadow {
            data: vec![0; SCRATCH as usize],
            unknown: vec![false; (SCRATCH / 512) as usize],
        }
    }
    fn sectors(off: u64, len: u64) -> std::ops::Range<usize> {
        let end = (off + len).min(SCRATCH);
        (off / 512) as usize..end.div_ceil(512) as usize
    }
}

/// A request of a pipeline and what may come back.
struct Req {
    flags: u16,
    cmd: u16,
    off: u64,
    len: u32,
    payload: Vec<u8>,
    /// The errors the protocol table allows; empty: it must succeed.
    errors: Vec<u32>,
}

/// docs/SERVE.md's table of errors, written independently of the server.
fn expected_errors(flags: u16, cmd: u16, off: u64, len: u32) -> Vec<u32> {
    let mut e = Vec::new();
    let allowed = match cmd {
        0 | 1 | 3 | 4 => 1,
        6 => 3,
        _ => return vec![22],
    };
    if flags & !allowed != 0 {
        e.push(22);
    }
    let past = off.checked_add(len as u64).is_none_or(|end| end > SIZE);
    match cmd {
        0 | 1 | 4 | 6 if len == 0 => e.push(22),
        _ => {}
    }
    match cmd {
        0 if len > MAX_PAYLOAD || past => e.push(22),
        1 | 6 if past => e.push(28),
        4 if past => e.push(22),
        3 if off != 0 || len != 0 => e.push(22),
        _ => {}
    }
    e
}

/// A random request; lengths up to `cap` (a write's payload too), or just past the
/// maximum payload (a write then carries none: the server must close on its header).
fn random_request(r: &mut R, cap: u32) -> Req {
    let cmd = match r.random_range(0..100) {
        0..=34 => 0,
        35..=69 => 1,
        70..=77 => 4,
        78..=85 => 6,
        86..=92 => 3,
        _ => *[5u16, 7, 9, 42, 0xffff].get(r.random_range(0..5)).unwrap(),
    };
    let len: u32 = match r.random_range(0..40) {
        0 => 0,
        1 => 1,
        2 => 511,
        3..=14 => 512 * r.random_range(1..=16),
        15..=28 => 4096 * r.random_range(1..=16),
        29..=35 => r.random_range(1..=cap),
        36 | 37 => cap,
        38 if cmd != 1 || r.random_bool(0.2) => MAX_PAYLOAD + 1,
        _ => r.random_range(1..=cap),
    };
    let off = match r.random_range(0..12) {
        0 => SIZE - (len as u64).min(SIZE),
        1 => SIZE - 512,
        2 => SIZE + r.random_range(0..1 << 20),
        3 => u64::MAX - r.random_range(0..4096),
        4 => r.random_range(0..SIZE),
        _ => r.random_range(0..SCRATCH / 512) * 512,
    };
    let (off, len) = if cmd == 3 && r.random_bool(0.8) {
        (0, 0)
    } else {
        (off, len)
    };
    let flags = match r.random_range(0..10) {
        0 => r.random::<u16>(),
        1 | 2 => 1,
        3 if cmd == 6 => 2,
        _ => 0,
    };
    let payload = if cmd == 1 && len <= MAX_PAYLOAD {
        let mut p = vec![0u8; len as usize];
        r.fill_bytes(&mut p);
        p
    } else {
        Vec::new()
    };
    Req {
        flags,
        cmd,
        off,
        len,
        payload,
        errors: expected_errors(flags, cmd, off, len),
    }
}

/// Send `m` on a non-blocking socket for at most `limit`; the bytes sent.
fn send_for(s: &mut Sock, m: &[u8], limit: Duration) -> usize {
    s.set_nonblocking(true);
    let (mut sent, t) = (0, Instant::now());
    while sent < m.len() && t.elapsed() < limit {
        match s.write(&m[sent..]) {
            Ok(0) => break,
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(_) => break,
        }
    }
    s.set_nonblocking(false);
    sent
}

/// What a case found wrong (a wrong answer, a connection closed that should not be).
type Case = Result<String, String>;

fn wire(h: u64, q: &Req) -> Vec<u8> {
    let mut m = request(q.flags, q.cmd, h, q.off, q.len);
    m.extend_from_slice(&q.payload);
    m
}

/// `pipeline`: requests at once on one connection, the replies read meanwhile on a thread.
fn pipeline(r: &mut R, at: &Endpoint, shadow: &mut Shadow) -> Case {
    let mut c = Client::try_open(at)?;
    // Up to 64 requests, up to 1 MiB each; one pipeline in ten up to 32 MiB each (at most
    // 256 MiB of data in all).
    let n = r.random_range(1..=64);
    let cap = if r.random_bool(0.1) {
        MAX_PAYLOAD
    } else {
        1 << 20
    };
    let mut reqs: Vec<Req> = Vec::new();
    let mut bytes = 0u64;
    while reqs.len() < n && bytes < 256 << 20 {
        let q = random_request(r, cap);
        bytes += q.len.min(MAX_PAYLOAD) as u64;
        reqs.push(q);
    }
    // A write over the maximum, or a disconnect, ends the connection: last, if at all.
    let mut end = reqs.len();
    for (i, q) in reqs.iter().enumerate() {
        if (q.cmd == 1 && q.len > MAX_PAYLOAD) || q.cmd == 2 {
            end = i + 1;
            break;
        }
    }
    reqs.truncate(end);
    if r.random_bool(0.1) {
        reqs.push(Req {
            flags: 0,
            cmd: 2,
            off: 0,
            len: 0,
            payload: Vec::new(),
            errors: Vec::new(),
        });
    }
    let closes = reqs
        .last()
        .is_some_and(|q| q.cmd == 2 || (q.cmd == 1 && q.len > MAX_PAYLOAD));
    // Which reads overlap a write, trim or write-zeroes of the same batch: not checked.
    let mutates = |q: &Req| matches!(q.cmd, 1 | 4 | 6) && q.errors.is_empty();
    let answered = reqs.len() - closes as usize;
    let lens: HashMap<u64, (u16, u32, Vec<u32>)> = reqs[..answered]
        .iter()
        .enumerate()
        .map(|(i, q)| (i as u64 + 1, (q.cmd, q.len, q.errors.clone())))
        .collect();
    let mut rs = c.s.try_clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut got: HashMap<u64, (u32, Vec<u8>)> = HashMap::new();
        let res = (|| -> Result<(), String> {
            for _ in 0..answered {
                let h = read_n(&mut rs, 16).map_err(|e| format!("reply: {e}"))?;
                if u32b(&h) != SIMPLE_REPLY_MAGIC {
                    return Err(format!("not a reply: {h:?}"));
                }
                let (err, handle) = (u32b(&h[4..]), u64b(&h[8..]));
                let Some((cmd, len, allowed)) = lens.get(&handle) else {
                    return Err(format!("a reply to handle {handle}, never sent"));
                };
                if got.contains_key(&handle) {
                    return Err(format!("two replies to handle {handle}"));
                }
                if (err == 0) != allowed.is_empty() || (err != 0 && !allowed.contains(&err)) {
                    return Err(format!(
                        "handle {handle} (command {cmd}, {len} bytes): error {err}, expected {allowed:?}"
                    ));
                }
                let data = if *cmd == 0 && err == 0 {
                    read_n(&mut rs, *len as usize).map_err(|e| format!("read data: {e}"))?
                } else {
                    Vec::new()
                };
                got.insert(handle, (err, data));
            }
            if closes && !closed(&mut rs) {
                return Err("not closed after a disconnect or an oversized write".into());
            }
            Ok(())
        })();
        let _ = tx.send(res.map(|()| got));
    });
    for (i, q) in reqs.iter().enumerate() {
        if c.s.write_all(&wire(i as u64 + 1, q)).is_err() {
            break; // closed: the reader says whether it should have been
        }
    }
    let got = rx
        .recv_timeout(Duration::from_secs(120))
        .map_err(|_| "HANG: replies did not come within 120 s".to_string())??;
    // Reads against the shadow, then the batch's changes into it.
    for (i, q) in reqs[..answered].iter().enumerate() {
        let (err, data) = &got[&(i as u64 + 1)];
        if q.cmd != 0 || *err != 0 {
            continue;
        }
        let overlapped = reqs[..answered]
            .iter()
            .any(|w| mutates(w) && w.off < q.off + q.len as u64 && q.off < w.off + w.len as u64);
        if overlapped {
            continue;
        }
        for s in Shadow::sectors(q.off, q.len as u64) {
            if shadow.unknown[s] {
                continue;
            }
            let (a, b) = (s as u64 * 512, (s as u64 + 1) * 512);
            let (a, b) = (a.max(q.off), b.min(q.off + q.len as u64));
            let want = &shadow.data[a as usize..b as usize];
            let have = &data[(a - q.off) as usize..(b - q.off) as usize];
            if want != have {
                return Err(format!(
                    "read at {} ({} bytes): sector {s} differs from what was written",
                    q.off, q.len
                ));
            }
        }
    }
    let mut touched = vec![0u8; shadow.unknown.len()];
    for (i, q) in reqs[..answered].iter().enumerate() {
        if !mutates(q) || got[&(i as u64 + 1)].0 != 0 {
            continue;
        }
        for s in Shadow::sectors(q.off, q.len as u64) {
            touched[s] = touched[s].saturating_add(1);
        }
        let end = (q.off + q.len as u64).min(SCRATCH);
        if q.off < end {
            let dst = &mut shadow.data[q.off as usize..end as usize];
            match q.cmd {
                1 => dst.copy_from_slice(&q.payload[..dst.len()]),
                _ => dst.fill(0),
            }
        }
    }
    for (s, &t) in touched.iter().enumerate() {
        if t > 1 {
            shadow.unknown[s] = true;
        }
    }
    if !closes {
        c.disconnect();
    }
    Ok(format!("{} requests", reqs.len()))
}

/// Wait until the server hangs up on `s`, for at most `limit`.
fn until_closed(s: &Sock, limit: Duration) -> Result<Duration, String> {
    let t = Instant::now();
    while !hung_up(s) {
        if t.elapsed() > limit {
            return Err(format!("HANG: not closed within {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(t.elapsed())
}

fn stall_limit() -> Duration {
    Duration::from_secs_f64(STALL_S + 10.0)
}

/// `partial`: part of a message, then gone, stalled or finished slowly.
fn partial(r: &mut R, at: &Endpoint) -> Case {
    let what = r.random_range(0..5);
    if what == 4 {
        // Part of the negotiation.
        let mut s = at.connect();
        read_n(&mut s, 18).map_err(|e| format!("greeting: {e}"))?;
        let mut m = 1u32.to_be_bytes().to_vec();
        let mut opt = IHAVEOPT.to_be_bytes().to_vec();
        opt.extend_from_slice(&7u32.to_be_bytes());
        opt.extend_from_slice(&100u32.to_be_bytes());
        m.extend_from_slice(&opt);
        let cut = r.random_range(0..m.len());
        let _ = s.write_all(&m[..cut]);
        until_closed(&s, stall_limit())?;
        return Ok("negotiation cut".into());
    }
    let mut c = Client::try_open(at)?;
    let len = match r.random_range(0..4) {
        0 => r.random_range(1..=4096),
        1 => r.random_range(4096..=(1 << 20)),
        _ => r.random_range(1..=MAX_PAYLOAD),
    };
    let off = SCRATCH + r.random_range(0..(SIZE - SCRATCH - len.min(8 << 20) as u64 + 1));
    let len = len.min((SIZE - off) as u32);
    let mut m = request(0, 1, 1, off, len);
    m.resize(28 + len as usize, 0x42);
    match what {
        0 => {
            // Gone mid-payload.
            let cut = r.random_range(0..m.len());
            send_for(&mut c.s, &m[..cut], Duration::from_secs(30));
            Ok("gone".into())
        }
        1 | 2 => {
            // Stalled, mid-header or mid-payload: closed after --stall-timeout.
            let cut = if what == 1 {
                r.random_range(1..28)
            } else {
                r.random_range(28..m.len())
            };
            if send_for(&mut c.s, &m[..cut], Duration::from_secs(60)) < cut {
                return Err("HANG: the server took no more of a payload for 60 s".into());
            }
            let took = until_closed(&c.s, stall_limit())?;
            Ok(format!("stalled, closed after {took:?}"))
        }
        _ => {
            // Finished in pieces, slowly but within the timeout: answered.
            let pieces = r.random_range(2..=5);
            let step = m.len().div_ceil(pieces);
            for p in m.chunks(step) {
                c.s.write_all(p).map_err(|e| format!("slow write: {e}"))?;
                std::thread::sleep(Duration::from_millis(r.random_range(0..300)));
            }
            let (err, h) = {
                let b = read_n(&mut c.s, 16).map_err(|e| format!("slow write's reply: {e}"))?;
                (u32b(&b[4..]), u64b(&b[8..]))
            };
            if (err, h) != (0, 1) {
                return Err(format!("slow write: error {err}, handle {h}"));
            }
            c.disconnect();
            Ok("finished slowly".into())
        }
    }
}

/// `slow_reader`: large reads never read, or read slowly.
fn slow_reader(r: &mut R, at: &Endpoint) -> Case {
    let mut c = Client::try_open(at)?;
    // Up to 120 reads of up to 32 MiB, at most 512 MiB in all (the drive reads them all,
    // whoever waits: the next cases would wait behind more).
    let (mut m, mut n, mut bytes) = (Vec::new(), 0u64, 0u64);
    while n < r.random_range(1..=120u64) && bytes < 512 << 20 {
        let len = r.random_range(1..=32u32) << 20;
        let off = r.random_range(0..=(SIZE - len as u64) / 512) * 512;
        m.extend(request(0, 0, n, off, len));
        n += 1;
        bytes += len as u64;
    }
    c.s.write_all(&m).map_err(|e| format!("requests: {e}"))?;
    match r.random_range(0..3) {
        0 => {
            std::thread::sleep(Duration::from_millis(r.random_range(0..500)));
            Ok(format!("{n} reads, gone"))
        }
        1 => {
            let took = until_closed(&c.s, Duration::from_secs(60))?;
            Ok(format!("{n} reads never read, closed after {took:?}"))
        }
        _ => {
            let mut buf = vec![0u8; 64 << 10];
            for _ in 0..r.random_range(1..20) {
                c.s.read(&mut buf).map_err(|e| format!("slow read: {e}"))?;
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(format!("{n} reads read slowly"))
        }
    }
}

/// `many`: more connections than allowed at once, each writing and reading back blocks
/// of its own; the ones over the limit are closed at once.
fn many(r: &mut R, at: &Endpoint) -> Case {
    let n = MAX_CONNECTIONS as usize + r.random_range(1..=4);
    let socks: Vec<Sock> = (0..n).map(|_| at.connect()).collect();
    let threads: Vec<_> = socks
        .into_iter()
        .enumerate()
        .map(|(k, s)| {
            let seed = r.random::<u64>();
            std::thread::spawn(move || -> Result<bool, String> {
                let mut r = R::seed_from_u64(seed);
                let mut c = match Client::negotiate(s) {
                    Ok(c) => c,
                    Err(e) if e.starts_with("no greeting") => return Ok(false), // refused
                    Err(e) => return Err(e),
                };
                let off = SCRATCH + k as u64 * (256 << 10);
                for _ in 0..r.random_range(1..8) {
                    let len = 512 * r.random_range(1..=64u32);
                    let mut data = vec![0u8; len as usize];
                    r.fill_bytes(&mut data);
                    let h = c.send(0, 1, off, len, &data);
                    let (e, got) = c.reply();
                    if (e, got) != (0, h) {
                        return Err(format!("write: error {e}"));
                    }
                    let (e, back) = c.call(0, 0, off, len, &[]);
                    if e != 0 || back != data {
                        return Err("a connection's own block came back changed".into());
                    }
                }
                if r.random_bool(0.5) {
                    c.disconnect();
                }
                Ok(true)
            })
        })
        .collect();
    let mut served = 0;
    for t in threads {
        served += t
            .join()
            .map_err(|_| "a client thread panicked".to_string())?? as usize;
    }
    if served > MAX_CONNECTIONS as usize {
        return Err(format!(
            "{served} connections served at once, more than the limit"
        ));
    }
    Ok(format!("{n} connections, {served} served"))
}

/// `handshake`: random options.
fn handshake(r: &mut R, at: &Endpoint) -> Case {
    let mut s = at.connect();
    s.set_read_timeout(Some(Duration::from_secs(5)));
    read_n(&mut s, 18).map_err(|e| format!("greeting: {e}"))?;
    let flags = match r.random_range(0..6) {
        0 => 0,
        1 => r.random::<u32>(),
        2 => 1,
        _ => 3,
    };
    let mut m = flags.to_be_bytes().to_vec();
    for _ in 0..r.random_range(1..=70) {
        let opt = match r.random_range(0..12) {
            0 => 1,
            1 => 2,
            2 => 3,
            3 => 5,
            4 | 5 => 6,
            6 | 7 => 7,
            8 => 8,
            9 => 10,
            _ => r.random::<u32>(),
        };
        let mut data: Vec<u8> = match r.random_range(0..6) {
            0 => Vec::new(),
            1 => {
                // A well-formed GO/INFO body, maybe with the wrong name.
                let name: &[u8] = match r.random_range(0..3) {
                    0 => b"",
                    1 => b"lagoon",
                    _ => b"other",
                };
                let mut d = (name.len() as u32).to_be_bytes().to_vec();
                d.extend_from_slice(name);
                let k = r.random_range(0..4u16);
                d.extend_from_slice(&k.to_be_bytes());
                for _ in 0..k {
                    d.extend_from_slice(&r.random_range(0..5u16).to_be_bytes());
                }
                d
            }
            2 => vec![b'x'; r.random_range(0..=4096)],
            3 => vec![0; r.random_range(8190..=8194)],
            _ => (0..r.random_range(0..64)).map(|_| r.random()).collect(),
        };
        let mut head = IHAVEOPT.to_be_bytes().to_vec();
        if r.random_range(0..40) == 0 {
            head[0] ^= 0xff;
        }
        head.extend_from_slice(&opt.to_be_bytes());
        let mut len = data.len() as u32;
        if r.random_range(0..30) == 0 {
            len = r.random();
            data.truncate(64);
        }
        head.extend_from_slice(&len.to_be_bytes());
        m.extend_from_slice(&head);
        m.extend_from_slice(&data);
    }
    // Write on a thread: the server may close before reading it all.
    let mut w = s.try_clone();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&m);
    });
    let mut buf = vec![0u8; 1 << 16];
    let t = Instant::now();
    let mut got = 0;
    while t.elapsed() < Duration::from_secs(3) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    drop(s);
    let _ = writer.join();
    Ok(format!("{got} bytes of replies"))
}

/// `random`: random bytes, or a valid request with some flipped, before or after the
/// negotiation.
fn random(r: &mut R, at: &Endpoint) -> Case {
    let mut s = if r.random_bool(0.5) {
        Client::try_open(at)?.s
    } else {
        let mut s = at.connect();
        read_n(&mut s, 18).map_err(|e| format!("greeting: {e}"))?;
        s
    };
    let mut m: Vec<u8> = if r.random_bool(0.5) {
        (0..r.random_range(1..65536)).map(|_| r.random()).collect()
    } else {
        let q = random_request(r, 1 << 20);
        let mut m = wire(1, &q);
        for _ in 0..r.random_range(1..4) {
            let i = r.random_range(0..m.len().min(28));
            m[i] ^= 1 << r.random_range(0..8);
        }
        m
    };
    m.truncate(1 << 20);
    s.set_nonblocking(true);
    let _ = s.write(&m);
    std::thread::sleep(Duration::from_millis(r.random_range(0..200)));
    Ok(format!("{} bytes", m.len()))
}

/// A fresh client writes a block in the scratch area and reads it back.
fn health(at: &Endpoint, seed: u64) -> Result<(), String> {
    let at = at.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let res = (|| {
            let mut r = R::seed_from_u64(seed);
            let mut c = Client::try_open(&at)?;
            let off = SIZE - (4 << 20) + r.random_range(0..1024u64) * 4096;
            let mut data = vec![0u8; 4096];
            r.fill_bytes(&mut data);
            let (e, _) = c.call(0, 1, off, 4096, &data);
            let (e2, back) = c.call(0, 0, off, 4096, &[]);
            if e != 0 || e2 != 0 || back != data {
                return Err(format!("health: errors {e}/{e2} or changed data"));
            }
            c.disconnect();
            Ok(())
        })();
        let _ = tx.send(res);
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Timeout) => Err("HANG: the health check took over 30 s".into()),
        Err(_) => Err("the health check panicked".into()),
    }
}

#[derive(Default)]
struct Tally {
    cases: u64,
    failures: Vec<String>,
}

#[test]
fn nbd_clients_never_take_the_server_down() {
    let cases = env("LAGOON_FUZZ_CASES").unwrap_or(18);
    let seed = env("LAGOON_FUZZ_SEED").unwrap_or(1);
    let limit = env("LAGOON_FUZZ_SECONDS").map(Duration::from_secs);
    let mut r = R::seed_from_u64(seed);
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut tally: Vec<Tally> = CLASSES.iter().map(|_| Tally::default()).collect();
    let (mut crashes, mut hangs, mut over, mut wrong) = (0u64, 0u64, 0u64, 0u64);
    let mut peak_all = 0u64;
    let mut srv: Option<(Server, &Config)> = None;
    let mut shadow = Shadow::new();
    for case in 0..cases {
        if limit.is_some_and(|l| t0.elapsed() > l) {
            eprintln!("time limit reached after {case} cases");
            break;
        }
        if case % PER_SERVER == 0 || srv.is_none() {
            if let Some((s, _)) = srv.take() {
                s.stop();
            }
            let cfg = &CONFIGS[(case / PER_SERVER) as usize % CONFIGS.len()];
            let image = dir.path().join(format!("img-{case}"));
            srv = Some((start(cfg, &image), cfg));
            shadow = Shadow::new();
        }
        let (server, cfg) = srv.as_mut().unwrap();
        let cfg: &'static Config = cfg;
        let at = server.endpoint.clone();
        let class = r.random_range(0..CLASSES.len());
        let mut cr = R::seed_from_u64(r.random());
        let t = Instant::now();
        let out = match class {
            0 => handshake(&mut cr, &at),
            1 => pipeline(&mut cr, &at, &mut shadow),
            2 => partial(&mut cr, &at),
            3 => slow_reader(&mut cr, &at),
            4 => many(&mut cr, &at),
            _ => random(&mut cr, &at),
        };
        tally[class].cases += 1;
        let mut found: Vec<(&str, String)> = Vec::new();
        match out {
            Err(e) if e.starts_with("HANG") => found.push(("hang", e)),
            Err(e) => found.push(("wrong answer", e)),
            Ok(what) => {
                if std::env::var_os("LAGOON_FUZZ_VERBOSE").is_some() {
                    eprintln!("case {case} {}: {what} ({:?})", CLASSES[class], t.elapsed());
                }
            }
        }
        let alive = server.alive();
        if !alive {
            found.push(("crash", "the server exited".into()));
        } else {
            match health(&at, r.random()) {
                Err(e) if e.starts_with("HANG") => found.push(("hang", e)),
                Err(e) => found.push(("health", e)),
                Ok(()) => {}
            }
            let (_, peak) = server.memory();
            peak_all = peak_all.max(peak);
            let bound = memory_bound(cfg.memory_bytes);
            if peak > bound {
                found.push((
                    "over the memory bound",
                    format!("peak {peak} bytes, bound {bound}"),
                ));
            }
        }
        for (kind, why) in found {
            *match kind {
                "crash" => &mut crashes,
                "hang" => &mut hangs,
                "over the memory bound" => &mut over,
                _ => &mut wrong,
            } += 1;
            let line = format!(
                "case {case} ({}, {} {} {}): {kind}: {why}",
                CLASSES[class],
                cfg.ssd,
                cfg.pace,
                if cfg.tcp { "tcp" } else { "unix" }
            );
            eprintln!("{line}");
            tally[class].failures.push(line);
        }
        if !alive {
            srv = None;
        }
    }
    if let Some((s, _)) = srv.take() {
        s.stop();
    }
    eprintln!(
        "fuzz_nbd: seed {seed}, {} cases in {:.1} s, peak resident {:.1} MB",
        tally.iter().map(|t| t.cases).sum::<u64>(),
        t0.elapsed().as_secs_f64(),
        peak_all as f64 / 1e6
    );
    for (c, t) in CLASSES.iter().zip(&tally) {
        eprintln!(
            "  {c:12} {:6} cases, {} failures",
            t.cases,
            t.failures.len()
        );
    }
    eprintln!(
        "  crashes {crashes}, hangs {hangs}, over the memory bound {over}, wrong answers {wrong}"
    );
    assert_eq!(
        (crashes, hangs, over, wrong),
        (0, 0, 0, 0),
        "{:#?}",
        tally.iter().flat_map(|t| &t.failures).collect::<Vec<_>>()
    );
}
