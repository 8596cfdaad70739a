#!/usr/bin/env bash
# Run SSDsim-with-PIQ (huaicheng/ssdsim f4112896 with the PIQ patch described in README.md, built
# with `make` after adding -fcommon) on every trace and scheme of one device variant.
# Usage: run_ssdsim.sh SSDSIM_DIR TRACE_DIR OUT_DIR VARIANT BUFFER_BYTES SLOTS [QUEUE] [SCHEMES...]
#   TRACE_DIR holds NAME.ascii files (convert_trace.py); results go to
#   OUT_DIR/VARIANT/NAME/SCHEME/{piq.json,statistic10.dat,page.parameters,stderr.txt}.
#   SLOTS is SSDsim's queue_length (0: SSDsim's default, 5); QUEUE the PIQ queue length (64).
set -euo pipefail
ssdsim=$(realpath "$1"); traces=$(realpath "$2"); out=$3; variant=$4; buffer=$5; slots=$6
queue=${7:-64}; shift 7 || shift $#
schemes=("$@"); [ ${#schemes[@]} -eq 0 ] && schemes=(noop rws piq-r piq-w piq)
here=$(dirname "$(realpath "$0")")
for t in "$traces"/*.ascii; do
  name=$(basename "$t" .ascii)
  for s in "${schemes[@]}"; do
    d="$out/$variant/$name/$s"; mkdir -p "$d"
    [ -s "$d/piq.json" ] && continue
    python3 "$here/make_params.py" "$ssdsim" "$d/page.parameters" --buffer "$buffer" --slots "$slots"
    # SSDsim keeps the trace name in a 30-byte buffer (initialize.h): give it a short one
    ln -sf "$t" "$d/trace.ascii"
    ( cd "$d" && PIQ_SCHEME=$s PIQ_QUEUE=$queue PIQ_OUT=piq.json.tmp \
        "$ssdsim/ssd" <<< trace.ascii > stdout.txt 2> stderr.txt || true )
    # SSDsim's main() returns 1 on success: piq.json is written only once the run has ended
    mv "$d/piq.json.tmp" "$d/piq.json"
    rm -f "$d/trace.ascii" "$d/ex.out" "$d/stdout.txt" "$d/parameters_name.txt" "$d/parameters_value.txt" "$d/statistic2.dat"
    python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(sys.argv[2],sys.argv[3],sys.argv[4],'read %.1f us write %.1f us busy chips %.3f'%(d['read_latency_us'],d['write_latency_us'],d['mean_busy_chips']))" "$d/piq.json" "$variant" "$name" "$s"
  done
done
