"""One launch of one resolved profile: its process tree, log pipe, phases and verdict.

A Run owns its child from spawn to the moment nothing of it is left, and hands off between
the parts that each do one job: ``spawn`` starts the server, ``LogPipe`` reads its output,
the engine's tracker turns lines into phases (``PhaseClock``), ``RunWatch`` raises verdicts
(deadline, hang, health), ``process.kill_run`` takes the tree down. Status changes go through
``transition`` (validated, timestamped, recorded, published). The arbiter decides what happens
after a run ends; a run never relaunches itself.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from ..diagnosis.classifier import classify_lines
from ..diagnosis.settings import launch_settings
from ..diagnosis.tail import verdict_lines
from ..engines import get_engine
from ..engines.base import PhaseUpdate
from ..engines.serving_stats import ServingStats
from ..events import Hub
from ..profiles import ResolvedProfile
from ..states import FAILED_STATUSES, FINAL_STATUSES, Cause, Phase, Status, check_transition
from ..store import Store
from ..watchdogs.activity import ActivityTracker
from ..watchdogs.watch import RunWatch, activity_evidence
from . import overlay, spawn, stacks
from . import process as proc_mod
from .logfeed import LogFeed
from .logpipe import LogPipe, RunLog
from .memory import release_free_memory
from .phases import PhaseClock
from .shm import ShmLedger
from .shm import describe as describe_shm

log = logging.getLogger(__name__)

PYTHON_PLACEHOLDER = "{python}"

_DAEMON_ONLY_ENV = frozenset({"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
                              "LISTEN_PID", "LISTEN_FDNAMES"})

# Tails this short are classified on the loop (~50 us a line at worst, fixtures' logs).
_CLASSIFY_INLINE = 64
_CLASSIFY_INLINE_CHARS = 64 * 1024  # a few lines can be huge (a tensor repr in an error)
# A read longer than this is not only our health probes' access lines (~100 bytes each).
_PROBE_READ_MAX = 4096


def executed_argv(profile: ResolvedProfile) -> list[str]:
    """The command exactly as it is executed (and recorded in history)."""
    return [sys.executable if a == PYTHON_PLACEHOLDER else a for a in profile.argv()]


@dataclass(frozen=True)
class RunServices:
    """What every run of one daemon shares: history, the event hub, GPU telemetry, and the
    arbiter's hooks for the moments it must act on."""

    store: Store
    hub: Hub
    gpu_activity: Callable[[], tuple[float, float | None, float | None] | None] = lambda: None
    gpu_snapshot: Callable[[], list[dict[str, Any]]] = lambda: []   # sampled by benchmarks
    log_max_bytes: int = 256 * 2**20
    state_dir: str = ""
    on_end: Callable[[Run], None] | None = None
    on_ready: Callable[[Run], None] | None = None
    on_log_problem: Callable[[Run, str | None], None] | None = None


def _after_line(chunk: bytes, line: str | None) -> bytes:
    """What ``chunk`` holds after the end of ``line`` (all of it if the line is not there)."""
    at = chunk.find(line.encode()) if line else -1
    if at < 0:
        return chunk
    end = chunk.find(b"\n", at)
    return b"" if end < 0 else chunk[end + 1:]


class Run:
    def __init__(self, *, run_id: int, token: str, profile: ResolvedProfile, run_dir: Path,
                 services: RunServices, request_id: int | None = None,
                 reason: str | None = None) -> None:
        self.id = run_id
        self.token = token
        self.profile = profile
        self.services = services
        self.store = services.store
        self.hub = services.hub
        self.dir = run_dir
        self.request_id = request_id
        self.reason = reason
        self.engine = get_engine(profile.engine)
        self.tracker = self.engine.new_tracker()
        self.serving = ServingStats.for_engine(  # metrics after ready
            self.engine.name, probe_path=profile.health.path)
        self.clock = PhaseClock(self.store, run_id)
        self.status = Status.STARTING
        self.progress: dict[str, Any] | None = None
        self._progress_dirty = False
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
        self._log_error: str | None = None
        self.activity = ActivityTracker(started=time.monotonic())
        self.pipe = LogPipe(RunLog(run_dir / "run.log", services.log_max_bytes),
                            on_chunk=self._on_chunk)
        self.followers = LogFeed(self.hub, run_id, run_dir / "run.log")
        # Kept in memory too: `status` must not query SQLite or hash the profile each time.
        self.hash = profile.hash
        self.scanner = proc_mod.RunScanner(token)
        self.shm = ShmLedger(record=run_dir / "shm.json")  # /dev/shm before the launch
        self.shm_removed: list[str] = []  # what the run left there, removed at its end
        self.adopted = False
        self.import_path: str | None = None  # the source-patch overlay (runtime/overlay.py)
        self._begin()

    def _begin(self) -> None:
        self.clock.start()

    # -- state ----------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self.clock.phase

    @property
    def phase_since(self) -> float:
        return self.clock.since

    @property
    def phases(self) -> list[dict[str, Any]]:
        return self.clock.timeline

    @property
    def engine_name(self) -> str:
        return self.engine.name

    @property
    def tracking(self) -> str:
        """How this run's processes are found: a cgroup, or the process tree and token."""
        return "cgroup" if self.cgroup is not None else "process-tree"

    @property
    def log_path(self) -> Path:
        return self.dir / "run.log"

    @property
    def failed(self) -> bool:
        return self.status in FAILED_STATUSES

    @property
    def done_watching(self) -> bool:
        return self._stop_requested or self.failed

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
        if new in FAILED_STATUSES:
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
            "phases": self.clock.view(),
            "activity": self.activity.to_dict(now, self.profile.timeouts.silence),
            "log_path": str(self.log_path), "log_error": self.pipe.log.error,
            "stacks": list(self.stack_files), "request_id": self.request_id,
            "reason": self.reason, "benchmark": self.benchmark, "tracking": self.tracking,
            "serving": self.serving.latest() if self.serving is not None else None,
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
            self.became_ready("ready line")

    def _on_chunk(self, chunk: bytes) -> None:
        was_ready = self.ready_event.is_set()
        ready_line: str | None = None
        for update in self.tracker.feed_chunk(chunk):
            if update.ready and ready_line is None:
                ready_line = update.line
            self._on_update(update)
        if self.serving is not None and self.ready_event.is_set():
            # the engine's batch/stats lines (watchdogs/serving); in the read that made the run
            # ready, only what follows the ready line (the warmup request is not serving)
            self.serving.feed_chunk(chunk if was_ready else _after_line(chunk, ready_line))
        # Access lines of our own health probes are not a sign of life: a server hung in
        # warmup still answers them (503) from its HTTP thread. Probes come one per interval,
        # so a read of more than a few lines is never all probes: only short reads are checked.
        if len(chunk) > _PROBE_READ_MAX or not self._only_probes(chunk):
            self.activity.output_seen(time.monotonic())
        if self.pipe.log.error != self._log_error:  # disk full, or space came back
            self._log_error = self.pipe.log.error
            if self.services.on_log_problem is not None:
                self.services.on_log_problem(self, self._log_error)
            self.publish()
        self.followers.add(chunk)
        if self._progress_dirty:
            self._progress_dirty = False
            self.publish()

    def _only_probes(self, chunk: bytes) -> bool:
        probe = f"GET {self.profile.health.path} ".encode()
        return all(probe in line for line in chunk.split(b"\n") if line)

    def _enter_phase(self, phase: Phase) -> None:
        self.clock.enter(phase)
        self.publish()

    def became_ready(self, how: str) -> None:
        if self.status != Status.STARTING:
            return
        if self.phase.rank < Phase.READY.rank:
            self._enter_phase(Phase.READY)
        self.ready_event.set()
        self.transition(Status.READY)
        if self.services.on_ready is not None:
            self.services.on_ready(self)
        self.store.add_event("ready", {"how": how}, self.id)
        if self.profile.benchmark and self._tg is not None:
            self._tg.start_soon(self._run_benchmark)
        else:
            self.benchmark_done.set()

    async def _run_benchmark(self) -> None:
        """The profile's [benchmark], once, right after ready; stored with the run."""
        from ..benchmark import measure, with_serving

        result = with_serving(await measure(self.profile, self.services.gpu_snapshot),
                              self.serving)  # the engine's own metrics meanwhile
        self.benchmark = result
        self.store.update_run(self.id, benchmark=result)
        self.store.add_event("benchmark", result, self.id)
        self.benchmark_done.set()
        self.publish()

    # -- lifecycle ----------------------------------------------------------------------
    def argv(self) -> list[str]:
        return executed_argv(self.profile)

    def env(self) -> dict[str, str]:
        # systemd's per-service variables are the daemon's, not the server's.
        env = {k: v for k, v in os.environ.items() if k not in _DAEMON_ONLY_ENV}
        env.update(self.profile.env_dict())
        env[proc_mod.RUN_ENV_VAR] = self.token
        if self.services.state_dir:  # lets a restarted daemon find runs history lost
            env[proc_mod.STATE_ENV_VAR] = self.services.state_dir
        env.setdefault("PYTHONUNBUFFERED", "1")
        if self.import_path is not None:  # source patches: the run's overlay goes first
            env["PYTHONPATH"] = overlay.import_path(env, self.import_path)
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
            started = await self._spawn()
        except BaseException:  # cancelled before a process existed
            self._abandon("cancelled before the server was started")
            raise
        task_status.started()
        if started is None:
            return
        process = started.process
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self.pipe.pump, started.out_r)
                tg.start_soon(RunWatch(self).loop)
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
            os.close(started.out_r)  # the pump has ended with the task group
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

    async def _spawn(self) -> spawn.Spawned | None:
        """Start the server; on failure the run is settled `crashed` and None returned."""
        argv, env = self.argv(), self.env()
        problem = spawn.spawn_problem(argv, env, self.profile.cwd)
        if problem is not None:
            self._spawn_failed(problem)
            return None
        try:
            started = await spawn.spawn(argv, env, self.profile.cwd, self.token)
        except OSError as exc:
            self._spawn_failed(exc)
            return None
        self.pid = self.pgid = started.process.pid
        self.scanner.cgroup = self.cgroup = started.cgroup
        self.store.update_run(self.id, pid=self.pid, pgid=self.pgid)
        self.publish()
        return started

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
                main_exited=self.exited, tree=True, before_signals=self._observe_shm)
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
        verdict = await self.classify(exit_code=code)
        if self.phase.rank < verdict.phase.rank:
            # The log proves a later phase than its markers did (a traceback's frames, or
            # serving implied by the cause: SGLang's watchdog only fires on a running batch).
            self._enter_phase(verdict.phase)
        evidence = list(verdict.evidence) or [f"process exited with code {code}",
                                              "no error line in the log"]
        cause = verdict.cause or Cause.UNKNOWN
        if self.gpu_events and cause in (Cause.UNKNOWN, Cause.ILLEGAL_MEMORY_ACCESS,
                                         Cause.GPU_FAULT):
            cause = Cause.GPU_FAULT  # the driver reported the GPU failing under this run
            evidence = self.gpu_events[-3:] + evidence
        self.transition(Status.CRASHED, cause=cause, evidence=evidence + [f"exit code {code}"])

    async def classify(self, exit_code: int | None = None) -> Any:
        """The classifier over the log tail; off the event loop unless the tail is short
        (a few ms at most, less than the thread hop would add to the verdict's latency)."""
        lines = verdict_lines(self.pipe.tail(3000))
        # (what the profile set, for an error that names it: diagnosis/settings.py)
        given = launch_settings(self.profile.args_dict(), self.profile.env_dict())
        if len(lines) <= _CLASSIFY_INLINE and sum(map(len, lines)) <= _CLASSIFY_INLINE_CHARS:
            return classify_lines(lines, engine=self.engine.name, exit_code=exit_code,
                                  settings=given)
        return await anyio.to_thread.run_sync(
            lambda: classify_lines(lines, engine=self.engine.name, exit_code=exit_code,
                                   settings=given))

    async def _reap_all(self) -> None:
        # After a kill already ran its grace, what is left (if anything) dies at once.
        grace = 0.0 if self._killed.is_set() else self.profile.timeouts.stop_grace
        self.leftovers = await proc_mod.kill_run(self.token, self.pgid, grace=grace,
                                                 main_exited=self.exited, tree=True,
                                                 before_signals=self._observe_shm)
        if self.leftovers:
            self.store.add_event("leftovers", {"pids": sorted(self.leftovers)}, self.id)
        await self._clean_shm()

    async def _clean_shm(self) -> None:
        """Remove the shared memory the run's processes made and left (runtime/shm.py)."""
        if not self.shm.owned:
            return
        removed = await anyio.to_thread.run_sync(self.shm.clean)
        if not removed:
            return
        line = describe_shm(removed, self.shm.root)
        self.shm_removed = [line]
        log.info("run %s: %s", self.id, line)
        self.store.add_event("shm_removed", {"files": [r.name for r in removed],
                                             "bytes": sum(r.size for r in removed)}, self.id)

    def _settle(self) -> None:
        self.benchmark_done.set()
        self.ended = self.ended or time.time()
        # The exit code also goes with the verdict; here it is stored whatever happened.
        extra = {} if self.exit_code is None else {"exit_code": self.exit_code}
        self.store.update_run(self.id, ended=self.ended, **extra)
        self.clock.finish(self.ended)
        self.settled.set()
        release_free_memory()  # the run's buffers (and its followers' backlog) are gone
        self.publish()
        if self.services.on_end is not None:
            self.services.on_end(self)

    def internal_error(self, what: str) -> None:
        """The daemon's own code failed while watching this run (supervise has killed and
        settled it): say so as the verdict, unless the run had already ended with one."""
        if self.status in FINAL_STATUSES:
            return
        evidence = [f"the supervisor failed while watching this run: {what}",
                    "its processes were killed; see the daemon's log"]
        self.transition(Status.CRASHED, cause=Cause.UNKNOWN, evidence=evidence)

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

    # -- what the watch loop asks of the run ----------------------------------------------
    def sample_tree(self) -> proc_mod.TreeSample:
        """Worker thread: the run's processes (cached scan) and their counters, in one call;
        and the shared memory they map, for the cleanup at the end."""
        pids = self.scanner.scan(self.pgid)
        self.shm.observe(lambda: pids)
        return proc_mod.sample_tree(pids)

    def _observe_shm(self) -> None:
        """Worker thread, at a stop: the shared memory made since the last watch tick (a run
        stopped within a second of its start; a file made during the grace)."""
        self.shm.observe(lambda: self.scanner.scan(self.pgid))

    def gpu_activity(self) -> tuple[float, float | None, float | None] | None:
        return self.services.gpu_activity()

    def stack_targets(self) -> dict[int, str]:
        """Worker thread: the run's processes and their names (for stack samples)."""
        out: dict[int, str] = {}
        for pid in sorted(self.scanner.scan(self.pgid)):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv0 = f.read().split(b"\0", 1)[0].decode(errors="replace")
                with open(f"/proc/{pid}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                continue
            # A process title (sglang::scheduler_TP0) reads better than a truncated comm.
            out[pid] = argv0 if argv0 and "/" not in argv0 and " " not in argv0 else comm
        return out

    def log_evidence(self, n: int = 3) -> list[str]:
        return [f"last line: {line[:300]}" for line in self.pipe.tail(n)]

    def serving_seen(self) -> None:
        """The serving metrics show requests in flight: the run is serving."""
        if self.phase is Phase.READY:
            self._enter_phase(Phase.SERVING)

    async def dump_stacks(self) -> list[str]:
        began = time.time()  # the watchdog's verdict is made: what follows is evidence
        pids = await anyio.to_thread.run_sync(proc_mod.run_pids, self.token, self.pgid)
        self.stack_files = await stacks.dump_stacks(pids, self.dir / "stacks")
        self.store.add_event("stacks", {"files": self.stack_files, "began": began,
                                        "took_s": round(time.time() - began, 3)}, self.id)
        return self.stack_files

    async def fail(self, status: Status, cause: Cause, evidence: list[str]) -> None:
        """A watchdog verdict: record it, then take the run down (its status stays)."""
        pids = await anyio.to_thread.run_sync(proc_mod.run_pids, self.token, self.pgid)
        self.process_report = proc_mod.describe_processes(pids)
        self.activity_report = activity_evidence(self.activity)
        self.transition(status, cause=cause, evidence=evidence)
        self._terminate()
