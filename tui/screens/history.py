"""History: runs side by side — profile and changes, verdict, phase timings, benchmark."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static

from .. import formatting as fmt
from .base import DaemonScreen, Request

TIMED_PHASES = ("launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture", "warmup")


def run_detail(run: dict[str, Any]) -> Text:
    out = Text()
    out.append(f"run #{fmt.text(run.get('id'))} ", "bold")
    out.append(fmt.text(run.get("profile"), "?"))
    changes = fmt.str_list(run.get("changes"))
    if changes:
        out.append(" + " + ", ".join(changes), "cyan")
    status = fmt.text(run.get("status"), "?")
    out.append("  ")
    out.append(f" {status} ", fmt.status_style(status))
    ended = fmt.exit_text(run)
    out.append(f"\nstarted {fmt.fmt_clock(run.get('started'))}"
               f" · ended {fmt.fmt_clock(run.get('ended'))}"
               + (f" · {ended}" if ended else "")
               + f" · hash {fmt.text(run.get('hash'))}", "dim")
    if run.get("cause"):
        out.append(f"\ncause {run.get('cause')} in {fmt.text(run.get('phase'))}", "bold red")
    durations = fmt.phase_durations(run)
    if durations:
        out.append("\nphases: " + " · ".join(
            f"{fmt.PHASE_SHORT.get(k, k)} {fmt.fmt_duration(v)}" for k, v in durations.items()))
    out.append(f"\nbenchmark: {fmt.benchmark_text(run.get('benchmark'))}")
    return out


class HistoryScreen(DaemonScreen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = """
    HistoryScreen DataTable { height: 1fr; }
    HistoryScreen VerticalScroll { height: auto; max-height: 8; border-top: solid $panel;
                                   padding: 0 1; }
    """

    def __init__(self, request: Request, n: int = 50, **state: Any) -> None:
        super().__init__(request, id="history", **state)
        self.n = n
        self.runs: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll():
            yield Static("loading history…", id="history-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("run", "profile + changes", "status", "phase", "cause",
                          *(fmt.PHASE_SHORT[p] for p in TIMED_PHASES), "total", "benchmark")
        self.action_reload()

    @work(exclusive=True, group="history", exit_on_error=False)
    async def action_reload(self) -> None:
        detail = self.query_one("#history-detail", Static)
        try:
            result = fmt.as_dict(await self.daemon_request("history", n=self.n))
        except Exception as exc:  # noqa: BLE001
            detail.update(Text(f"cannot read history: {exc}", "bold red"))
            return
        runs = [fmt.as_dict(r) for r in fmt.as_list(result.get("runs")) if isinstance(r, dict)]
        self.runs = list(reversed(runs))  # newest first
        table = self.query_one(DataTable)
        table.clear()
        for r in self.runs:
            durations = fmt.phase_durations(r)
            known = [v for v in durations.values() if v is not None]
            status = fmt.text(r.get("status"), "?")
            name = fmt.text(r.get("profile"), "?")
            changes = fmt.str_list(r.get("changes"))
            table.add_row(
                fmt.text(r.get("id")),
                name + (" +" + ",".join(changes) if changes else ""),
                Text(status, fmt.status_style(status)),
                fmt.PHASE_SHORT.get(str(r.get("phase")), fmt.text(r.get("phase"))),
                fmt.text(r.get("cause")),
                *(fmt.fmt_duration(durations.get(p)) for p in TIMED_PHASES),
                fmt.fmt_duration(sum(known)) if known else "–",
                fmt.benchmark_text(r.get("benchmark"), short=True),
            )
        if not self.runs:
            detail.update(Text("no runs recorded yet", "dim"))
        else:
            detail.update(run_detail(self.runs[0]))

    @on(DataTable.RowHighlighted)
    def show_row(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.runs):
            detail = run_detail(self.runs[event.cursor_row])
            self.query_one("#history-detail", Static).update(detail)
