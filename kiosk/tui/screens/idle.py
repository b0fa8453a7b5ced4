"""The "Still there?" prompt: a countdown, and any key or touch keeps the order.

The countdown is driven by kiosk.tui.idle.IdleWatcher (one clock for the quiet time and the
countdown); this dialog only shows it and answers.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from kiosk.i18n import _


class StillThereDialog(ModalScreen[bool]):
    """Dismissed with True (keep the order) by any key or touch; the watcher closes it otherwise."""

    IDLE_RESET = True

    def __init__(self, seconds: int) -> None:
        super().__init__()
        self.seconds = seconds

    def compose(self) -> ComposeResult:
        with Vertical(id="idle-dialog"):
            yield Static(Text(_("Still there?"), style="bold"), id="idle-title")
            yield Static(self._countdown_text(), id="idle-countdown")
            yield Static(
                Text(_("Press any key or touch the screen to keep your order.")), id="idle-hint"
            )

    def _countdown_text(self) -> Text:
        text = Text(_("Your order will be cleared in") + " ")
        text.append(f"{self.seconds} s", style="bold")
        return text

    def show_seconds(self, seconds: int) -> None:
        if seconds == self.seconds:
            return
        self.seconds = seconds
        if self.is_mounted:
            self.query_one("#idle-countdown", Static).update(self._countdown_text())

    def _keep(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(True)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self._keep()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        self._keep()
