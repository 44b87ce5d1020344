"""What a person sees in the serving panel, the campaign screen and the group view, through
the fake daemon's socket (the real client library), at 120×36 and at 80×24."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from typing import Any

import pytest
from conftest import frozen_clock
from fakedaemon import (
    FakeDaemon,
    FakeState,
    campaign_done,
    campaign_running,
    group_failed,
    serving_status,
    wait_for,
)
from test_tui_app import plain
from textual.widgets import Markdown, Static

from tui.app import SupervisorApp
from tui.connection import Target
from tui.widgets.serving_panel import ServingPanel

pytestmark = pytest.mark.anyio
REPR_BITS = ("None", "null", "{", "[", "'", "nan")


@asynccontextmanager
async def attached(state: FakeState, size: tuple[int, int] = (120, 36)):
    async with FakeDaemon.running(state) as fake:
        app = SupervisorApp([Target.unix(fake.path)], clock=frozen_clock,
                            reconnect_delays=(0.05, 0.1, 0.2))
        async with app.run_test(size=size) as pilot:
            await wait_for(lambda: app.connected and app.main.run, pilot, what="first status")
            yield fake.state, app, pilot


def no_reprs(text: str) -> None:
    for bit in REPR_BITS:
        assert bit not in text, (bit, text)


def serving_text(app: SupervisorApp) -> str:
    return plain(app.main.query_one(ServingPanel).render())


async def serving_filled(app: SupervisorApp, pilot: Any) -> ServingPanel:
    panel = app.main.query_one(ServingPanel)
    await wait_for(lambda: len(panel.rows) >= 30, pilot, what="the series from metrics")
    return panel


# -- serving panel ------------------------------------------------------------------------------

async def test_serving_panel_shows_sparklines_and_values_now() -> None:
    async with attached(FakeState(serving_status())) as (state, app, pilot):
        panel = await serving_filled(app, pilot)
        assert panel.display and panel.border_title == "serving · sglang from its log"
        assert state.sent("metrics"), "the series is filled from the metrics command"
        lines = serving_text(app).splitlines()
        by_label = {ln.split()[0]: ln for ln in lines if ln.strip()}
        assert by_label["tok/s"].endswith("793 gen")
        assert "▄▄▄▅" in by_label["tok/s"] and "████ 793" in by_label["tok/s"]  # the climb
        assert "9 running · 1 queued" in by_label["run/queue"]
        assert "64% used · hit 42%" in by_label["KV"]
        assert "2.60 tokens/step · 71%" in by_label["accept"]
        assert "625W (45% of limit) util 38%" in by_label["GPU"]
        no_reprs("\n".join(lines))
        # a newer serving report extends the series and moves the value now
        run = state.status["run"] | {"serving": state.status["run"]["serving"] | {
            "gen_throughput": 1234, "updated": state.metrics[-1]["t"] + 1}}
        state.push("run", run)
        await wait_for(lambda: len(panel.rows) == 31, pilot, what="one more row")
        assert "1,234 gen" in serving_text(app)


async def test_serving_panel_says_busy_at_low_power_and_shows_hang_signs() -> None:
    status = serving_status()
    for g in status["gpus"]:
        g.update(utilization_gpu=100, power_w=90)
    status["run"]["serving"]["hang_signs"] = [
        "No available shared memory broadcast block found in 60 seconds."]
    async with attached(FakeState(status)) as (state, app, pilot):
        await serving_filled(app, pilot)
        text = serving_text(app)
        assert "180W (13% of limit) util 100% busy at low power: a spin?" in text
        assert "⚠ hang sign: No available shared memory broadcast block" in text


async def test_no_serving_panel_before_the_engine_reports_serving() -> None:
    async with attached(FakeState()) as (state, app, pilot):
        panel = app.main.query_one(ServingPanel)
        await pilot.pause(0.1)
        assert not panel.display or not panel.has_class("-shown")
        assert not state.sent("metrics")


async def test_serving_panel_fits_80x24_one_line_each() -> None:
    async with attached(FakeState(serving_status()), size=(80, 24)) as (state, app, pilot):
        panel = await serving_filled(app, pilot)
        await wait_for(lambda: panel.has_class("-compact") and panel.region.height == 5,
                       pilot, what="the compact panel, one line per metric")
        screen = app.main
        assert panel.region.bottom <= screen.region.bottom - 1  # above the footer
        log = screen.query_one("#lower")
        assert log.region.height >= 5 and log.region.y >= panel.region.bottom
        lines = serving_text(app).splitlines()
        assert [ln.split()[0] for ln in lines if ln.strip()] == \
            ["tok/s", "run/queue", "KV", "accept", "GPU"]
        for ln in lines:  # nothing cut off: each line fits the panel, values included
            assert len(ln.rstrip()) <= panel.size.width, (len(ln.rstrip()), ln)
