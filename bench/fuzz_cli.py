#!/usr/bin/env python3
"""Hostile `lagoon` command lines, as a user would type them (docs/ROBUSTNESS.md).

Surfaces: `run` (below), and with SURFACE = net, lifetime, import, reproduce or all: `lagoon
net` (loads over 20 decades, windows, patterns, the network of any preset), `lagoon
lifetime` (wear and spec values), `lagoon import mqsim` (mutated MQSim files: hostile
numbers, nesting, cuts), and `lagoon reproduce` paths and counts (--out, --notes, --traces,
--requests, --seeds, --jobs; every case that would simulate is cut to one seed and few
requests or refused before simulating). A case drawn from values outside a flag's declared
range must exit non-zero. Every process runs under a 6 GB address-space limit (over it is
a crash) and must not print "internal error" (a report failing lagoon_cli::invariants).

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
    bench/fuzz_cli.py [CASES] [SEED] [TIMEOUT_S] [SURFACE]  (defaults 1000, 1, 30, run)
"""
import os
import random
import resource
import subprocess
import sys
import tempfile

LAGOON = "target/release/lagoon"
CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
TIMEOUT = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
SURFACE = sys.argv[4] if len(sys.argv) > 4 else "run"
MEMORY_LIMIT = 6 << 30
TMP = tempfile.mkdtemp(prefix="lagoon-fuzz-")

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


LOADS = ["1", "0.5", "0.05", "0.01", "1e-3", "1e-9", "1e-15", "1e-300", "0", "-0.1",
         "1.5", "nan", "inf", "x", "", "0.2,0.3"]
BAD_LOADS = {"0", "-0.1", "1.5", "nan", "inf", "x", ""}
CYCLES = ["0", "1", "100", "10000", "1e3", "-1", "18446744073709551615", "x"]


def net_case(rng):
    """`lagoon net`; (args, must fail)."""
    load = rng.choice(LOADS)
    args = [LAGOON, "net", "--ssd", rng.choice(SSDS + ["nosuch"]), "--load", load,
            "--traffic", rng.choice(["uniform", "transpose", "bitcomp", "hotspot", "neighbor",
                                     "bogus"])]
    bad = load in BAD_LOADS or "nosuch" in args or "bogus" in args
    for flag in ("--warmup-cycles", "--sample-cycles", "--drain-cycles"):
        if rng.random() < 0.3:
            v = rng.choice(CYCLES)
            args += [flag, v]
            bad |= v in ("-1", "x") or (flag == "--sample-cycles" and v == "0")
    if rng.random() < 0.3:
        v = rng.choice(["0", "1", "5", "65534", "70000", "-1"])
        args += ["--max-samples", v]
        bad |= v in ("0", "-1", "65534", "70000")
    if rng.random() < 0.3:
        v = rng.choice(["0", "1", "100", "x"])
        args += ["--min-packets", v]
        bad |= v in ("0", "x")
    if rng.random() < 0.2:
        v = rng.choice(["0", "1", "0.05", "nan", "-1"])
        args += ["--converge", v]
        bad |= v in ("0", "1", "nan", "-1")
    args += ["--json", os.path.join(TMP, "net.json")]
    return args, bad


TINY = os.path.join(TMP, "tiny.toml")
with open(TINY, "w") as f:
    # The tests' tiny superblock drive: a lifetime in milliseconds.
    f.write('base = "dssd-superblock"\n[flash]\nchannels = 2\nchips_per_channel = 1\n'
            'dies_per_chip = 1\nblocks_per_plane = 48\npages_per_block = 8\n'
            '[ftl]\ngc_threshold = 0.05\n')


def lifetime_case(rng):
    args = [LAGOON, "lifetime", "--quiet", "--ssd", TINY, "--pe-mean",
            rng.choice(["20", "60", "0", "-5", "nan", "1e300", "x"])]
    bad = args[-1] in ("0", "-5", "nan", "1e300", "x")
    for flag, vals, bads in (
        ("--sigma", ["0", "5", "-1", "nan", "1e9"], {"-1", "nan", "1e9"}),
        ("--request-kib", ["16", "128", "1", "0", "1048577", "18014398509481984", "x"],
         {"0", "1048577", "18014398509481984", "x"}),
        ("--utilization", ["0.5", "0.9", "0", "1", "nan", "-1"], {"0", "1", "nan", "-1"}),
        ("--stop-bad-fraction", ["0.1", "1", "0", "2", "nan"], {"0", "2", "nan"}),
        ("--mode", ["baseline", "recycled", "reserv", "bogus"], {"bogus"}),
        ("--srt-entries", ["0", "8", "4294967296", "x"], {"4294967296", "x"}),
        ("--reserve", ["0.07", "0", "1", "-0.1", "nan"], {"1", "-0.1", "nan"}),
    ):
        if rng.random() < 0.3:
            v = rng.choice(vals)
            args += [flag, v]
            bad |= v in bads
    args += ["--json", os.path.join(TMP, "life.json")]
    return args, bad


MQSIM = "../shared/validation/mqsim/"
HOSTILE = ["NaN", "inf", "-inf", "1e309", "99999999999999999999", "18446744073709551615",
           "-1", "0", "", "x", "1.5", "1e-300"]
NON_FINITE = {"NaN", "inf", "-inf", "1e309", "99999999999999999999", "18446744073709551615"}


def import_case(rng):
    """`lagoon import mqsim` on a mutated copy of the shared files; (args, values that must
    not import unless their parameter is listed as not modelled)."""
    name = rng.choice(["ssdconfig-perf-optimized.xml", "ssdconfig-cost-optimized.xml"])
    text = open(MQSIM + name).read()
    planted = []
    for _ in range(rng.randint(1, 3)):
        leaves = [i for i in range(len(text)) if text.startswith("<", i)
                  and not text.startswith("</", i) and not text.startswith("<?", i)]
        i = rng.choice(leaves)
        gt = text.find(">", i)
        tag = text[i + 1:gt]
        end = text.find("</%s>" % tag, gt)
        if end < 0 or "<" in text[gt + 1:end]:
            continue
        v = rng.choice(HOSTILE + ["<a>" * 100 + "</a>" * 100])
        try:
            numeric = float(text[gt + 1:end].strip()) is not None
        except ValueError:
            numeric = False  # a path or a word: "NaN" there is text
        if v in NON_FINITE and numeric:
            planted.append(tag)
        text = text[:gt + 1] + v + text[end:]
    if rng.random() < 0.05:
        text = "<a>" * rng.choice([65, 1000, 100000]) + text
    if rng.random() < 0.05:
        text = text[: rng.randint(0, len(text))]
    path = os.path.join(TMP, "ssdconfig.xml")
    with open(path, "w") as f:
        f.write(text)
    args = [LAGOON, "import", "mqsim", path]
    if rng.random() < 0.5:
        args.append(MQSIM + "workload-tpcc.xml")
    return args, planted


def reproduce_case(rng):
    """`lagoon reproduce` arguments: paths and counts; the cases that would simulate are
    kept small (one seed, few requests, a tiny drive where there is one)."""
    paper = rng.choice(["venice", "piq", "mqsimnet", "dssd", "superblocks", "nopaper"])
    out = rng.choice([os.path.join(TMP, "out"), os.path.join(TMP, "no/such/dir/out"), TMP,
                      "/dev/null", os.path.join(TMP, "file.txt"), "-"])
    open(os.path.join(TMP, "file.txt"), "w").write("x")
    args = [LAGOON, "reproduce", paper, "--quiet", "--out", out]
    # A missing parent is created (as results/ for the default --out); TMP itself holds
    # other files (not a reproduction's output), /dev/null and file.txt are not directories.
    bad = paper == "nopaper" or out in (TMP, "/dev/null", os.path.join(TMP, "file.txt"), "-")
    notes = rng.choice([None, os.path.join(TMP, "notes.md"), os.path.join(TMP, "big.md"),
                        "/no/such/notes.md", TMP])
    open(os.path.join(TMP, "notes.md"), "w").write("# notes\n")
    if not os.path.exists(os.path.join(TMP, "big.md")):
        open(os.path.join(TMP, "big.md"), "w").write("x" * ((1 << 20) + 1))
    if notes:
        args += ["--notes", notes]
        bad |= notes != os.path.join(TMP, "notes.md")
    if rng.random() < 0.3:
        t = rng.choice(["/no/such/traces", TMP, "../shared/traces"])
        args += ["--traces", t]
        bad |= t == "/no/such/traces"
    for flag, vals, bads in (("--requests", ["0", "-1", "x", "50"], {"0", "-1", "x"}),
                             ("--seeds", ["0", "101", "1", "x"], {"0", "101", "x"}),
                             ("--jobs", ["0", "1", "-2"], {"0", "-2"})):
        if rng.random() < 0.3:
            v = rng.choice(vals)
            args += [flag, v]
            bad |= v in bads
    if rng.random() < 0.2:
        args += ["--render-only"]
    # Never a full reproduction: one seed, few requests, and the tiny drive where it exists.
    if not bad and "--render-only" not in args:
        args += ["--seeds", "1", "--requests", "30", "--quick"]
        if paper in ("dssd", "superblocks"):
            args += ["--tiny-drive"]
    return args, bad


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def main():
    rng = random.Random(SEED)
    failures, long_runs, exits = [], 0, {}
    surfaces = ["run", "net", "lifetime", "import", "reproduce"] if SURFACE == "all" else [SURFACE]
    for _ in range(CASES):
        surface = rng.choice(surfaces)
        must_fail, planted = False, []
        if surface == "run":
            args = case(rng)
        elif surface == "net":
            args, must_fail = net_case(rng)
        elif surface == "lifetime":
            args, must_fail = lifetime_case(rng)
        elif surface == "import":
            args, planted = import_case(rng)
        else:
            args, must_fail = reproduce_case(rng)
        cmd = " ".join(args[1:])
        huge = any(("count=" + c) in cmd for c in ("4294967296", "18446744073709551615")) \
            or "--repeat 4294967296" in cmd
        try:
            out = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT,
                                 preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            if huge:
                long_runs += 1
            else:
                failures.append(("no exit in %.0f s" % TIMEOUT, cmd, ""))
            continue
        exits[out.returncode] = exits.get(out.returncode, 0) + 1
        err = out.stderr
        if out.returncode not in (0, 1, 2) or "panicked" in err:
            failures.append(("crash or panic (exit %d)" % out.returncode, cmd, err[-400:]))
        elif out.returncode != 0 and not err.strip():
            failures.append(("error exit %d with no message" % out.returncode, cmd, ""))
        elif "internal error" in err:
            failures.append(("a report failing the invariants", cmd, err[-400:]))
        elif must_fail and out.returncode == 0:
            failures.append(("exit 0 on a value outside its range", cmd, ""))
        elif planted and out.returncode == 0:
            # A non-finite value imports only on a parameter listed as not modelled.
            used = [t for t in planted if ("#   %s = " % t) not in out.stdout]
            if used:
                failures.append(("non-finite MQSim value imported", cmd, str(used)))
    for why, cmd, err in failures:
        print("FAIL %s: lagoon %s\n%s" % (why, cmd, err))
    print("%d cases (seed %d, surface %s): exits %s; %d runs of 2^32 or more requests stopped "
          "at %.0f s; %d failures" % (CASES, SEED, SURFACE, dict(sorted(exits.items())),
                                      long_runs, TIMEOUT, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
