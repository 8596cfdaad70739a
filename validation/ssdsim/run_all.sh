#!/usr/bin/env bash
# Repeat every run of validation/ssdsim/README.md and write results.json.
# Usage: run_all.sh SSDSIM_DIR HEIMDALL_TRACE_DIR WORK_DIR [LAGOON_BIN]
#   SSDSIM_DIR: huaicheng/ssdsim f4112896 with the PIQ patch (README.md, "The patch"), built.
#   HEIMDALL_TRACE_DIR: ucare-uchicago/Heimdall's ds_pipeline/data/raw_data (the MSR cuts).
#   WORK_DIR: where traces and runs go (outside the project). Run from the project root, with
#   ../shared/traces beside it. LAGOON_BIN defaults to target/release/lagoon.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
ssdsim=$(realpath "$1"); heim=$(realpath "$2"); work=$3; lagoon=$(realpath "${4:-target/release/lagoon}")
shared=$(realpath ../shared/traces)
mkdir -p "$work"/{traces,traces-fast,traces-light}
cd "$work"
for t in tpcc-small wsrch-small fiu-cheetah-mail msr-cut-105; do cp "$shared/$t.trace" traces/; done
cp "$heim/msr.cut.per_10k.most_thpt_rand_iops.1006.trace" traces/msr-cut-1006.trace
cp "$heim/msr.cut.per_10k.rw_40_60.1370.trace" traces/msr-cut-1370.trace
for t in traces/*.trace; do python3 "$here/convert_trace.py" "$t" "${t%.trace}.ascii"; done
for t in msr-cut-105 msr-cut-1370 fiu-cheetah-mail wsrch-small; do
  ln -sf ../traces/$t.trace traces-light/$t.trace
  for f in 10 100 1000; do python3 "$here/convert_trace.py" traces/$t.trace traces-fast/$t@x$f.ascii $f; done
done
# SSDsim-with-PIQ: variant name = buffer-slots (SSDsim's 128 KB buffer or none; queue_length)
R="$here/run_ssdsim.sh"
$R "$ssdsim" traces runs nobuf-5 0 0 64
$R "$ssdsim" traces runs buf128k-5 131074 0 64
$R "$ssdsim" traces runs nobuf-8 0 8 64
$R "$ssdsim" traces runs nobuf-16 0 16 64
$R "$ssdsim" traces runs nobuf-32 0 32 64
$R "$ssdsim" traces-fast runs-fast nobuf-5 0 0 64 rws piq
# Lagoon: the reproduction's drive, and the same drive with SSDsim's device (5 slots, writes
# done at transfer); seeds 1-3
L="$here/run_lagoon.sh"
$L "$lagoon" traces lagoon piq-ssdsim piq-ssdsim 1 2 3
$L "$lagoon" traces lagoon ssdsim5 "$here/lagoon-ssdsim5.toml" 1 2 3
for f in 10 100 1000; do
  SPEEDUP=$f SCHEMES="rws piq" $L "$lagoon" traces-light lagoon-fast piq-ssdsim piq-ssdsim 1
  SPEEDUP=$f SCHEMES="rws piq" $L "$lagoon" traces-light lagoon-fast ssdsim5 "$here/lagoon-ssdsim5.toml" 1
done
cd - > /dev/null
python3 "$here/collect.py" "$here/results.json" --traces "$work/traces" "$work/traces-fast" \
  --runs ssdsim:timed:"$work/runs" lagoon:timed:"$work/lagoon" \
         ssdsim:speedup:"$work/runs-fast" lagoon:speedup:"$work/lagoon-fast" \
  --ssdsim-src "$ssdsim" --lagoon-bin "$lagoon" --lagoon-src . > "$work/tables.md"
echo "tables: $work/tables.md; results: $here/results.json"
