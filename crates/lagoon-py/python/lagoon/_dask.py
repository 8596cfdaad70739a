"""Running batches of simulations on a Dask cluster (dask.distributed is only imported when a
client is given)."""

from __future__ import annotations

import os
import sys
import time


def client_of(client):
    """A dask.distributed Client, or a scheduler address to connect one to."""
    from distributed import Client

    if isinstance(client, Client):
        return client
    if isinstance(client, str):
        return Client(client)
    raise TypeError("client must be a dask.distributed.Client or a scheduler address")


def plain_every() -> float:
    """Seconds between two plain progress lines, as the command: 10, or
    LAGOON_PROGRESS_EVERY_S (0 to 3600)."""
    try:
        s = float(os.environ.get("LAGOON_PROGRESS_EVERY_S", "10"))
    except ValueError:
        return 10.0
    return s if 0 <= s <= 3600 else 10.0


class Progress:
    """`what: done/total` on standard error: redrawn in place on a terminal; elsewhere (a
    log, a notebook's captured stream) a plain line at most every 10 s and at the end, as
    the command prints its progress off a terminal (carriage returns ran the lines
    together in logs)."""

    def __init__(self, total: int, what: str, on: bool):
        self.total, self.what, self.on, self.done = total, what, on and total > 0, 0
        isatty = getattr(sys.stderr, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.every, self.last = plain_every(), time.monotonic()
        if self.tty:
            self._draw()

    def step(self):
        self.done += 1
        if not self.on:
            return
        now = time.monotonic()
        if self.tty or self.done == self.total or now - self.last >= self.every:
            self.last = now
            self._draw()

    def _draw(self):
        if not self.on:
            return
        line = f"{self.what}: {self.done}/{self.total}"
        if self.tty:
            end = "\n" if self.done == self.total else ""
            print(f"\r{line}", end=end, file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)


def gather(client, fn, items, what: str, progress: bool) -> list:
    """fn(item) for every item on the cluster; results in item order. Ctrl-C (or any error
    while waiting) cancels every future not yet finished before it is raised."""
    from distributed import as_completed

    futures = client.map(fn, items, pure=False)
    bar = Progress(len(futures), what, progress)
    try:
        for _ in as_completed(futures):
            bar.step()
        return client.gather(futures)
    except BaseException:
        client.cancel(futures)
        raise


def _run_job(spec: str):
    from . import _lagoon

    return _lagoon.run_job(spec)


class Executor:
    """What `_lagoon.reproduce` calls with a batch of job specs: runs them on the cluster and
    returns their records in order."""

    def __init__(self, client, progress: bool):
        self.client, self.progress = client, progress

    def __call__(self, specs, quiet):
        return gather(self.client, _run_job, list(specs), "runs", self.progress and not quiet)

    def __str__(self):
        n = len(self.client.scheduler_info().get("workers", {}))
        return f"{n} Dask workers"
