"""RunWatch's decisions over a fake run (the ``Watched`` protocol): a phase past its deadline
is a timeout, silence with no sign of work is a hang, silence with work is not."""

from __future__ import annotations

import re
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from supervisor.profiles import ProfileSet, ResolvedProfile
from supervisor.runtime.process import TreeSample
from supervisor.states import Cause, Outcome, Phase, Status
from supervisor.watchdogs.activity import ActivityTracker
from supervisor.watchdogs.watch import RunWatch

pytestmark = pytest.mark.anyio


def _profile(tmp: Path, timeouts: str) -> ResolvedProfile:
    (tmp / "p.toml").write_text(textwrap.dedent("""\
        engine = "sglang"
        [launch]
        model = "m"
        port = 9
        [timeouts]
        """) + textwrap.dedent(timeouts))
    return ProfileSet.load_dir(tmp).resolve("p")


@dataclass
class _Verdict:
    cause: Cause | None = None
    evidence: list[str] = field(default_factory=lambda: ["classifier: nothing known"])
    phase: Phase = Phase.LAUNCH
    outcome: Outcome = Outcome.INCOMPLETE


@dataclass
class FakeRun:
    """A ``Watched`` (watchdogs/watch.py): what the loop sees of a run. Its tree's CPU time
    grows by ``cpu_per_sample`` a sample; verdicts are recorded, not acted on."""

    profile: ResolvedProfile
    phase: Phase = Phase.LAUNCH
    phase_since: float = field(default_factory=time.time)
    status: Status = Status.STARTING
    started: float = field(default_factory=time.time)
    activity: ActivityTracker = field(default_factory=lambda: ActivityTracker(time.monotonic()))
    engine_name: str = "sglang"
    cpu_per_sample: float = 0.0
    samples: int = 0
    failed: list[tuple[Status, Cause, list[str]]] = field(default_factory=list)
    stacks_dumped: int = 0
    verdict: _Verdict = field(default_factory=_Verdict)  # what the log reads as

    @property
    def done_watching(self) -> bool:
        return bool(self.failed)

    def sample_tree(self) -> TreeSample:
        self.samples += 1
        return TreeSample(time.monotonic(), self.samples * self.cpu_per_sample, 0, 1)

    serving: Any = None  # no serving metrics: the serving watch has nothing to judge

    def gpu_activity(self) -> tuple[float, float | None] | None:
        return None

    def stack_targets(self) -> dict[int, str]:
        return {}  # no processes to sample: stacks neither move nor stick

    def publish(self) -> None:
        pass

    def serving_seen(self) -> None:
        pass

    def became_ready(self, how: str) -> None:
        raise AssertionError(f"not expected: ready ({how})")

    def log_evidence(self, n: int = 3) -> list[str]:
        return ["last line: Load weight begin"][:n]

    async def classify(self) -> Any:
        return self.verdict

    async def dump_stacks(self) -> list[str]:
        self.stacks_dumped += 1
        return []

    async def fail(self, status: Status, cause: Cause, evidence: list[str]) -> None:
        self.failed.append((status, cause, evidence))


async def _watch(run: FakeRun, *, until: Any = None, limit: float = 10.0) -> None:
    """Run the loop until it returns (a verdict) or ``until()`` holds."""
    with anyio.fail_after(limit):
        async with anyio.create_task_group() as tg:
            async def loop() -> None:
                await RunWatch(run).loop()
                tg.cancel_scope.cancel()
            tg.start_soon(loop)
            if until is not None:
                while not until():  # noqa: ASYNC110 - the fake's own counter
                    await anyio.sleep(0.01)
                tg.cancel_scope.cancel()


async def test_a_phase_past_its_budget_is_a_timeout(tmp_path: Path) -> None:
    run = FakeRun(_profile(tmp_path, "launch = 5\nsilence = 0.8\n"), cpu_per_sample=1.0,
                  phase_since=time.time() - 6)
    await _watch(run)
    ((status, cause, evidence),) = run.failed
    assert status == Status.TIMEOUT and cause == Cause.UNKNOWN
    assert re.fullmatch(r"phase launch ran \d+ s, past its 5 s budget", evidence[0])
    assert "classifier: nothing known" in evidence


async def test_slow_weight_loading_is_named(tmp_path: Path) -> None:
    run = FakeRun(_profile(tmp_path, "weight_loading = 5\nsilence = 0.8\n"),
                  phase=Phase.WEIGHT_LOADING, phase_since=time.time() - 9, cpu_per_sample=1.0)
    await _watch(run)
    ((status, cause, _),) = run.failed
    assert (status, cause) == (Status.TIMEOUT, Cause.SLOW_WEIGHT_LOADING)


async def test_within_its_budget_a_phase_is_left_alone(tmp_path: Path) -> None:
    run = FakeRun(_profile(tmp_path, "launch = 600\nsilence = 0.8\n"), cpu_per_sample=1.0)
    await _watch(run, until=lambda: run.samples >= 3)
    assert run.failed == []


async def test_silence_with_no_sign_of_work_is_a_hang(tmp_path: Path) -> None:
    run = FakeRun(_profile(tmp_path, "launch = 600\nsilence = 0.4\n"))
    t0 = time.monotonic()
    await _watch(run)
    ((status, cause, evidence),) = run.failed
    assert status == Status.HUNG and cause == Cause.UNKNOWN
    assert time.monotonic() - t0 >= 0.4
    assert re.match(r"no output for \d+ s in phase launch and no CPU, disk or GPU activity",
                    evidence[0])
    assert "last line: Load weight begin" in evidence and run.stacks_dumped == 1


async def test_silence_after_a_fatal_error_is_a_crash_with_its_cause(tmp_path: Path) -> None:
    # The log ends in the engine's fatal error; its processes stay, silent and idle.
    run = FakeRun(_profile(tmp_path, "launch = 600\nsilence = 0.4\n"),
                  verdict=_Verdict(cause=Cause.CUDA_OOM, outcome=Outcome.CRASHED,
                                   evidence=["torch.OutOfMemoryError: CUDA out of memory."]))
    await _watch(run)
    ((status, cause, evidence),) = run.failed
    assert (status, cause) == (Status.CRASHED, Cause.CUDA_OOM)
    assert evidence[0].startswith("the log ends in a fatal error and its processes had not "
                                  "exited")
    assert "torch.OutOfMemoryError: CUDA out of memory." in evidence


async def test_silence_while_the_cpu_works_is_not_a_hang(tmp_path: Path) -> None:
    run = FakeRun(_profile(tmp_path, "launch = 600\nsilence = 0.4\n"), cpu_per_sample=1.0)
    # Bounded by samples, not a sleep: well past the silence window, the loop has looked
    # and seen work each time.
    await _watch(run, until=lambda: run.samples >= 12)
    assert run.failed == [] and run.activity.cpu_percent > 0


async def test_a_ready_run_has_no_deadline_and_no_hang_verdict(tmp_path: Path) -> None:
    # Idle and silent well past `silence`, and its launch phase long over budget: once ready,
    # only the health probe judges it (one refused probe is not yet a failure).
    run = FakeRun(_profile(tmp_path, "launch = 5\nsilence = 0.4\n"), status=Status.READY,
                  phase=Phase.READY, phase_since=time.time() - 60)
    run.activity = ActivityTracker(time.monotonic() - 60)
    await _watch(run, until=lambda: run.samples >= 8)
    assert run.failed == []
