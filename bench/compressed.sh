#!/usr/bin/env bash
# Compressed traces stream in flat memory (issue 16): a synthetic MSR-style trace
# (msr-ms lines, 1 TiB of random offsets) compressed with gzip to about 1 GB, a 1/10 cut
# of it, and the cut in zstd, xz and bzip2; `lagoon trace stats` on each, with wall time
# and peak resident memory (/usr/bin/time). Files go to $BENCH_DIR (default /tmp), and are
# removed at the end unless KEEP=1. Usage: bench/compressed.sh [requests] (default 70M).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-70000000}
DIR=${BENCH_DIR:-/tmp}/lagoon-bench-compressed
mkdir -p "$DIR"
L=target/release/lagoon
nice -n 19 cargo build --release -q -p lagoon-cli
SPEC="syn:read=30,size=choice:4k@60/8k@20/64k@15/256k@5,arrival=poisson:20us,count=$N"
run() { # label file
  local out
  out=$( { /usr/bin/time -f '%e %M' nice -n 19 "$L" trace stats "$2" --json - >/dev/null; } 2>&1 | tail -1)
  local size
  size=$(stat -c %s "$2")
  printf '| %s | %d | %s | %s |\n' "$1" "$((size / 1000000))" "${out% *}" "$((${out#* } / 1024))"
}
[ -s "$DIR/big.gz" ] || nice -n 19 "$L" trace convert "$SPEC" --to msr-ms 2>/dev/null | nice -n 19 gzip -1 > "$DIR/big.gz"
[ -s "$DIR/cut.trace" ] || nice -n 19 "$L" trace convert "${SPEC/count=$N/count=$((N / 10))}" --to msr-ms -o "$DIR/cut.trace" 2>/dev/null
[ -s "$DIR/cut.gz" ] || nice -n 19 gzip -1 -c "$DIR/cut.trace" > "$DIR/cut.gz"
[ -s "$DIR/cut.zst" ] || nice -n 19 zstd -q -1 -c "$DIR/cut.trace" > "$DIR/cut.zst"
[ -s "$DIR/cut.xz" ] || nice -n 19 xz -1 -T1 -c "$DIR/cut.trace" > "$DIR/cut.xz"
[ -s "$DIR/cut.bz2" ] || nice -n 19 bzip2 -1 -c "$DIR/cut.trace" > "$DIR/cut.bz2"
echo "| file | MB on disk | wall s | peak RSS MB |"
echo "|---|---|---|---|"
run "plain, $((N / 10)) requests" "$DIR/cut.trace"
run "gzip, $((N / 10)) requests" "$DIR/cut.gz"
run "gzip, $N requests" "$DIR/big.gz"
run "zstd, $((N / 10)) requests" "$DIR/cut.zst"
run "xz, $((N / 10)) requests" "$DIR/cut.xz"
run "bzip2, $((N / 10)) requests" "$DIR/cut.bz2"
[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
