"""The arbiter: one run at a time, switches, requests and their attempts.

A *request* is what an operator or script asked for (``switch baseline``); it may take several
*attempts* (runs) when the profile's fallback is on. The arbiter owns the current run, never
launches a second server while one is alive, and answers ``status``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from ..config import Config
from ..diagnosis.checklist import Checklist, plan_for_failure
from ..events import Hub
from ..fallback import plan_attempts
from ..profiles import ProfileError, ProfileSet, ResolvedProfile
from ..states import ACTIVE_STATUSES, Cause, Phase, Status
from ..store import Store
from ..watchdogs.health import port_in_use
from . import overlay
from . import process as proc_mod
from .adopt import AdoptedRun
from .requests import AttemptRecord, Request
from .restart import RestartPolicy
from .run import Run, RunServices, executed_argv
from .shm import ShmLedger
from .shm import describe as describe_shm

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger(__name__)

T = TypeVar("T")


class ArbiterError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Arbiter:
    def __init__(self, config: Config, store: Store, hub: Hub, gpus: Any = None) -> None:
        self.config = config
        self.store = store
        self.hub = hub
        self.gpus = gpus
        self.profiles = ProfileSet.load_dir(config.profiles_dir)
        self.current: Run | None = None
        self.request: Request | None = None
        self._tg: TaskGroup | None = None
        self._lock = anyio.Lock()
        self._reload_lock = anyio.Lock()
        self.started = time.time()
        self.runs_dir = config.state_dir / "runs"
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.problems: list[str] = []
        self.checklist = Checklist(store, hub.publish)
        # Remembered across restarts in the store; kept here without the resolved profile,
        # which `status` need not carry every time (the brief and the store have it).
        good = store.get_meta("last_good")
        self.last_good: dict[str, Any] | None = (
            {k: v for k, v in good.items() if k != "resolved"} if good else None)
        self._services = RunServices(
            store=store, hub=hub,
            gpu_activity=gpus.activity if gpus is not None else (lambda: None),
            gpu_snapshot=gpus.snapshot if gpus is not None else (lambda: []),
            log_max_bytes=config.log_max_mb * 2**20, state_dir=str(config.state_dir),
            on_end=self._run_ended,
            on_ready=self._run_ready, on_log_problem=self._log_problem)
        self._restart_policies: dict[str, RestartPolicy] = {}
        self._restart_scope: anyio.CancelScope | None = None

    # -- service ------------------------------------------------------------------------
    async def serve(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        proc_mod.become_subreaper()  # a run's orphans come to us, not to init
        async with anyio.create_task_group() as tg:
            self._tg = tg
            await self.recover()
            task_status.started()
            if self.config.startup_profile:
                await self.switch(self.config.startup_profile, reason="startup profile")
            try:
                await anyio.sleep_forever()
            finally:
                with anyio.CancelScope(shield=True):
                    await self.shutdown()

    async def shutdown(self) -> None:
        """Stop the server before the daemon exits (runs in a shielded scope)."""
        if self.request and self.request.scope:
            self.request.scope.cancel()
        if self.current is not None:
            await self.current.stop("daemon shutting down")

    async def recover(self) -> None:
        """After a restart (even from SIGKILL): never leave a previous server running blind."""
        rows = self.store.active_runs(tuple(s.value for s in ACTIVE_STATUSES))
        for row in rows:
            await self._recover_run(row)
        await self._recover_unrecorded({row["token"] for row in rows})

    async def _recover_unrecorded(self, known: set[str]) -> None:
        """Runs of this state dir that history does not list as active (an unreadable or
        damaged store): found by the state-dir mark in their environment, and stopped."""
        orphans = await anyio.to_thread.run_sync(
            proc_mod.state_dir_runs, str(self.config.state_dir))
        for token, pids in orphans.items():
            if token in known:
                continue
            left = await proc_mod.kill_run(token, None, grace=10.0)
            note = (f"found {len(pids)} live process(es) of a run that history does not list "
                    f"as running (token {token}); stopped them"
                    + (f" ({len(left)} would not die)" if left else ""))
            self.store.add_event("recovered", {"note": note}, None)
            self.problems.append(note)

    async def _recover_run(self, row: dict[str, Any]) -> None:
        pids = await anyio.to_thread.run_sync(proc_mod.run_pids, row["token"], row["pgid"])
        if pids and self.config.on_restart == "adopt":
            why_not = await self._adopt(row, pids)
            if why_not is None:
                return
            self.problems.append(f"run {row['id']} not adopted: {why_not}")
        if pids:
            left = await proc_mod.kill_run(row["token"], row["pgid"], grace=10.0)
            note = (f"found {len(pids)} live process(es) of run {row['id']} after a daemon "
                    "restart; stopped them"
                    + (f" ({len(left)} would not die)" if left else ""))
        else:
            note = f"daemon restarted; run {row['id']} had no live process left"
        removed = await anyio.to_thread.run_sync(self._clean_recorded_shm, row["id"])
        if removed:
            note += f"; {removed}"
        self.store.update_run(row["id"], status=Status.STOPPED.value, ended=time.time(),
                              evidence=(row["evidence"] or []) + [note])
        self.store.add_event("recovered", {"note": note}, row["id"])
        self.problems.append(note)

    def _clean_recorded_shm(self, run_id: int) -> str | None:
        """Worker thread: the shared memory a run recorded as its own (runtime/shm.py),
        removed when it died while no daemon watched it."""
        ledger = ShmLedger(record=self.runs_dir / str(run_id) / "shm.json")
        removed = ledger.clean()
        return describe_shm(removed, ledger.root) if removed else None

    async def _adopt(self, row: dict[str, Any], pids: set[int]) -> str | None:
        """Keep watching a ready server that outlived the daemon; None on success."""
        if row["status"] != Status.READY.value:
            return f"it was {row['status']} (only a ready server can be adopted)"
        if row["pid"] not in pids:
            return "its main process is gone"
        try:
            own = {c.name for c in self.profiles.own_changes(row["profile"])}
            profile = self.profiles.resolve(
                row["profile"], changes=[c for c in row["changes"] if c in own])
        except (ProfileError, KeyError) as exc:
            return f"its profile no longer resolves: {exc}"
        if profile.hash != row["hash"]:
            return "its profile changed since it was launched"
        req = Request(self._next_request_id(), profile.name, profile.fallback.strategy)
        req.ok = True
        req.done.set()
        self.request = req
        run = AdoptedRun(row=row, run_id=row["id"], token=row["token"], profile=profile,
                         run_dir=self.runs_dir / str(row["id"]), services=self._services,
                         request_id=req.id, reason="adopted")
        self.current = run
        req.attempts.append(AttemptRecord.of(run, "adopted"))
        assert self._tg is not None
        await self._tg.start(run.supervise)
        note = f"adopted run {row['id']} ({row['profile']}, pid {row['pid']}) after a restart"
        self.store.add_event("adopted", {"note": note}, row["id"])
        self.problems.append(note)
        return None

    # -- requests -----------------------------------------------------------------------
    def _next_request_id(self) -> int:
        n = int(self.store.get_meta("last_request_id", 0)) + 1
        self.store.set_meta("last_request_id", n)
        return n

    def resolve(self, name: str, **kw: Any) -> ResolvedProfile:
        try:
            return self.profiles.resolve(name, **kw)
        except ProfileError as exc:
            known = sorted({s["name"] for s in self.profiles.summary()})
            if name in self.profiles.names() or name in known:
                raise ArbiterError("invalid_profile", str(exc)) from None
        # An unknown name is most often a typo: offer the closest names and where to look.
        import difflib

        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = (f"did you mean {' or '.join(repr(c) for c in close)}? " if close else "")
        shown = ", ".join(known[:12]) + (f" and {len(known) - 12} more" if len(known) > 12
                                         else "")
        raise ArbiterError("not_found", f"unknown profile {name!r}: {hint}known profiles: "
                           f"{shown or 'none'} (supervisor-ctl profiles lists them)")

    async def _detached(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``fn`` in the arbiter's own task group and wait for it.

        A request's caller may be cancelled at any moment (its client hung up): that ends the
        wait, never the work. A launch half done, or a stop half done, would leave a `current`
        run that nothing supervises.
        """
        assert self._tg is not None
        done = anyio.Event()
        box: dict[str, Any] = {}

        async def job() -> None:
            try:
                box["value"] = await fn(*args)
            except Exception as exc:
                box["error"] = exc
            finally:
                done.set()

        self._tg.start_soon(job)
        await done.wait()
        if "error" in box:
            raise box["error"]
        if "value" not in box:
            raise ArbiterError("shutting_down", "the daemon is shutting down; nothing was done")
        return box["value"]  # type: ignore[no-any-return]

    async def switch(self, name: str, *, reason: str = "switch",
                     changes: list[str] | None = None, benchmark: bool = True) -> Request:
        """Stop whatever runs (and any fallback in progress), then start ``name`` (with all its
        changes, or the subset ``changes``: a campaign's experiment). ``benchmark=False``
        leaves the profile's [benchmark] out of this launch (a campaign serving its best,
        already measured; ``switch --no-benchmark``)."""
        resolved = without_benchmark(self.resolve(name, changes=changes), benchmark)
        return await self._detached(self._switch, name, resolved, reason)

    async def switch_to(self, resolved: ResolvedProfile, *, reason: str) -> Request:
        """Like :meth:`switch`, with the profile already resolved (a group's rank)."""
        return await self._detached(self._switch, resolved.name, resolved, reason)

    async def _switch(self, name: str, resolved: ResolvedProfile, reason: str) -> Request:
        async with self._lock:
            await self._cancel_request()
            await self._stop_current(f"switching to {name}")
            req = Request(self._next_request_id(), name, resolved.fallback.strategy)
            self.request = req
            self.checklist.reset()
            self.store.set_meta("last_profile", name)
            assert self._tg is not None
            await self._tg.start(self._campaign, req, resolved, reason)
            return req

    async def stop(self, reason: str = "stopped by request") -> Run | None:
        return await self._detached(self._stop, reason)

    async def _stop(self, reason: str) -> Run | None:
        async with self._lock:
            await self._cancel_request()
            run = self.current
            await self._stop_current(reason)
            return run

    async def _cancel_request(self) -> None:
        if self._restart_scope is not None:
            self._restart_scope.cancel()  # an operator's word beats a pending restart
        req = self.request
        if req is not None and not req.done.is_set():
            req.notes.append("cancelled by a newer request")
            if req.scope is not None:
                req.scope.cancel()
            with anyio.CancelScope(shield=True):
                await req.done.wait()

    async def _stop_current(self, reason: str) -> None:
        run = self.current
        if run is not None and not run.settled.is_set():
            await run.stop(reason)
        if run is not None:
            left = await anyio.to_thread.run_sync(proc_mod.run_pids, run.token, run.pgid)
            if left:  # never start a second server over a live one
                raise ArbiterError("conflict", f"run {run.id} still has processes {sorted(left)}")

    async def _campaign(self, req: Request, first: ResolvedProfile, reason: str, *,
                        task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Launch the requested profile; on failure, let its fallback try what it allows."""
        started = False
        with anyio.CancelScope() as scope:
            req.scope = scope
            try:
                run = await self._launch(first, req, reason)
                task_status.started()
                started = True
                ok = await self._wait_outcome(run)
                req.ok = ok
                if ok:
                    return
                req.verdict = run.verdict()
                async for attempt in plan_attempts(self, req, first, run):
                    run = await self._launch(attempt.profile, req, attempt.reason)
                    attempt.result = await self._wait_outcome(run)
            except Exception as exc:  # after the first launch nobody awaits this: say it here
                if not started:  # the switch that awaits the start gets it
                    raise
                log.exception("request %s: fallback failed", req.id)
                req.notes.append(f"the fallback stopped: {exc}")
                self.problems.append(f"request {req.id}: the fallback stopped ({exc})")
            finally:
                req.done.set()
                self.publish_fallback()
        if not req.done.is_set():  # pragma: no cover - finally sets it
            req.done.set()

    async def _wait_outcome(self, run: Run) -> bool:
        """True once the run is ready, False once it has ended without getting there."""
        async with anyio.create_task_group() as tg:
            async def ready() -> None:
                await run.ready_event.wait()
                tg.cancel_scope.cancel()

            async def ended() -> None:
                await run.settled.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(ready)
            tg.start_soon(ended)
        return run.ready_event.is_set() and not run.failed and not run.settled.is_set()

    async def _launch(self, profile: ResolvedProfile, req: Request, reason: str) -> Run:
        """Start one attempt. The previous run is gone before this is called."""
        await self._stop_current(f"next attempt: {reason}")
        run = self._new_run(profile, req, reason)
        self.current = run
        req.attempts.append(AttemptRecord.of(run, reason))
        try:
            refusal = await self._precheck(profile) or await overlay.prepare_run(run)
            if refusal is not None:
                cause, evidence = refusal
                run.refuse(cause, evidence)
            else:
                assert self._tg is not None
                await self._tg.start(self._supervised, run)
        except BaseException:  # cancelled (a newer request): the run must not stay `starting`
            with anyio.CancelScope(shield=True):
                await run.stop("cancelled by a newer request before it was up")
            raise
        self.publish_fallback()
        return run

    async def _supervised(self, run: Run, *,
                          task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """One run's supervision, fenced off from the daemon: a bug while watching one run
        (a parser meeting a line it cannot take, say) ends that run, not every service.
        `supervise` has already killed its processes and settled it by the time this sees
        the error; the run is marked crashed with the error as its evidence."""
        try:
            await run.supervise(task_status=task_status)
        except Exception as exc:  # cancellation (shutdown) is not an Exception: it goes on
            what = self._fence_failed(run, exc, "the daemon failed while watching it",
                                      "its processes were killed, the daemon carries on")
            run.internal_error(what)

    def _fence_failed(self, run: Run, exc: Exception, failed: str, then: str) -> str:
        """A task of one run failed in the daemon's task group, where an exception would take
        every service down: logged, listed as a problem, and its root as `Type: message`."""
        root = _first_leaf(exc)
        what = f"{type(root).__name__}: {root}"
        log.exception("run %s: %s", run.id, failed)
        self.problems.append(f"run {run.id}: {failed} ({what}); {then}")
        return what

    def on_xid(self, event: Any) -> None:
        """An XID from the driver: evidence for the run, an item on the checklist."""
        from ..states import ChecklistStatus

        line = (f"GPU{event.gpu_index} XID {event.xid}: {event.description}")
        self.store.add_event("xid", {"gpu": event.gpu_index, "xid": event.xid,
                                     "description": event.description},
                             self.current.id if self.current else None)
        run = self.current
        if run is not None and not run.settled.is_set():
            run.gpu_events.append(line)
        health = {}
        if self.gpus is not None:
            for g in self.gpus.snapshot():
                if g.get("index") == event.gpu_index:
                    health = g.get("health") or {}
        action = health.get("action") or "investigate"
        self.checklist.add(f"GPU{event.gpu_index}: XID {event.xid} — {action}", auto=True,
                           run_id=run.id if run else None, status=ChecklistStatus.PENDING,
                           evidence=[line, *[str(f) for f in health.get("flags", [])]])

    async def _precheck(self, profile: ResolvedProfile) -> tuple[Cause, list[str]] | None:
        foreign = await self._foreign_gpu_processes()
        if foreign:
            return Cause.GPU_FAULT, [
                f"GPU{p.gpu_index} holds a compute process that is not ours: pid {p.pid} using "
                f"{p.used_memory_mib:.0f} MiB" if p.used_memory_mib else
                f"GPU{p.gpu_index} holds a compute process that is not ours: pid {p.pid}"
                for p in foreign] + ["refusing to launch over it: stop it, or free the GPU"]
        if profile.port and await anyio.to_thread.run_sync(port_in_use, profile.host,
                                                             profile.port):
            return Cause.PORT_IN_USE, [
                f"port {profile.port} on {profile.host} is already in use by another process;"
                " refusing to launch (SGLang would only find out after loading the model)"]
        return None

    async def _foreign_gpu_processes(self) -> list[Any]:
        if self.gpus is None or not self.gpus.status().get("available"):
            return []
        try:
            return list(await self.gpus.foreign_processes(None, set()))
        except Exception as exc:  # telemetry trouble must not block launches
            self.problems.append(f"GPU process check failed: {exc}")
            return []

    def _new_run(self, profile: ResolvedProfile, req: Request, reason: str) -> Run:
        token = secrets.token_hex(8)
        now = time.time()
        run_id = self.store.create_run(
            token=token, profile=profile.name, changes=list(profile.changes), hash=profile.hash,
            resolved=profile.to_dict(), argv=executed_argv(profile), env=profile.env_dict(),
            request_id=req.id, reason=reason, status=Status.STARTING.value,
            phase=Phase.LAUNCH.value, started=now)
        run_dir = self.runs_dir / str(run_id)
        run_dir.mkdir(parents=True, exist_ok=True)
        self.store.update_run(run_id, log_path=str(run_dir / "run.log"))
        self._prune_run_dirs()
        return Run(run_id=run_id, token=token, profile=profile, run_dir=run_dir,
                   services=self._services, request_id=req.id, reason=reason)

    def _prune_run_dirs(self) -> None:
        dirs = sorted((d for d in self.runs_dir.iterdir() if d.name.isdigit()),
                      key=lambda d: int(d.name))
        for old in dirs[:-self.config.keep_runs] if self.config.keep_runs > 0 else []:
            shutil.rmtree(old, ignore_errors=True)

    def _run_ended(self, run: Run) -> None:
        req = self.request
        if req is not None:
            for att in req.attempts:
                if att.run_id == run.id:
                    att.note_run(run)
        if run.failed:
            plan_for_failure(self.checklist, run, self._facts(run))
            if run.ready_event.is_set() and self.current is run and (
                    req is None or req.done.is_set()) and self._tg is not None:
                self._tg.start_soon(self._restart_fenced, run)
        self.publish_fallback()

    async def _restart_fenced(self, run: Run) -> None:
        """The restart policy's task, fenced off like a run's supervision: it runs in the
        daemon's task group, where an exception would take every service down."""
        try:
            await self._restart_after_failure(run)
        except Exception as exc:  # cancellation (shutdown) is not an Exception: it goes on
            self._fence_failed(run, exc, "restarting it failed",
                               "switch to a profile to launch again")
            self._restart_scope = None

    def _run_ready(self, run: Run) -> None:
        """Ready is what makes a config known-good (remembered across restarts)."""
        self.last_good = {"profile": run.profile.name, "changes": list(run.profile.changes),
                          "hash": run.hash, "run_id": run.id}
        self.store.set_meta("last_good", {"profile": run.profile.name,
                                          "changes": list(run.profile.changes),
                                          "hash": run.hash, "run_id": run.id,
                                          "resolved": run.profile.to_dict()})

    def _log_problem(self, run: Run, error: str | None) -> None:
        """The run's log cannot be written (disk full...): supervision goes on; say so."""
        from ..states import ChecklistStatus as S

        key = f"run{run.id}:logwrite"
        if error is not None:
            self.problems.append(error)
            self.checklist.set_key(key, S.FAILED, [error, "supervision goes on; lines are kept"
                                                   " in memory and logging resumes by itself"],
                                   f"Run #{run.id}: free space for the run log", run.id)
        elif self.checklist.find(key) is not None:
            self.checklist.set_key(key, S.DONE, ["the log is being written again"])

    async def _restart_after_failure(self, run: Run) -> None:
        """A server that was ready failed: restart it per its [restart] policy."""
        from ..states import ChecklistStatus as S

        policy = self._restart_policies.setdefault(run.profile.hash,
                                                   RestartPolicy(run.profile.restart))
        decision = policy.on_failure()
        what = f"{run.profile.name} (run #{run.id} {run.status.value})"
        if not decision.restart:
            self.checklist.add(f"Not restarting {what}: {decision.reason}", auto=True,
                               run_id=run.id, status=S.FAILED, evidence=list(run.evidence[:3]))
            return
        item = self.checklist.add(f"Restart {what}: {decision.reason}", auto=True,
                                  run_id=run.id, status=S.IN_PROGRESS,
                                  evidence=list(run.evidence[:3]))
        with anyio.CancelScope() as scope:
            self._restart_scope = scope
            await anyio.sleep(decision.delay)
            async with self._lock:
                if self.current is not run:
                    return
                req = Request(self._next_request_id(), run.profile.name,
                              run.profile.fallback.strategy)
                self.request = req
                assert self._tg is not None
                await self._tg.start(self._campaign, req, run.profile,
                                     f"restart {decision.attempt} after {run.status.value}")
            self.checklist.set(item, S.DONE, [f"relaunched as run #{self.current.id}"]
                               if self.current is not None else None)
        if scope.cancelled_caught and item in self.checklist.ids:
            # a switch cancels the pending restart and resets the checklist: its item may be gone
            self.checklist.set(item, S.SKIPPED, ["cancelled by an operator's request"])
        self._restart_scope = None

    def _facts(self, run: Run) -> dict[str, Any]:
        gpu_flags: list[str] = []
        note = "no GPU monitor"
        if self.gpus is not None:
            st = self.gpus.status()
            note = "GPUs healthy" if st.get("available") else f"no GPU signal: {st.get('reason')}"
            for g in self.gpus.snapshot():
                health = g.get("health") or {}
                if health.get("level") not in (None, "ok", "unknown"):
                    gpu_flags += [f"GPU{g['index']}: {f}" for f in health.get("flags", [])]
        return {"processes": run.process_report, "stacks": run.stack_files,
                "leftovers": run.leftovers, "shm_removed": run.shm_removed,
                "activity": run.activity_report,
                "gpu_flags": gpu_flags, "gpu_note": note}

    def root_profile(self, name: str) -> str:
        """The top of a profile's extends chain: its baseline for comparisons."""
        seen = {name}
        while True:
            try:
                parent = self.profiles.parent_of(name)
            except Exception:
                return name
            if not parent or parent in seen:
                return name
            seen.add(parent)
            name = parent

    def request_reload(self, why: str, on_done: Callable[[], None] | None = None) -> None:
        """Reload in the background (from a signal handler: it must not wait for the disk)."""
        async def job() -> None:
            try:
                await self.reload_profiles(why)
            except Exception as exc:  # a reload bug must not end the daemon
                self.problems.append(f"reloading profiles ({why}) failed: {exc}")
            finally:
                if on_done is not None:
                    on_done()

        assert self._tg is not None
        self._tg.start_soon(job)

    async def reload_profiles(self, why: str) -> dict[str, Any]:
        """Re-read the profiles; a bad file is reported and never disturbs the running server.

        The files are read and resolved in a worker thread, one reload at a time: a profiles
        folder that is slow or huge delays the new set, never the event loop."""
        from ..profiles import diff_sets

        async with self._reload_lock:
            new = await anyio.to_thread.run_sync(ProfileSet.load_dir, self.config.profiles_dir)
            return self._apply_reload(new, why, diff_sets(self.profiles, new))

    def _apply_reload(self, new: ProfileSet, why: str, diff: dict[str, Any]) -> dict[str, Any]:
        self.profiles = new.keep_valid_from(self.profiles)
        self.store.add_event("reload", {"why": why, **{k: v for k, v in diff.items()}})
        self.hub.publish("daemon", {"reload": diff, "why": why})
        return diff

    # -- views --------------------------------------------------------------------------
    def fallback_view(self) -> dict[str, Any]:
        req = self.request
        run = self.current
        serving = None
        if run is not None and run.status == Status.READY:
            serving = {"profile": run.profile.name, "changes": list(run.profile.changes),
                       "run_id": run.id}
        if req is None:
            return {"strategy": "none", "attempts": [], "culprits": [], "serving": serving,
                    "request": None, "settled": True,
                    "last_good": self.last_good}
        attempts = [a.to_dict() for a in req.attempts]
        for att in attempts:  # the live run's record may lag its status by a transition
            if run is not None and att["run_id"] == run.id:
                att.update(status=run.status.value, cause=run.cause and run.cause.value,
                           phase=run.phase.value)
        return {"strategy": req.strategy, "attempts": attempts, "culprits": req.culprits,
                "serving": serving, "request": {"id": req.id, "profile": req.profile,
                                                "ok": req.ok, "notes": req.notes},
                "settled": req.done.is_set(), "last_good": self.last_good}

    def publish_fallback(self) -> None:
        self.hub.publish("fallback", self.fallback_view())

    def status(self) -> dict[str, Any]:
        return {
            "daemon": {"version": _version(), "pid": os.getpid(),
                       "uptime_s": round(time.time() - self.started, 1),
                       "profiles_dir": str(self.config.profiles_dir),
                       "state_dir": str(self.config.state_dir), "problems": self.problems[-5:],
                       "tracking": proc_mod.cgroups.mechanism()},
            "run": self.current.snapshot() if self.current is not None else None,
            "checklist": self.checklist.view(),
            "gpus": self.gpus.snapshot() if self.gpus is not None else [],
            "fallback": self.fallback_view(),
        }


def _version() -> str:
    from .. import __version__
    return __version__


def _first_leaf(exc: BaseException) -> BaseException:
    """The error inside task-group wrappers (what a person needs to read)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def without_benchmark(profile: ResolvedProfile, benchmark: bool) -> ResolvedProfile:
    """The profile as launched: its [benchmark] kept, or left out when the caller asked for
    no benchmark (the launch's identity, its hash, does not change)."""
    if benchmark or profile.benchmark is None:
        return profile
    return dataclasses.replace(profile, benchmark=None)
