#!/usr/bin/env python3
"""Collect SSDsim-with-PIQ and Lagoon runs into results.json and print the tables of README.md.

Usage: collect.py OUT_JSON --traces DIR [DIR...] --runs SIM:LABEL:DIR [...]
        [--ssdsim-src DIR] [--lagoon-bin BIN] [--lagoon-src DIR]
  SIM is ssdsim (DIR/VARIANT/TRACE/SCHEME/piq.json, run_ssdsim.sh) or lagoon
  (DIR/VARIANT/TRACE/SCHEME/seedN.json, run_lagoon.sh); setups are named SIM/LABEL/VARIANT.
  --traces: directories of TRACE.ascii (convert_trace.py) giving each trace's offered load.
  The provenance (commits, trace checksums, commands) is recorded from the other options.
       collect.py --headlines results.json   (the tables of README.md)
Ratios are PIQ / RWS per trace; averages are arithmetic means of the per-trace ratios (the paper:
"compared with RWS, on average", §V-B1). Effect = ratio - 1. A headline is reproduced when the
effect is within 25 % of the paper's effect (|effect - paper| <= 0.25 |paper|).
"""
import argparse
import glob
import hashlib
import json
import os
import statistics
import subprocess
import sys

PAPER = {  # §V-B1, paragraph "PIQ", and Fig. 8 (latency) / Fig. 12 (chip utilization)
    "read_latency": -0.197,
    "write_latency": -0.470,
    "chip_utilization": +0.242,
}
SCHEMES = ["noop", "rws", "piq-r", "piq-w", "piq"]
HEAVY_MB_S = 50.0  # offered load above which a trace is called saturating (the drive: 8 x 40 MB/s)


def trace_stats(path):
    first = last = None
    n = reads = 0
    sectors = 0
    for line in open(path):
        x = line.split()
        if len(x) < 5:
            continue
        t = int(x[0])
        first = t if first is None else first
        last = t
        n += 1
        reads += x[4] == "1"
        sectors += int(x[3])
    span_s = (last - first) / 1e9 if n > 1 else 0.0
    mb = sectors * 512 / 1e6
    return {
        "requests": n,
        "read_fraction": reads / n,
        "megabytes": round(mb, 3),
        "span_s": round(span_s, 6),
        "offered_mb_s": round(mb / span_s, 3) if span_s else None,
    }


def ssdsim_metrics(j):
    return {
        "read_latency_us": j["read_latency_us"],
        "write_latency_us": j["write_latency_us"],
        "mean_busy_chips": j["mean_busy_chips"],
        "chip_utilization": j["chip_utilization"],
        "mean_busy_chips_when_active": j["mean_busy_chips_when_active"],
        "read_host_wait_us": j["read_host_wait_us"],
        "write_host_wait_us": j["write_host_wait_us"],
        "reads": j["completed_reads"],
        "writes": j["completed_writes"],
        "read_conflicts": j["read_conflicts"],
        "write_conflicts": j["write_conflicts"],
        "batches": j["batches"],
        "erases": j["erases"],
    }


def lagoon_metrics(runs):
    j = runs[0]
    hs = j["flows"][0].get("host_scheduler") or {}
    m = {
        "read_latency_us": j["read_latency_ns"]["mean"] / 1e3 if j["read_latency_ns"]["count"] else 0.0,
        "write_latency_us": j["write_latency_ns"]["mean"] / 1e3 if j["write_latency_ns"]["count"] else 0.0,
        "mean_busy_chips": j["mean_busy_chips"],
        "chip_utilization": j["mean_busy_chips"] / 64,
        "read_host_wait_us": hs.get("mean_read_wait_ns", 0) / 1e3,
        "write_host_wait_us": hs.get("mean_write_wait_ns", 0) / 1e3,
        "reads": j["reads"],
        "writes": j["writes"],
        "read_conflicts": hs.get("read_conflicts"),
        "write_conflicts": hs.get("write_conflicts"),
        "batches": hs.get("batches"),
        "erases": j["ftl"]["erases"],
        "seeds": len(runs),
    }
    keys = [(r["read_latency_ns"]["mean"], r["write_latency_ns"]["mean"], r["mean_busy_chips"]) for r in runs]
    m["identical_over_seeds"] = len(set(keys)) == 1
    return m


def ratio(a, b):
    return a / b if b else None


def ratios(schemes, util_key="mean_busy_chips"):
    p, r = schemes.get("piq"), schemes.get("rws")
    if not p or not r:
        return None
    out = {
        "read_latency": ratio(p["read_latency_us"], r["read_latency_us"]) if p["reads"] else None,
        "write_latency": ratio(p["write_latency_us"], r["write_latency_us"]) if p["writes"] else None,
        "chip_utilization": ratio(p["mean_busy_chips"], r["mean_busy_chips"]),
    }
    if "mean_busy_chips_when_active" in p:
        out["busy_chips_when_active"] = ratio(p["mean_busy_chips_when_active"], r["mean_busy_chips_when_active"])
    return out


def mean_ratios(per_trace, names):
    out = {}
    keys = set()
    for n in names:
        keys |= set((per_trace[n]["ratios"] or {}).keys())
    for k in sorted(keys):
        v = [per_trace[n]["ratios"][k] for n in names if per_trace[n]["ratios"] and per_trace[n]["ratios"].get(k) is not None]
        out[k] = {"ratio": statistics.mean(v) if v else None, "effect": statistics.mean(v) - 1 if v else None, "traces": len(v)}
    return out


def verdicts(means):
    out = {}
    for k, paper in PAPER.items():
        e = means.get(k, {}).get("effect")
        out[k] = {
            "paper_effect": paper,
            "effect": e,
            "reproduced_within_25pct": e is not None and abs(e - paper) <= 0.25 * abs(paper),
        }
    return out


def git_head(d):
    try:
        return subprocess.check_output(["git", "-C", d, "rev-parse", "HEAD"], text=True).strip()
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--traces", nargs="+", default=[])
    ap.add_argument("--runs", nargs="+", default=[])
    ap.add_argument("--ssdsim-src")
    ap.add_argument("--lagoon-bin")
    ap.add_argument("--lagoon-src")
    a = ap.parse_args()
    out = a.out
    traces = {}
    for td in a.traces:
        for f in sorted(glob.glob(os.path.join(td, "*.ascii"))):
            st = trace_stats(f)
            st["ssdsim_ascii_sha256"] = hashlib.sha256(open(f, "rb").read()).hexdigest()
            native = f[: -len(".ascii")] + ".trace"
            if os.path.exists(native):
                st["native_sha256"] = hashlib.sha256(open(native, "rb").read()).hexdigest()
            traces[os.path.basename(f)[: -len(".ascii")]] = st
    setups = {}
    for spec in a.runs:
        sim, label, base = spec.split(":", 2)
        for vdir in sorted(glob.glob(os.path.join(base, "*"))):
            if not os.path.isdir(vdir):
                continue
            variant = os.path.basename(vdir)
            per = {}
            for tdir in sorted(glob.glob(os.path.join(vdir, "*"))):
                name = os.path.basename(tdir)
                schemes = {}
                for s in SCHEMES:
                    if sim == "ssdsim":
                        p = os.path.join(tdir, s, "piq.json")
                        if os.path.exists(p):
                            schemes[s] = ssdsim_metrics(json.load(open(p)))
                    else:
                        runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(tdir, s, "seed*.json")))]
                        if runs:
                            schemes[s] = lagoon_metrics(runs)
                if schemes:
                    per[name] = {"schemes": schemes, "ratios": ratios(schemes)}
            if not per:
                continue
            names = sorted(per)
            heavy = [n for n in names if n in traces and (traces[n]["offered_mb_s"] or 0) >= HEAVY_MB_S]
            m_all = mean_ratios(per, names)
            setups[f"{sim}/{label}/{variant}"] = {
                "simulator": "SSDsim-with-PIQ" if sim == "ssdsim" else "Lagoon",
                "variant": variant,
                "traces": per,
                "mean_all_traces": m_all,
                "verdict_all_traces": verdicts(m_all),
                "saturating_traces": heavy,
                "mean_saturating_traces": mean_ratios(per, heavy) if heavy else None,
                "verdict_saturating_traces": verdicts(mean_ratios(per, heavy)) if heavy else None,
            }
    prov = {
        "ssdsim": {
            "repository": "github.com/huaicheng/ssdsim (SSDsim 2.1, Linux port)",
            "commit": "f4112896c8e8439382fe9f9dca20052d1b5c936d",
            "patch": "validation/ssdsim/README.md, 'The patch' (not committed: SSDsim's code stays outside the project)",
            "patched_checkout_head": git_head(a.ssdsim_src) if a.ssdsim_src else None,
            "build": "make, with -fcommon added to every gcc line of SSDsim's Makefile and piq.o linked in; -g, no optimization (as shipped)",
        },
        "lagoon": {
            "commit": git_head(a.lagoon_src) if a.lagoon_src else None,
            "version": subprocess.check_output([a.lagoon_bin, "--version"], text=True).strip() if a.lagoon_bin else None,
            "build": "cargo build --release -p lagoon-cli",
        },
        "commands": "validation/ssdsim/README.md, 'Repeating every run' (run_all.sh)",
    }
    res = {
        "paper": {
            "source": "PIQ paper, shared/papers/piq-parallel-issue-queuing.txt, §V-B1 ('PIQ' paragraph), Fig. 8a/8b (latency normalized), Fig. 12 (chip utilization); the text carries no page numbers",
            "read_latency_effect": PAPER["read_latency"],
            "write_latency_effect": PAPER["write_latency"],
            "chip_utilization_effect": PAPER["chip_utilization"],
        },
        "definitions": {
            "ratio": "scheme PIQ / scheme RWS, per trace; averages are arithmetic means of per-trace ratios",
            "effect": "ratio - 1",
            "reproduced": "|effect - paper effect| <= 0.25 |paper effect|",
            "chip_utilization": "time-average number of busy chips from the first arrival to the end of the last flash operation (the paper: 'the number of flash chips being accessed simultaneously', §I, Fig. 1; Table I 'average number of utilized chips'); busy_chips_when_active: the same averaged only over time when at least one chip is busy (SSDsim only)",
            "saturating": f"offered load (bytes / trace span) >= {HEAVY_MB_S} MB/s",
        },
        "traces": traces,
        "setups": setups,
        "provenance": prov,
    }
    json.dump(res, open(out, "w"), indent=1, sort_keys=False)
    # tables
    for key, s in setups.items():
        print(f"\n### {key}")
        print("| trace | MB/s offered | read PIQ/RWS | write PIQ/RWS | busy chips PIQ/RWS | RWS busy chips |")
        print("|---|---|---|---|---|---|")
        for n, t in s["traces"].items():
            r = t["ratios"] or {}
            f = lambda v: "-" if v is None else f"{v:.3f}"
            print(f"| {n} | {f(traces.get(n, {}).get('offered_mb_s'))} | {f(r.get('read_latency'))} | {f(r.get('write_latency'))} | {f(r.get('chip_utilization'))} | {t['schemes']['rws']['mean_busy_chips']:.3f} |")
        for label, m in (("mean, all", s["mean_all_traces"]), ("mean, saturating", s["mean_saturating_traces"])):
            if m:
                print(f"| {label} | | {m['read_latency']['ratio']:.3f} ({m['read_latency']['effect']:+.1%}) | {m['write_latency']['ratio']:.3f} ({m['write_latency']['effect']:+.1%}) | {m['chip_utilization']['ratio']:.3f} ({m['chip_utilization']['effect']:+.1%}) | |")


if __name__ == "__main__" and not (len(sys.argv) == 3 and sys.argv[1] == "--headlines"):
    main()


def headline_table(path):
    """The README's headline table, from results.json."""
    d = json.load(open(path))
    rows = [
        ("SSDsim-with-PIQ, SSDsim's device (5 slots), no buffer", "ssdsim/timed/nobuf-5"),
        ("SSDsim-with-PIQ, 5 slots, SSDsim's shipped 128 KB buffer", "ssdsim/timed/buf128k-5"),
        ("SSDsim-with-PIQ, 8 slots, no buffer", "ssdsim/timed/nobuf-8"),
        ("SSDsim-with-PIQ, 16 slots, no buffer", "ssdsim/timed/nobuf-16"),
        ("SSDsim-with-PIQ, 32 slots, no buffer", "ssdsim/timed/nobuf-32"),
        ("Lagoon, piq-ssdsim with SSDsim's device (5 slots, writes done at transfer)", "lagoon/timed/ssdsim5"),
        ("Lagoon, piq-ssdsim as `reproduce piq` runs it (32 slots)", "lagoon/timed/piq-ssdsim"),
    ]
    p = d["paper"]
    f = lambda m, k: f"{m[k]['ratio']:.3f} ({m[k]['effect']:+.1%})"
    v = lambda vd, k: "yes" if vd[k]["reproduced_within_25pct"] else "no"
    print("| setting | traces | read latency PIQ/RWS (effect) | write latency PIQ/RWS (effect) | busy chips PIQ/RWS (effect) | within 25 % of the paper's effect (read, write, chips) |")
    print("|---|---|---|---|---|---|")
    print(f"| the paper (SSDsim, 15 MSR traces) | 15 | {1 + p['read_latency_effect']:.3f} ({p['read_latency_effect']:+.1%}) | {1 + p['write_latency_effect']:.3f} ({p['write_latency_effect']:+.1%}) | {1 + p['chip_utilization_effect']:.3f} ({p['chip_utilization_effect']:+.1%}) | |")
    for label, key in rows:
        s = d["setups"][key]
        for which, m, vd in (("all 6", s["mean_all_traces"], s["verdict_all_traces"]),
                             ("2 saturating", s["mean_saturating_traces"], s["verdict_saturating_traces"])):
            print(f"| {label} | {which} | {f(m, 'read_latency')} | {f(m, 'write_latency')} | {f(m, 'chip_utilization')} | {v(vd, 'read_latency')}, {v(vd, 'write_latency')}, {v(vd, 'chip_utilization')} |")
    print()
    print("| trace | SSDsim 5 slots: read, write, chips (effects %) | Lagoon 5 slots | SSDsim 32 slots | Lagoon piq-ssdsim (32 slots) |")
    print("|---|---|---|---|---|")
    e = lambda t, k: "-" if t["ratios"][k] is None else f"{100 * (t['ratios'][k] - 1):+.1f}"
    keys = ["ssdsim/timed/nobuf-5", "lagoon/timed/ssdsim5", "ssdsim/timed/nobuf-32", "lagoon/timed/piq-ssdsim"]
    for n in d["setups"][keys[0]]["traces"]:
        cells = []
        for k in keys:
            t = d["setups"][k]["traces"][n]
            cells.append(f"{e(t, 'read_latency')}, {e(t, 'write_latency')}, {e(t, 'chip_utilization')}")
        print(f"| {n} ({d['traces'][n]['offered_mb_s']} MB/s) | " + " | ".join(cells) + " |")
    print()
    print("| trace, speed-up | offered MB/s | SSDsim 5 slots: read, write, chips (effects %) | Lagoon 5 slots | Lagoon piq-ssdsim (32 slots) |")
    print("|---|---|---|---|---|")
    keys = ["ssdsim/speedup/nobuf-5", "lagoon/speedup/ssdsim5", "lagoon/speedup/piq-ssdsim"]
    for n in d["setups"][keys[0]]["traces"]:
        cells = []
        for k in keys:
            t = d["setups"][k]["traces"][n]
            cells.append(f"{e(t, 'read_latency')}, {e(t, 'write_latency')}, {e(t, 'chip_utilization')}")
        print(f"| {n} | {d['traces'][n]['offered_mb_s']} | " + " | ".join(cells) + " |")


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--headlines":
    headline_table(sys.argv[2])
