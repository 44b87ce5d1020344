"""Serve the fake daemon on a socket until killed: ``python serve_fake.py SOCK [hung|readonly]``.

For looking at the real ``supervisor-tui`` under tmux without the real daemon.
"""

from __future__ import annotations

import os
import sys

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakedaemon import FakeDaemon, FakeState, hung_run  # noqa: E402


async def main(path: str, scenario: str) -> None:
    state = FakeState(can_mutate=scenario != "readonly",
                      read_only_reason="uid 1001 is not in group gns-operators"
                      if scenario == "readonly" else None)
    if scenario == "hung":
        state.status["run"] = hung_run()
    fake = FakeDaemon(state)
    fake.path = path
    async with anyio.create_task_group() as tg:
        await tg.start(fake._serve)
        n = 0
        while True:
            await anyio.sleep(0.5)
            n += 1
            state.push("log", {"run_id": 7, "lines": [f"INFO tick {n}", f"WARNING warn {n}"]})


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ready")
