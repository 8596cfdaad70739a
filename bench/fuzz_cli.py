#!/usr/bin/env python3
"""Hostile `lagoon run` command lines, as a user would type them (docs/ROBUSTNESS.md).

Each case is one process: a preset drive, a back end (or a wrong name), a `syn:` workload
built from the grammar's keys with boundary, huge, negative, NaN, malformed and unknown
values (on a Table 2 preset or none), and random `--replay`, `--mesh`, `--host-scheduler`,
`--host-queue`, `--seed`, `--design`, `--timeline` (with `--timeline-window-ms`) and
`--repeat` values, and `--stop-at-last-completion`. A case passes when the process exits 0, or exits 1 or
2 with its error on stderr. It fails on a panic (exit 101 or "panicked"), an error exit
with nothing on stderr, or no exit within the time limit: those are printed. Requests
counts of 2^32 and more are left out of the last check (a run of that many requests is
work the user asked for, shown by the progress bar, not a hang) and reported apart.

Usage (from the project root, after `cargo build --release`):
    bench/fuzz_cli.py [CASES] [SEED] [TIMEOUT_S]     (defaults 1000, 1, 30)
"""
import random
import subprocess
import sys

LAGOON = "target/release/lagoon"
CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
TIMEOUT = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0

NUMS = ["0", "1", "-1", "3", "64", "100", "101", "50.5", "0.5", "65536", "65537",
        "4294967295", "4294967296", "18446744073709551615", "99999999999999999999",
        "1e300", "1e-300", "nan", "inf", "-inf", "", "x"]
SIZES = ["4k", "0", "511", "512", "1k", "4K", "4kib", "8kb", "4g", "16t", "1e3k",
         "99999999999t", "uniform:4k-64k", "uniform:64k-4k", "uniform:0-4k", "uniform:4k",
         "uniform:512-513", "choice:4k@70/16k@30", "choice:4k@0", "choice:4k@-1/8k@1",
         "choice:", "hist:4k@4381/8k@1200", "hist:4k@0", "hist:"]
ADDRS = ["uniform", "hotcold", "hotcold:80/20", "hotcold:0/0", "hotcold:100/100",
         "hotcold:101/20", "hotcold:80/0", "hotcold:nan/20", "seq", "zipf", ""]
TIMES = ["1us", "0ns", "0.5us", "-1us", "1e300s", "nan us", "1", "0s",
         "18446744073709551615ns", "1.5ms", "0.000001ns"]
ARRIVALS = (["poisson:" + t for t in TIMES] + ["fixed:" + t for t in TIMES]
            + ["bursty:%s/%s" % (t, b) for t in TIMES[:4]
               for b in ["4", "1", "0", "0.5", "nan", "1e300"]]
            + ["qd:" + n for n in NUMS]
            + ["gaps:0ns@3129/2us@15", "gaps:", "gaps:1us@0", "gaps:1us@18446744073709551615"])
COUNTS = ["1", "10", "100", "300", "0", "-5", "1e3", "4294967296", "18446744073709551615"]
KEYS = {"read": NUMS, "size": SIZES, "addr": ADDRS, "align": SIZES[:12],
        "arrival": ARRIVALS, "count": COUNTS, "span": SIZES[:12] + ["1t"],
        "runs": ["0@812/1@330", "", "1@0", "x@1", "0@18446744073709551615"],
        "seed": NUMS, "bogus": NUMS}
PRESETS = ["", "hm_0", "ssd-00", "YCSB_B", "mix1", "mix6", "nosuch"]
SSDS = ["perf-optimized", "cost-optimized", "dssd-ull", "mqsimnet", "piq-ssdsim"]
ARCHS = ["baseline", "ideal", "pssd", "pnssd", "nossd", "venice", "net", "bogus"]
REPLAYS = [None, "timed", "timed:0", "timed:-1", "timed:nan", "timed:1e300", "timed:0.001",
           "closed:8", "closed:0", "closed:65537", "closed:x"]
WINDOWS = ["1", "0.001", "0.0009", "0", "-1", "1e6", "1e7", "nan", "inf", "x", "1e-300"]
TIMELINE = "/tmp/lagoon-fuzz-timeline.csv"
MESHES = [None, "8x8", "4x16", "16x4", "2x2", "3x5", "1x64", "64x1", "0x0", "1000000x1",
          "8x8x8", "x"]


def case(rng):
    parts = [p for p in [rng.choice(PRESETS)] if p]
    for k in rng.sample(sorted(KEYS), rng.randint(0, 4)):
        parts.append("%s=%s" % (k, rng.choice(KEYS[k])))
    if not any(p.startswith("count=") for p in parts) and rng.random() < 0.9:
        parts.append("count=" + rng.choice(["10", "100", "300"]))
    args = [LAGOON, "run", "--ssd", rng.choice(SSDS), "--arch", rng.choice(ARCHS),
            "--workload", "syn:" + ",".join(parts), "--quiet", "--json", "/dev/null"]
    for flag, values in (("--replay", REPLAYS), ("--mesh", MESHES)):
        v = rng.choice(values)
        if v:
            args += [flag, v]
    if rng.random() < 0.2:
        args += ["--host-scheduler", rng.choice(["piq", "noop", "rws", "bogus"]),
                 "--host-queue", rng.choice(["0", "1", "64", "4294967296"])]
    if rng.random() < 0.1:
        args += ["--seed", rng.choice(NUMS)]
    if rng.random() < 0.2:
        args += ["--design", rng.choice(["baseline", "bw", "dssd", "dssd_b", "dssd_f", "x"])]
    if rng.random() < 0.2:
        args += ["--timeline", TIMELINE,
                 "--timeline-window-ms", rng.choice(WINDOWS)]
    if rng.random() < 0.1:
        args += ["--repeat", rng.choice(["0", "1", "3", "4294967296", "-1", "x"])]
    if rng.random() < 0.2:
        args += ["--stop-at-last-completion"]
    return args


def main():
    rng = random.Random(SEED)
    failures, long_runs, exits = [], 0, {}
    for _ in range(CASES):
        args = case(rng)
        cmd = " ".join(args[1:])
        huge = any(("count=" + c) in cmd for c in ("4294967296", "18446744073709551615")) \
            or "--repeat 4294967296" in cmd
        try:
            out = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            if huge:
                long_runs += 1
            else:
                failures.append(("no exit in %.0f s" % TIMEOUT, cmd, ""))
            continue
        exits[out.returncode] = exits.get(out.returncode, 0) + 1
        err = out.stderr
        if out.returncode not in (0, 1, 2) or "panicked" in err:
            failures.append(("panic (exit %d)" % out.returncode, cmd, err[-400:]))
        elif out.returncode != 0 and not err.strip():
            failures.append(("error exit %d with no message" % out.returncode, cmd, ""))
    for why, cmd, err in failures:
        print("FAIL %s: lagoon %s\n%s" % (why, cmd, err))
    print("%d cases (seed %d): exits %s; %d runs of 2^32 or more requests stopped at %.0f s; "
          "%d failures" % (CASES, SEED, dict(sorted(exits.items())), long_runs, TIMEOUT,
                           len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
