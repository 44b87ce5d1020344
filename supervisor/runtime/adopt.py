"""A ready server found alive after a daemon restart, watched again by the new daemon.

It is not this daemon's child: a pidfd says when it exits (at once, no polling) but not its
exit code, and the output it wrote while no daemon read the old pipe is lost.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio

from ..states import Cause, Status
from ..watchdogs.watch import RunWatch
from .run import Run


def _tail_lines(path: Path, n: int) -> list[str]:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 300 * n))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [ln for ln in text.replace("\r", "\n").split("\n") if ln][-n:]


class AdoptedRun(Run):
    def __init__(self, *, row: dict[str, Any], **kw: Any) -> None:
        self._row = row
        super().__init__(**kw)

    def _begin(self) -> None:
        """State of the ready run as the previous daemon left it in history."""
        row = self._row
        self.adopted = True
        self.status = Status.READY
        self.ready_event.set()
        self.benchmark_done.set()
        self.clock.resume()
        self.pid, self.pgid, self.started = row["pid"], row["pgid"], row["started"]
        self.benchmark = row.get("benchmark")
        self.pipe.seed(_tail_lines(self.log_path, 3000))
        self.evidence = list(row.get("evidence") or []) + [
            "adopted after a daemon restart: health and exit are watched again; output "
            "written while no daemon was reading is lost (the old pipe closed with it)"]
        self.store.update_run(self.id, evidence=self.evidence)

    async def supervise(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            pidfd = os.pidfd_open(self.pid or 0)
        except OSError:
            task_status.started()
            self._settle()
            return
        self.publish()
        self._spawning = True
        task_status.started()
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(RunWatch(self).loop)
                tg.start_soon(self.followers.run)
                tg.start_soon(self._kill_when_asked)
                await anyio.wait_readable(pidfd)
                self.exited.set()
                tg.cancel_scope.cancel()
            self._on_gone()
        finally:
            os.close(pidfd)
            with anyio.CancelScope(shield=True):
                await self._reap_all()
                self.pipe.log.close()
                self._settle()

    def _on_gone(self) -> None:
        if self.failed:
            return
        if self._stop_requested:
            self.transition(Status.STOPPED, evidence=[self._stop_reason])
        else:
            self.transition(Status.CRASHED, cause=Cause.UNKNOWN, evidence=[
                f"adopted server (pid {self.pid}) exited at {time.strftime('%H:%M:%S')}; its "
                "exit code is unknown because it is not this daemon's child",
                *self.log_evidence()])
