"""Profiles: the list from ``profiles``, the resolved view and diff from ``show``, switching
with a confirmation, and validation errors as the daemon reports them."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from .. import formatting as fmt
from ..messages import SwitchRequested
from .base import DaemonScreen, Request


def _change_names(value: Any) -> list[str]:
    names = []
    for c in fmt.as_list(value):
        if isinstance(c, dict):
            names.append(str(c.get("name", "?")))
        elif c is not None:
            names.append(str(c))
    return names


def profile_label(p: dict[str, Any], running: str | None) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    valid = p.get("valid", True) is not False and not p.get("error")
    out.append("✔ " if valid else "✘ ", "green" if valid else "bold red")
    name = fmt.text(p.get("name"), "?")
    out.append(name, "bold" if name == running else "")
    if name == running:
        out.append(" (running)", "green")
    if p.get("extends"):
        out.append(f" ← {p.get('extends')}", "dim")
    return out


def profile_detail(entry: dict[str, Any], shown: Any, error: str | None) -> Group:
    parts: list[Any] = []
    head = Text()
    head.append(fmt.text(entry.get("name"), "?"), "bold")
    if entry.get("description"):
        head.append(f"\n{entry.get('description')}", "italic")
    head.append(f"\nengine {fmt.text(entry.get('engine'))}"
                f" · extends {fmt.text(entry.get('extends'))}"
                f" · changes {fmt.join_names(_change_names(entry.get('changes')))}", "dim")
    parts.append(head)
    if entry.get("error"):
        parts.append(Text(f"\ninvalid: {entry.get('error')}", "bold red"))
    if error:
        parts.append(Text(f"\n{error}", "bold red"))
    s = fmt.as_dict(shown)
    diff = fmt.as_list(s.get("diff"))
    if diff:
        d = Text(f"\ndiff from {fmt.text(s.get('parent'), 'parent')}:\n", "bold")
        for row in diff:
            r = fmt.as_dict(row)
            d.append(f"  {fmt.text(r.get('key'), '?')}: ")
            d.append(fmt.value_text(r.get("old")), "red")
            d.append(" → ")
            d.append(fmt.value_text(r.get("new")) + "\n", "green")
        parts.append(d)
    elif s:
        parts.append(Text(f"\nno diff from {fmt.text(s.get('parent'), 'its parent')}", "dim"))
    if "profile" in s:
        parts.append(Text("\nresolved settings:", "bold"))
        parts.append(Text("\n".join(fmt.flat_settings(fmt.as_dict(s.get("profile"))))
                          or "(none)"))
    elif not error:
        parts.append(Text("\nloading…", "dim"))
    return Group(*parts)


class ProfilesScreen(DaemonScreen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("s", "switch", "Switch to"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    ProfilesScreen #profiles-errors { height: auto; max-height: 6; color: $error; padding: 0 1; }
    ProfilesScreen #profiles-errors.-empty { display: none; }
    ProfilesScreen OptionList { width: 40%; min-width: 26; height: 1fr; }
    ProfilesScreen VerticalScroll { height: 1fr; padding: 0 1; border: round $primary-darken-2; }
    """

    def __init__(self, request: Request, **state: Any) -> None:
        super().__init__(request, id="profiles", **state)
        self.entries: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(id="profiles-errors", classes="-empty")
        with Horizontal():
            yield OptionList(id="profile-list")
            with VerticalScroll():
                yield Static("loading profiles…", id="profile-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "profiles"
        self.action_reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch" and not self.can_mutate:
            return None
        return True

    @property
    def selected(self) -> dict[str, Any] | None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.entries):
            return None
        return self.entries[index]

    @work(exclusive=True, group="profiles", exit_on_error=False)
    async def action_reload(self) -> None:
        detail = self.query_one("#profile-detail", Static)
        try:
            result = fmt.as_dict(await self.daemon_request("profiles"))
        except Exception as exc:  # noqa: BLE001 — any failure is shown, never raised
            detail.update(Text(f"cannot list profiles: {exc}", "bold red"))
            return
        self.entries = [fmt.as_dict(p) for p in fmt.as_list(result.get("profiles"))
                        if isinstance(p, dict)]
        errors = fmt.str_list(result.get("errors"))
        err = self.query_one("#profiles-errors", Static)
        err.update(Text("\n".join(f"✘ {e}" for e in errors)))
        err.set_class(not errors, "-empty")
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(profile_label(p, self.running)) for p in self.entries])
        if self.entries:
            names = [p.get("name") for p in self.entries]
            options.highlighted = names.index(self.running) if self.running in names else 0
        else:
            detail.update(Text("the daemon has no profiles", "dim"))

    def watch_running(self) -> None:
        """Another profile runs now: relabel the list (its highlight stays)."""
        if not self.is_mounted:
            return
        options = self.query_one(OptionList)
        for index, entry in enumerate(self.entries):
            options.replace_option_prompt_at_index(index, profile_label(entry, self.running))

    @on(OptionList.OptionHighlighted, "#profile-list")
    def show_selected(self) -> None:
        entry = self.selected
        if entry is not None:
            self.query_one("#profile-detail", Static).update(profile_detail(entry, None, None))
            self.load_show(entry)

    @work(exclusive=True, group="show", exit_on_error=False)
    async def load_show(self, entry: dict[str, Any]) -> None:
        shown: Any = None
        error = None
        try:
            shown = await self.daemon_request("show", profile=entry.get("name"))
        except Exception as exc:  # noqa: BLE001
            error = str(exc)
        if self.selected is entry:
            self.query_one("#profile-detail", Static).update(
                profile_detail(entry, shown, error))

    @on(OptionList.OptionSelected, "#profile-list")
    def switch_on_enter(self) -> None:
        self.action_switch()

    def action_switch(self) -> None:
        entry = self.selected
        if entry is None:
            return
        if entry.get("valid") is False or entry.get("error"):
            self.notify(f"{entry.get('name')} is invalid and cannot be launched: "
                        f"{fmt.text(entry.get('error'), 'see the daemon')}",
                        severity="error", markup=False, timeout=8)
            return
        self.post_message(SwitchRequested(fmt.text(entry.get("name"), "")))
