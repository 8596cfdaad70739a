#!/usr/bin/env python3
"""Ctrl-C at random times on `lagoon run`, `lagoon reproduce`, the Python package and
`lagoon serve` (docs/ROBUSTNESS.md, "Issue 43: signals and memory" and "The live server").

Each trial starts one command, waits a random time (uniform in [0, MAX_DELAY_S] after the
start, so some signals land during the start itself: argument parsing, building the drive,
Python's import), sends one SIGINT as a terminal's Ctrl-C would (the child's SIGINT set to
its default first: a script started in a background job has it ignored) and measures the
time from the signal to the process's exit. A process still running 10 s after its signal is
a hang (then killed). Printed: the time to exit (p50, p99, max), the exit statuses (130:
stopped by Ctrl-C; -2: killed by SIGINT, i.e. before `main` installed its handler, or Python
ending on KeyboardInterrupt), and the machine's load average.

    run        lagoon run --workload syn:read=50,size=4k,arrival=qd:32,count=50000000 --quiet
    reproduce  lagoon reproduce piq --quick --quiet --out TMP/piq (run from the project root)
    python     PYTHON -c 'import lagoon; lagoon.run("syn:...count=50000000")', PYTHON from
               $LAGOON_PYTHON (an interpreter with the package installed); the delay starts
               once `import lagoon` is done (the child says so on stdout): a SIGINT during
               the interpreter's own start-up is CPython's, which can swallow it (a
               KeyboardInterrupt inside an import-lock callback is printed and ignored)
    serve      lagoon serve --ssd SSD --socket TMP/s.sock --linger never --json TMP/r.json
               --quiet; times split by whether the socket was there (the idle server)

Usage (from the project root, after `cargo build --release`):
    bench/ctrlc.py COMMAND [TRIALS] [SEED] [MAX_DELAY_S] [SSD]
        (defaults 200, 1; MAX_DELAY_S 3.0, serve 1.0; SSD perf-optimized, serve only)
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

LAGOON = os.environ.get("LAGOON", "target/release/lagoon")
PYTHON = os.environ.get("LAGOON_PYTHON", "target/py-venv/bin/python")
LONG = "syn:read=50,size=4k,arrival=qd:32,count=50000000"
HANG_S = 10.0


def pct(v, p):
    v = sorted(v)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def command(what, d, ssd):
    if what == "run":
        return [LAGOON, "run", "--workload", LONG, "--quiet"]
    if what == "reproduce":
        return [LAGOON, "reproduce", "piq", "--quick", "--quiet", "--out", os.path.join(d, "piq")]
    if what == "python":
        return [PYTHON, "-c", f"import lagoon; print('ready', flush=True); lagoon.run({LONG!r})"]
    if what == "serve":
        return [LAGOON, "serve", "--ssd", ssd, "--socket", os.path.join(d, "s.sock"),
                "--linger", "never", "--json", os.path.join(d, "r.json"), "--quiet"]
    sys.exit(f"unknown command {what!r}: run, reproduce, python or serve")


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    max_delay = float(sys.argv[4]) if len(sys.argv) > 4 else (1.0 if what == "serve" else 3.0)
    ssd = sys.argv[5] if len(sys.argv) > 5 else "perf-optimized"
    rng = random.Random(seed)
    ready, early, statuses, hangs, reports = [], [], {}, 0, 0
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        cmd = command(what, d, ssd)
        sock, rep = os.path.join(d, "s.sock"), os.path.join(d, "r.json")
        for _ in range(trials):
            for f in (sock, rep):
                if os.path.exists(f):
                    os.remove(f)
            p = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE if what == "python" else subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            if what == "python":
                p.stdout.readline()  # `import lagoon` done
            time.sleep(rng.uniform(0, max_delay))
            listening = what != "serve" or os.path.exists(sock)
            t = time.perf_counter()
            p.send_signal(signal.SIGINT)
            try:
                rc = p.wait(timeout=HANG_S)
                dt = time.perf_counter() - t
                (ready if listening else early).append(dt)
            except subprocess.TimeoutExpired:
                hangs += 1
                p.kill()
                rc = "hang"
                p.wait()
            statuses[rc] = statuses.get(rc, 0) + 1
            reports += os.path.exists(rep)
    load1 = os.getloadavg()
    ms = lambda v: f"{v * 1e3:.1f} ms"
    print(f"{' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd))}")
    print(f"  {trials} SIGINTs, seed {seed}, delays uniform in [0, {max_delay}] s")
    groups = (("idle (socket there)", ready), ("during the start", early)) if what == "serve" \
        else (("all", ready),)
    for name, v in groups:
        if v:
            print(f"  {name}: {len(v)} signals, time to exit p50 {ms(pct(v, 50))}, "
                  f"p99 {ms(pct(v, 99))}, max {ms(max(v))}")
    print(f"  hangs (still running {HANG_S:.0f} s after the signal): {hangs}")
    print(f"  exit statuses: {dict(sorted(statuses.items(), key=str))}")
    if what == "serve":
        print(f"  reports written: {reports}")
    print(f"  load average before {load0[0]:.2f}, after {load1[0]:.2f} ({os.cpu_count()} CPUs)")
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
