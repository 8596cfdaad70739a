#!/usr/bin/env python3
"""Hostile Python objects for the package (docs/ROBUSTNESS.md): configuration dicts and
overrides built from random nesting (deep, wide, self-referencing), keys of every type, and
values of every type (None, bools, huge and negative integers, NaN, infinities, strings,
bytes, numpy scalars, sets, objects, functions), given to `lagoon.config` and
`lagoon.run(..., overrides=...)`; and `run` / `sweep` / `reproduce` arguments of the wrong
type or range. A case passes when it returns, or raises LagoonError, TypeError or
ValueError with a message; it fails on any other exception, an empty message, a value
outside a key's range that is accepted, or a crash of the interpreter (the script then dies:
run it under `timeout` and check its exit status).

Usage (the package installed, e.g. target/py-venv after scripts/test):
    target/py-venv/bin/python bench/fuzz_py.py [CASES] [SEED] [TIMEOUT_S]   (defaults 10000, 1, 30)
"""
import math
import random
import signal
import sys

import numpy as np

import lagoon

CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
# A case still running after this long is stopped (an alarm the package sees as Ctrl-C).
TIMEOUT_S = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0

CFG = lagoon.config("perf-optimized")
SECTIONS = [k for k, v in CFG.items() if isinstance(v, dict)]


class Odd:
    def __repr__(self):
        return "Odd()"


VALUES = [None, True, False, 0, 1, -1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**100,
          0.0, -0.0, 1e-300, 1e300, math.nan, math.inf, -math.inf, "", "x", "nan", "1e3",
          b"bytes", [1, 2], (3, 4), {1, 2}, {}, {"a": 1}, Odd(), print, np.int64(7),
          np.float64(3.5), np.float32(math.nan), np.uint64(2**64 - 1), complex(1, 2)]
KEYS = ["read_ns", "channels", "bogus", 7, None, (1,), "", "a.b", "ä", 3.5]


def value(rng, depth=0):
    r = rng.random()
    if r < 0.7 or depth > 40:
        return rng.choice(VALUES)
    if r < 0.85:
        return {rng.choice(KEYS): value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def deep(rng):
    d = cur = {}
    for _ in range(rng.choice([10, 17, 100, 10_000])):
        cur["flash"] = {}
        cur = cur["flash"]
    return d


def config_case(rng):
    kind = rng.random()
    if kind < 0.1:
        return deep(rng), False
    if kind < 0.2:
        d = {"base": "perf-optimized", "flash": {}}
        d["flash"]["self"] = d
        return d, False
    d = {"base": "perf-optimized"}
    for _ in range(rng.randint(1, 4)):
        sec = rng.choice(SECTIONS + ["bogus"])
        key = rng.choice(list(CFG.get(sec, {"x": 1})) + KEYS)
        d.setdefault(sec, {})
        if isinstance(d[sec], dict):
            d[sec][key] = value(rng)
    return d, None


class CaseTimeout(BaseException):
    """Raised by the alarm in a case still running after TIMEOUT_S (seen by the package's
    signal polling as a KeyboardInterrupt would be: the run is aborted)."""


def on_alarm(_sig, _frame):
    raise CaseTimeout()


def check(what, fn, failures, must_fail=False, huge=False):
    """One case. `huge`: the case asks for at least 2^31 requests (work asked for, not a
    hang): stopped at the time limit, it counts as a long run."""
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        fn()
    except CaseTimeout:
        if huge:
            return "long run stopped at the limit"
        failures.append((what, "no end in %.0f s" % TIMEOUT_S))
        return "failed"
    except (lagoon.LagoonError, TypeError, ValueError) as e:
        if not str(e).strip():
            failures.append((what, "an error without a message"))
        return "refused"
    except RecursionError as e:
        failures.append((what, "RecursionError: %s" % e))
        return "failed"
    except Exception as e:  # noqa: BLE001
        failures.append((what, "%s: %s" % (type(e).__name__, e)))
        return "failed"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if must_fail:
        failures.append((what, "accepted"))
    return "ok"


def main():
    rng = random.Random(SEED)
    signal.signal(signal.SIGALRM, on_alarm)
    failures, counts = [], {}
    for i in range(CASES):
        r = rng.random()
        if r < 0.6:
            d, ok = config_case(rng)
            what = "config case %d" % i
            res = check(what, lambda: lagoon.config(d), failures, must_fail=ok is False)
        elif r < 0.85:
            sec = rng.choice(SECTIONS)
            key = "%s.%s" % (sec, rng.choice(list(CFG[sec]) + ["bogus"]))
            ov = {key: value(rng)} if rng.random() < 0.9 else {rng.choice(KEYS): 1}
            what = "overrides %r" % (ov,)
            res = check(what, lambda: lagoon.run("syn:read=50,size=4k,count=20", overrides=ov),
                        failures)
        else:
            kw = rng.choice([
                {"workload": value(rng)}, {"workload": "syn:count=20", "seed": value(rng)},
                {"workload": "syn:count=20", "arch": value(rng)},
                {"workload": "syn:count=20", "replay": value(rng)},
                {"workload": "syn:count=20", "mesh": value(rng)},
                {"workload": "syn:count=20", "repeat": value(rng)},
                {"workload": "syn:count=20", "ssd": value(rng)},
            ])
            what = "run(**%r)" % (kw,)
            huge = kw.get("repeat") is not None and isinstance(kw["repeat"], int) \
                and not isinstance(kw["repeat"], bool) and kw["repeat"] >= 2**31
            res = check(what, lambda: lagoon.run(**kw), failures, huge=huge)
        counts[res] = counts.get(res, 0) + 1
    for what, why in failures[:30]:
        print("FAIL %s: %s" % (str(what)[:300], why))
    print("%d cases (seed %d): %s; %d failures" % (CASES, SEED, counts, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
