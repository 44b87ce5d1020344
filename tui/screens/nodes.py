"""The node list of a fleet view: pick which node the main screen shows."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class NodesScreen(ModalScreen["int | None"]):
    DEFAULT_CSS = """
    NodesScreen { align: center middle; }
    NodesScreen > Vertical { width: 70; max-width: 95%; height: auto; max-height: 80%;
                             border: thick $primary; background: $surface; padding: 0 1; }
    NodesScreen OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, labels: list[str], current: int) -> None:
        super().__init__()
        self.labels = labels
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Nodes — Enter to watch")
            yield OptionList(*(Option(("▶ " if i == self.current else "  ") + label)
                               for i, label in enumerate(self.labels)))

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self.current

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)
