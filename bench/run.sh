#!/usr/bin/env bash
# Speed and memory benchmarks of docs/BENCHMARKS.md. Needs /usr/bin/time (Debian: apt-get install time).
# Usage: bench/run.sh   (from the project root, with ../shared beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
L=./target/release/lagoon
T=../shared/traces
measure() { # label, args...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o target/bench.time "$L" run "$@" --quiet --json target/bench.json > /dev/null
  read -r wall kb < target/bench.time
  python3 - "$label" "$wall" "$kb" <<'PY'
import json, sys
label, wall, kb = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
d = json.load(open("target/bench.json"))
print(f"| {label} | {d['requests']:,} | {wall:.2f} | {d['requests_per_wall_s']:,.0f} | {d['events']/max(d['requests'],1):.1f} | {kb/1024:.1f} |")
PY
}
echo "| run | requests | wall s (process) | requests / wall s (simulation loop) | events / request | peak RSS MB |"
echo "|---|---|---|---|---|---|"
R4K="syn:read=100,size=4k,addr=uniform,arrival=qd:32,count=200000"
measure "perf-optimized baseline, 200k random 4 KB reads, QD 32" --ssd perf-optimized --arch baseline --workload "$R4K"
measure "perf-optimized ideal, same" --ssd perf-optimized --arch ideal --workload "$R4K"
measure "cost-optimized baseline, same" --ssd cost-optimized --arch baseline --workload "$R4K"
for arch in pssd pnssd nossd venice; do
  measure "perf-optimized $arch, same" --ssd perf-optimized --arch $arch --workload "$R4K"
done
measure "perf-optimized venice, 200k random 4 KB reads, QD 8" --ssd perf-optimized --arch venice --workload "syn:read=100,size=4k,addr=uniform,arrival=qd:8,count=200000"
measure "perf-optimized baseline, same QD 8" --ssd perf-optimized --arch baseline --workload "syn:read=100,size=4k,addr=uniform,arrival=qd:8,count=200000"
measure "1,024 chips (32x32 mesh) baseline, 100k reads QD 32" --ssd bench/mesh-32x32.toml --arch baseline --workload "syn:read=100,size=4k,arrival=qd:32,count=100000"
measure "1,024 chips (32x32 mesh) venice, same" --ssd bench/mesh-32x32.toml --arch venice --workload "syn:read=100,size=4k,arrival=qd:32,count=100000"
measure "perf-optimized baseline, 200k mixed 70/30 4-64 KB, QD 64" --ssd perf-optimized --workload "syn:read=70,size=uniform:4k-64k,arrival=qd:64,count=200000"
measure "tpcc-small closed:32 x1" --workload $T/tpcc-small.trace --replay closed:32
measure "tpcc-small closed:32 x100" --workload $T/tpcc-small.trace --replay closed:32 --repeat 100
measure "wsrch-small closed:32 x1" --workload $T/wsrch-small.trace --replay closed:32
measure "wsrch-small closed:32 x100" --workload $T/wsrch-small.trace --replay closed:32 --repeat 100
