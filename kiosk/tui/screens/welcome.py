"""2. Welcome / fulfillment: the ways this location serves, the details each needs, then the order
starts."""

from __future__ import annotations

from collections.abc import Awaitable, Hashable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static

from kiosk.i18n import LANGUAGES, N_, _, language
from kiosk.tui.a11y import Accessibility, large_text
from kiosk.tui.errors import Failure, customer_safe
from kiosk.tui.flow import Step, Wants
from kiosk.tui.labels import METHODS, postal_label
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import FieldError, KioskHeader, speak
from kiosk.tui.widgets.fields import TextField
from kiosk.tui.widgets.language import LanguageBar
from kiosk.tui.widgets.lists import TextRow, TextRowList
from kiosk.tui.widgets.recall import RecallLine, show_number
from kiosk.tui.widgets.rowlist import RowList
from kiosk.tui.widgets.scroll import ControlsScroll

if TYPE_CHECKING:
    from kiosk.api import Location
    from kiosk.api.models import MethodsStatus
    from kiosk.ordering.visit import VisitState

# The details each method needs: (input id, label, placeholder, max length).
FIELDS: dict[str, tuple[tuple[str, str, str, int], ...]] = {
    "table_service": (("table", N_("Table number"), N_("e.g. 12"), 10),),
    "room_service": (
        ("last_name", N_("Last name"), N_("as on your booking"), 60),
        ("room", N_("Room number"), N_("e.g. 415"), 10),
    ),
    "delivery": (
        ("street", N_("Street and number"), "", 120),
        ("street2", N_("Apartment, floor (optional)"), "", 60),
        ("city", N_("City"), "", 60),
        ("state", N_("State"), "", 30),
        ("zip", N_("ZIP code"), "", 12),
    ),
}
OPTIONAL = {"street2"}
# Said when the server refused the order's way in words not fit for a customer.
WAY_REFUSED = N_("That way to order is no longer offered here.")
# Server field names (details.field) -> our inputs.
SERVER_FIELDS = {
    "tableNumber": "table",
    "lastName": "last_name",
    "roomNumber": "room",
    "street": "street",
    "streetOptional": "street2",
    "city": "city",
    "state": "state",
    "zipCode": "zip",
}


def text_size_label(large: bool) -> str:
    return _("Standard text (T)") if large else _("Larger text (T)")


class MethodList(TextRowList):
    pass


class WelcomeScreen(KioskScreen):
    TITLE = N_("Welcome")
    BINDINGS = [
        Binding("f3", "next_language", N_("Language")),
        # Large text (issue 13 F): the customer's own choice, until this order ends.
        Binding("t", "text_size", N_("Text size")),
        # The last order's number again (said on the screen when there is one).
        Binding("n", "show_number", show=False),
    ]

    def main_key(self) -> tuple[str, str] | None:
        return ("enter", _("Choose"))  # the focused list's choice, first in the footer

    def action_show_number(self) -> None:
        show_number(self.app)

    def __init__(self) -> None:
        super().__init__()
        self.methods: list[str] = []
        self.method: str | None = None
        # The location shown, and the ways to order and the refusal it was last drawn with.
        self._location: Location | None = None
        self._seen_ways: MethodsStatus | None = None
        self._refusal_said: str | None = None

    def compose_body(self) -> ComposeResult:
        with ControlsScroll(id="welcome-body"):
            yield Static(id="welcome-title")
            # Today's hours, and beside them the ways to make the kiosk easier to use (issue 13:
            # large text): one line, so the details form still fits 80x24. The language choice
            # is the line below (hidden while a details form is open; no room beside at 80x24).
            with Horizontal(id="welcome-access"):
                yield Static(id="welcome-hours")
                yield Button(text_size_label(False), id="text-size")
            yield LanguageBar(id="languages")
            yield Static(id="welcome-later")
            yield Static(Text(_("How would you like your order?"), style="bold"), id="prompt")
            yield MethodList(id="methods")
            with Vertical(id="details"):
                yield Static(id="details-title")
                yield Vertical(id="fields")
                with Horizontal(id="details-buttons"):
                    yield Button(_("Start my order"), id="start", variant="primary")
            yield RecallLine(id="recall")

    def on_mount(self) -> None:
        self._show_text_size()
        self.query_one("#details").display = False
        self._seen_ways = self.kiosk.visit.state.ways
        self._refusal_said = None  # drawn anew (a language chosen): said again with the list
        self.watch(self.app, "visit_state", self._follow_state, init=False)
        self.load()

    def load(self) -> None:
        """The location (unless the location screen loaded it), and the ways to order it offers
        (its record's, else the merchant listing's: the vendor's location record does not say),
        published by the Visit (VisitState.ways) and drawn from there."""
        kiosk = self.kiosk
        location_id = kiosk.location_id
        assert location_id is not None
        known = kiosk.location
        visit = kiosk.visit

        async def fetch() -> Location:
            location = known if known is not None else await visit.load_location(location_id)
            if known is None:
                kiosk.choose_location(location_id, location)
            await visit.location_ways(location)
            return location

        def loaded(location: Location) -> None:
            if known is None:
                self.query_one(KioskHeader).set_title(
                    location.restaurant_display_name, _(self.TITLE)
                )
            self._show_location(location, visit.state.ways)

        if known is not None and known.methods_status is not None:
            self._show_location(known, known.methods_status)
            return
        self.call(
            fetch, group="location", done=loaded, busy=self.query_one("#welcome-body"), read=True
        )

    def _follow_state(self, state: VisitState | None) -> None:
        """What the server holds, as the Visit publishes it: the ways it offers now (read again
        after it refused the order's way), and why the order's way must be chosen again."""
        if state is None:
            return
        ways_changed = state.ways != self._seen_ways
        self._seen_ways = state.ways
        if self._location is None:
            return
        if ways_changed:
            self._show_location(state.location or self._location, state.ways)
            details = self.query_one("#details")
            if details.display and self.method not in self.methods:
                self.action_back()  # closes that way's details form: it is no longer offered
        self._say_refusal(state.way_refused)

    def _say_refusal(self, refusal: str | None) -> None:
        """The server refused the order's way (switched off, or gone over a restart): said once,
        in its words where they are fit for a customer; the same cart waits for another way."""
        if not refusal or refusal == self._refusal_said:
            self._refusal_said = refusal
            return
        self._refusal_said = refusal
        said = refusal if customer_safe(refusal) else _(WAY_REFUSED)
        kept = self.kiosk.visit.state.cart_id is not None
        self.say(
            said,
            hint=_("Please choose another way to order: your order is kept.")
            if kept
            else _("Please choose another way to order."),
        )

    def _show_location(self, location: Location, ways: MethodsStatus | None) -> None:
        self._location = location
        status = self.kiosk.visit.opening(location)
        title = Text(_("Welcome to "), style="bold")
        title.append(clean(location.restaurant_display_name, 80), style="bold")
        self.query_one("#welcome-title", Static).update(title)
        hours = Text(status.summary, style=tone(self.app, "ok" if status.is_open else "warn"))
        if status.known:
            hours.append(f" · {status.today_phrase}", style=tone(self.app, "muted"))
        closed = self.closed_for_orders(location)
        # Closed with no orders for later: no way to order is offered, only when it opens.
        self.methods = [] if closed is not None else self.orderable_methods(location, ways=ways)
        later = ""
        if closed is not None:
            # At the top where the ways to order would be, not on the bottom row under an empty
            # screen (issue 33); said aloud as a banner would be.
            later = closed
        elif not self.methods:
            later = _("This restaurant is not taking orders right now.")
            later += " " + _("Please ask staff.")
        elif status.known and status.is_open is False:
            # Said before the first choice, not learnt in the cart (issue 20): the order will be
            # for later, and the customer picks the time in the order.
            later = _("We're closed now: you can order for later and choose the time.")
        if later:
            self.query_one("#welcome-later", Static).update(
                Text(later, style=tone(self.app, "warn"))
            )
        self.query_one("#welcome-later").display = bool(later)
        self.query_one("#welcome-hours", Static).update(hours)
        self.query_one("#prompt").display = closed is None
        rows = []
        for number, method in enumerate(self.methods, start=1):
            label, description = METHODS[method]
            text = Text(f" {number}  ", style="bold")
            text.append(_(label), style="bold")
            text.append(f"  {_(description)}", style="dim")
            rows.append(TextRow(method, text))
        methods = self.query_one("#methods", MethodList)
        methods.set_rows(rows)
        methods.styles.height = max(len(rows), 1)
        if not self.query_one("#details").display:  # drawn again under an open form: not there
            methods.focus()
        if closed is not None or not self.methods:
            speak(self, later, "info")
        else:
            self._say_refusal(self.kiosk.visit.state.way_refused)

    def _country(self) -> str | None:
        location = self.kiosk.location
        address = getattr(location, "address_data", None) if location is not None else None
        return getattr(address, "country", None)

    # Choosing -------------------------------------------------------------------------------------
    async def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        await self.choose(event.key)

    async def on_key(self, event: events.Key) -> None:
        # Digits pick a method only from the list: with the details form open, a stray digit on
        # its button must not switch the order to another method. Not "the list has the focus":
        # a digit typed on at once reaches a welcome whose focus is still to be set, and was lost.
        if self.query_one("#details").display:
            return
        if event.character and event.character.isdigit() and event.character != "0":
            index = int(event.character) - 1
            if index < len(self.methods):
                event.stop()
                self.query_one("#methods", MethodList).move_to_key(self.methods[index])
                await self.choose(self.methods[index])

    async def choose(self, key: Hashable) -> None:
        method = str(key)
        self.method = method
        self.refresh_bindings()
        fields = FIELDS.get(method)
        details = self.query_one("#details")
        if not fields:
            details.display = False
            self.start()
            return
        container = self.query_one("#fields", Vertical)
        await container.remove_children()
        rows: list[Widget] = []
        for field_id, label, placeholder, limit in fields:
            rows.append(
                Horizontal(
                    Label(
                        postal_label(self._country()) if field_id == "zip" else _(label),
                        classes="field-label",
                    ),
                    TextField(
                        placeholder=_(placeholder) if placeholder else "",
                        max_length=limit,
                        id=f"f-{field_id}",
                        compact=self.compact,
                    ),
                    classes="field-row",
                )
            )
            rows.append(FieldError(id=f"e-{field_id}"))
        await container.mount_all(rows)
        self.query_one("#details-title", Static).update(
            Text(_("{method}: a few details").format(method=_(METHODS[method][0])), style="bold")
        )
        details.display = True
        # The form needs the room at 80x24; the language is chosen before the way of ordering.
        self.query_one(LanguageBar).display = False
        self.query_one(f"#f-{fields[0][0]}", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query("#fields Input").results(Input))
        if event.input in inputs:
            index = inputs.index(event.input)
            if index + 1 < len(inputs):
                inputs[index + 1].focus()
                return
        self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "text-size":
            event.stop()
            self.action_text_size()
        elif event.button.id == "start":
            event.stop()
            self.start()

    def values(self) -> dict[str, str]:
        return {
            str(i.id)[2:]: " ".join(i.value.split())
            for i in self.query("#fields Input").results(Input)
        }

    def _field_error(self, field_id: str, message: str) -> None:
        errors = self.query(f"#e-{field_id}")
        if not errors:
            self.say(message)
            return
        errors.first(FieldError).show(message)

    def check(self) -> dict[str, str] | None:
        """Local checks before anything is sent: required details present."""
        values = self.values()
        ok = True
        for field_id, label, _placeholder, _limit in FIELDS.get(self.method or "", ()):
            if field_id in OPTIONAL:
                continue
            if not values.get(field_id):
                self._field_error(
                    field_id, _("Please enter your {field}.").format(field=_(label).lower())
                )
                ok = False
            else:
                self._field_error(field_id, "")
        return values if ok else None

    def start(self) -> None:
        method = self.method
        if method is None:
            return
        values = self.check()
        if values is None:
            return
        kiosk = self.kiosk
        location = kiosk.location

        async def begin() -> None:
            await kiosk.visit.start_with_details(method, values, location)

        def failed(failure: Failure) -> bool:
            field = SERVER_FIELDS.get(failure.field or "", failure.field or "")
            if field and self.query(f"#e-{field}"):
                self._field_error(field, failure.message)
                return True
            return False

        def started(_: None) -> Awaitable[Any]:
            return self.kiosk.navigate(Wants(Step.MENU))

        # Keys typed on after the choice ("1", then "cookie") are for the menu's search.
        self.call(
            begin,
            group="cart",
            done=started,
            failed=failed,
            busy=self.query_one("#welcome-body"),
            leads_on=True,
        )

    # Language -------------------------------------------------------------------------------------
    async def on_language_bar_chosen(self, event: LanguageBar.Chosen) -> None:
        event.stop()
        await self.kiosk.set_language(event.code)

    async def action_next_language(self) -> None:
        codes = list(LANGUAGES)
        await self.kiosk.set_language(codes[(codes.index(language()) + 1) % len(codes)])

    async def relanguage(self) -> None:
        """Drawn again in the language just chosen, as when first shown (a details form open is
        closed: the customer chooses the way of ordering again, now in their language)."""
        on_bar = isinstance(getattr(self.focused, "parent", None), LanguageBar)
        self.method = None
        await self.recompose()
        self.apply_density()
        self.on_mount()
        # Where the customer was: on the language choice, or (F3) on the list.
        if on_bar:
            self.query_one(LanguageBar).focus_current()

    # Large text -----------------------------------------------------------------------------------
    def action_text_size(self) -> None:
        app = self.app
        if isinstance(app, Accessibility):
            app.action_toggle_large_text()
        self._show_text_size()

    def _show_text_size(self) -> None:
        self.query_one("#text-size", Button).label = text_size_label(large_text(self.app))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_language":
            # Not while a details form is open: switching would redraw it empty.
            bars = self.query(LanguageBar)
            return bool(bars) and bars.first(LanguageBar).display
        # The first screen of a one-location kiosk: nowhere to go back to.
        return not (action == "back" and self.kiosk.single_location and self.method is None)

    def action_back(self) -> None:
        if self.query_one("#details").display:
            self.query_one("#details").display = False
            self.query_one(LanguageBar).display = True
            self.method = None
            self.refresh_bindings()
            self.query_one("#methods", MethodList).focus()
            return
        if self.kiosk.single_location:
            return
        if self.kiosk.visit.state.cart_id is not None:
            # Back from here leaves the order (the menu's Escape came back here, the cart kept):
            # that is starting over, which asks first when the cart holds anything.
            self.kiosk.action_start_over()
            return
        self.kiosk.navigate(Wants(Step.LOCATION))

    def on_screen_resume(self) -> None:
        # Back from the menu (Escape): the choice of ways is where the customer is again.
        if self.methods and not self.query_one("#details").display:
            self.query_one("#methods", MethodList).focus()
