"""Small typed dialogs: a ModalScreen closed with dismiss(value)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from kiosk.i18n import N_, _


class YesNoDialog(ModalScreen[bool]):
    """Two buttons, #yes and #no: Y or #yes answers True, Escape, N or #no False; the arrows
    switch between them. `FIRST` is the button focused when it opens."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "No"),
        Binding("y", "answer(True)", "Yes"),
        Binding("left,right", "switch", show=False),
    ]
    FIRST = "no"

    def on_mount(self) -> None:
        self.query_one(f"#{self.FIRST}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def action_switch(self) -> None:
        self.focus_next(Button)


class ConfirmDialog(YesNoDialog):
    """A yes/no question. Enter or Y confirms, Escape or N keeps things as they are."""

    def __init__(
        self, question: str, *, yes: str = N_("Yes"), no: str = N_("No"), detail: str = ""
    ) -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.question, style="bold"), id="dialog-question")
            if self.detail:
                yield Static(Text(self.detail), id="dialog-detail")
            with Horizontal(id="dialog-buttons"):
                yield Button(f"{_(self.no_label)} (N)", id="no", variant="primary")
                yield Button(f"{_(self.yes_label)} (Y)", id="yes", variant="error")
