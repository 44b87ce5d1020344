"""The main screen: the run, the checklist, the GPUs and the live log of the current node.

The screen owns the node's state as reactives and binds it into its panels (attributes down);
the App sets those reactives from the daemon-link worker's messages, and gives it log lines and
the link state through the methods below. It never calls into the App: once composed, it posts
``MainReady``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from .. import formatting as fmt
from ..messages import MainReady
from ..widgets.checklist import ChecklistPanel
from ..widgets.gpu_panel import GpuPanel
from ..widgets.log_view import LogPanel
from ..widgets.run_panel import RunPanel
from ..widgets.serving_panel import ServingPanel

COMPACT_HEIGHT = 30  # below this many rows the serving panel drops its border


class MainScreen(Screen[None]):
    # Mutations are the App's actions: it shows them disabled while this peer may not mutate.
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
    serving_fill: reactive[tuple[Any, list[Any]] | None] = reactive(None)

    def __init__(self, *, log_max_lines: int, log_flush_s: float) -> None:
        super().__init__(id="main")
        self._log_max_lines = log_max_lines
        self._log_flush_s = log_flush_s
        self._log_run_id: Any = None  # the run whose output the log shows last

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
        yield ServingPanel(id="serving").data_bind(MainScreen.run, MainScreen.gpus,
                                                   MainScreen.serving_fill, MainScreen.now)
        with Vertical(id="lower"):
            yield LogPanel(max_lines=self._log_max_lines, flush_interval=self._log_flush_s,
                           id="logpanel")
        yield Footer()

    def on_mount(self) -> None:
        self.post_message(MainReady())

    def on_resize(self) -> None:
        self.query_one(ServingPanel).set_class(self.size.height < COMPACT_HEIGHT, "-compact")

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

    @property
    def selected_item(self) -> dict[str, Any] | None:
        return self.checklist.selected

    def action_filter_log(self) -> None:
        self.log_panel.open_input("filter")

    def action_search_log(self) -> None:
        self.log_panel.open_input("search")

    def action_cycle_level(self) -> None:
        self.log_panel.cycle_level()

    def action_follow_log(self) -> None:
        self.log_panel.action_follow()

    # -- the node's state, from the App -----------------------------------------------------

    def show_log(self, run_id: Any, lines: list[str], *, replace: bool = False) -> None:
        """Log lines of run ``run_id``; ``replace``: a fresh tail. A new run's output comes
        after a separator line."""
        if replace:
            self._log_run_id = run_id
            self.log_panel.replace(lines)
            return
        if run_id is not None and run_id != self._log_run_id:
            if self._log_run_id is not None:
                self.log_panel.append([f"──────── run #{run_id} ────────"])
            self._log_run_id = run_id
        self.log_panel.append(lines)

    def note_in_log(self, line: str) -> None:
        """A line of the client's own (events dropped) between the server's lines."""
        self.log_panel.append([line])

    def forget(self) -> None:
        """Another node is watched: nothing of this one stays on screen."""
        self._log_run_id = None
        self.run = None
        self.serving_fill = None
        self.verdict = None
        self.fallback = None
        self.items = []
        self.gpus = []
        self.log_panel.replace([])

    # -- top bar and banner ---------------------------------------------------------------

    def show_link(self, *, node_label: str, node_pos: str, connected: bool,
                  can_mutate: bool, read_only_reason: str, hello: dict[str, Any],
                  daemon: dict[str, Any] | None, banner: str | None) -> None:
        """Redraw the top bar and the disconnected banner (called by the App)."""
        if not self.ready:
            return
        self.connected = connected
        bar = Text(no_wrap=True, overflow="ellipsis")
        bar.append(" gpu-node-supervisor ", "bold reverse")
        bar.append(" ")
        if connected:
            bar.append("● connected", "green")
        else:
            bar.append("○ disconnected", "bold red")
        if connected and not can_mutate:
            bar.append(" ")
            bar.append("READ-ONLY", "bold black on yellow")
            if read_only_reason:
                bar.append(f" {read_only_reason}", "yellow")
        bar.append(f" · {node_label}{node_pos}", "bold")
        d = fmt.as_dict(daemon)
        version = d.get("version") or hello.get("version")
        if version:
            bar.append(f" · daemon {version}", "dim")
        pid = d.get("pid") or hello.get("pid")
        if pid:  # (uptime would go stale: status is fetched once, then events follow)
            bar.append(f" pid {pid}", "dim")
        problems = fmt.str_list(d.get("problems")) if connected else []
        if problems:
            many = "s" if len(problems) > 1 else ""
            bar.append(" · ")
            bar.append(f"⚠ {len(problems)} daemon problem{many}", "bold yellow")
        self.query_one("#topbar", Static).update(bar)
        # A lost link says so first; a connected daemon that reports a problem of its own (a
        # failing history store, a blocked event loop, a run it could not adopt) says which.
        if not banner and problems:
            more = (f" (+{len(problems) - 1} more: supervisor-ctl status)"
                    if len(problems) > 1 else "")
            banner = f"⚠ daemon problem: {problems[0]}{more}"
        banner_widget = self.query_one("#banner", Static)
        banner_widget.update(banner or "")
        banner_widget.set_class(bool(banner), "-visible")
