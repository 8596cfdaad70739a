"""The Python package against the lagoon command: same reports, same errors, same files, on
a real two-process Dask LocalCluster."""

import filecmp
import json
import math
import pickle
import threading
import time

import pandas as pd
import pytest

import lagoon
from lagoon.core import flatten

from conftest import WALL_CLOCK, cli, strip

SMALL = "syn:read=70,size=4k,addr=uniform,arrival=qd:8,count=1500"
GRID = {
    "workload": [SMALL, "syn:hm_0,count=1500", "syn:read=100,size=16k,arrival=poisson:20us,count=1000"],
    "arch": ["baseline", "venice"],
    "seed": [1, 7],
}


def cli_report(workload, arch, seed):
    _, out, _ = cli("run", "--workload", workload, "--arch", arch, "--seed", seed, "--json", "-")
    return strip(json.loads(out))


def same(a, b):
    # JSON writes a non-finite number as null; pandas holds it as NaN.
    missing = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
    return (missing(a) and missing(b)) or a == b


def test_sweep_of_12_runs_equals_the_cli_field_by_field(client):
    df = lagoon.sweep(GRID, client=client, progress=False)
    assert len(df) == 12
    assert df["error"].isna().all()
    for _, row in df.iterrows():
        want = flatten(cli_report(row["workload"], row["arch"], row["seed"]))
        for k, v in want.items():
            assert same(row[k], v), (row["workload"], row["arch"], row["seed"], k, row[k], v)
    # Same seeds, same DataFrame, whatever runs it: two workers, or this process's threads.
    local = lagoon.sweep(GRID, progress=False)
    pd.testing.assert_frame_equal(df, local)


def test_a_failing_run_is_an_error_row_with_the_cli_message(client):
    grid = [
        {"workload": SMALL},
        {"workload": SMALL, "overrides": {"flash.read_nss": 3000}},
        {"workload": SMALL, "ssd": "no-such-drive"},
    ]
    df = lagoon.sweep(grid, client=client, progress=False)
    assert df["error"].isna().tolist() == [True, False, False]
    assert df.loc[1, "error"].startswith("overrides: unknown configuration key 'flash.read_nss'")
    _, _, err = cli("run", "--workload", SMALL, "--ssd", "no-such-drive", check=False)
    assert "error: " + df.loc[2, "error"] == err.strip()
    assert df.loc[0, "iops"] > 0 and math.isnan(df.loc[1, "iops"])


def test_results_pickle_and_come_back_intact_from_workers(client):
    remote = client.submit(lagoon.run, workload=SMALL, arch="pssd", seed=5, pure=False).result()
    local = lagoon.run(workload=SMALL, arch="pssd", seed=5)
    for r in (remote, local):
        for k in WALL_CLOCK:
            r.report.pop(k)
    assert remote == local
    pd.testing.assert_frame_equal(remote.latency_cdf(), local.latency_cdf())
    pd.testing.assert_frame_equal(remote.per_flow(), local.per_flow())
    assert pickle.loads(pickle.dumps(remote)) == remote
    # An error on a worker comes back as itself.
    with pytest.raises(lagoon.LagoonError, match="unknown SSD preset 'nope'"):
        client.submit(lagoon.run, workload=SMALL, ssd="nope", pure=False).result()


def test_reproduce_piq_quick_on_the_cluster_writes_the_cli_files(client, tmp_path):
    cli("reproduce", "piq", "--quick", "--quiet", "--out", tmp_path / "cli")
    out = lagoon.reproduce("piq", out=tmp_path / "py", quick=True, client=client, progress=False)
    csvs = sorted(p.name for p in (tmp_path / "cli").glob("*.csv"))
    assert "runs.csv" in csvs and "fig11_queue_length.csv" in csvs
    for name in csvs + ["runs.json", "summary.json", "figures.json", "headline_seeds.csv"]:
        assert filecmp.cmp(tmp_path / "cli" / name, f"{out}/{name}", shallow=False), name
    # headlines.json but for its provenance (command, executor, wall time); the figures too
    # (summary.md shows the provenance).
    a, b = (json.loads(p.read_text()) for p in (tmp_path / "cli" / "headlines.json",
                                              tmp_path / "py" / "headlines.json"))
    assert a["provenance"]["commit"] == b["provenance"]["commit"]
    a.pop("provenance"), b.pop("provenance")
    assert a == b
    for svg in (tmp_path / "cli").glob("*.svg"):
        assert filecmp.cmp(svg, f"{out}/{svg.name}", shallow=False), svg.name


def test_reproduce_superblocks_lifetimes_and_windows_run_on_the_cluster(client, tmp_path):
    # The lifetimes (functional runs) and the timed windows both go to the workers, and the
    # files are the command's (tiny drive: every figure in under a second).
    from lagoon import _dask, _lagoon

    # One seed: other seeds stall a window on the tiny drive (a core issue; cli.rs's ignored
    # test superblocks_windows_on_every_seed_of_the_tiny_drive).
    cli("reproduce", "superblocks", "--quick", "--tiny-drive", "--seeds", 1, "--quiet",
        "--out", tmp_path / "cli")
    kinds = []
    cluster = _dask.Executor(client, False)

    def executor(specs, quiet):
        kinds.extend(next(iter(json.loads(s))) for s in specs)
        return cluster(specs, quiet)

    _lagoon.reproduce("superblocks", str(tmp_path / "py"), quick=True, quiet=True,
                      executor=executor, tiny_drive=True, seeds=1)
    lives = len(json.loads((tmp_path / "cli" / "runs.json").read_text()))
    assert kinds.count("age") == lives > 0 and kinds.count("run") > 0, kinds
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert "fig14a_bad_superblocks.csv" in names and "fig15a_perf_vs_srt.csv" in names
    for name in names:
        a, b = tmp_path / "cli" / name, tmp_path / "py" / name
        if name in ("runs.json", "summary.json", "headlines.json"):
            # Identical but for wall-clock fields and the provenance (command, executor).
            va, vb = json.loads(a.read_text()), json.loads(b.read_text())
            if isinstance(va, dict):
                va.pop("provenance", None), vb.pop("provenance", None)
            assert _no_wall(va) == _no_wall(vb), name
        elif name != "summary.md":  # it states the provenance
            assert filecmp.cmp(a, b, shallow=False), name


def _no_wall(v):
    """A JSON value without its wall-clock fields and command line."""
    wall = ("wall_s", "page_programs_per_s", "page_programs_per_s_per_thread", "command")
    if isinstance(v, dict):
        return {k: _no_wall(x) for k, x in v.items() if k not in wall}
    if isinstance(v, list):
        return [_no_wall(x) for x in v]
    return v


def test_hostile_arguments_are_one_error_naming_the_argument(tmp_path):
    cases = [
        (lambda: lagoon.run(workload=123), TypeError, "workload"),
        (lambda: lagoon.run(workload=["syn:count=10", 7]), TypeError, "workload"),
        (lambda: lagoon.run(workload="syn:count=10", seed=-1), ValueError, "seed must be"),
        (lambda: lagoon.reproduce("piq", out=tmp_path, requests=-5), ValueError, "requests"),
        (lambda: lagoon.reproduce("piq", out=tmp_path, requests=0), ValueError, "requests"),
        (lambda: lagoon.reproduce("piq", out=tmp_path, jobs="2"), TypeError, "jobs"),
        (lambda: lagoon.reproduce("piq", out=tmp_path, seed=-1), ValueError, "seed"),
        (lambda: lagoon.reproduce("piq", out=tmp_path, seed=2**64), ValueError, "seed"),
        (lambda: lagoon.reproduce("nope", out=tmp_path), lagoon.LagoonError, "unknown paper"),
    ]
    for call, kind, needle in cases:
        with pytest.raises(kind) as e:
            call()
        assert needle in str(e.value), str(e.value)
    # In a sweep a bad point is an error row, the others run.
    df = lagoon.sweep({"workload": ["syn:read=100,count=50", 5]}, progress=False)
    assert df["error"].isna().tolist() == [True, False] and "workload" in df["error"][1]


def test_report_is_the_cli_json_and_the_cdf_the_cli_csv(tmp_path):
    r = lagoon.run(workload=SMALL, arch="venice", replay="closed:16", seed=3)
    cli("run", "--workload", SMALL, "--arch", "venice", "--replay", "closed:16", "--seed", 3,
        "--json", tmp_path / "r.json", "--cdf", tmp_path / "cdf.csv")
    want = json.loads((tmp_path / "r.json").read_text())
    # Same drive, same build: the provenance differs only in the command that asked.
    assert r.report["provenance"]["config_hash"] == want["provenance"]["config_hash"]
    assert r.report["provenance"]["commit"] == want["provenance"]["commit"]
    assert r.report["provenance"]["command"].startswith("lagoon.run: lagoon run ")
    assert strip(r.report) == strip(want)
    csv = pd.read_csv(tmp_path / "cdf.csv")
    got = r.latency_cdf()
    assert got[["class", "latency_ns"]].equals(csv[["class", "latency_ns"]])
    assert (got["cumulative_fraction"].round(6) == csv["cumulative_fraction"]).all()
    assert len(r.per_flow()) == 1


def test_configs_dicts_and_overrides(tmp_path):
    assert "perf-optimized" in lagoon.presets()
    cfg = lagoon.config("cost-optimized")
    assert cfg["flash"]["read_ns"] == 45000.0
    by_dict = lagoon.run(workload=SMALL, ssd=cfg)
    by_name = lagoon.run(workload=SMALL, ssd="cost-optimized")
    assert by_dict.report["provenance"]["config_hash"] == by_name.report["provenance"]["config_hash"]
    for r in (by_dict, by_name):
        strip(r.report)
    assert by_dict.report == by_name.report
    # A dict may start from a preset, as a TOML file may.
    assert lagoon.config({"base": "cost-optimized", "flash": {"read_ns": 3000}})["flash"]["program_ns"] == cfg["flash"]["program_ns"]
    # An override is the same drive as a TOML file with that key.
    slow = lagoon.run(workload=SMALL, overrides={"flash.read_ns": 30000, "cache.enabled": False})
    (tmp_path / "slow.toml").write_text("[flash]\nread_ns = 30000.0\n[cache]\nenabled = false\n")
    _, out, _ = cli("run", "--workload", SMALL, "--json", "-", "--ssd", tmp_path / "slow.toml")
    want = json.loads(out)
    assert want["provenance"]["config_hash"] == slow.report["provenance"]["config_hash"]
    strip(want), strip(slow.report)
    want["ssd"] = slow.report["ssd"]
    assert slow.report == want
    with pytest.raises(lagoon.LagoonError, match=r"flash.read_ns = -1: must be"):
        lagoon.run(workload=SMALL, overrides={"flash.read_ns": -1})
    # The command's refusal, named as the keyword argument (issue 43: it said '--arch <ARCH>').
    _, _, err = cli("run", "--workload", SMALL, "--arch", "warp", check=False)
    with pytest.raises(ValueError) as e:
        lagoon.run(workload=SMALL, arch="warp")
    assert err.splitlines()[0] == "error: invalid value 'warp' for '--arch <ARCH>'"
    assert str(e.value).startswith("arch: invalid value 'warp'; [possible values: baseline,"), e.value


def test_the_gil_is_released_while_simulating():
    ticks = 0
    done = threading.Event()

    def simulate():
        lagoon.run(workload="syn:read=70,size=4k,arrival=qd:32,count=60000")
        done.set()

    t = threading.Thread(target=simulate)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    # A held GIL would stop this loop for the whole run.
    assert time.perf_counter() - start > 0.05
    assert ticks > 10


def test_import_mqsim_is_the_cli_import(tmp_path):
    xml = "../shared/validation/mqsim/ssdconfig-perf-optimized.xml"
    wl = "../shared/validation/mqsim/workload-tpcc.xml"
    imp = lagoon.import_mqsim(xml, wl, out=tmp_path)
    _, out, _ = cli("import", "mqsim", xml, wl)
    assert out.startswith(imp["toml"])
    assert imp["runs"] == [["--workload", "../shared/traces/tpcc-small.trace", "--format", "mqsim", "--replay", "timed"]]
    assert imp["config"]["flash"]["command_timing"] == "onfi"
    assert any(p == "Page_Metadat_Capacity" for p, _, _ in imp["not_modelled"])
    assert (tmp_path / "ssdconfig-perf-optimized.toml").read_text() == imp["toml"]


def test_plot_helpers_return_figures():
    import matplotlib

    matplotlib.use("Agg")
    df = lagoon.sweep({"workload": [SMALL], "arch": ["baseline", "ideal"], "seed": [1, 2]}, progress=False)
    figs = [
        lagoon.plot.speedup_bars(df),
        lagoon.plot.latency_vs_load(df, load="seed"),
        lagoon.plot.heatmap(df, x="arch", y="seed", value="latency_ns.p99"),
        lagoon.plot.latency_cdf({"baseline": lagoon.run(workload=SMALL)}),
    ]
    assert all(isinstance(f, matplotlib.figure.Figure) for f in figs)


def test_a_section_given_as_a_list_is_refused_by_name():
    # A list would fill a section's keys by position (issue 32: {"flash": [2, 4]} was a 2x4 drive).
    with pytest.raises(lagoon.LagoonError, match=r"\[flash\]"):
        lagoon.config({"flash": [2, 4]})
    with pytest.raises(lagoon.LagoonError, match=r"\[ftl\.mapping\]"):
        lagoon.config({"ftl": {"mapping": ["demand", 5, 8]}})


def test_a_sensitivity_search_on_the_cluster_gives_the_commands_numbers(client, tmp_path):
    # Every reading's runs (changed drives, lifetimes and windows) go to the workers; each
    # reading's headline values are the command's.
    from lagoon import _dask, _lagoon

    cli("reproduce", "superblocks", "--sensitivity", "--quick", "--tiny-drive", "--quiet",
        "--out", tmp_path / "cli")
    specs_seen = []
    cluster = _dask.Executor(client, False)

    def executor(specs, quiet):
        specs_seen.extend(specs)
        return cluster(specs, quiet)

    _lagoon.reproduce("superblocks", str(tmp_path / "py"), quick=True, quiet=True,
                      executor=executor, tiny_drive=True, sensitivity=True)
    a, b = (json.loads((tmp_path / d / "sensitivity.json").read_text()) for d in ("cli", "py"))
    assert len(a["points"]) == len(b["points"]) > 9
    for pa, pb in zip(a["points"], b["points"]):
        assert (pa["readings"], pa["values"]) == (pb["readings"], pb["values"])
    assert a["headlines"] == b["headlines"]
    assert specs_seen
    with pytest.raises(ValueError, match="sensitivity cannot be combined"):
        lagoon.reproduce("venice", out=tmp_path / "x", sensitivity=True, render_only=True)
