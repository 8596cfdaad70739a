#!/usr/bin/env python3
"""Ctrl-C on an idle `lagoon serve` (docs/ROBUSTNESS.md, "The live server").

Each trial starts `lagoon serve --ssd SSD --socket DIR/s.sock --linger never --json
DIR/r.json --quiet`, waits a random time (uniform in [0, MAX_DELAY_S] after the start, so
most signals land in the idle wait and some during the start itself), sends one SIGINT and
measures the time from the signal to the process's exit. A process still running 10 s
after its signal is a hang (then killed). Printed: the time to exit (p50, p99, max) for the
signals that landed once the socket was there (the idle server) and for those before, the
exit statuses, how many wrote their report, and the machine's load average.

Usage (from the project root, after `cargo build --release`):
    bench/serve_ctrlc.py [TRIALS] [SEED] [SSD] [MAX_DELAY_S]   (defaults 200, 1, perf-optimized, 1.0)
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

LAGOON = os.environ.get("LAGOON", "target/release/lagoon")
HANG_S = 10.0


def pct(v, p):
    v = sorted(v)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    ssd = sys.argv[3] if len(sys.argv) > 3 else "perf-optimized"
    max_delay = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    rng = random.Random(seed)
    idle, early, statuses, hangs, reports = [], [], {}, 0, 0
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        sock, rep = os.path.join(d, "s.sock"), os.path.join(d, "r.json")
        for _ in range(trials):
            for f in (sock, rep):
                if os.path.exists(f):
                    os.remove(f)
            p = subprocess.Popen(
                [LAGOON, "serve", "--ssd", ssd, "--socket", sock, "--linger", "never",
                 "--json", rep, "--quiet"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, max_delay))
            listening = os.path.exists(sock)
            t = time.perf_counter()
            p.send_signal(signal.SIGINT)
            try:
                rc = p.wait(timeout=HANG_S)
                dt = time.perf_counter() - t
                (idle if listening else early).append(dt)
            except subprocess.TimeoutExpired:
                hangs += 1
                p.kill()
                rc = "hang"
                p.wait()
            statuses[rc] = statuses.get(rc, 0) + 1
            reports += os.path.exists(rep)
    load1 = os.getloadavg()
    ms = lambda v: f"{v * 1e3:.1f} ms"
    print(f"lagoon serve --ssd {ssd}: {trials} SIGINTs, seed {seed}, delays uniform in [0, {max_delay}] s")
    for name, v in (("idle (socket there)", idle), ("during the start", early)):
        if v:
            print(f"  {name}: {len(v)} signals, time to exit p50 {ms(pct(v, 50))}, "
                  f"p99 {ms(pct(v, 99))}, max {ms(max(v))}")
    print(f"  hangs (still running {HANG_S:.0f} s after the signal): {hangs}")
    print(f"  exit statuses: {dict(sorted(statuses.items(), key=str))} (-2: killed by SIGINT before its handler was installed)")
    print(f"  reports written: {reports}")
    print(f"  load average before {load0[0]:.2f}, after {load1[0]:.2f}")
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
