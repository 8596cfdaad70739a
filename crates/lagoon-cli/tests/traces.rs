//! `lagoon trace ...` and `--device` as a user with real traces sees them (issue 16):
//! detection that names the candidates, stats with units and the first request, compressed
//! input, convert, cut, fit, and one clear error with exit code 2 for bad input.

use std::io::Write;

mod common;
use common::{lagoon, tmp, TRACES};

fn ok(args: &[&str]) -> String {
    let (code, out, err) = lagoon(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    out
}

fn fails(args: &[&str], needles: &[&str]) -> String {
    let (code, _, err) = lagoon(args);
    assert_eq!(code, 2, "exit code for {args:?}: stderr {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr for {args:?} lacks '{n}': {err}");
    }
    err
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).unwrap()
}

const DISKSIM: &str = "0.000000 0 1630976 16 1\n0.041338 0 303104 128 0\n1.25 1 8 8 1\n";

#[test]
fn stats_name_format_units_and_first_request() {
    let path = tmp("validate.ascii", DISKSIM);
    let out = ok(&["trace", "stats", &path]);
    assert!(out.contains("format                disksim (detected: of the formats that read the first 3 data lines: msr-ms: 3 of 3 requests are smaller than 512 B"), "{out}");
    assert!(out.contains("units                 time: decimal ms; offset (block): 512-byte sectors; size: 512-byte blocks; flags hexadecimal, bit 0 set = read"), "{out}");
    assert!(out.contains("first request         line 1: 0.000000 0 1630976 16 1\n                      read as arrival 0 ns, device 0, offset 835059712 B, size 8192 B, read\n"), "{out}");
    assert!(out.contains("avg size              25.33 KB"), "{out}");
    let v = json(&["trace", "stats", &path, "--json", "-"]);
    assert_eq!(v["format"], "disksim");
    assert_eq!(v["compression"], "none");
    assert_eq!(v["first_request"]["line"], 1);
    assert_eq!(v["first_request"]["size_bytes"], 8192);
    assert_eq!(v["first_request"]["text"], "0.000000 0 1630976 16 1");
    // with --format: the units of the format named, and no detection
    let v = json(&["trace", "stats", &path, "--format", "msr-ms", "--json", "-"]);
    assert_eq!(v["format_source"], "given with --format");
    assert_eq!(v["first_request"]["size_bytes"], 16);
}

#[test]
fn ambiguous_and_implausible_files_ask_for_format() {
    let amb = tmp("amb.trace", "0.5 0 4096 4096 1\n0.7 0 100 8192 0\n");
    for cmd in [
        vec!["trace", "stats", &amb],
        vec!["trace", "fit", &amb],
        vec!["run", "--workload", &amb, "--quiet"],
    ] {
        fails(&cmd, &["amb.trace: cannot detect the trace format: the first 2 data lines fit disksim and msr-ms equally well", "name it with --format"]);
    }
    let bad = tmp("bad-units.trace", "0.5 0 0 204800 1\n0.7 0 0 3 0\n");
    fails(
        &["trace", "stats", &bad],
        &[
            "no format gives plausible requests",
            "as disksim, a request of 104857600 bytes (more than 32 MiB)",
            "--format",
        ],
    );
    // named, it is read
    ok(&["trace", "stats", &amb, "--format", "disksim"]);
}

#[test]
fn device_filter_on_interleaved_traces() {
    let ali = tmp(
        "ali.csv",
        "device_id,opcode,offset,length,timestamp\n3,W,4096,4096,1577808000000000\n9,R,0,8192,1577808000000010\n3,R,8192,16384,1577808000000020\n",
    );
    let v = json(&["trace", "stats", &ali, "--device", "3", "--json", "-"]);
    assert_eq!(v["format"], "alibaba");
    assert_eq!(v["requests"], 2);
    assert_eq!(v["reads"], 1);
    assert_eq!(v["other_device_requests"], 1);
    assert_eq!(v["avg_interarrival_us"], 20.0);
    let v = json(&["trace", "stats", &ali, "--devices", "--json", "-"]);
    assert_eq!(v["devices"][0]["device"], 3);
    assert_eq!(v["devices"][0]["requests"], 2);
    let tencent = tmp(
        "cbs.csv",
        "1538323200,4174088,8,1,1063\n1538323200,16,16,0,7\n1538323201,24,8,0,1063\n",
    );
    let v = json(&[
        "trace", "stats", &tencent, "--volume", "1063", "--json", "-",
    ]);
    assert_eq!(
        (v["format"].as_str(), v["requests"].as_u64()),
        (Some("tencent"), Some(2))
    );
    fails(
        &["trace", "stats", &tencent, "--volume", "5"],
        &["cbs.csv: no requests of device 5 (3 requests of other devices"],
    );
    // a simulation of one volume
    let out = ok(&["run", "--workload", &tencent, "--volume", "1063", "--quiet"]);
    assert!(out.contains("requests"), "{out}");
}

#[test]
fn compressed_traces_stream() {
    let plain = std::fs::read(format!("{TRACES}msr-cut-105.trace")).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&plain).unwrap();
    let d = tempfile::tempdir().unwrap();
    let gz = d.path().join("msr.csv.gz");
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let gz = gz.to_str().unwrap();
    let a = json(&[
        "trace",
        "stats",
        &format!("{TRACES}msr-cut-105.trace"),
        "--json",
        "-",
    ]);
    let b = json(&["trace", "stats", gz, "--json", "-"]);
    assert_eq!(b["compression"], "gzip");
    for k in [
        "requests",
        "reads",
        "total_bytes",
        "first_arrival_ns",
        "last_arrival_ns",
        "format",
    ] {
        assert_eq!(a[k], b[k], "{k}");
    }
    let out = ok(&["trace", "stats", gz]);
    assert!(out.contains("compression           gzip\n"), "{out}");
}

#[test]
fn convert_and_back_is_the_same_trace() {
    let tpcc = format!("{TRACES}tpcc-small.trace");
    let d = tempfile::tempdir().unwrap();
    let as_disksim = d.path().join("tpcc.ascii");
    let back = d.path().join("tpcc-back.trace");
    let (code, _, err) = lagoon(&[
        "trace",
        "convert",
        &tpcc,
        "--to",
        "disksim",
        "-o",
        as_disksim.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("6999 requests from") && err.contains("as disksim"),
        "{err}"
    );
    // the DiskSim file is detected as DiskSim, and converting it back gives the file again
    let v = json(&[
        "trace",
        "stats",
        as_disksim.to_str().unwrap(),
        "--json",
        "-",
    ]);
    assert_eq!(v["format"], "disksim");
    ok(&[
        "trace",
        "convert",
        as_disksim.to_str().unwrap(),
        "--to",
        "mqsim",
        "-o",
        back.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&tpcc).unwrap());
    // to standard output; a coarser time unit is rounded and said so
    let (code, out, err) = lagoon(&["trace", "convert", &tpcc, "--to", "alibaba"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("4,W,135536145408,8192,938513"));
    assert!(
        !err.contains("rounded"),
        "tpcc's times are whole microseconds: {err}"
    );
    let (code, out, err) = lagoon(&["trace", "convert", &tpcc, "--to", "tencent"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("1,264719034,16,1,4"));
    assert!(
        err.contains("; 6999 arrival times rounded to tencent's time unit"),
        "{err}"
    );
    // a request that the target cannot hold: named, and no half-written file left
    let odd = tmp("odd.trace", "0.0 0 0 4096 1\n0.5 0 100 4096 0\n");
    let out_path = d.path().join("odd.mqsim");
    fails(
        &["trace", "convert", &odd, "--format", "msr-ms", "--to", "mqsim", "-o", out_path.to_str().unwrap()],
        &["request 2 cannot be written as mqsim: offset 100 bytes is not a whole number of 512-byte sectors"],
    );
    assert!(!out_path.exists());
}

#[test]
fn cut_by_count_and_time() {
    let tpcc = format!("{TRACES}tpcc-small.trace");
    let text = std::fs::read_to_string(&tpcc).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let out = ok(&["trace", "cut", &tpcc, "--count", "100"]);
    assert_eq!(out.lines().collect::<Vec<_>>(), lines[..100]);
    // a window: arrivals in [t0 + 10 ms, t0 + 20 ms)
    let t0: u64 = lines[0].split(' ').next().unwrap().parse().unwrap();
    let want: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            let t: u64 = l.split(' ').next().unwrap().parse().unwrap();
            t >= t0 + 10_000_000 && t < t0 + 20_000_000
        })
        .collect();
    assert!(want.len() > 100, "{}", want.len());
    let out = ok(&["trace", "cut", &tpcc, "--from", "10ms", "--to", "20ms"]);
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    fails(&["trace", "cut", &tpcc], &["--from", "--count"]);
    fails(
        &["trace", "cut", &tpcc, "--from", "10"],
        &["--from: `10` needs a time unit"],
    );
    fails(
        &["trace", "cut", &tpcc, "--from", "1000s"],
        &["no request in the window"],
    );
}

#[test]
fn fit_prints_a_workload_that_runs_and_matches() {
    let msr = format!("{TRACES}msr-cut-105.trace");
    let (code, spec, err) = lagoon(&["trace", "fit", &msr, "--check"]);
    assert_eq!(code, 0, "{err}");
    let spec = spec.trim();
    assert!(
        spec.starts_with("syn:read=20.2,size=hist:512@1972/"),
        "{spec}"
    );
    assert!(spec.contains(",arrival=gaps:0ns@3129/"), "{spec}");
    assert!(
        spec.contains(",count=10000,") && spec.contains(",runs="),
        "{spec}"
    );
    assert!(err.contains("inter-arrival CV2"), "{err}");
    // `--workload "$(lagoon trace fit x.trace)"`
    let out = ok(&["run", "--workload", spec, "--quiet"]);
    assert!(out.contains("10,000") || out.contains("10000"), "{out}");
    // a bad line is one error naming file and line
    let bad = tmp("fit-bad.trace", "0 0 0 8 1\n10 0 8 8 1\n20 0 x 8 1\n");
    fails(
        &["trace", "fit", &bad, "--format", "mqsim"],
        &["fit-bad.trace:3"],
    );
    fails(
        &["trace", "convert", &bad, "--format", "mqsim", "--to", "msr"],
        &["fit-bad.trace:3"],
    );
    fails(
        &["trace", "cut", &bad, "--format", "mqsim", "--count", "5"],
        &["fit-bad.trace:3"],
    );
}
