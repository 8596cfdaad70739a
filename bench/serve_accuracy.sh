#!/usr/bin/env bash
# docs/SERVE.md "Measured accuracy", one row per argument line: fio's random 4 KB reads through
# `lagoon serve` at real-time priority, fio's mean completion latency / K against the report's
# simulated read latency, and the server's pacing error.
#   bench/serve_accuracy.sh [LAGOON] < rows    (rows: "SSD ARCH QD K SECONDS" per line)
# Needs fio (with its nbd engine), chrt, jq and root (SCHED_FIFO).
set -euo pipefail
LAGOON=${1:-target/release/lagoon}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
printf '| drive, design | QD | K | fio mean / K | Lagoon mean | fio/K ÷ Lagoon | Lagoon p99 | fio p99 (wall) | pacing error mean / p99 / max |\n|---|---|---|---|---|---|---|---|---|\n'
while read -r ssd arch qd k secs; do
  [ -z "${ssd:-}" ] && continue
  sock=$dir/s; rm -f "$sock" "$dir/j" "$dir/f"
  chrt -f 20 "$LAGOON" serve --ssd "$ssd" --arch "$arch" --pace "realtime:$k" --socket "$sock" \
    --size 1G --json "$dir/j" --linger 0.5 --quiet &
  srv=$!
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
  chrt -f 10 fio --ioengine=nbd --uri="nbd+unix:///?socket=$sock" --name=m --rw=randread --bs=4k \
    --size=1G --iodepth="$qd" --time_based --runtime="$secs" --output-format=json | sed -n '/^{/,$p' > "$dir/f"  # fio prints a line before its JSON
  wait "$srv"
  jq -rn --slurpfile f "$dir/f" --slurpfile j "$dir/j" --arg row "$ssd, $arch" --arg qd "$qd" --argjson k "$k" '
    ($f[0].jobs[0].read) as $c | ($j[0]) as $r
    | ($c.lat_ns.mean / $k / 1000) as $fio | ($r.read_latency_ns.mean / 1000) as $lag
    | "| \($row) | \($qd) | \($k) | \($fio*10|round/10) µs | \($lag*10|round/10) µs | \($fio/$lag*100|round/100) | \($r.read_latency_ns.p99/1000*10|round/10) µs | \($c.clat_ns.percentile["99.000000"]/1000*10|round/10) µs | \($r.serve.pacing_error.mean_ns/1000*10|round/10) / \($r.serve.pacing_error.p99_ns/1000*10|round/10) / \($r.serve.pacing_error.max_ns/1000|round) µs |"'
done
