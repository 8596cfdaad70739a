//! `lagoon serve` driven over its Unix socket by a small NBD client of this test's own
//! (handshake, every command, malformed and vanishing clients, too many connections, the
//! report on SIGTERM), by clients that try to take it down (replies never read, payloads
//! never finished, a signal at the worst moment, bad options), and by fio, qemu-io and
//! qemu-img when they are installed.

mod common;
mod nbd;

use nbd::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
            // fio writes its verify state files into its working directory
            .current_dir(srv.sock().parent().expect("the socket's folder"))
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
    // 4 MiB blocks: payloads through the write pool, reads sent from the store in pieces.
    let v = run(&[
        "--rw=write",
        "--bs=4m",
        "--size=32M",
        "--iodepth=4",
        "--verify=crc32c",
        "--do_verify=1",
    ]);
    assert_eq!(v["jobs"][0]["error"], 0);
    assert!(ios > 1000, "{ios} reads");
    let r = srv.stop();
    assert!(r["serve"]["stats"]["connections"].as_u64().unwrap() >= 6);
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

/// A client that pipelines 120 reads of 32 MiB and never reads a reply holds no more than
/// its connection's bound (docs/SERVE.md, "Memory"): a read's data is sent from the store as
/// the socket takes it. Another client is served meanwhile, and the reader is closed after
/// `--stall-timeout`. (40 such reads held 1.3 GB; 200 aborted the server.)
#[test]
fn replies_never_read_hold_bounded_memory_and_others_are_served() {
    let srv = Server::start(&[
        "--size",
        "256M",
        "--linger",
        "never",
        "--max-connections",
        "2",
        "--stall-timeout",
        "3",
    ]);
    let (_, base) = srv.memory();
    let mut r = Client::open(&srv.sock());
    let mut m = Vec::new();
    for k in 0..120u64 {
        m.extend(request(0, 0, k, (k % 8) * (32 << 20), 32 << 20));
    }
    r.s.write_all(&m).unwrap();
    let t = Instant::now();
    let mut b = Client::open(&srv.sock());
    let data = pattern(7, 1 << 20);
    assert_eq!(b.call(0, 1, 0, data.len() as u32, &data).0, 0);
    assert_eq!(b.read(0, 1 << 20), data, "the second client is served");
    while !hung_up(&r.s) {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the reader is never closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_, peak) = srv.memory();
    assert!(
        peak < base + (32 << 20),
        "peak resident {peak} bytes, {base} at the start"
    );
    assert_eq!(b.read(0, 4096), data[..4096], "still served");
    b.disconnect();
    let rep = srv.stop();
    let s = &rep["serve"]["stats"];
    assert_eq!(s["connections_closed_stalled"], 1, "{s}");
    assert_eq!(s["reads"], 122, "{s}");
}

/// 100 connections each send a 32 MiB WRITE header and all but one byte of its payload
/// (`--max-connections 256`): the server holds at most the 256 MiB write pool for them (the
/// others wait unread in their sockets), stays up, and serves another client meanwhile. (75
/// of them aborted the server.)
#[test]
fn a_flood_of_unfinished_32_mib_writes_leaves_the_server_up() {
    let mut srv = Server::start(&[
        "--size",
        "64M",
        "--linger",
        "never",
        "--max-connections",
        "256",
    ]);
    let (_, base) = srv.memory();
    let len = 32usize << 20;
    let payload = vec![0x5a; len];
    let mut flood: Vec<(Sock, usize)> = (0..100u64)
        .map(|k| {
            let mut s = Client::open(&srv.sock()).s;
            s.write_all(&request(0, 1, k, 0, len as u32)).unwrap();
            s.set_nonblocking(true);
            (s, 0)
        })
        .collect();
    // Until the server takes no more (8 payloads whole, or nothing moving for 10 s).
    let full = |f: &[(Sock, usize)]| f.iter().filter(|(_, s)| *s == len - 1).count();
    let mut moved = Instant::now();
    while moved.elapsed() < Duration::from_secs(if full(&flood) < 8 { 10 } else { 1 }) {
        for (s, sent) in &mut flood {
            let left = len - 1 - *sent;
            if let Ok(n) = s.write(&payload[..left.min(1 << 20)]) {
                if n > 0 {
                    *sent += n;
                    moved = Instant::now();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(full(&flood), 8, "the pool takes 8 payloads of 32 MiB");
    assert!(srv.alive());
    let (_, peak) = srv.memory();
    assert!(
        peak < base + (256 << 20) + (64 << 20),
        "peak resident {peak} bytes, {base} at the start"
    );
    let mut b = Client::open(&srv.sock());
    let data = pattern(3, 64 << 10);
    assert_eq!(b.call(0, 1, 4096, data.len() as u32, &data).0, 0);
    assert_eq!(b.read(4096, data.len() as u32), data);
    drop(flood);
    b.disconnect();
    let rep = srv.stop();
    let s = &rep["serve"]["stats"];
    assert_eq!(s["write_pool_peak_bytes"], 256u64 << 20, "{s}");
    assert_eq!(s["writes"], 1, "no unfinished write reached the drive: {s}");
    assert!(
        s["connections_closed_on_error"].as_u64().unwrap() >= 100,
        "{s}"
    );
}

/// A client that sends a header without its payload, or connects and never negotiates, is
/// closed after `--stall-timeout`; one idle between requests is not.
#[test]
fn clients_stalled_mid_message_are_closed_and_idle_ones_kept() {
    let srv = Server::start(&["--size", "16M", "--linger", "never", "--stall-timeout", "1"]);
    let mut half = Client::open(&srv.sock());
    let mut m = request(0, 1, 1, 0, 8192);
    m.extend_from_slice(&[7; 100]);
    half.s.write_all(&m).unwrap();
    let mut mute = connect(&srv.sock());
    read_n(&mut mute, 18).unwrap();
    let mut idle = Client::open(&srv.sock());
    let t = Instant::now();
    while !(hung_up(&half.s) && hung_up(&mute)) {
        assert!(t.elapsed() < Duration::from_secs(20), "never closed");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!hung_up(&idle.s), "an idle client stays");
    assert_eq!(idle.read(0, 512), vec![0; 512]);
    idle.disconnect();
    let rep = srv.stop();
    assert_eq!(rep["serve"]["stats"]["connections_closed_stalled"], 2);
}

/// Each bad option is one error line naming the flag (and the path), exit code 2, before the
/// server listens: the socket never appears.
#[test]
fn every_bad_option_is_one_error_before_the_server_listens() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let long = "x".repeat(10_000);
    let img = dir.path().join("img");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--linger", "1e20"], "--linger 1e20"),
        (vec!["--linger", "1e300"], "--linger 1e300"),
        (vec!["--linger", "2^64"], "--linger 2^64"),
        (vec!["--linger", "-1"], "--linger -1"),
        (vec!["--linger", "NaN"], "--linger NaN"),
        (vec!["--stall-timeout", "0"], "--stall-timeout 0"),
        (vec!["--stall-timeout", "1e20"], "--stall-timeout 1e20"),
        (vec!["--memory", "0"], "--memory 0"),
        (vec!["--memory", "100"], "--memory 100"),
        (vec!["--memory", "1024T"], "--memory 1024T"),
        (vec!["--memory", "-1"], "--memory -1"),
        (vec!["--export-name", &long], "--export-name"),
        (vec!["--size", "0"], "--size 0"),
        (vec!["--size", "1000"], "--size 1000"),
        (vec!["--size", "1P"], "--size 1P"),
        (vec!["--max-connections", "0"], "--max-connections"),
        (vec!["--pace", "realtime:1e300"], "--pace realtime:1e300"),
        (vec!["--json", "/dev/full"], "--json /dev/full"),
        (
            vec!["--json", "/no/such/dir/r.json"],
            "--json /no/such/dir/r.json",
        ),
        (vec!["--log", "/dev/full"], "--log /dev/full"),
        (vec!["--log", "/proc/version"], "--log /proc/version"),
        (vec!["--log", "/no/such/dir/l"], "--log /no/such/dir/l"),
        (vec!["--json", "-", "--log", "-"], "--json and --log"),
        (vec!["--backing", "/dev/full"], "--backing /dev/full"),
        (vec!["--backing", "/tmp"], "--backing /tmp"),
        (
            vec!["--backing", "/no/such/dir/img"],
            "--backing /no/such/dir/img",
        ),
        (
            vec!["--backing", "/proc/version", "--size", "1M"],
            "--backing /proc/version",
        ),
        (
            vec!["--backing", img.to_str().unwrap(), "--size", "1000"],
            "--size 1000",
        ),
    ];
    for (args, named) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_lagoon"))
            .args(["serve", "--socket"])
            .arg(&sock)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("error: ") && first.contains(named),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "one error: {err}"
        );
        assert!(!sock.exists(), "{args:?}: the server listened");
    }
    assert!(
        !img.exists(),
        "no image is created before every option is checked"
    );
}

/// SIGINT landing after the loop looked at the stop flag and before it waits with no time
/// limit (`LAGOON_SERVE_SIGNAL_BEFORE_WAIT` raises it exactly there) ends the server at
/// once: the signal is blocked outside `ppoll` and ends the wait. Handled outside the wait,
/// it would set the flag and the server would sleep forever (the first SIGINT was once
/// ignored for 10 minutes).
#[test]
fn sigint_between_the_flag_check_and_the_wait_ends_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let json = dir.path().join("r.json");
    // SIGINT's default restored for the child: the harness may run with it ignored.
    let mut child = common::with_sigint(&mut Command::new(env!("CARGO_BIN_EXE_lagoon")))
        .args(["serve", "--quiet", "--linger", "never", "--socket"])
        .arg(&sock)
        .arg("--json")
        .arg(&json)
        .env("LAGOON_SERVE_SIGNAL_BEFORE_WAIT", "1")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the server ignored a SIGINT raised before its wait");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["serve"]["stats"]["connections"], 0);
}

/// `--log` is written in arrival order (a large read that arrived first and completed last
/// comes first) and replays as docs/SERVE.md says; 0-byte requests get EINVAL and stay out
/// of it. (It was in completion order: the replay shifted 9,281 of 49,491 arrivals; a 0-byte
/// write in it failed the replay.)
#[test]
fn the_log_is_in_arrival_order_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.trace");
    let srv = Server::start(&[
        "--ssd",
        "cost-optimized",
        "--size",
        "64M",
        "--linger",
        "never",
        "--log",
        log.to_str().unwrap(),
    ]);
    let mut a = Client::open(&srv.sock());
    let mut b = Client::open(&srv.sock());
    for cmd in [0, 1, 4, 6] {
        assert_eq!(
            a.call(0, cmd, 0, 0, &[]).0,
            22,
            "0 bytes, command {cmd}: EINVAL"
        );
    }
    let data = pattern(9, 4 << 20);
    assert_eq!(a.call(0, 1, 0, data.len() as u32, &data).0, 0);
    for round in 0..5u64 {
        // A large read first, small ones after it: they overtake it in the drive.
        let mut sent = vec![a.send(0, 0, 0, 4 << 20, &[])];
        for k in 0..16 {
            sent.push(a.send(0, 0, (8 + k) << 20, 4096, &[]));
            b.send(0, 1, (16 + k + round) << 20, 4096, &data[..4096]);
        }
        a.send(0, 4, 32 << 20, 8192, &[]);
        for _ in 0..18 {
            let (e, h) = a.reply();
            assert_eq!(e, 0);
            if h == sent[0] {
                assert_eq!(read_n(&mut a.s, 4 << 20).unwrap(), data);
            } else if sent.contains(&h) {
                read_n(&mut a.s, 4096).unwrap();
            }
        }
        for _ in 0..16 {
            assert_eq!(b.reply().0, 0);
        }
    }
    a.disconnect();
    b.disconnect();
    let rep = srv.stop();
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let rows: Vec<(f64, u64)> = text
        .lines()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| !w[0].starts_with('#'))
        .map(|w| {
            let t: f64 = w[0].split(' ').next().unwrap().parse().unwrap();
            let sim: u64 = w[1].split(' ').nth(2).unwrap().parse().unwrap();
            (t, sim)
        })
        .collect();
    assert_eq!(rows.len() as u64, 1 + 5 * 33, "{text}");
    assert_eq!(
        lines.clone().count(),
        rows.len(),
        "each request line has its # line"
    );
    assert!(
        rows.windows(2).all(|w| w[0].0 <= w[1].0),
        "arrivals in order"
    );
    let completions_out_of_order = rows
        .windows(2)
        .any(|w| w[0].0 * 1e6 + w[0].1 as f64 > w[1].0 * 1e6 + w[1].1 as f64);
    assert!(
        completions_out_of_order,
        "the test must reorder completions"
    );
    assert!(
        lines.all(|l| l.split(' ').nth(3) != Some("0")),
        "no 0-byte line"
    );
    assert_eq!(rep["serve"]["stats"]["einval"], 4);
    let out = Command::new(env!("CARGO_BIN_EXE_lagoon"))
        .args([
            "run",
            "--ssd",
            "cost-optimized",
            "--format",
            "disksim",
            "--json",
            "-",
        ])
        .arg("--workload")
        .arg(&log)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("backwards"), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["requests"].as_u64(), Some(rows.len() as u64));
}

/// `--pace none`: the summary counts the requests served (it said "served 0 requests").
#[test]
fn the_summary_counts_requests_under_pace_none() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let child = Command::new(env!("CARGO_BIN_EXE_lagoon"))
        .args([
            "serve", "--pace", "none", "--size", "16M", "--linger", "0", "--socket",
        ])
        .arg(&sock)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !sock.exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "no socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut a = Client::open(&sock);
    for k in 0..10 {
        assert_eq!(a.call(0, 1, k * 4096, 4096, &[1; 4096]).0, 0);
        a.read(k * 4096, 4096);
    }
    a.call(0, 3, 0, 0, &[]);
    a.disconnect();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("served 21 requests (1 connections)"), "{err}");
}

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// qemu-io writes and reads a pattern (a wrong one fails), qemu-img copies an image onto the
/// export and back byte for byte (its reads and writes go up to 2 MiB and more). Skipped
/// (with a note) where qemu-utils is not installed.
#[test]
fn qemu_io_and_qemu_img_read_back_what_they_wrote() {
    if !installed("qemu-io") || !installed("qemu-img") {
        eprintln!("note: qemu-io or qemu-img is not installed; skipping the qemu test");
        return;
    }
    let srv = Server::start(&[
        "--ssd",
        "cost-optimized",
        "--arch",
        "venice",
        "--size",
        "64M",
        "--linger",
        "never",
    ]);
    let uri = format!("nbd+unix:///?socket={}", srv.sock().display());
    let run = |tool: &str, args: &[&str]| {
        let out = Command::new(tool).args(args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, text) = run(
        "qemu-io",
        &[
            "-f",
            "raw",
            "-c",
            "write -P 0xab 1M 256k",
            "-c",
            "read -P 0xab 1M 256k",
            &uri,
        ],
    );
    assert!(
        ok && text.contains("read 262144/262144 bytes at offset 1048576"),
        "{text}"
    );
    let (_, text) = run("qemu-io", &["-f", "raw", "-c", "read -P 0xcd 1M 4k", &uri]);
    assert!(text.contains("Pattern verification failed"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let (img, back) = (dir.path().join("q.img"), dir.path().join("q.back"));
    let data: Vec<u8> = (0..24u8).flat_map(|k| pattern(k, 1 << 20)).collect();
    std::fs::write(&img, &data).unwrap();
    let (ok, text) = run(
        "qemu-img",
        &[
            "convert",
            "-n",
            "-f",
            "raw",
            "-O",
            "raw",
            img.to_str().unwrap(),
            &uri,
        ],
    );
    assert!(ok, "{text}");
    let (ok, text) = run(
        "qemu-img",
        &[
            "convert",
            "-f",
            "raw",
            "-O",
            "raw",
            &uri,
            back.to_str().unwrap(),
        ],
    );
    assert!(ok, "{text}");
    let got = std::fs::read(&back).unwrap();
    assert_eq!(got.len(), 64 << 20);
    assert!(got[..data.len()] == data[..], "the image came back changed");
    assert!(got[data.len()..].iter().all(|&b| b == 0));
    let r = srv.stop();
    assert!(r["serve"]["stats"]["writes"].as_u64().unwrap() >= 12);
}

/// The README's `lagoon serve` example runs as written (the socket in a temporary folder,
/// fio for 1 s instead of 10): its server outlives its clients (`--linger never`; the
/// default 2 s ended it between the lines), ends on SIGINT with its report, and its log
/// replays. Skipped (with a note) without fio and qemu-img.
#[test]
fn the_readme_serve_example_keeps_its_server_and_replays_its_log() {
    if fio().is_none() || !installed("qemu-img") {
        eprintln!("note: fio or qemu-img is not installed; skipping the README serve example");
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("## Serving the drive to real software")
        .nth(1)
        .and_then(|s| s.split("```sh").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("README has a ```sh block under 'Serving the drive to real software'");
    let mut commands = Vec::new();
    let mut acc = String::new();
    for line in block.lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(head) => acc.push_str(head),
            None => {
                acc.push_str(line.trim_end());
                commands.push(std::mem::take(&mut acc).trim().to_string());
            }
        }
    }
    let commands: Vec<String> = commands.into_iter().filter(|c| !c.is_empty()).collect();
    assert_eq!(commands.len(), 5, "{commands:?}");
    assert!(commands[0].starts_with("lagoon serve") && commands[0].contains("--linger never"));
    assert!(commands[3].starts_with("kill -INT $!"), "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("lagoon.sock");
    let local = |c: &str| {
        c.replace("/tmp/lagoon.sock", sock.to_str().unwrap())
            .replace("--runtime=10", "--runtime=1")
    };
    std::fs::write(dir.path().join("disk.img"), pattern(1, 4 << 20)).unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_lagoon"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |c: &str| {
        let mut cmd = Command::new("sh");
        // The server is stopped with SIGINT: its default restored (the harness may ignore it).
        common::with_sigint(&mut cmd);
        cmd.arg("-c")
            .arg(c)
            .current_dir(dir.path())
            .env("PATH", &path)
            .stdin(Stdio::null());
        cmd
    };
    let serve_line = local(commands[0].split(" &").next().unwrap());
    let mut server = Server {
        child: Some(
            sh(&format!("exec {serve_line}"))
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ),
        dir: tempfile::tempdir().unwrap(),
        endpoint: Endpoint::Unix(sock.clone()),
    };
    let t = Instant::now();
    while !sock.exists() {
        assert!(t.elapsed() < Duration::from_secs(60), "no socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    for c in &commands[1..3] {
        let out = sh(&local(c)).output().unwrap();
        assert!(
            out.status.success(),
            "{c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        server.alive(),
        "the server ended between the example's lines"
    );
    server.signal(libc::SIGINT);
    let status = common::wait_at_most(server.child.as_mut().unwrap(), Duration::from_secs(30))
        .expect("the server still ran 30 s after SIGINT");
    server.child = None;
    assert!(status.success(), "{status:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("serve.json")).unwrap()).unwrap();
    assert!(report["serve"]["stats"]["reads"].as_u64().unwrap() > 100);
    let out = sh(&commands[4]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {err}", commands[4]);
    assert!(!err.contains("backwards"), "{err}");
}
