"""Wall time of lagoon.reproduce(PAPER) on a LocalCluster of 1 and 2 worker processes, and a
byte-for-byte check of its CSV and JSON files against a reference directory (e.g. the
command's own output). A JSON file that differs only in wall-clock fields (superblocks' runs.json
and summary.json state each lifetime's wall time and the command line) counts as identical and
is named so. docs/BENCHMARKS.md records the results.

    python bench/python_reproduce.py venice --workers 1 2 [--quick] [--compare docs/results/venice]
"""

import argparse
import filecmp
import json
import time
from pathlib import Path

from distributed import Client, LocalCluster

import lagoon


WALL = ("wall_s", "page_programs_per_s", "page_programs_per_s_per_thread", "command")


def no_wall(v):
    if isinstance(v, dict):
        return {k: no_wall(x) for k, x in v.items() if k not in WALL}
    if isinstance(v, list):
        return [no_wall(x) for x in v]
    return v


def same_but_wall(a: Path, b: Path) -> bool:
    return a.suffix == ".json" and no_wall(json.loads(a.read_text())) == no_wall(json.loads(b.read_text()))


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
            seconds = time.perf_counter() - start
        same = "-"
        if a.compare:
            names = sorted(p.name for p in a.compare.iterdir() if p.suffix in (".csv", ".json"))
            diff = [f for f in names if not filecmp.cmp(a.compare / f, out / f, shallow=False)]
            wall = [f for f in diff if same_but_wall(a.compare / f, out / f)]
            diff = [f for f in diff if f not in wall]
            same = f"{len(names) - len(diff)} of {len(names)}" + (f" (differ: {', '.join(diff)})" if diff else "")
            same += f" ({', '.join(wall)}: but for wall-clock fields)" if wall else ""
        call = f'lagoon.reproduce("{a.paper}"{", quick=True" if a.quick else ""}, client=...)'
        print(f"| `{call}` | {n} | {seconds:.0f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
