"""supervisor-tui: the Textual client of gpu-node-supervisor.

Structure (DESIGN §9, STYLE 15-23):

- ``SupervisorApp`` takes its targets, connector and clock in the constructor, so tests run it
  against a fake daemon. One worker (``link``) owns the connection to the current node: it
  connects, fetches a log tail and a status, subscribes, turns pushed events into messages
  (``tui.messages``), and on any loss says so and reconnects with backoff.
- The App's message handlers set the main screen's reactives, which the screen binds into its
  panels (``tui.widgets``). Other screens (``tui.screens``) are given ``daemon_request`` when
  built and their state (may this peer mutate, which profile runs) as it changes; they never
  import or call the App, they post messages (``MainReady``, ``SwitchRequested``). Mutations
  go through ``perform`` and are refused up front when the daemon's hello says this peer may
  not mutate.
- Every action is a palette command (``get_system_commands``); the footer shows the few keys
  that matter.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import anyio
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from supervisor.protocol.client import ConnectionLost, DaemonError
from supervisor.protocol.vocabulary import TOPICS
from supervisor.protocol.wire import log_event_lines

from . import formatting as fmt
from .connection import Client, Connector, Target, connect, default_socket
from .messages import (
    ChecklistChanged,
    Connected,
    Disconnected,
    EventsDropped,
    FallbackChanged,
    GpusChanged,
    LogLines,
    MainReady,
    RunChanged,
    StatusSnapshot,
    SwitchRequested,
    VerdictReached,
)
from .screens.base import DaemonScreen
from .screens.main import MainScreen

# The other screens are imported when first opened: about 30 ms less before the first paint.

MUTATING_ACTIONS = frozenset({"add_item", "mark_item", "switch_profile", "start_run", "stop_run",
                              "restart_run", "dump_stacks"})


if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup


class NotConnected(Exception):
    """No link to the daemon right now."""


WHAT_TO_DO = ("start the daemon (supervisor-daemon, or systemctl start gpu-node-supervisor), "
              "or point at its socket with --socket PATH or GNS_SOCKET")


def describe(exc: BaseException, target: Target | None = None) -> str:
    """A one-line reason for a lost or refused connection (unwraps exception groups), with
    the socket that was tried and what to do when no daemon answers there."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    where = target.address if target is not None and target.kind == "unix" else None
    if isinstance(exc, TimeoutError):
        return "no hello from the daemon in time"
    if isinstance(exc, FileNotFoundError):
        path = where or exc.filename
        return (f"no socket at {path}" if path else "no socket") + f" — {WHAT_TO_DO}"
    if isinstance(exc, ConnectionRefusedError):
        at = f" at {where}" if where else ""
        return f"connection refused{at}: no daemon listens there — {WHAT_TO_DO}"
    if isinstance(exc, PermissionError):
        at = f" {where}" if where else ""
        return (f"permission denied on the socket{at} — run as a user allowed by the daemon "
                "(its group), or ask its admin")
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


class SupervisorApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "gpu-node-supervisor"
    BINDINGS = [
        Binding("p", "profiles", "Profiles"),
        Binding("h", "history", "History"),
        Binding("b", "brief", "Brief", show=False),
        Binding("c", "campaign", "Campaign", show=False),
        Binding("g", "group", "Group", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+n", "next_node", "Next node", show=False),
        Binding("q", "quit", "Quit"),
    ]

    connected: reactive[bool] = reactive(False)
    can_mutate: reactive[bool] = reactive(False)
    node: reactive[int] = reactive(0, init=False)

    def __init__(self, targets: Sequence[Target], *, connector: Connector = connect,
                 clock: Callable[[], float] = time.time,
                 reconnect_delays: Sequence[float] = (0.5, 1, 2, 4, 8, 15),
                 log_max_lines: int = 5000, log_flush_s: float = 0.08,
                 log_tail: int = 500, resync_s: float = 2.0) -> None:
        super().__init__()
        if not targets:
            raise ValueError("at least one target")
        self.targets = list(targets)
        self.connector = connector
        self.clock = clock
        self.reconnect_delays = list(reconnect_delays) or [1.0]
        self.log_tail = log_tail
        self.resync_s = resync_s
        self.read_only_reason = ""
        self.hello: dict[str, Any] = {}
        self.daemon_info: dict[str, Any] | None = None
        self.banner: str | None = f"connecting to {self.targets[0].label}…"
        self.dropped_events = 0
        self._client: Client | None = None
        self._serving_filled: Any = None  # the run whose metrics series was fetched
        self.main = MainScreen(log_max_lines=log_max_lines, log_flush_s=log_flush_s)

    # -- lifecycle ----------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(1.0, self.tick)
        self.set_interval(self.resync_s, self.resync_run)

    def on_main_ready(self, _msg: MainReady) -> None:
        """The main screen is composed: draw the link state and start the daemon link."""
        self.refresh_link_display()
        self.link(self.node)

    def tick(self) -> None:
        self.main.now = self.clock()

    def set_run(self, run: dict[str, Any] | None) -> None:
        """Show a run report, stamped with its arrival so its activity counts on from there."""
        now = self.clock()
        with self.batch_update():
            self.main.run_seen_at = now
            self.main.now = now
            self.main.run = run
        self._share_down()
        r = fmt.as_dict(run)
        if r.get("serving") and r.get("id") != self._serving_filled:
            self._serving_filled = r.get("id")
            self.fill_serving(r.get("id"))

    @work(exclusive=True, group="metrics", exit_on_error=False)
    async def fill_serving(self, run_id: Any) -> None:
        """The serving series so far (``metrics``), once per run: the panel then extends it
        with each newer ``status.run.serving``."""
        node = self.node
        try:
            result = fmt.as_dict(await self.daemon_request("metrics",
                                                           since=self.clock() - 600))
        except Exception:  # noqa: BLE001 — the panel fills from status alone then
            return
        if node == self.node and result.get("run_id") == run_id:
            self.main.serving_fill = (run_id, fmt.as_list(result.get("series")))

    @work(exclusive=True, group="resync", exit_on_error=False)
    async def resync_run(self) -> None:
        """Ask for a fresh report: the daemon publishes a run only when its state changes, so
        a silent server's activity (CPU, disk, GPU) is only seen this way; and its own problems
        (a failing store, a stalled loop) come and go without an event."""
        if not self.connected:
            return
        node = self.node
        try:
            status = fmt.as_dict(await self.daemon_request("status"))
        except Exception:  # noqa: BLE001 — the link worker reports a lost link
            return
        self._resync_daemon(node, fmt.as_dict(status.get("daemon")))
        if fmt.as_dict(self.main.run).get("status") not in fmt.LIVE:
            return
        fresh = fmt.as_dict(status.get("run"))
        current = fmt.as_dict(self.main.run)
        # Only a report of the same run in the same state: an event may have overtaken it.
        same = ("id", "status", "phase")
        if node == self.node and fresh and all(fresh.get(k) == current.get(k) for k in same):
            self.set_run(fresh)

    def _resync_daemon(self, node: int, daemon: dict[str, Any]) -> None:
        """The daemon's report from a resync: redraw the top bar only when its problems changed
        (the uptime in it changes every time and is not shown)."""
        if node != self.node or not daemon:
            return
        before = fmt.as_dict(self.daemon_info).get("problems") or []
        self.daemon_info = daemon
        if (daemon.get("problems") or []) != before:
            self.refresh_link_display()

    def node_label(self, index: int | None = None) -> str:
        return self.targets[self.node if index is None else index].label

    def refresh_link_display(self) -> None:
        pos = f" ({self.node + 1}/{len(self.targets)})" if len(self.targets) > 1 else ""
        self.main.show_link(node_label=self.node_label(), node_pos=pos,
                            connected=self.connected, can_mutate=self.can_mutate,
                            read_only_reason=self.read_only_reason, hello=self.hello,
                            daemon=self.daemon_info, banner=self.banner)
        self.sub_title = self.node_label()
        self._share_down()

    def _screen_state(self) -> dict[str, Any]:
        """What a screen over the main one is told of the node (``DaemonScreen``)."""
        return {"can_mutate": self.can_mutate and self.connected,
                "running": fmt.as_dict(self.main.run).get("profile"), "run": self.main.run}

    def _share_down(self) -> None:
        state = self._screen_state()
        for screen in self.screen_stack:
            if isinstance(screen, DaemonScreen):
                screen.can_mutate = state["can_mutate"]
                screen.running = state["running"]
                screen.run = state["run"]

    # -- the daemon link (the one worker that owns the connection) ---------------------------

    @work(exclusive=True, group="daemon", exit_on_error=False)
    async def link(self, node: int) -> None:
        target = self.targets[node]
        attempt = 0
        ever = False
        while True:
            reason = "the daemon closed the connection"
            try:
                async with self.connector(target) as client:
                    self._client = client
                    attempt = 0
                    ever = True
                    self.post_message(Connected(node, fmt.as_dict(client.hello)))
                    self._show_primed(node, await self._prime(client))
                    try:
                        async for event in client.events():
                            await self._dispatch_event(node, client, fmt.as_dict(event))
                    finally:
                        client.close_events()
            except Exception as exc:  # noqa: BLE001 — whatever happens, say so and retry
                reason = describe(exc, target)
            finally:
                self._client = None
            delay = self.reconnect_delays[min(attempt, len(self.reconnect_delays) - 1)]
            attempt += 1
            self.post_message(Disconnected(node, reason, delay, ever))
            await anyio.sleep(delay)

    async def _prime(self, client: Client) -> dict[str, Any]:
        """After hello: the log tail, a subscription and a full status, asked all at once:
        one round trip instead of three before the first full paint."""
        asked = (("logs", {"n": self.log_tail}), ("subscribe", {"topics": list(TOPICS)}),
                 ("status", {}))
        answers: dict[str, Any] = {}

        async def ask(cmd: str, args: dict[str, Any]) -> None:
            try:
                answers[cmd] = await client.request(cmd, **args)
            except (DaemonError, ConnectionLost) as exc:
                answers[cmd] = exc

        async with anyio.create_task_group() as tg:
            for cmd, args in asked:  # started, so sent, in this order
                tg.start_soon(ask, cmd, args)
        for cmd in ("logs", "subscribe", "status"):
            if isinstance(answers[cmd], ConnectionLost) or (
                    cmd == "subscribe" and isinstance(answers[cmd], Exception)):
                raise answers[cmd]
        return answers

    def _show_primed(self, node: int, answers: dict[str, Any]) -> None:
        tail = answers["logs"]
        if isinstance(tail, DaemonError):
            self.post_message(LogLines(node, None, [], replace=True))
        else:
            tail = fmt.as_dict(tail)
            self.post_message(LogLines(node, tail.get("run_id"),
                                       fmt.str_list(tail.get("lines")), replace=True))
        self._show_status(node, answers["status"])

    async def _refresh_status(self, node: int, client: Client) -> None:
        try:
            status = await client.request("status")
        except DaemonError as exc:
            status = exc
        self._show_status(node, status)

    def _show_status(self, node: int, status: Any) -> None:
        if isinstance(status, DaemonError):
            self.post_message(Disconnected(node, f"status failed: {status}", 0, True))
        else:
            self.post_message(StatusSnapshot(node, fmt.as_dict(status)))

    async def _dispatch_event(self, node: int, client: Client, event: dict[str, Any]) -> None:
        kind = event.get("event")
        data = event.get("data")
        d = fmt.as_dict(data)
        if kind == "run":
            self.post_message(RunChanged(node, d or None))
        elif kind == "log":
            lines = log_event_lines(d)
            if lines:
                self.post_message(LogLines(node, d.get("run_id"), lines))
        elif kind == "gpus":
            self.post_message(GpusChanged(node, fmt.as_list(d.get("gpus"))))
        elif kind == "checklist":
            self.post_message(ChecklistChanged(node, fmt.as_list(d.get("items"))))
        elif kind == "fallback":
            self.post_message(FallbackChanged(node, d or None))
        elif kind == "verdict":
            self.post_message(VerdictReached(node, d))
        elif kind == "daemon":
            self._daemon_news(d)
        elif kind == "dropped":
            count = fmt.num(d.get("count")) or 0
            total = fmt.num(d.get("total")) or 0
            self.post_message(EventsDropped(node, int(count), int(total)))
            await self._refresh_status(node, client)  # we may have missed a state change

    def _daemon_news(self, d: dict[str, Any]) -> None:
        """A ``daemon`` event: the daemon's own report, or news of a campaign step or a
        profile reload (which are not the daemon's report and must not replace it)."""
        if "campaign" in d:
            from .screens.campaign import CampaignScreen

            for screen in self.screen_stack:
                if isinstance(screen, CampaignScreen):
                    screen.action_reload()
        elif "reload" not in d and d:
            self.daemon_info = d

    # -- messages from the link -> screen state ---------------------------------------------

    def _current(self, node: int) -> bool:
        return node == self.node and self.main.ready

    def on_connected(self, msg: Connected) -> None:
        if not self._current(msg.node):
            return
        self.hello = msg.hello
        self.can_mutate = msg.hello.get("can_mutate") is True
        self.read_only_reason = "" if self.can_mutate else fmt.text(
            msg.hello.get("read_only_reason"), "the daemon does not permit this user to mutate")
        self.connected = True
        self.banner = None
        self.refresh_link_display()
        self.refresh_bindings()

    def on_disconnected(self, msg: Disconnected) -> None:
        if not self._current(msg.node):
            return
        self.connected = False
        when = f"retrying in {msg.retry_in:g}s" if msg.retry_in else "retrying"
        verb = "disconnected from" if msg.ever_connected else "cannot connect to"
        target = self.targets[self.node]
        # A socket's reason names its path; a label that is that path would say it twice.
        who = "the daemon" if target.label == target.address else target.label
        self.banner = f"⚠ {verb} {who}: {msg.reason} — {when}"
        self.refresh_link_display()
        self.refresh_bindings()

    def on_status_snapshot(self, msg: StatusSnapshot) -> None:
        if not self._current(msg.node):
            return
        s = msg.status
        if isinstance(s.get("daemon"), dict):
            self.daemon_info = s["daemon"]
        with self.batch_update():
            self.set_run(fmt.as_dict(s.get("run")) or None)
            self.main.items = fmt.as_list(s.get("checklist"))
            self.main.gpus = fmt.as_list(s.get("gpus"))
            self.main.fallback = fmt.as_dict(s.get("fallback")) or None
            self.refresh_link_display()

    def on_run_changed(self, msg: RunChanged) -> None:
        if self._current(msg.node):
            self.set_run(msg.run)

    def on_gpus_changed(self, msg: GpusChanged) -> None:
        if self._current(msg.node):
            self.main.gpus = msg.gpus

    def on_checklist_changed(self, msg: ChecklistChanged) -> None:
        if self._current(msg.node):
            self.main.items = msg.items

    def on_fallback_changed(self, msg: FallbackChanged) -> None:
        if self._current(msg.node):
            self.main.fallback = msg.fallback

    def on_verdict_reached(self, msg: VerdictReached) -> None:
        if not self._current(msg.node):
            return
        self.main.verdict = msg.verdict
        v = msg.verdict
        status = fmt.text(v.get("status"), "?")
        if status in fmt.FAILED:
            self.notify(f"run #{fmt.text(v.get('run_id'))} {status} in "
                        f"{fmt.text(v.get('phase'))}: {fmt.text(v.get('cause'), 'unknown')}",
                        title="verdict", severity="error", markup=False, timeout=10)

    def on_log_lines(self, msg: LogLines) -> None:
        if self._current(msg.node):
            self.main.show_log(msg.run_id, msg.lines, replace=msg.replace)

    def on_events_dropped(self, msg: EventsDropped) -> None:
        if self._current(msg.node):
            self.dropped_events = msg.total or self.dropped_events + msg.count
            self.main.note_in_log(f"… the daemon dropped {msg.count} events "
                                  f"(this client is slow; {self.dropped_events} in all)")

    # -- requests -----------------------------------------------------------------------

    async def daemon_request(self, cmd: str, **args: Any) -> Any:
        """One request on the current link; raises NotConnected, DaemonError, ConnectionLost."""
        client = self._client
        if client is None:
            raise NotConnected(f"not connected to {self.node_label()}")
        return await client.request(cmd, **args)

    def refuse_if_read_only(self) -> bool:
        if self.can_mutate and self.connected:
            return False
        reason = (f"read-only: {self.read_only_reason}" if self.connected
                  else f"not connected to {self.node_label()}")
        self.notify(reason, severity="warning", markup=False)
        return True

    @work(group="actions", exit_on_error=False)
    async def perform(self, cmd: str, args: dict[str, Any], done: str = "") -> Any:
        """A mutating request, with its outcome as a notification."""
        try:
            result = await self.daemon_request(cmd, **args)
        except DaemonError as exc:
            self.notify(f"{cmd} refused — {exc.code}: {exc.message}", severity="error",
                        markup=False, timeout=8)
            return None
        except (NotConnected, ConnectionLost) as exc:
            self.notify(f"{cmd} failed: {exc}", severity="error", markup=False)
            return None
        r = fmt.as_dict(result)
        if cmd == "checklist" and "items" in r:
            self.main.items = fmt.as_list(r.get("items"))
        if done:
            extra = f" (run #{r['run_id']})" if r.get("run_id") is not None else ""
            self.notify(done + extra, markup=False)
        return result

    # -- actions ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and not (self.can_mutate and self.connected):
            return None
        if action == "next_node" and len(self.targets) < 2:
            return False
        return True

    def _open(self, kind: type[Screen[Any]], make: Callable[[], Screen[Any] | str]) -> None:
        """Open a full screen over the main one, never over another: Esc then always leads
        straight back to the main screen, however many screens were visited."""
        if isinstance(self.screen, kind):
            return
        self._to_main()
        self.push_screen(make())

    def action_profiles(self) -> None:
        from .screens.profiles import ProfilesScreen

        self._open(ProfilesScreen,
                   lambda: ProfilesScreen(self.daemon_request, **self._screen_state()))

    def action_history(self) -> None:
        from .screens.history import HistoryScreen

        self._open(HistoryScreen,
                   lambda: HistoryScreen(self.daemon_request, **self._screen_state()))

    def action_brief(self) -> None:
        # Imported on first use: Markdown rendering (markdown_it) is ~0.1 s of start-up.
        from .screens.brief import BriefScreen

        self._open(BriefScreen, lambda: BriefScreen(self.daemon_request, **self._screen_state()))

    def action_campaign(self) -> None:
        from .screens.campaign import CampaignScreen

        self._open(CampaignScreen,
                   lambda: CampaignScreen(self.daemon_request, **self._screen_state()))

    def action_group(self) -> None:
        from .screens.group import GroupScreen

        self._open(GroupScreen, lambda: GroupScreen(self.daemon_request, **self._screen_state()))

    def action_help(self) -> None:
        from .screens.help import HelpScreen  # first use only: rich.markdown is ~70 ms

        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")  # composed once, then reused
        self._open(HelpScreen, lambda: "help")

    def action_switch_profile(self) -> None:
        """Open the profiles screen to pick one (the switch itself asks for confirmation)."""
        if not self.refuse_if_read_only():
            self.action_profiles()

    def on_switch_requested(self, msg: SwitchRequested) -> None:
        self.confirm_switch(msg.profile)

    def confirm_switch(self, profile: str) -> None:
        if not profile or self.refuse_if_read_only():
            return
        run = fmt.as_dict(self.main.run)
        if run:
            detail = (f"This stops run #{fmt.text(run.get('id'))} "
                      f"({fmt.text(run.get('profile'))}, {fmt.text(run.get('status'))}) "
                      f"and starts {profile}.")
        else:
            detail = f"Nothing runs now; this starts {profile}."

        def answered(yes: bool | None) -> None:
            if yes:
                self.perform("switch", {"profile": profile}, f"switching to {profile}")

        from .screens.dialogs import ConfirmScreen

        self.push_screen(ConfirmScreen(f"Switch to {profile}?", detail, yes="Switch"), answered)

    def _confirm(self, question: str, cmd: str, done: str) -> None:
        if self.refuse_if_read_only():
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.perform(cmd, {}, done)

        from .screens.dialogs import ConfirmScreen

        self.push_screen(ConfirmScreen(question, yes="Yes"), answered)

    def action_start_run(self) -> None:
        if not self.refuse_if_read_only():
            self.perform("start", {}, "starting")

    def action_stop_run(self) -> None:
        self._confirm("Stop the running server?", "stop", "stopping")

    def action_restart_run(self) -> None:
        self._confirm("Restart the running server?", "restart", "restarting")

    def action_dump_stacks(self) -> None:
        if not self.refuse_if_read_only():
            self.perform("stacks", {}, "stack dumps saved")

    def action_add_item(self) -> None:
        if self.refuse_if_read_only():
            return

        def answered(text: str | None) -> None:
            if text:
                self.perform("checklist", {"action": "add", "text": text},
                             "checklist item added")

        from .screens.dialogs import PromptScreen

        self.push_screen(PromptScreen("Add a checklist item", "e.g. check NCCL_P2P_LEVEL"),
                         answered)

    def action_mark_item(self, status: str = "done") -> None:
        if self.refuse_if_read_only():
            return
        item = self.main.selected_item
        if not item or item.get("id") is None:
            self.notify("select a checklist item first", severity="warning")
            return
        if status == "done":
            args = {"action": "done", "item": item["id"]}
        else:
            args = {"action": "set", "item": item["id"], "status": status}
        self.perform("checklist", args, f"item #{item['id']} marked {status}")

    def action_filter_log(self) -> None:
        self._to_main().action_filter_log()

    def action_search_log(self) -> None:
        self._to_main().action_search_log()

    def action_cycle_level(self) -> None:
        self._to_main().action_cycle_level()

    def action_follow_log(self) -> None:
        self._to_main().action_follow_log()

    def _to_main(self) -> MainScreen:
        while len(self.screen_stack) > 1 and self.screen is not self.main:
            self.pop_screen()
        return self.main

    def action_reconnect(self) -> None:
        self.banner = f"connecting to {self.node_label()}…"
        self.refresh_link_display()
        self.link(self.node)

    def action_next_node(self) -> None:
        if len(self.targets) > 1:
            self.node = (self.node + 1) % len(self.targets)

    def action_nodes(self) -> None:
        def chosen(index: int | None) -> None:
            if index is not None and 0 <= index < len(self.targets):
                self.node = index

        from .screens.nodes import NodesScreen

        self.push_screen(NodesScreen([t.label for t in self.targets], self.node), chosen)

    def watch_node(self, node: int) -> None:
        """Watch another node: forget this one's state and relink."""
        self._client = None
        self.connected = False
        self.hello = {}
        self.daemon_info = None
        self._serving_filled = None
        with self.batch_update():
            self.main.forget()
        self.action_reconnect()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Profiles", "List profiles, view resolved config and diff",
                            self.action_profiles)
        yield SystemCommand("History", "Past runs side by side: phases, verdicts, benchmarks",
                            self.action_history)
        yield SystemCommand("Brief", "The handoff brief from the daemon", self.action_brief)
        yield SystemCommand("Campaign", "The campaign plan, its branches, results and report",
                            self.action_campaign)
        yield SystemCommand("Group", "The launch group's ranks side by side and its verdict",
                            self.action_group)
        yield SystemCommand("Help", "Keys, colours and icons", self.action_help)
        yield SystemCommand("Log: filter", "Show only log lines containing text",
                            self.action_filter_log)
        yield SystemCommand("Log: search", "Find text in the log", self.action_search_log)
        yield SystemCommand("Log: cycle level", "all → info → warning → error",
                            self.action_cycle_level)
        yield SystemCommand("Log: follow", "Scroll to the end and follow", self.action_follow_log)
        yield SystemCommand("Reconnect now", "Drop the link and connect again",
                            self.action_reconnect)
        if len(self.targets) > 1:
            yield SystemCommand("Nodes", "Pick the node to watch", self.action_nodes)
            yield SystemCommand("Next node", "Watch the next node", self.action_next_node)
        if self.can_mutate and self.connected:
            yield SystemCommand("Switch profile", "Stop what runs and start another profile",
                                self.action_switch_profile)
            yield SystemCommand("Start", "Start the last profile", self.action_start_run)
            yield SystemCommand("Stop", "Stop the running server", self.action_stop_run)
            yield SystemCommand("Restart", "Restart the running server", self.action_restart_run)
            yield SystemCommand("Dump stacks", "Save stack dumps of the server's processes",
                                self.action_dump_stacks)
            yield SystemCommand("Checklist: add item", "Add an item to the checklist",
                                self.action_add_item)
            for status in ("done", "failed", "skipped", "in_progress"):
                yield SystemCommand(f"Checklist: mark {status}",
                                    f"Mark the selected checklist item {status}",
                                    lambda s=status: self.action_mark_item(s))
        elif self.connected:
            yield SystemCommand("Read-only", f"Changes are disabled: {self.read_only_reason}",
                                lambda: self.notify(self.read_only_reason, markup=False))


# -- command line ---------------------------------------------------------------------------

def parse_targets(argv: Sequence[str] | None = None,
                  env: dict[str, str] | None = None) -> list[Target]:
    parser = argparse.ArgumentParser(
        prog="supervisor-tui",
        description="Watch and steer gpu-node-supervisor on this host or others over SSH.")
    parser.add_argument("--socket", action="append", default=[], metavar="PATH",
                        help="control socket (repeat for several local daemons); default "
                             "$GNS_SOCKET, /run/gpu-node-supervisor/control.sock, or the "
                             "per-user socket under $XDG_RUNTIME_DIR")
    parser.add_argument("--ssh", action="append", default=[], metavar="HOST",
                        help="watch HOST through 'ssh HOST supervisor-ctl bridge' (repeatable)")
    parser.add_argument("--remote-socket", metavar="PATH",
                        help="socket path on the SSH hosts (default: theirs)")
    parser.add_argument("--ssh-option", action="append", default=[], metavar="OPT",
                        help="extra ssh argument, e.g. --ssh-option=-p2222 (repeatable)")
    args = parser.parse_args(argv)
    targets = [Target.unix(p) for p in args.socket]
    targets += [Target.ssh(h, args.remote_socket, args.ssh_option) for h in args.ssh]
    if not targets:
        targets = [Target.unix(default_socket(env))]
    return targets


def main(argv: Sequence[str] | None = None) -> None:
    targets = parse_targets(argv)
    app = SupervisorApp(targets)
    app.run()
    sys.exit(app.return_code or 0)


if __name__ == "__main__":  # pragma: no cover
    main()
