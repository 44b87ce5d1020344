"""The diagnostic checklist: one line per item with its status icon, and the evidence of the
highlighted item below."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import formatting as fmt


class ChecklistPanel(Vertical):
    DEFAULT_CSS = """
    ChecklistPanel {
        border: round $primary-darken-2;
        border-title-color: $text-muted;
        height: 1fr;
    }
    ChecklistPanel > OptionList, ChecklistPanel > OptionList:focus {
        height: 1fr; min-height: 2; border: none; padding: 0;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    ChecklistPanel > VerticalScroll { height: auto; max-height: 3; border-top: solid $panel; }
    ChecklistPanel > VerticalScroll > Static { padding: 0 1; }
    """

    items: reactive[list[Any]] = reactive(list)

    def compose(self) -> ComposeResult:
        yield OptionList(id="checklist-items")
        with VerticalScroll():
            yield Static(id="checklist-evidence")

    def on_mount(self) -> None:
        self.border_title = "checklist"
        self._show_evidence()

    @property
    def selected(self) -> dict[str, Any] | None:
        """The highlighted item, or None."""
        index = self.query_one(OptionList).highlighted
        items = fmt.as_list(self.items)
        if index is None or not 0 <= index < len(items):
            return None
        return fmt.as_dict(items[index]) or None

    def watch_items(self, items: list[Any]) -> None:
        options = self.query_one(OptionList)
        keep = options.highlighted
        options.clear_options()
        entries = fmt.as_list(items)
        options.add_options([Option(fmt.checklist_label(it)) for it in entries])
        if entries:
            options.highlighted = min(keep if keep is not None else 0, len(entries) - 1)
        self.border_title = fmt.checklist_title(entries)
        self._show_evidence()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_evidence()

    def _show_evidence(self) -> None:
        self.query_one("#checklist-evidence", Static).update(
            fmt.checklist_evidence(self.selected))
