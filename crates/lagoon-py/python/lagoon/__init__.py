"""Lagoon from Python: the simulator of SSDs with networked flash back ends.

    import lagoon
    r = lagoon.run(workload="syn:hm_0,count=20000", arch="venice")
    r.report["iops"], r.latency_cdf(), r.per_flow()

`sweep` runs a grid of simulations on every local core or a Dask cluster, `reproduce` a
paper's evaluation (the same files as `lagoon reproduce`), `import_mqsim` an MQSim
configuration, and `lagoon.plot` draws the usual figures from a sweep.
"""

from ._lagoon import LagoonError, cancel_all, presets
from .core import Result, config, import_mqsim, run
from .reproduce import reproduce
from .sweep import sweep

__all__ = [
    "LagoonError",
    "Result",
    "cancel_all",
    "config",
    "import_mqsim",
    "plot",
    "presets",
    "reproduce",
    "run",
    "sweep",
]


def __getattr__(name):
    # matplotlib is imported only when plotting is asked for.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'lagoon' has no attribute '{name}'")
