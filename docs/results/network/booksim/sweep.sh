#!/bin/sh
# Usage: sweep.sh BOOKSIM CONFIG LOADS [key=value ...]: one line per load: offered, accepted
# flit rate, packet latency, stable or unstable (BookSim's latency_thres of 500 cycles).
bin=$1; cfg=$2; loads=$3; shift 3
for l in $(echo "$loads" | tr , ' '); do
  out=$("$bin" "$cfg" injection_rate="$l" "$@" 2>&1)
  acc=$(echo "$out" | grep "Accepted flit rate average" | tail -1 | sed 's/.*= *//')
  lat=$(echo "$out" | grep "Packet latency average" | tail -1 | sed 's/.*= *//')
  if echo "$out" | grep -q unstable; then st=unstable; else st=stable; fi
  echo "$l $acc $lat $st"
done
