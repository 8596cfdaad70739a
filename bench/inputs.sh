#!/usr/bin/env bash
# Issue 43's input cases (docs/ROBUSTNESS.md, "Issue 43: inputs"), each run as a user would
# type it: exit code, wall seconds and the first line of the error (or of the report).
# Usage: bench/inputs.sh [LAGOON_BINARY] [TIMEOUT_S]   (from the project root; default: the
# release build, 60 s a case). Give an older binary to see what a case did before.
set -uo pipefail
cd "$(dirname "$0")/.."
L=${1:-$PWD/target/release/lagoon}
T=${2:-60}
D=$(mktemp -d)
chmod 777 "$D"  # the read-only case runs as nobody when root
trap 'chmod -R u+w "$D"; rm -rf "$D"' EXIT
W="syn:read=50,size=4k,arrival=qd:8,count=200"
case_() { # label, args...
  local label=$1; shift
  local start=$(date +%s.%N)
  timeout "$T" "$@" > "$D/out" 2> "$D/err"
  local rc=$?
  local wall=$(echo "$(date +%s.%N) - $start" | bc)
  local msg
  msg=$(grep -m1 -E "^error|^requests|^lifetime|^[A-Za-z]*Error" -h "$D/err" "$D/out" | cut -c1-160)
  [ "$rc" = 124 ] && msg="(still running at $T s) ${msg}"
  printf '| %s | %s | %.1f | `%s` |\n' "$label" "$rc" "$wall" "${msg//|/\\|}"
  rm -rf "$D/o" "$D"/.o.* 2>/dev/null
}
mkdir "$D/empty"
topo() { printf '%s\n' "$@" > "$D/topo.toml"; }
printf 'base = "perf-optimized"\n[network]\ntopology = "custom"\nrouting = "table"\ncustom_topology = "%s"\n' "$D/topo.toml" > "$D/net.toml"
RING='links = [[0, 1], [1, 2], [2, 3], [3, 0]]'
python3 - "$D" <<'EOF'
import sys
d = sys.argv[1]
x = open("../shared/validation/mqsim/ssdconfig-perf-optimized.xml").read()
i = x.index("<Flash_Channel_Count>"); j = x.index("\n", i) + 1
open(f"{d}/dup.xml", "w").write(x[:j] + "<Flash_Channel_Count>4</Flash_Channel_Count>\n" + x[j:])
t = open("../shared/traces/tpcc-small.trace").read().splitlines()[:300]
open(f"{d}/commented.trace", "w").write("# a comment\n" * 1000 + "\n".join(t) + "\n")
EOF
zstd -q -c ../shared/traces/tpcc-small.trace > "$D/sum.trace.zst"
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-1]^=0x5a; open(p,'wb').write(b)" "$D/sum.trace.zst"
mkdir -p "$D/old"; echo "# old" > "$D/old/summary.md"; echo x > "$D/old/runs.csv"; chmod 555 "$D/old"
AS_USER=()
[ "$(id -u)" = 0 ] && AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)

echo "| case | exit | wall s | first line |"
echo "|---|---|---|---|"
case_ "reproduce piq --quick --seed 18446744073709551615 --seeds 3" "$L" reproduce piq --quick --seed 18446744073709551615 --seeds 3 --out "$D/o"
case_ "reproduce piq --quick --traces EMPTYDIR" "$L" reproduce piq --quick --traces "$D/empty" --out "$D/o"
case_ "... with --sensitivity" "$L" reproduce piq --quick --sensitivity --traces "$D/empty" --out "$D/o"
case_ "reproduce dssd --quick --traces ../shared/traces" "$L" reproduce dssd --quick --traces ../shared/traces --out "$D/o"
case_ "reproduce superblocks --quick --traces ../shared/traces" "$L" reproduce superblocks --quick --traces ../shared/traces --out "$D/o"
case_ "lifetime --utilization 1e-300" "$L" lifetime --utilization 1e-300 --quiet
topo "routers = 4" "links = [[0, 1], [1, 2, 7], [2, 3], [3, 0]]"
case_ "custom topology links = [.., [1, 2, 7], ..]" "$L" run --ssd "$D/net.toml" --arch net --workload "$W" --quiet
topo "routers = 4" "$RING" "chips = [$(python3 -c "print(', '.join(['1'] * 65))")]"
case_ "custom topology, 65 chips listed (64 on the drive)" "$L" run --ssd "$D/net.toml" --arch net --workload "$W" --quiet
topo "routers = 4" "$RING" "controllers = [0, 1, 2, 3, 0, 1, 2, 3, 1]"
case_ "custom topology, 9 controllers listed (8)" "$L" run --ssd "$D/net.toml" --arch net --workload "$W" --quiet
case_ "import mqsim, Flash_Channel_Count twice" "$L" import mqsim "$D/dup.xml"
case_ ".zst trace, checksum byte corrupted" "$L" run --workload "$D/sum.trace.zst" --quiet
case_ "trace convert syn:count=0" "$L" trace convert syn:count=0 --to mqsim -o "$D/x.trace"
case_ "lifetime --pe-mean -1" "$L" lifetime --pe-mean -1 --quiet
case_ "reproduce piq --sensitivity --out /dev/null" "$L" reproduce piq --quick --sensitivity --out /dev/null
case_ "reproduce piq --quick --out READ-ONLY (as nobody)" "${AS_USER[@]}" "$L" reproduce piq --quick --quiet --out "$D/old"
case_ "a trace after 1,000 comment lines" "$L" run --workload "$D/commented.trace" --quiet
