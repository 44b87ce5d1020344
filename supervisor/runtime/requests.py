"""What an operator or script asked for (a request) and the launches made for it (attempts).

A request (``switch baseline``) may take several attempts when its profile's fallback is on;
each attempt is one run. `status` shows them through ``fallback_view``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import anyio

from .run import Run


@dataclass
class AttemptRecord:
    """One launch made for a request, as `status` shows it; updated in one place
    (``note_run``) while its run lives and when it ends."""

    run_id: int
    profile: str
    changes: list[str]
    reason: str
    status: str
    cause: str | None = None
    phase: str | None = None

    @classmethod
    def of(cls, run: Run, reason: str) -> AttemptRecord:
        rec = cls(run.id, run.profile.name, list(run.profile.changes), reason, "")
        rec.note_run(run)
        return rec

    def note_run(self, run: Run) -> None:
        self.status = run.status.value
        self.cause = run.cause and run.cause.value
        self.phase = run.phase.value

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "profile": self.profile, "changes": list(self.changes),
                "reason": self.reason, "status": self.status, "cause": self.cause,
                "phase": self.phase}


@dataclass
class Request:
    """One operator request and the attempts made for it."""

    id: int
    profile: str
    strategy: str
    started: float = field(default_factory=time.time)
    attempts: list[AttemptRecord] = field(default_factory=list)
    culprits: list[str] = field(default_factory=list)
    verdict: dict[str, Any] | None = None      # the requested profile's own failure, if any
    ok: bool | None = None                      # True: the requested profile itself is ready
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope | None = None
    notes: list[str] = field(default_factory=list)
