#!/usr/bin/env python3
"""GC rate against SimpleSSD (issue 33): Lagoon beside SimpleSSD 2.0 on random 4 KB writes at
QD 32 on a shrunk drive, from empty into the GC steady state.

Usage (from the project root):
    validation/simplessd/gc/compare.py [--lagoon BIN] [--simplessd BIN] [ROW ...]

--lagoon: a lagoon binary (default target/release/lagoon).
--simplessd: SimpleSSD-Standalone's binary (8255367 with core 73ad8ad5220c, built as README.md
  says, with the local patch README.md describes; the patch is off unless its environment
  variable, set per row below, is). Without it only Lagoon's side runs.
Rows print as a markdown table, L = Lagoon, S = SimpleSSD, the difference is L against S.
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
LAGOON = os.path.join(ROOT, "target", "release", "lagoon")

# name: (lagoon toml, SimpleSSD overrides {(section, key): value}, writes, SimpleSSD env,
#        SimpleSSD wall-clock limit in s: past it the row reports SimpleSSD's last periodic log)
FIX = {"SIMPLESSD_GC_VALID_FIX": "1"}
ROWS = {
    "gc-512-stock": ("lagoon-gc.toml", {}, 3_000_000, {}, 150),
    "gc-512": ("lagoon-gc.toml", {}, 3_000_000, FIX, None),
    "gc-512-static": ("lagoon-gc-static.toml", {}, 3_000_000, FIX, None),
}


def run(cmd, cwd=None, env=None, timeout=None):
    e = dict(os.environ)
    e.update(env or {})
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=e,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, ""
    return p.returncode, p.stdout + p.stderr


def lagoon_side(tmp, toml, n):
    out = os.path.join(tmp, "l.json")
    wl = f"syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:32,count={n}"
    rc, log = run([LAGOON, "run", "--ssd", os.path.join(HERE, toml), "--arch", "baseline",
                   "--workload", wl, "--quiet", "--json", out])
    if rc != 0:
        return {"error": log.strip().splitlines()[-1]}
    d = json.load(open(out))
    return {
        "wa": d["write_amplification"],
        "moves": d["ftl"]["gc_page_moves"],
        "erases": d["ftl"]["erases"],
        "iops": d["iops"],
        "mean_us": d["device_latency_ns"]["mean"] / 1e3,
        "p99_us": d["device_latency_ns"]["p99"] / 1e3,
        "sim_s": d["sim_time_ns"] / 1e9,
        "host": d["writes"],
    }


def simplessd_cfg(tmp, over):
    """ssd-gc.cfg with the row's [section] key = value overrides."""
    out, sec = [], None
    for line in open(os.path.join(HERE, "ssd-gc.cfg")):
        m = re.match(r"\s*\[(\w+)\]", line)
        if m:
            sec = m.group(1)
        k = re.match(r"\s*(\w+)\s*=", line)
        if k and (sec, k.group(1)) in over:
            line = f"{k.group(1)} = {over[(sec, k.group(1))]}\n"
        out.append(line)
    p = os.path.join(tmp, "ssd.cfg")
    open(p, "w").write("".join(out))
    return p


def simplessd_side(tmp, binary, over, n, env, limit):
    ssd = simplessd_cfg(tmp, over)
    sim = open(os.path.join(HERE, "sim-gc.cfg")).read()
    sim = re.sub(r"(?m)^io_size = .*$", f"io_size = {n * 4}K", sim)
    if limit:  # a periodic log every 5 s of simulated time, read back if the run is cut
        sim = re.sub(r"(?m)^LogPeriod = .*$", "LogPeriod = 5000", sim)
    simp = os.path.join(tmp, "sim.cfg")
    open(simp, "w").write(sim)
    rc, log = run([binary, simp, ssd, tmp], cwd=tmp, env=env, timeout=limit)
    st = os.path.join(tmp, "stat.log")
    if not os.path.exists(st) or (rc != 0 and rc != 124):
        return {"error": (log.strip().splitlines() or ["no output"])[-1][:120]}
    stats, tick = {}, None
    for line in open(st):
        if line.startswith("Periodic log printout @ tick"):
            tick = int(line.split()[-1])
        f = line.split()
        if len(f) >= 2:
            try:
                stats[f[0]] = float(f[1])
            except ValueError:
                pass
    if rc == 124:  # cut: the last periodic log, no latency
        host = int(stats["write.request_count"])
        return {"wa": stats["pal.program.count"] / host,
                "moves": stats["ftl.page_mapping.gc.page_copies"],
                "erases": stats["pal.erase.count"], "iops": host / (tick / 1e12),
                "mean_us": float("nan"), "sim_s": tick / 1e12, "host": host,
                "cut": f"cut after {limit} s wall at {tick / 1e12:.0f} s simulated, {host:,} of {n:,} writes"}
    t = re.search(r"Time \(ps\): \d+ - \d+ \((\d+)\)", log)
    cnt = re.search(r"I/O \(counts\): (\d+)", log)
    lat = re.search(r"Latency \((ps|ns|us|ms)\): .*avg=([0-9.]+)", log)
    scale = {"ps": 1e-6, "ns": 1e-3, "us": 1.0, "ms": 1e3}[lat.group(1)]
    sim_s = int(t.group(1)) / 1e12
    host = int(cnt.group(1))
    return {
        "wa": stats["pal.program.count"] / host,
        "moves": stats["ftl.page_mapping.gc.page_copies"],
        "erases": stats["pal.erase.count"],
        "iops": host / sim_s,
        "mean_us": float(lat.group(2)) * scale,
        "sim_s": sim_s,
        "host": host,
        "gc_calls": stats["ftl.page_mapping.gc.count"],
    }


def pct(s, l):
    return f"{(l / s - 1) * 100:+.1f} %" if s else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lagoon")
    ap.add_argument("--simplessd")
    ap.add_argument("--json", help="also write the raw numbers here")
    ap.add_argument("rows", nargs="*")
    a = ap.parse_args()
    if a.lagoon:
        global LAGOON
        LAGOON = os.path.abspath(a.lagoon)
    raw = {}
    print("| row | WA (L / S) | GC moves (L / S) | erases (L / S) | IOPS (L / S) | mean µs (L / S) | p99 µs (L) | moves per s (L / S) | erases per s (L / S) | moves per host write (L / S) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in a.rows or ROWS:
        toml, over, n, env, limit = ROWS[name]
        with tempfile.TemporaryDirectory() as tmp:
            l = lagoon_side(tmp, toml, n)
            s = simplessd_side(tmp, a.simplessd, over, n, env, limit) if a.simplessd else {}
        raw[name] = {"lagoon": l, "simplessd": s}
        if "error" in l:
            print(f"| {name} | Lagoon failed: {l['error']} |")
            continue
        for d in (l, s):
            if d and "error" not in d:
                d["moves_s"] = d["moves"] / d["sim_s"]
                d["erases_s"] = d["erases"] / d["sim_s"]
                d["moves_w"] = d["moves"] / d["host"]
        ok = s and "error" not in s
        cell = lambda k, fmt: f"{fmt(l[k])} / {fmt(s[k])} ({pct(s[k], l[k])})" if ok else fmt(l[k])
        i = lambda x: f"{x:,.0f}"
        f1 = lambda x: f"{x:,.1f}"
        f3 = lambda x: f"{x:.3f}"
        note = f" (SimpleSSD: {s['error']})" if s and not ok else (f" (SimpleSSD {s['cut']})" if ok and "cut" in s else "")
        print(f"| {name}{note} | {cell('wa', f3)} | {cell('moves', i)} | {cell('erases', i)} | {cell('iops', i)} | {cell('mean_us', f1)} | {l['p99_us']:,.0f} | {cell('moves_s', i)} | {cell('erases_s', i)} | {cell('moves_w', f3)} |")
        sys.stdout.flush()
    if a.json:
        json.dump(raw, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
