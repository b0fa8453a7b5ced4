"""The language choice on the welcome screen: one button a language, each named in its own
language. Left/Right move between them, Up goes back to the control above; choosing one posts
`LanguageBar.Chosen` (the screen asks the app to switch the whole visit)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from kiosk.i18n import LANGUAGES, _, language


class LanguageBar(Horizontal):
    DEFAULT_CSS = """
    LanguageBar { height: auto; margin-top: 1; padding: 0 1; }
    LanguageBar > Static { width: auto; padding: 0 1 0 0; }
    LanguageBar > Button { margin-right: 1; }
    """
    BINDINGS = [
        Binding("left", "step(-1)", "Previous language", show=False),
        Binding("right", "step(1)", "Next language", show=False),
        Binding("up", "leave", "Up", show=False),
    ]

    class Chosen(Message):
        def __init__(self, code: str) -> None:
            super().__init__()
            self.code = code

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)

    def compose(self) -> ComposeResult:
        yield Static(_("Language:"), classes="language-label")
        current = language()
        for code, name in LANGUAGES.items():
            yield Button(
                name,
                id=f"lang-{code}",
                variant="primary" if code == current else "default",
                compact=True,
            )

    @property
    def buttons(self) -> list[Button]:
        return list(self.query(Button).results(Button))

    def focus_current(self) -> None:
        found = self.query(f"#lang-{language()}")
        (found.first(Button) if found else self.buttons[0]).focus()

    def action_step(self, step: int) -> None:
        buttons = self.buttons
        focused = self.screen.focused
        index = buttons.index(focused) if focused in buttons else 0
        buttons[(index + step) % len(buttons)].focus()

    def action_leave(self) -> None:
        # To the control before the bar (the list of ways to order).
        chain = self.screen.focus_chain
        first = self.buttons[0]
        if first in chain and chain.index(first) > 0:
            chain[chain.index(first) - 1].focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        code = str(event.button.id or "").removeprefix("lang-")
        if code in LANGUAGES:
            self.post_message(self.Chosen(code))
