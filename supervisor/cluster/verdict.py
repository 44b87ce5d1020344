"""One verdict for a group: the root rank and the ranks that failed because of it.

The root is the first failure in time that is not a consequence of another rank's: a peer's
NCCL timeout, c10d's "TCPStore server has shut down", a connection reset by the dead rank, or
a rank the group itself stopped are consequences. With only consequences, the first of them
is the root (a rank that never came leaves its peers timing out, nothing else).
"""

from __future__ import annotations

from typing import Any

from ..states import PHASE_ORDER, Phase

FAILED = ("crashed", "hung", "timeout", "unhealthy", "lost")
CONSEQUENCE_CAUSES = ("nccl_timeout", "multinode_rank_failure")
CONSEQUENCE_TEXT = ("TCPStore server has shut down", "Connection reset by peer",
                    "Connection was likely closed", "Watchdog caught collective operation timeout")


def ended(rank: dict[str, Any]) -> bool:
    """Failed, or stopped for a reason of its own (not by the group)."""
    status = rank.get("status")
    return status in FAILED or (status == "stopped" and not rank.get("stopped_for"))


def is_consequence(rank: dict[str, Any]) -> bool:
    if rank.get("stopped_for"):
        return True
    if rank.get("cause") in CONSEQUENCE_CAUSES:
        return True
    return any(t in e for e in rank.get("evidence") or [] for t in CONSEQUENCE_TEXT)


def group_verdict(ranks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``ranks``: this attempt's rank records (``failed_at`` set on those that ended)."""
    done = [r for r in ranks if ended(r) or (r.get("stopped_for") and r.get("failed_at"))]
    if not done:
        return None
    by_time = sorted(done, key=lambda r: (r.get("failed_at") or 0.0, r["rank"]))
    roots = [r for r in by_time if not is_consequence(r) and ended(r)]
    root = roots[0] if roots else by_time[0]
    others = [r for r in ranks if r is not root and r.get("status") not in ("starting", "ready")]
    return {"rank": root["rank"], "node": root["node"], "status": root.get("status"),
            "phase": root.get("phase"), "cause": root.get("cause"),
            "evidence": list(root.get("evidence") or []),
            "consequences": [{"rank": r["rank"], "cause": r.get("cause") or
                              ("stopped_by_group" if r.get("stopped_for") else r.get("status"))}
                             for r in sorted(others, key=lambda r: r["rank"])]}


def slowest_phase(phases: list[str | None]) -> str:
    known = [Phase(p) for p in phases if p in {q.value for q in PHASE_ORDER}]
    if len(known) < len(phases) or not known:
        return Phase.LAUNCH.value
    return min(known, key=lambda p: p.rank).value


def group_status(ranks: list[dict[str, Any]], n: int, verdict: dict[str, Any] | None,
                 stopping: bool) -> str:
    if verdict is not None:
        return str(verdict["status"])
    statuses = [r.get("status") for r in ranks]
    if stopping:
        return "stopped" if all(s == "stopped" for s in statuses) else "stopping"
    if len(ranks) == n and all(s == "ready" for s in statuses):
        return "ready"
    return "starting"
