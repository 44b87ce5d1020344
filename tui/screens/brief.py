"""The handoff brief (``brief``), rendered as Markdown."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Markdown

from .. import formatting as fmt
from .base import DaemonScreen, Request


class BriefScreen(DaemonScreen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("r", "reload", "Reload")]

    def __init__(self, request: Request, **state: Any) -> None:
        super().__init__(request, id="brief", **state)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown("_loading the brief…_", id="brief-md")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    @work(exclusive=True, group="brief", exit_on_error=False)
    async def action_reload(self) -> None:
        md = self.query_one(Markdown)
        try:
            result = fmt.as_dict(await self.daemon_request("brief"))
            text = result.get("markdown")
            await md.update(text if isinstance(text, str) and text else "_the brief is empty_")
        except Exception as exc:  # noqa: BLE001
            await md.update(f"**cannot get the brief:** {exc}")
