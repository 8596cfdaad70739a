#!/usr/bin/env bash
# Run Lagoon's PIQ reproduction setting (as crates/lagoon-lab/src/reproduce/piq.rs runs it: the
# piq-ssdsim drive, baseline back end, timed replay, host queue 64) on every trace and scheme.
# Usage: run_lagoon.sh LAGOON_BIN TRACE_DIR OUT_DIR VARIANT SSD [SEEDS...]
#   TRACE_DIR holds the traces in their own formats (NAME.trace; Lagoon detects the format);
#   SSD is a preset name or TOML file (piq-ssdsim, or lagoon-ssdsim5.toml beside this script);
#   results go to OUT_DIR/VARIANT/NAME/SCHEME/seedN.json.
#   Environment: SPEEDUP=F replays with --replay timed:F and names the trace NAME@xF;
#   SCHEMES="rws piq" limits the schemes (default: all five).
set -euo pipefail
bin=$(realpath "$1"); traces=$(realpath "$2"); out=$3; variant=$4; ssd=$5; shift 5
seeds=("$@"); [ ${#seeds[@]} -eq 0 ] && seeds=(1)
speedup=${SPEEDUP:-1}; replay=timed; [ "$speedup" != 1 ] && replay=timed:$speedup
for t in "$traces"/*.trace; do
  name=$(basename "$t" .trace); [ "$speedup" != 1 ] && name=$name@x$speedup
  for s in ${SCHEMES:-noop rws piq-r piq-w piq}; do
    d="$out/$variant/$name/$s"; mkdir -p "$d"
    for seed in "${seeds[@]}"; do
      "$bin" run --ssd "$ssd" --arch baseline --host-scheduler "$s" --host-queue 64 \
        --workload "$t" --replay "$replay" --seed "$seed" --quiet --json "$d/seed$seed.json" > /dev/null
    done
    python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(sys.argv[2],sys.argv[3],sys.argv[4],'read %.1f us write %.1f us busy chips %.3f'%(d['read_latency_ns']['mean']/1e3,d['write_latency_ns']['mean']/1e3,d['mean_busy_chips']))" "$d/seed${seeds[0]}.json" "$variant" "$name" "$s"
  done
done
