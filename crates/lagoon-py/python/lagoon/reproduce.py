"""A paper's evaluation, as `lagoon reproduce`, its runs optionally on a Dask cluster."""

from __future__ import annotations

from . import _args, _dask, _lagoon


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
    # Every argument by type and range first, named as the caller wrote it.
    paper = _args.text("paper", paper, "a paper's name (venice, piq, mqsimnet, dssd, superblocks, all)")
    for key, v in [("quick", quick), ("progress", progress), ("render_only", render_only),
                   ("refresh_evidence", refresh_evidence), ("sensitivity", sensitivity)]:
        _args.flag(key, v)
    if sensitivity and (render_only or refresh_evidence or notes is not None):
        raise ValueError("sensitivity cannot be combined with render_only, refresh_evidence or notes")
    if out is None:
        out = f"results/sensitivity/{paper}" if sensitivity else f"results/{paper}"
    out = _args.path("out", out, "a directory")
    requests, jobs = _args.whole("requests", requests, 1), _args.whole("jobs", jobs, 1)
    seed = _args.whole("seed", seed, 0)
    seeds = _args.whole("seeds", seeds, 1, 100)
    traces = _args.path("traces", traces, "a directory of traces", optional=True)
    notes = _args.path("notes", notes, "a Markdown file", optional=True)
    executor = None if client is None else _dask.Executor(_dask.client_of(client), progress)
    _lagoon.reproduce(
        paper, out, quick, requests, traces, seed, notes, jobs,
        not progress, executor, False, seeds, render_only, refresh_evidence, sensitivity,
    )
    return out
