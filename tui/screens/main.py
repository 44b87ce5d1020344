"""The main screen: the run, the checklist, the GPUs and the live log of the current node.

The screen owns the node's state as reactives and binds it into its panels (attributes down);
the App sets those reactives from the daemon-link worker's messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from .. import formatting as fmt
from ..widgets.checklist import ChecklistPanel
from ..widgets.gpu_panel import GpuPanel
from ..widgets.log_view import LogPanel
from ..widgets.run_panel import RunPanel

if TYPE_CHECKING:
    from ..app import SupervisorApp


class MainScreen(Screen[None]):
    BINDINGS = [
        Binding("a", "app.add_item", "Add item"),
        Binding("d", "app.mark_item('done')", "Done", show=False),
        Binding("f", "filter_log", "Filter"),
        Binding("slash", "search_log", "Search", show=False),
        Binding("l", "cycle_level", "Level", show=False),
    ]

    run: reactive[dict[str, Any] | None] = reactive(None)
    fallback: reactive[dict[str, Any] | None] = reactive(None)
    verdict: reactive[dict[str, Any] | None] = reactive(None)
    gpus: reactive[list[Any]] = reactive(list)
    items: reactive[list[Any]] = reactive(list)
    now: reactive[float] = reactive(0.0)
    run_seen_at: reactive[float | None] = reactive(None)  # when `run` arrived (app clock)
    connected: reactive[bool] = reactive(False)

    def __init__(self, *, log_max_lines: int, log_flush_s: float) -> None:
        super().__init__(id="main")
        self._log_max_lines = log_max_lines
        self._log_flush_s = log_flush_s

    @property
    def sv_app(self) -> SupervisorApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield Static(id="banner")
        with Horizontal(id="upper"):
            yield RunPanel(id="run").data_bind(MainScreen.run, MainScreen.fallback,
                                               MainScreen.verdict, MainScreen.now,
                                               MainScreen.run_seen_at,
                                               MainScreen.connected)
            yield ChecklistPanel(id="checklist").data_bind(MainScreen.items)
        yield GpuPanel(id="gpus").data_bind(MainScreen.gpus)
        with Vertical(id="lower"):
            yield LogPanel(max_lines=self._log_max_lines, flush_interval=self._log_flush_s,
                           id="logpanel")
        yield Footer()

    def on_mount(self) -> None:
        self.sv_app.main_ready()

    @property
    def ready(self) -> bool:
        """Composed and not torn down (messages may still arrive while the app exits)."""
        return self.is_mounted and bool(self.query("#topbar"))

    @property
    def log_panel(self) -> LogPanel:
        return self.query_one(LogPanel)

    @property
    def checklist(self) -> ChecklistPanel:
        return self.query_one(ChecklistPanel)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add_item", "mark_item") and not self.sv_app.can_mutate:
            return None  # shown disabled; the top bar says why
        return True

    def action_filter_log(self) -> None:
        self.log_panel.open_input("filter")

    def action_search_log(self) -> None:
        self.log_panel.open_input("search")

    def action_cycle_level(self) -> None:
        self.log_panel.cycle_level()

    # -- top bar and banner ---------------------------------------------------------------

    def show_link(self, *, node_label: str, node_pos: str, connected: bool,
                  hello: dict[str, Any], daemon: dict[str, Any] | None,
                  banner: str | None) -> None:
        """Redraw the top bar and the disconnected banner (called by the App)."""
        if not self.ready:
            return
        app = self.sv_app
        self.connected = connected
        bar = Text(no_wrap=True, overflow="ellipsis")
        bar.append(" gpu-node-supervisor ", "bold reverse")
        bar.append(" ")
        if connected:
            bar.append("● connected", "green")
        else:
            bar.append("○ disconnected", "bold red")
        if connected and not app.can_mutate:
            bar.append(" ")
            bar.append("READ-ONLY", "bold black on yellow")
            if app.read_only_reason:
                bar.append(f" {app.read_only_reason}", "yellow")
        bar.append(f" · {node_label}{node_pos}", "bold")
        d = fmt.as_dict(daemon)
        version = d.get("version") or hello.get("version")
        if version:
            bar.append(f" · daemon {version}", "dim")
        pid = d.get("pid") or hello.get("pid")
        if pid:  # (uptime would go stale: status is fetched once, then events follow)
            bar.append(f" pid {pid}", "dim")
        self.query_one("#topbar", Static).update(bar)
        banner_widget = self.query_one("#banner", Static)
        banner_widget.update(banner or "")
        banner_widget.set_class(bool(banner), "-visible")
