"""Many simulations at once: one DataFrame row per run."""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import pandas as pd

from . import _args, _dask, _lagoon
from ._lagoon import LagoonError
from .core import flatten, run

# Wall-clock fields differ between runs of the same simulation; a sweep leaves them out so
# that the same seeds give the same DataFrame anywhere.
WALL_CLOCK = ("wall_time_s", "events_per_s", "requests_per_wall_s")


def points(grid) -> list[dict]:
    """A dict of lists (their cartesian product, in key order; a value that is not a list is
    the same for every run) or a list of dicts, as a list of `run` keyword dicts."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        values = [v if isinstance(v, list) else [v] for v in grid.values()]
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    if isinstance(grid, Sequence) and all(isinstance(p, Mapping) for p in grid):
        return [dict(p) for p in grid]
    raise TypeError("grid must be a dict of lists or a list of dicts")


def run_point(params: dict) -> dict:
    """One row: the parameters, `error` (None, or the message of a run that failed) and every
    scalar of the report as a dotted column (`latency_ns.p99`, `iops`, ...)."""
    row = {k: _cell(v) for k, v in params.items()}
    try:
        report = run(**params).report
    except (LagoonError, TypeError, ValueError) as e:
        row["error"] = str(e)
        return row
    row["error"] = None
    metrics = {k: v for k, v in report.items() if k not in WALL_CLOCK}
    row.update(flatten(metrics))
    return row


def _cell(v):
    # Lists (several flows) and dicts (overrides) as hashable, readable cells.
    if isinstance(v, Mapping):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return " + ".join(map(str, v))
    return v


def sweep(grid, client=None, progress: bool = True) -> pd.DataFrame:
    """Run every point of `grid` (see `points`) and return one row per run, in grid order.
    No client: every local core (the GIL is released while simulating). A
    dask.distributed Client or a scheduler address: the runs go to that cluster. A run that
    fails gives a row with its `error`, not a failed sweep."""
    _args.flag("progress", progress)
    pts = points(grid)
    if client is None:
        bar = _dask.Progress(len(pts), "sweep", progress)

        def one(p):
            row = run_point(p)
            bar.step()
            return row

        pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        try:
            rows = list(pool.map(one, pts))
        except BaseException:
            # Ctrl-C: the runs in the worker threads stop at their next look at the flag,
            # the ones not started never start.
            _lagoon.cancel_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()
    else:
        rows = _dask.gather(_dask.client_of(client), run_point, pts, "sweep", progress)
    columns = list(dict.fromkeys(k for p in pts for k in p))
    columns.append("error")
    columns += list(dict.fromkeys(k for r in rows for k in r if k not in columns))
    return pd.DataFrame(rows, columns=columns)
