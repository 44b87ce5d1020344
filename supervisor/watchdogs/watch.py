"""The watch loop of a live run: phase deadlines, silence versus activity, the health probe.

One timer per run. Each tick samples the run's process tree, then asks in order: is a phase
past its budget? has the run been silent and still for `silence` seconds? is a health probe
due, and what did it say? A verdict goes back to the run through ``fail``; readiness through
``became_ready``. The loop only decides; the run records, kills and publishes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

import anyio

from ..profiles import ResolvedProfile
from ..runtime import stacks
from ..runtime.process import TreeSample
from ..states import Cause, Outcome, Phase, Status
from .activity import ActivityTracker
from .health import ProbeResult, probe
from .serving import ServingWatch
from .stuck import StackProbe, timed_sample

ACTIVITY_INTERVAL = 1.0
COMMAND_STARTSECS = 3.0   # a command that opens no port is ready after this long running


class Watched(Protocol):
    """What the watch loop needs of a run."""

    profile: ResolvedProfile
    status: Status
    started: float
    activity: ActivityTracker

    @property
    def phase(self) -> Phase: ...
    @property
    def phase_since(self) -> float: ...
    @property
    def engine_name(self) -> str: ...
    @property
    def done_watching(self) -> bool: ...
    def sample_tree(self) -> TreeSample: ...
    def gpu_activity(self) -> tuple[float, float | None, float | None] | None: ...
    def stack_targets(self) -> dict[int, str]: ...
    def became_ready(self, how: str) -> None: ...
    def log_evidence(self, n: int = 3) -> list[str]: ...
    async def classify(self) -> Any: ...
    async def dump_stacks(self) -> list[str]: ...
    async def fail(self, status: Status, cause: Cause, evidence: list[str]) -> None: ...


class RunWatch:
    def __init__(self, run: Watched) -> None:
        self.run = run
        self.misses = 0          # consecutive failed probes after ready
        self.next_probe = 0.0
        self.serving = ServingWatch(run)  # stalls after ready: watchdogs/serving.py
        self.stacks = StackProbe(interval=max(0.3, run.profile.timeouts.silence / 8))
        self.collective = False  # the stuck frames are a collective

    async def loop(self) -> None:
        run = self.run
        tick = max(0.05, min(ACTIVITY_INTERVAL, run.profile.timeouts.silence / 8))
        while True:
            await anyio.sleep(tick)
            if run.done_watching:
                return
            now_m = time.monotonic()
            tree = await anyio.to_thread.run_sync(run.sample_tree)
            run.activity.sample(tree, run.gpu_activity())
            await self._look_at_stacks(now_m)
            if run.status == Status.STARTING:
                if await self._check_deadline() or await self._check_silence(now_m):
                    return
            elif run.status == Status.READY and run.activity.stuck is not None:
                # After ready, quiet and idle is normal; busy and parked in a wait is not.
                if await self._check_silence(now_m):
                    return
            if run.status == Status.READY and await self._check_serving(now_m):
                return
            if now_m >= self.next_probe and self._probe_due():
                health = run.profile.health
                self.next_probe = now_m + (health.interval if run.status == Status.READY
                                           else min(1.0, health.interval))
                result = await probe(run.profile.host, run.profile.port, health.path,
                                     health.timeout)
                await self._on_probe(result)
                if run.done_watching:
                    return

    async def _look_at_stacks(self, now_m: float) -> None:
        """Busy with no other sign of progress: sample stacks, and let them say whether the
        work moves or every busy process is parked in the same wait."""
        run = self.run
        if not run.activity.wants_stacks(now_m, run.profile.timeouts.silence):
            self.stacks.reset()
            return
        if not self.stacks.due(now_m):
            return
        targets = await anyio.to_thread.run_sync(run.stack_targets)
        stacks, cost = await anyio.to_thread.run_sync(timed_sample, targets)
        self.stacks.add(now_m, stacks, cost)
        run.activity.stack_samples += 1
        run.activity.stack_cost_s += cost
        verdict = self.stacks.verdict()
        if verdict is None:
            return
        if verdict.moved:
            run.activity.stacks_moved(now_m)
            self.stacks.reset()
        elif verdict.stuck is not None:
            run.activity.stacks_stuck(verdict.stuck)
            self.collective = verdict.collective

    async def _check_serving(self, now_m: float) -> bool:
        stall = await self.serving.check(now_m)
        if stall is None:
            return False
        await self.run.fail(Status.HUNG, stall.cause,
                            stall.evidence + await self._stack_evidence())
        return True

    async def _stack_evidence(self) -> list[str]:
        """Dump every process's stacks before the run is touched; say where each one is."""
        files = await self.run.dump_stacks()
        if not files:
            return []
        summary = await anyio.to_thread.run_sync(stacks.where, files)
        return ([summary] if summary else []) + [
            f"stack dumps: {len(files)} files in {Path(files[0]).parent}"]

    def _probe_due(self) -> bool:
        run = self.run
        # SGLang opens its port only after graph capture: no probing before warmup.
        if run.status == Status.READY:
            return True
        return run.status == Status.STARTING and (
            run.phase.rank >= Phase.WARMUP.rank or run.engine_name == "command")

    async def _on_probe(self, result: ProbeResult) -> None:
        run = self.run
        if result.ok:
            self.misses = 0
            if run.status == Status.STARTING:
                run.became_ready(f"GET {run.profile.health.path} = 200")
            return
        if run.status != Status.READY:
            # 503 during warmup is SGLang saying "not yet", not a failure.
            if run.engine_name == "command" and result.refused and \
                    time.time() - run.started >= COMMAND_STARTSECS:
                run.became_ready(f"running {COMMAND_STARTSECS:g} s (no port open)")
            return
        self.misses += 1
        if self.misses >= run.profile.health.failures:
            why = result.error or f"HTTP {result.status}"
            await run.fail(Status.UNHEALTHY, Cause.HEALTH_CHECK_FAILED, [
                f"{self.misses} consecutive health probes failed: GET "
                f"{run.profile.health.path} -> {why}"] + run.log_evidence())

    async def _check_deadline(self) -> bool:
        run = self.run
        budget = run.profile.timeouts.for_phase(run.phase)
        if budget is None:
            return False
        spent = time.time() - run.phase_since
        if spent < budget:
            return False
        cause = Cause.SLOW_WEIGHT_LOADING if run.phase == Phase.WEIGHT_LOADING else None
        verdict = await run.classify()
        await run.fail(Status.TIMEOUT, cause or verdict.cause or Cause.UNKNOWN, [
            f"phase {run.phase.value} ran {spent:.0f} s, past its {budget:g} s budget",
            *activity_evidence(run.activity), *verdict.evidence])
        return True

    async def _check_silence(self, now_m: float) -> bool:
        run = self.run
        silence = run.profile.timeouts.silence
        if not run.activity.is_hung(now_m, silence):
            return False
        verdict = await run.classify()
        quiet = run.activity.quiet_for(now_m)
        stuck = run.activity.stuck
        if stuck is not None:
            head = (f"stuck in phase {run.phase.value}: {stuck}; no output for {quiet:.0f} s "
                    f"(silence = {silence:g} s)")
        else:
            head = (f"no output for {quiet:.0f} s in phase {run.phase.value} and no CPU, disk "
                    f"or GPU activity for {run.activity.still_for(now_m):.0f} s "
                    f"(silence = {silence:g} s)")
        if verdict.outcome == Outcome.CRASHED:
            # The engine printed its fatal error and its processes did not exit after it (a
            # slow teardown, or a parent that missed its child's death): the run crashed;
            # the silence after the error is how it was noticed, not what happened.
            head = (f"the log ends in a fatal error and its processes had not exited "
                    f"{quiet:.0f} s later (silence = {silence:g} s)")
        tail = run.log_evidence(3)
        shown = {line.removeprefix("last line: ") for line in tail}
        evidence = [head, *activity_evidence(run.activity), *tail,
                    *(e for e in verdict.evidence if e[:300] not in shown)]
        evidence += await self._stack_evidence()
        if verdict.outcome == Outcome.CRASHED:
            await run.fail(Status.CRASHED, verdict.cause or Cause.UNKNOWN, evidence)
            return True
        cause = verdict.cause
        if cause in (None, Cause.UNKNOWN) and stuck is not None and self.collective:
            cause = Cause.COLLECTIVE_HANG
        await run.fail(Status.HUNG, cause or Cause.UNKNOWN, evidence)
        return True


def activity_evidence(a: ActivityTracker) -> list[str]:
    if a.gpu_util is None:
        gpu = "no signal"
    elif a.gpu_power_frac is not None:
        gpu = f"{a.gpu_util:.0f}% busy at {a.gpu_power_frac:.0%} of its power limit"
    else:
        gpu = f"{a.gpu_util:.0f}%"
    return [f"activity: CPU {a.cpu_percent}%, reads {a.read_mb_s} MB/s, GPU {gpu}"]
