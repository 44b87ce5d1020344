"""The activity line counts on while the server says nothing.

The daemon publishes a run only when its state changes, so during a silent hang no report
arrives: the TUI must count the quiet time itself each second, say how close the silence is to
the hung verdict, and ask the daemon for a fresh report now and then (CPU, disk, GPU).
"""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fakedaemon import FakeDaemon, FakeState, hung_run, wait_for
from test_tui_app import SIZE, run_text

from tui import formatting as fmt
from tui.app import SupervisorApp
from tui.connection import Target

pytestmark = pytest.mark.anyio


def starting_run(**activity: Any) -> dict[str, Any]:
    """A run starting in graph capture, its last report ``quiet_s`` into a silence."""
    act = {"state": "silent", "quiet_s": 6.0, "still_s": 6.0, "cpu_percent": 0.0,
           "read_mb_s": 0.0, "gpu_util": None, "signs": [], "silence_s": 30}
    return hung_run() | {"status": "starting", "cause": None, "evidence": [], "ended": None,
                         "activity": act | activity}


@asynccontextmanager
async def watching(run: dict[str, Any], **kwargs: Any):
    """The app, on the real clock, attached to a fake daemon whose run is ``run``."""
    state = FakeState()
    state.status["run"] = run
    async with FakeDaemon.running(state) as fake:
        app = SupervisorApp([Target.unix(fake.path)], reconnect_delays=(0.05,), **kwargs)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.connected and app.main.run, pilot, what="first status")
            yield fake.state, app, pilot


def silent_seconds(app: SupervisorApp) -> int | None:
    m = re.search(r"silent (\d+) s of 30 s", run_text(app))
    return int(m.group(1)) if m else None


async def test_quiet_time_counts_up_on_screen_while_no_report_arrives() -> None:
    # resync far away: nothing from the daemon after the first status
    async with watching(starting_run(), resync_s=3600) as (state, app, pilot):
        first = await wait_for(lambda: silent_seconds(app), pilot, what="silent N s of 30 s")
        asked = len(state.sent("status"))
        later = await wait_for(lambda: (n := silent_seconds(app)) and n >= first + 2 and n,
                               pilot, timeout=6, what="the silent time to count up")
        assert later >= first + 2
        assert len(state.sent("status")) == asked  # counted here, not fetched
        text = run_text(app)
        assert "no output, no CPU, disk or GPU activity" in text
        assert f"hung verdict in {30 - later} s" in text or \
            f"hung verdict in {29 - later} s" in text


async def test_a_fresh_status_shows_activity_the_events_never_carried() -> None:
    async with watching(starting_run(), resync_s=0.2) as (state, app, pilot):
        await wait_for(lambda: silent_seconds(app) is not None, pilot, what="silent")
        # The daemon sees the tree read the disk; no run event is published for that.
        state.status["run"]["activity"] |= {"state": "quiet", "quiet_s": 40.0, "still_s": 0.5,
                                            "cpu_percent": 85.0, "read_mb_s": 1200.0}
        await wait_for(lambda: "activity quiet · no output for 40 s" in run_text(app), pilot,
                       timeout=5, what="the fresh activity")
        assert "but busy, so not hung" in run_text(app)
        assert "CPU 85% · reads 1200 MB/s" in run_text(app)


async def test_a_resync_never_undoes_a_newer_verdict() -> None:
    async with watching(starting_run(), resync_s=0.2) as (state, app, pilot):
        await wait_for(lambda: silent_seconds(app) is not None, pilot, what="silent")
        stale = starting_run()

        def verdict_then_stale_status(args: dict[str, Any]) -> dict[str, Any]:
            state.overrides.pop("status")
            state.push("run", hung_run())  # the verdict goes out before the reply
            return state.status | {"run": stale}

        state.overrides["status"] = verdict_then_stale_status
        await wait_for(lambda: "status" not in state.overrides, pilot, what="a resync")
        await wait_for(lambda: "HUNG" in run_text(app), pilot, what="the verdict")
        for worker in [w for w in app.workers if w.group == "resync"]:
            await worker.wait()
        assert "HUNG" in run_text(app) and "STARTING" not in run_text(app)


def line(activity: dict[str, Any], status: str = "starting", elapsed: float = 0.0,
         stale_after: float = 60) -> str:
    return fmt.activity_text(activity, status, elapsed, stale_after).plain


def test_the_line_says_how_close_the_silence_is_to_a_hung_verdict() -> None:
    act = starting_run()["activity"]
    assert line(act, elapsed=18.4) == ("activity silent 24 s of 30 s · no output, no CPU, "
                                       "disk or GPU activity · hung verdict in 6 s")
    assert line(act, elapsed=24.5).endswith("hung verdict due now")


def test_the_state_follows_the_daemon_rule_as_time_passes() -> None:
    working = {"state": "working", "quiet_s": 0.2, "still_s": 0.2, "cpu_percent": 12.0,
               "read_mb_s": 0.0, "gpu_util": 35.0, "silence_s": 30}
    assert line(working) == "activity working · last output 0 s ago · CPU 12% · GPU 35%"
    assert line(working, elapsed=6).startswith("activity silent 6 s of 30 s")
    busy = working | {"quiet_s": 10.0, "still_s": 1.0}
    assert line(busy, elapsed=1).startswith("activity quiet · no output for 11 s")
    # One burst of CPU a second after the last line, then nothing: the daemon still calls it
    # "quiet" (still_s < quiet_s), but the hung verdict counts still_s, so the line does too.
    once = working | {"state": "quiet", "quiet_s": 10.0, "still_s": 9.0, "silence_s": 12}
    assert line(once).startswith("activity silent 9 s of 12 s · no output, no CPU")
    assert line(once).endswith("hung verdict in 3 s")


def test_a_serving_server_shows_its_quiet_time_without_a_hang_budget() -> None:
    idle = {"state": "silent", "quiet_s": 84.0, "still_s": 84.0, "cpu_percent": 0.0,
            "read_mb_s": 0.0, "gpu_util": 0.0, "silence_s": 30}
    text = line(idle, "ready", elapsed=6)
    assert text == "activity idle · no output for 1m30s · no CPU, disk or GPU activity"
    assert "of 30 s" not in text


def test_an_old_report_says_how_old_it_is() -> None:
    act = starting_run()["activity"]
    assert "(last report 12 s ago)" in line(act, elapsed=12, stale_after=10)
    assert "None" not in line({"state": "working", "quiet_s": 1, "gpu_util": None})


def test_time_is_the_only_thing_extrapolated() -> None:
    act = starting_run()["activity"] | {"cpu_percent": 50.0}
    moved = fmt.live_activity(act, 5.0)
    assert moved["quiet_s"] == 11.0 and moved["still_s"] == 11.0
    assert moved["cpu_percent"] == 50.0 and act["quiet_s"] == 6.0
