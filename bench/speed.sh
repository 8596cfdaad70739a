#!/usr/bin/env bash
# Issue 15's speed bars (docs/BENCHMARKS.md): requests per wall second in the simulation loop,
# median of 3 runs, for the baseline, Venice and NoSSD on 200 k random 4 KB reads at QD 8 and
# QD 32 (perf-optimized) and on the 32x32 mesh (100 k reads), with each design's ratio to the
# baseline. Run it on an otherwise idle machine. `--instructions` counts instructions with
# callgrind instead (20 k reads; load-independent; needs valgrind).
# Usage: bench/speed.sh [--instructions]   (from the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
L=./target/release/lagoon
mode=${1:-wall}

measure() { # ssd arch qd count -> one number
  local ssd=$1 arch=$2 qd=$3 n=$4
  local w="syn:read=100,size=4k,addr=uniform,count=$n"
  if [ "$mode" = "--instructions" ]; then
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$L" run --ssd "$ssd" --arch "$arch" \
      --workload "$w" --replay "closed:$qd" --quiet 2>&1 | awk '/refs:/ {gsub(",", "", $NF); print $NF}'
  else
    for _ in 1 2 3; do
      "$L" run --ssd "$ssd" --arch "$arch" --workload "$w" --replay "closed:$qd" --quiet --json - |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["requests_per_wall_s"])'
    done | sort -g | sed -n 2p
  fi
}

unit="requests / wall s (median of 3)"
[ "$mode" = "--instructions" ] && unit="instructions (20 k reads; lower is faster)"
echo "| drive | QD | design | $unit | baseline / design |"
echo "|---|---|---|---|---|"
for drive in perf-optimized bench/mesh-32x32.toml; do
  n=200000
  [ "$drive" != perf-optimized ] && n=100000
  [ "$mode" = "--instructions" ] && n=20000
  for qd in 8 32; do
    base=$(measure "$drive" baseline "$qd" "$n")
    for arch in baseline venice nossd; do
      v=$base
      [ "$arch" != baseline ] && v=$(measure "$drive" "$arch" "$qd" "$n")
      python3 - "$drive" "$qd" "$arch" "$v" "$base" "$mode" <<'PY'
import sys
drive, qd, arch, v, base, mode = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
ratio = v / base if mode == "--instructions" else base / v
print(f"| {drive} | {qd} | {arch} | {v:,.0f} | {ratio:.2f}x |")
PY
    done
  done
done
