#!/usr/bin/env bash
# The hostile cases of docs/ROBUSTNESS.md, each run as a user would type it, with its exit
# code, first line of output and peak memory. Needs /usr/bin/time (Debian: apt-get install time).
# Usage: bench/robustness.sh   (from the project root)
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
L=$PWD/target/release/lagoon
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
W="syn:read=70,size=4k,arrival=qd:8,count=2000"
cfg() { printf '%s\n' "$@" > "$D/c.toml"; echo "$D/c.toml"; }
truncate -s 1G "$D/sparse.trace"
case_() { # label, args...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$D/time" timeout 120 "$L" "$@" > "$D/out" 2> "$D/err"
  local rc=$?
  read -r wall kb < <(tail -n1 "$D/time")
  local msg
  msg=$(grep -m1 -E "^error|^requests" "$D/err" "$D/out" -h | cut -c1-150)
  printf '| %s | %s | %s | %.0f | %s |\n' "$label" "$rc" "$wall" "$((kb / 1024))" "${msg//|/\\|}"
}
echo "| case | exit | wall s | peak MB | first line |"
echo "|---|---|---|---|---|"
case_ "[network] rows = 2 (venice)" run --arch venice --ssd "$(cfg '[network]' 'rows = 2')" --workload "$W"
case_ "[network] cols = 3 (pnssd)" run --arch pnssd --ssd "$(cfg '[network]' 'cols = 3')" --workload "$W"
case_ "[network] rows = 4294967295" run --arch nossd --ssd "$(cfg '[network]' 'rows = 4294967295')" --workload "$W"
case_ "link_width_bytes = 0 (venice)" run --arch venice --ssd "$(cfg '[network]' 'link_width_bytes = 0')" --workload "$W"
case_ "nossd_buffer_bytes = 0" run --arch nossd --ssd "$(cfg '[network]' 'nossd_buffer_bytes = 0')" --workload "$W"
case_ "max_router_visits = 0" run --arch venice --ssd "$(cfg '[network]' 'max_router_visits = 0')" --workload "$W"
case_ "link_cycle_ns = nan" run --arch venice --ssd "$(cfg '[network]' 'link_cycle_ns = nan')" --workload "$W"
case_ "link_cycle_ns = -1.0" run --arch venice --ssd "$(cfg '[network]' 'link_cycle_ns = -1.0')" --workload "$W"
case_ "link_cycle_ns = inf" run --arch venice --ssd "$(cfg '[network]' 'link_cycle_ns = inf')" --workload "$W"
case_ "nossd_link_mb_s = nan" run --arch nossd --ssd "$(cfg '[network]' 'nossd_link_mb_s = nan')" --workload "$W"
case_ "cmt_bytes = 4294967295" run --ssd "$(cfg '[ftl.mapping]' 'type = "demand"' 'cmt_bytes = 4294967295' 'entry_bytes = 8')" --workload "$W"
case_ "--lenient --workload /dev/zero" run --lenient --workload /dev/zero
case_ "1 GB sparse file, detected" run --workload "$D/sparse.trace"
for f in mqsim msr msr-ms fiu blkparse umass; do
  case_ "1 GB sparse file, --format $f --lenient" run --format "$f" --lenient --workload "$D/sparse.trace"
done
printf '# only a comment\n' > "$D/empty.trace"
case_ "trace with no request (--format mqsim)" run --format mqsim --workload "$D/empty.trace"
case_ "--host-queue 0 without a scheduler" run --host-queue 0 --workload "$W"
case_ "--ssd /dev/zero" run --ssd /dev/zero --workload "$W"
case_ "piq-ssdsim on tpcc (p99.99 vs max)" run --ssd piq-ssdsim --workload ../shared/traces/tpcc-small.trace
