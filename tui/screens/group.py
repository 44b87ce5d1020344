"""The launch group (``group status``): its ranks side by side (status, phase, cause, pid), the
group's one verdict (the root rank, its cause and evidence, the others as consequences) and
whether coordination through etcd is degraded.

Group state is not pushed as events, so the screen asks again a moment after each answer
(by completion, not by the clock) while it is open.
"""

from __future__ import annotations

from typing import Any

from rich.columns import Columns
from rich.console import Group
from rich.panel import Panel
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Static

from supervisor.protocol.client import DaemonError

from .. import formatting as fmt
from .base import DaemonScreen, Request

RANK_WIDTH = 24
STATUS_STYLE = {**fmt.STATUS_STYLE, "lost": "bold white on red", "pending": "dim"}


def header(view: dict[str, Any]) -> Text:
    out = Text()
    out.append(f"group {fmt.text(view.get('group'), '?')} ", "bold")
    status = fmt.text(view.get("status"), "not launched")
    out.append(f" {status.upper()} ", STATUS_STYLE.get(status, "bold"))
    out.append(f"  {fmt.text(view.get('profile'), 'no profile')}", "cyan")
    if view.get("attempt") is not None:
        out.append(f" · attempt {fmt.text(view.get('attempt'))}")
    if view.get("phase"):
        out.append(f" · slowest rank in {fmt.PHASE_SHORT.get(str(view['phase']), view['phase'])}")
    return out


def coordination_text(view: dict[str, Any]) -> Text:
    c = fmt.as_dict(view.get("coordination"))
    etcd = fmt.text(fmt.str_list(c.get("etcd")), "no etcd")
    out = Text()
    if c.get("state") == "degraded":
        out.append("⚠ coordination degraded", "bold black on yellow")
        problem = fmt.text(c.get("problem"), "etcd does not answer")
        out.append(f": {problem.removeprefix('coordination degraded: ')}", "yellow")
        out.append(" — ranks keep serving; the group state is written again once etcd answers",
                   "dim")
    else:
        out.append("coordination ok", "green")
        out.append(f" via etcd {etcd}", "dim")
    if c.get("node"):
        out.append(f" · this node {fmt.text(c.get('node'))}", "dim")
    return out


def _role(rank: dict[str, Any], verdict: dict[str, Any]) -> str:
    consequences = {fmt.as_dict(c).get("rank") for c in fmt.as_list(verdict.get("consequences"))}
    if verdict and verdict.get("rank") == rank.get("rank"):
        return "root"
    return "consequence" if rank.get("rank") in consequences else ""


def _title(rank: dict[str, Any], verdict: dict[str, Any]) -> str:
    role = _role(rank, verdict)
    return (f"rank {fmt.text(rank.get('rank'), '?')} {fmt.text(rank.get('node'), '?')}"
            + (f" · {role}" if role else ""))


def rank_card(rank: dict[str, Any], verdict: dict[str, Any], width: int = RANK_WIDTH) -> Panel:
    """One rank: status, phase, cause, pid; the root of the verdict in red, consequences in
    yellow."""
    status = fmt.text(rank.get("status"), "pending")
    body = Text(no_wrap=True, overflow="ellipsis")
    body.append(f" {status} ", STATUS_STYLE.get(status, "bold"))
    phase = rank.get("phase")
    body.append(f"\nphase {fmt.PHASE_SHORT.get(str(phase), fmt.text(phase))}")
    body.append("\ncause ")
    body.append(fmt.text(rank.get("cause")), "bold red" if rank.get("cause") else "dim")
    body.append(f"\npid {fmt.text(rank.get('pid'))}", "dim")
    border = {"root": "bold red", "consequence": "yellow"}.get(_role(rank, verdict), "blue")
    return Panel(body, title=_title(rank, verdict), title_align="left", border_style=border,
                 width=width)


def verdict_text(view: dict[str, Any]) -> Text:
    v = fmt.as_dict(view.get("verdict"))
    if not v:
        return Text("no group verdict: no rank has failed", "dim")
    out = Text()
    out.append("verdict ", "bold")
    status = fmt.text(v.get("status"), "failed")
    out.append(status.upper(), STATUS_STYLE.get(status, "bold"))
    out.append(f" — rank {fmt.text(v.get('rank'), '?')} ({fmt.text(v.get('node'), '?')}) in "
               f"{fmt.text(v.get('phase'))}, cause ")
    out.append(fmt.text(v.get("cause"), "unknown"), "bold red")
    for line in fmt.str_list(v.get("evidence"))[:3]:
        out.append(f"\n  {line}", "dim")
    cons = [fmt.as_dict(c) for c in fmt.as_list(v.get("consequences"))]
    if cons:
        out.append("\nconsequences: ")
        out.append(", ".join(f"rank {fmt.text(c.get('rank'), '?')} "
                             f"{fmt.text(c.get('cause'), 'stopped')}" for c in cons))
    return out


def group_view(view: dict[str, Any]) -> Group:
    if not view.get("group"):
        return Group(Text("this daemon is in no launch group now (no group profile has been "
                          "launched on it)", "dim"), coordination_text(view))
    verdict = fmt.as_dict(view.get("verdict"))
    ranks = [fmt.as_dict(r) for r in fmt.as_list(view.get("ranks"))]
    # one width for all, so the cards line up in columns when they wrap
    width = max([RANK_WIDTH] + [len(_title(r, verdict)) + 6 for r in ranks])
    cards = [rank_card(r, verdict, width) for r in ranks]
    return Group(header(view), coordination_text(view), Text(""),
                 Columns(cards) if cards else Text("no ranks known yet", "dim"),
                 verdict_text(view))


class GroupScreen(DaemonScreen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = "GroupScreen VerticalScroll { padding: 0 1; }"

    def __init__(self, request: Request, *, poll_s: float = 2.0, **state: Any) -> None:
        super().__init__(request, id="group", **state)
        self.poll_s = poll_s
        self.group_state: dict[str, Any] = {}
        self._poll: Timer | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("asking the daemon for its launch group…", id="group-view")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    @work(exclusive=True, group="group", exit_on_error=False)
    async def action_reload(self) -> None:
        shown = self.query_one("#group-view", Static)
        if self._poll is not None:
            self._poll.stop()
        try:
            self.group_state = fmt.as_dict(await self.daemon_request("group"))
        except DaemonError as exc:  # a daemon without [cluster] says so
            shown.update(Text(exc.message, "dim"))
            return
        except Exception as exc:  # noqa: BLE001 — not connected, link lost
            shown.update(Text(f"cannot ask for the launch group: {exc} (r to try again)",
                              "bold red"))
            return
        shown.update(group_view(self.group_state))
        self._poll = self.set_timer(self.poll_s, self.action_reload)
