"""Help and out of order, as customers see them (issue 34).

- `HelpDialog`: "Someone is coming to help", with the terminal's name and when it was asked; shown
  by the Help key (F1, or the footer's Help) on every customer screen. Enter, Esc or a touch goes
  back to what the customer was doing: the request stays until staff clear it
  (kiosk.help_call.HelpDesk), and Help again shows this again without calling staff twice.
- `OutOfOrderScreen`: "This kiosk is closed. Please order at the counter.", in the customer's
  language and in the others. No customer key does anything here but Help; the staff key (F12
  and the PIN) still works. It lies on top of whatever the customer had: an open order is kept
  (on the server, its id in the resume file) for when the terminal opens again.

The rules (when each is shown, what a key may do) live in kiosk.tui.kiosk_mode; these only draw.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Static

from kiosk.clocktime import clock_time
from kiosk.i18n import LANGUAGES, N_, _, catalogue, language
from kiosk.tui.screens.base import translated_bindings
from kiosk.tui.text import clean

CLOSED_TITLE = N_("This kiosk is closed.")
CLOSED_HINT = N_("Please order at the counter.")


class HelpDialog(ModalScreen[None]):
    """Someone is coming to help. Closed by Enter, Esc, the button or a touch outside it."""

    # Here, not in styles/: the two screens of this module are all there is to style.
    DEFAULT_CSS = """
    HelpDialog { align: center middle; background: $background; }
    #help-dialog {
        width: 60; max-width: 95%; height: auto; padding: 1 2;
        background: $panel; border: thick $primary;
    }
    #help-title { margin-bottom: 1; }
    #help-back { margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape,enter", "close", N_("Back"), show=False),
    ]
    # Help is already asked: the key does nothing more here, and the footer does not offer it.
    OFFERS_HELP: ClassVar[bool] = False
    OFFERS_START_OVER: ClassVar[bool] = False

    def __init__(self, terminal: str, asked_at: float) -> None:
        super().__init__()
        self.terminal = terminal
        self.asked_at = asked_at

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Text(_("Someone is coming to help"), style="bold"), id="help-title")
            yield Static(self.detail(), id="help-detail")
            yield Button(_("Back"), id="help-back", variant="primary")

    def detail(self) -> Text:
        text = Text(_("This kiosk: {terminal}").format(terminal=clean(self.terminal, 64)))
        text.append("\n")
        text.append(_("Asked at {time}").format(time=clock_time(self.asked_at)))
        text.append("\n")
        text.append(_("You can go on with your order while you wait."))
        return text

    def on_mount(self) -> None:
        self.query_one("#help-back", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_close()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        # A touch outside the box closes it too (inside it, the button does).
        if self.get_widget_at(event.screen_x, event.screen_y)[0] is self:
            event.stop()
            self.action_close()

    def action_close(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated_bindings(super().active_bindings)


class OutOfOrderScreen(Screen[None]):
    """The one screen of a closed terminal: every key but Help and the staff key is dropped."""

    DEFAULT_CSS = """
    OutOfOrderScreen { background: $background; }
    #closed-body { width: 100%; height: 1fr; align: center middle; }
    #closed-body Static { width: 100%; text-align: center; }
    #closed-title { padding: 1 0; background: $primary; color: $text; }
    #closed-hint { margin-top: 1; }
    #closed-other { margin-top: 2; color: $text-muted; }
    """

    OFFERS_START_OVER: ClassVar[bool] = False

    @property
    def IDLE_RESET(self) -> bool:  # the name every screen answers (kiosk.tui.idle)
        # The order under it waits for the terminal to open again: no idle reset while closed.
        # Left under another screen after the terminal opened, it no longer holds the reset.
        return not getattr(self.app, "out_of_order", False)

    def compose(self) -> ComposeResult:
        with Vertical(id="closed-body"):
            yield Static(Text(_(CLOSED_TITLE), style="bold"), id="closed-title")
            yield Static(Text(_(CLOSED_HINT)), id="closed-hint")
            # The same in the kiosk's other languages: whoever walks up can read it.
            others = Text()
            for code in LANGUAGES:
                if code == language():
                    continue
                words = catalogue(code)
                line = f"{words.gettext(CLOSED_TITLE)} {words.gettext(CLOSED_HINT)}"
                others.append(("\n" if others.plain else "") + line)
            if others.plain:
                yield Static(others, id="closed-other")
        yield Footer(show_command_palette=False)

    def on_key(self, event: events.Key) -> None:
        # The keys that still act here are priority bindings (Help, staff), read before this.
        event.stop()
        event.prevent_default()

    def on_screen_resume(self) -> None:
        # Opened again while this screen lay under another one: it goes as soon as it is seen.
        if not getattr(self.app, "out_of_order", False):
            self.call_later(self._leave)

    def _leave(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated_bindings(super().active_bindings)
