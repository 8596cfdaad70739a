#!/usr/bin/env bash
# Ideal (a channel per chip) over baseline (8 x 8) on the MQSim cross-check drives, as MQSim was
# run for issue 10: 200,000 random 4 KB reads at queue depth 32 / 64 / 256, PCIe x4 as in the
# XML and lifted to x32, preconditioning off, ONFI command timing. Prints one table row per case.
# MULTIPLANE=off (or any flash.multiplane value) replaces the configs' same-offset rule.
# Usage: [MULTIPLANE=off] validation/mqsim/ratios.sh   (from the project root)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
L=./target/release/lagoon
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo "| drive | PCIe lanes | QD | baseline kIOPS | ideal kIOPS | ideal/baseline |"
echo "|---|---|---|---|---|---|"
for drive in perf cost; do
  for lanes in 4 32; do
    sed "s/^name = .*/&\n[host]\npcie_lanes = $lanes/" "validation/mqsim/$drive-optimized.toml" |
      sed "s/^multiplane = .*/multiplane = \"${MULTIPLANE:-same-offset}\"/" > "$T/c.toml"
    for qd in 32 64 256; do
      w="syn:read=100,size=4k,addr=uniform,align=4k,arrival=qd:$qd,count=200000"
      b=$($L run --ssd "$T/c.toml" --arch baseline --workload "$w" --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["iops"])')
      i=$($L run --ssd "$T/c.toml" --arch ideal --workload "$w" --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["iops"])')
      python3 -c "print(f'| $drive | $lanes | $qd | {$b/1e3:.1f} | {$i/1e3:.1f} | {$i/$b:.3f} |')"
    done
  done
done
