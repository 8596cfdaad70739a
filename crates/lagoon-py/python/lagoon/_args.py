"""The package's arguments checked by type and range before any work, each error naming the
Python parameter (`sensitivity='yes'` ran a full search; `ssd=None` named nothing)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

U64 = 2**64 - 1


def flag(name: str, v) -> bool:
    """A switch: True or False (a string such as 'no' is truthy, so it is refused)."""
    if not isinstance(v, bool):
        raise TypeError(f"{name} must be True or False, got {v!r}")
    return v


def whole(name: str, v, least: int, most: int = U64):
    """A whole number in least..=most, or None."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be a whole number, got {v!r}")
    if not least <= v <= most:
        raise ValueError(f"{name} must be in {least}..={most}, got {v}")
    return v


def text(name: str, v, what: str, optional: bool = False):
    """A non-empty string (`what` says what it names), or None when optional."""
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise TypeError(f"{name} must be {what}, got {v!r}")
    if not v.strip():
        raise ValueError(f"{name} is an empty string; give {what}")
    return v


def path(name: str, v, what: str, optional: bool = False):
    """A non-empty path (str or os.PathLike) as a string, or None when optional."""
    if v is None and optional:
        return None
    if not isinstance(v, (str, os.PathLike)):
        raise TypeError(f"{name} must be {what}, got {v!r}")
    p = os.fspath(v)
    if isinstance(p, bytes) or not p.strip():
        raise ValueError(f"{name} is an empty path; give {what}")
    return p


def paths(name: str, v, what: str) -> list[str]:
    """One path or a non-empty list of them."""
    if isinstance(v, (str, os.PathLike)):
        return [path(name, v, what)]
    if not isinstance(v, Sequence):
        raise TypeError(f"{name} must be {what}, or a list of them; got {v!r}")
    if not v:
        raise ValueError(f"{name} is an empty list; give {what}, or a list of them")
    return [path(f"{name}[{i}]", x, what) for i, x in enumerate(v)]


def mapping(name: str, v, what: str):
    """A dict (any Mapping), or None."""
    if v is not None and not isinstance(v, Mapping):
        raise TypeError(f"{name} must be {what}, got {v!r}")
    return v
