"""A plain command: no log markers. The phase stays LAUNCH until the daemon marks it ready
(:meth:`PhaseTracker.mark_ready`, after a health probe or a few seconds of running)."""

from __future__ import annotations

from .base import Engine, PhaseTracker


class CommandEngine(Engine):
    name = "command"
    default_command: tuple[str, ...] = ()
    tracker_class = PhaseTracker
