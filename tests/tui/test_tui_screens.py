"""What a person sees on the TUI's screens: a long checklist, going back, the log's search and
filter, how a killed run ended, and plain words instead of Python reprs."""

from __future__ import annotations

from typing import Any

import pytest
from fakedaemon import T0, FakeState, hung_run, wait_for
from rich.style import Style
from test_tui_app import attached, plain, run_text, static_text
from textual.widgets import DataTable, Input, Log, OptionList

from tui import formatting as fmt
from tui.screens.history import HistoryScreen, run_detail
from tui.screens.profiles import ProfilesScreen, profile_detail

pytestmark = pytest.mark.anyio


def long_checklist() -> list[dict[str, Any]]:
    statuses = ["done"] * 6 + ["failed", "in_progress"] + ["pending"] * 9
    return [{"id": i + 1, "title": f"Run #8: step {i + 1} — a long title that would wrap over "
             "several rows of a narrow panel", "status": st, "evidence": [], "auto": True}
            for i, st in enumerate(statuses)]


async def test_a_long_checklist_has_one_row_per_item_counts_and_scrolls() -> None:
    state = FakeState()
    state.status["checklist"] = long_checklist()
    async with attached(state) as (state, app, pilot):
        panel = app.main.checklist
        await wait_for(lambda: len(app.main.items) == 17, pilot, what="17 items")
        assert panel.border_title == "checklist 6/17 done · 1 failed · 1 running · 9 to do"
        options = panel.query_one(OptionList)
        await wait_for(lambda: options.virtual_size.height == 17, pilot,
                       what="one row per item (long titles cut, not wrapped)")
        options.focus()
        await pilot.press("end")
        await wait_for(lambda: options.highlighted == 16 and options.scroll_y > 0, pilot,
                       what="the last item scrolled into view")
        assert "#17 pending" in str(panel.query_one("#checklist-evidence").render())


async def test_escape_goes_back_to_the_main_screen_in_one_press() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("p")
        await wait_for(lambda: isinstance(app.screen, ProfilesScreen), pilot, what="profiles")
        await pilot.press("h")
        await wait_for(lambda: isinstance(app.screen, HistoryScreen), pilot, what="history")
        await pilot.press("p", "h", "question_mark")
        await wait_for(lambda: app.screen.id == "help", pilot, what="help")
        assert len(app.screen_stack) == 2  # main + the one screen shown
        await pilot.press("escape")
        await wait_for(lambda: app.screen is app.main, pilot, what="back on main")


async def test_search_highlights_matches_and_a_level_change_recounts_them() -> None:
    async with attached() as (state, app, pilot):
        panel = app.main.log_panel
        await wait_for(lambda: panel.shown_lines, pilot, what="log tail")
        await pilot.press("slash")
        field = panel.query_one(Input)
        assert field.border_title == "search: find and highlight"  # a label, not a placeholder
        await pilot.press(*"line 1", "enter")
        bar = await wait_for(lambda: "match 1/" in static_text(app, "#log-bar")
                             and static_text(app, "#log-bar"), pilot, what="first match")
        assert "match 1/11 at line 2" in bar  # demo line 1, 10..19
        log = panel.query_one(Log)
        marked = set()
        for y in range(log.size.height):
            for seg in log.render_line(y):
                if seg.style and seg.style.bgcolor == Style.parse("on yellow").bgcolor:
                    marked.add(seg.text.lower())
        assert marked == {"line 1"}
        await pilot.press("l", "l")  # all -> info -> warning: the demo lines are all info
        await wait_for(lambda: panel.level == "warning", pilot, what="level warning")
        bar = static_text(app, "#log-bar")
        assert "match 1/11" not in bar and "0 matches for “line 1”" in bar


async def test_the_filter_input_says_what_it_is() -> None:
    async with attached() as (state, app, pilot):
        await pilot.press("f")
        field = app.main.log_panel.query_one(Input)
        await wait_for(lambda: field.has_focus, pilot, what="filter input")
        assert field.border_title == "filter: show only lines containing"
        await pilot.press(*"demo", "enter")
        assert "filter “demo”" in static_text(app, "#log-bar")


async def test_a_hung_run_shows_its_verdict_not_the_exit_of_our_kill() -> None:
    async with attached() as (state, app, pilot):
        state.push("run", hung_run() | {"exit_code": 0})
        await wait_for(lambda: "HUNG" in run_text(app), pilot, what="hung")
        text = run_text(app)
        assert "exit 0" not in text and "killed by supervisor" in text
        assert "verdict HUNG in cuda_graph_capture — cause nccl_timeout" in text
        state.push("run", hung_run() | {"status": "crashed", "exit_code": 1,
                                        "cause": "cuda_oom"})
        await wait_for(lambda: "CRASHED" in run_text(app), pilot, what="crashed")
        assert "exit 1" in run_text(app) and "killed by supervisor" not in run_text(app)


async def test_history_reads_as_words() -> None:
    state = FakeState()
    state.history.append(hung_run() | {"exit_code": 1, "hash": "ef56", "benchmark": {
        "kind": "chat", "started": T0, "error": "the run stopped during the benchmark"}})
    async with attached(state) as (state, app, pilot):
        await pilot.press("h")
        screen = await wait_for(lambda: isinstance(app.screen, HistoryScreen) and app.screen,
                                pilot, what="history")
        await wait_for(lambda: screen.runs, pilot, what="runs")
        table = screen.query_one(DataTable)
        cells = [str(c) for r in range(table.row_count) for c in table.get_row_at(r)]
        assert "failed" in cells and "812.5 tok/s · TTFT 118 ms" in cells
        details = [plain(run_detail(r)) for r in screen.runs]
        assert "killed by supervisor" in details[0] and "exit 1" not in details[0]
        assert "benchmark: failed: the run stopped during the benchmark" in details[0]
        assert "benchmark: 812.5 tok/s · TTFT 118 ms · 128 tokens in 1.7 s" in details[-1]
        for d in details:
            for repr_bit in ("None", "kind=", "started=", "e+09", "[", "{"):
                assert repr_bit not in d, (repr_bit, d)


def test_profile_detail_shows_settings_as_in_a_profile_file() -> None:
    shown = {"profile": {"name": "demo-fused", "launch": {"args": {"tp": 2}, "env": {}},
                         "benchmark": None},
             "parent": "demo-baseline",
             "diff": [{"key": "env.NCCL_MAX_NCHANNELS", "old": None, "new": "2"}]}
    text = plain(profile_detail({"name": "demo-fused", "engine": "sglang"}, shown, None))
    assert 'env.NCCL_MAX_NCHANNELS: (unset) → "2"' in text
    assert "launch.args.tp = 2" in text and 'name = "demo-fused"' in text
    assert "benchmark = (unset)" in text and "null" not in text and "None" not in text


def test_words_for_every_value_shape() -> None:
    assert fmt.text(["nccl_fewchan", "flashinfer_fusion"]) == "nccl_fewchan, flashinfer_fusion"
    assert fmt.text(None) == "–" and fmt.text([]) == "–" and fmt.text(2.50) == "2.5"
    assert fmt.text({"profile": "demo-baseline", "run_id": 3}) == \
        "profile demo-baseline, run_id 3"
    assert fmt.benchmark_text({"kind": "command", "started": T0, "duration_s": 3.2,
                                 "rps": 12.5}) == "rps 12.5"
    assert fmt.benchmark_text({"kind": "chat", "complete": False, "tokens": 2}) == \
        "did not complete"
    cut = {"kind": "chat", "complete": False, "tokens": 2, "ttft_ms": 12.0,
           "error": "the stream ended after 2 token(s) in 0.047 s without [DONE]"}
    assert fmt.benchmark_text(cut) == "did not complete: the stream ended after 2 token(s) " \
                                        "in 0.047 s without [DONE]"
    assert fmt.benchmark_text(cut, short=True) == "did not complete"
    short_run = {"kind": "chat", "complete": True, "tokens": 4, "ttft_ms": 12.0,
                 "tokens_per_s": None, "note": "no rate from 4 token(s) over 0.050 s"}
    assert fmt.benchmark_text(short_run, short=True) == "no rate · TTFT 12 ms"
    fb = {"strategy": "isolate", "attempts": [{}], "culprits": [],
          "serving": {"profile": "demo-fused", "changes": ["nccl_fewchan"]}}
    line = plain(fmt.run_lines(hung_run(), fb, None, T0 + 100)[-1])
    assert line.strip() == "fallback isolate · 1 attempt · serving demo-fused + nccl_fewchan"


async def test_a_following_log_stays_at_its_end_when_the_panels_above_grow() -> None:
    state = FakeState()
    state.logs = [f"[2023-11-14 22:13:{i % 60:02d}] INFO demo line {i}" for i in range(200)]
    async with attached(state) as (state, app, pilot):
        log = app.main.log_panel.query_one(Log)
        await wait_for(lambda: log.line_count == 200 and log.max_scroll_y > 0
                       and log.scroll_y == log.max_scroll_y, pilot, what="log at its end")
        height = log.size.height
        # a hung run with evidence and a fallback line: the run panel grows, the log shrinks
        state.push("run", hung_run())
        state.push("fallback", {"strategy": "isolate", "attempts": [{}, {}],
                                "culprits": ["flashinfer_fusion"], "serving": None})
        await wait_for(lambda: log.size.height < height, pilot, what="a shorter log")
        await wait_for(lambda: log.scroll_y == log.max_scroll_y, pilot, timeout=3,
                       what="the log scrolled to its new end")
        assert app.main.log_panel.following


async def test_a_nodes_answer_after_the_node_list_closed_is_dropped() -> None:
    # Under load a node's answer can land between the list closing and its worker being
    # cancelled (seen once on 2 cores): the answer has nowhere to go, and must not raise.
    from tui.screens.nodes import NodesScreen

    async def answer(index: int) -> dict[str, Any] | None:
        return None

    async with attached() as (state, app, pilot):
        screen = NodesScreen(["node a", "node b"], 0, membership=answer)
        await app.push_screen(screen)
        await wait_for(lambda: app.screen is screen, pilot, what="the node list")
        await app.pop_screen()
        await wait_for(lambda: app.screen is not screen and not screen.is_attached, pilot,
                       what="the node list closed")
        await screen._ask_round(answer)   # the late answers: dropped, no NoMatches
        assert screen.groups.keys() == {0, 1}
