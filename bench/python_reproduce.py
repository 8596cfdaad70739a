"""Wall time of lagoon.reproduce(PAPER) on a LocalCluster of 1 and 2 worker processes, and a
byte-for-byte check of its CSV and JSON files against a reference directory (e.g. the
command's own output). docs/BENCHMARKS.md records the results.

    python bench/python_reproduce.py venice --workers 1 2 [--quick] [--compare docs/results/venice]
"""

import argparse
import filecmp
import time
from pathlib import Path

from distributed import Client, LocalCluster

import lagoon


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paper")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--compare", type=Path)
    a = ap.parse_args()
    print("| call | workers | wall s | CSV/JSON files identical to the reference |")
    print("|---|---|---|---|")
    for n in a.workers:
        out = Path(f"target/bench-py-{a.paper}{'-quick' if a.quick else ''}-{n}")
        with LocalCluster(n_workers=n, threads_per_worker=1, dashboard_address=":0") as c, Client(c) as client:
            start = time.perf_counter()
            lagoon.reproduce(a.paper, out=out, quick=a.quick, client=client, progress=False)
            wall = time.perf_counter() - start
        same = "-"
        if a.compare:
            names = sorted(p.name for p in a.compare.iterdir() if p.suffix in (".csv", ".json"))
            diff = [f for f in names if not filecmp.cmp(a.compare / f, out / f, shallow=False)]
            same = f"{len(names) - len(diff)} of {len(names)}" + (f" (differ: {', '.join(diff)})" if diff else "")
        call = f'lagoon.reproduce("{a.paper}"{", quick=True" if a.quick else ""}, client=...)'
        print(f"| `{call}` | {n} | {wall:.0f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
