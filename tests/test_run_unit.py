"""A Run in-process: its stop path (SIGTERM, stop_grace, SIGKILL), a stop before its spawn, a
crash's verdict. Real child processes, a real store and hub; no daemon, no socket."""

from __future__ import annotations

import os
import secrets
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from runkit import (
    HTTP_SERVER,
    IMPORT_FAILER,
    TERM_IGNORER,
    alive,
    command_profile,
    live_pids,
    make_profiles,
    stop_within,
    wait_for,
)

from supervisor.events import Hub
from supervisor.profiles import ProfileSet, ResolvedProfile
from supervisor.runtime.run import Run, RunServices, executed_argv
from supervisor.states import Cause, Status
from supervisor.store import Store

pytestmark = pytest.mark.anyio


class _Parts:
    """The services a Run is given, and the run ends they report."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.store = Store(tmp / "history.sqlite3")
        self.hub = Hub()
        self.ended: list[Run] = []
        self.ready: list[Run] = []
        self.services = RunServices(store=self.store, hub=self.hub,
                                    on_end=self.ended.append, on_ready=self.ready.append)

    def run(self, profile: ResolvedProfile) -> Run:
        """A run as the arbiter creates one: recorded first, then built."""
        token = secrets.token_hex(8)
        run_id = self.store.create_run(token=token, profile=profile.name, hash=profile.hash,
                                       argv=executed_argv(profile), status="starting",
                                       phase="launch", started=time.time())
        run_dir = self.tmp / "runs" / str(run_id)
        run_dir.mkdir(parents=True)
        return Run(run_id=run_id, token=token, profile=profile, run_dir=run_dir,
                   services=self.services, request_id=1, reason="test")


def _profile(tmp: Path, name: str, code: str, **kw: Any) -> ResolvedProfile:
    folder = make_profiles(tmp, **{name: (code, lambda s, p: command_profile(s, port=p, **kw))})
    return ProfileSet.load_dir(folder).resolve(name)


async def test_a_server_ignoring_sigterm_is_killed_after_stop_grace(tmp_path: Path) -> None:
    parts = _Parts(tmp_path)
    grace = 0.6
    run = parts.run(_profile(tmp_path, "stubborn", TERM_IGNORER, stop_grace=grace))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        assert run.pid is not None and alive(run.pid)
        # Its handler is in place (it said so): SIGTERM alone will not end it.
        await wait_for(lambda: "ignoring SIGTERM" in run.pipe.tail(5), "the server's line")
        took = await stop_within(run, grace + 10)
    assert grace <= took < grace + 5, took
    assert run.exit_code == -signal.SIGKILL
    assert run.status == Status.STOPPED and run.evidence == ["stopped by the test"]
    assert run.settled.is_set() and parts.ended == [run]
    assert not live_pids(run) and not alive(run.pid)
    row = parts.store.get_run(run.id)
    assert row["status"] == "stopped" and row["exit_code"] == -signal.SIGKILL


async def test_a_server_that_obeys_sigterm_is_not_waited_for(tmp_path: Path) -> None:
    parts = _Parts(tmp_path)
    run = parts.run(_profile(tmp_path, "web", HTTP_SERVER, stop_grace=30))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        await wait_for(lambda: run.status == Status.READY, "ready by its health probe")
        assert parts.ready == [run]
        await stop_within(run, 10)  # far less than the 30 s grace
    assert run.exit_code == -signal.SIGTERM and run.status == Status.STOPPED
    assert not live_pids(run)


async def test_a_stopped_server_is_continued_to_act_on_its_sigterm(tmp_path: Path) -> None:
    """A server SIGSTOPped (a hang under a debugger, a worker frozen for a stack dump, an
    operator's ^Z) cannot act on SIGTERM: it is sent SIGCONT with it, so it shuts down
    cleanly (its own cleanup: shared memory, sockets) instead of waiting out stop_grace for
    the SIGKILL."""
    parts = _Parts(tmp_path)
    run = parts.run(_profile(tmp_path, "web", HTTP_SERVER, stop_grace=20))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        await wait_for(lambda: run.status == Status.READY, "ready by its health probe")
        assert run.pid is not None
        os.kill(run.pid, signal.SIGSTOP)
        took = await stop_within(run, 10)  # far less than the 20 s grace
    assert took < 10, took
    assert run.exit_code == -signal.SIGTERM and run.status == Status.STOPPED
    assert not live_pids(run)


async def test_a_run_stopped_before_its_spawn_settles_stopped(tmp_path: Path) -> None:
    parts = _Parts(tmp_path)
    run = parts.run(_profile(tmp_path, "web", HTTP_SERVER))
    await stop_within(run, 5, "cancelled before it was up")  # a newer request came first
    assert run.settled.is_set() and run.status == Status.STOPPED and run.pid is None
    assert run.evidence == ["cancelled before it was up"] and parts.ended == [run]
    with anyio.fail_after(5):
        await run.supervise()  # a late supervise starts nothing
    assert run.pid is None and parts.ended == [run]
    row = parts.store.get_run(run.id)
    assert row["status"] == "stopped" and row["pid"] is None and row["ended"] is not None


async def test_a_crash_gets_its_verdict_from_the_log(tmp_path: Path) -> None:
    parts = _Parts(tmp_path)
    run = parts.run(_profile(tmp_path, "broken", IMPORT_FAILER))
    verdicts: list[dict[str, Any]] = []
    parts.hub.listeners.append(lambda kind, data: kind == "verdict" and verdicts.append(data))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        with anyio.fail_after(10):
            await run.settled.wait()
    assert run.status == Status.CRASHED and run.cause == Cause.IMPORT_ERROR
    assert run.exit_code == 1 and "exit code 1" in run.evidence
    assert any("sgl_kernel" in line for line in run.evidence)
    assert verdicts == [run.verdict()] and parts.ended == [run]
    row = parts.store.get_run(run.id)
    assert (row["status"], row["cause"], row["exit_code"]) == ("crashed", "import_error", 1)
