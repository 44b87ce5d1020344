"""Where a rank's processes are parked right now: one py-spy sample, for the group's hang
verdict (a peer hung: is this rank waiting for someone in a collective, or the silent one?)."""

from __future__ import annotations

from typing import Any

from ..watchdogs.stuck import COLLECTIVE_RE, sample_stacks


def where_parked(targets: dict[int, str]) -> str | None:
    """'2 processes (scheduler_TP0, scheduler_TP1) in custom_all_reduce (child.py)' when the
    sampled processes' innermost frames are a collective, else None (worker thread)."""
    stacks = sample_stacks(targets)
    groups: dict[Any, list[str]] = {}
    for pid in sorted(stacks):
        frame = stacks[pid].innermost
        if frame is not None and COLLECTIVE_RE.search(frame[0]):
            groups.setdefault(frame, []).append(stacks[pid].name or str(pid))
    if not groups:
        return None
    parts = []
    for (func, file), names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        who = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        parts.append(f"{len(names)} process{'es' if len(names) > 1 else ''} ({who}) in "
                     f"{func} ({file})")
    return "; ".join(parts) + " (py-spy sample when a peer hung)"
