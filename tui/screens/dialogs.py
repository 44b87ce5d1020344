"""Small modal dialogs: a yes/no confirmation and a one-line text prompt."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 64; max-width: 95%; height: auto; padding: 1 2;
    border: thick $primary; background: $surface;
}}
{name} Horizontal {{ height: auto; align-horizontal: right; margin-top: 1; }}
{name} Button {{ margin-left: 2; }}
{name} .detail {{ color: $text-muted; margin-top: 1; }}
"""


class ConfirmScreen(ModalScreen[bool]):
    """Asks a question; dismisses with True (y / Enter on Yes) or False (n / Escape)."""

    DEFAULT_CSS = _CSS.format(name="ConfirmScreen")
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No"),
                Binding("escape", "answer(False)", "Cancel", show=False)]

    def __init__(self, question: str, detail: str = "", yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question, id="question")
            if self.detail:
                yield Static(self.detail, classes="detail")
            with Horizontal():
                yield Button("No", id="no")
                yield Button(self.yes, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class PromptScreen(ModalScreen["str | None"]):
    """Asks for one line of text; dismisses with it, or None on Escape or an empty line."""

    DEFAULT_CSS = _CSS.format(name="PromptScreen")
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, question: str, placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            yield Input(placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
