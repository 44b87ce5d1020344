"""The daemon learns of a child's exit from a pidfd on the loop (Python 3.11's default is a
thread per child); exit codes and concurrent children still come out right."""

from __future__ import annotations

import asyncio
import sys
import warnings

import anyio

from supervisor.runtime.process import use_pidfd_child_watcher


def test_pidfd_watcher_reports_each_childs_exit_code() -> None:
    async def main() -> tuple[bool, list[int]]:
        installed = use_pidfd_child_watcher()
        codes: list[int] = []

        async def one(code: int) -> None:
            proc = await anyio.open_process([sys.executable, "-c", f"import os; os._exit({code})"])
            codes.append(await proc.wait())

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for code in (0, 3, 7):
                    tg.start_soon(one, code)
        return installed, sorted(codes)

    try:
        installed, codes = anyio.run(main)
    finally:  # the watcher is bound to that loop: later tests in this process get the default
        if sys.version_info < (3, 12):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                asyncio.set_child_watcher(None)
    assert codes == [0, 3, 7]
    if sys.version_info < (3, 12) and sys.platform == "linux":
        assert installed, "Linux 5.3+ has pidfds: the watcher should be in place"
    else:
        assert not installed  # 3.12+ uses pidfds on its own
