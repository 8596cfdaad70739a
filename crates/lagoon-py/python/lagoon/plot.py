"""matplotlib figures people draw from sweeps; each function returns the Figure.

Column names are those of `lagoon.sweep` (parameters such as `arch`, `workload`, `mesh`, and
dotted metrics such as `iops`, `latency_ns.mean`, `latency_ns.p99`)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

# Units of the metrics the helpers label most often.
UNITS = {
    "iops": "IOPS",
    "bandwidth_mb_s": "MB/s",
    "sim_time_ns": "ns",
}


def _label(col: str) -> str:
    if col in UNITS:
        return f"{col} ({UNITS[col]})"
    if "latency_ns" in col:
        # "device_read_latency_ns.p99" -> "device read latency, p99 (us)"
        base, _, stat = col.partition(".")
        kind = base.replace("latency_ns", "").replace("_", " ").strip()
        return f"{kind + ' ' if kind else ''}latency{', ' + stat if stat else ''} (us)"
    return col


def _scale(col: str, v):
    # Latencies are reported in ns; figures show us.
    return v / 1e3 if "latency_ns" in col else v


def speedup_bars(df: pd.DataFrame, metric: str = "iops", design: str = "arch",
                 baseline: str = "baseline", group: str = "workload",
                 higher_is_better: bool = True, title: str | None = None):
    """Per group, each design's `metric` over the baseline design's (a time metric is
    inverted when `higher_is_better` is False), with a geometric-mean group."""
    ok = df[df["error"].isna()] if "error" in df else df
    table = ok.pivot_table(index=group, columns=design, values=metric, aggfunc="mean", sort=False)
    if baseline not in table:
        raise ValueError(f"no rows with {design} = {baseline}")
    ratio = table.div(table[baseline], axis=0)
    if not higher_is_better:
        ratio = 1.0 / ratio
    ratio.loc["geomean"] = np.exp(np.log(ratio).mean())
    fig, ax = plt.subplots(figsize=(max(6.0, 0.3 * ratio.size + 2), 4.5))
    ratio.plot.bar(ax=ax, width=0.8)
    ax.set_xticks(range(len(ratio)), [str(g) for g in ratio.index], rotation=20, ha="right")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel(f"{metric} speed-up over {baseline}")
    ax.set_xlabel(group)
    ax.set_ylim(0, max(1.1, float(np.nanmax(ratio.to_numpy())) * 1.1))
    ax.legend(title=design, fontsize="small")
    _finish(fig, ax, title)
    return fig


def _finish(fig, ax, title):
    if title:
        ax.set_title(title, fontsize="small")
    fig.tight_layout()


def latency_cdf(results: dict, cls: str = "all", title: str | None = None):
    """End-to-end latency CDFs of several runs: `results` maps a label to a lagoon.Result."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, r in results.items():
        c = r.latency_cdf()
        c = c[c["class"] == cls]
        ax.step(c["latency_ns"] / 1e3, c["cumulative_fraction"], where="post", label=str(label))
    ax.set_xscale("log")
    ax.set_xlabel(f"{cls} end-to-end latency (us, log)")
    ax.set_ylabel("cumulative fraction")
    ax.set_ylim(0, 1.01)
    ax.legend(fontsize="small")
    _finish(fig, ax, title)
    return fig


def _number(v) -> float:
    """A load cell as a number: itself, or the last number in its text ("closed:16" -> 16,
    "qd:8" -> 8), so loads sort as numbers, never as text ("16" < "8")."""
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    found = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", str(v))
    return float(found[-1]) if found else float("nan")


def latency_vs_load(df: pd.DataFrame, load: str, latency: str = "latency_ns.mean",
                    hue: str = "arch", load_label: str | None = None, title: str | None = None):
    """Latency against offered load (a parameter column such as a queue depth, a gap or a
    replay such as "closed:16"), one line per `hue` value, points in numeric load order."""
    ok = df[df["error"].isna()] if "error" in df else df
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, g in ok.groupby(hue, sort=False):
        x = g[load].map(_number)
        order = x.sort_values(kind="stable").index
        ax.plot(x[order], _scale(latency, g.loc[order, latency]), marker="o", label=str(name))
    ax.set_xlabel(load_label or load)
    ax.set_ylabel(_label(latency))
    ax.set_ylim(bottom=0)
    ax.legend(title=hue, fontsize="small")
    _finish(fig, ax, title)
    return fig


def heatmap(df: pd.DataFrame, x: str, y: str, value: str, fmt: str = "{:.3g}",
            title: str | None = None):
    """`value` (mean over repeated cells) on an x by y grid, each cell annotated."""
    ok = df[df["error"].isna()] if "error" in df else df
    table = ok.pivot_table(index=y, columns=x, values=value, aggfunc="mean", sort=False)
    data = _scale(value, table.to_numpy(dtype=float))
    fig, ax = plt.subplots(figsize=(1.2 * len(table.columns) + 2.5, 0.6 * len(table) + 1.8))
    im = ax.imshow(data, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns], rotation=30, ha="right")
    ax.set_yticks(range(len(table.index)), [str(i) for i in table.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    mid = np.nanmean(data)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            if np.isfinite(data[i, j]):
                ax.text(j, i, fmt.format(data[i, j]), ha="center", va="center",
                        color="white" if data[i, j] < mid else "black", fontsize="small")
    bar = fig.colorbar(im, ax=ax, label=_label(value))
    bar.formatter.set_scientific(False)  # no "1e6" offset above the bar
    bar.update_ticks()
    _finish(fig, ax, title)
    return fig
