"""One launch of one resolved profile: process group, log pipe, phase tracker, watchdogs.

A Run owns its child from spawn to the moment nothing of it is left. Status changes go
through ``transition`` (validated, timestamped, recorded, published). The arbiter decides
what happens after a run ends; a run never relaunches itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from ..diagnosis.classifier import classify_lines
from ..diagnosis.tail import verdict_lines
from ..engines import get_engine
from ..engines.base import PhaseUpdate
from ..events import Hub
from ..profiles import ResolvedProfile
from ..states import (
    FINAL_STATUSES,
    Cause,
    Phase,
    Status,
    check_transition,
)
from ..store import Store
from ..watchdogs.activity import ActivityTracker
from ..watchdogs.health import probe
from . import cgroups, stacks
from . import process as proc_mod
from .logfeed import LogFeed
from .logpipe import LogPipe, RunLog, open_pipe
from .memory import release_free_memory

PYTHON_PLACEHOLDER = "{python}"
ACTIVITY_INTERVAL = 1.0
COMMAND_STARTSECS = 3.0


_DAEMON_ONLY_ENV = frozenset({"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
                              "LISTEN_PID", "LISTEN_FDNAMES"})

# Tails this short are classified on the loop (~50 us a line at worst, fixtures' logs).
_CLASSIFY_INLINE = 64
_CLASSIFY_INLINE_CHARS = 64 * 1024  # a few lines can be huge (a tensor repr in an error)
# A read longer than this is not only our health probes' access lines (~100 bytes each).
_PROBE_READ_MAX = 4096


def _tail_lines(path: Path, n: int) -> list[str]:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 300 * n))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [ln for ln in text.replace("\r", "\n").split("\n") if ln][-n:]


class Run:
    def __init__(self, *, run_id: int, token: str, profile: ResolvedProfile, store: Store,
                 hub: Hub, run_dir: Path, gpu_util: Callable[[], float | None] | None = None,
                 on_end: Callable[[Run], None] | None = None, log_max_bytes: int = 256 * 2**20,
                 request_id: int | None = None, reason: str | None = None,
                 on_log_problem: Callable[[Run, str | None], None] | None = None,
                 on_ready: Callable[[Run], None] | None = None,
                 adopted: dict[str, Any] | None = None) -> None:
        self.id = run_id
        self.token = token
        self.profile = profile
        self.store = store
        self.hub = hub
        self.dir = run_dir
        self.request_id = request_id
        self.reason = reason
        self.engine = get_engine(profile.engine)
        self.tracker = self.engine.new_tracker()
        self.gpu_util = gpu_util or (lambda: None)
        self.on_end = on_end
        self.on_log_problem = on_log_problem
        self.on_ready = on_ready
        self._log_error: str | None = None
        self.status = Status.STARTING
        self.phase = Phase.LAUNCH
        self.phase_since = time.time()
        self.progress: dict[str, Any] | None = None
        self.cause: Cause | None = None
        self.evidence: list[str] = []
        self.exit_code: int | None = None
        self.pid: int | None = None
        self.pgid: int | None = None
        self.started = time.time()
        self.ended: float | None = None
        self.stack_files: list[str] = []
        self.process_report: list[dict[str, Any]] = []   # the tree at the verdict
        self.activity_report: list[str] = []
        self.gpu_events: list[str] = []   # XIDs seen while this run was alive
        self.benchmark: dict[str, Any] | None = None
        self.benchmark_done = anyio.Event()
        self._tg: Any = None
        self.ready_event = anyio.Event()
        self.settled = anyio.Event()      # final status reached and nothing of the run is left
        self.exited = anyio.Event()
        self.leftovers: set[int] = set()
        self._stop_requested = False
        self._stop_reason = ""
        self._spawning = False            # supervise() has begun: it will settle the run
        self._kill_asked = anyio.Event()  # one kill path for stop, verdicts and shutdown
        self._killed = anyio.Event()
        self.cgroup: Path | None = None   # the run's cgroup, when one holds it
        self.activity = ActivityTracker(started=time.monotonic())
        self.pipe = LogPipe(RunLog(run_dir / "run.log", log_max_bytes),
                            on_chunk=self._on_chunk)
        self.followers = LogFeed(hub, run_id, run_dir / "run.log")
        # Kept in memory too: `status` must not query SQLite or hash the profile each time.
        self.hash = profile.hash
        self.scanner = proc_mod.RunScanner(token)
        self.adopted = adopted is not None
        if adopted is not None:
            self._take_over(adopted)
            return
        store.phase_started(run_id, Phase.LAUNCH.value, self.phase_since)
        self.phases: list[dict[str, Any]] = [
            {"phase": Phase.LAUNCH.value, "started": self.phase_since, "ended": None,
             "duration": None}]

    def _take_over(self, row: dict[str, Any]) -> None:
        """State of a ready run found alive after a daemon restart (see supervise_adopted)."""
        self.status = Status.READY
        self.ready_event.set()
        self.benchmark_done.set()
        self.phases = self.store.phases(self.id)
        last = self.phases[-1] if self.phases else None
        self.phase = Phase(last["phase"]) if last else Phase.READY
        self.phase_since = last["started"] if last else time.time()
        if last is not None:
            last["ended"] = last["duration"] = None
        self.pid, self.pgid, self.started = row["pid"], row["pgid"], row["started"]
        self.benchmark = row.get("benchmark")
        self.pipe.seed(_tail_lines(self.log_path, 3000))
        self.evidence = list(row.get("evidence") or []) + [
            "adopted after a daemon restart: health and exit are watched again; output "
            "written while no daemon was reading is lost (the old pipe closed with it)"]
        self.store.update_run(self.id, evidence=self.evidence)

    # -- state ----------------------------------------------------------------------------
    @property
    def tracking(self) -> str:
        """How this run's processes are found: a cgroup, or the process tree and token."""
        return "cgroup" if self.cgroup is not None else "process-tree"

    @property
    def log_path(self) -> Path:
        return self.dir / "run.log"

    @property
    def failed(self) -> bool:
        return self.status in (Status.CRASHED, Status.HUNG, Status.TIMEOUT, Status.UNHEALTHY)

    def transition(self, new: Status, *, cause: Cause | None = None,
                   evidence: list[str] | None = None) -> None:
        if new == self.status:
            return
        if evidence is not None:
            evidence = list(dict.fromkeys(evidence))  # the same line once, order kept
        check_transition(self.status, new)
        self.status = new
        if cause is not None:
            self.cause = cause
        if evidence is not None:
            self.evidence = evidence
        fields: dict[str, Any] = {"status": new.value, "cause": self.cause and self.cause.value,
                                  "evidence": self.evidence}
        if new in FINAL_STATUSES:
            self.ended = self.ended or time.time()
            fields["ended"] = self.ended
        if self.exit_code is not None:
            fields["exit_code"] = self.exit_code
        # Subscribers first (a connection sends at once when its socket has room; the short
        # verdict before the big snapshot), then history: both happen before the loop runs
        # anything else, so no request can see the one without the other.
        if new in (Status.CRASHED, Status.HUNG, Status.TIMEOUT, Status.UNHEALTHY):
            self.hub.publish("verdict", self.verdict())
        self.publish()
        self.store.update_run(self.id, **fields)
        self.store.add_event("status", {"status": new.value, "cause": fields["cause"]}, self.id)

    def verdict(self) -> dict[str, Any]:
        return {"run_id": self.id, "profile": self.profile.name, "status": self.status.value,
                "phase": self.phase.value, "cause": self.cause and self.cause.value,
                "evidence": list(self.evidence), "exit_code": self.exit_code}

    def deadline_s(self) -> float | None:
        if self.status != Status.STARTING:
            return None
        return self.profile.timeouts.for_phase(self.phase)

    def snapshot(self) -> dict[str, Any]:
        now = time.monotonic()
        return {
            "id": self.id, "profile": self.profile.name, "changes": list(self.profile.changes),
            "status": self.status.value, "phase": self.phase.value,
            "phase_since": self.phase_since, "deadline_s": self.deadline_s(),
            "cause": self.cause and self.cause.value, "evidence": list(self.evidence),
            "pid": self.pid, "progress": self.progress, "started": self.started,
            "ended": self.ended, "exit_code": self.exit_code, "hash": self.hash,
            "phases": [dict(p) for p in self.phases],
            "activity": self.activity.to_dict(now, self.profile.timeouts.silence),
            "log_path": str(self.log_path), "log_error": self.pipe.log.error,
            "stacks": list(self.stack_files), "request_id": self.request_id,
            "reason": self.reason, "benchmark": self.benchmark, "tracking": self.tracking,
        }

    def publish(self) -> None:
        self.hub.publish("run", self.snapshot())

    # -- output -------------------------------------------------------------------------
    def _on_update(self, update: PhaseUpdate) -> None:
        if update.changed_phase and update.phase.rank > self.phase.rank:
            self._enter_phase(update.phase)
        if update.progress != self.progress:
            self.progress = update.progress
            self._progress_dirty = True
        if update.ready and not self.ready_event.is_set():
            self._became_ready("ready line")

    def _on_chunk(self, chunk: bytes) -> None:
        for update in self.tracker.feed_chunk(chunk):
            self._on_update(update)
        # Access lines of our own health probes are not a sign of life: a server hung in
        # warmup still answers them (503) from its HTTP thread. Probes come one per interval,
        # so a read of more than a few lines is never all probes: only short reads are checked.
        if len(chunk) > _PROBE_READ_MAX or not self._only_probes(chunk):
            self.activity.output_seen(time.monotonic())
        if self.pipe.log.error != self._log_error:  # disk full, or space came back
            self._log_error = self.pipe.log.error
            if self.on_log_problem is not None:
                self.on_log_problem(self, self._log_error)
            self.publish()
        self.followers.add(chunk)
        if getattr(self, "_progress_dirty", False):
            self._progress_dirty = False
            self.publish()

    def _only_probes(self, chunk: bytes) -> bool:
        probe = f"GET {self.profile.health.path} ".encode()
        return all(probe in line for line in chunk.split(b"\n") if line)

    def _enter_phase(self, phase: Phase) -> None:
        self.phase = phase
        self.phase_since = time.time()
        self.store.phase_started(self.id, phase.value, self.phase_since)
        self._close_phase(self.phase_since)
        self.phases.append({"phase": phase.value, "started": self.phase_since, "ended": None,
                            "duration": None})
        self.store.update_run(self.id, phase=phase.value)
        self.publish()

    def _close_phase(self, when: float) -> None:
        last = self.phases[-1] if self.phases else None
        if last is not None and last["ended"] is None:
            last["ended"] = when
            last["duration"] = when - last["started"]

    def _became_ready(self, how: str) -> None:
        if self.status != Status.STARTING:
            return
        if self.phase.rank < Phase.READY.rank:
            self._enter_phase(Phase.READY)
        self.ready_event.set()
        self.transition(Status.READY)
        if self.on_ready is not None:
            self.on_ready(self)
        self.store.add_event("ready", {"how": how}, self.id)
        if self.profile.benchmark and self._tg is not None:
            self._tg.start_soon(self._run_benchmark)
        else:
            self.benchmark_done.set()

    async def _run_benchmark(self) -> None:
        """The profile's [benchmark], once, right after ready; stored with the run."""
        from ..benchmark import BenchmarkError, run_benchmark

        spec = dict(self.profile.benchmark or {})
        try:
            result = await anyio.to_thread.run_sync(
                run_benchmark, spec, self.profile.host, self.profile.port, self.profile.model,
                abandon_on_cancel=True)
        except (BenchmarkError, OSError, ValueError) as exc:
            result = {"kind": spec.get("kind", "chat"), "error": str(exc)}
        except Exception as exc:  # a broken benchmark never takes supervision down
            result = {"kind": spec.get("kind", "chat"), "error": f"{type(exc).__name__}: {exc}"}
        self.benchmark = result
        self.store.update_run(self.id, benchmark=result)
        self.store.add_event("benchmark", result, self.id)
        self.benchmark_done.set()
        self.publish()

    # -- lifecycle ----------------------------------------------------------------------
    def argv(self) -> list[str]:
        return [sys.executable if a == PYTHON_PLACEHOLDER else a for a in self.profile.argv()]

    def env(self) -> dict[str, str]:
        # systemd's per-service variables are the daemon's, not the server's.
        env = {k: v for k, v in os.environ.items() if k not in _DAEMON_ONLY_ENV}
        env.update(self.profile.env_dict())
        env[proc_mod.RUN_ENV_VAR] = self.token
        env.setdefault("PYTHONUNBUFFERED", "1")
        return env

    async def supervise(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Spawn, watch, and end with nothing of the run left. Never raises for the child.

        Whatever cancels this task, at whatever point, the run settles: before the spawn it
        ends `stopped` with no process; after it, the finally block kills the whole tree.
        """
        if self.settled.is_set():  # stopped before it could start
            task_status.started()
            return
        self._spawning = True
        try:
            process, out_r = await self._spawn()
        except BaseException:  # cancelled before a process existed
            self._abandon("cancelled before the server was started")
            raise
        if process is None:
            task_status.started()
            return
        try:
            task_status.started()
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self.pipe.pump, out_r)
                tg.start_soon(self._watch)
                tg.start_soon(self.followers.run)
                tg.start_soon(self._kill_when_asked)
                code = await process.wait()
                self.exit_code = code
                self.exited.set()
                await self._drain_output()
                tg.cancel_scope.cancel()
            await self._on_exit(code)
            await anyio.lowlevel.checkpoint()  # let client writers send the verdict first
        finally:
            os.close(out_r)  # the pump has ended with the task group (or never started)
            with anyio.CancelScope(shield=True):
                async with anyio.create_task_group() as reap:
                    if not self.exited.is_set():  # cancelled (daemon shutdown) before the exit
                        reap.start_soon(self._note_exit, process)
                    await self._reap_all()
                    reap.cancel_scope.cancel()
                await process.aclose()
                proc_mod.unregister_main(self.pid)
                self.pipe.log.close()
                self._settle()

    async def _spawn(self) -> tuple[Any, int]:
        """Start the server in its own session (and cgroup, where we may make one).

        The spawn itself is shielded: a cancellation arriving while the process is being
        created must not leave a process that nothing knows about.
        """
        problem = self._spawn_problem()
        if problem is not None:
            self._spawn_failed(problem)
            return None, -1
        out_r, out_w = open_pipe()
        with anyio.CancelScope(shield=True):
            self.cgroup = await anyio.to_thread.run_sync(cgroups.create, self.token)
            try:
                process = await anyio.open_process(
                    cgroups.spawn_prefix(self.cgroup) + self.argv(), stdin=subprocess.DEVNULL,
                    stdout=out_w, stderr=out_w, cwd=self.profile.cwd, env=self.env(),
                    start_new_session=True)
            except (OSError, ValueError) as exc:  # ValueError: an argument Popen refuses
                os.close(out_r)
                self._spawn_failed(exc if isinstance(exc, OSError) else OSError(str(exc)))
                return None, -1
            finally:
                os.close(out_w)  # the child has its copy: EOF comes when its tree is done
            proc_mod.register_main(process.pid)
            self.pid = self.pgid = process.pid
            self.scanner.cgroup = self.cgroup = await anyio.to_thread.run_sync(
                self._confirm_cgroup, process.pid)
        self.store.update_run(self.id, pid=self.pid, pgid=self.pgid)
        self.publish()
        return process, out_r

    def _confirm_cgroup(self, pid: int) -> Path | None:
        """The cgroup is in force only if the server really landed in it."""
        if self.cgroup is None:
            return None
        for _ in range(100):  # the shell moves itself in before exec: a few ms at most
            if cgroups.contains(self.cgroup, pid):
                return self.cgroup
            if not os.path.exists(f"/proc/{pid}"):
                break
            time.sleep(0.002)
        cgroups.remove(self.cgroup)
        return None

    def _spawn_problem(self) -> OSError | None:
        """What would make the spawn fail, found before it (the cgroup wrapper would otherwise
        turn it into an exit 127 of the shell)."""
        cwd = self.profile.cwd
        if cwd and not os.path.isdir(cwd):
            return NotADirectoryError(2, f"working directory {cwd} does not exist "
                                         "(launch.cwd in the profile)")
        exe = self.argv()[0]
        path = self.env().get("PATH", os.defpath)
        found = exe if os.sep in exe else shutil.which(exe, path=path)
        if found is None or not os.path.exists(os.path.join(cwd or "", found)):
            return FileNotFoundError(2, f"{exe}: no such program (PATH={path})")
        if not os.access(os.path.join(cwd or "", found), os.X_OK) or os.path.isdir(found):
            return PermissionError(13, f"{exe}: not an executable file")
        return None

    def _abandon(self, reason: str) -> None:
        """Settle a run whose process was never started (a cancelled launch)."""
        if self.settled.is_set():
            return
        self._stop_requested = True
        self._stop_reason = reason
        if self.status not in FINAL_STATUSES:
            self.transition(Status.STOPPED, evidence=[reason])
        self.pipe.log.close()
        self._settle()

    async def _kill_when_asked(self) -> None:
        """The one place a live run is taken down: SIGTERM to its group, `stop_grace`, then
        SIGKILL of every process of the run, whether or not the main process obeyed."""
        await self._kill_asked.wait()
        with anyio.CancelScope(shield=True):
            self.leftovers = await proc_mod.kill_run(
                self.token, self.pgid, grace=self.profile.timeouts.stop_grace,
                main_exited=self.exited, tree=True)
            self._killed.set()

    def _terminate(self) -> None:
        """Ask for the kill (stop, a verdict, or shutdown: all the same path)."""
        self._stop_requested = True
        self._kill_asked.set()

    async def _note_exit(self, process: Any) -> None:
        """Let the reaper know the moment the main process is gone (it waits for that)."""
        self.exit_code = await process.wait()
        self.exited.set()

    def refuse(self, cause: Cause, evidence: list[str]) -> None:
        """The arbiter's pre-launch checks said no: a verdict without a process."""
        for line in evidence:
            self.pipe.feed(f"[gpu-node-supervisor] {line}\n".encode())
        self.transition(Status.CRASHED, cause=cause, evidence=evidence)
        self.pipe.log.close()
        self._settle()

    async def supervise_adopted(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Watch a server started by a previous daemon: not our child, so a pidfd tells
        us when it exits (at once, no polling) but not its exit code."""
        try:
            pidfd = os.pidfd_open(self.pid or 0)
        except OSError:
            task_status.started()
            self._settle()
            return
        self.publish()
        self._spawning = True
        task_status.started()
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self._watch)
                tg.start_soon(self.followers.run)
                tg.start_soon(self._kill_when_asked)
                await anyio.wait_readable(pidfd)
                self.exited.set()
                tg.cancel_scope.cancel()
            if not self.failed:
                if self._stop_requested:
                    self.transition(Status.STOPPED, evidence=[self._stop_reason])
                else:
                    self.transition(Status.CRASHED, cause=Cause.UNKNOWN, evidence=[
                        f"adopted server (pid {self.pid}) exited; its exit code is unknown "
                        "because it is not this daemon's child", *self._log_evidence()])
        finally:
            os.close(pidfd)
            with anyio.CancelScope(shield=True):
                await self._reap_all()
                self.pipe.log.close()
                self._settle()

    def _spawn_failed(self, exc: OSError) -> None:
        msg = f"cannot start {self.argv()[0]}: {exc.strerror or exc}"
        self.pipe.feed((msg + "\n").encode())
        # A missing executable is an environment problem, like a failed import; a missing
        # working directory is the profile's (its message says so).
        cause = Cause.IMPORT_ERROR if isinstance(exc, FileNotFoundError) and not isinstance(
            exc, NotADirectoryError) else Cause.UNKNOWN
        self.transition(Status.CRASHED, cause=cause, evidence=[msg])
        self.pipe.log.close()
        self._settle()

    async def _drain_output(self) -> None:
        """After the exit, take what is still in the pipe (the root error is often last)."""
        last = -1
        with anyio.move_on_after(0.5):
            while not self.pipe.eof.is_set() and self.pipe.bytes != last:
                last = self.pipe.bytes
                with anyio.move_on_after(0.05):
                    await self.pipe.eof.wait()

    async def _on_exit(self, code: int) -> None:
        if self.failed:  # the verdict (hung/timeout/unhealthy) came first; the exit is our kill
            self.store.update_run(self.id, exit_code=code)
            return
        if self._stop_requested:
            self.transition(Status.STOPPED, evidence=[self._stop_reason] if self._stop_reason
                            else [])
            return
        verdict = await self._classify(exit_code=code)
        phase = self.phase
        if verdict.phase.rank > phase.rank and verdict.phase.rank < Phase.READY.rank:
            phase = verdict.phase
            self._enter_phase(phase)
        evidence = list(verdict.evidence) or [f"process exited with code {code}",
                                              "no error line in the log"]
        cause = verdict.cause or Cause.UNKNOWN
        if self.gpu_events and cause in (Cause.UNKNOWN, Cause.ILLEGAL_MEMORY_ACCESS,
                                         Cause.GPU_FAULT):
            cause = Cause.GPU_FAULT  # the driver reported the GPU failing under this run
            evidence = self.gpu_events[-3:] + evidence
        self.transition(Status.CRASHED, cause=cause, evidence=evidence + [f"exit code {code}"])

    async def _classify(self, exit_code: int | None = None) -> Any:
        """The classifier over the log tail; off the event loop unless the tail is short
        (a few ms at most, less than the thread hop would add to the verdict's latency)."""
        lines = verdict_lines(self.pipe.tail(3000))
        if len(lines) <= _CLASSIFY_INLINE and sum(map(len, lines)) <= _CLASSIFY_INLINE_CHARS:
            return classify_lines(lines, engine=self.engine.name, exit_code=exit_code)
        return await anyio.to_thread.run_sync(
            lambda: classify_lines(lines, engine=self.engine.name, exit_code=exit_code))

    async def _reap_all(self) -> None:
        # After a kill already ran its grace, what is left (if anything) dies at once.
        grace = 0.0 if self._killed.is_set() else self.profile.timeouts.stop_grace
        self.leftovers = await proc_mod.kill_run(self.token, self.pgid, grace=grace,
                                                 main_exited=self.exited, tree=True)
        if self.leftovers:
            self.store.add_event("leftovers", {"pids": sorted(self.leftovers)}, self.id)

    def _settle(self) -> None:
        self.benchmark_done.set()
        self.ended = self.ended or time.time()
        # The exit code also goes with the verdict; here it is stored whatever happened.
        extra = {} if self.exit_code is None else {"exit_code": self.exit_code}
        self.store.update_run(self.id, ended=self.ended, **extra)
        self.store.phases_closed(self.id, self.ended)
        self._close_phase(self.ended)
        self.settled.set()
        release_free_memory()  # the run's buffers (and its followers' backlog) are gone
        self.publish()
        if self.on_end is not None:
            self.on_end(self)

    async def stop(self, reason: str = "stopped by request") -> None:
        """Stop the run (SIGTERM, grace, SIGKILL of everything) and wait until it is gone."""
        if self.settled.is_set():
            return
        if not self._spawning:  # never launched (refused, or cancelled before the spawn)
            self._abandon(reason)
            return
        self._stop_reason = self._stop_reason or reason
        if not self.failed and self.status != Status.STOPPING:
            self.transition(Status.STOPPING)
        self._terminate()
        with anyio.CancelScope(shield=True):
            await self.settled.wait()

    # -- watchdogs ----------------------------------------------------------------------
    async def _watch(self) -> None:
        """Deadlines, silence vs activity, and the health probe, on one timer."""
        timeouts = self.profile.timeouts
        tick = max(0.05, min(ACTIVITY_INTERVAL, timeouts.silence / 8))
        health = self.profile.health
        next_probe = 0.0
        misses = 0
        while True:
            await anyio.sleep(tick)
            if self._stop_requested or self.failed:
                return
            now_m = time.monotonic()
            tree = await anyio.to_thread.run_sync(self._sample_tree)
            self.activity.sample(tree, self.gpu_util())
            if self.status == Status.STARTING:
                if await self._check_deadline() or await self._check_silence(now_m):
                    return
            if now_m >= next_probe and self._probe_due():
                next_probe = now_m + (health.interval if self.status == Status.READY
                                      else min(1.0, health.interval))
                result = await probe(self.profile.host, self.profile.port, health.path,
                                     health.timeout)
                misses = await self._on_probe(result, misses)
                if self.failed:
                    return

    def _sample_tree(self) -> proc_mod.TreeSample:
        """Worker thread: the run's processes (cached scan) and their counters, in one call."""
        return proc_mod.sample_tree(self.scanner.scan())

    def _probe_due(self) -> bool:
        # SGLang opens its port only after graph capture: no probing before warmup.
        if self.status == Status.READY:
            return True
        return self.status == Status.STARTING and (
            self.phase.rank >= Phase.WARMUP.rank or self.engine.name == "command")

    async def _on_probe(self, result: Any, misses: int) -> int:
        if result.ok:
            if self.status == Status.STARTING:
                self._became_ready(f"GET {self.profile.health.path} = 200")
            return 0
        if self.status != Status.READY:
            # 503 during warmup is SGLang saying "not yet", not a failure.
            # A plain command that opens no port is ready once it has run a few seconds.
            if self.engine.name == "command" and result.refused and \
                    time.time() - self.started >= COMMAND_STARTSECS:
                self._became_ready(f"running {COMMAND_STARTSECS:g} s (no port open)")
            return 0
        misses += 1
        if misses >= self.profile.health.failures:
            why = result.error or f"HTTP {result.status}"
            await self._fail(Status.UNHEALTHY, Cause.HEALTH_CHECK_FAILED, [
                f"{misses} consecutive health probes failed: GET {self.profile.health.path}"
                f" -> {why}"] + self._log_evidence())
        return misses

    async def _check_deadline(self) -> bool:
        budget = self.profile.timeouts.for_phase(self.phase)
        if budget is None:
            return False
        spent = time.time() - self.phase_since
        if spent < budget:
            return False
        cause = Cause.SLOW_WEIGHT_LOADING if self.phase == Phase.WEIGHT_LOADING else None
        verdict = await self._classify()
        await self._fail(Status.TIMEOUT, cause or verdict.cause or Cause.UNKNOWN, [
            f"phase {self.phase.value} ran {spent:.0f} s, past its {budget:g} s budget",
            *self._activity_evidence(), *verdict.evidence])
        return True

    async def _check_silence(self, now_m: float) -> bool:
        silence = self.profile.timeouts.silence
        if not self.activity.is_hung(now_m, silence):
            return False
        verdict = await self._classify()
        quiet = self.activity.quiet_for(now_m)
        evidence = [
            f"no output for {quiet:.0f} s in phase {self.phase.value} and no CPU, disk or GPU"
            f" activity for {self.activity.still_for(now_m):.0f} s (silence = {silence:g} s)",
            *self._activity_evidence(), *self._log_evidence(3), *verdict.evidence]
        await self._dump_stacks()
        if self.stack_files:
            evidence.append(f"stack dumps: {len(self.stack_files)} files in "
                            f"{Path(self.stack_files[0]).parent}")
        await self._fail(Status.HUNG, verdict.cause or Cause.UNKNOWN, evidence)
        return True

    def _activity_evidence(self) -> list[str]:
        a = self.activity
        gpu = "no signal" if a.gpu_util is None else f"{a.gpu_util:.0f}%"
        return [f"activity: CPU {a.cpu_percent}%, reads {a.read_mb_s} MB/s, GPU {gpu}"]

    def _log_evidence(self, n: int = 3) -> list[str]:
        return [f"last line: {line[:300]}" for line in self.pipe.tail(n)]

    async def _dump_stacks(self) -> None:
        pids = await anyio.to_thread.run_sync(proc_mod.run_pids, self.token, self.pgid)
        self.stack_files = await stacks.dump_stacks(pids, self.dir / "stacks")
        self.store.add_event("stacks", {"files": self.stack_files}, self.id)

    async def _fail(self, status: Status, cause: Cause, evidence: list[str]) -> None:
        """A watchdog verdict: record it, then take the run down (its status stays)."""
        pids = await anyio.to_thread.run_sync(proc_mod.run_pids, self.token, self.pgid)
        self.process_report = proc_mod.describe_processes(pids)
        self.activity_report = self._activity_evidence()
        self.transition(status, cause=cause, evidence=evidence)
        self._terminate()
