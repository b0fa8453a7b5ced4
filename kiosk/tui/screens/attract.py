"""The attract screen: shown after an idle reset until someone touches the screen or presses
a key."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from kiosk.i18n import LANGUAGES, _, catalogue, language
from kiosk.tui.contract import kiosk_of
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import DemoMark


def attract_line(settings: object) -> str:
    """How customers pay, as the attract screen says it: the counter only when the merchant takes
    payment there (kiosk.ordering.payment.offers_counter)."""
    from kiosk.ordering.payment import offers_counter

    if offers_counter(settings):
        return _("Order here, pay on your phone or at the counter")
    return _("Order here, pay on your phone")


class AttractScreen(Screen[None]):
    """Any key or touch goes back to the first screen (the key is not passed on)."""

    # Nothing to reset here.
    IDLE_RESET = False

    def compose(self) -> ComposeResult:
        app = kiosk_of(self.app)
        services = app.services_or_none
        location = app.location
        name = clean(location.restaurant_display_name, 60) if location is not None else ""
        if services is not None and services.demo:
            yield DemoMark()
        with Vertical(id="attract-body"):
            yield Static(Text(name or _("Welcome"), style="bold"), id="attract-name")
            yield Static(
                Text(_("Touch or press any key to order"), style="bold"), id="attract-call"
            )
            yield Static(Text(attract_line(app.settings)), id="attract-sub")
            # The call in every other language, and the languages offered (issue 20): a
            # customer who reads no English knows the kiosk speaks theirs before touching it.
            others = [code for code in LANGUAGES if code != language()]
            calls = Text()
            for code in others:
                call = catalogue(code).gettext("Touch or press any key to order")
                calls.append(("\n" if calls.plain else "") + call)
            if others:
                yield Static(calls, id="attract-other")
            yield Static(Text("  ·  ".join(LANGUAGES.values())), id="attract-languages")

    def _start(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self._start()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        self._start()
