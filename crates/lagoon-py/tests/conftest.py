"""Shared by the Python tests: the project root as working directory (the traces are in
../shared), the lagoon binary the Rust tests built, and one LocalCluster with two worker
processes for the whole session."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LAGOON = ROOT / "target" / "release" / "lagoon"
WALL_CLOCK = ("wall_time_s", "events_per_s", "requests_per_wall_s")


def strip(report: dict) -> dict:
    """A report without what differs between equal runs: wall-clock fields, and provenance
    (its command line names the caller)."""
    for k in (*WALL_CLOCK, "provenance"):
        report.pop(k, None)
    return report

# Before the cluster starts, so its worker processes resolve ../shared the same way.
os.chdir(ROOT)


def cli(*args, check=True):
    """Run the lagoon command: (exit code, stdout, stderr)."""
    if not LAGOON.exists():
        pytest.fail(f"{LAGOON} missing: build it with `cargo build --release` first")
    p = subprocess.run([str(LAGOON), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        pytest.fail(f"lagoon {' '.join(map(str, args))}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c
