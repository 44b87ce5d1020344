"""The run: profile and changes, status, phase timeline, deadline, progress, verdict, fallback."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from textual.reactive import reactive
from textual.widgets import Static

from .. import formatting as fmt


class RunPanel(Static):
    """Renders the run snapshot bound from the screen; holds no state of its own."""

    DEFAULT_CSS = """
    RunPanel {
        height: auto;
        max-height: 14;
        padding: 0 1;
        border: round $primary-darken-2;
        border-title-color: $text-muted;
    }
    RunPanel.-failed { border: round $error; }
    RunPanel.-ready { border: round $success; }
    """

    run: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    fallback: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    verdict: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    # layout: the ticking lines change length, so the panel's height may change each second
    now: reactive[float] = reactive(0.0, layout=True)
    run_seen_at: reactive[float | None] = reactive(None, layout=True)
    connected: reactive[bool] = reactive(False, layout=True)

    def on_mount(self) -> None:
        self.border_title = "run"

    def watch_run(self, run: dict[str, Any] | None) -> None:
        status = fmt.as_dict(run).get("status")
        self.set_class(status in fmt.FAILED, "-failed")
        self.set_class(status == "ready", "-ready")

    def render(self) -> Group:
        return Group(*fmt.run_lines(self.run, self.fallback, self.verdict, self.now,
                                     seen_at=self.run_seen_at, connected=self.connected))
