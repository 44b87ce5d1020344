"""Appearance of the main screen in fixed states (pytest-textual-snapshot).

Deterministic: in-memory fake daemon, frozen clock, fixed terminal size. Update the pictures
with ``pytest tests/tui/test_tui_snapshots.py --snapshot-update`` after checking the report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from conftest import frozen_clock
from fakedaemon import FakeState, gpu, hung_run, serving_status
from textual.pilot import Pilot

from tui.app import SupervisorApp
from tui.connection import Target


def make_app(state: FakeState) -> SupervisorApp:
    return SupervisorApp([Target.unix("/tmp/gns-snapshot.sock")], connector=state.connector,
                         clock=frozen_clock, reconnect_delays=(5,))


async def settle(pilot: Pilot[Any], ready: Callable[[], Any], what: str,
                 timeout: float = 10.0) -> None:
    """Wait until ``ready()`` holds and then until the screen draws the same twice in a row
    (the log's flush timer, a relayout): a picture of a screen still on its way is a flaky
    snapshot under load."""
    try:
        with anyio.fail_after(timeout):
            while not ready():
                await pilot.pause(0.02)
            last = None
            while True:
                await pilot.wait_for_scheduled_animations()
                await pilot.pause()
                shot = pilot.app.export_screenshot()
                if shot == last:
                    return
                last = shot
                await pilot.pause(0.05)
    except TimeoutError:
        raise AssertionError(f"the screen did not settle in {timeout}s ({what})") from None


async def settled(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, SupervisorApp)
    await settle(pilot, lambda: (app.connected and app.main.run and app.main.gpus
                                 and app.main.items and app.main.log_panel.shown_lines),
                 "the first status and log tail")


def test_main_screen_ready_at_80x24(snap_compare: Any) -> None:
    """At 80×24 everything fits: top bar "connected"; the run panel with demo-baseline READY,
    run #7, the phase timeline with durations (launch 2.0s › weights 42s › … › ready) and the
    activity line; the checklist 1/2 with ✔ and ▶ items and the evidence of the first; two GPU
    rows with utilisation sparklines, memory 60/80G, temperature, power; the log following with
    the last demo lines; the footer with Add item, Filter, Profiles, History, Help, Quit."""
    assert snap_compare(make_app(FakeState()), terminal_size=(80, 24), run_before=settled)


def test_main_screen_hung_with_verdict_and_fallback(snap_compare: Any) -> None:
    """A hang: demo-fused + nccl_fewchan, flashinfer_fusion HUNG (orange) in a red-bordered run
    panel; timeline up to graphs; progress "graph batch 12/36" as a bar; the verdict line
    "HUNG in cuda_graph_capture — cause nccl_timeout" with both evidence lines; the fallback
    line (isolate, 2 attempts, culprit flashinfer_fusion, serving demo-baseline + nccl_fewchan);
    GPU 1 critical with its xid flag and action on a second row (amber GPU border)."""
    state = FakeState()
    state.status["run"] = hung_run()
    state.status["gpus"] = [gpu(0, 0), gpu(1, 0, "critical", ["xid_79 fell off the bus"])]
    state.status["gpus"][1]["health"]["action"] = "drain the node"
    state.status["fallback"] = {
        "strategy": "isolate",
        "attempts": [{"run_id": 9, "profile": "demo-fused", "changes": ["nccl_fewchan"],
                      "status": "ready", "cause": None},
                     {"run_id": 10, "profile": "demo-fused", "changes": ["flashinfer_fusion"],
                      "status": "crashed", "cause": "flashinfer_error"}],
        "culprits": ["flashinfer_fusion"],
        "serving": {"profile": "demo-fused", "changes": ["nccl_fewchan"], "run_id": 11}}
    state.status["checklist"] = [
        {"id": 1, "title": "read the log for the root error", "status": "done",
         "evidence": ["[rank3] Watchdog caught collective operation timeout"], "auto": True},
        {"id": 2, "title": "dump stacks of the process tree", "status": "done",
         "evidence": ["stacks saved: 9 processes"], "auto": True},
        {"id": 3, "title": "isolate the changes", "status": "in_progress", "evidence": [],
         "auto": True},
        {"id": 4, "title": "fall back to the best working set", "status": "pending",
         "evidence": [], "auto": True},
    ]
    assert snap_compare(make_app(state), terminal_size=(120, 36), run_before=settled)


def test_main_screen_disconnected_banner(snap_compare: Any) -> None:
    """Never connected: the red banner "⚠ cannot connect to the daemon: connection refused at
    /tmp/gns-snapshot.sock: no daemon listens there — start the daemon (…), or point at its
    socket with --socket PATH or GNS_SOCKET — retrying in 5s", the top bar "○ disconnected",
    the run panel "not connected: nothing is known of the runs", "no GPU data", an empty
    checklist and log; Add item shown disabled."""
    state = FakeState()
    state.accepting = False

    async def wait_banner(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, SupervisorApp)
        await settle(pilot, lambda: app.banner and "cannot connect" in app.banner,
                     "the cannot-connect banner")

    assert snap_compare(make_app(state), terminal_size=(80, 24), run_before=wait_banner)




def test_main_screen_serving_at_80x24(snap_compare: Any) -> None:
    """A ready server under load at 80×24: below the GPUs, the serving panel without its border,
    one line each: tok/s climbing to "793 gen", run/queue "9 running · 1 queued", KV cache
    "64% used · hit 42%", accept "2.60 tokens/step · 71%", GPU W/% "625W (45% of limit) util
    38%", each with its sparkline next to the value; the log keeps a few lines above the
    footer."""
    from tui.widgets.serving_panel import ServingPanel

    async def serving(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, SupervisorApp)
        await settled(pilot)
        panel = app.main.query_one(ServingPanel)
        await settle(pilot, lambda: len(panel.rows) >= 30 and panel.has_class("-compact"),
                     "the serving series")

    assert snap_compare(make_app(FakeState(serving_status())), terminal_size=(80, 24),
                        run_before=serving)
