"""The Arbiter in-process (see runkit): switch, ready, stop, cancelled callers and launches,
the attempt records. Real processes, a real store and hub; no daemon subprocess, no socket."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
from runkit import (
    HTTP_SERVER,
    IMPORT_FAILER,
    alive,
    command_profile,
    live_pids,
    make_profiles,
    running_arbiter,
    wait_for,
)

from supervisor.runtime.run import executed_argv
from supervisor.states import Phase, Status
from supervisor.store import Store

pytestmark = pytest.mark.anyio


async def switched(arb: Any, name: str, timeout: float = 20) -> Any:
    """Switch to a profile and wait for the request to settle (ready or failed)."""
    with anyio.fail_after(timeout):
        req = await arb.switch(name)
        await req.done.wait()
    return req


def _web(tmp_path: Path) -> None:
    make_profiles(tmp_path, web=(HTTP_SERVER, lambda s, p: command_profile(s, port=p)))


async def test_switch_ready_stop(tmp_path: Path, monkeypatch: Any) -> None:
    _web(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        req = await switched(arb, "web")
        run = arb.current
        assert req.ok is True and run is not None
        assert run.status == Status.READY and run.phase == Phase.READY
        assert run.pid is not None and alive(run.pid)
        row = kit.store.get_run(run.id)
        assert row["status"] == "ready" and row["pid"] == run.pid
        assert row["argv"] == executed_argv(run.profile) == run.argv()  # what really ran
        assert "{python}" not in row["argv"]
        assert arb.status()["fallback"]["serving"]["run_id"] == run.id

        with anyio.fail_after(10):
            stopped = await arb.stop()
        assert stopped is run and run.settled.is_set()
        assert run.status == Status.STOPPED and run.evidence == ["stopped by request"]
        assert not live_pids(run) and not alive(run.pid)
        assert kit.statuses(run.id) == ["starting", "ready", "stopping", "stopped"]
        row = kit.store.get_run(run.id)
        assert row["status"] == "stopped" and row["ended"] is not None
        assert arb.status()["fallback"]["serving"] is None


async def test_attempt_records_follow_their_run(tmp_path: Path, monkeypatch: Any) -> None:
    _web(tmp_path)
    make_profiles(tmp_path, broken=(IMPORT_FAILER, lambda s, p: command_profile(s, port=p)))
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        req = await switched(arb, "web")
        (att,) = req.attempts
        run = arb.current
        assert run is not None and att.run_id == run.id and att.profile == "web"
        # The record is written when its run ends; status shows the live run as it is now.
        assert arb.fallback_view()["attempts"][0]["status"] == "ready"

        second = await switched(arb, "broken")  # stops web first
        assert (att.status, att.cause) == ("stopped", None)  # updated when web ended
        (failed,) = second.attempts
        assert second.ok is False and failed.profile == "broken"
        assert (failed.status, failed.cause) == ("crashed", "import_error")
        assert failed.to_dict() == arb.fallback_view()["attempts"][0]
        assert second.verdict is not None and second.verdict["cause"] == "import_error"
        assert any("sgl_kernel" in line for line in second.verdict["evidence"])


async def test_a_caller_cancelled_right_after_switch_leaves_a_supervised_run(
        tmp_path: Path, monkeypatch: Any) -> None:
    """A client that hangs up mid-switch ends its wait, never the work: whatever the moment,
    the run gets its process or settles, and a later stop returns with nothing left."""
    _web(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        runs = []
        for checkpoints in (0, 1, 3, 10):
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(arb.switch, "web")
                    for _ in range(checkpoints):
                        await anyio.lowlevel.checkpoint()
                    scope.cancel()
            assert scope.cancelled_caught
            run = await wait_for(lambda: arb.current if arb.current is not None and (
                arb.current.pid is not None or arb.current.settled.is_set())
                and arb.current not in runs else None, "the switch's run to get a process")
            runs.append(run)
            with anyio.fail_after(10):
                await arb.stop()
            assert run.settled.is_set() and run.status in (Status.STOPPED, Status.CRASHED)
            assert not live_pids(run)
        assert all(not r.pid or not alive(r.pid) for r in runs)
        assert not [r for r in kit.store.list_runs(20) if r["status"] in ("starting", "ready")]


class _SlowGpuCheck:
    """A GPU monitor whose pre-launch process check waits until released: the launch is
    caught before its spawn. Everything else is a healthy host with no GPU work."""

    def __init__(self) -> None:
        self.entered = anyio.Event()
        self.release = anyio.Event()
        self.cancelled = False

    def status(self) -> dict[str, Any]:
        return {"backend": "fake", "available": True, "reason": None}

    def snapshot(self) -> list[dict[str, Any]]:
        return []

    def utilization(self) -> float | None:
        return None

    def activity(self) -> tuple[float, float | None] | None:
        return None

    async def foreign_processes(self, _gpus: Any, _ours: set[int]) -> list[Any]:
        self.entered.set()
        try:
            await self.release.wait()
        except BaseException:
            self.cancelled = True
            raise
        return []


async def test_a_launch_cancelled_before_its_spawn_settles_stopped(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The daemon shuts down while a launch is in its pre-launch checks: the run ends
    `stopped`, settled, with no process ever started, and history says so."""
    _web(tmp_path)
    gpus = _SlowGpuCheck()
    async with running_arbiter(tmp_path, monkeypatch, gpus=gpus) as kit:
        arb = kit.arbiter
        async with anyio.create_task_group() as tg:
            tg.start_soon(arb.switch, "web")
            with anyio.fail_after(10):
                await gpus.entered.wait()
            tg.cancel_scope.cancel()  # the caller goes; the launch goes on
        run, req = arb.current, arb.request
        assert run is not None and req is not None
        assert run.status == Status.STARTING and not run.settled.is_set()
        assert not gpus.cancelled
    # Leaving the block is the daemon's shutdown (Arbiter.serve ends, SIGTERM's path).
    assert gpus.cancelled and req.done.is_set() and req.ok is None
    assert run.settled.is_set() and run.status == Status.STOPPED and run.pid is None
    assert run.evidence in (["daemon shutting down"],
                            ["cancelled by a newer request before it was up"])
    assert kit.statuses(run.id)[-1] == "stopped" and req.attempts[0].status == "stopped"
    history = Store(tmp_path / "state" / "history.sqlite3")
    row = history.get_run(run.id)
    history.close()
    assert row["status"] == "stopped" and row["pid"] is None and row["ended"] is not None


async def test_a_bug_while_watching_one_run_ends_that_run_not_the_daemon(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The watch loop raising (a parser meeting a line it cannot take, say) used to escape into
    the arbiter's task group and take every service down; now that run ends, crashed, with
    nothing left of it, and the next switch works."""
    from supervisor.watchdogs import watch

    _web(tmp_path)
    real_loop = watch.RunWatch.loop
    armed = {"on": True}

    async def failing_loop(self: Any) -> None:
        if armed["on"]:
            await anyio.sleep(0.2)   # the server is up by then, its watch fails
            raise RuntimeError("boom in the watch loop")
        await real_loop(self)

    monkeypatch.setattr(watch.RunWatch, "loop", failing_loop)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        await switched(arb, "web")
        run = arb.current
        assert run is not None
        with anyio.fail_after(20):
            await run.settled.wait()
        assert run.status == Status.CRASHED and run.cause is not None
        assert run.evidence[0] == ("the supervisor failed while watching this run: "
                                   "RuntimeError: boom in the watch loop"), run.evidence
        assert not live_pids(run) and run.pid is not None and not alive(run.pid)
        assert any("boom in the watch loop" in p for p in arb.problems), arb.problems
        armed["on"] = False
        again = await switched(arb, "web")
        assert again.ok is True and arb.current is not None
        assert arb.current.status == Status.READY


async def test_a_restart_cancelled_after_the_checklist_was_reset_does_not_raise(
        tmp_path: Path, monkeypatch: Any) -> None:
    """A switch cancels a pending restart and resets the checklist; when the reset runs before
    the restart task wakes (no await between them in the switch), the restart's item is gone.
    The cancelled restart must end quietly: it runs in the daemon's task group, where an
    exception takes every service down."""
    from supervisor.profiles.model import RestartSpec
    from supervisor.runtime.restart import RestartPolicy
    from supervisor.states import ChecklistStatus

    _web(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        assert (await switched(arb, "web")).ok is True
        run = arb.current
        assert run is not None
        arb._restart_policies[run.profile.hash] = RestartPolicy(RestartSpec(backoff=30.0))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(arb._restart_after_failure, run)
                await wait_for(lambda: arb._restart_scope is not None, "the pending restart", 5)
                (item,) = [i for i in arb.checklist.view() if i["title"].startswith("Restart")]
                assert item["status"] == ChecklistStatus.IN_PROGRESS.value
                arb.checklist.reset()          # the switch's reset, before the task wakes
                arb._restart_scope.cancel()    # the switch's cancel of the pending restart
        assert arb._restart_scope is None
        assert arb.current is run, "the cancelled restart relaunched nothing"


async def test_a_failing_restart_task_is_a_problem_not_the_daemon_s_end(
        tmp_path: Path, monkeypatch: Any) -> None:
    """A ready server dies; its restart task fails (here its policy raises): the daemon lists
    the problem and goes on serving requests."""
    _web(tmp_path)

    class BrokenPolicy:
        def on_failure(self) -> Any:
            raise RuntimeError("policy state is broken")

    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        assert (await switched(arb, "web")).ok is True
        run = arb.current
        assert run is not None and run.pid is not None
        arb._restart_policies[run.profile.hash] = BrokenPolicy()
        os.kill(run.pid, signal.SIGKILL)   # the ready server dies: the restart path runs
        await wait_for(lambda: any("restarting it failed" in p for p in arb.problems),
                       "the failed restart listed as a problem", 20)
        assert "RuntimeError: policy state is broken" in " ".join(arb.problems)
        with anyio.fail_after(20):   # and the daemon still takes requests
            again = await arb.switch("web")
            await again.done.wait()
        assert again.ok is True and arb.current is not run
