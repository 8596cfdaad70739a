#!/usr/bin/env bash
# Issue 15's speed bars (docs/BENCHMARKS.md): requests per wall second in the simulation loop
# for the baseline, Venice and NoSSD on 200 k random 4 KB reads at QD 8 and QD 32
# (perf-optimized) and on the 32x32 mesh (100 k reads), with each design's ratio to the
# baseline. Run it on an otherwise idle machine.
#
# Wall mode runs ROUNDS rounds (default 7); a round runs the three designs once each, in an
# order that rotates from round to round. It prints each design's median and the median over
# rounds of the round's own ratio: a ratio taken within one round cancels the machine's
# drift, which on a shared host moves single 0.1-0.2 s runs by up to 2x.
# `--instructions` counts instructions with callgrind instead (20 k reads; load-independent;
# needs valgrind).
# Usage: bench/speed.sh [--instructions] [ROUNDS]   (from the project root)
# LAGOON_BIN=path measures that binary instead of building this checkout's (an A/B baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${LAGOON_BIN:-}" ]; then
  cargo build --release --quiet
fi
L=${LAGOON_BIN:-./target/release/lagoon}
mode=wall
if [ "${1:-}" = "--instructions" ]; then
  mode=instructions
  shift
fi
rounds=${1:-7}

if [ "$mode" = "instructions" ]; then
  echo "| drive | QD | design | instructions (20 k reads; lower is faster) | design / baseline |"
  echo "|---|---|---|---|---|"
  for drive in perf-optimized bench/mesh-32x32.toml; do
    for qd in 8 32; do
      base=
      for arch in baseline venice nossd; do
        v=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$L" run --ssd "$drive" \
          --arch "$arch" --workload "syn:read=100,size=4k,addr=uniform,count=20000" \
          --replay "closed:$qd" --quiet 2>&1 | awk '/refs:/ {gsub(",", "", $NF); print $NF}')
        [ -z "$base" ] && base=$v
        python3 -c "import sys; print(f'| $drive | $qd | $arch | {$v:,} | {$v / $base:.2f}x |')"
      done
    done
  done
  exit 0
fi

python3 - "$L" "$rounds" <<'PY'
import json, statistics, subprocess, sys

lagoon, rounds = sys.argv[1], int(sys.argv[2])
archs = ["baseline", "venice", "nossd"]

def rate(drive, arch, qd, n):
    out = subprocess.run(
        [lagoon, "run", "--ssd", drive, "--arch", arch,
         "--workload", f"syn:read=100,size=4k,addr=uniform,count={n}",
         "--replay", f"closed:{qd}", "--quiet", "--json", "-"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["requests_per_wall_s"]

print(f"| drive | QD | design | requests / wall s (median of {rounds}) "
      f"| baseline / design (median of per-round ratios) | per-round ratios, min-max |")
print("|---|---|---|---|---|---|")
for drive in ["perf-optimized", "bench/mesh-32x32.toml"]:
    n = 200_000 if drive == "perf-optimized" else 100_000
    for qd in [8, 32]:
        got = {a: [] for a in archs}
        for r in range(rounds):
            for a in archs[r % 3:] + archs[:r % 3]:
                got[a].append(rate(drive, a, qd, n))
        for a in archs:
            ratios = [b / v for b, v in zip(got["baseline"], got[a])]
            print(f"| {drive} | {qd} | {a} | {statistics.median(got[a]):,.0f} "
                  f"| {statistics.median(ratios):.2f}x | {min(ratios):.2f}-{max(ratios):.2f}x |",
                  flush=True)
PY
