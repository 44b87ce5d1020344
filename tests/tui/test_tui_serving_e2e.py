"""End to end: the TUI attached to the real daemon's socket while the emulator serves a small
load shows the serving panel with live numbers from the engine's own batch lines (at 80×24)."""

from __future__ import annotations

import http.client
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import frozen_clock
from fakedaemon import wait_for
from test_tui_app import plain

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the e2e harness
from e2e.harness import (  # noqa: E402
    RUN_VAR,
    Daemon,
    cleanup,
    emulator_profile,
    free_port,
    kill_env_processes,
    short_tmpdir,
)

from tui.app import SupervisorApp  # noqa: E402
from tui.connection import Target  # noqa: E402
from tui.widgets.serving_panel import ServingPanel  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def serving_daemon() -> Iterator[tuple[Daemon, int]]:
    """The real daemon with an emulator profile ``serve`` switched to and ready."""
    work = short_tmpdir()
    (work / "profiles").mkdir()
    (work / "state").mkdir()
    port = free_port()
    (work / "profiles" / "serve.toml").write_text(emulator_profile(
        "serve", port=port, env={"SGLANG_EMULATOR_TOKENS_PER_S": "200"}))
    d = Daemon(work / "profiles", work / "state", work / "s.sock").start()
    try:
        d.ctl("switch", "serve", "--wait", "--timeout", "60", check=True)
        yield d, port
    finally:
        try:
            d.stop()
        finally:
            d.kill()
            kill_env_processes(RUN_VAR, marker=d.marker)
            cleanup(work)


def load(port: int, max_tokens: int) -> None:
    """One completion on its own thread (the server answers when it has generated them)."""
    def go() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("POST", "/v1/completions", body=json.dumps(
                {"model": "test/model", "prompt": "count the stars", "max_tokens": max_tokens}),
                headers={"Content-Type": "application/json"})
            conn.getresponse().read()
        except OSError:
            pass
        finally:
            conn.close()

    threading.Thread(target=go, daemon=True).start()


async def test_the_tui_shows_live_serving_metrics_of_the_real_daemon(
        serving_daemon: tuple[Daemon, int]) -> None:
    d, port = serving_daemon
    for _ in range(3):
        load(port, 600)
    app = SupervisorApp([Target.unix(str(d.sock))], clock=frozen_clock,
                        reconnect_delays=(0.1, 0.2), resync_s=0.5)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.main.query_one(ServingPanel)

        def live() -> str:
            text = plain(panel.render()) if panel.has_class("-shown") else ""
            running = re.search(r"(\d+) running", text)
            gen = re.search(r"([\d,]+) gen", text)
            ok = running and int(running[1]) > 0 and gen and gen[1] != "0"
            return text if ok else ""

        text = await wait_for(live, pilot, timeout=30, what="live serving numbers")
        assert "KV cache" in text and "% used" in text
        assert "GPU W/%" in text and "util" in text  # the fake GPUs' power and utilisation
        assert "None" not in text and "nan" not in text
        assert panel.has_class("-compact") and panel.region.height <= 6


async def test_the_tui_shows_the_real_daemons_failing_store(
        serving_daemon: tuple[Daemon, int]) -> None:
    # The history store breaks under a running daemon: nothing publishes an event for that,
    # yet a person attached must read it on screen, not only a script reading `status --json`.
    from e2e.test_store_e2e import corrupt_every_table

    d, _port = serving_daemon
    app = SupervisorApp([Target.unix(str(d.sock))], clock=frozen_clock,
                        reconnect_delays=(0.1, 0.2), resync_s=0.3)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.connected and app.main.run, pilot, timeout=30,
                       what="attached")
        banner = app.main.query_one("#banner")
        assert not banner.has_class("-visible")
        corrupt_every_table(d.state / "history.sqlite3")
        d.ctl("checklist", "add", "look at the disk")  # a store write, which fails
        await wait_for(lambda: banner.has_class("-visible"), pilot, timeout=30,
                       what="the store's problem on screen")
        text = str(banner.content)
        assert "daemon problem: history store:" in text, text
        assert "daemon problem" in str(app.main.query_one("#topbar").content)
