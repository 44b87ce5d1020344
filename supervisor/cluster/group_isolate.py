"""Isolation at group level: each candidate subset of a failed profile's changes runs on every
rank (one group attempt per candidate), the same search as on one node (fallback/isolate.py),
then the best working combination is launched on every rank and stays."""

from __future__ import annotations

from typing import Any

from ..fallback.isolate import Isolation, isolate_steps, partial_result
from ..fallback.remedies import NOT_A_CHANGE, failure_kind
from ..profiles.model import ResolvedProfile


def _describe(view: dict[str, Any]) -> str:
    v = view.get("verdict")
    if view.get("status") == "ready":
        return "ready on every rank"
    if not v:
        return f"{view.get('status')}"
    return f"rank {v['rank']} ({v['node']}) {v['status']} in {v['phase']}, cause {v['cause']}"


async def isolate_group(svc: Any, name: str, profile: ResolvedProfile, first: dict[str, Any],
                        timeout: float | None, request: str | None = None) -> dict[str, Any]:
    """``first``: the settled result of the full profile's group attempt (failed);
    ``request``: the launch's tag, carried by every attempt of the isolation."""
    names = [c.name for c in profile.own_changes if c.name in profile.changes]
    v = first.get("verdict") or {}
    kind = failure_kind(v.get("cause"), v.get("phase"), v.get("status"))
    if not names:
        return {**first, "notes": [f"{name} has no changes of its own to isolate"]}
    if kind in NOT_A_CHANGE:
        return {**first, "notes": [f"cause {kind} is not caused by a config change; not "
                                   "isolating"]}
    budget = max(2, profile.fallback.max_attempts)
    log = [f"{'+'.join(names)} (requested): failed, {_describe(first['group'])}"]
    known: dict[frozenset[str], bool] = {frozenset(names): True}
    attempts: list[dict[str, Any]] = []
    last: dict[str, Any] = first
    steps = isolate_steps(names)
    result: Isolation | None = None
    try:
        subset = next(steps)
        while len(attempts) < budget - 1:  # keep one launch for the best combination
            last = await _attempt(svc, name, list(subset), timeout, request)
            ok = bool(last["ok"])
            known[frozenset(subset)] = not ok
            attempts.append(_row(subset, last))
            log.append(f"{'+'.join(subset) or 'parent'}: {_describe(last['group'])}")
            subset = steps.send(not ok)
        steps.close()
    except StopIteration as stop:
        result = stop.value
    notes = []
    if result is None:
        result = partial_result(known, names)
        notes.append("isolation stopped before a verdict (fallback max_attempts)")
    good = result.good
    if not (last["ok"] and set(attempts[-1]["changes"] if attempts else ()) == set(good)) \
            and known.get(frozenset(good)) is not True:
        last = await _attempt(svc, name, good, timeout, request)
        attempts.append(_row(good, last))
    verdict = (f"culprit change(s): {', '.join(result.culprits)}" if result.culprits
               else "no culprit named")
    notes += [f"group isolate verdict: {verdict}; best working combination: parent + "
              f"{'+'.join(good) or 'nothing'}", *log]
    return {**last, "requested": name, "verdict": first.get("verdict"),
            "culprits": list(result.culprits), "attempts": attempts, "notes": notes,
            "serving": {"profile": name, "group": last["group"]["group"], "changes": good}
            if last["ok"] else None}


async def _attempt(svc: Any, name: str, changes: list[str], timeout: float | None,
                   request: str | None) -> dict[str, Any]:
    desired = await svc.publish_changes(name, changes, request)
    res: dict[str, Any] = await svc._wait_settled("+".join(desired["nodes"]),
                                                  desired["attempt"], name, timeout)
    return res


def _row(subset: Any, res: dict[str, Any]) -> dict[str, Any]:
    group = res["group"]
    return {"changes": list(subset), "attempt": group["attempt"], "status": group["status"],
            "ok": bool(res["ok"]), "verdict": group.get("verdict")}
