"""Sweep every design over three flash-array shapes (Venice Fig. 15: 4x16, 8x8, 16x4 over the
same 64 chips) on a local Dask cluster, then draw throughput per shape and design.

    pip install '.[dask,plot]'        # from the checkout root
    python examples/sweep_designs_meshes.py [OUT_DIR]

About 5 s on 2 cores. Point `Client(...)` at a real scheduler to run it on a cluster.
"""

import sys
from pathlib import Path

from distributed import Client, LocalCluster

import lagoon

GRID = {
    "workload": ["syn:hm_0,count=5000", "syn:read=100,size=4k,addr=uniform,count=20000"],
    "arch": ["baseline", "pssd", "nossd", "venice", "ideal"],
    "mesh": ["4x16", "8x8", "16x4"],
    "replay": ["closed:32"],
}


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        df = lagoon.sweep(GRID, client=client)
    df.to_csv(out / "sweep.csv", index=False)
    failed = df[df["error"].notna()]
    if len(failed):
        print(failed[["workload", "arch", "mesh", "error"]].to_string(), file=sys.stderr)
    for i, (workload, runs) in enumerate(df.groupby("workload", sort=False)):
        fig = lagoon.plot.heatmap(runs, x="mesh", y="arch", value="iops",
                                  title=f"IOPS, closed loop 32: {workload}")
        fig.savefig(out / f"iops_heatmap_{i}.png", dpi=120)
        fig = lagoon.plot.speedup_bars(runs, metric="iops", group="mesh",
                                       title=f"speed-up over baseline: {workload}")
        fig.savefig(out / f"speedup_{i}.png", dpi=120)
    print(df[["workload", "arch", "mesh", "iops", "latency_ns.p99"]].to_string())
    print(f"wrote {out}/sweep.csv and the figures")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "results/example-sweep"))
