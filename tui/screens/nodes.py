"""The node list of a fleet view: pick which node the main screen shows.

Each node's line also says the launch group it is in (``group status`` of that node's daemon,
every node at once, asked when the list opens and again every REFRESH_S while it is open, so a
group that forms, fails or loses etcd shows without reopening): the group's name, this node's
rank of N, the group's status, and "coordination degraded" while etcd does not answer. A daemon
without [cluster] is in no group; one that cannot be reached says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from supervisor.protocol.client import DaemonError

from .. import formatting as fmt

ASK_S = 5.0   # a node that has not answered by then is shown as not answering
REFRESH_S = 2.0   # between two rounds of asking while the list is open

Membership = Callable[[int], Awaitable[dict[str, Any] | None]]
"""Node index -> its daemon's ``group status`` (None: a daemon without [cluster])."""


def app_membership(app: Any) -> Membership | None:
    """``group status`` of node i over a connection of its own (the App's connector), so
    every node answers, not only the one watched."""
    targets, connector = getattr(app, "targets", None), getattr(app, "connector", None)
    if targets is None or connector is None:
        return None

    async def ask(index: int) -> dict[str, Any] | None:
        async with connector(targets[index]) as client:
            try:
                return fmt.as_dict(await client.request("group"))
            except DaemonError as exc:
                if exc.code == "bad_request":   # no [cluster]: in no group
                    return None
                raise
    return ask


def membership_text(view: dict[str, Any] | None) -> Text:
    """'group n0+n1+n2 · rank 1/3 · ready' (· coordination degraded), or 'no group'."""
    if view is None or not view.get("group"):
        return Text("no group", "dim")
    coord = fmt.as_dict(view.get("coordination"))
    me: Any = next((r for r in fmt.as_list(view.get("ranks"))
               if fmt.as_dict(r).get("node") == coord.get("node")), {})
    ranks = coord.get("nnodes") or len(fmt.as_list(view.get("ranks"))) or "?"
    rank = fmt.as_dict(me).get("rank")
    status = fmt.text(view.get("status"), "not launched")
    out = Text()
    out.append(f"group {view['group']}", "bold")
    out.append(f" · rank {fmt.text(rank, '?')}/{ranks}")
    out.append(" · ")
    out.append(status, fmt.STATUS_STYLE.get(status, ""))
    if coord.get("state") == "degraded":
        out.append(" · ")
        out.append("coordination degraded", "bold black on yellow")
    return out


class NodesScreen(ModalScreen["int | None"]):
    DEFAULT_CSS = """
    NodesScreen { align: center middle; }
    NodesScreen > Vertical { width: 90; max-width: 95%; height: auto; max-height: 80%;
                             border: thick $primary; background: $surface; padding: 0 1; }
    NodesScreen OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, labels: list[str], current: int,
                 membership: Membership | None = None) -> None:
        super().__init__()
        self.labels = labels
        self.current = current
        self.membership = membership
        self.groups: dict[int, Text] = {}   # what each node's line says of its group

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Nodes — Enter to watch")
            yield OptionList(*(Option(self._prompt(i)) for i in range(len(self.labels))))

    def _prompt(self, index: int) -> Text:
        out = Text(("▶ " if index == self.current else "  ") + self.labels[index])
        out.append("  ")
        out.append_text(self.groups.get(index, Text("group: asking…", "dim")))
        return out

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self.current
        ask = self.membership or app_membership(self.app)
        if ask is not None:
            self.ask_groups(ask)

    @work(exclusive=True, group="nodes-groups", exit_on_error=False)
    async def ask_groups(self, ask: Membership) -> None:
        """Every node at once, then again after REFRESH_S, until the list closes (the worker is
        cancelled with the screen). A line keeps its last answer until the next one arrives."""
        while True:
            await self._ask_round(ask)
            await anyio.sleep(REFRESH_S)

    async def _ask_round(self, ask: Membership) -> None:
        async def one(index: int) -> None:
            try:
                with anyio.fail_after(ASK_S):
                    text = membership_text(await ask(index))
            except TimeoutError:
                text = Text(f"group: no answer in {ASK_S:g} s", "yellow")
            except Exception as exc:  # noqa: BLE001 — a node down is a line, not a crash
                text = Text(f"group: not reachable ({type(exc).__name__})", "yellow")
            self.groups[index] = text
            # the list may have closed (or the app quit) while this node answered: then the
            # answer has nowhere to go, and the worker is being cancelled anyway
            for shown in self.query(OptionList):
                shown.replace_option_prompt_at_index(index, self._prompt(index))

        async with anyio.create_task_group() as tg:
            for i in range(len(self.labels)):
                tg.start_soon(one, i)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)
