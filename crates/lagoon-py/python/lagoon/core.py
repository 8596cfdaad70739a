"""One simulation, configurations and the MQSim import."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from . import _args, _lagoon


class Result:
    """A finished run: `report` is the `lagoon run --json` report as a dict."""

    def __init__(self, report: dict, params: dict, cdf):
        self.report = report
        self.params = params
        self._cdf = cdf

    def latency_cdf(self) -> pd.DataFrame:
        """End-to-end latency CDF, as `lagoon run --cdf` writes it: class (all, read, write),
        latency_ns, cumulative_fraction."""
        rows = [
            (cls, v, f)
            for cls, points in zip(("all", "read", "write"), self._cdf)
            for v, f in points
        ]
        return pd.DataFrame(rows, columns=["class", "latency_ns", "cumulative_fraction"])

    def per_flow(self) -> pd.DataFrame:
        """One row per flow (NVMe queue pair), nested statistics as dotted columns."""
        return pd.DataFrame([flatten(f) for f in self.report["flows"]])

    def __repr__(self) -> str:
        r = self.report
        return (
            f"<lagoon.Result {r['ssd']} / {r['arch']} / {r['workload']}: "
            f"{r['requests']} requests, {r['iops']:.0f} IOPS, "
            f"mean {r['latency_ns']['mean'] / 1e3:.1f} us>"
        )

    def __eq__(self, other) -> bool:
        return isinstance(other, Result) and (self.report, self.params) == (
            other.report,
            other.params,
        )


def flatten(d: Mapping, prefix: str = "") -> dict:
    """Nested dicts as dotted keys; lists (CDFs, per-link arrays, flows) are left out."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, key + "."))
        elif not isinstance(v, list):
            out[key] = v
    return out


def run(
    workload: str | Sequence[str],
    ssd: str | os.PathLike | Mapping = "perf-optimized",
    arch: str = "baseline",
    replay: str | None = None,
    seed: int = 1,
    overrides: Mapping | None = None,
    *,
    mesh: str | None = None,
    design: str | None = None,
    host_scheduler: str | None = None,
    host_queue: int | None = None,
    repeat: int = 1,
    format: str | None = None,
    lenient: bool = False,
    device: int | None = None,
) -> Result:
    """One simulation, as `lagoon run` with the same options (`workload` a trace path or
    `syn:` spec, or a list of them for several flows; `ssd` a preset, TOML path or dict;
    `overrides` dotted keys such as {"flash.read_ns": 3000}). Raises LagoonError with the
    command's message. The GIL is released while it runs."""
    params = dict(
        workload=workload, ssd=ssd, arch=arch, replay=replay, seed=seed, overrides=overrides,
        mesh=mesh, design=design, host_scheduler=host_scheduler, host_queue=host_queue,
        repeat=repeat, format=format, lenient=lenient, device=device,
    )
    # Every argument by type first, named as the caller wrote it; values the command checks
    # (arch's words, mesh's shape) come back from it under the same names.
    workloads = _args.paths("workload", workload, "a trace path or syn: spec")
    if isinstance(ssd, Mapping):
        name, cfg = str(ssd.get("name", "config")), dict(ssd)
    else:
        name, cfg = _args.path("ssd", ssd, "a preset name, a TOML path or a dict"), None
    _args.text("arch", arch, "a back end's name")
    _args.whole("seed", seed, 0)
    _args.whole("repeat", repeat, 1, 2**32 - 1)
    _args.whole("host_queue", host_queue, 1, 65536)
    _args.whole("device", device, 0, 2**32 - 1)
    _args.flag("lenient", lenient)
    _args.mapping("overrides", overrides, "a dict of dotted keys")
    for key, v, what in [
        ("replay", replay, "timed, timed:<speed-up> or closed:<depth>"),
        ("mesh", mesh, "ROWSxCOLS"),
        ("design", design, "a Decoupled SSD configuration's name"),
        ("host_scheduler", host_scheduler, "a host scheduler's name"),
        ("format", format, "a trace format's name"),
    ]:
        _args.text(key, v, what, optional=True)
    # `--flag=value`, so a value such as -1 is read as the flag's.
    args = [f"--ssd={name}", f"--arch={arch}", f"--seed={seed}", f"--repeat={repeat}"]
    args += [f"--workload={w}" for w in workloads]
    for flag, v in [
        ("--replay", replay), ("--mesh", mesh), ("--design", design),
        ("--host-scheduler", host_scheduler), ("--host-queue", host_queue),
        ("--format", format), ("--device", device),
    ]:
        if v is not None:
            args.append(f"{flag}={v}")
    if lenient:
        args.append("--lenient")
    text, cdf = _lagoon.run(args, cfg, dict(overrides) if overrides else None)
    return Result(json.loads(text), params, cdf)


def config(spec: str | os.PathLike | Mapping = "perf-optimized") -> dict:
    """A configuration (preset name, TOML path, or dict laid out as the TOML files, `base`
    allowed) as a dict of every key, checked as `--ssd` checks it."""
    if isinstance(spec, Mapping):
        return _lagoon.config(spec)
    return _lagoon.config(_args.path("spec", spec, "a preset name, a TOML path or a dict"))


def import_mqsim(ssd_xml, workload_xml=None, out=None) -> dict:
    """`lagoon import mqsim`: {"name", "toml", "config" (the dict), "runs" (per MQSim IO
    scenario, the `run` options), "not_modelled" [(parameter, value, reason)]}; files
    written to `out` when given."""
    imp = _lagoon.import_mqsim(
        _args.path("ssd_xml", ssd_xml, "an MQSim device configuration file"),
        _args.path("workload_xml", workload_xml, "an MQSim workload file", optional=True),
        _args.path("out", out, "a directory", optional=True),
    )
    imp["config"] = _lagoon.config_from_toml(imp["toml"], imp["name"])
    return imp
