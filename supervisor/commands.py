"""The control commands: one small handler each, with its wire form in the docstring.

The server calls ``dispatch``; handlers call the arbiter. Mutating commands need a permitted
peer and are written to the audit table with their result.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from .benchmark import checked as checked_benchmark
from .benchmark import compare
from .engines.serving_stats import FIELDS as SERVING_FIELDS
from .events import TOPICS, Hub
from .loopwatch import LoopWatch
from .profiles import diff_from_parent, validate_path
from .protocol import wire
from .protocol.server import Connection, waits_on_run
from .runtime.arbiter import Arbiter, ArbiterError
from .store import Store

Handler = Callable[["Daemon", Connection, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    # True, or a test of the arguments (`checklist` reads freely, but add/done change state):
    # a mutating request needs a permitted peer and is audited, in one place (dispatch).
    mutating: bool | Callable[[dict[str, Any]], bool]
    waits: bool  # waits on a run to start, stop or settle: not timed as the daemon's own work

    def changes_state(self, args: dict[str, Any]) -> bool:
        return self.mutating(args) if callable(self.mutating) else self.mutating


COMMANDS: dict[str, Command] = {}


def command(name: str, *, mutating: bool | Callable[[dict[str, Any]], bool] = False,
            waits: bool = False,
            ) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, fn, mutating, waits)
        return fn
    return register


class Daemon:
    """What handlers may reach: the arbiter (runs, requests, profiles, the checklist) and the
    services beside it, each named here rather than reached through the arbiter."""

    def __init__(self, arbiter: Arbiter, *, store: Store, hub: Hub, gpus: Any = None,
                 server_stats: Callable[[], dict[str, Any]] = dict,
                 loop: LoopWatch | None = None) -> None:
        self.arbiter = arbiter
        self.store = store
        self.hub = hub
        self.gpus = gpus
        self.server_stats = server_stats
        self.loop = loop  # the event loop's own watch (supervisor/loopwatch.py)
        self.cluster: Any = None  # supervisor.cluster.group.ClusterService with [cluster]

    async def dispatch(self, conn: Connection, req: wire.Request) -> Any:
        cmd = COMMANDS.get(req.cmd)
        if cmd is None:
            raise wire.ProtocolError(wire.UNKNOWN_COMMAND,
                                     f"unknown command {req.cmd!r}; known: "
                                     + ", ".join(sorted(COMMANDS)))
        mutating = cmd.changes_state(req.args)
        if mutating and not conn.can_mutate:
            self._audit(conn, req, False, "not permitted")
            raise wire.ProtocolError(wire.NOT_PERMITTED,
                                     f"{req.cmd} changes the daemon's state; "
                                     f"{conn.read_only_reason or 'this peer is read-only'}")
        try:
            if cmd.waits:
                waits_on_run()
            result = await cmd.handler(self, conn, req.args)
        except ArbiterError as exc:
            if mutating:
                self._audit(conn, req, False, exc.message)
            raise wire.ProtocolError(exc.code, exc.message) from None
        except wire.ProtocolError as exc:
            if mutating:
                self._audit(conn, req, False, exc.message)
            raise
        if mutating:
            self._audit(conn, req, True, _short(result))
        return result

    def _audit(self, conn: Connection, req: wire.Request, ok: bool, result: str) -> None:
        self.store.audit(uid=conn.peer.uid, gid=conn.peer.gid, pid=conn.peer.pid,
                                 cmd=req.cmd, args=req.args, ok=ok, result=result)


def _short(result: Any) -> str:
    return str(result)[:500]


def _arg(args: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = ...,
         ) -> Any:
    if name not in args or args[name] is None:
        if default is ...:
            raise wire.ProtocolError(wire.BAD_REQUEST, f"missing argument {name!r}")
        return default
    value = args[name]
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise wire.ProtocolError(wire.BAD_REQUEST, f"argument {name!r} must be a number")
    if not isinstance(value, kind):
        raise wire.ProtocolError(wire.BAD_REQUEST, f"argument {name!r} has the wrong type")
    return value


# a time given as seconds since the epoch: beyond this (the year 5138) it is no time a run had,
# and the clock and SQLite calls it reaches overflow on it
_EPOCH_MAX = 1e11


def _since_arg(args: dict[str, Any]) -> float | None:
    since = _arg(args, "since", (int, float), None)
    if since is not None and not (math.isfinite(since) and 0 <= since <= _EPOCH_MAX):
        raise wire.ProtocolError(wire.BAD_REQUEST, "argument 'since' must be a time in seconds "
                                 f"since the epoch, between 0 and {_EPOCH_MAX:.0f}")
    return since


@command("ping")
async def ping(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "ping"} -> {"pong": true, "time": epoch}"""
    return {"pong": True, "time": time.time()}


@command("status")
async def status(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "status"} -> {daemon, run, checklist, gpus, fallback}"""
    out = d.arbiter.status()
    out["daemon"]["protocol"] = d.server_stats()
    _store_status(d, out["daemon"])
    _loop_status(d, out["daemon"])
    return out


def _loop_status(d: Daemon, daemon: dict[str, Any]) -> None:
    """The event loop's stalls; a recent one is also one of the daemon's problems."""
    if d.loop is None:
        return
    daemon["loop"] = d.loop.status()
    problem = d.loop.problem()
    if problem:
        daemon["problems"] = [*daemon.get("problems", []), problem]


def _store_status(d: Daemon, daemon: dict[str, Any]) -> None:
    """The history store's health; a failing store is also one of the daemon's problems."""
    store = d.store.statistics()
    daemon["store"] = store
    if store["problem"]:
        daemon["problems"] = [*daemon.get("problems", []), store["problem"]]


@command("profiles")
async def profiles(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "profiles"} -> {profiles: [{name, engine, ..., valid, error, pending_error,
    in_force}], errors}; ``pending_error``: a broken edit not in force (the last valid
    version is, as ``in_force`` says)."""
    pset = d.arbiter.profiles
    return {"profiles": pset.summary(), "errors": [str(e) for e in pset.errors]}


@command("show")
async def show(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "show", "args": {"profile": NAME}} -> {profile, parent, diff, pending}"""
    name = _arg(args, "profile", str)
    resolved = d.arbiter.resolve(name)
    return {"profile": resolved.to_dict(), "parent": resolved.parent,
            "diff": diff_from_parent(d.arbiter.profiles, name),
            "pending": d.arbiter.profiles.pending(name)}


# Every validate request shares these worker threads: a read-only peer opening many
# connections queues behind them instead of tying up the daemon's thread pool.
VALIDATE_LIMITER = anyio.CapacityLimiter(2)


@command("validate")
async def validate(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "validate", "args": {"path": P}} -> {ok, errors}; only regular files are read,
    within the caps of profiles/files.py."""
    path = Path(_arg(args, "path", str))
    errors = await anyio.to_thread.run_sync(validate_path, path, limiter=VALIDATE_LIMITER)
    return {"ok": not errors, "errors": [str(e) for e in errors]}


def profile_warning(d: Daemon, name: str) -> str | None:
    """What a launch of ``name`` must say when its file holds a broken edit: the daemon runs
    the last valid version, which is not what the file now says."""
    pending = d.arbiter.profiles.pending(name)
    if pending is None:
        return None
    loaded = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(pending["in_force_loaded_at"]))
    return (f"launched the last valid version of {name} (loaded at {loaded}); your edit is "
            f"broken and not in force: {pending['error']} (fix the file; it is reloaded on "
            f"save)")


@command("switch", mutating=True, waits=True)
async def switch(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "switch", "args": {"profile": NAME, "wait": bool, "timeout": s,
    "benchmark": bool}}: ``benchmark`` false leaves the profile's [benchmark] out of this
    launch."""
    name = _arg(args, "profile", str)
    wait = _arg(args, "wait", bool, False)
    timeout = _arg(args, "timeout", (int, float), None)
    benchmark = _arg(args, "benchmark", bool, True)
    warning = profile_warning(d, name)
    group = await _group_switch(d, name, wait, timeout, benchmark)
    if group is not None:
        return {**group, "warning": warning}
    req = await d.arbiter.switch(name, reason="switch requested", benchmark=benchmark)
    if not wait:
        return {"request": req.id, "profile": name, "run_id": _run_id(d), "warning": warning}
    return {**await _wait_settled(d, req, timeout), "warning": warning}


async def _wait_settled(d: Daemon, req: Any, timeout: float | None) -> dict[str, Any]:
    with anyio.move_on_after(timeout) as scope:
        await req.done.wait()
    fb = d.arbiter.fallback_view()
    if scope.cancelled_caught:
        run = d.arbiter.current
        raise wire.ProtocolError(wire.TIMEOUT, f"request {req.id} not settled after {timeout} s;"
                                 f" run status {run.status.value if run else None}")
    return {"settled": True, "ok": bool(req.ok), "request": req.id, "requested": req.profile,
            "verdict": req.verdict, "culprits": list(req.culprits), "serving": fb["serving"],
            "attempts": fb["attempts"], "notes": list(req.notes),
            "run": d.arbiter.current.snapshot() if d.arbiter.current else None}


def _run_id(d: Daemon) -> int | None:
    return d.arbiter.current.id if d.arbiter.current is not None else None


@command("start", mutating=True, waits=True)
async def start(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "start", "args": {"profile": NAME?}}: start NAME, or the last profile."""
    name = _arg(args, "profile", str, None) or d.store.get_meta("last_profile")
    if not name:
        raise wire.ProtocolError(wire.BAD_REQUEST, "no profile given and none run before")
    d.arbiter.resolve(name)  # an unknown or broken profile is the answer, not a conflict
    run = d.arbiter.current
    if run is not None and not run.settled.is_set():
        raise wire.ProtocolError(wire.CONFLICT, f"run {run.id} ({run.profile.name}) is "
                                 f"{run.status.value}; use switch or stop first")
    req = await d.arbiter.switch(name, reason="start requested")
    if _arg(args, "wait", bool, False):
        return await _wait_settled(d, req, _arg(args, "timeout", (int, float), None))
    return {"request": req.id, "profile": name, "run_id": _run_id(d)}


@command("stop", mutating=True, waits=True)
async def stop(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "stop"} -> {run_id, status}; waits until nothing of the run is left."""
    run = await d.arbiter.stop("stopped by request")
    if run is None:
        return {"run_id": None, "status": None}
    return {"run_id": run.id, "status": run.status.value, "leftovers": sorted(run.leftovers)}


@command("restart", mutating=True, waits=True)
async def restart(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "restart"}: the current (or last) profile again."""
    run = d.arbiter.current
    name = run.profile.name if run is not None else d.store.get_meta("last_profile")
    if not name:
        raise wire.ProtocolError(wire.BAD_REQUEST, "nothing to restart")
    req = await d.arbiter.switch(name, reason="restart requested")
    return {"request": req.id, "profile": name, "run_id": _run_id(d)}


@command("logs")
async def logs(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "logs", "args": {"n": 100, "run_id": ID?}} -> {run_id, lines}"""
    n = max(0, min(_arg(args, "n", int, 100), 100_000))
    run_id = _arg(args, "run_id", int, None)
    run = d.arbiter.current
    if run is not None and run_id in (None, run.id):
        return {"run_id": run.id, "lines": run.pipe.tail(n) if n else []}
    row = d.store.get_run(run_id) if run_id is not None else None
    if row is None:
        if run_id is None:
            return {"run_id": None, "lines": []}
        raise wire.ProtocolError(wire.NOT_FOUND, f"no run {run_id}")
    return {"run_id": run_id, "lines": _tail_file(row.get("log_path"), n)}


def _tail_file(path: str | None, n: int) -> list[str]:
    if not path or n <= 0:
        return []
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 256 * n - 4096))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    lines = [s for s in text.replace("\r", "\n").split("\n") if s]
    return lines[-n:]


@command("history")
async def history(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "history", "args": {"n": 20, "before": ID?}} -> {runs: [...] oldest first,
    benchmarks, next_before}: pages back in time with ``before`` = the previous next_before
    (null when there is nothing older)."""
    n = max(1, min(_arg(args, "n", int, 20), 10_000))
    before = _arg(args, "before", int, None)
    # Thousands of runs take a while to read and join: off the loop, so status still answers.
    runs, benchmarks = await anyio.to_thread.run_sync(_history, d, n, before)
    oldest = runs[0]["id"] if runs else None
    more = len(runs) == n and oldest is not None and oldest > 1
    return {"runs": runs, "benchmarks": benchmarks, "next_before": oldest if more else None}


def _history(d: Daemon, n: int, before: int | None,
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    runs = d.store.history(n, before)
    for run in runs:  # records from before rates had minimums carry no unfounded rate
        run["benchmark"] = checked_benchmark(run["benchmark"])
    return runs, compare(runs, d.arbiter.root_profile)


@command("subscribe")
async def subscribe(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "subscribe", "args": {"topics": [...]}} then events are pushed."""
    topics = _arg(args, "topics", list, list(TOPICS))
    bad = [t for t in topics if t not in TOPICS]
    if bad:
        raise wire.ProtocolError(wire.BAD_REQUEST, f"unknown topic(s) {bad}; known: {TOPICS}")
    d.hub.subscribe(conn.outbox, topics)
    if "log" in topics:
        conn.expect_bulk()
    return {"topics": topics, "queue": conn.outbox.max_events}


@command("unsubscribe")
async def unsubscribe(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "unsubscribe"}"""
    d.hub.unsubscribe(conn.outbox)
    return {}


@command("gpus")
async def gpus(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "gpus"} -> {backend: {...}, gpus: [...]}"""
    mon = d.gpus
    if mon is None:
        return {"backend": {"backend": "none", "available": False,
                            "reason": "GPU monitor not running"}, "gpus": []}
    return {"backend": mon.status(), "gpus": mon.snapshot()}


@command("gpu_fault", mutating=True)
async def gpu_fault(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "gpu_fault", "args": {"spec": "xid:0:79"}}: fake GPUs only."""
    spec = _arg(args, "spec", str)
    mon = d.gpus
    if mon is None:
        raise wire.ProtocolError(wire.BAD_REQUEST, "no GPU monitor")
    try:
        await mon.inject(spec)
    except ValueError as exc:
        raise wire.ProtocolError(wire.BAD_REQUEST, str(exc)) from None
    return {"injected": spec}


@command("events")
async def events(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "events", "args": {"n": 50}} -> {events: [{ts, run_id, kind, data}]} from history"""
    n = max(1, min(_arg(args, "n", int, 50), 10_000))
    rows = await anyio.to_thread.run_sync(d.store.events, n)
    for ev in rows:
        if ev["kind"] == "benchmark":
            ev["data"] = checked_benchmark(ev["data"])
    return {"events": rows}


@command("checklist", mutating=lambda args: args.get("action", "list") != "list")
async def checklist(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "checklist", "args": {"action": "list"|"add"|"done"|"fail"|"skip"|"set",
    "text": T, "item": ID, "status": S}} -> {items}"""
    from .states import ChecklistStatus

    action = _arg(args, "action", str, "list")
    cl = d.arbiter.checklist
    if action == "add":
        text = _arg(args, "text", str).strip()
        if not text or len(text) > 500:
            raise wire.ProtocolError(wire.BAD_REQUEST, "text must be 1-500 characters")
        run = d.arbiter.current
        cl.add(text, run_id=run.id if run else None)
    elif action in ("done", "fail", "skip", "set"):
        item = _arg(args, "item", int)
        named = {"done": "done", "fail": "failed", "skip": "skipped"}.get(action)
        status_name = named or _arg(args, "status", str)
        try:
            cl.set(item, ChecklistStatus(status_name))
        except ValueError:
            raise wire.ProtocolError(wire.BAD_REQUEST, f"unknown status {status_name!r}") from None
        except KeyError:
            raise wire.ProtocolError(wire.NOT_FOUND, f"no checklist item {item}") from None
    elif action != "list":
        raise wire.ProtocolError(wire.BAD_REQUEST, f"unknown checklist action {action!r}")
    return {"items": cl.view()}


@command("stacks", mutating=True)
async def stacks(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "stacks"} -> {run_id, files}: dump every process of the current run now."""
    from .runtime import process as proc_mod
    from .runtime.stacks import dump_stacks

    run = d.arbiter.current
    if run is None or run.settled.is_set():
        raise wire.ProtocolError(wire.NOT_FOUND, "no live run")
    pids = await anyio.to_thread.run_sync(proc_mod.run_pids, run.token, run.pgid)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    files = await dump_stacks(pids, run.dir / f"stacks-{stamp}")
    return {"run_id": run.id, "files": files}


@command("brief")
async def brief(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "brief", "args": {"since": epoch?}} -> {markdown}"""
    from .brief import build_brief

    since = _since_arg(args)
    return {"markdown": build_brief(d.arbiter, since)}


@command("metrics")
async def metrics(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "metrics", "args": {"since": epoch?}} -> {run_id, profile, engine, status,
    serving, fields, series}: the current run's serving metrics from its log (``serving``: the
    latest values, as in status.run.serving) and their series, one row a second at most while
    stats lines come (``t`` plus the fields the engine reported), oldest first, the last hour
    at most; ``since`` keeps the rows at or after that time."""
    since = _since_arg(args)
    run = d.arbiter.current
    out: dict[str, Any] = {"run_id": None, "profile": None, "engine": None, "status": None,
                           "serving": None, "fields": list(SERVING_FIELDS), "series": []}
    if run is None:
        return out
    out.update(run_id=run.id, profile=run.profile.name, engine=run.engine_name,
               status=run.status.value)
    if run.serving is not None:
        out.update(serving=run.serving.latest(), series=run.serving.rows(since))
    return out


# -- launch groups and probes (supervisor/cluster) ----------------------------------------------
async def _group_switch(d: Daemon, name: str, wait: bool, timeout: float | None,
                        benchmark: bool = True) -> dict[str, Any] | None:
    """A profile with [group] launches on every node of the group, through etcd; None for a
    profile of this node alone."""
    profile = d.arbiter.resolve(name)
    if profile.group is None:
        return None
    if d.cluster is None:
        raise wire.ProtocolError(wire.BAD_REQUEST, f"profile {name} is a launch group (nodes "
                                 f"{', '.join(profile.group.nodes)}) but this daemon has no "
                                 "[cluster] etcd in its config; add it (docs/multi-node.md); "
                                 "nothing was started")
    result: dict[str, Any] = await d.cluster.switch(name, profile, wait, timeout,
                                                    benchmark=benchmark)
    return result


@command("group")
async def group(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "group", "args": {"group": G?}} -> {group, profile, attempt, status, phase,
    ranks: [{node, rank, status, phase, cause, pid}], verdict: {rank, node, status, phase,
    cause, evidence, consequences: [{rank, cause}]} | null, coordination}"""
    if d.cluster is None:
        raise wire.ProtocolError(wire.BAD_REQUEST, "this daemon has no [cluster] config, so it "
                                 "is in no launch group (docs/multi-node.md)")
    return d.cluster.view(_arg(args, "group", str, None))


PROBES = ("startup", "readiness", "liveness")


@command("probe")
async def probe(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    """{"cmd": "probe", "args": {"probe": "startup"|"readiness"|"liveness"}} -> {probe, ok,
    reason}: startup and readiness pass once the server (and its group) is ready; liveness
    fails only on a verdict (crashed, hung, a phase past its budget, the group's verdict)."""
    from .cluster.probes import evaluate

    kind = _arg(args, "probe", str)
    if kind not in PROBES:
        raise wire.ProtocolError(wire.BAD_REQUEST, f"unknown probe {kind!r}; use one of "
                                 f"{', '.join(PROBES)}")
    run = d.arbiter.current
    group_view = d.cluster.view() if d.cluster is not None else None
    ok, reason = evaluate(kind, run.snapshot() if run is not None else None, group_view)
    return {"probe": kind, "ok": ok, "reason": reason}
