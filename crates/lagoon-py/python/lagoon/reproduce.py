"""A paper's evaluation, as `lagoon reproduce`, its runs optionally on a Dask cluster."""

from __future__ import annotations

import os

from . import _dask, _lagoon


def _whole(name: str, v, least: int):
    # The command's ranges (clap would name the flag); here before PyO3's unsigned conversion.
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be a whole number, got {v!r}")
    if not least <= v < 2**64:
        raise ValueError(f"{name} must be in {least}..2^64, got {v}")
    return v


def reproduce(
    paper: str,
    out=None,
    quick: bool = False,
    client=None,
    *,
    requests: int | None = None,
    traces=None,
    seed: int = 1,
    seeds: int | None = None,
    notes=None,
    jobs: int | None = None,
    progress: bool = True,
    render_only: bool = False,
    refresh_evidence: bool = False,
    sensitivity: bool = False,
) -> str:
    """`lagoon reproduce PAPER` ("venice", "piq", "mqsimnet", "dssd", ...): every run, the
    CSV/JSON data, SVG figures and summary in `out` (default results/PAPER), the same files
    as the command writes. With a client (dask.distributed Client or scheduler address) the
    runs are spread over its workers; without, `jobs` local threads (default every core).
    `seeds` seeds per headline cell (default 5, 2 with quick); `render_only` redraws the
    figures and summary of the results in `out` without simulating; `refresh_evidence`
    rewrites only the evidence fields of `out`'s headlines.json from the paper's data file
    (nothing simulated). `sensitivity` searches the parameters the paper leaves open (venice,
    mqsimnet, dssd, superblocks): each reading a whole reproduction, its runs on the client
    when one is given; `out` defaults to results/sensitivity/PAPER. Ctrl-C stops the runs
    (a cluster's pending futures are cancelled) and leaves `out` as it was.
    Returns the output directory."""
    if sensitivity and (render_only or refresh_evidence or notes is not None):
        raise ValueError("sensitivity cannot be combined with render_only, refresh_evidence or notes")
    if out is None:
        out = f"results/sensitivity/{paper}" if sensitivity else f"results/{paper}"
    out = os.fspath(out)
    requests, jobs = _whole("requests", requests, 1), _whole("jobs", jobs, 1)
    seed = _whole("seed", seed, 0)
    seeds = _whole("seeds", seeds, 1)
    if seeds is not None and seeds > 100:
        raise ValueError(f"seeds must be in 1..100, got {seeds}")
    executor = None if client is None else _dask.Executor(_dask.client_of(client), progress)
    path = lambda p: None if p is None else os.fspath(p)  # noqa: E731
    _lagoon.reproduce(
        paper, out, quick, requests, path(traces), seed, path(notes), jobs,
        not progress, executor, False, seeds, bool(render_only), bool(refresh_evidence),
        bool(sensitivity),
    )
    return out
