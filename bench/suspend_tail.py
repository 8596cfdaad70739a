#!/usr/bin/env python3
"""Issue 35: the read tail program/erase suspension buys (docs/MODEL.md, "Program/erase
suspend"). Venice Table 1's cost-optimized TLC drive (tR 45 us, tPROG 650 us, tBERS 3.5 ms)
shrunk to 64 blocks per plane and aged (every block full: GC from the first write), under
`syn:read=70,size=4k,arrival=qd:16`, for each suspend mode and 5 seeds: read p99 and p99.9
with a Student-t 95 % interval over the seeds, and the suspension counters.

Usage (from the project root): python3 bench/suspend_tail.py [--requests N] [--seeds K] [--out F.json]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

T95 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}

ap = argparse.ArgumentParser()
ap.add_argument("--requests", type=int, default=20000)
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--lagoon", default="./target/release/lagoon")
ap.add_argument("--out")
ap.add_argument("--no-cache", action="store_true",
                help="write cache off: writes reach the flash as they come (no 256 MB backlog)")
a = ap.parse_args()

def drive(mode):
    cache = "[cache]\nenabled = false\n" if a.no_cache else ""
    return f"""base = "cost-optimized"
name = "cost-optimized-small-aged-{mode}"
[flash]
blocks_per_plane = 64
suspend = "{mode}"
[precondition]
mode = "aged"
{cache}"""

def ci(xs):
    m = statistics.mean(xs)
    if len(xs) < 2:
        return m, (m, m)
    h = T95.get(len(xs), 1.96) * statistics.stdev(xs) / len(xs) ** 0.5
    return m, (m - h, m + h)

rows = []
with tempfile.TemporaryDirectory() as tmp:
    for mode in ["off", "erase", "program-erase"]:
        path = os.path.join(tmp, f"{mode}.toml")
        open(path, "w").write(drive(mode))
        runs = []
        for seed in range(1, a.seeds + 1):
            out = subprocess.run(
                [a.lagoon, "run", "--ssd", path, "--arch", "baseline", "--seed", str(seed),
                 "--workload", f"syn:read=70,size=4k,arrival=qd:16,count={a.requests}",
                 "--quiet", "--json", "-"], check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out))
        r = lambda k: [d["read_latency_ns"][k] / 1e3 for d in runs]
        f = lambda k: [d["flash"].get(k, 0) for d in runs]
        row = {"suspend": mode, "seeds": a.seeds, "requests": a.requests, "cache": not a.no_cache}
        for k in ["mean", "p99", "p999"]:
            m, (lo, hi) = ci(r(k))
            row[f"read_{k}_us"] = {"mean": m, "ci95": [lo, hi]}
        m, (lo, hi) = ci([d["write_latency_ns"]["mean"] / 1e3 for d in runs])
        row["write_mean_us"] = {"mean": m, "ci95": [lo, hi]}
        m, (lo, hi) = ci([d["iops"] for d in runs])
        row["iops"] = {"mean": m, "ci95": [lo, hi]}
        for k in ["suspensions", "reads_during_suspend", "suspended_ns"]:
            row[k] = statistics.mean(f(k))
        row["erases"] = statistics.mean([d["flash"]["erase_commands"] for d in runs])
        rows.append(row)
        print(f"{mode:14s} read p99 {row['read_p99_us']['mean']:8.1f} us "
              f"[{row['read_p99_us']['ci95'][0]:.1f}, {row['read_p99_us']['ci95'][1]:.1f}]  "
              f"p99.9 {row['read_p999_us']['mean']:8.1f} us "
              f"[{row['read_p999_us']['ci95'][0]:.1f}, {row['read_p999_us']['ci95'][1]:.1f}]  "
              f"read mean {row['read_mean_us']['mean']:.1f} us  write mean {row['write_mean_us']['mean']:.1f} us  "
              f"IOPS {row['iops']['mean']:.0f}  suspensions {row['suspensions']:.0f}  "
              f"reads in suspensions {row['reads_during_suspend']:.0f}  erases {row['erases']:.0f}",
              flush=True)
if a.out:
    json.dump(rows, open(a.out, "w"), indent=1)
