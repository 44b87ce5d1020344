"""The activity line counts on while the server says nothing.

The daemon publishes a run only when its state changes, so during a silent hang no report
arrives: the TUI must count the quiet time itself each second, say how close the silence is to
the hung verdict, and ask the daemon for a fresh report now and then (CPU, disk, GPU).
"""

from __future__ import annotations

import contextlib
import re
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fakedaemon import FakeDaemon, FakeState, hung_run, wait_for
from test_tui_app import SIZE, run_text
from textual.worker import WorkerCancelled

from tui import formatting as fmt
from tui.app import SupervisorApp
from tui.connection import Target
from tui.widgets.run_panel import RunPanel

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


def plain_rows(panel: RunPanel) -> list[str]:
    """The panel's rows as the terminal shows them (its own width, cut lines cut)."""
    return [strip.text for strip in panel.render_lines(panel.region.reset_offset)]


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
            # (a resync the next one replaced is cancelled: it applied nothing, which is fine)
            with contextlib.suppress(WorkerCancelled):
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


STUCK = ("2 processes (sglang::scheduler_TP0, sglang::scheduler_TP1) in custom_all_reduce "
         "(child.py), unchanged over 3 s of stack samples")


def spinning(**activity: Any) -> dict[str, Any]:
    """Ranks spinning in a collective: CPU and GPUs busy at low power, stacks unchanged."""
    act = {"state": "silent", "quiet_s": 20.0, "still_s": 20.0, "cpu_percent": 100.0,
           "gpu_util": 100.0, "gpu_power_frac": 0.15, "stuck": STUCK}
    return starting_run(**(act | activity))


def test_a_stuck_run_says_busy_but_stuck_and_its_gpus_power() -> None:
    act = spinning()["activity"]
    assert line(act) == ("activity silent 20 s of 30 s · no output, busy but stuck · "
                         "hung verdict in 10 s · CPU 100% · GPU 100% at 15% of power limit")
    assert fmt.stuck_line(act).plain == "  stuck: " + STUCK
    serving = act | {"quiet_s": 40.0, "still_s": 40.0}
    assert line(serving, "ready") == ("activity stuck · no output for 40 s · busy but stuck"
                                      " · CPU 100% · GPU 100% at 15% of power limit")
    assert fmt.stuck_line(act | {"stuck": None}) is None


def test_the_gpu_power_fraction_is_shown_only_when_the_daemon_has_it() -> None:
    working = {"state": "working", "quiet_s": 0.2, "still_s": 0.2, "cpu_percent": 12.0,
               "read_mb_s": 0.0, "gpu_util": 96.0, "silence_s": 30}
    assert line(working).endswith("CPU 12% · GPU 96%")
    assert line(working | {"gpu_power_frac": 0.82}).endswith("GPU 96% at 82% of power limit")
    assert line(working | {"gpu_power_frac": None}).endswith("CPU 12% · GPU 96%")


async def test_the_run_panel_shows_where_a_spinning_run_is_stuck() -> None:
    """Pilot: a run report with ``stuck`` and ``gpu_power_frac`` reaches the panel as one
    activity line and one ``stuck:`` row, cut to the panel's width, never wrapped."""
    async with watching(spinning(), resync_s=3600) as (state, app, pilot):
        await wait_for(lambda: "busy but stuck" in run_text(app), pilot, what="stuck")
        text = run_text(app)
        assert "GPU 100% at 15% of power limit" in text
        assert "no CPU, disk or GPU activity" not in text  # the tree is busy: say so
        panel = app.main.query_one(RunPanel)

        def rendered() -> list[str] | None:  # the content is set a refresh before it is drawn
            rows = [r.rstrip() for r in plain_rows(panel)]
            return rows if any("stuck:" in r for r in rows) else None
        rows = await wait_for(rendered, pilot, what="the stuck row drawn")
        stuck_rows = [r for r in rows if "stuck:" in r]
        assert len(stuck_rows) == 1 and "2 processes (sglang::scheduler_TP0" in stuck_rows[0]
        assert "…" in stuck_rows[0]  # cut at the panel's edge (72 columns here) ...
        assert not any("custom_all_reduce" in r for r in rows)  # ... not wrapped onto a row
        # Output comes: the daemon clears ``stuck``, and the row goes with the next report.
        state.push("run", spinning(state="working", quiet_s=0.5, still_s=0.5, stuck=None))
        await wait_for(lambda: "stuck:" not in run_text(app), pilot, what="the row to go")
        assert "activity working" in run_text(app)
