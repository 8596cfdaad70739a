//! Issue 32's examples, one regression test each: hostile input is one clear error (exit 2,
//! naming the file, flag or key), bad paths are refused before the first simulation, Ctrl-C
//! stops within a second and leaves nothing that looks complete, and a load too light to
//! measure is flagged rather than reported as nonsense.

mod common;
use common::{lagoon, lagoon_env, tmp};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A workload long enough that a test would notice if it ran (minutes).
const LONG: &str = "syn:read=50,size=4k,arrival=qd:32,count=50000000";

fn assert_error(r: (i32, String, String), needle: &str) {
    let (code, out, err) = r;
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
}

/// Fails fast: the error comes before any simulation of a minutes-long workload.
fn assert_fast_error(args: &[&str], needle: &str) {
    let t = Instant::now();
    assert_error(lagoon(args), needle);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "{args:?} took {:?}",
        t.elapsed()
    );
}

#[test]
fn deeply_nested_xml_is_refused_not_a_stack_overflow() {
    let deep = format!(
        "<?xml version=\"1.0\"?>{}{}",
        "<a>".repeat(100_000),
        "</a>".repeat(100_000)
    );
    let f = tmp("deep.xml", &deep);
    assert_error(lagoon(&["import", "mqsim", &f]), "nested more than 64 deep");
}

#[test]
fn mqsim_numbers_out_of_range_or_nan_are_named() {
    let Ok(cfg) = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/validation/mqsim/ssdconfig-perf-optimized.xml"
    )) else {
        eprintln!("../shared/validation is absent: skipped");
        return;
    };
    let set = |v: &str| {
        let start = cfg.find("<Flash_Channel_Count>").unwrap();
        let end = cfg.find("</Flash_Channel_Count>").unwrap();
        format!("{}<Flash_Channel_Count>{v}{}", &cfg[..start], &cfg[end..])
    };
    for (v, needle) in [
        (
            "99999999999999999999",
            "Flash_Channel_Count = '99999999999999999999' is out of range",
        ),
        ("NaN", "Flash_Channel_Count = 'NaN' is not a finite number"),
        ("inf", "Flash_Channel_Count = 'inf' is not a finite number"),
        (
            "-3",
            "Flash_Channel_Count = '-3' is not a number of its type",
        ),
    ] {
        let f = tmp("ssdconfig.xml", &set(v));
        assert_error(lagoon(&["import", "mqsim", &f]), needle);
    }
}

#[test]
fn lifetime_request_size_cannot_overflow() {
    assert_error(
        lagoon(&["lifetime", "--request-kib", "18014398509481984"]),
        "--request-kib",
    );
}

#[test]
fn a_write_error_fails_the_command() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let trace = tmp("t.trace", &"0 0 0 8 1\n".repeat(20_000));
    assert_error(
        lagoon(&["trace", "convert", &trace, "--to", "msr", "-o", "/dev/full"]),
        "No space left on device",
    );
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::metadata("/dev/full").unwrap();
    assert!(m.file_type().is_char_device(), "a device is never replaced");
    // Standard output too.
    let out = Command::new(env!("CARGO_BIN_EXE_lagoon"))
        .args(["trace", "convert", &trace, "--to", "msr"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_output_path_is_checked_before_the_first_simulation() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("no/such/dir/x");
    let m = missing.to_str().unwrap();
    for (flag, needle) in [
        ("--json", "does not exist"),
        ("--cdf", "does not exist"),
        ("--timeline", "does not exist"),
    ] {
        assert_fast_error(&["run", "--workload", LONG, flag, m], needle);
    }
    // --heatmap on a back end without a mesh, and on a bad path.
    assert_fast_error(
        &["run", "--workload", LONG, "--heatmap", "h.svg"],
        "has no per-link mesh utilization",
    );
    assert_fast_error(
        &[
            "run",
            "--arch",
            "venice",
            "--workload",
            LONG,
            "--heatmap",
            m,
        ],
        "does not exist",
    );
    // A directory where a file is asked for.
    assert_fast_error(
        &[
            "run",
            "--workload",
            LONG,
            "--json",
            d.path().to_str().unwrap(),
        ],
        "is a directory",
    );
    // Two outputs on standard output.
    assert_fast_error(
        &["run", "--workload", LONG, "--json", "-", "--cdf", "-"],
        "all name standard output",
    );
    // reproduce: --out, --notes and --traces before any run.
    let notes = tmp("big.md", &"x".repeat((1 << 20) + 1));
    assert_fast_error(
        &[
            "reproduce",
            "venice",
            "--notes",
            &notes,
            "--out",
            d.path().join("o").to_str().unwrap(),
        ],
        "more than the 1048576 a notes file may have",
    );
    assert_fast_error(
        &[
            "reproduce",
            "venice",
            "--notes",
            m,
            "--out",
            d.path().join("o").to_str().unwrap(),
        ],
        "--notes",
    );
    assert_fast_error(
        &[
            "reproduce",
            "piq",
            "--traces",
            m,
            "--out",
            d.path().join("o").to_str().unwrap(),
        ],
        "no such directory",
    );
    let other = d.path().join("mine");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("thesis.tex"), "keep me").unwrap();
    assert_fast_error(
        &["reproduce", "venice", "--out", other.to_str().unwrap()],
        "is not a reproduction's output",
    );
    assert_eq!(std::fs::read(other.join("thesis.tex")).unwrap(), b"keep me");
    assert_fast_error(
        &[
            "reproduce",
            "venice",
            "--render-only",
            "--out",
            other.to_str().unwrap(),
        ],
        "holds no reproduction",
    );
    assert_fast_error(&["net", "--load", "0.1", "--plot", m], "does not exist");
    assert_fast_error(
        &["lifetime", "--curve", m, "--pe-mean", "5000"],
        "does not exist",
    );
}

#[test]
fn negative_numbers_as_flag_values_are_named() {
    assert_error(
        lagoon(&["run", "--workload", "syn:hm_0", "--mesh", "-4x16"]),
        "mesh '-4x16': expected ROWSxCOLS, two positive whole numbers",
    );
    assert_error(
        lagoon(&["compare", "--workload", "syn:hm_0", "--mesh", "-4x16"]),
        "mesh '-4x16'",
    );
    assert_error(
        lagoon(&["net", "--load", "-0.5"]),
        "--load -0.5: an offered load is in (0, 1]",
    );
    let (code, _, err) = lagoon(&["run", "--workload", "syn:hm_0", "--seed", "-3"]);
    assert_eq!(code, 2);
    assert!(err.contains("'-3'") || err.contains("-3"), "{err}");
}

/// The flows a run holds count in the memory budget: with the limit set low, 200 `--workload`
/// flags of more requests than a flow keeps as values (each then holds histograms) are
/// refused naming the flows and what to change.
#[test]
fn flows_count_in_the_memory_budget() {
    let mut args = vec!["run".to_string()];
    for _ in 0..200 {
        args.extend([
            "--workload".into(),
            "syn:read=100,size=4k,count=100000".to_string(),
        ]);
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = lagoon_env(&a, &[("LAGOON_MAX_STATE_GB", "0.1")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("200 flows (--workload") && err.contains("give fewer --workload flows"),
        "{err}"
    );
}

#[test]
fn standard_output_wherever_a_path_is_taken() {
    let (code, out, err) = lagoon(&[
        "run",
        "--workload",
        "syn:read=100,size=4k,count=300",
        "--cdf",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("class,latency_ns,cumulative_fraction\n"),
        "{out}"
    );
    assert!(
        !out.contains("Lagoon run:"),
        "the summary stays off standard output"
    );
    let trace = tmp("t.trace", "0 0 0 8 1\n10 0 8 8 0\n");
    let (code, out, _) = lagoon(&["trace", "convert", &trace, "--to", "msr", "-o", "-"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2, "{out}");
    let (code, out, _) = lagoon(&["lifetime", "--pe-mean", "40", "--curve", "-", "--quiet"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("bad_superblocks,host_tb,remaps\n"), "{out}");
}

#[test]
fn the_text_report_has_a_line_per_flow() {
    let (code, out, err) = lagoon(&[
        "run",
        "--workload",
        "syn:read=100,size=4k,count=400",
        "--workload",
        "syn:read=0,size=8k,count=200",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let flows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("flows "))
        .skip(1)
        .collect();
    assert_eq!(flows.len(), 2, "{out}");
    assert!(
        flows[0].contains(" 400 ") && flows[1].contains(" 200 "),
        "{out}"
    );
}

/// Off a terminal, progress is plain lines (every LAGOON_PROGRESS_EVERY_S seconds).
#[test]
fn progress_off_a_terminal_is_plain_lines() {
    let (code, _, err) = lagoon_env(
        &[
            "run",
            "--workload",
            "syn:read=100,size=4k,arrival=qd:16,count=200000",
        ],
        &[("LAGOON_PROGRESS_EVERY_S", "0")],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.ends_with(" requests")).collect();
    assert!(!lines.is_empty(), "{err}");
    assert!(
        lines[0].starts_with('[') && lines[0].contains(" s] "),
        "{err}"
    );
}

/// `lagoon net --load 1e-15` reported accepted 0.32 and saturated, `--load 0.01` measured 28
/// packets and called the network saturated: both are now flagged as too light to measure
/// in the default windows (exit 0: a valid load), and never called saturated. What such a
/// point did not measure is null in JSON, never 0 (issue 42: latency 0.0 read as measured).
#[test]
fn net_loads_too_light_to_measure_are_flagged() {
    let (code, out, err) = lagoon(&["net", "--load", "1e-15,0.01", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for p in v["points"].as_array().unwrap() {
        assert!(
            p["unmeasured"]
                .as_str()
                .unwrap()
                .starts_with("too light to measure"),
            "{p}"
        );
        for k in [
            "generated_load",
            "accepted_load",
            "latency_cycles",
            "hops_mean",
            "saturated",
            "converged",
        ] {
            assert!(p[k].is_null(), "{k}: {p}");
        }
        assert_eq!(p["packets_measured"], 0);
    }
    let (code, out, _) = lagoon(&["net", "--load", "0.01"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("too light to measure") && !out.contains("saturated  "),
        "{out}"
    );
}

/// Accepted never exceeds generated by more than the backlog at the start of sampling (flit
/// conservation), measured points have the minimum packets, and a saturating load is called
/// saturated.
#[test]
fn net_points_obey_conservation_and_saturate_by_definition() {
    let (code, out, err) = lagoon(&["net", "--load", "0.05,0.2,0.9", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pts = v["points"].as_array().unwrap();
    for p in pts {
        let f = |k: &str| p[k].as_f64().unwrap();
        assert!(p["unmeasured"].is_null(), "{p}");
        assert!(f("packets_measured") >= 1000.0, "{p}");
        let cells = 64.0 * f("samples") * v["windows"]["sample_cycles"].as_f64().unwrap();
        assert!(
            f("accepted_load") <= f("generated_load") + f("backlog_flits_start") / cells + 1e-12,
            "{p}"
        );
    }
    assert_eq!(pts[0]["saturated"], false, "{}", pts[0]);
    assert_eq!(pts[2]["saturated"], true, "{}", pts[2]);
}

/// Ctrl-C: `run` finishes with its report marked interrupted (exit 130, within a second);
/// `reproduce` stops, leaves no partial directory and the previous results as they were.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_within_a_second_and_leaves_nothing_half_written() {
    let d = tempfile::tempdir().unwrap();
    let sigint = |c: &mut Command, wait: Duration| {
        // The signal as a terminal sends it (the harness may run with SIGINT ignored).
        let mut child = common::with_sigint(c)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(wait);
        let t = Instant::now();
        unsafe {
            libc::kill(child.id() as i32, libc::SIGINT);
        }
        let status = common::wait_at_most(&mut child, Duration::from_secs(20));
        let took = t.elapsed();
        let mut err = Vec::new();
        std::io::Read::read_to_end(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let status = status.unwrap_or_else(|| {
            panic!(
                "still running 20 s after SIGINT: {}",
                String::from_utf8_lossy(&err)
            )
        });
        (
            std::process::Output {
                status,
                stdout: Vec::new(),
                stderr: err,
            },
            took,
        )
    };
    let json = d.path().join("r.json");
    let (out, took) = sigint(
        Command::new(env!("CARGO_BIN_EXE_lagoon"))
            .args(["run", "--workload", LONG, "--quiet", "--json"])
            .arg(&json),
        Duration::from_millis(1500),
    );
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["provenance"]["interrupted"], true);
    assert!(v["requests"].as_u64().unwrap() < 50_000_000);
    // A reproduction over a previous one: stopped, the previous files stay, no temporary.
    let results = d.path().join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("summary.md"), "previous").unwrap();
    std::fs::write(results.join("runs.csv"), "previous").unwrap();
    let (out, took) = sigint(
        Command::new(env!("CARGO_BIN_EXE_lagoon"))
            .args(["reproduce", "venice", "--quiet", "--out"])
            .arg(&results),
        Duration::from_millis(1500),
    );
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(
        std::fs::read(results.join("summary.md")).unwrap(),
        b"previous"
    );
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.iter().all(|n| !n.contains("partial")), "{left:?}");
}

/// Ctrl-C at the earliest moments of a command: right after the spawn and a few
/// milliseconds in (argument parsing, building the drive, the steady preconditioning's
/// warm-up, the first events), on `run` and on `reproduce`. Each ends within two seconds
/// of its signal (`reproduce`: 15, see below), stopped by it: status 130, or killed by
/// SIGINT itself when the signal came before `main` installed its handler (what a shell
/// reports as 130 too).
#[cfg(unix)]
#[test]
fn ctrl_c_at_the_earliest_moments_ends_the_command() {
    use std::os::unix::process::ExitStatusExt;
    let steady = tmp(
        "steady.toml",
        "base = \"perf-optimized\"\n[precondition]\nmode = \"steady\"\nwarmup_overwrites = 100.0\n",
    );
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("venice");
    let commands: [Vec<&str>; 3] = [
        vec!["run", "--workload", LONG, "--quiet"],
        vec!["run", "--ssd", &steady, "--workload", LONG, "--quiet"],
        vec![
            "reproduce",
            "venice",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    ];
    for args in &commands {
        for delay_ms in [0, 0, 1, 2, 5, 10, 20, 50, 100, 300] {
            let mut child = common::with_sigint(
                Command::new(env!("CARGO_BIN_EXE_lagoon"))
                    .args(args)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped()),
            )
            .spawn()
            .unwrap();
            std::thread::sleep(Duration::from_millis(delay_ms));
            let t = Instant::now();
            unsafe {
                libc::kill(child.id() as i32, libc::SIGINT);
            }
            let status = common::wait_at_most(&mut child, Duration::from_secs(20));
            let took = t.elapsed();
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            let status = status.unwrap_or_else(|| {
                panic!("{args:?} after {delay_ms} ms: still running 20 s after SIGINT; {err}")
            });
            assert!(
                status.code() == Some(130) || status.signal() == Some(libc::SIGINT),
                "{args:?}, SIGINT after {delay_ms} ms: {status:?}: {err}"
            );
            // `reproduce` looks at the flag while it builds and checks its jobs too
            // (interrupt::check), so one bound holds for every command.
            let bound = Duration::from_secs(2);
            assert!(
                took < bound,
                "{args:?}, SIGINT after {delay_ms} ms: exit {took:?} after it"
            );
            assert!(
                !out.exists(),
                "an interrupted reproduction left {}",
                out.display()
            );
        }
    }
}

/// A `lagoon` whose parent started it with SIGINT ignored (a background job of a shell
/// script) keeps ignoring it, as POSIX expects: the terminal's Ctrl-C is for the foreground.
#[cfg(unix)]
#[test]
fn a_sigint_ignored_by_the_parent_stays_ignored() {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lagoon"));
    cmd.args(["run", "--workload", LONG, "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: one async-signal-safe call between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = common::wait_at_most(&mut child, Duration::from_millis(800));
    assert!(status.is_none(), "ended by an ignored SIGINT: {status:?}");
}

/// `lagoon args` under an address-space limit of `bytes` (`ulimit -v`): exit code, stdout,
/// stderr.
#[cfg(unix)]
fn lagoon_under_rlimit_as(args: &[String], bytes: u64) -> (Option<i32>, String, String) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lagoon"));
    // From the project root, where reproductions find ../shared/traces.
    cmd.args(args)
        .env_remove("LAGOON_MAX_STATE_GB")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    // SAFETY: one async-signal-safe call between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Issue 43: 3,000 one-request flows took 1.37 GB and died under `ulimit -v 1048576` with
/// "memory allocation of ... bytes failed". Each flow now holds what its requests need: they
/// run in that limit. 3,000 flows of 5,000 requests each (their histograms about 1.7 GB) are
/// refused before the run, naming the limit, instead of aborting.
#[cfg(unix)]
#[test]
fn thousands_of_flows_run_or_are_refused_within_the_address_space_limit() {
    let flows = |spec: &str| -> Vec<String> {
        let mut a = vec!["run".to_string(), "--quiet".into()];
        for _ in 0..3000 {
            a.extend(["--workload".to_string(), spec.to_string()]);
        }
        a
    };
    let (code, out, err) = lagoon_under_rlimit_as(&flows("syn:read=100,size=4k,count=1"), 1 << 30);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("requests     3000 "), "{out}");
    let (code, _, err) = lagoon_under_rlimit_as(&flows("syn:read=100,size=4k,count=5000"), 1 << 30);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("3000 flows (--workload")
            && err.contains("the address-space limit (RLIMIT_AS, ulimit -v)")
            && !err.contains("memory allocation"),
        "{err}"
    );
}

/// An explicit `--jobs` follows the memory rule the default does: under an address-space
/// limit that holds a few runs (each thread's stack and malloc arena count against it), a
/// reproduction asked for 1,000 at once runs fewer, saying so in one line, and completes.
#[cfg(unix)]
#[test]
fn an_explicit_jobs_is_capped_by_the_memory_limits() {
    let d = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "reproduce",
        "piq",
        "--quick",
        "--quiet",
        "--jobs",
        "1000",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([d.path().join("piq").to_string_lossy().into_owned()])
    .collect();
    let (code, _, err) = lagoon_under_rlimit_as(&args, 3 << 30);
    assert_eq!(code, Some(0), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("--jobs 1000:")).collect();
    assert!(!notes.is_empty(), "{err}");
    assert!(
        notes[0].contains("runs at once fit in memory") && notes[0].contains("RLIMIT_AS"),
        "{err}"
    );
}
