#!/usr/bin/env bash
# Runs Lagoon on the MQSim cross-check setup and prints the numbers docs/validation.md compares.
# Usage: validation/mqsim/run.sh   (from the project root, with ../shared beside it)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
for preset in perf-optimized cost-optimized; do
  ./target/release/lagoon run --ssd "validation/mqsim/$preset.toml" --arch baseline \
    --workload ../shared/traces/tpcc-small.trace --format mqsim --replay timed --quiet \
    --json "target/validation-$preset.json" > /dev/null
  python3 - "$preset" "target/validation-$preset.json" <<'PY'
import json, sys
p, f = sys.argv[1], sys.argv[2]
d = json.load(open(f))
dv, fl, ftl = d["device_latency_ns"], d["flash"], d["ftl"]
print(f"{p}: requests {d['requests']} ({d['reads']} reads, {d['writes']} writes)")
print(f"  device response mean {dv['mean']/1e3:.1f} us, min {dv['min']/1e3:.1f} us, max {dv['max']/1e3:.1f} us")
print(f"  read latency mean {d['device_read_latency_ns']['mean']/1e3:.1f} us, write latency mean {d['device_write_latency_ns']['mean']/1e3:.1f} us")
print(f"  flash read commands {fl['read_commands']} (pages {fl['page_reads']}; mapping {fl['mapping_reads']}, read-modify-write {fl['rmw_reads']})")
print(f"  flash program commands {fl['program_commands']} (pages {fl['page_programs']}; mapping {fl['mapping_writes']}), multi-plane {fl['multiplane_commands']}")
print(f"  erases {fl['erase_commands']}, GC runs {ftl['gc_runs']}, unwritten-page reads {ftl['unwritten_page_reads']}")
print(f"  path conflicts {100*d['path_conflict_fraction']:.2f} % of requests; sim time {d['sim_time_ns']/1e6:.3f} ms; IOPS {d['iops']:.0f}")
PY
done
