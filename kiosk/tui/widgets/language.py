"""The language choice on the welcome screen: one button a language, each named in its own
language. The arrows reach them as any other control (KioskScreen.action_move); choosing one
posts `LanguageBar.Chosen` (the screen asks the app to switch the whole visit)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from kiosk.i18n import LANGUAGES, _, language


class LanguageBar(Horizontal):
    DEFAULT_CSS = """
    LanguageBar { height: auto; width: auto; padding: 0 1; }
    LanguageBar > Static { width: auto; height: 100%; padding: 0 1 0 0; }
    LanguageBar > Static { content-align: left middle; }
    LanguageBar > Button { margin-right: 1; }
    """

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
                # Marked in every theme as a chosen tip is (theme.tcss: filled in high
                # contrast, underlined without colour), not by the variant's colour alone.
                classes="-chosen" if code == current else "",
            )

    @property
    def buttons(self) -> list[Button]:
        return list(self.query(Button).results(Button))

    def focus_current(self) -> None:
        found = self.query(f"#lang-{language()}")
        (found.first(Button) if found else self.buttons[0]).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        code = str(event.button.id or "").removeprefix("lang-")
        if code in LANGUAGES:
            self.post_message(self.Chosen(code))
