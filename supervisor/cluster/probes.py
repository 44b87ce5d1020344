"""Kubernetes exec probes from the daemon's view: ``supervisor-ctl probe KIND`` exits 0 or 1.

startup and readiness: the server is ready (and, in a launch group, every rank is). liveness:
nothing has failed yet: a starting server within its phase budget (the profile's [timeouts],
which the watchdogs enforce with a verdict) is alive, so the probe never races the budgets.
"""

from __future__ import annotations

from typing import Any

FAILED = ("crashed", "hung", "timeout", "unhealthy", "lost")


def evaluate(kind: str, run: dict[str, Any] | None,
             group: dict[str, Any] | None) -> tuple[bool, str]:
    in_group = bool(group and group.get("group") and group.get("attempt"))
    if in_group and group is not None and group.get("verdict"):
        v = group["verdict"]
        return False, (f"group {group['group']}: rank {v['rank']} ({v['node']}) {v['status']} "
                       f"in {v['phase']}, cause {v['cause']}")
    if run is None:
        return kind == "liveness", "no server is running"
    status, phase = run.get("status"), run.get("phase")
    if status in FAILED:
        return False, f"run {run.get('id')} {status} in {phase}, cause {run.get('cause')}"
    if kind == "liveness":
        if status == "stopped":
            return False, f"run {run.get('id')} stopped"
        budget = run.get("deadline_s")
        return True, f"run {run.get('id')} {status} in {phase}" + (
            f" (phase budget {budget:g} s)" if budget else "")
    if status != "ready":
        return False, f"run {run.get('id')} {status} in {phase}"
    if in_group and group is not None and group.get("status") != "ready":
        return False, f"group {group['group']} {group.get('status')} in {group.get('phase')}"
    return True, f"run {run.get('id')} ready" + (f", group {group['group']} ready"
                                                 if in_group and group else "")
