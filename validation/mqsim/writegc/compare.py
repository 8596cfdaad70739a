#!/usr/bin/env python3
"""The write/GC cross-check of docs/validation.md (issue 33): Lagoon beside MQSim on write-heavy
traces (timed and all at t = 0), synthetic write-heavy mixes, and GC on a shrunk drive.

Usage (from the project root, after `cargo build --release`):
    validation/mqsim/writegc/compare.py [--mqsim PATH/TO/MQSim] [--traces DIR] [ROW ...]

--mqsim: an MQSim binary (commit 7ec40e3 with the local patches docs/validation.md describes;
environment variables it reads are set per row). Without it only Lagoon's side runs.
--traces: a folder holding msr.cut.per_10k.rw_40_60.1370.trace (ucare-uchicago/Heimdall,
ds_pipeline/data/raw_data/); msr-cut-105 comes from ../shared/traces.
Rows print as a markdown table; MQSim's IOPS is computed from its exact simulated time (a
patch prints it), not its whole-second IOPS.
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared"))
LAGOON = os.path.join(ROOT, "target", "release", "lagoon")

# name: (lagoon config, workload, replay, mqsim device xml, mqsim workload, mqsim env)
#   workload "syn:..." for both sides (the MQSim flow is generated from the same keys), or
#   "trace:NAME[@0]" (converted to MQSim's format; @0: every arrival at t = 0).
ROWS = {
    "msr105-timed": ("perf.toml", "trace:msr-cut-105", "timed", "perf.xml", None, {}),
    "msr105-t0": ("perf.toml", "trace:msr-cut-105@0", "timed", "perf.xml", None, {}),
    "msr1370-timed": ("perf.toml", "trace:msr.cut.per_10k.rw_40_60.1370", "timed", "perf.xml", None, {}),
    "msr1370-t0": ("perf.toml", "trace:msr.cut.per_10k.rw_40_60.1370@0", "timed", "perf.xml", None, {}),
    "syn-w70-8k": ("perf-fastdram.toml", "syn:read=30,size=8k,addr=uniform,align=4k,arrival=qd:32,count=100000", None, "perf-fastdram.xml", None, {}),
    "syn-w100-4k-hotcold": ("perf-fastdram.toml", "syn:read=0,size=4k,addr=hotcold:80/20,align=4k,arrival=qd:32,count=100000", None, "perf-fastdram.xml", None, {}),
    "gc-ideal-nocache": ("gc-ideal-nocache.toml", "syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:32,count=3000000", None, "gc-ideal.xml", "TURNED_OFF", {}),
    "gc-ideal-nocache-nocross": ("gc-ideal-nocache.toml", "syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:32,count=3000000", None, "gc-ideal.xml", "TURNED_OFF", {"MQSIM_NO_CROSS_QUEUE_PAIRING": "1"}),
    "gc-ideal-nocache-hotcold": ("gc-ideal-nocache.toml", "syn:read=0,size=4k,addr=hotcold:80/20,align=4k,arrival=qd:32,count=3000000", None, "gc-ideal.xml", "TURNED_OFF", {}),
    "gc-ideal-cache": ("gc-ideal-cache.toml", "syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:32,count=3000000", None, "gc-ideal.xml", "WRITE_CACHE", {}),
    "gc-demand-nocache": ("gc-demand-nocache.toml", "syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:32,count=3000000", None, "gc-demand.xml", "TURNED_OFF", {"MQSIM_EXEC_MAPPING_WRITES": "1"}),
}


def run(cmd, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=cwd,
                           stdin=subprocess.DEVNULL, timeout=1800)
    except subprocess.TimeoutExpired:
        return 124, "ERROR: no end after 30 min"
    return p.returncode, p.stdout + p.stderr


def lagoon_side(tmp, cfg, workload, replay):
    out = os.path.join(tmp, "l.json")
    if workload.startswith("trace:"):
        path = trace_path(tmp, workload[6:], lagoon=True)
        args = ["--workload", path, "--replay", replay or "timed"]
    else:
        args = ["--workload", workload] + (["--replay", replay] if replay else [])
    rc, log = run([LAGOON, "run", "--ssd", os.path.join(HERE, cfg), "--arch", "baseline", *args, "--quiet", "--json", out])
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
        "programs": d["flash"]["page_programs"],
        "host_pages": d["ftl"]["host_page_writes"],
    }


TRACE_DIRS = []


def trace_path(tmp, name, lagoon):
    """A trace for Lagoon (as it is) or MQSim (converted: ns, sectors), `@0`: arrivals at 0."""
    zero = name.endswith("@0")
    name = name[:-2] if zero else name
    src = None
    for d in TRACE_DIRS + [os.path.join(SHARED, "traces")]:
        for f in (name, name + ".trace"):
            if os.path.exists(os.path.join(d, f)):
                src = os.path.join(d, f)
    if src is None:
        sys.exit(f"trace {name} not found (give --traces DIR)")
    if lagoon and not zero:
        return src
    conv = os.path.join(tmp, os.path.basename(name) + ".mqsim")
    rc, log = run([LAGOON, "trace", "convert", src, "--to", "mqsim", "-o", conv])
    if rc != 0:
        sys.exit(log)
    if zero:
        lines = open(conv).read().splitlines()
        open(conv, "w").write("".join("0 " + l.split(" ", 1)[1] + "\n" for l in lines if l.strip()))
    return conv


SYN = """<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>
<Priority_Class>HIGH</Priority_Class><Device_Level_Data_Caching_Mode>{cache}</Device_Level_Data_Caching_Mode>
<Channel_IDs>{ch}</Channel_IDs><Chip_IDs>{chips}</Chip_IDs><Die_IDs>0</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage><Working_Set_Percentage>100</Working_Set_Percentage>
<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type><Read_Percentage>{read}</Read_Percentage>
<Address_Distribution>{dist}</Address_Distribution><Percentage_of_Hot_Region>{hot}</Percentage_of_Hot_Region>
<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses><Address_Alignment_Unit>8</Address_Alignment_Unit>
<Request_Size_Distribution>FIXED</Request_Size_Distribution><Average_Request_Size>{size}</Average_Request_Size>
<Variance_Request_Size>0</Variance_Request_Size><Seed>798</Seed><Average_No_of_Reqs_in_Queue>{qd}</Average_No_of_Reqs_in_Queue>
<Intensity>32768</Intensity><Stop_Time>0</Stop_Time><Total_Requests_To_Generate>{count}</Total_Requests_To_Generate>
</IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>
"""

TRACE = """<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<Priority_Class>HIGH</Priority_Class><Device_Level_Data_Caching_Mode>{cache}</Device_Level_Data_Caching_Mode>
<Channel_IDs>{ch}</Channel_IDs><Chip_IDs>{chips}</Chip_IDs><Die_IDs>0</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage><File_Path>{path}</File_Path>
<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed><Relay_Count>1</Relay_Count><Time_Unit>NANOSECOND</Time_Unit>
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>
"""


def mqsim_side(tmp, mqsim, xml, workload, cache, env):
    dev = open(os.path.join(HERE, "xml", xml)).read()
    num = lambda k: int(re.search(r"<%s>(\d+)</%s>" % (k, k), dev).group(1))
    ch = ",".join(map(str, range(num("Flash_Channel_Count"))))
    chips = ",".join(map(str, range(num("Chip_No_Per_Channel"))))
    cache = cache or "WRITE_CACHE"
    if workload.startswith("trace:"):
        wl = TRACE.format(cache=cache, ch=ch, chips=chips, path=trace_path(tmp, workload[6:], lagoon=False))
    else:
        k = dict(kv.split("=", 1) for kv in workload[4:].split(","))
        addr = k.get("addr", "uniform")
        dist, hot = ("RANDOM_UNIFORM", 0)
        if addr.startswith("hotcold:"):
            # Lagoon's hotcold:A/B (A % of requests to B % of the space) is MQSim's
            # Percentage_of_Hot_Region = B (docs/validation.md's import table).
            dist, hot = "RANDOM_HOTCOLD", int(addr.split(":")[1].split("/")[1])
        size = int(k["size"].rstrip("k")) * 2
        wl = SYN.format(cache=cache, ch=ch, chips=chips, read=k["read"], dist=dist, hot=hot, size=size, qd=k["arrival"].split(":")[1], count=k["count"])
    w = os.path.join(tmp, "wl.xml")
    open(w, "w").write(wl)
    d = os.path.join(tmp, "dev.xml")
    open(d, "w").write(dev)
    rc, log = run([mqsim, "-i", d, "-w", w], env=env, cwd=tmp)
    t = re.search(r"LAGOON_SIM_TIME_NS (\d+)", log)
    res = os.path.join(tmp, "wl_scenario_1.xml")
    if rc != 0 or t is None or not os.path.exists(res):
        err = [l for l in log.splitlines() if "ERROR" in l or "Assertion" in l or "error" in l]
        return {"error": (err or log.strip().splitlines()[-1:] or ["no output"])[-1][:120]}
    s = open(res).read()
    g = lambda k: float(re.search(r' %s="([^"]*)"' % k, s).group(1))
    flow = s[s.index("<Host.IO_Flow>"):s.index("</Host.IO_Flow>")]
    f = lambda k: float(re.search(r"<%s>([^<]*)</%s>" % (k, k), flow).group(1))
    n = f("Request_Count")
    gen = re.search(r"total requests generated: (\d+) total requests serviced:(\d+)", log)
    # Single-plane commands, and multi-plane ones of two pages each (two planes per die).
    programs = g("Issued_Flash_Program_CMD") + 2 * g("Issued_Flash_Multiplane_Program_CMD")
    out = {
        "moves": g("Total_GC_Executions") * g("Average_Page_Movement_For_GC"),
        "erases": g("Issued_Flash_Erase_CMD") + 2 * g("Issued_Flash_Multiplane_Erase_CMD"),
        "iops": n / (int(t.group(1)) / 1e9),
        "mean_us": f("Device_Response_Time"),
        "programs": programs,
    }
    if gen and gen.group(1) != gen.group(2):
        out["error"] = f"{gen.group(2)} of {gen.group(1)} requests served"
    return out


def pct(a, b):
    return f"{(b / a - 1) * 100:+.1f} %" if a else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mqsim")
    ap.add_argument("--lagoon", help="a lagoon binary (default: target/release/lagoon)")
    ap.add_argument("--traces", action="append", default=[])
    ap.add_argument("rows", nargs="*")
    a = ap.parse_args()
    TRACE_DIRS.extend(a.traces)
    if a.lagoon:
        global LAGOON
        LAGOON = os.path.abspath(a.lagoon)
    print("| row | Lagoon WA | GC moves (L / M) | erases (L / M) | IOPS (L / M) | mean µs (L / M) | p99 µs (L) | page programs (L / M) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.rows or ROWS:
        cfg, wl, replay, xml, cache, env = ROWS[name]
        with tempfile.TemporaryDirectory() as tmp:
            l = lagoon_side(tmp, cfg, wl, replay)
            m = mqsim_side(tmp, a.mqsim, xml, wl, cache, env) if a.mqsim else {}
        if "error" in l:
            print(f"| {name} | Lagoon failed: {l['error']} |")
            continue
        cell = lambda k, fmt: f"{fmt(l[k])} / {fmt(m[k])} ({pct(m[k], l[k])})" if k in m and "error" not in m else fmt(l[k])
        i = lambda x: f"{x:,.0f}"
        f1 = lambda x: f"{x:,.1f}"
        note = f" (MQSim: {m['error']})" if "error" in m else ""
        print(f"| {name}{note} | {l['wa']:.3f} | {cell('moves', i)} | {cell('erases', i)} | {cell('iops', i)} | {cell('mean_us', f1)} | {l['p99_us']:,.0f} | {cell('programs', i)} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
