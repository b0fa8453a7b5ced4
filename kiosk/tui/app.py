"""KioskApp: the ordering flow on top of KioskServices (clients, settings) and the Visit.

Data flows one way: a key press -> a screen handler -> an intent on the Visit (kiosk.ordering.visit)
-> the client -> the backend; the backend's cart -> the Visit publishes a frozen VisitState ->
`KioskApp.visit_state` (and the `cart`, `location`, `status_text` reactives) -> every widget that
shows it. No widget keeps its own copy of the cart, and no screen calls the client.

The app is composed by job: navigation, the router's applier and the reset (kiosk.tui.navigation,
deciding through kiosk.tui.router); the keys held between screens (kiosk.tui.held_keys); the boot
before the services exist (kiosk.tui.booting); kiosk mode, staff, idle and resume
(kiosk.tui.kiosk_mode); the theme and large text (kiosk.tui.a11y). This module keeps the services,
the Visit and what it publishes, speech, the language and the app's own keys.

Startup stays light: this module imports Textual and the kiosk's own small UI modules only;
kiosk.api (httpx, pydantic models) and kiosk.ordering are imported after the first frame.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Input

from kiosk import i18n
from kiosk.i18n import N_, _
from kiosk.tui.a11y import Accessibility
from kiosk.tui.booting import BOOT_STYLESHEETS, STYLESHEETS, Booting, css_paths
from kiosk.tui.held_keys import HeldKeys
from kiosk.tui.kiosk_mode import KIOSK_MODE_BINDINGS, KioskMode
from kiosk.tui.navigation import Navigation

__all__ = ["CART_ID_FILE", "STYLESHEETS", "KioskApp", "describe_status", "resume_file"]

if TYPE_CHECKING:
    from kiosk.api import Cart, Location
    from kiosk.ordering.recent import RecentNumber
    from kiosk.ordering.services import KioskServices
    from kiosk.ordering.visit import Visit, VisitState
    from kiosk.speech import Speaker
    from kiosk.tui.spoken import Announcer


# Where the open cart's id is kept for crash resume, inside services.state_dir.
CART_ID_FILE = "open-cart.json"


log = logging.getLogger("kiosk.tui")


def resume_file(state_dir: Path | None) -> Path | None:
    """The crash-resume file's path: the one place that computes it. `state_dir` is already this
    terminal's own folder (runtime.state_dir_for, kiosk.terminal)."""
    return None if state_dir is None else state_dir / CART_ID_FILE


class KioskApp(Navigation, HeldKeys, Booting, KioskMode, Accessibility, App[None]):
    """The counter kiosk. `services` is everything it is given (settings, clients, demo flag)."""

    TITLE = "Kiosk"
    CSS_PATH = css_paths()  # type: ignore[assignment]
    # -narrow: 80x24 (cart as a bar); -wide: the cart beside the menu.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        *KIOSK_MODE_BINDINGS,
        Binding("f9", "start_over", N_("Start over"), priority=False),
        # Focus moves when Tab is read, in order with the keys around it: as a widget's binding
        # it would run only after the focused input had taken the keys typed after it.
        Binding("tab", "app.focus_next", "Next", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous", show=False, priority=True),
        # Speech (issue 34, kiosk/tui/spoken.py): shown and acting only while speech is on.
        Binding("f7", "say_again", N_("Say again")),
        Binding("f8", "say_order", N_("Say my order")),
    ]

    # Until KioskApp.__init__ sets them (Textual may ask during App.__init__).
    _services: KioskServices | None = None
    clock: Callable[[], float] = staticmethod(time.monotonic)

    # The Visit's last published state (kiosk.ordering.visit.VisitState), whole.
    visit_state: reactive[VisitState | None] = reactive(None, init=False)
    # The cart the server last sent (the Visit publishes it); None before an order starts.
    cart: reactive[Cart | None] = reactive(None, init=False)
    # The location being ordered from, once loaded.
    location: reactive[Location | None] = reactive(None, init=False)
    # What the kiosk waits for ("Working…", "Busy: retrying in 12 s"); "" when idle.
    status_text: reactive[str] = reactive("")

    def __init__(
        self,
        services: KioskServices | None = None,
        *,
        services_factory: Callable[[], Awaitable[KioskServices]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        store_options: Mapping[str, Any] | None = None,
        speaker: Speaker | None = None,
        **kwargs: Any,
    ) -> None:
        """Give the services, or a factory the app awaits after its first frame (the slow imports
        and the embedded backend then start while "Starting…" is already on screen)."""
        if services is None and services_factory is None:
            raise TypeError("KioskApp needs services or a services_factory")
        if services is None:
            # Booting: the first frame with the theme alone; the rest in _read_stylesheets().
            kwargs.setdefault("css_path", css_paths(BOOT_STYLESHEETS))
        super().__init__(**kwargs)
        self._services = services
        self._services_factory = services_factory
        # Injected so that tests and snapshots can freeze countdowns and "open now".
        self.clock = clock
        self.wall_clock = wall_clock
        # Extra CartStore arguments (tests inject its sleep).
        self.store_options = dict(store_options or {})
        self._visit: Visit | None = None
        # Speech (kiosk/tui/spoken.py): None while it is off. `speaker`: tests' own.
        self._speaker = speaker
        self.announcer: Announcer | None = None
        self._unsubscribe: Callable[[], object] = lambda: None
        # A `kiosk serve` browser tab (textual's web driver): the tab is a counter terminal whose
        # customer may reload or lose the connection and come back (kiosk.serve), so its staff
        # keys ask for the PIN and its cart is kept when the browser goes.
        self.browser_session = "web_driver" in os.environ.get("TEXTUAL_DRIVER", "")
        # A quit keeps the open order's cart for the next start (journey 16); only start over
        # deletes it.
        self.keep_cart_on_quit = True
        # Textual's web driver blurs the app as it starts, after the page may already have focused
        # the terminal (kiosk/web does on load): that first blur is ignored (on_app_blur).
        self._start_blur_pending = self.browser_session
        self._thread = threading.get_ident()
        if services is not None:
            self._services_ready(services)
        else:
            self.setup_accessibility()  # the CLI's settings (kiosk_settings) while booting

    # Services -------------------------------------------------------------------------------------
    @property
    def services(self) -> KioskServices:
        if self._services is None:
            # AttributeError, so that getattr(app, "services", None) works before they exist.
            raise AttributeError("the kiosk's services are not ready yet")
        return self._services

    @property
    def services_or_none(self) -> KioskServices | None:
        return self._services

    def _services_ready(self, services: KioskServices) -> None:
        self._services = services
        i18n.set_language(services.settings.language)
        # The theme and large text of the settings (kiosk/tui/a11y.py).
        self.setup_accessibility()
        self._setup_speech(services.settings)

    def _setup_speech(self, settings: Any) -> None:
        """The speaker of the settings (or the one given), once."""
        if self.announcer is not None:
            return
        speaker = self._speaker
        if speaker is None:
            from kiosk.speech import speaker_for

            speaker = speaker_for(settings.speech, settings.speech_command, settings.language)
        if speaker is not None:
            from kiosk.tui.spoken import Announcer

            speaker.set_language(settings.language)
            self.announcer = Announcer(self, speaker)

    @property
    def settings(self) -> Any:
        return self.services.settings

    @property
    def single_location(self) -> bool:
        return len(self.services.location_ids) == 1

    # Start and reset ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._speak_screen)
        if self._services is not None:
            self.push_screen(self._start_screen())
            self.kiosk_started()
            return
        from kiosk.tui import first_screen
        from kiosk.tui.screens.boot import BootScreen

        # The last first screen kept on disk (a small JSON file): drawn in the first frame.
        self._first_screen_slot = getattr(self._services_factory, "first_screen", None)
        self._kept_first_screen = first_screen.read(self._first_screen_slot)
        boot_screen = BootScreen(self._kept_first_screen)
        self.push_screen(boot_screen)
        self.call_after_refresh(self._after_first_frame, boot_screen)

    def _speak_screen(self, screen: Any) -> None:
        # Not `_screen_changed`: that is KioskMode's hook (the health line, out of order), which
        # a method of the same name here would replace.
        if self.announcer is not None:
            self.announcer.screen_changed(screen)

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        if self.announcer is not None:
            self.announcer.poke()

    def on_input_changed(self, _event: Input.Changed) -> None:
        # What was typed, said back (a burst once, as the announcer gathers a step).
        if self.announcer is not None:
            self.announcer.poke()

    def action_say_again(self) -> None:
        if self.announcer is not None:
            self.announcer.repeat()

    def action_say_order(self) -> None:
        if self.announcer is not None:
            self.announcer.say_order()

    def cart_id_file(self) -> Path | None:
        return resume_file(self.services.state_dir)

    @property
    def recent_number(self) -> RecentNumber:
        """The last paid order's number, for "Missed your order number?" (kept by the Visit in
        the terminal's state folder: a new process or session offers it too)."""
        return self.visit.recent

    @property
    def visit(self) -> Visit:
        """The customer's visit (kiosk.ordering.visit): every screen's intents go here."""
        if self._visit is None:
            from kiosk.ordering.visit import Visit

            services = self.services
            self._visit = Visit(
                services.client_for,
                services.location_ids,
                wall_clock=self.wall_clock,
                cart_id_file=self.cart_id_file(),
                store_options=self.store_options,
                merchant_slug=services.merchant_slug,
                delivery_zones=services.settings.delivery_zones,
                observer=services.metrics,
            )
            # Prices in the kiosk's language from the first visit on, not only after a switch
            # (a Spanish kiosk drew its options "+$0.50" beside a cart in "0,50 US$").
            self._visit.locale = i18n.money_locale()
            self._unsubscribe = self._visit.subscribe(self._visit_published)
            self._visit_published(self._visit.state)
        return self._visit

    @property
    def location_id(self) -> str | None:
        return self.visit.location_id if self._services is not None else None

    def choose_location(self, location_id: str, location: Location | None) -> None:
        self.visit.choose_location(location_id, location)

    def _visit_published(self, state: VisitState) -> None:
        # The Visit may publish from another thread; reactives are set on the app's own.
        if threading.get_ident() != self._thread:
            self.call_from_thread(self._show_state, state)
        else:
            self._show_state(state)

    def _show_state(self, state: VisitState) -> None:
        before = self.visit_state
        self.visit_state = state
        self.cart = state.cart
        self.location = state.location
        self.status_text = describe_status(state.status)
        if self.announcer is not None:
            self.announcer.visit_changed(before, state, self.status_text)
        if before is None or (before.order, before.way_refused) != (state.order, state.way_refused):
            self._follow_order(before, state)  # the router's (kiosk.tui.navigation)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start_over":
            # Offered only once there is something to start over from, and not on the staff
            # screen, which has its own reset.
            return (
                self._visit is not None
                and len(self.screen_stack) > 2
                and getattr(self.screen, "OFFERS_START_OVER", True)
            )
        if action in ("say_again", "say_order"):
            return self.announcer is not None  # off: neither shown nor acting
        # Kiosk mode refuses quit, suspend and the command palette (kiosk_mode.py).
        return super().check_action(action, parameters)

    def _apply_language(self, code: str) -> None:
        i18n.set_language(code)
        if self.announcer is not None:
            self.announcer.speaker.set_language(code)
        if self._visit is not None:
            # The one locale the core's prices are drawn in (tips, the product's options).
            self._visit.locale = i18n.money_locale()

    async def set_language(self, code: str) -> None:
        """The customer's language for the rest of this visit: the screen on top is drawn again
        in it (its `relanguage()`), the footer's keys too; screens opened later are made in it."""
        self._apply_language(code)
        locale = i18n.money_locale()
        if locale is not None:
            # Babel's number and date data (~40 ms to import, ~100 ms the first price) are read
            # in a thread now, not on the menu's first frame after the switch.
            self.run_worker(
                lambda: warm_locale(locale), thread=True, group="language", exit_on_error=False
            )
        screen = self.screen
        relanguage = getattr(screen, "relanguage", None)
        if relanguage is not None:
            await relanguage()
        screen.refresh_bindings()
        if self.announcer is not None:
            self.announcer.relanguage()

    def on_app_blur(self, event: events.AppBlur) -> None:
        if self._start_blur_pending:
            # Keys and the footer's keys work from the first frame, without a click.
            self._start_blur_pending = False
            event.prevent_default()

    async def on_unmount(self) -> None:
        visit, self._visit = self._visit, None
        if visit is not None:
            self._unsubscribe()
            # A quit (Ctrl+Q, staff's exit) keeps an open order for the next start; so does a
            # terminal that hung up (a dropped link, not a customer who left).
            keep = self.keep_cart_on_quit or self.terminal_lost()
            await visit.quit(keep_cart=keep)
        if self._services is not None:
            await self._services.aclose()
        if self.announcer is not None:
            self.announcer.speaker.close()


def warm_locale(locale: str) -> None:
    """Load what formatting prices and times in `locale` needs (see KioskApp.set_language)."""
    from kiosk.api.money import format_money
    from kiosk.tui.cartview import local_moment

    format_money(0, "usd", locale)
    local_moment("2026-01-01", "12:00", locale)


def describe_status(status: Any) -> str:
    """The header's words for a CartStore status: busy, or waiting out the rate limit."""
    kind = getattr(status, "kind", None)
    if kind == "waiting":
        # The store says why it waits (the rate limit, or checking a write in doubt).
        said = getattr(status, "message", "")
        if said:
            return str(said)
        seconds = getattr(status, "seconds_left", None) or 0
        return _("Very busy: sending in {seconds} s").format(seconds=seconds)
    if kind == "busy":
        return _("Working…")
    # Errors are shown where they happened (the screen's banner), not in the header.
    return ""
