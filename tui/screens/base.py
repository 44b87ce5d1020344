"""What a full screen over the main one gets from the App, without knowing the App.

The App builds each such screen with ``request`` (a request on its current daemon link) and
sets its state down as it changes: whether this peer may mutate now, the profile that runs
and the run's report. The screen asks for more by posting a message (``tui.messages``).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from textual.reactive import reactive
from textual.screen import Screen


class Request(Protocol):
    """One request on the App's current link; raises when there is none or it fails."""

    def __call__(self, cmd: str, /, **args: Any) -> Awaitable[Any]: ...


class DaemonScreen(Screen[None]):
    can_mutate: reactive[bool] = reactive(False, bindings=True)
    running: reactive[str | None] = reactive(None)  # the profile of the current run
    run: reactive[dict[str, Any] | None] = reactive(None)  # the current run's report

    def __init__(self, request: Request, *, can_mutate: bool = False,
                 running: str | None = None, run: dict[str, Any] | None = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.daemon_request = request
        self.set_reactive(DaemonScreen.can_mutate, can_mutate)
        self.set_reactive(DaemonScreen.running, running)
        self.set_reactive(DaemonScreen.run, run)
