"""Entry points: supervisor-daemon and supervisor-ctl."""

from __future__ import annotations

import sys


def guard_identity() -> None:
    """Exit with a clear message when supervisord's ``supervisor`` package shadows ours."""
    import supervisor

    if getattr(supervisor, "IDENTITY", None) != "gpu-node-supervisor":
        sys.stderr.write(
            f"error: 'import supervisor' found {getattr(supervisor, '__file__', '?')}, which is "
            "not gpu-node-supervisor (supervisord uses the same package name). Install "
            "gpu-node-supervisor in its own virtualenv.\n")
        raise SystemExit(2)
