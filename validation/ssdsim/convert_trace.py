#!/usr/bin/env python3
"""Convert a trace to SSDsim 2.1's ASCII input: `arrival_ns device lsn(512 B) sectors type(1 read, 0 write)`.

Formats (detected from the first line, as in ../shared/traces/README.md):
  mqsim  `arrival_ns device start_sector sectors type`  (tpcc-small, wsrch-small): copied as is
  msr    `arrival_ms device offset_bytes size_bytes type`  (msr-cut-*: LinnOS/Heimdall cuts)
  fiu    `timestamp_ns pid process lba sectors R|W major minor md5`  (fiu-cheetah-mail):
         times made relative to the first request
Arrival times must not decrease (SSDsim reads the trace in order); the script checks it.
Usage: convert_trace.py IN OUT [SPEEDUP]
  SPEEDUP divides every arrival time (relative to the first) by that factor, as Lagoon's
  `--replay timed:SPEEDUP` does; default 1.
"""
import sys


def detect(fields):
    if len(fields) >= 6 and fields[5] in ("R", "W"):
        return "fiu"
    if "." in fields[0]:
        return "msr"
    return "mqsim"


def main(src, dst, speedup=1.0):
    fmt = None
    t0 = None
    first = None
    last = -1
    n = 0
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            x = line.split()
            if not x:
                continue
            fmt = fmt or detect(x)
            if fmt == "mqsim":
                t, dev, lsn, size, op = int(x[0]), int(x[1]), int(x[2]), int(x[3]), int(x[4])
            elif fmt == "msr":
                t = round(float(x[0]) * 1e6)
                dev, off, nbytes, op = int(x[1]), int(x[2]), int(x[3]), int(x[4])
                lsn = off // 512
                size = max(1, -(-(off + nbytes) // 512) - lsn)
            else:
                ts = int(x[0])
                first = ts if first is None else first
                t, dev, lsn, size = ts - first, 0, int(x[3]), int(x[4])
                op = 1 if x[5] == "R" else 0
            if speedup != 1.0:
                t0 = t if t0 is None else t0
                t = t0 + round((t - t0) / speedup)
            if t < last:
                sys.exit(f"{src}:{n + 1}: arrival {t} before {last}")
            last = t
            out.write(f"{t} {dev} {lsn} {size} {op}\n")
            n += 1
    print(f"{src}: {fmt}, {n} requests -> {dst}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) == 4 else 1.0)
