"""1. Location: the merchant's locations with address, today's hours, open or closed, and what each
offers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Hashable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from kiosk.i18n import LANGUAGES, N_, _, language
from kiosk.tui.flow import Step, Wants
from kiosk.tui.labels import METHODS
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.language import LanguageBar
from kiosk.tui.widgets.lists import TextRow, TextRowList
from kiosk.tui.widgets.recall import RecallLine, show_number
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from kiosk.api import Location
    from kiosk.tui.errors import Failure


class LocationList(TextRowList):
    pass


class LocationScreen(KioskScreen):
    TITLE = N_("Choose a restaurant")
    # The first screen: Escape has nowhere to go, so it is not offered.
    BINDINGS = [
        Binding("escape", "back", "Back", show=False),
        # The last order's number again (said on the screen when there is one).
        Binding("n", "show_number", show=False),
        # The first screen a customer sees: their language is chosen here too.
        Binding("f3", "next_language", N_("Language")),
    ]

    def main_key(self) -> tuple[str, str] | None:
        return ("enter", _("Choose"))  # the focused list's choice, first in the footer

    def action_show_number(self) -> None:
        show_number(self.app)

    def __init__(self) -> None:
        super().__init__()
        self.locations: dict[str, Location] = {}
        self.failed: dict[str, str] = {}
        # While the list loads, a choice (1, Enter) waits for it, and the keys after it wait
        # for the screen it leads to: a key typed at once, or with the first screen still
        # drawing, was refused as "could not be loaded" and lost.
        self._loading = False
        self._waiting_choice: str | None = None
        # This screen's hold on the keys typed after a waiting choice.
        self._holding: int | None = None

    def header_title(self) -> str:
        return _("Welcome")

    def compose_body(self) -> ComposeResult:
        self.drawn_in = language()
        with Vertical(id="location-body"):
            yield Static(Text(_("Where would you like to order from?"), style="bold"), id="prompt")
            yield LanguageBar(id="languages")
            yield LocationList(id="locations")
            yield Static(
                Text(_("↑↓ choose · Enter or 1-9 to select"), style="dim"), id="location-help"
            )
            yield RecallLine(id="recall")

    def on_mount(self) -> None:
        self.load()

    async def on_screen_resume(self) -> None:
        # Back from the welcome screen, where the customer chose another language: drawn in it.
        if getattr(self, "drawn_in", language()) != language():
            await self.relanguage()

    async def relanguage(self) -> None:
        """Drawn again in the language just chosen (KioskApp.set_language)."""
        on_bar = isinstance(getattr(self.focused, "parent", None), LanguageBar)
        await self.recompose()
        self.apply_density()
        self.load()
        if on_bar:
            self.query_one(LanguageBar).focus_current()

    async def on_language_bar_chosen(self, event: LanguageBar.Chosen) -> None:
        event.stop()
        await self.kiosk.set_language(event.code)

    async def action_next_language(self) -> None:
        codes = list(LANGUAGES)
        await self.kiosk.set_language(codes[(codes.index(language()) + 1) % len(codes)])

    def load(self) -> None:
        services = self.kiosk.services
        visit = self.kiosk.visit
        body = self.query_one("#locations", LocationList)

        async def fetch() -> tuple[dict[str, Location], dict[str, str]]:
            from kiosk.tui.errors import describe

            async def one(location_id: str) -> Location:
                return await visit.load_location(location_id)

            ids = list(services.location_ids)
            results = await asyncio.gather(*(one(i) for i in ids), return_exceptions=True)
            found: dict[str, Location] = {}
            failed: dict[str, str] = {}
            for location_id, result in zip(ids, results, strict=True):
                if isinstance(result, BaseException):
                    failed[location_id] = describe(result).message
                else:
                    found[location_id] = result
            if not found and failed:
                raise next(r for r in results if isinstance(r, BaseException))
            return found, failed

        def failed(failure: Failure) -> bool:
            if failure.again_in is not None:
                # Refused by the rate limit: the list is read again by itself after the
                # countdown, and a choice made meanwhile is still made then. The keys after it
                # go on to this screen, so that the customer is not deaf for the wait (a later
                # digit is a later choice).
                self._let_go()
                return False
            self._loading = False
            self._waiting_choice = None  # the banner says what failed; no choice is made
            self._let_go()
            return False

        self._loading = True
        self.call(
            fetch,
            group="location",
            done=self._loaded,
            failed=failed,
            busy=body,
            exclusive=True,
            read=True,
        )

    async def _loaded(self, result: tuple[dict[str, Location], dict[str, str]]) -> None:
        self.locations, self.failed = result
        self._loading = False
        rows: list[TextRow] = []
        for number, location_id in enumerate(self.kiosk.services.location_ids, start=1):
            location = self.locations.get(location_id)
            head = Text(f" {number}  ", style="bold")
            if location is None:
                head.append(clean(location_id, 60))
                rows.append(TextRow(location_id, head))
                rows.append(
                    TextRow(
                        None,
                        Text(
                            f"    {self.failed.get(location_id, '')}", style=tone(self.app, "error")
                        ),
                    )
                )
                continue
            status = self.kiosk.visit.opening(location)
            head.append(clean(location.restaurant_display_name or location_id, 80))
            state = Text(status.summary, style=tone(self.app, "ok" if status.is_open else "warn"))
            rows.append(TextRow(location_id, head, state))
            if location.address_string:
                rows.append(TextRow(None, Text("    " + clean(location.address_string, 120))))
            phrase = status.today_phrase
            detail = Text(f"    {phrase[:1].upper()}{phrase[1:]}", style="dim")
            closed = self.closed_for_orders(location)
            if closed is not None:
                detail.append(" · " + _("not taking orders now"), style=tone(self.app, "warn"))
            else:
                # The welcome screen's own rule, so the list never promises what it hides.
                methods = ", ".join(
                    _(METHODS[m][0])
                    for m in self.orderable_methods(location, location_id=location_id)
                )
                detail.append(f" · {methods}")
            rows.append(TextRow(None, detail))
            rows.append(TextRow(None, Text("")))
        if self.failed:
            self.say(
                _("Some restaurants could not be loaded."),
                hint=_("Press R to try again."),
                kind="error",
            )
            self._retry = self.load
        listing = self.query_one("#locations", LocationList)
        listing.set_rows(rows)
        listing.focus()
        chosen, self._waiting_choice = self._waiting_choice, None
        try:
            if chosen is not None:
                pushed = self.pick(chosen)
                if pushed is not None:
                    await pushed
        finally:
            self._let_go()

    def _let_go(self) -> None:
        hold, self._holding = self._holding, None
        if hold is not None:
            self.kiosk.release_keys(hold)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.pick(event.key)

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit() and event.character != "0":
            index = int(event.character) - 1
            ids = self.kiosk.services.location_ids
            if index < len(ids):
                event.stop()
                self.pick(ids[index])

    def pick(self, key: Hashable) -> Awaitable[Any] | None:
        """Go on with the restaurant `key`; the next screen's push (to await), if it opens."""
        location_id = str(key)
        if self._loading:
            # The keys after a choice wait with it for the list, unless the list waits out the
            # rate limit's countdown: the customer goes on reading the screen meanwhile.
            if self._holding is None and not self.rate_wait.active:
                self._holding = self.kiosk.hold_keys()
            self._waiting_choice = location_id
            return None
        location = self.locations.get(location_id)
        if location is None:
            self.say(
                _("That restaurant could not be loaded."),
                hint=_("Press R to try again, or choose another."),
            )
            self._retry = self.load
            return None
        closed = self.closed_for_orders(location)
        if closed is not None:
            self.say(closed, hint=_("Please choose another restaurant."), kind="info")
            return None
        self.kiosk.choose_location(location_id, location)
        return self.kiosk.navigate(Wants(Step.WELCOME))

    def action_back(self) -> None:
        # The first screen: there is nowhere to go back to.
        self.banner.clear()
