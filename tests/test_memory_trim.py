"""Free heap memory goes back to the OS after bursts of output, not on every read."""

from __future__ import annotations

import sys

import anyio
import pytest

from supervisor.runtime import memory


def test_release_works_with_glibc() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("malloc_trim is glibc's")
    assert memory.release_free_memory() is True


def test_trim_policy_long_burst_then_quiet(monkeypatch) -> None:
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(memory, "release_free_memory",
                        lambda: calls.append((memory._Output.since_trim,
                                              memory._Output.since_quiet)) or True)
    monkeypatch.setattr(memory._Output, "since_trim", 0)
    monkeypatch.setattr(memory._Output, "since_quiet", 0)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(memory.trim_loop, 0.02)
            memory.note_output(100)                 # a trickle: never worth a trim
            await anyio.sleep(0.1)
            assert calls == []
            memory.note_output(memory.TRIM_EVERY)   # a long burst: trimmed while it goes on
            await anyio.sleep(0.03)
            assert len(calls) >= 1 and calls[0][0] >= memory.TRIM_EVERY
            await anyio.sleep(0.1)                  # then quiet: one more trim, then none
            assert len(calls) == 2
            await anyio.sleep(0.1)
            assert len(calls) == 2
            tg.cancel_scope.cancel()

    anyio.run(main)


def test_a_burst_followed_by_a_trickle_is_trimmed(monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(memory, "release_free_memory", lambda: calls.append(1) or True)
    monkeypatch.setattr(memory._Output, "since_trim", 0)
    monkeypatch.setattr(memory._Output, "since_quiet", 0)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(memory.trim_loop, 0.02)
            memory.note_output(memory.QUIET_MIN)    # a burst under TRIM_EVERY
            for _ in range(10):                      # then a server's odd line now and then
                memory.note_output(200)
                await anyio.sleep(0.02)
            assert len(calls) == 1                   # trimmed once, not per line
            tg.cancel_scope.cancel()

    anyio.run(main)
