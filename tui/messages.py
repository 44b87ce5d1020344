"""App-wide messages: the daemon-link worker's news, and the screens' requests to the App
(screens never call into the App: they post a message, and the App sets their state).

Snapshot messages (run, GPUs, checklist, fallback) replace an older one of the same kind still
waiting in the queue: only the newest state matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


class _Replaceable(Message):
    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self)


@dataclass
class Connected(Message):
    """The link is up and the daemon said hello."""

    node: int
    hello: dict[str, Any]


@dataclass
class Disconnected(Message):
    """The link is down; the worker retries after ``retry_in`` seconds."""

    node: int
    reason: str
    retry_in: float
    ever_connected: bool


@dataclass
class StatusSnapshot(Message):
    """A full ``status`` reply: everything at once."""

    node: int
    status: dict[str, Any]


@dataclass
class RunChanged(_Replaceable):
    node: int
    run: dict[str, Any] | None


@dataclass
class GpusChanged(_Replaceable):
    node: int
    gpus: list[Any]


@dataclass
class ChecklistChanged(_Replaceable):
    node: int
    items: list[Any]


@dataclass
class FallbackChanged(_Replaceable):
    node: int
    fallback: dict[str, Any] | None


@dataclass
class VerdictReached(Message):
    node: int
    verdict: dict[str, Any]


@dataclass
class LogLines(Message):
    """New log lines; ``replace`` means a fresh tail (after a (re)connect)."""

    node: int
    run_id: Any
    lines: list[str] = field(default_factory=list)
    replace: bool = False


@dataclass
class EventsDropped(Message):
    node: int
    count: int
    total: int


# -- from the screens up to the App -------------------------------------------------------

class MainReady(Message):
    """The main screen is composed: the App may draw the link state and start the link."""


@dataclass
class SwitchRequested(Message):
    """The operator picked a profile to switch to (the App asks for confirmation)."""

    profile: str
