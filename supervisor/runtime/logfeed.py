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

Live output is also paced (a token bucket): ``FOLLOW_RATE`` on average, in events of at most
``FOLLOW_BURST``. In a flood, a follower gets one step at once, then steps at the pace, and
when the output ends, the newest step of what still waits: it sees the start and the end,
never more than it could read, and 50 followers no longer cost the flooding child a 50 MiB
copy at once (its longest blocked write: 17-95 ms -> 9-12 ms).
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
# Live output reaches followers at this pace: 4 MiB/s (~30,000 SGLang lines a second) on
# average, in events of at most FOLLOW_BURST (~2,000 lines, a screenful many times over; only a
# line longer than that goes whole, and the pipe cuts lines at 64 KiB). At
# the end of the output, only the newest FOLLOW_BURST of what still waits is sent.
FOLLOW_RATE = 4 * 2**20
FOLLOW_BURST = 256 * 1024


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
        if self.pending_bytes > MAX_PENDING:
            self._skip_oldest(MAX_PENDING)
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
            self.flush(keep=FOLLOW_BURST)

    def flush(self, keep: int | None = None) -> None:
        """Send what is pending now; with ``keep``, only about the newest ``keep`` bytes of it
        (at the end of the output: one burst of the pace), the older skipped with the notice."""
        if keep is not None:
            self._skip_oldest(keep)
        while self.pending:
            self.hub.publish("log", self._take())

    def _skip_oldest(self, limit: int) -> None:
        """Drop the oldest pending chunks while more than ``limit`` bytes wait (never the
        newest chunk)."""
        while self.pending_bytes > limit and len(self.pending) > 1:
            old = self.pending.popleft()
            self.pending_bytes -= len(old)
            self.skipped_bytes += len(old)
            self.skipped_total += len(old)
            self.hub.log_bytes_skipped += len(old)

    def _pace_wait(self) -> float:
        """Seconds until the pace allows the next batch out (0: now)."""
        now = time.monotonic()
        self._allowance = min(float(FOLLOW_BURST),
                              self._allowance + (now - self._refilled) * FOLLOW_RATE)
        self._refilled = now
        need = min(self.pending_bytes, FOLLOW_BURST)
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
        while self.pending and size < FOLLOW_BURST:  # one step of the pace
            chunk = self.pending[0]
            if size + len(chunk) > FOLLOW_BURST:  # a big read: the lines that fit go now
                cut = chunk.rfind(b"\n", 0, FOLLOW_BURST - size) + 1
                if not cut and size:
                    break  # not even one line: the next step
                if cut:
                    taken.append(chunk[:cut])
                    self.pending[0] = chunk[cut:]
                    size += cut
                    break
            taken.append(self.pending.popleft())
            size += len(chunk)
        self.pending_bytes -= size
        self._allowance -= size
        raw = taken[0] if len(taken) == 1 else b"".join(taken)
        return {"run_id": self.run_id, "text": wire.output_text(raw)}  # once, for every follower
