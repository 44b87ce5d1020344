"""The daemon's loop watch, on a real anyio loop blocked by a real synchronous call."""

from __future__ import annotations

import logging
import time

import anyio

from supervisor.loopwatch import LoopWatch


def _block_the_loop_for(seconds: float) -> None:
    time.sleep(seconds)  # a synchronous call on the loop: nothing else runs meanwhile


async def _watched(watch: LoopWatch, body) -> None:
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            await tg.start(watch.run)
            await body()
            tg.cancel_scope.cancel()


def test_a_blocked_loop_is_counted_logged_with_its_stack_and_named_a_problem(caplog) -> None:
    watch = LoopWatch(stall_s=0.4, beat_s=0.05, check_s=0.05)

    async def body() -> None:
        await anyio.sleep(0.2)
        _block_the_loop_for(1.0)
        await anyio.sleep(0.3)  # the loop runs again: the stall is over

    with caplog.at_level(logging.WARNING, logger="supervisor.loopwatch"):
        anyio.run(_watched, watch, body)
    st = watch.status()
    assert st["stalls"] == 1, st
    assert 0.8 <= st["longest_s"] <= 5, st
    assert "_block_the_loop_for" in st["last_where"], st
    text = caplog.text
    assert "blocked for" in text and "_block_the_loop_for" in text, text
    assert "ran again after" in text, text
    problem = watch.problem()
    assert problem is not None and "blocked 1 time(s)" in problem and "_block_the_loop_for" \
        in problem, problem
    assert watch.problem(now=time.time() + 3600) is None  # an old stall is no longer a problem


def test_a_loop_that_keeps_ticking_is_no_stall() -> None:
    watch = LoopWatch(stall_s=0.4, beat_s=0.05, check_s=0.05)

    async def body() -> None:
        for _ in range(10):
            _block_the_loop_for(0.1)  # short blocking calls, each well under the bound
            await anyio.sleep(0.02)

    anyio.run(_watched, watch, body)
    assert watch.status()["stalls"] == 0 and watch.problem() is None


def test_each_stall_counts_once() -> None:
    stalls = 2
    watch = LoopWatch(stall_s=0.3, beat_s=0.05, check_s=0.05)

    async def body() -> None:
        for _ in range(stalls):
            _block_the_loop_for(0.8)
            await anyio.sleep(0.2)

    anyio.run(_watched, watch, body)
    assert watch.status()["stalls"] == stalls
