"""The restart policy with a fake clock."""

from __future__ import annotations

from supervisor.profiles import RestartSpec
from supervisor.runtime.restart import RestartPolicy


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_backoff_doubles_then_gives_up_when_flapping() -> None:
    clock = Clock()
    pol = RestartPolicy(RestartSpec(max_restarts=3, window=600, backoff=10, backoff_max=25),
                        clock)
    decisions = []
    for _ in range(4):
        decisions.append(pol.on_failure())
        clock.t += 30
    assert [d.restart for d in decisions] == [True, True, True, False]
    assert [d.delay for d in decisions[:3]] == [10, 20, 25]
    assert "flapping" in decisions[3].reason


def test_failures_outside_the_window_are_forgotten() -> None:
    clock = Clock()
    pol = RestartPolicy(RestartSpec(max_restarts=1, window=100, backoff=5), clock)
    assert pol.on_failure().restart
    clock.t += 101
    d = pol.on_failure()
    assert d.restart and d.attempt == 1 and d.delay == 5


def test_none_never_restarts() -> None:
    assert not RestartPolicy(RestartSpec(on_failure="none")).on_failure().restart
