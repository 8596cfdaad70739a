#!/usr/bin/env bash
# Issue 15's check for speed work: run a fixed set of 14 runs (every design, the Venice,
# dSSD, PIQ and MQSimNet presets, timed and closed loop) with two lagoon binaries and compare
# their JSON reports without the wall-clock keys, `model_state_bytes` (it measures memory
# layout, not the model; issue 30) and provenance's `command` and `commit` (the output path
# and the build differ by design; issue 45). Exit 1 if any differs.
# Usage (from the project root): bench/identical.sh OLD_BINARY NEW_BINARY
set -uo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=$2; T=$(mktemp -d); mkdir -p "$T/o" "$T/n"; fail=0; i=0
strip() { python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
def s(o):
    if isinstance(o,dict): return {k:s(v) for k,v in o.items() if "wall" not in k and k not in ("requests_per_wall_s","events_per_s","peak_rss_bytes","rss_bytes","model_state_bytes","command","commit")}
    if isinstance(o,list): return [s(x) for x in o]
    return o
print(json.dumps(s(d),sort_keys=True,indent=0))' "$1"; }
while read -r line; do
  [ -z "$line" ] && continue
  i=$((i+1))
  eval "$OLD run $line --quiet --json $T/o/$i.json" >/dev/null 2>&1 || echo "old failed: $line"
  eval "$NEW run $line --quiet --json $T/n/$i.json" >/dev/null 2>&1 || echo "new failed: $line"
  strip $T/o/$i.json > $T/o/$i.s; strip $T/n/$i.json > $T/n/$i.s
  if ! cmp -s $T/o/$i.s $T/n/$i.s; then echo "DIFF $i: $line"; fail=1; fi
done <<'RUNS'
--ssd perf-optimized --arch baseline --workload syn:hm_0,count=20000
--ssd perf-optimized --arch baseline --workload syn:hm_0,count=20000 --replay closed:32
--ssd perf-optimized --arch venice --workload syn:src2_1,count=20000
--ssd perf-optimized --arch nossd --workload syn:prxy_0,count=20000 --replay closed:32
--ssd perf-optimized --arch pssd --workload syn:usr_0,count=20000
--ssd perf-optimized --arch pnssd --workload syn:wdev_0,count=20000 --replay closed:32
--ssd cost-optimized --arch ideal --workload syn:mds_0,count=20000
--ssd cost-optimized --arch venice --workload syn:LUN2,count=20000 --replay closed:32
--ssd perf-optimized --mesh 16x4 --arch venice --workload syn:ssd-00,count=5000
--ssd perf-optimized --arch baseline --workload syn:read=30,size=16k,addr=uniform,count=30000 --replay closed:64
--ssd dssd-ull --design dssd_f --workload syn:read=0,size=128k,addr=uniform,count=3000
--ssd dssd-tlc --design bw --workload syn:read=50,size=16k,addr=uniform,count=5000 --replay closed:32
--ssd piq-ssdsim --arch baseline --workload syn:read=70,size=8k,addr=uniform,count=10000
--ssd mqsimnet --arch net --workload syn:read=50,size=4k,addr=uniform,count=10000 --replay closed:16
RUNS
echo "compared $i runs: $([ $fail = 0 ] && echo identical || echo DIFFERENT)"
rm -rf "$T"
exit $fail
