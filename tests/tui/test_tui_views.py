"""What a person sees in the serving panel, the campaign screen and the group view, through
the fake daemon's socket (the real client library), at 120×36 and at 80×24."""

from __future__ import annotations

import io
import re
from contextlib import asynccontextmanager
from typing import Any

import pytest
from conftest import frozen_clock
from fakedaemon import (
    T0,
    FakeDaemon,
    FakeState,
    campaign_done,
    campaign_running,
    group_failed,
    serving_status,
    wait_for,
)
from rich.console import Console
from test_tui_app import plain
from textual.widgets import Markdown, Static

from tui.app import SupervisorApp
from tui.connection import Target
from tui.screens.campaign import CampaignScreen, plan_tree
from tui.screens.group import GroupScreen, group_view
from tui.widgets.serving_panel import ServingPanel, serving_lines, serving_title

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


async def test_serving_panel_says_how_old_its_figures_are_once_the_engine_went_quiet() -> None:
    """SGLang prints nothing when it goes idle: "9 running" and 793 tok/s stay on screen after
    the requests ended, so the panel says how old the newest figures are."""
    status = serving_status()
    status["run"]["serving"]["updated"] = frozen_clock() - 44
    async with attached(FakeState(status)) as (state, app, pilot):
        panel = await serving_filled(app, pilot)
        assert panel.border_title == "serving · sglang from its log, newest figures 44s old"
        # guard: a newer stats line, or a /metrics scrape, makes them current again
        state.push("run", state.status["run"] | {"serving": state.status["run"]["serving"] | {
            "scraped": frozen_clock() - 2, "source": "log+metrics"}})
        await wait_for(lambda: panel.border_title == "serving · sglang from its log+metrics",
                       pilot, what="a current title")
    assert serving_title({"engine": "vllm", "source": "log", "answers": {"2xx": 3}}, 0.0) == \
        "serving · vllm from its log, no stats line yet"


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


# -- campaign screen ----------------------------------------------------------------------------

def screen_text(app: SupervisorApp, *selectors: str, width: int = 200) -> str:
    """What the Statics show, laid out ``width`` columns wide."""
    out = []
    for s in selectors:
        console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one(s, Static).content)
        out.append(console.export_text())
    return "\n".join(out)


async def open_campaign(app: SupervisorApp, pilot: Any, key: str = "c") -> CampaignScreen:
    await pilot.press(key)
    screen = await wait_for(lambda: isinstance(app.screen, CampaignScreen) and app.screen,
                            pilot, what="the campaign screen")
    await wait_for(lambda: screen.campaign_state, pilot, what="campaign status")
    return screen


async def test_campaign_screen_shows_the_plan_branches_current_phase_and_results() -> None:
    state = FakeState()
    state.campaign = campaign_running()
    run = state.status["run"] | {"id": 12, "profile": "demo-eagle3", "status": "starting",
                                 "phase": "weight_loading", "changes": ["nccl_fewchan"]}
    state.status["run"] = run
    async with attached(state) as (state, app, pilot):
        await open_campaign(app, pilot)
        assert state.sent("campaign") == [{"action": "status"}]
        head = screen_text(app, "#campaign-head")
        assert head.startswith("campaign seed  running   at eagle3 · run #12 starting in "
                               "weights")
        assert "nccl_only: ready; next: eagle3 (on_success = eagle3)" in head
        tree = screen_text(app, "#campaign-plan")
        assert "baseline demo-baseline  82.1 tok/s" in tree
        assert ("✘ fused  demo-fused + nccl_fewchan, flashinfer_fusion  hung in "
                "cuda_graph_capture (nccl_timeout) · culprit flashinfer_fusion") in tree
        assert "on failure → nccl_only  ← taken (on_failure = nccl_only)" in tree
        assert "evidence: [rank3] Watchdog caught collective operation timeout" in tree
        assert ("✔ nccl_only  demo-fused + nccl_fewchan  ready · 84.3 tok/s · 1.03× "
                "baseline") in tree
        assert "▶ eagle3  demo-eagle3 + nccl_fewchan  in progress: run #12 starting in " \
               "weights" in tree
        results = screen_text(app, "#campaign-results")
        rows = [re.sub(r"\s+", " ", ln).strip() for ln in results.splitlines()]
        assert "baseline demo-baseline ready 82.1 1.00× 140 ms – –" in rows
        assert "nccl_only ready 84.3 1.03× 131 ms – eagle3" in rows
        assert "serving now: demo-fused + nccl_fewchan" in rows
        assert not app.screen.query_one(Markdown).display  # no report while it runs
        no_reprs((head + tree + results).replace("[rank3]", ""))
        # the phase follows the run as it moves on
        state.push("run", run | {"phase": "cuda_graph_capture"})
        await wait_for(lambda: "starting in graphs" in screen_text(app, "#campaign-head"),
                       pilot, what="the new phase")


async def test_campaign_screen_shows_the_report_when_done_and_is_in_the_palette() -> None:
    state = FakeState()
    state.campaign = campaign_done()
    async with attached(state) as (state, app, pilot):
        names = [c.title for c in app.get_system_commands(app.main)]
        assert "Campaign" in names and "Group" in names
        screen = await open_campaign(app, pilot)
        md = screen.query_one(Markdown)
        await wait_for(lambda: md.display and md.source.startswith("# Campaign seed"), pilot,
                       what="the report")
        assert "completed" in screen_text(app, "#campaign-head")
        results = " ".join(screen_text(app, "#campaign-results").split())
        assert ("serving now: demo-fused + nccl_fewchan (experiment nccl_only, the best "
                "measured, launched again)") in results, results
        tree = screen_text(app, "#campaign-plan")
        assert "✔ eagle3  demo-eagle3 + nccl_fewchan  ready · 61 tok/s · 0.74× baseline" in tree
        assert "on success → end  ← taken (the plan has run to its end)" in tree


async def test_a_campaign_step_event_refreshes_the_open_screen_at_once() -> None:
    state = FakeState()
    state.campaign = campaign_running()
    async with attached(state) as (state, app, pilot):
        screen = await open_campaign(app, pilot)
        screen.poll_s = 3600.0  # no polling: only the event can bring the change
        if screen._poll is not None:
            screen._poll.stop()
        state.campaign = campaign_done()
        state.push("daemon", {"campaign": {"id": 3, "campaign": "seed", "status": "completed",
                                           "current": None, "note": "the plan has run to its "
                                                                    "end"}})
        await wait_for(lambda: screen.query_one(Markdown).display, pilot, what="the report")
        state.push("daemon", {"reload": {"added": [], "removed": [], "changed": []},
                              "why": "SIGHUP"})
        await pilot.pause(0.05)
        assert app.daemon_info and app.daemon_info.get("version") == "0.1.0"


async def test_campaign_screen_says_when_none_has_run() -> None:
    async with attached(FakeState()) as (state, app, pilot):
        await pilot.press("c")
        await wait_for(lambda: isinstance(app.screen, CampaignScreen)
                       and "no campaign has run" in screen_text(app, "#campaign-head"),
                       pilot, what="no campaign")


async def test_campaign_screen_at_80x24() -> None:
    state = FakeState()
    state.campaign = campaign_running()
    async with attached(state, size=(80, 24)) as (state, app, pilot):
        screen = await open_campaign(app, pilot)
        head = screen.query_one("#campaign-head")
        await wait_for(lambda: head.region.height >= 2, pilot, what="layout")
        assert head.region.width <= 80 and head.region.y == 0
        width = screen.query_one("#campaign-plan").size.width
        tree = screen_text(app, "#campaign-plan", width=width)
        assert "on failure → nccl_only  ← taken" in tree


# -- group view ---------------------------------------------------------------------------------

async def open_group(app: SupervisorApp, pilot: Any) -> GroupScreen:
    await pilot.press("g")
    screen = await wait_for(lambda: isinstance(app.screen, GroupScreen) and app.screen,
                            pilot, what="the group screen")
    await wait_for(lambda: screen.group_state, pilot, what="group status")
    return screen


async def test_group_view_shows_ranks_side_by_side_and_the_root_rank() -> None:
    state = FakeState()
    state.group = group_failed()
    async with attached(state) as (state, app, pilot):
        await open_group(app, pilot)
        text = screen_text(app, "#group-view")
        assert text.startswith("group big  CRASHED   big-tp16 · attempt 2 · slowest rank in "
                               "graphs")
        assert "coordination ok via etcd http://127.0.0.1:2379 · this node node-a" in text
        titles = re.findall(r"rank \d node-\w(?: · \w+)?", text)
        assert titles == ["rank 0 node-a · consequence", "rank 1 node-b · consequence",
                          "rank 2 node-c · root"]
        card_row = next(ln for ln in text.splitlines() if "rank 0" in ln)
        assert "rank 1" in card_row and "rank 2" in card_row  # side by side
        assert "cause cuda_oom" in text and "cause nccl_timeout" in text
        assert ("verdict CRASHED — rank 2 (node-c) in cuda_graph_capture, cause cuda_oom"
                in text)
        assert "torch.OutOfMemoryError: CUDA out of memory" in text
        assert "consequences: rank 0 nccl_timeout, rank 1 stopped_by_group" in text
        no_reprs(text.replace("(node-c)", ""))
        # coordination lost: the screen asks again on its own and says so
        state.group = group_failed(degraded=True)
        await wait_for(lambda: "coordination degraded" in screen_text(app, "#group-view"),
                       pilot, timeout=10, what="degraded coordination")
        assert "ranks keep serving" in screen_text(app, "#group-view")


async def test_group_view_of_a_daemon_without_a_group() -> None:
    async with attached(FakeState()) as (state, app, pilot):
        await pilot.press("g")
        await wait_for(lambda: isinstance(app.screen, GroupScreen)
                       and "in no launch group" in screen_text(app, "#group-view"),
                       pilot, what="no group")
        assert "bad_request" not in screen_text(app, "#group-view")


async def test_group_view_at_80x24_wraps_ranks_and_keeps_the_verdict() -> None:
    state = FakeState()
    state.group = group_failed()
    async with attached(state, size=(80, 24)) as (state, app, pilot):
        screen = await open_group(app, pilot)
        view = screen.query_one("#group-view")
        await wait_for(lambda: view.region.height > 5, pilot, what="layout")
        text = screen_text(app, "#group-view", width=view.size.width)
        cards = [ln for ln in text.splitlines() if "rank " in ln and "node-" in ln]
        assert len(cards) >= 2, "the rank cards wrap onto a second row rather than get cut"
        assert "rank 2 node-c · root" in text and "verdict CRASHED" in text


# -- the real producers' output, as the views show it ---------------------------------------------

def test_the_serving_panel_reads_the_real_trackers_output() -> None:
    from supervisor.engines.serving_stats import ServingStats

    stats = ServingStats("sglang")
    stats.feed_chunk(b"[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 3, #token: 108, "
                     b"token usage: 0.25, accept len: 2.17, accept rate: 0.54, cuda graph: "
                     b"True, gen throughput (token/s): 178.86, #queue-req: 2, \n")
    assert stats.sample(T0)
    text = "\n".join(plain(ln) for ln in serving_lines(stats.latest(), stats.rows(), [], 100))
    assert "179 gen" in text and "3 running · 2 queued" in text and "25% used" in text
    assert "2.17 tokens/step · 54%" in text
    assert "answers" not in text   # no access line yet
    no_reprs(text)


def test_the_serving_panel_shows_refused_requests_when_no_batch_line_came() -> None:
    from supervisor.engines.serving_stats import ServingStats

    stats = ServingStats("vllm", probe_path="/health")
    stats.feed_chunk(b'INFO:     127.0.0.1:4242 - "POST /v1/chat/completions HTTP/1.1" 400 '
                     b'Bad Request\n' * 4)
    text = "\n".join(plain(ln) for ln in serving_lines(stats.latest(), stats.rows(), [], 100))
    assert "answers 0 ok · 4 4xx · 0 5xx" in text
    assert 'last: INFO:     127.0.0.1:4242 - "POST /v1/chat/completions HTTP/1.1" 400' in text
    no_reprs(text)


def test_the_campaign_tree_reads_the_real_plan_and_judge() -> None:
    from supervisor.campaign import judge, new_state
    from supervisor.campaign_plan import Experiment, Plan

    fused = Experiment("fused", "demo-fused", ("nccl_fewchan", "flashinfer_fusion"),
                       on_failure="nccl_only")
    nccl = Experiment("nccl_only", "demo-fused", ("nccl_fewchan",), min_speedup=1.0)
    plan = Plan("seed", "seed.toml", "demo-baseline", (fused, nccl),
                by_name={"fused": fused, "nccl_only": nccl})
    state = new_state(plan, 1)
    state["baseline"] = {"profile": "demo-baseline", "run_id": 7, "verdict": None,
                         "benchmark": {"tokens_per_s": 82.0, "ttft_ms": 140.0}, "samples": 1}
    outcome = {"ok": False, "request": 3, "benchmark": None, "run_id": 8, "log": None,
               "verdict": {"status": "hung", "phase": "cuda_graph_capture",
                           "cause": "nccl_timeout", "evidence": []},
               "culprits": ["flashinfer_fusion"], "changes": list(fused.changes or ()),
               "attempts": [], "notes": []}
    result = judge(fused, outcome, state["baseline"])
    nxt, why = plan.next_after(fused, result["ok"])
    result["branch"] = {"taken": "on_failure", "next": nxt, "why": why}
    state["experiments"].append(result)
    state["current"] = nxt
    tree = plain(plan_tree(state, {"profile": "demo-fused", "id": 9, "status": "starting",
                                   "phase": "launch"}))
    assert "✘ fused" in tree and "hung in cuda_graph_capture (nccl_timeout)" in tree
    assert "culprit flashinfer_fusion" in tree
    assert "on failure → nccl_only  ← taken (on_failure = nccl_only)" in tree
    assert "▶ nccl_only  demo-fused + nccl_fewchan  in progress: run #9 starting in launch" \
        in tree
    assert "success: ready, tok/s >= 1 x baseline" in tree
    no_reprs(tree)


def test_the_group_view_reads_the_real_verdict() -> None:
    from supervisor.cluster.verdict import group_status, group_verdict

    records = [
        {"node": "a", "rank": 0, "status": "crashed", "phase": "cuda_graph_capture",
         "cause": "nccl_timeout", "pid": 1, "failed_at": T0 + 40,
         "evidence": ["Watchdog caught collective operation timeout"], "stopped_for": None},
        {"node": "b", "rank": 1, "status": "hung", "phase": "cuda_graph_capture",
         "cause": "watchdog_timeout", "pid": 2, "failed_at": T0 + 10,
         "evidence": ["no output for 180 s"], "stopped_for": None}]
    verdict = group_verdict(records)
    view = {"group": "g", "profile": "p", "attempt": 1, "phase": "cuda_graph_capture",
            "status": group_status(records, 2, verdict, False), "verdict": verdict,
            "ranks": [{k: r[k] for k in ("node", "rank", "status", "phase", "cause", "pid")}
                      for r in records],
            "coordination": {"etcd": ["http://127.0.0.1:2379"], "node": "a", "state": "ok",
                             "problem": None}}
    text = plain(group_view(view))
    assert "verdict HUNG — rank 1 (b) in cuda_graph_capture, cause watchdog_timeout" \
        in text
    assert "rank 1 b · root" in text and "rank 0 a · consequence" in text
    assert "consequences: rank 0 nccl_timeout" in text


def test_a_missed_criterion_says_why() -> None:
    state = campaign_running()
    row = state["experiments"][1]
    row.update(ok=False, why="80.1 tok/s is 0.976x the baseline, below 1x",
               branch={"taken": "on_failure", "next": None, "why": "on_failure = stop"})
    tree = plain(plan_tree(state, {}))
    assert "missed: 80.1 tok/s is 0.976x the baseline, below 1x" in tree
    assert "on failure → end  ← taken (on_failure = stop)" in tree
