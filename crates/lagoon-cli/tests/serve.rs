//! `lagoon serve` driven over its Unix socket by a small NBD client of this test's own
//! (handshake, every command, malformed and vanishing clients, too many connections, the
//! report on SIGTERM), and by fio's nbd engine when fio is installed.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const IHAVEOPT: u64 = 0x4948_4156_454F_5054;

/// A running server, killed (SIGKILL) if the test ends early.
struct Server {
    child: Option<Child>,
    dir: tempfile::TempDir,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("nbd.sock");
        let json = dir.path().join("report.json");
        let child = Command::new(env!("CARGO_BIN_EXE_lagoon"))
            .args(["serve", "--quiet", "--socket"])
            .arg(&sock)
            .arg("--json")
            .arg(&json)
            .args(extra)
            .stdin(Stdio::null())
            .spawn()
            .expect("lagoon runs");
        let t = Instant::now();
        while !sock.exists() {
            assert!(t.elapsed() < Duration::from_secs(30), "no socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        Server {
            child: Some(child),
            dir,
        }
    }

    fn sock(&self) -> PathBuf {
        self.dir.path().join("nbd.sock")
    }

    /// SIGTERM, wait for the exit, and the report.
    fn stop(mut self) -> serde_json::Value {
        let mut child = self.child.take().unwrap();
        // SAFETY: signalling a child process this test started, by its id.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let status = child.wait().unwrap();
        assert!(status.success(), "{status:?}");
        self.report()
    }

    /// Wait for the server to end by itself (--linger), and the report.
    fn wait(mut self) -> serde_json::Value {
        let status = self.child.take().unwrap().wait().unwrap();
        assert!(status.success(), "{status:?}");
        self.report()
    }

    fn report(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.dir.path().join("report.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A minimal NBD client: fixed newstyle, NBD_OPT_GO, simple replies.
struct Client {
    s: UnixStream,
    size: u64,
    block: (u32, u32, u32),
    handle: u64,
}

fn connect(path: &Path) -> UnixStream {
    let s = UnixStream::connect(path).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

fn read_n(s: &mut UnixStream, n: usize) -> std::io::Result<Vec<u8>> {
    let mut b = vec![0; n];
    s.read_exact(&mut b)?;
    Ok(b)
}

/// Whether the server closed the connection (EOF) without sending anything more.
fn closed(s: &mut UnixStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0))
        || matches!(s.read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset)
}

fn u16b(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn u32b(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}
fn u64b(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().unwrap())
}

impl Client {
    /// Greeting, client flags, then NBD_OPT_GO. A connection refused because the server has
    /// not yet noticed that an earlier one closed is tried again (for 10 s).
    fn open(path: &Path) -> Client {
        let t = Instant::now();
        let (mut s, g) = loop {
            let mut s = connect(path);
            match read_n(&mut s, 18) {
                Ok(g) => break (s, g),
                Err(_) if t.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(e) => panic!("no greeting: {e}"),
            }
        };
        assert_eq!(&g[..8], b"NBDMAGIC");
        assert_eq!(&g[8..16], b"IHAVEOPT");
        assert_eq!(u16b(&g[16..]) & 1, 1, "fixed newstyle");
        s.write_all(&3u32.to_be_bytes()).unwrap();
        // NBD_OPT_GO for the default export, asking for block sizes.
        let mut d = 0u32.to_be_bytes().to_vec();
        d.extend_from_slice(&1u16.to_be_bytes());
        d.extend_from_slice(&3u16.to_be_bytes());
        option(&mut s, 7, &d);
        let (mut size, mut block) = (None, None);
        loop {
            let h = read_n(&mut s, 20).unwrap();
            assert_eq!(u64b(&h), 0x0003_e889_0455_65a9);
            let (kind, len) = (u32b(&h[12..]), u32b(&h[16..]) as usize);
            let d = read_n(&mut s, len).unwrap();
            match kind {
                1 => break,
                3 if u16b(&d) == 0 => size = Some(u64b(&d[2..])),
                3 if u16b(&d) == 3 => block = Some((u32b(&d[2..]), u32b(&d[6..]), u32b(&d[10..]))),
                3 => {}
                e => panic!("option error {e:#x}"),
            }
        }
        Client {
            s,
            size: size.expect("NBD_INFO_EXPORT"),
            block: block.expect("NBD_INFO_BLOCK_SIZE"),
            handle: 0,
        }
    }

    fn send(&mut self, flags: u16, cmd: u16, offset: u64, len: u32, payload: &[u8]) -> u64 {
        self.handle += 1;
        let mut m = 0x2560_9513u32.to_be_bytes().to_vec();
        m.extend_from_slice(&flags.to_be_bytes());
        m.extend_from_slice(&cmd.to_be_bytes());
        m.extend_from_slice(&self.handle.to_be_bytes());
        m.extend_from_slice(&offset.to_be_bytes());
        m.extend_from_slice(&len.to_be_bytes());
        m.extend_from_slice(payload);
        self.s.write_all(&m).unwrap();
        self.handle
    }

    /// The next simple reply: (error, handle).
    fn reply(&mut self) -> (u32, u64) {
        let r = read_n(&mut self.s, 16).unwrap();
        assert_eq!(u32b(&r), 0x6744_6698);
        (u32b(&r[4..]), u64b(&r[8..]))
    }

    /// One request and its reply's error (and data, for a successful read).
    fn call(
        &mut self,
        flags: u16,
        cmd: u16,
        offset: u64,
        len: u32,
        payload: &[u8],
    ) -> (u32, Vec<u8>) {
        let h = self.send(flags, cmd, offset, len, payload);
        let (err, got) = self.reply();
        assert_eq!(got, h);
        let data = if cmd == 0 && err == 0 {
            read_n(&mut self.s, len as usize).unwrap()
        } else {
            Vec::new()
        };
        (err, data)
    }

    fn read(&mut self, offset: u64, len: u32) -> Vec<u8> {
        let (e, d) = self.call(0, 0, offset, len, &[]);
        assert_eq!(e, 0);
        d
    }

    fn disconnect(mut self) {
        self.send(0, 2, 0, 0, &[]);
        assert!(closed(&mut self.s), "the server closes after NBD_CMD_DISC");
    }
}

fn option(s: &mut UnixStream, opt: u32, data: &[u8]) {
    let mut m = IHAVEOPT.to_be_bytes().to_vec();
    m.extend_from_slice(&opt.to_be_bytes());
    m.extend_from_slice(&(data.len() as u32).to_be_bytes());
    m.extend_from_slice(data);
    s.write_all(&m).unwrap();
}

fn pattern(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) | 1)
        .collect()
}

#[test]
fn serve_keeps_data_answers_every_command_and_survives_bad_clients() {
    let srv = Server::start(&[
        "--ssd",
        "perf-optimized",
        "--size",
        "16M",
        "--max-connections",
        "2",
        "--memory",
        "4M",
        "--linger",
        "never",
    ]);
    let mut a = Client::open(&srv.sock());
    assert_eq!(a.size, 16 << 20);
    assert_eq!(a.block, (512, 4096, 32 << 20));

    // Write, read back, FUA, flush.
    let data = pattern(1, 64 << 10);
    assert_eq!(a.call(0, 1, 0, data.len() as u32, &data).0, 0);
    assert_eq!(a.read(0, 64 << 10), data);
    let fua = pattern(2, 4096);
    assert_eq!(a.call(1, 1, 1 << 20, 4096, &fua).0, 0, "FUA write");
    assert_eq!(a.call(0, 3, 0, 0, &[]).0, 0, "flush");
    assert_eq!(a.read(1 << 20, 4096), fua);
    // Trim four whole pages and half of the next: all of it reads as zeros.
    assert_eq!(a.call(0, 4, 8192, 4 * 4096 + 2048, &[]).0, 0);
    let back = a.read(0, 64 << 10);
    assert_eq!(back[..8192], data[..8192]);
    assert!(back[8192..8192 + 18432].iter().all(|&b| b == 0));
    assert_eq!(back[8192 + 18432..], data[8192 + 18432..]);
    // Write zeroes, with and without holes.
    assert_eq!(a.call(0, 6, 32768, 8192, &[]).0, 0);
    assert_eq!(a.call(2, 6, 49152, 1024, &[]).0, 0, "NO_HOLE");
    let back = a.read(32768, 32768);
    assert!(back[..8192].iter().all(|&b| b == 0));
    assert_eq!(back[8192..16384], data[40960..49152]);
    assert!(back[16384..17408].iter().all(|&b| b == 0));
    // Errors: past the end, unknown command, unknown flag; the memory budget (4 MiB).
    assert_eq!(
        a.call(0, 0, 16 << 20, 4096, &[]).0,
        22,
        "read past the end: EINVAL"
    );
    assert_eq!(
        a.call(0, 1, (16 << 20) - 512, 1024, &[0; 1024]).0,
        28,
        "ENOSPC"
    );
    assert_eq!(a.call(0, 4, 16 << 20, 512, &[]).0, 22, "trim past the end");
    assert_eq!(a.call(0, 9, 0, 0, &[]).0, 22, "unknown command");
    assert_eq!(a.call(1 << 7, 0, 0, 512, &[]).0, 22, "unknown flag");
    let big = pattern(3, 4 << 20);
    assert_eq!(
        a.call(0, 1, 8 << 20, big.len() as u32, &big).0,
        28,
        "budget full"
    );
    assert_eq!(
        a.read(0, 8192),
        data[..8192],
        "nothing written before is lost"
    );

    // A malformed handshake: client flags with unknown bits.
    let mut m = connect(&srv.sock());
    read_n(&mut m, 18).unwrap();
    m.write_all(&0xffu32.to_be_bytes()).unwrap();
    assert!(closed(&mut m));
    // An option without its magic.
    let mut m = connect(&srv.sock());
    read_n(&mut m, 18).unwrap();
    m.write_all(&1u32.to_be_bytes()).unwrap();
    m.write_all(&[0xab; 16]).unwrap();
    assert!(closed(&mut m));
    // An unknown option gets an error reply and the negotiation goes on.
    let mut m = connect(&srv.sock());
    read_n(&mut m, 18).unwrap();
    m.write_all(&1u32.to_be_bytes()).unwrap();
    option(&mut m, 77, &[]);
    let h = read_n(&mut m, 20).unwrap();
    assert_eq!(u32b(&h[12..]), (1 << 31) + 1, "NBD_REP_ERR_UNSUP");
    read_n(&mut m, u32b(&h[16..]) as usize).unwrap(); // its message
    option(&mut m, 2, &[]); // ABORT
    let h = read_n(&mut m, 20).unwrap();
    assert_eq!(u32b(&h[12..]), 1, "NBD_REP_ACK");
    assert!(closed(&mut m));
    // A request with a bad magic after the handshake closes that connection only.
    let mut b = Client::open(&srv.sock());
    b.s.write_all(&[0x55; 28]).unwrap();
    assert!(closed(&mut b.s));
    // A client that vanishes mid-request (half a write's payload).
    let mut v = Client::open(&srv.sock());
    v.handle = 100;
    let mut m = 0x2560_9513u32.to_be_bytes().to_vec();
    m.extend_from_slice(&[0, 0, 0, 1]);
    m.extend_from_slice(&7u64.to_be_bytes());
    m.extend_from_slice(&0u64.to_be_bytes());
    m.extend_from_slice(&8192u32.to_be_bytes());
    m.extend_from_slice(&[9; 100]);
    v.s.write_all(&m).unwrap();
    drop(v);
    // And one that vanishes with reads in flight.
    let mut v = Client::open(&srv.sock());
    for k in 0..8 {
        v.send(0, 0, k * 4096, 4096, &[]);
    }
    drop(v);
    // Too many connections: with `a` and `b2` open, a third is closed at once.
    let b2 = Client::open(&srv.sock());
    let mut c = connect(&srv.sock());
    assert!(closed(&mut c), "more than --max-connections");
    // The first client was served throughout, and nothing was lost.
    assert_eq!(a.read(0, 8192), data[..8192]);
    assert_eq!(a.read(1 << 20, 4096), fua);
    b2.disconnect();
    a.disconnect();

    let r = srv.stop();
    let s = &r["serve"]["stats"];
    assert!(s["connections_refused"].as_u64().unwrap() >= 1, "{s}");
    assert!(
        s["connections_closed_on_error"].as_u64().unwrap() >= 3,
        "{s}"
    );
    assert_eq!(s["einval"], 4);
    assert_eq!(s["enospc"], 2);
    assert_eq!(s["trims"], 1);
    assert_eq!(s["flushes"], 1);
    assert_eq!(s["write_zeroes"], 2);
    assert_eq!(
        r["ftl"]["trimmed_pages"],
        4 + 2,
        "the trim's and the write-zeroes' whole pages"
    );
    let p = &r["serve"]["pacing_error"];
    assert!(p["replies"].as_u64().unwrap() >= 12, "{p}");
    assert!(r["reads"].as_u64().unwrap() >= 8);
    assert_eq!(
        r["replay"].as_str().unwrap().split(',').next(),
        Some("live")
    );
}

/// Data outlives the server only through --backing: a second server on the same image
/// reads what the first wrote.
#[test]
fn a_backing_image_keeps_the_data_across_servers() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    let img = image.to_str().unwrap();
    let data = pattern(5, 256 << 10);
    {
        let srv = Server::start(&[
            "--size",
            "8M",
            "--memory",
            "64K",
            "--backing",
            img,
            "--pace",
            "none",
        ]);
        let mut a = Client::open(&srv.sock());
        assert_eq!(a.call(0, 1, 4096, data.len() as u32, &data).0, 0);
        a.disconnect();
        let r = srv.stop();
        assert!(r["serve"]["store_spills"].as_u64().unwrap() >= 1);
    }
    let srv = Server::start(&["--backing", img, "--pace", "none", "--linger", "0"]);
    let mut a = Client::open(&srv.sock());
    assert_eq!(a.size, 8 << 20, "the image's size");
    assert_eq!(a.read(4096, data.len() as u32), data);
    a.disconnect();
    srv.wait();
}

fn fio() -> Option<PathBuf> {
    let out = Command::new("fio").arg("--enghelp=nbd").output().ok()?;
    out.status.success().then(|| PathBuf::from("fio"))
}

/// fio's nbd engine (libnbd): random 4 KB writes verified with crc32c, then 4 jobs on 4
/// connections at once. Skipped (with a note) where fio or its nbd engine is missing.
#[test]
fn fio_writes_verify_and_four_jobs_run_at_once() {
    let Some(fio) = fio() else {
        eprintln!("note: fio with its nbd engine is not installed; skipping the fio test");
        return;
    };
    let srv = Server::start(&[
        "--ssd",
        "perf-optimized",
        "--size",
        "64M",
        "--linger",
        "never",
    ]);
    let uri = format!("nbd+unix:///?socket={}", srv.sock().display());
    let run = |args: &[&str]| {
        let out = Command::new(&fio)
            .args(["--ioengine=nbd", "--output-format=json", "--name=t"])
            .arg(format!("--uri={uri}"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fio {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // fio prints a line ("fio: connected to NBD server") before its JSON.
        let text = String::from_utf8_lossy(&out.stdout);
        let json = &text[text.find('{').expect("fio's JSON")..];
        serde_json::from_str::<serde_json::Value>(json).unwrap()
    };
    let v = run(&[
        "--rw=randwrite",
        "--bs=4k",
        "--size=4M",
        "--iodepth=8",
        "--verify=crc32c",
        "--do_verify=1",
    ]);
    assert_eq!(v["jobs"][0]["error"], 0);
    let v = run(&[
        "--rw=randread",
        "--bs=4k",
        "--size=16M",
        "--iodepth=4",
        "--numjobs=4",
        "--time_based",
        "--runtime=2",
        "--group_reporting",
    ]);
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(ios > 1000, "{ios} reads");
    let r = srv.stop();
    assert!(r["serve"]["stats"]["connections"].as_u64().unwrap() >= 5);
    assert!(
        r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["requests"].as_u64().unwrap() > 0)
            .count()
            >= 4,
        "4 connections, 4 queue pairs"
    );
}
