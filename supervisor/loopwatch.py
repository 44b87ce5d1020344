"""The daemon's own event loop, watched from a thread.

Everything the daemon does for a client - `status`, a stop, a verdict, a follower's log - waits
for the loop. A loop blocked for seconds (a synchronous call that should have gone to a worker
thread, a pathological input) answers nobody meanwhile, and from outside looks like a dead
daemon. A thread of its own notices when the loop has not ticked for ``STALL_S``, logs what the
loop's thread was running at that moment (the stack that blocked it, for the bug report), and
counts it for `status` (``daemon.loop``); the first tick after says how long it lasted. A
starved loop (a host whose CPUs are all busy) shows the same way, its stack in the selector.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from typing import Any

import anyio

log = logging.getLogger(__name__)

STALL_S = 5.0          # a loop that has not ticked for this long is blocked (or starved)
BEAT_S = 0.5           # how often the loop ticks
CHECK_S = 1.0          # how often the thread looks
RECENT_S = 600.0       # a stall this recent is one of the daemon's problems in status
STACK_FRAMES = 12      # innermost frames logged


class LoopWatch:
    def __init__(self, stall_s: float = STALL_S, beat_s: float = BEAT_S,
                 check_s: float = CHECK_S) -> None:
        self.stall_s = stall_s
        self.beat_s = beat_s
        self.check_s = check_s
        self._lock = threading.Lock()
        self._beat = time.monotonic()
        self._loop_thread: int | None = None
        self._in_stall = False
        self._stop = threading.Event()
        self.stalls = 0
        self.longest_s = 0.0
        self.last_where: str | None = None   # the innermost frame of the latest stall
        self.last_at: float | None = None    # when it began (epoch)

    async def run(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        self._loop_thread = threading.get_ident()
        self._stop.clear()
        self._beat = time.monotonic()
        watcher = threading.Thread(target=self._watch, name="loop-watch", daemon=True)
        watcher.start()
        task_status.started()
        try:
            while True:
                self._tick()
                await anyio.sleep(self.beat_s)
        finally:
            self._stop.set()

    def _tick(self) -> None:
        now = time.monotonic()
        with self._lock:
            blocked = now - self._beat
            self._beat = now
            if not self._in_stall:
                return
            self._in_stall = False
            self.longest_s = max(self.longest_s, blocked)
        log.warning("the event loop ran again after %.1f s blocked (nothing was answered "
                    "meanwhile)", blocked)

    def _watch(self) -> None:
        while not self._stop.wait(self.check_s):
            with self._lock:
                blocked = time.monotonic() - self._beat
                if self._in_stall:
                    self.longest_s = max(self.longest_s, blocked)
                    continue
                if blocked < self.stall_s:
                    continue
                self._in_stall = True
                self.stalls += 1
                self.longest_s = max(self.longest_s, blocked)
                self.last_at = time.time() - blocked
            stack = self._loop_stack()
            with self._lock:
                self.last_where = stack[-1].strip().splitlines()[0] if stack else None
            log.warning("the event loop has been blocked for %.1f s: no client is answered "
                        "until it runs again; the loop's thread is in:\n%s", blocked,
                        "".join(stack) or "(its stack could not be read)")

    def _loop_stack(self) -> list[str]:
        frame = sys._current_frames().get(self._loop_thread or -1)
        return traceback.format_stack(frame)[-STACK_FRAMES:] if frame is not None else []

    def status(self) -> dict[str, Any]:
        """For `status` (``daemon.loop``): stalls so far, the longest, the latest's place."""
        with self._lock:
            return {"stall_s": self.stall_s, "stalls": self.stalls,
                    "longest_s": round(self.longest_s, 1), "last_at": self.last_at,
                    "last_where": self.last_where}

    def problem(self, now: float | None = None) -> str | None:
        """One line for an operator while the latest stall is recent, else None."""
        with self._lock:
            if self.last_at is None or (now or time.time()) - self.last_at > RECENT_S:
                return None
            return (f"the daemon's event loop was blocked {self.stalls} time(s) for over "
                    f"{self.stall_s:g} s (longest {self.longest_s:.1f} s, the latest in "
                    f"{self.last_where or 'an unknown place'}); clients waited meanwhile. The "
                    f"daemon's log has the stack: please report it")
