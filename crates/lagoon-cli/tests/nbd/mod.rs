//! What the `lagoon serve` tests share: the server as a child process (on a Unix socket or
//! 127.0.0.1), its memory, and a small NBD client of their own (fixed newstyle, `NBD_OPT_GO`,
//! simple replies).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;
pub const OPT_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;

/// Where a server listens.
#[derive(Clone, Debug)]
pub enum Endpoint {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

/// A stream to the server.
pub enum Sock {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Sock {
    pub fn set_read_timeout(&self, t: Option<Duration>) {
        match self {
            Sock::Unix(s) => s.set_read_timeout(t).unwrap(),
            Sock::Tcp(s) => s.set_read_timeout(t).unwrap(),
        }
    }
    pub fn set_nonblocking(&self, yes: bool) {
        match self {
            Sock::Unix(s) => s.set_nonblocking(yes).unwrap(),
            Sock::Tcp(s) => s.set_nonblocking(yes).unwrap(),
        }
    }
    pub fn fd(&self) -> RawFd {
        match self {
            Sock::Unix(s) => s.as_raw_fd(),
            Sock::Tcp(s) => s.as_raw_fd(),
        }
    }
}

impl Read for Sock {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Sock::Unix(s) => s.read(b),
            Sock::Tcp(s) => s.read(b),
        }
    }
}

impl Write for Sock {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Sock::Unix(s) => s.write(b),
            Sock::Tcp(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Endpoint {
    /// A connection with a 20 s read timeout.
    pub fn connect(&self) -> Sock {
        let s = match self {
            Endpoint::Unix(p) => Sock::Unix(UnixStream::connect(p).unwrap()),
            Endpoint::Tcp(a) => {
                let s = TcpStream::connect(a).unwrap();
                s.set_nodelay(true).unwrap();
                Sock::Tcp(s)
            }
        };
        s.set_read_timeout(Some(Duration::from_secs(20)));
        s
    }
}

/// A running server, killed (SIGKILL) if the test ends early.
pub struct Server {
    pub child: Option<Child>,
    pub dir: tempfile::TempDir,
    pub endpoint: Endpoint,
}

impl Server {
    /// `lagoon serve --quiet --socket DIR/nbd.sock --json DIR/report.json EXTRA...`.
    pub fn start(extra: &[&str]) -> Server {
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
            endpoint: Endpoint::Unix(sock),
        }
    }

    /// The same on `--listen 127.0.0.1:0`: the port is read from the server's first line.
    pub fn start_tcp(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("report.json");
        let mut child = Command::new(env!("CARGO_BIN_EXE_lagoon"))
            .args(["serve", "--listen", "127.0.0.1:0", "--json"])
            .arg(&json)
            .args(extra)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("lagoon runs");
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        let addr = line
            .split(" on tcp:")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .unwrap();
        // Keep reading what it prints, so that it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        Server {
            child: Some(child),
            dir,
            endpoint: Endpoint::Tcp(addr),
        }
    }

    pub fn sock(&self) -> PathBuf {
        self.dir.path().join("nbd.sock")
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().expect("running").id() as i32
    }

    /// Whether it is still running.
    pub fn alive(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().unwrap().is_none())
    }

    /// Its resident memory now and at its peak, bytes (/proc/PID/status VmRSS, VmHWM).
    pub fn memory(&self) -> (u64, u64) {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        let kb = |key: &str| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
                * 1024
        };
        (kb("VmRSS:"), kb("VmHWM:"))
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: signalling a child process this test started, by its id.
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// SIGTERM, wait for the exit, and the report.
    pub fn stop(mut self) -> serde_json::Value {
        self.signal(libc::SIGTERM);
        let status = self.child.take().unwrap().wait().unwrap();
        assert!(status.success(), "{status:?}");
        self.report()
    }

    /// Wait for the server to end by itself (--linger), and the report.
    pub fn wait(mut self) -> serde_json::Value {
        let status = self.child.take().unwrap().wait().unwrap();
        assert!(status.success(), "{status:?}");
        self.report()
    }

    pub fn report(&self) -> serde_json::Value {
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

pub fn connect(path: &Path) -> Sock {
    Endpoint::Unix(path.to_path_buf()).connect()
}

pub fn read_n(s: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut b = vec![0; n];
    s.read_exact(&mut b)?;
    Ok(b)
}

/// Whether the server closed the connection (EOF) without sending anything more.
pub fn closed(s: &mut impl Read) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0))
        || matches!(s.read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset)
}

/// Whether the server has closed the connection, without reading what it sent: poll(2)
/// reports a hang-up.
pub fn hung_up(s: &Sock) -> bool {
    let mut p = libc::pollfd {
        fd: s.fd(),
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait.
    unsafe { libc::poll(&mut p, 1, 0) };
    p.revents & (libc::POLLHUP | libc::POLLERR) != 0
}

pub fn u16b(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
pub fn u32b(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}
pub fn u64b(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().unwrap())
}

pub fn option(s: &mut impl Write, opt: u32, data: &[u8]) {
    let mut m = IHAVEOPT.to_be_bytes().to_vec();
    m.extend_from_slice(&opt.to_be_bytes());
    m.extend_from_slice(&(data.len() as u32).to_be_bytes());
    m.extend_from_slice(data);
    s.write_all(&m).unwrap();
}

/// A request's 28 bytes.
pub fn request(flags: u16, cmd: u16, handle: u64, offset: u64, len: u32) -> Vec<u8> {
    let mut m = REQUEST_MAGIC.to_be_bytes().to_vec();
    m.extend_from_slice(&flags.to_be_bytes());
    m.extend_from_slice(&cmd.to_be_bytes());
    m.extend_from_slice(&handle.to_be_bytes());
    m.extend_from_slice(&offset.to_be_bytes());
    m.extend_from_slice(&len.to_be_bytes());
    m
}

pub fn pattern(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) | 1)
        .collect()
}

/// A negotiated connection.
pub struct Client {
    pub s: Sock,
    pub size: u64,
    pub block: (u32, u32, u32),
    pub handle: u64,
}

impl Client {
    /// Greeting, client flags, then NBD_OPT_GO. A connection refused because the server has
    /// not yet noticed that an earlier one closed is tried again (for 10 s).
    pub fn open(path: &Path) -> Client {
        Client::open_at(&Endpoint::Unix(path.to_path_buf()))
    }

    pub fn open_at(at: &Endpoint) -> Client {
        let t = Instant::now();
        let (mut s, g) = loop {
            let mut s = at.connect();
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
            assert_eq!(u64b(&h), OPT_REPLY_MAGIC);
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

    pub fn send(&mut self, flags: u16, cmd: u16, offset: u64, len: u32, payload: &[u8]) -> u64 {
        self.handle += 1;
        let mut m = request(flags, cmd, self.handle, offset, len);
        m.extend_from_slice(payload);
        self.s.write_all(&m).unwrap();
        self.handle
    }

    /// The next simple reply: (error, handle).
    pub fn reply(&mut self) -> (u32, u64) {
        let r = read_n(&mut self.s, 16).unwrap();
        assert_eq!(u32b(&r), SIMPLE_REPLY_MAGIC);
        (u32b(&r[4..]), u64b(&r[8..]))
    }

    /// One request and its reply's error (and data, for a successful read).
    pub fn call(
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

    pub fn read(&mut self, offset: u64, len: u32) -> Vec<u8> {
        let (e, d) = self.call(0, 0, offset, len, &[]);
        assert_eq!(e, 0);
        d
    }

    pub fn disconnect(mut self) {
        self.send(0, 2, 0, 0, &[]);
        assert!(closed(&mut self.s), "the server closes after NBD_CMD_DISC");
    }
}
