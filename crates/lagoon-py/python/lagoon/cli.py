"""The `lagoon` command installed by `pip install` (the same program as the Rust binary,
through the package's core): `lagoon run ...`, `lagoon reproduce venice --quick`, ..."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: this process's arguments); exits with its
    status when called as the console script."""
    from . import _lagoon

    if not hasattr(_lagoon, "cli"):
        raise RuntimeError("this build of lagoon has no `lagoon` command (cargo feature `command` "
                           "of crates/lagoon-py was off); pip install . turns it on")
    args = sys.argv[1:] if argv is None else list(argv)
    code = _lagoon.cli(["lagoon", *args])
    if argv is None:
        sys.exit(code)
    return code
