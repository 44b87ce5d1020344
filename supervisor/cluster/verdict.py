"""One verdict for a group: the root rank and the ranks that failed because of it.

The root is the first failure in time that is not a consequence of another rank's: a peer's
NCCL timeout, c10d's "TCPStore server has shut down", a connection reset by the dead rank, or
a rank the group itself stopped are consequences. With only consequences, the first of them
is the root (a rank that never came leaves its peers timing out, nothing else).

Hangs compare the ranks: when some ranks' stack samples show them parked in a collective
(waiting for a peer) and a rank that had not become ready is not in one (silent, or parked
elsewhere), that rank is the root whatever the order of the verdicts: the others wait for it.
"""

from __future__ import annotations

import re
from typing import Any

from ..states import PHASE_ORDER, Phase

FAILED = ("crashed", "hung", "timeout", "unhealthy", "lost")
CONSEQUENCE_CAUSES = ("nccl_timeout", "multinode_rank_failure")
CONSEQUENCE_TEXT = ("TCPStore server has shut down", "Connection reset by peer",
                    "Connection was likely closed", "Watchdog caught collective operation timeout")


COLLECTIVE_RE = re.compile(r"all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|"
                           r"barrier|nccl|gloo|collective", re.I)
SERVING = ("ready", "serving")


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
    verdict = {"rank": root["rank"], "node": root["node"], "status": root.get("status"),
               "phase": root.get("phase"), "cause": root.get("cause"),
               "evidence": list(root.get("evidence") or [])}
    hang = hang_root(ranks) if root.get("status") == "hung" or root.get("stopped_for") \
        else None
    if hang is not None:
        root, verdict = hang
    others = [r for r in ranks if r is not root and r.get("status") not in ("starting", "ready")]
    return {**verdict,
            "consequences": [{"rank": r["rank"], "cause": r.get("cause") or
                              ("stopped_by_group" if r.get("stopped_for") else r.get("status"))}
                             for r in sorted(others, key=lambda r: r["rank"])]}


def in_collective(rank: dict[str, Any]) -> str | None:
    """Where this rank's stack samples show it waiting in a collective, or None."""
    stuck = (rank.get("activity") or {}).get("stuck")
    if rank.get("cause") == "collective_hang" and not stuck:
        stuck = next((e for e in rank.get("evidence") or [] if COLLECTIVE_RE.search(e)), None)
    return stuck if stuck and COLLECTIVE_RE.search(stuck) else None


def hang_root(ranks: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The silent rank the others wait for in a collective, and its verdict; None unless
    some ranks wait in a collective and exactly the ranks not in one (and not serving) are
    left to blame."""
    waiting = {r["rank"]: w for r in ranks if (w := in_collective(r)) is not None}
    silent = [r for r in ranks if r["rank"] not in waiting and r.get("phase") not in SERVING
              and (r.get("status") == "hung" or r.get("stopped_for"))]
    if not waiting or not silent:
        return None
    root = min(silent, key=lambda r: (r.get("status") != "hung", r["rank"]))
    act = root.get("activity") or {}
    where = (f"its stacks parked in {act['stuck']}" if act.get("stuck") else
             f"activity {act.get('state') or 'unknown'}, "
             f"{act.get('stack_samples') or 0} stack sample(s), none in a collective")
    names = ", ".join(str(k) for k in sorted(waiting))
    head = (f"rank {root['rank']} ({root['node']}) is the one the group waits for: silent in "
            f"{root.get('phase')} ({where}) while rank(s) {names} wait in a collective")
    frames = [f"rank {k}: {w}" for k, w in sorted(waiting.items())]
    own = list(root.get("evidence") or []) if root.get("status") == "hung" else []
    cause = root.get("cause") if root.get("status") == "hung" else None
    return root, {"rank": root["rank"], "node": root["node"], "status": "hung",
                  "phase": root.get("phase"), "cause": cause or "unknown",
                  "evidence": [head, *frames, *own][:8]}


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
