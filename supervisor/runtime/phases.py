"""A run's startup phases: where it is, since when, and the timeline so far, recorded as it
moves (SQLite for history, memory for `status`)."""

from __future__ import annotations

import time
from typing import Any

from ..states import Phase
from ..store import Store


class PhaseClock:
    def __init__(self, store: Store, run_id: int) -> None:
        self.store = store
        self.run_id = run_id
        self.phase = Phase.LAUNCH
        self.since = time.time()
        self.timeline: list[dict[str, Any]] = []

    def start(self) -> None:
        """A new run: it is in `launch` from now."""
        self.store.phase_started(self.run_id, self.phase.value, self.since)
        self.timeline = [_entry(self.phase, self.since)]

    def resume(self) -> None:
        """A run adopted after a daemon restart: its timeline comes from history."""
        self.timeline = self.store.phases(self.run_id)
        last = self.timeline[-1] if self.timeline else None
        self.phase = Phase(last["phase"]) if last else Phase.READY
        self.since = last["started"] if last else time.time()
        if last is not None:
            last["ended"] = last["duration"] = None

    def enter(self, phase: Phase) -> None:
        self.phase = phase
        self.since = time.time()
        self.store.phase_started(self.run_id, phase.value, self.since)
        self.close(self.since)
        self.timeline.append(_entry(phase, self.since))
        self.store.update_run(self.run_id, phase=phase.value)

    def close(self, when: float) -> None:
        last = self.timeline[-1] if self.timeline else None
        if last is not None and last["ended"] is None:
            last["ended"] = when
            last["duration"] = when - last["started"]

    def finish(self, when: float) -> None:
        """The run is over: the open phase ends now, in memory and in history."""
        self.store.phases_closed(self.run_id, when)
        self.close(when)

    def view(self) -> list[dict[str, Any]]:
        return [dict(p) for p in self.timeline]


def _entry(phase: Phase, since: float) -> dict[str, Any]:
    return {"phase": phase.value, "started": since, "ended": None, "duration": None}
