"""How a campaign launches one step (the baseline, an experiment, a re-measure) and learns its
outcome: on this node through the arbiter, or on every rank of a launch group through the
cluster service. The campaign picks the launcher from the step's profile and never looks at
which one it got; both answer with the same outcome dict:

``{ok, request, verdict, culprits, benchmark, run_id, changes, attempts, log, notes}``, and for
a group also ``group``: ``{group, attempt, status, ranks, verdict}`` (the verdict names the
root rank and its cause, the others as consequences).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any, Protocol

import anyio

from .runtime.arbiter import Arbiter, ArbiterError, without_benchmark
from .runtime.requests import Request

log = logging.getLogger(__name__)

CANCELLED_NOTE = "cancelled by a newer request"   # what the arbiter notes on a replaced request
BENCHMARK_WAIT = 300.0   # a benchmark that has not come this long after ready is recorded missing
OPERATOR = "stopped_by_operator"   # a group verdict's cause when someone stopped a member
STOP_WAIT = 15.0


class Preempted(Exception):
    """Another request (an operator's switch) replaced the campaign's; the message says whose
    ("request #7 for base (an operator's switch)")."""


class Launcher(Protocol):
    async def launch(self, profile: str, changes: tuple[str, ...] | None, reason: str,
                     benchmark: bool = True) -> dict[str, Any]: ...

    def check(self) -> None:
        """Raise Preempted when the last launch was replaced since (between two steps)."""

    def timed_out(self, timeout: float) -> dict[str, Any]:
        """The outcome of a launch cancelled past the experiment's timeout."""

    def serving(self) -> dict[str, Any] | None:
        """What serves now: {profile, changes, run_id} (and group for a group)."""


def choose(arbiter: Arbiter, cluster: Any, profile: str,
           cache: dict[str, Launcher]) -> Launcher:
    """The launcher for ``profile``: a group profile ([group] nodes) needs the etcd cluster
    service; any other runs on this node."""
    group = arbiter.resolve(profile).group
    kind = "group" if group is not None else "local"
    if group is not None and not hasattr(cluster, "publish_changes"):
        raise ArbiterError("bad_request", f"profile {profile} is a launch group (nodes "
                           f"{', '.join(group.nodes)}) but this daemon has no [cluster] etcd "
                           "in its config; add it (docs/multi-node.md) or use a profile "
                           "without [group]")
    if kind not in cache:
        cache[kind] = GroupLauncher(arbiter, cluster) if kind == "group" \
            else LocalLauncher(arbiter)
    return cache[kind]


class LocalLauncher:
    """This node's arbiter: a switch, its request's outcome, the run's own benchmark."""

    def __init__(self, arbiter: Arbiter) -> None:
        self.arbiter = arbiter
        self.last: Request | None = None

    async def launch(self, profile: str, changes: tuple[str, ...] | None, reason: str,
                     benchmark: bool = True) -> dict[str, Any]:
        req = self.last = await self.arbiter.switch(
            profile, reason=reason, changes=list(changes) if changes is not None else None,
            benchmark=benchmark)
        await req.done.wait()
        self.check()
        run = self.arbiter.current
        bench = None
        if req.ok and run is not None and run.profile.benchmark is not None:
            with anyio.move_on_after(BENCHMARK_WAIT):
                async with anyio.create_task_group() as tg:
                    async def first(event: anyio.Event) -> None:
                        await event.wait()
                        tg.cancel_scope.cancel()
                    tg.start_soon(first, run.benchmark_done)
                    tg.start_soon(first, run.settled)
            self.check()
            bench = run.benchmark
        first_run = req.attempts[0] if req.attempts else None
        return {"ok": bool(req.ok), "request": req.id, "verdict": req.verdict,
                "culprits": list(req.culprits), "benchmark": bench,
                "run_id": run.id if run is not None and req.ok else
                (first_run.run_id if first_run else None),
                "changes": first_run.changes if first_run else [],
                "attempts": [a.to_dict() for a in req.attempts],
                "log": str(self.arbiter.runs_dir / str(first_run.run_id) / "run.log")
                if first_run else None,
                "notes": list(req.notes)}

    def check(self) -> None:
        """Preempted when a newer request replaced ours (the arbiter notes the cancel before
        the newer request is in place)."""
        req = self.last
        if req is None:
            return
        newer = self.arbiter.request
        if (newer is not None and newer is not req) or CANCELLED_NOTE in req.notes:
            who = (f"request #{newer.id} for {newer.profile}"
                   if newer is not None and newer is not req else "a newer request")
            raise Preempted(f"{who} (an operator's switch)")

    def timed_out(self, timeout: float) -> dict[str, Any]:
        req = self.arbiter.request
        return {**_timed_out(timeout), "request": req.id if req else None,
                "culprits": list(req.culprits) if req else []}

    def serving(self) -> dict[str, Any] | None:
        serving: dict[str, Any] | None = self.arbiter.fallback_view()["serving"]
        return serving


class GroupLauncher:
    """Every rank of a launch group through etcd (cluster/group.py): the group's settled
    outcome, rank 0's benchmark. A launch cancelled (the experiment's timeout, campaign stop)
    stops the group; a newer launch of the group by someone else pauses the campaign."""

    def __init__(self, arbiter: Arbiter, cluster: Any) -> None:
        self.arbiter = arbiter
        self.cluster = cluster
        self.group: str | None = None
        self.attempt: int | None = None   # the group attempt our last launch settled on

    async def launch(self, profile: str, changes: tuple[str, ...] | None, reason: str,
                     benchmark: bool = True) -> dict[str, Any]:
        want = list(changes) if changes is not None else None
        resolved = without_benchmark(self.arbiter.resolve(profile, changes=want), benchmark)
        assert resolved.group is not None
        self.group, self.attempt = resolved.group.name, None
        before = (self.cluster.desired(self.group) or {}).get("attempt", 0)
        request = f"campaign-{secrets.token_hex(6)}"   # tags this step's attempts in etcd
        box: dict[str, Any] = {}
        try:
            async with anyio.create_task_group() as tg:
                async def settle() -> None:
                    try:
                        box["result"] = await self.cluster.switch(
                            profile, resolved, True, None, changes=want, request=request,
                            benchmark=benchmark)
                    except ArbiterError as exc:
                        if exc.code != "conflict":
                            raise
                        # a newer launch replaced ours (the watch may not have seen it yet)
                        box["preempted"] = self._newer(self.cluster.desired(self.group) or {})
                    tg.cancel_scope.cancel()

                async def watch() -> None:
                    box["preempted"] = await self._replaced(before, request)
                    tg.cancel_scope.cancel()
                tg.start_soon(settle)
                tg.start_soon(watch)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_WAIT):
                await self._stop(f"campaign step cancelled: {reason}")
            raise
        if "preempted" in box:
            raise Preempted(box["preempted"])
        result: dict[str, Any] = box["result"]
        view = result["group"]
        self.attempt = view["attempt"]
        self._check_verdict(view)
        bench = await self._benchmark(resolved, view) if result["ok"] else None
        return self._outcome(result, bench, list(resolved.changes))

    async def _replaced(self, before: int, request: str) -> str:
        """Returns once a launch of the group that is not this step's came: any attempt
        not tagged with the step's ``request`` (another node, another profile, or an
        operator re-switching the same profile from this node, isolation or not)."""
        while True:
            d = self.cluster.desired(self.group) or {}
            attempt = d.get("attempt", 0)
            if attempt > before and d.get("request") != request:
                return self._newer(d)
            await self.cluster.changed()

    def _newer(self, desired: dict[str, Any]) -> str:
        """What replaced the campaign's launch, as the pause note says it."""
        return (f"group {self.group} attempt {desired.get('attempt')} for "
                f"{desired.get('profile')} (switched from node {desired.get('requested_by')})")

    def _check_verdict(self, view: dict[str, Any]) -> None:
        v = view.get("verdict") or {}
        if v.get("cause") == OPERATOR:
            raise Preempted(f"an operator's stop on node {v.get('node')} (rank "
                            f"{v.get('rank')})")

    async def _benchmark(self, resolved: Any, view: dict[str, Any]) -> dict[str, Any] | None:
        """Rank 0's benchmark (the rank that serves the API), as its daemon put it in etcd."""
        if resolved.benchmark is None:
            return None
        attempt = view["attempt"]
        with anyio.move_on_after(BENCHMARK_WAIT):
            while True:
                self.check()
                ranks = self.cluster.rank_records(self.group, attempt)
                rank0: dict[str, Any] = next((r for r in ranks if r["rank"] == 0), {})
                if rank0.get("benchmark") is not None:
                    return dict(rank0["benchmark"])
                if rank0.get("status") != "ready":
                    return None
                await self.cluster.changed()
        return None

    def _outcome(self, result: dict[str, Any], bench: dict[str, Any] | None,
                 changes: list[str]) -> dict[str, Any]:
        view = result["group"]
        run = result.get("run") or {}
        run_id = run.get("id")
        serving = result.get("serving") or {}
        return {"ok": bool(result["ok"]), "request": None, "verdict": result["verdict"],
                "culprits": list(result.get("culprits") or []), "benchmark": bench,
                "run_id": run_id, "changes": list(serving.get("changes") or changes),
                "attempts": list(result.get("attempts") or []),
                "log": str(self.arbiter.runs_dir / str(run_id) / "run.log") if run_id else None,
                "notes": list(result.get("notes") or []),
                "group": {"group": view["group"], "attempt": view["attempt"],
                          "status": view["status"], "ranks": view["ranks"],
                          "verdict": view["verdict"]}}

    async def _stop(self, why: str) -> None:
        if self.group is None:
            return
        try:
            await self.cluster.stop_group(self.group, why)
        except Exception as exc:   # etcd away: the ranks' own watchdogs still end a bad run
            log.warning("campaign: could not stop group %s: %s", self.group, exc)

    def check(self) -> None:
        if self.group is None or self.attempt is None:
            return
        d = self.cluster.desired(self.group) or {}
        if d.get("attempt", 0) > self.attempt:
            raise Preempted(self._newer(d))

    def timed_out(self, timeout: float) -> dict[str, Any]:
        return {**_timed_out(timeout), "group": None}

    def serving(self) -> dict[str, Any] | None:
        if self.group is None:
            return None
        view = self.cluster.view(self.group)
        serving: dict[str, Any] | None = self.arbiter.fallback_view()["serving"]
        if view.get("status") != "ready" or serving is None:
            return None
        return {**serving, "profile": view["profile"], "group": self.group}


def _timed_out(timeout: float) -> dict[str, Any]:
    return {"ok": False, "request": None,
            "verdict": {"status": "timed_out", "phase": "the experiment", "cause": None,
                        "evidence": [f"not settled within its timeout ({timeout:g} s)"]},
            "culprits": [], "benchmark": None, "run_id": None, "changes": [], "attempts": [],
            "log": None, "notes": []}
