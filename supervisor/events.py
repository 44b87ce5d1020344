"""Fan-out of daemon events to subscribers, with bounded per-subscriber queues.

The producer never waits: each subscriber has a bounded deque; when it is full the event is
dropped and counted, and the subscriber is told how many once it has room again (practice 9).
Events are encoded once and the same bytes go to every subscriber.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import anyio

from .protocol import wire
from .protocol.vocabulary import TOPIC_OF, TOPICS

# Messages this big are sent on their own rather than joined with others into one write:
# the join would copy the same shared bytes once per subscriber.
ALONE = 32 * 1024

# TOPICS is here too for the commands that check a subscription against it.
__all__ = ["ALONE", "TOPICS", "TOPIC_OF", "Hub", "Outbox"]


class Outbox:
    """What one client is owed: replies (never dropped) and events (bounded, dropping)."""

    def __init__(self, max_events: int = 2048, max_bytes: int = 2 * 2**20,
                 on_ready: Callable[[], None] | None = None) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.items: deque[bytes] = deque()
        self.n_events = 0
        self.event_bytes = 0
        self.dropped_pending = 0
        self.dropped_total = 0
        self.topics: set[str] = set()
        self.unsent = 0  # bytes taken to send but not yet in the socket (its owner keeps this)
        self._on_ready = on_ready

    def put_reply(self, data: bytes) -> None:
        self.items.append(data)
        self._wake()

    def put_event(self, data: bytes, only_if_room: bool = False) -> bool:
        if self.n_events >= self.max_events or self.event_bytes >= self.max_bytes \
                or (only_if_room and not self.has_room()):
            self.dropped_pending += 1
            self.dropped_total += 1
            return False
        self.items.append(data)
        self.n_events += 1
        self.event_bytes += len(data)
        self._wake()
        return True

    def has_room(self) -> bool:
        """Room for another big event (a log batch) without dropping one."""
        return (self.event_bytes + self.unsent < self.max_bytes // 2
                and self.n_events < self.max_events // 2)

    def take(self, max_bytes: int = 256 * 1024) -> bytes:
        """Pop queued messages up to ~max_bytes, adding a `dropped` notice when owed."""
        parts: list[bytes] = []
        size = 0
        if self.dropped_pending and self.n_events < self.max_events // 2 \
                and self.event_bytes < self.max_bytes // 2:
            parts.append(wire.encode({"event": "dropped", "ts": time.time(), "data": {
                "count": self.dropped_pending, "total": self.dropped_total}}))
            self.dropped_pending = 0
        while self.items and size < max_bytes:
            if parts and len(self.items[0]) >= ALONE:
                break
            item = self.items.popleft()
            if item.startswith(b'{"event"'):
                self.n_events -= 1
                self.event_bytes -= len(item)
            parts.append(item)
            size += len(item)
            if len(item) >= ALONE:
                break
        # One message (a log batch is 64-300 KB) goes out as it is: no copy per subscriber.
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _wake(self) -> None:
        if self._on_ready is not None:
            self._on_ready()


class Hub:
    """Publishes events to every subscribed outbox; optional listeners see every event."""

    def __init__(self) -> None:
        self._seq = itertools.count(1)
        self.subscribers: set[Outbox] = set()
        self.listeners: list[Callable[[str, Any], None]] = []
        self.published = 0
        self.log_bytes_skipped = 0  # output never sent to followers that were behind

    def publish(self, kind: str, data: Any, only_if_room: bool = False) -> None:
        targets, payload = self._prepare(kind, data)
        for outbox in targets:
            outbox.put_event(payload, only_if_room)

    async def publish_spread(self, kind: str, data: Any, only_if_room: bool = False) -> None:
        """Like :meth:`publish`, one subscriber per loop iteration: a big event (a batch of
        log output) is copied into each subscriber's socket in turn, with the loop free to
        answer requests in between instead of after all of them."""
        targets, payload = self._prepare(kind, data)
        for i, outbox in enumerate(targets):
            if i:
                await anyio.lowlevel.checkpoint()
            if outbox in self.subscribers:  # it may have gone meanwhile
                outbox.put_event(payload, only_if_room)

    def _prepare(self, kind: str, data: Any) -> tuple[list[Outbox], bytes]:
        """Tell the listeners; the subscribers of the event's topic, and the event encoded
        once for all of them (nothing is encoded when nobody subscribes)."""
        for listener in self.listeners:
            listener(kind, data)
        topic = TOPIC_OF.get(kind, kind)
        targets = [o for o in self.subscribers if topic in o.topics]
        if not targets:
            return targets, b""
        self.published += 1
        return targets, wire.encode({"event": kind, "seq": next(self._seq), "ts": time.time(),
                                     "data": data})

    def wants(self, topic: str) -> bool:
        """Whether any subscriber follows ``topic`` (listeners never need log events): lets a
        producer skip building an event nobody reads."""
        return any(topic in o.topics for o in self.subscribers)

    def has_room(self, topic: str) -> bool:
        """Whether any subscriber of ``topic`` can take another event now."""
        return any(topic in o.topics and o.has_room() for o in self.subscribers)

    def subscribe(self, outbox: Outbox, topics: Iterable[str]) -> None:
        outbox.topics = set(topics)
        self.subscribers.add(outbox)

    def unsubscribe(self, outbox: Outbox) -> None:
        self.subscribers.discard(outbox)

    def statistics(self) -> dict[str, Any]:
        return {"subscribers": len(self.subscribers), "published": self.published,
                "dropped": sum(o.dropped_total for o in self.subscribers)}
