""" "Show my number again" (issue 20): the thank-you screen goes back to the start by itself, and a
customer who looked away in time can still read their order number on the first screen, for a
while after the order (RECALL_WINDOW), with N or a tap on the line that offers it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from kiosk.i18n import _
from kiosk.tui.contract import kiosk_of
from kiosk.tui.widgets.order_number import OrderNumber


class RecallLine(Static):
    """On the first screens: "Missed your order number? Press N to see it again." Shown only
    while there is a recent number; a tap opens it too."""

    DEFAULT_CSS = """
    RecallLine { height: auto; padding: 0 1; margin-top: 1; }
    """

    def on_mount(self) -> None:
        self.refresh_line()
        kiosk = kiosk_of(self.app)
        left = kiosk.recent_number.remaining()
        if left > 0:
            self.set_timer(left + 0.5, self.refresh_line)  # gone when it may no longer be shown

    def refresh_line(self) -> None:
        shown = recent_number(self.app) is not None
        self.display = shown
        if shown:
            self.update(Text(_("Missed your order number? Press N to see it again."), style="bold"))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        show_number(self.app)


def recent_number(app: Any) -> str | None:
    kiosk = kiosk_of(app)
    return kiosk.recent_number.get()


def show_number(app: Any) -> None:
    number = recent_number(app)
    if number is not None:
        app.push_screen(NumberDialog(number))


class NumberDialog(ModalScreen[None]):
    """The number again, large; any key or a tap closes it, and it goes by itself as the
    thank-you screen does (done_timeout)."""

    def __init__(self, number: str) -> None:
        super().__init__()
        self.number = number

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(_("Your order number is"), style="bold"), id="dialog-question")
            yield OrderNumber(self.number, large=True, spelled=True, id="recall-number")
            yield Static(Text(_("Press any key or tap to close.")), id="dialog-detail")

    def on_mount(self) -> None:
        timeout = float(kiosk_of(self.app).settings.done_timeout)
        self.set_timer(timeout, self._close)

    def _close(self) -> None:
        if self.is_current:
            self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self._close()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self._close()
