"""Restart policy after a ready server fails: explicit data, a pure object, a fake clock.

Backoff doubles per restart inside the window (10 s, 20 s, 40 s … up to backoff_max); more
than max_restarts failures within the window is flapping, and the daemon gives up and says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..profiles import RestartSpec


@dataclass
class RestartDecision:
    restart: bool
    delay: float
    attempt: int       # 1 for the first restart in the window
    reason: str


@dataclass
class RestartPolicy:
    spec: RestartSpec
    clock: Callable[[], float] = time.monotonic
    failures: list[float] = field(default_factory=list)

    def on_failure(self) -> RestartDecision:
        now = self.clock()
        self.failures = [t for t in self.failures if now - t < self.spec.window] + [now]
        n = len(self.failures)
        if self.spec.on_failure != "restart":
            return RestartDecision(False, 0.0, n, "restart.on_failure = none")
        if n > self.spec.max_restarts:
            return RestartDecision(False, 0.0, n, (
                f"{n} failures within {self.spec.window:g} s (max_restarts "
                f"{self.spec.max_restarts}): flapping, not restarting"))
        delay = min(self.spec.backoff * 2 ** (n - 1), self.spec.backoff_max)
        return RestartDecision(True, delay, n, f"restart {n}/{self.spec.max_restarts} in "
                                               f"{delay:g} s")

