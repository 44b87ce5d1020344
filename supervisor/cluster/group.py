"""Launch groups through etcd: each member daemon launches its rank; any rank's end stops all.

Keys (under ``/gpu-node-supervisor/``):

- ``members/NODE``: this daemon is alive (under its lease): ``{node, address, pid}``;
- ``groups/G/desired``: the group's launch, ``{profile, hash, attempt, nodes, addr, action}``
  (``action``: run or stop), written by whichever member was asked;
- ``groups/G/ranks/R``: rank R's run as its daemon sees it (under that daemon's lease):
  ``{node, rank, attempt, status, phase, cause, pid, evidence, failed_at, stopped_for}``;
- ``groups/G/lost/ATTEMPT/R``: written once when rank R's daemon lost its lease mid-attempt.

Every member watches the prefix (no polling) and keeps a view; a member reacts to a new
attempt that names it by launching its rank through its own arbiter, and to another rank's end
by stopping its own. etcd unreachable is not a failure: the ranks keep serving, the view says
coordination is degraded, and the state is written again once etcd answers.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any

import anyio

from ..config import Config
from ..events import Hub
from ..profiles.model import ResolvedProfile
from ..runtime.arbiter import Arbiter, ArbiterError, without_benchmark
from .etcd import Etcd, EtcdError, Event
from .parked import where_parked
from .ranks import rank_profile
from .verdict import FAILED, ended, group_status, group_verdict, slowest_phase

log = logging.getLogger("supervisor.cluster")

PREFIX = "/gpu-node-supervisor/"
RETRY_S = 0.5
ACTIVE = ("starting", "ready", "stopping")
LEFT = "member_left"              # a member's daemon shut down cleanly
OPERATOR = "stopped_by_operator"  # supervisor-ctl stop on a member
SHUTDOWN_REASON = "daemon shutting down"


@dataclass
class Active:
    """The rank this node runs (or ran last) for a group attempt."""

    group: str
    attempt: int
    rank: int
    profile: str
    reason: str
    record: dict[str, Any]
    stopped_for: str | None = None
    parked: str | None = None  # the collective a stack sample found it in when a peer hung


class ClusterService:
    def __init__(self, config: Config, arbiter: Arbiter, hub: Hub) -> None:
        self.config = config
        self.arbiter = arbiter
        self.hub = hub
        self.node = config.cluster_node or socket.gethostname()
        self.address = config.cluster_address or self.node
        self.ttl = config.cluster_lease_ttl
        self.etcd = Etcd(list(config.cluster_etcd), timeout=max(1.0, self.ttl / 3))
        self.lease = 0
        self.problem: str | None = "connecting to etcd"
        self.members: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}   # G -> {desired, ranks: {R: rec}, lost}
        self.active: Active | None = None
        self.last_group: str | None = None
        self._changed = anyio.Event()
        self._dirty = anyio.Event()
        self._tg: Any = None
        # Attempts already in etcd when this daemon came up are not ours to join: their ranks
        # started without us (a restarted daemon must not relaunch a group that stopped).
        self._baseline: dict[str, int] | None = None

    # -- service ------------------------------------------------------------------------
    async def run(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        self.hub.listeners.append(self._on_hub)
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._lease_loop)
            tg.start_soon(self._watch_loop)
            tg.start_soon(self._writer_loop)
            task_status.started()
            try:
                await anyio.sleep_forever()
            finally:
                with anyio.CancelScope(shield=True):
                    await self._leave()

    async def _leave(self) -> None:
        """A clean exit: this rank's record says its node left the group (kept past the
        lease, so peers read "left", not "lost"), then the lease goes back (peers see it now
        rather than a TTL later)."""
        if not self.lease:
            return
        with anyio.move_on_after(2):
            try:
                act = self.active
                if act is not None and act.stopped_for is None and \
                        act.record.get("status") in ACTIVE:
                    act.record.update(status="stopped", cause=LEFT, failed_at=time.time(),
                                      evidence=[self._left_line(act)])
                    await self.etcd.put(self._key("groups", act.group, "ranks", act.rank),
                                        json.dumps(act.record))
                await self.etcd.revoke(self.lease)
            except EtcdError:
                pass

    def _left_line(self, act: Active) -> str:
        return (f"node {self.node} (rank {act.rank}) left the group: its daemon shut down "
                "(SIGTERM, systemctl stop), stopping its rank")

    def _key(self, *parts: object) -> str:
        return PREFIX + "/".join(str(p) for p in parts)

    def _degraded(self, what: str, exc: Exception) -> None:
        text = f"coordination degraded: {what}: {exc}"
        if self.problem != text:
            log.warning("%s", text)
        self.problem = text
        self._notify()

    # -- lease and membership -----------------------------------------------------------
    async def _lease_loop(self) -> None:
        while True:
            try:
                if not self.lease:
                    self.lease, _ = await self.etcd.grant(self.ttl)
                    await self._register()
                left = await self.etcd.keepalive(self.lease)
                if left <= 0:  # expired while etcd was away: rejoin with a new lease
                    self.lease = 0
                    continue
                if self.problem is not None:
                    self.problem = None
                    self._notify()
            except (EtcdError, KeyError, ValueError) as exc:
                self._degraded("lease", exc)
                await anyio.sleep(RETRY_S)
                continue
            await anyio.sleep(max(0.3, self.ttl / 3))

    async def _register(self) -> None:
        await self.etcd.put(self._key("members", self.node), json.dumps(
            {"node": self.node, "address": self.address, "pid": os.getpid()}), lease=self.lease)
        self._dirty.set()  # the rank record goes under the new lease too

    # -- the watch and the view -----------------------------------------------------------
    async def _watch_loop(self) -> None:
        while True:
            try:
                revision = await self._resync()
                async for batch in self.etcd.watch_prefix(PREFIX, revision + 1):
                    for event in batch:
                        self._apply(event)
                    self._react()
            except (EtcdError, OSError, ValueError, anyio.EndOfStream,
                    anyio.IncompleteRead, anyio.BrokenResourceError) as exc:
                self._degraded("watch", exc)
            await anyio.sleep(RETRY_S)

    async def _resync(self) -> int:
        """Read everything again (start, or etcd back): what vanished meanwhile is applied as
        deletes, so a rank lost during the outage is noticed."""
        kvs, revision = await self.etcd.get_prefix(PREFIX)
        seen = {kv.key for kv in kvs}
        for key in self._known_keys() - seen:
            self._apply_delete(key)
        for kv in kvs:
            self._apply_put(kv.key, kv.value)
        if self._baseline is None:
            self._baseline = {g: (v["desired"] or {}).get("attempt", 0)
                              for g, v in self.groups.items()}
        self._react()
        return revision

    def _known_keys(self) -> set[str]:
        keys = {self._key("members", n) for n in self.members}
        for g, view in self.groups.items():
            keys |= {self._key("groups", g, "ranks", r) for r in view["ranks"]}
        return keys

    def _apply(self, event: Event) -> None:
        if event.kind == "DELETE":
            self._apply_delete(event.kv.key)
        else:
            self._apply_put(event.kv.key, event.kv.value)

    def _parts(self, key: str) -> list[str]:
        return key[len(PREFIX):].split("/") if key.startswith(PREFIX) else []

    def _view(self, group: str) -> dict[str, Any]:
        return self.groups.setdefault(group, {"desired": None, "ranks": {}, "lost": {}})

    def _apply_put(self, key: str, value: bytes) -> None:
        parts = self._parts(key)
        try:
            data = json.loads(value)
        except ValueError:
            return
        if parts[:1] == ["members"] and len(parts) == 2:
            self.members[parts[1]] = data
        elif parts[:1] == ["groups"] and len(parts) >= 3:
            view = self._view(parts[1])
            if parts[2] == "desired":
                view["desired"] = data
            elif parts[2] == "ranks" and len(parts) == 4:
                view["ranks"][int(parts[3])] = data
            elif parts[2] == "lost" and len(parts) == 5:
                view["lost"][(int(parts[3]), int(parts[4]))] = data
        self._notify()

    def _apply_delete(self, key: str) -> None:
        parts = self._parts(key)
        if parts[:1] == ["members"] and len(parts) == 2:
            gone = self.members.pop(parts[1], None)
            if gone is not None:
                self._member_gone(parts[1])
        elif parts[:1] == ["groups"] and len(parts) == 4 and parts[2] == "ranks":
            rec = self._view(parts[1])["ranks"].pop(int(parts[3]), None)
            if rec is not None:
                self._rank_gone(parts[1], rec)
        self._notify()

    def _member_gone(self, node: str) -> None:
        for g, view in self.groups.items():
            desired = view["desired"]
            if not desired or desired.get("action") != "run" or node not in desired["nodes"]:
                continue
            rank = desired["nodes"].index(node)
            rec = view["ranks"].get(rank)
            if rec is None or rec.get("attempt") != desired["attempt"] or \
                    rec.get("status") in ACTIVE:
                self._mark_lost(g, desired["attempt"], rank, node)

    def _rank_gone(self, group: str, rec: dict[str, Any]) -> None:
        desired = self._view(group)["desired"]
        if desired and rec.get("attempt") == desired.get("attempt") and \
                rec.get("status") in ACTIVE and desired.get("action") == "run":
            self._mark_lost(group, rec["attempt"], rec["rank"], rec["node"], rec)

    def _mark_lost(self, group: str, attempt: int, rank: int, node: str,
                   rec: dict[str, Any] | None = None) -> None:
        """The rank's daemon is gone (its lease ended): that is the rank's failure, now."""
        key = (attempt, rank)
        view = self._view(group)
        if key in view["lost"]:
            return
        lost = {"node": node, "rank": rank, "attempt": attempt, "at": time.time(),
                "phase": (rec or {}).get("phase") or "launch",
                "pid": (rec or {}).get("pid"),
                "evidence": [f"the daemon of node {node} (rank {rank}) lost its etcd lease: no "
                             f"keepalive for {self.ttl} s (daemon killed, node down or cut off)"]}
        view["lost"][key] = lost
        if self._tg is not None:
            self._tg.start_soon(self._put_lost, group, lost)

    async def _put_lost(self, group: str, lost: dict[str, Any]) -> None:
        try:
            await self.etcd.put_if_absent(
                self._key("groups", group, "lost", lost["attempt"], lost["rank"]),
                json.dumps(lost))
        except EtcdError as exc:
            self._degraded("lost record", exc)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    # -- reacting -----------------------------------------------------------------------
    def _react(self) -> None:
        for g, view in list(self.groups.items()):
            desired = view["desired"]
            if not desired or self.node not in desired.get("nodes", ()):
                continue
            act = self.active
            if act is None or act.group != g or act.attempt < desired["attempt"]:
                stale = desired["attempt"] <= (self._baseline or {}).get(g, 0)
                if desired.get("action") == "run" and not stale and \
                        not self._launched(g, desired):
                    self._start(g, desired)
                continue
            if act.attempt != desired["attempt"] or act.stopped_for is not None:
                continue
            if desired.get("action") == "stop":
                self._stop_mine(f"group {g}: stop requested")
                continue
            end = self._first_end(g, desired["attempt"])
            if end is not None:
                self._stop_mine(end, sample=self._peer_hung(g, desired["attempt"]))

    def _launched(self, group: str, desired: dict[str, Any]) -> bool:
        act = self.active
        return act is not None and act.group == group and act.attempt >= desired["attempt"]

    def _first_end(self, group: str, attempt: int) -> str | None:
        """Why this rank must stop: another rank of this attempt ended, or was lost."""
        for rec in self.rank_records(group, attempt):
            if rec["node"] != self.node and ended(rec):
                what = rec.get("cause") or rec.get("status")
                return f"group {group}: rank {rec['rank']} ({rec['node']}) {rec['status']} ({what})"
        return None

    def _peer_hung(self, group: str, attempt: int) -> bool:
        return any(r["node"] != self.node and r.get("status") == "hung"
                   for r in self.rank_records(group, attempt))

    def _start(self, group: str, desired: dict[str, Any]) -> None:
        rank = desired["nodes"].index(self.node)
        reason = f"group {group} attempt {desired['attempt']} rank {rank}"
        record = {"node": self.node, "rank": rank, "attempt": desired["attempt"],
                  "profile": desired["profile"], "status": "starting", "phase": "launch",
                  "cause": None, "pid": None, "evidence": [], "failed_at": None,
                  "stopped_for": None, "run_id": None}
        self.active = Active(group, desired["attempt"], rank, desired["profile"], reason, record)
        self.last_group = group
        self._dirty.set()
        assert self._tg is not None
        self._tg.start_soon(self._launch_rank, self.active, desired)

    async def _launch_rank(self, act: Active, desired: dict[str, Any]) -> None:
        try:
            changes = desired.get("changes")
            profile = self.arbiter.resolve(desired["profile"], changes=changes)
            problem = self._check_same(profile, desired)
            if problem is not None:
                self._refuse(act, "invalid_config", problem)
                return
            mine = rank_profile(profile, self.arbiter.profiles.resolve, act.rank, desired["addr"],
                                self.address, changes)
            mine = without_benchmark(mine, desired.get("benchmark", True) is not False)
            await self.arbiter.switch_to(mine, reason=act.reason)
        except ArbiterError as exc:
            self._refuse(act, "invalid_config", f"node {self.node} cannot launch "
                         f"{desired['profile']}: {exc.message}")
        except Exception as exc:  # a bug here must not end the daemon; the group sees it
            log.exception("launching rank %s of group %s", act.rank, act.group)
            self._refuse(act, "unknown", f"node {self.node} failed to launch its rank: {exc}")

    def _check_same(self, profile: ResolvedProfile, desired: dict[str, Any]) -> str | None:
        if profile.group is None or list(profile.group.nodes) != desired["nodes"]:
            return (f"on node {self.node}, profile {profile.name} has a different [group] "
                    f"than the one launched; every node must have the same profile files")
        if profile.hash != desired["hash"]:
            return (f"on node {self.node}, profile {profile.name} resolves to hash "
                    f"{profile.hash}, the group launched {desired['hash']}: every node must "
                    f"have the same profile files")
        return None

    def _refuse(self, act: Active, cause: str, line: str) -> None:
        act.record.update(status="crashed", cause=cause, evidence=[line], failed_at=time.time())
        self._dirty.set()

    def _stop_mine(self, why: str, sample: bool = False) -> None:
        act = self.active
        assert act is not None
        act.stopped_for = why
        act.record["stopped_for"] = why
        if act.record.get("status") in ACTIVE:
            act.record["failed_at"] = time.time()
        self._dirty.set()
        assert self._tg is not None
        self._tg.start_soon(self._stop_run, act, why, sample)

    async def _stop_run(self, act: Active, why: str, sample: bool) -> None:
        run = self.arbiter.current
        if run is None or run.reason != act.reason or run.settled.is_set():
            if act.record.get("status") in ACTIVE:
                act.record["status"] = "stopped"
                self._dirty.set()
            return
        if sample and run.phase.value not in ("ready", "serving"):
            await self._sample_parked(act, run)
        try:
            await self.arbiter.stop(why)
        except ArbiterError as exc:
            log.warning("stopping rank %s: %s", act.rank, exc.message)

    async def _sample_parked(self, act: Active, run: Any) -> None:
        """A peer hung: is this rank waiting for someone in a collective? One stack sample
        before the stop, for the group's hang verdict (bounded by py-spy's own timeout)."""
        try:
            targets = await anyio.to_thread.run_sync(run.stack_targets)
            act.parked = await anyio.to_thread.run_sync(where_parked, targets)
        except Exception:  # a failed sample only weakens the verdict
            log.exception("stack sample of rank %s", act.rank)
            return
        if act.parked is not None:
            activity = dict(act.record.get("activity") or {})
            activity["stuck"] = act.parked
            act.record["activity"] = activity
            self._dirty.set()

    # -- this rank's record -------------------------------------------------------------
    def _on_hub(self, kind: str, data: Any) -> None:
        act = self.active
        if kind != "run" or act is None or not isinstance(data, dict) or \
                data.get("reason") != act.reason:
            return
        rec = act.record
        new = {"status": data.get("status"), "phase": data.get("phase"),
               "cause": data.get("cause"), "pid": data.get("pid"), "run_id": data.get("id"),
               "evidence": list(data.get("evidence") or [])[:5],
               "activity": _activity(data.get("activity"), act.parked),
               "benchmark": data.get("benchmark")}  # rank 0's: what a campaign measures
        if new["status"] in ("stopping", "stopped") and act.stopped_for is None:
            self._own_stop(act, new)
        if all(rec.get(k) == v for k, v in new.items()):
            return
        rec.update(new)
        if rec.get("failed_at") is None and (new["status"] in FAILED or (
                new["status"] in ("stopping", "stopped") and act.stopped_for is None)):
            rec["failed_at"] = time.time()
        self._dirty.set()
        self._notify()

    def _own_stop(self, act: Active, new: dict[str, Any]) -> None:
        """This rank stopped, not by the group: the daemon leaving, or an operator's stop;
        the verdict says which (the run's own evidence is just its stop reason)."""
        if any(SHUTDOWN_REASON in e for e in new["evidence"]):
            new.update(cause=LEFT, evidence=[self._left_line(act)])
        else:
            why = "; ".join(new["evidence"]) or "stopped by request"
            new.update(cause=OPERATOR, evidence=[
                f"an operator stopped rank {act.rank} on node {self.node} ({why}); the group "
                "stops with it"])

    async def _writer_loop(self) -> None:
        """Puts this rank's record whenever it changes (the newest only), under the lease."""
        while True:
            await self._dirty.wait()
            self._dirty = anyio.Event()
            act = self.active
            if act is None or not self.lease:
                continue
            try:
                await self.etcd.put(self._key("groups", act.group, "ranks", act.rank),
                                    json.dumps(act.record), lease=self.lease)
            except EtcdError as exc:
                self._degraded("rank record", exc)
                await anyio.sleep(RETRY_S)
                self._dirty.set()

    # -- requests -----------------------------------------------------------------------
    async def switch(self, name: str, profile: ResolvedProfile, wait: bool,
                     timeout: float | None, changes: list[str] | None = None,
                     request: str | None = None, benchmark: bool = True) -> dict[str, Any]:
        """Launch ``name`` on every rank (``profile`` resolved with ``changes``, the subset a
        campaign's experiment names; None: all of the profile's). ``request`` tags every
        attempt this launch makes (its isolation's too), so the one who asked can tell them
        from a newer launch of the same profile from the same node (an operator's)."""
        group = profile.group
        assert group is not None
        if self.node not in group.nodes:
            raise ArbiterError("bad_request", f"profile {name} is a launch group of nodes "
                               f"{', '.join(group.nodes)}; this daemon is node {self.node} "
                               "([cluster] node): switch it from one of its nodes")
        try:
            desired = await self._publish(name, profile, changes,
                                          request or secrets.token_hex(6), benchmark)
        except EtcdError as exc:
            raise ArbiterError("unavailable", f"cannot launch group {group.name}: etcd "
                               f"unreachable ({exc}); nothing was started") from None
        if not wait:
            if profile.fallback.strategy == "isolate" and self._tg is not None:
                self._tg.start_soon(self._then_isolate, name, profile, desired, None, True)
            return {"request": None, "profile": name, "group": group.name,
                    "attempt": desired["attempt"], "run_id": None}
        return await self._then_isolate(name, profile, desired, timeout)

    async def _then_isolate(self, name: str, profile: ResolvedProfile,
                            desired: dict[str, Any], timeout: float | None,
                            background: bool = False) -> dict[str, Any]:
        """The launch's outcome; a failed profile with fallback = isolate has each candidate
        subset of its changes run on every rank (group_isolate)."""
        from .group_isolate import isolate_group

        group = desired["nodes"] and "+".join(desired["nodes"])
        try:
            result = await self._wait_settled(group, desired["attempt"], name, timeout)
            if result["ok"] or profile.fallback.strategy != "isolate":
                return result
            return await isolate_group(self, name, profile, result, timeout,
                                       desired.get("request"))
        except (ArbiterError, EtcdError) as exc:
            if not background:  # a waiting client gets the error; a background run logs it
                raise
            log.warning("group %s: %s", group, exc)
            return {}

    async def publish_changes(self, name: str, changes: list[str],
                              request: str | None = None) -> dict[str, Any]:
        """A new attempt of the group with a subset of the profile's changes on every rank
        (an isolation's step, tagged with the launch's ``request``)."""
        profile = self.arbiter.resolve(name, changes=changes)
        return await self._publish(name, profile, changes, request)

    async def _publish(self, name: str, profile: ResolvedProfile,
                       changes: list[str] | None = None,
                       request: str | None = None, benchmark: bool = True) -> dict[str, Any]:
        group = profile.group
        assert group is not None
        kvs, _ = await self.etcd.get_prefix(self._key("members") + "/")
        members = {kv.key.rsplit("/", 1)[1]: kv.json() for kv in kvs}
        missing = [n for n in group.nodes if n not in members]
        if missing:
            raise ArbiterError("unavailable", f"group {group.name}: no live daemon registered "
                               f"in etcd for node(s) {', '.join(missing)}; start "
                               "supervisor-daemon there with [cluster] node = NAME and the "
                               "same etcd; nothing was started")
        key = self._key("groups", group.name, "desired")
        old = await self.etcd.get(key)
        attempt = (old.json().get("attempt", 0) if old is not None else 0) + 1
        desired = {"profile": name, "hash": profile.hash, "attempt": attempt,
                   "nodes": list(group.nodes), "addr": members[group.nodes[0]]["address"],
                   "action": "run", "requested_by": self.node, "ts": time.time(),
                   "changes": changes, "request": request,
                   # (absent unless left out: a desired record of an older daemon reads the same)
                   **({} if benchmark else {"benchmark": False})}
        await self.etcd.put(key, json.dumps(desired))
        return desired

    async def stop_group(self, group: str, why: str) -> None:
        """Every rank of the group's current attempt stops (a campaign's step cancelled)."""
        key = self._key("groups", group, "desired")
        old = await self.etcd.get(key)
        if old is None or old.json().get("action") != "run":
            return
        await self.etcd.put(key, json.dumps({**old.json(), "action": "stop", "why": why,
                                             "ts": time.time()}))

    def desired(self, group: str) -> dict[str, Any] | None:
        """The group's launch as this node's watch last saw it."""
        desired: dict[str, Any] | None = self.groups.get(group, {}).get("desired")
        return desired

    async def changed(self) -> None:
        """Returns at the next change of the view (a watch event, coordination state)."""
        await self._changed.wait()

    async def _wait_settled(self, group: str, attempt: int, name: str,
                            timeout: float | None) -> dict[str, Any]:
        with anyio.move_on_after(timeout):
            while not _settled(view := self.view(group), attempt):
                if (view.get("attempt") or 0) > attempt:   # None: no attempt seen yet
                    # a newer launch of the group replaced this one: it will never settle
                    d = self.desired(group) or {}
                    raise ArbiterError("conflict", f"group {group} attempt {attempt} of {name} "
                                       f"was replaced by attempt {view['attempt']} of "
                                       f"{d.get('profile')} (requested from node "
                                       f"{d.get('requested_by')}) before it settled")
                await self._changed.wait()
        view = self.view(group)
        if not _settled(view, attempt):
            raise ArbiterError("timeout", f"group {group} attempt {attempt} not settled after "
                               f"{timeout} s; group status {view['status']} in {view['phase']}")
        run = self.arbiter.current
        ok = view["status"] == "ready"
        return {"settled": True, "ok": ok, "request": None, "requested": name,
                "verdict": view["verdict"], "culprits": [], "attempts": [],
                "serving": {"profile": name, "group": group} if ok else None,
                "notes": [], "group": view, "run": run.snapshot() if run else None}

    # -- views --------------------------------------------------------------------------
    def rank_records(self, group: str, attempt: int) -> list[dict[str, Any]]:
        """This attempt's ranks: the records their daemons wrote, a lost rank as lost."""
        view = self._view(group)
        desired = view["desired"] or {}
        out: dict[int, dict[str, Any]] = {}
        for rank, node in enumerate(desired.get("nodes") or []):
            rec = view["ranks"].get(rank)
            if self.active and self.active.group == group and self.active.rank == rank and \
                    self.active.attempt == attempt:
                rec = self.active.record  # our own, newer than what etcd has
            if rec is not None and rec.get("attempt") == attempt:
                out[rank] = dict(rec)
            lost = view["lost"].get((attempt, rank))
            if lost is not None and (rank not in out or out[rank].get("status") in ACTIVE):
                out[rank] = {**out.get(rank, {}), "node": node, "rank": rank,
                             "attempt": attempt, "status": "lost", "cause": "node_lost",
                             "phase": lost.get("phase"), "pid": lost.get("pid"),
                             "evidence": lost["evidence"], "failed_at": lost["at"],
                             "stopped_for": None}
        return [out[r] for r in sorted(out)]

    def view(self, group: str | None = None) -> dict[str, Any]:
        """``group status``: {group, profile, attempt, status, phase, ranks, verdict} and how
        coordination is doing."""
        group = group or self.last_group or self._my_group()
        coordination = {"etcd": list(self.etcd.endpoints), "node": self.node,
                        "address": self.address, "state": "degraded" if self.problem else "ok",
                        "problem": self.problem}
        if group is None:
            return {"group": None, "profile": None, "attempt": None, "status": None,
                    "phase": None, "ranks": [], "verdict": None, "coordination": coordination}
        desired = self._view(group)["desired"] or {}
        attempt = desired.get("attempt")
        records = self.rank_records(group, attempt) if attempt else []
        verdict = group_verdict(records)
        nodes = desired.get("nodes") or []
        ranks = []
        by_rank = {r["rank"]: r for r in records}
        for rank, node in enumerate(nodes):
            rec = by_rank.get(rank, {})
            ranks.append({"node": node, "rank": rank, "status": rec.get("status", "pending"),
                          "phase": rec.get("phase"), "cause": rec.get("cause"),
                          "pid": rec.get("pid")})
        return {"group": group, "profile": desired.get("profile"), "attempt": attempt,
                "status": group_status(records, len(nodes), verdict,
                                       desired.get("action") == "stop") if attempt else None,
                "phase": slowest_phase([r["phase"] for r in ranks]) if ranks else None,
                "ranks": ranks, "verdict": verdict, "coordination": coordination}

    def _my_group(self) -> str | None:
        for g, view in self.groups.items():
            if self.node in ((view["desired"] or {}).get("nodes") or ()):
                return g
        return None


def _activity(data: Any, parked: str | None) -> dict[str, Any] | None:
    """What the group's hang verdict compares across ranks: where the stack samples show the
    rank parked, if anywhere (fields that change rarely: a put per change)."""
    if not isinstance(data, dict):
        return None
    return {"state": data.get("state"), "stuck": data.get("stuck") or parked,
            "stack_samples": data.get("stack_samples")}


def _settled(view: dict[str, Any], attempt: int) -> bool:
    """Ready, or a verdict with every rank's run ended (its consequences known)."""
    if view["attempt"] != attempt:
        return False
    if view["status"] == "ready":
        return True
    if view["verdict"] is None and view["status"] not in ("stopped",):
        return False
    return all(r["status"] not in ACTIVE for r in view["ranks"])
