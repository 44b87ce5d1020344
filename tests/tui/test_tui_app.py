"""Behaviour of supervisor-tui against the fake daemon, driven with run_test and Pilot.

Most tests go through a real Unix socket (``FakeDaemon``) and the real client library; the
frozen clock keeps the text stable.
"""

from __future__ import annotations

import sys

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

import io
from contextlib import asynccontextmanager
from typing import Any

import pytest
from conftest import frozen_clock
from fakedaemon import T0, FakeDaemon, FakeState, gpu, hung_run, wait_for
from rich.console import Console
from textual.widgets import Static

from tui.app import SupervisorApp, describe, parse_targets
from tui.connection import Target, default_socket
from tui.screens.dialogs import ConfirmScreen, PromptScreen
from tui.screens.history import HistoryScreen
from tui.screens.profiles import ProfilesScreen
from tui.widgets.gpu_panel import GpuPanel
from tui.widgets.run_panel import RunPanel

pytestmark = pytest.mark.anyio
SIZE = (120, 36)


def plain(renderable: Any) -> str:
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def run_text(app: SupervisorApp) -> str:
    return plain(app.main.query_one(RunPanel).render())


def static_text(app: SupervisorApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


def topbar(app: SupervisorApp) -> str:
    return str(app.main.query_one("#topbar", Static).content)


def banner_shown(app: SupervisorApp) -> bool:
    return app.main.query_one("#banner", Static).has_class("-visible")


@asynccontextmanager
async def attached(state: FakeState | None = None, **kwargs: Any):
    """A fake daemon on a socket and the app attached to it (through the real client)."""
    async with FakeDaemon.running(state) as fake:
        app = SupervisorApp([Target.unix(fake.path)], clock=frozen_clock,
                            reconnect_delays=(0.05, 0.1, 0.2), **kwargs)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.connected and app.main.run, pilot, what="first status")
            yield fake.state, app, pilot


async def test_attach_shows_the_ready_run_gpus_checklist_and_log() -> None:
    async with attached() as (state, app, pilot):
        await wait_for(lambda: app.main.log_panel.shown_lines, pilot, what="log tail")
        text = run_text(app)
        assert "demo-baseline" in text and "READY" in text and "run #7" in text
        assert "weights 42s" in text  # phase timeline with durations
        assert "● connected" in topbar(app) and "daemon 0.1.0" in topbar(app)
        assert not banner_shown(app)
        assert "demo line 19" in app.main.log_panel.shown_lines[-1]
        gpus = plain(app.main.query_one(GpuPanel).render())
        assert " 0 ●" in gpus and "60/80G" in gpus
        assert [c for c, _ in state.requests][:3] == ["logs", "subscribe", "status"]
        # pushed log lines arrive (batched) at the end of the log
        state.push("log", {"run_id": 7, "lines": ["INFO pushed line"]})
        await wait_for(lambda: app.main.log_panel.shown_lines[-1] == "INFO pushed line", pilot,
                       what="pushed log line")


async def test_the_first_tail_subscription_and_status_take_one_round_trip() -> None:
    from tui.connection import connect

    in_flight, most = 0, 0

    @asynccontextmanager
    async def counting(target: Target) -> Any:
        async with connect(target) as client:
            real = client.request

            async def request(cmd: str, **args: Any) -> Any:
                nonlocal in_flight, most
                in_flight += 1
                most = max(most, in_flight)
                try:
                    return await real(cmd, **args)
                finally:
                    in_flight -= 1
            client.request = request  # type: ignore[method-assign]
            yield client

    async with FakeDaemon.running(None) as fake:
        app = SupervisorApp([Target.unix(fake.path)], connector=counting, clock=frozen_clock)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.connected and app.main.run, pilot, what="first status")
            await wait_for(lambda: app.main.log_panel.shown_lines, pilot, what="log tail")
            assert [c for c, _ in fake.state.requests][:3] == ["logs", "subscribe", "status"]
    assert most == 3  # all three were asked before the first answer came


async def test_switch_asks_for_confirmation_then_sends_switch() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("p")
        screen = await wait_for(lambda: isinstance(app.screen, ProfilesScreen) and app.screen,
                                pilot, what="profiles screen")
        await wait_for(lambda: screen.entries, pilot, what="profile list")
        assert "broken.toml: [timeouts] launch" in static_text(app, "#profiles-errors")
        await pilot.press("down")  # demo-baseline (running) -> demo-fused
        await wait_for(lambda: "NCCL_MAX_NCHANNELS" in plain(
            screen.query_one("#profile-detail", Static).content), pilot, what="diff shown")
        await pilot.press("s")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot, what="confirm")
        assert state.sent("switch") == []  # nothing before the answer
        await pilot.press("n")
        await wait_for(lambda: isinstance(app.screen, ProfilesScreen), pilot, what="dismissed")
        assert state.sent("switch") == []
        await pilot.press("s")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot, what="confirm")
        await pilot.press("y")
        await wait_for(lambda: state.sent("switch"), pilot, what="switch request")
        assert state.sent("switch") == [{"profile": "demo-fused"}]


async def test_switch_to_an_invalid_profile_is_refused_with_its_error() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("p")
        screen = await wait_for(lambda: isinstance(app.screen, ProfilesScreen) and app.screen,
                                pilot, what="profiles screen")
        await wait_for(lambda: screen.entries, pilot, what="profile list")
        await pilot.press("down", "down", "s")
        await wait_for(lambda: "invalid_profile" in plain(
            screen.query_one("#profile-detail", Static).content), pilot, what="show error")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ConfirmScreen)
        assert state.sent("switch") == []


async def test_a_hang_arriving_as_a_run_event_shows_verdict_cause_and_evidence() -> None:
    async with attached() as (state, app, pilot):
        state.push("run", hung_run())
        state.push("verdict", {"run_id": 8, "status": "hung", "phase": "cuda_graph_capture",
                               "cause": "nccl_timeout", "evidence": hung_run()["evidence"]})
        await wait_for(lambda: "HUNG" in run_text(app), pilot, what="hung status")
        text = run_text(app)
        assert "verdict HUNG in cuda_graph_capture — cause nccl_timeout" in text
        assert "Watchdog caught collective operation timeout" in text
        assert "demo-fused + nccl_fewchan, flashinfer_fusion" in text
        assert "graph batch" in text and "12/36" in text
        assert app.main.query_one(RunPanel).has_class("-failed")
        assert app.main.verdict and app.main.verdict["cause"] == "nccl_timeout"


async def test_phase_clock_shows_elapsed_against_the_deadline() -> None:
    async with attached() as (state, app, pilot):
        run = hung_run() | {"status": "starting", "cause": None, "evidence": []}
        state.push("run", run)  # graph capture since T0+47, now T0+100, budget 1200 s
        await wait_for(lambda: "STARTING" in run_text(app), pilot, what="starting")
        assert "graphs for 53s / 20m00s" in run_text(app)


async def test_add_a_checklist_item_sends_the_request_and_shows_the_item() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("a")
        await wait_for(lambda: isinstance(app.screen, PromptScreen), pilot, what="prompt")
        await pilot.press(*"check NCCL_P2P_LEVEL")
        await pilot.press("enter")
        await wait_for(lambda: state.sent("checklist"), pilot, what="checklist request")
        assert state.sent("checklist") == [{"action": "add", "text": "check NCCL_P2P_LEVEL"}]
        await wait_for(lambda: any(it.get("title") == "check NCCL_P2P_LEVEL"
                                   for it in app.main.items), pilot, what="item shown")


async def test_mark_the_selected_item_done() -> None:
    async with attached() as (state, app, pilot):
        app.main.checklist.query_one("OptionList").focus()
        await pilot.press("down", "d")  # item 2 ("run the benchmark")
        await wait_for(lambda: state.sent("checklist"), pilot, what="checklist request")
        assert state.sent("checklist") == [{"action": "done", "item": 2}]


async def test_disconnect_shows_a_banner_and_reconnect_clears_it() -> None:
    async with attached() as (state, app, pilot):
        await state.daemon.go_down()
        await wait_for(lambda: banner_shown(app), pilot, what="banner")
        assert not app.connected
        assert "○ disconnected" in topbar(app)
        assert "disconnected from" in static_text(app, "#banner")
        await pilot.pause(0.3)  # a few refused attempts
        await state.daemon.come_back()
        await wait_for(lambda: app.connected and not banner_shown(app), pilot, what="reconnect")
        assert "● connected" in topbar(app)
        await wait_for(lambda: len(state.sent("subscribe")) == 2, pilot,
                       what="subscribed again after reconnecting")


async def test_no_daemon_says_cannot_connect_and_keeps_trying() -> None:
    app = SupervisorApp([Target.unix("/tmp/gns-no-such-dir/s.sock")], clock=frozen_clock,
                        reconnect_delays=(0.05,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: banner_shown(app), pilot, what="banner")
        banner = static_text(app, "#banner")
        assert "cannot connect to" in banner
        assert "no socket at /tmp/gns-no-such-dir/s.sock" in banner  # the path that was tried
        assert "start the daemon" in banner and "--socket PATH or GNS_SOCKET" in banner
        assert "retrying in" in banner
        assert "no run yet" not in run_text(app)  # unknown, not "none"
        assert "not connected" in run_text(app)


async def test_the_daemons_own_problems_show_and_clear_without_an_event() -> None:
    # A daemon with no run live: its problems come and go, reported only by `status`.
    state = FakeState()
    state.status["run"] = None
    async with FakeDaemon.running(state) as fake:
        app = SupervisorApp([Target.unix(fake.path)], clock=frozen_clock,
                            reconnect_delays=(0.05,), resync_s=0.1)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.connected, pilot, what="connected")
            assert "problem" not in topbar(app) and not banner_shown(app)
            state.status["daemon"]["problems"] = [
                "history store: disk I/O error: runs are not being recorded",
                "event loop stalled 7.0 s at 10:00:00 in store.py:42"]
            await wait_for(lambda: banner_shown(app), pilot, timeout=5, what="problem banner")
            assert "⚠ 2 daemon problems" in topbar(app)
            banner = static_text(app, "#banner")
            assert "daemon problem: history store: disk I/O error" in banner
            assert "(+1 more: supervisor-ctl status)" in banner
            state.status["daemon"]["problems"] = []
            await wait_for(lambda: not banner_shown(app), pilot, timeout=5,
                           what="the banner to clear with the problems")
            assert "problem" not in topbar(app) and "● connected" in topbar(app)


async def test_a_lost_link_outranks_a_daemon_problem_in_the_banner() -> None:
    state = FakeState()
    state.status["daemon"]["problems"] = ["history store: database is locked"]
    async with attached(state, resync_s=0.1) as (state, app, pilot):
        assert "daemon problem: history store: database is locked" in static_text(app, "#banner")
        await state.daemon.go_down()
        await wait_for(lambda: not app.connected, pilot, what="disconnected")
        await pilot.pause(0.05)
        banner = static_text(app, "#banner")
        assert "disconnected from" in banner and "database is locked" not in banner
        assert "problem" not in topbar(app)  # a report from a link now lost is not shown


async def test_read_only_peer_cannot_switch_or_edit_and_is_told_why() -> None:
    state = FakeState(can_mutate=False, read_only_reason="uid 1001 is not permitted")
    async with attached(state) as (state, app, pilot):
        assert "READ-ONLY" in topbar(app) and "uid 1001 is not permitted" in topbar(app)
        assert app.check_action("add_item", ()) is None  # shown disabled
        await pilot.press("a")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, PromptScreen)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Switch profile" not in titles and "Checklist: add item" not in titles
        assert "Read-only" in titles
        await pilot.press("p")
        screen = await wait_for(lambda: isinstance(app.screen, ProfilesScreen) and app.screen,
                                pilot, what="profiles screen")
        await wait_for(lambda: screen.entries, pilot, what="profile list")
        await pilot.press("down", "s")
        app.confirm_switch("demo-fused")  # even when called directly
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ConfirmScreen)
        assert state.sent("switch") == [] and state.sent("checklist") == []


async def test_palette_lists_every_action_when_permitted() -> None:
    async with attached() as (state, app, pilot):
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for t in ("Profiles", "History", "Brief", "Help", "Switch profile", "Stop", "Restart",
                  "Checklist: add item", "Checklist: mark done", "Log: filter", "Log: search",
                  "Reconnect now", "Dump stacks"):
            assert t in titles


async def test_history_shows_runs_side_by_side_with_benchmarks() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("h")
        screen = await wait_for(lambda: isinstance(app.screen, HistoryScreen) and app.screen,
                                pilot, what="history")
        await wait_for(lambda: screen.runs, pilot, what="runs")
        assert [r["id"] for r in screen.runs] == [7, 6]  # newest first
        table = screen.query_one("DataTable")
        assert table.row_count == 2
        row = [str(c) for c in table.get_row_at(1)]
        assert row[1] == "demo-fused +nccl_fewchan" and row[-1] == "812.5 tok/s · TTFT 118 ms"
        assert "42s" in row  # weight loading duration


async def test_log_filter_level_and_bounded_flood() -> None:
    async with attached(log_max_lines=1000) as (state, app, pilot):
        panel = app.main.log_panel
        for i in range(20):  # 20k lines in 20 events
            state.push("log", {"run_id": 7, "lines": [f"INFO flood {i}-{j}" for j in range(999)]
                               + [f"WARNING slow {i}"]})
        await wait_for(lambda: panel.total_received >= 20_020, pilot, what="flood received")
        await wait_for(lambda: panel.shown_lines and panel.shown_lines[-1] == "WARNING slow 19",
                       pilot, what="flood shown")
        assert len(panel.shown_lines) <= 1000
        await pilot.press("l", "l")  # all -> info -> warning
        await wait_for(lambda: panel.level == "warning", pilot, what="level")
        await wait_for(lambda: all("WARNING" in ln for ln in panel.shown_lines), pilot,
                       what="only warnings")
        await pilot.press("l", "l")  # -> error -> all
        await pilot.press("f")
        await pilot.press(*"slow 1")
        await pilot.press("enter")
        await wait_for(lambda: panel.needle == "slow 1", pilot, what="filter")
        assert panel.shown_lines and all("slow 1" in ln for ln in panel.shown_lines)


async def test_scrolling_up_pauses_the_log_and_counts_new_lines() -> None:
    async with attached() as (state, app, pilot):
        panel = app.main.log_panel
        state.push("log", {"run_id": 7, "lines": [f"INFO line {i}" for i in range(200)]})
        await wait_for(lambda: panel.shown_lines[-1] == "INFO line 199", pilot, what="lines")
        log = panel.query_one("Log")
        await pilot.pause(0.2)
        log.scroll_home(animate=False)
        await wait_for(lambda: panel.paused, pilot, what="paused")
        state.push("log", {"run_id": 7, "lines": ["INFO more 1", "INFO more 2"]})
        await wait_for(lambda: "2 new lines" in static_text(app, "#log-bar"), pilot,
                       what="pending badge")
        assert log.scroll_y == 0
        panel.action_follow()
        await wait_for(lambda: not panel.paused and "following" in static_text(app, "#log-bar"),
                       pilot, what="following again")


async def test_garbage_from_the_daemon_never_crashes_the_app() -> None:
    state = FakeState()
    state.status = {"daemon": None, "run": {"status": None, "phases": "x", "progress": 5,
                                            "changes": None, "evidence": None, "activity": []},
                    "checklist": [None, 3, {"status": "weird"}], "gpus": [None, 7, {"history": 2}],
                    "fallback": {"attempts": "no", "serving": 1, "culprits": None}}
    async with attached(state) as (state, app, pilot):
        state.push("run", {"id": None, "phase_since": "soon", "deadline_s": float("nan")})
        state.push("gpus", {"gpus": [gpu(0, 10, "critical", ["xid_79"]), {"index": "x"}]})
        state.push("checklist", {"items": None})
        state.push("fallback", None)
        state.push("verdict", None)
        state.push("log", {"lines": [None, 3, "\x1b[31mred\x1b[0m"]})
        state.push("dropped", {"count": "many"})
        state.push("bogus", [1, 2])
        await wait_for(lambda: app.main.query_one(GpuPanel).has_class("-alert"), pilot,
                       what="gpu alert")
        assert "xid_79" in plain(app.main.query_one(GpuPanel).render())
        state.overrides["history"] = lambda args: {"runs": [None, {"phases": None}, 1]}
        state.overrides["profiles"] = lambda args: None
        await pilot.press("h")
        await wait_for(lambda: isinstance(app.screen, HistoryScreen) and app.screen.runs,
                       pilot, what="history")
        await pilot.press("escape", "p")
        await wait_for(lambda: isinstance(app.screen, ProfilesScreen), pilot, what="profiles")
        await pilot.pause(0.2)
        assert app.is_running and app.connected


async def test_daemon_error_on_a_mutation_is_shown_not_raised() -> None:
    async with attached() as (state, app, pilot):
        def refuse(args: dict[str, Any]) -> Any:
            from supervisor.protocol import wire
            raise wire.ProtocolError(wire.BUSY, "a switch is already in progress")
        state.overrides["switch"] = refuse
        app.confirm_switch("demo-fused")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot, what="confirm")
        await pilot.press("y")
        await wait_for(lambda: state.sent("switch"), pilot, what="switch sent")
        await wait_for(lambda: any("busy" in n.message for n in app._notifications), pilot,
                       what="error notification")
        assert app.is_running


async def test_several_nodes_switch_with_ctrl_n() -> None:
    second = FakeState()
    second.status["run"] = hung_run()
    async with FakeDaemon.running() as one, FakeDaemon.running(second) as two:
        app = SupervisorApp([Target.unix(one.path), Target.unix(two.path)], clock=frozen_clock,
                            reconnect_delays=(0.05,))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.connected and app.main.run, pilot, what="node 1")
            assert "(1/2)" in topbar(app) and app.main.run["profile"] == "demo-baseline"
            await pilot.press("ctrl+n")
            await wait_for(lambda: app.connected and app.main.run
                           and app.main.run.get("profile") == "demo-fused", pilot,
                           what="node 2")
            assert "(2/2)" in topbar(app) and two.path in topbar(app)
            assert "HUNG" in run_text(app)


def test_targets_from_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_targets(["--socket", "/a.sock"]) == [Target.unix("/a.sock")]
    assert parse_targets(["--ssh", "gpu1", "--ssh", "gpu2", "--remote-socket", "/r.sock"]) == [
        Target.ssh("gpu1", "/r.sock"), Target.ssh("gpu2", "/r.sock")]
    assert parse_targets([], env={"GNS_SOCKET": "/x.sock"}) == [Target.unix("/x.sock")]
    assert default_socket({"XDG_RUNTIME_DIR": "/run/user/5"}).endswith(
        "gpu-node-supervisor/control.sock")


def test_describe_unwraps_exception_groups() -> None:
    assert describe(BaseExceptionGroup("x", [ConnectionRefusedError()])).startswith(
        "connection refused")
    assert describe(FileNotFoundError(2, "No such file", "/s.sock")).startswith(
        "no socket at /s.sock — start the daemon")


def test_a_refused_or_missing_socket_names_the_path_tried_and_what_to_do() -> None:
    target = Target.unix("/run/user/5/gpu-node-supervisor/control.sock")
    missing = describe(FileNotFoundError(2, "No such file or directory"), target)
    assert missing.startswith("no socket at /run/user/5/gpu-node-supervisor/control.sock — ")
    refused = describe(ConnectionRefusedError(111, "Connection refused"), target)
    assert "at /run/user/5/gpu-node-supervisor/control.sock: no daemon listens there" in refused
    for reason in (missing, refused):
        assert "start the daemon" in reason and "--socket PATH or GNS_SOCKET" in reason


async def test_the_profiles_screen_marks_the_profile_that_runs_as_the_run_changes() -> None:
    """The App sets the running profile down into an open screen; the screen never reads the
    main screen's run itself."""
    async with attached() as (state, app, pilot):
        await pilot.press("p")
        screen = await wait_for(lambda: isinstance(app.screen, ProfilesScreen) and app.screen,
                                pilot, what="profiles screen")
        await wait_for(lambda: screen.entries, pilot, what="profile list")

        def labels() -> list[str]:
            options = screen.query_one("#profile-list").options
            return [plain(o.prompt).strip() for o in options]

        assert "✔ demo-baseline (running)" in labels()
        state.push("run", hung_run() | {"status": "starting", "cause": None, "evidence": []})
        await wait_for(lambda: "✔ demo-fused (running) ← demo-baseline" in labels(), pilot,
                       what="demo-fused marked running")
        assert "✔ demo-baseline" in labels()


async def test_close_events_ends_the_event_stream_and_requests_still_work() -> None:
    """The public way to stop taking events (the TUI calls it when its event loop ends);
    an event pushed afterwards is dropped, not an error that closes the connection."""
    from supervisor.protocol.client import connect_unix

    async with FakeDaemon.running(None) as fake, connect_unix(fake.path) as client:
        await client.request("subscribe", topics=["run"])
        client.close_events()
        received = [event async for event in client.events()]  # ends at once
        fake.state.push("run", hung_run())
        assert await client.request("ping") == {"pong": True, "time": T0}
        assert received == [] and not client.closed
