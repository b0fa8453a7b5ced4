"""The order screen's touch targets for its lines: −, + and Remove (and Change) for the
highlighted line, and the note after a removal that offers Undo for a while.

Both only show and post: the screen owns what a press does (through the Visit), and the time an
Undo is offered is the app's injected clock, checked by a Textual timer (tests move the clock and
call `check()`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Button, Static

from kiosk.i18n import _
from kiosk.tui.contract import kiosk_of
from kiosk.tui.widgets.chrome import speak

UNDO_SECONDS = 10.0


class LineControls(Horizontal):
    """−, +, Remove and Change for the line the list highlights: a finger's way to what the keys
    do (+/−, Del, Enter). Each is a focus stop too."""

    def compose(self) -> ComposeResult:
        yield Button("−", id="line-less", classes="line-step", compact=True)
        yield Button("+", id="line-more", classes="line-step", compact=True)
        yield Button(_("Remove"), id="line-remove", compact=True)
        yield Button(_("Change"), id="edit-line", compact=True)


class UndoNote(Horizontal):
    """ "Removed 1 × Caffè Latte." with an Undo button, for UNDO_SECONDS after a removal; gone
    after that, or once used, or when another removal replaces it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.until: float | None = None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="undo-text")
        yield Button(_("Undo (Ctrl+Z)"), id="undo", compact=True)

    def on_mount(self) -> None:
        self.display = False

    def _now(self) -> float:
        return float(kiosk_of(self.app).clock())

    @property
    def offered(self) -> bool:
        return self.until is not None and self._now() < self.until

    def offer(self, message: str) -> None:
        from rich.text import Text

        self.until = self._now() + UNDO_SECONDS
        self.query_one("#undo-text", Static).update(Text(message))
        self.display = True
        # Heard too: the cart's change already says what went; this says how to put it back.
        speak(self, _("Ctrl+Z puts it back."), "info")
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(UNDO_SECONDS, self.check, name="undo")

    def check(self) -> None:
        """Gone once its time is up (the timer's tick; tests call it after moving the clock)."""
        if self.until is not None and not self.offered:
            self.withdraw()

    def withdraw(self) -> None:
        self.until = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.display and self.screen.focused is self.query_one("#undo", Button):
            self.screen.focus_previous()
        self.display = False
        self.screen.refresh_bindings()
