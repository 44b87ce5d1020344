"""A run's output on its way to followers (``log`` subscribers): batched, spread, bounded.

A server that logs every few ms (a line per decode step) would cost each follower a wake-up
and the daemon a send per read. Output is therefore gathered and sent as one ``log`` event at
most ``BATCH_S`` after it was read, or as soon as ``BATCH_BYTES`` have gathered (a flood).
While every follower is still behind with earlier events (its socket and outbox full), output
keeps gathering instead: an event built then would only be dropped for all of them, and
building one (escaping the text as JSON) is most of a follower's cost in a flood. An event
goes only to followers with room for it (``Outbox.has_room``); one still sending the last
batch misses it and is told so (a ``dropped`` event).

Sending one batch to 50 followers copies it 50 times into their sockets: milliseconds. A timed
batch is handed out one follower per loop iteration (:meth:`Hub.publish_spread`), so a
``status`` request waits for one copy, not fifty. While a batch is being handed out, new
output waits behind it (order is kept for every follower); if followers fall so far behind
that more than ``MAX_PENDING`` bytes wait, the oldest are skipped for them and the next event
says how much (the run's log file has everything).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import anyio

from ..events import Hub
from ..protocol import wire

BATCH_S = 0.05
BATCH_BYTES = 256 * 1024
MAX_PENDING = 2 * 2**20
TAKE_MAX = 2**20  # per event: a backlog goes out in 1 MiB steps, each built in ~3 ms
FOLLOW_RATE = 4 * 2**20  # bytes/s live to followers, on average
FOLLOW_BURST = 2**20


class LogFeed:
    def __init__(self, hub: Hub, run_id: int, log_path: Any) -> None:
        self.hub = hub
        self.run_id = run_id
        self.log_path = log_path
        self.pending: deque[bytes] = deque()
        self.pending_bytes = 0
        self.skipped_bytes = 0          # not yet reported to followers
        self.skipped_total = 0
        self.running = False            # run() is the sender; otherwise add() sends itself
        self._spreading = False
        self._due = anyio.Event()
        self._allowance = float(FOLLOW_BURST)  # bytes that may go out now (a token bucket)
        self._refilled = time.monotonic()

    def add(self, chunk: bytes) -> None:
        """Output just read (complete lines). Never waits."""
        if not self.hub.wants("log"):  # nobody follows: nothing is kept or decoded
            if self.pending:
                self._forget()
            return
        self.pending.append(chunk)
        self.pending_bytes += len(chunk)
        while self.pending_bytes > MAX_PENDING and len(self.pending) > 1:
            old = self.pending.popleft()
            self.pending_bytes -= len(old)
            self.skipped_bytes += len(old)
            self.skipped_total += len(old)
            self.hub.log_bytes_skipped += len(old)
        if self._spreading:
            return  # behind the batch being handed out
        if not self.running:
            self.flush()
            return
        if self.pending_bytes >= BATCH_BYTES and self._pace_wait() <= 0 \
                and self.hub.has_room("log"):
            self.hub.publish("log", self._take(), only_if_room=True)
        if self.pending:
            self._due.set()

    async def run(self) -> None:
        """The sender task, for as long as the run's output is read."""
        self.running = True
        try:
            while True:
                await self._due.wait()
                self._due = anyio.Event()
                if self.pending_bytes < BATCH_BYTES:
                    await anyio.sleep(BATCH_S)
                # Every follower is behind, or a flood is beyond the pace: wait, don't build.
                # Polled (at BATCH_S at most, only while waiting) rather than signalled by every
                # send of every connection.
                while self.pending:  # noqa: ASYNC110
                    if not self.hub.wants("log"):  # the followers left: a later one must
                        self._forget()             # not get this backlog after its tail
                        break
                    wait = self._pace_wait()
                    if wait <= 0 and self.hub.has_room("log"):
                        break
                    await anyio.sleep(min(wait, BATCH_S) if wait > 0 else BATCH_S)
                if not self.pending:
                    continue
                self._spreading = True
                try:  # shielded: a batch half handed out would be lost for the rest
                    with anyio.CancelScope(shield=True):
                        await self.hub.publish_spread("log", self._take(), only_if_room=True)
                finally:
                    self._spreading = False
                if self.pending:
                    self._due.set()
        finally:
            self.running = False
            self.flush()

    def flush(self) -> None:
        while self.pending:
            self.hub.publish("log", self._take())

    def _pace_wait(self) -> float:
        """Seconds until the pace allows the next batch out (0: now)."""
        now = time.monotonic()
        self._allowance = min(float(FOLLOW_BURST),
                              self._allowance + (now - self._refilled) * FOLLOW_RATE)
        self._refilled = now
        need = min(self.pending_bytes, TAKE_MAX, FOLLOW_BURST)
        return max(0.0, (need - self._allowance) / FOLLOW_RATE)

    def _forget(self) -> None:
        self.pending.clear()
        self.pending_bytes = self.skipped_bytes = 0

    def _take(self) -> dict[str, Any]:
        taken: list[bytes] = []
        if self.skipped_bytes:
            notice = (f"[gpu-node-supervisor] {self.skipped_bytes} bytes of output skipped here: "
                      f"too fast to follow live, or followers fell behind ({self.log_path} "
                      f"has everything)\n")
            taken.append(notice.encode("utf-8", "surrogateescape"))
            self.skipped_bytes = 0
        size = 0
        while self.pending and size < min(TAKE_MAX, FOLLOW_BURST):  # a step the pace allows
            chunk = self.pending.popleft()
            taken.append(chunk)
            size += len(chunk)
        self.pending_bytes -= size
        self._allowance -= size
        raw = taken[0] if len(taken) == 1 else b"".join(taken)
        return {"run_id": self.run_id, "text": wire.output_text(raw)}  # once, for every follower
