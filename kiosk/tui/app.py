"""KioskApp: the ordering flow on top of KioskServices (clients, settings) and the Visit.

Data flows one way: a key press -> a screen handler -> an intent on the Visit (kiosk.ordering.visit)
-> the client -> the backend; the backend's cart -> the Visit publishes a frozen VisitState ->
`KioskApp.visit_state` (and the `cart`, `location`, `status_text` reactives) -> every widget that
shows it. No widget keeps its own copy of the cart, and no screen calls the client.

Startup stays light: this module imports Textual and the kiosk's own small UI modules only;
kiosk.api (httpx, pydantic models) and kiosk.ordering are imported after the first frame.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Input

from kiosk import i18n
from kiosk.i18n import N_, _
from kiosk.paths import styles_dir
from kiosk.tui.a11y import Accessibility
from kiosk.tui.kiosk_mode import KIOSK_MODE_BINDINGS, KioskMode

if TYPE_CHECKING:
    from textual.timer import Timer

    from kiosk.api import Cart, Location
    from kiosk.ordering.lifecycle import OrderSnapshot
    from kiosk.ordering.recent import RecentNumber
    from kiosk.ordering.services import KioskServices
    from kiosk.ordering.visit import Visit, VisitState
    from kiosk.speech import Speaker
    from kiosk.tui.spoken import Announcer

# One stylesheet per screen plus the theme (architecture: styles/ carried into the wheel).
STYLESHEETS = (
    "theme.tcss",
    "location.tcss",
    "welcome.tcss",
    "menu.tcss",
    "product.tcss",
    "cart.tcss",
    "checkout.tcss",
    "payment.tcss",
    "done.tcss",
    # Kiosk mode (kiosk/tui/kiosk_mode.py): staff, the idle prompt, the attract screen.
    "staff.tcss",
    "idle.tcss",
    "attract.tcss",
    # Large text (issue 13 F): last, so that its rules win over each screen's.
    "large.tcss",
)
# What the boot screen's first frame needs ("Starting…" is styled in the theme). The others are
# read once that frame is out: parsing all twelve first cost ~10 ms of `kiosk demo`'s first frame.
BOOT_STYLESHEETS = ("theme.tcss",)


# Where the open cart's id is kept for crash resume, inside services.state_dir.
CART_ID_FILE = "open-cart.json"

# The longest keys wait for the next screen (KioskApp.hold_keys): longer than a step takes on a
# slow link, short enough that a step that never ends does not leave the kiosk deaf.
HOLD_LIMIT = 10.0

log = logging.getLogger("kiosk.tui")


def key_again(event: events.Key) -> events.Key:
    """A fresh copy of a key that was stopped, to send again. It keeps the time it was typed:
    its place among held keys, and before or after the key that decided a step."""
    again = events.Key(event.key, event.character)
    again.time = event.time
    return again


def resume_file(state_dir: Path | None) -> Path | None:
    """The crash-resume file's path: the one place that computes it. `state_dir` is already this
    terminal's own folder (runtime.state_dir_for, kiosk.terminal)."""
    return None if state_dir is None else state_dir / CART_ID_FILE


def _css_paths(names: tuple[str, ...] = STYLESHEETS) -> list[str]:
    base = styles_dir()
    return [str(base / name) for name in names]


class KioskApp(KioskMode, Accessibility, App[None]):
    """The counter kiosk. `services` is everything it is given (settings, clients, demo flag)."""

    TITLE = "Kiosk"
    CSS_PATH = _css_paths()  # type: ignore[assignment]
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
            kwargs.setdefault("css_path", _css_paths(BOOT_STYLESHEETS))
        super().__init__(**kwargs)
        self._services = services
        self._services_factory = services_factory
        # Where the last first screen is kept (a kiosk.diskcache.DiskSlot), and what it held.
        self._first_screen_slot: Any = None
        # Keys that came while the kiosk was on its way to another screen (hold_keys).
        self._held_keys: list[events.Key] | None = None
        self._hold_limit: Timer | None = None
        # How many steps hold the keys (hold_keys, release_keys); while held keys are replayed.
        self._holders = 0
        self._replaying = False
        # While _show_start swaps every screen for the next customer's first: taps are dropped.
        self._swapping = False
        # Stamped on replayed keys; a new step during a replay makes those behind it wait again.
        self._hold_generation = 0
        # Which holds are live: HOLD_LIMIT moves it on, and the holds before it release nothing.
        self._hold_epoch = 0
        # Keys typed up to this moment are not held (hold_keys' `after`).
        self._hold_after = -math.inf
        self._kept_first_screen: Any = None
        # A cold start's first reads, sent before the first screen is built (boot); held here
        # because the loop keeps only weak references to tasks.
        self._first_reads: asyncio.Future[Any] | None = None
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

    def _after_first_frame(self, boot_screen: Any) -> None:
        # The factory first: its slow imports run in a thread while the stylesheets are read.
        self.boot(boot_screen)
        self._read_stylesheets()

    def _read_stylesheets(self) -> None:
        """Read the stylesheets the first frame did without and restyle what is mounted. Only
        the new files are parsed (Stylesheet.parse keeps what it parsed before); they come after
        the theme, as in STYLESHEETS, so the cascade is the same as with all of them read first."""
        stylesheet = self.stylesheet
        missing = [p for p in _css_paths() if not stylesheet.has_source(os.path.abspath(p))]
        if not missing:
            return
        for path in missing:
            stylesheet.read(path)
        stylesheet.parse()
        stylesheet.update(self)
        # Sizes may change with the new rules (the footer's keys): lay the screens out again.
        for screen in self.screen_stack:
            screen.refresh(layout=True)
        self.css_path = [*self.css_path, *(Path(p) for p in missing)]
        if self.css_monitor is not None:  # `textual run --dev`: watch them too
            self.css_monitor.add_paths(self.css_path)

    def boot(self, boot_screen: Any) -> None:
        """Await the services factory in a worker; the boot screen shows a failure and R retries."""
        factory = self._services_factory
        assert factory is not None

        async def start() -> None:
            try:
                services = await factory()
            except Exception as error:  # shown to staff on the boot screen
                boot_screen.failed(error)
                return
            self._services_ready(services)
            if boot_screen.preview is not None:
                # The kept screen stays up, "updating…", while its data is read again.
                await self._warm_start()
            else:
                # The first screen's reads start now, in flight while that screen is built; the
                # screen's own reads share them (the client's in-flight reads), failures included.
                self._first_reads = asyncio.gather(
                    *self._first_screen_reads(), return_exceptions=True
                )
            screen = self._start_screen()
            await self.switch_screen(screen)
            self.kiosk_started()
            if self._first_screen_slot is not None:
                self.run_worker(
                    self._first_screen_up(screen, boot_screen),
                    group="first-screen",
                    exit_on_error=False,
                )

        self.run_worker(start(), group="boot", exclusive=True, exit_on_error=False)

    # How long the kept first screen may wait for its data to be read again before the real screen
    # takes over (and shows its own loading and, if need be, its own failure).
    WARM_START_LIMIT = 5.0

    async def _warm_start(self) -> None:
        """Read the first screen's locations (from the disk cache while fresh, revalidated when
        not) so that the real screen draws from memory at once; failures are the screen's."""
        import contextlib

        reads = self._first_screen_reads()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.WARM_START_LIMIT):
                await asyncio.gather(*reads, return_exceptions=True)

    def _first_screen_reads(self) -> list[Awaitable[Any]]:
        """What the first screen reads: its locations."""
        visit = self.visit
        return [visit.load_location(i) for i in self.services.location_ids]

    async def _first_screen_up(self, screen: Any, boot_screen: Any) -> None:
        """Once the real first screen has its data: keep what it shows for the next start (when it
        changed) and carry out the choice made on the kept one: made before, or in flight while
        the screens were swapped (a tap read by the kept screen after it had gone)."""
        from kiosk.tui import first_screen
        from kiosk.tui.screens.location import LocationScreen
        from kiosk.tui.screens.welcome import WelcomeScreen

        loading = [w for w in self.workers if w.node is screen and w.group == "location"]
        if loading:  # (an empty list would wait for every worker, this one too)
            await self.workers.wait_for_complete(loading)
        # Laid out with its data first: the rows' places are kept with the texts.
        laid_out = asyncio.Event()
        screen.call_after_refresh(laid_out.set)
        await laid_out.wait()
        if self.screen is not screen or not isinstance(screen, LocationScreen | WelcomeScreen):
            return
        kind = "locations" if isinstance(screen, LocationScreen) else "welcome"
        shown = first_screen.capture(screen, kind, self.services.demo)
        if shown is not None and not shown.same_as(self._kept_first_screen):
            slot, data = self._first_screen_slot, shown.to_json()
            self._kept_first_screen = shown
            self.run_worker(lambda: slot.write(data), thread=True, group="first-screen-write")

        async def carry(chosen: Any) -> None:
            # Only onto the screen the kept one stood for, and only before a choice made there.
            if self.screen is not screen:
                return
            if isinstance(screen, LocationScreen) and str(chosen) in screen.locations:
                screen.pick(chosen)
            elif (
                isinstance(screen, WelcomeScreen)
                and screen.method is None
                and str(chosen) in screen.methods
            ):
                screen.query_one("#methods").move_to_key(chosen)  # type: ignore[attr-defined]
                await screen.choose(chosen)

        if boot_screen.chosen is not None:
            await carry(boot_screen.chosen)
        else:
            boot_screen.carry = carry

    def _start_screen(self) -> Any:
        if self.single_location:
            from kiosk.tui.screens.welcome import WelcomeScreen

            return WelcomeScreen()
        from kiosk.tui.screens.location import LocationScreen

        return LocationScreen()

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
        if before is None or before.order != state.order:
            self._follow_order(before.order if before is not None else None, state.order)
        if state.way_refused and (before is None or before.way_refused != state.way_refused):
            self.call_later(self._choose_way_again)

    def _follow_order(self, before: OrderSnapshot | None, order: OrderSnapshot) -> None:
        """Screens render the order's lifecycle. Two moves happen away from the payment screen:
        an order paid with a code the customer was shown before going back to the order (2.0
        keeps that code payable) goes to the done screen with its number; and while such a code
        may still pay, a slow watch asks the server now and then."""
        from kiosk.ordering.lifecycle import Phase

        if order.phase is Phase.PAID and (before is None or before.phase is not Phase.PAID):
            from kiosk.tui.screens.done import DoneScreen
            from kiosk.tui.screens.payment import PaymentScreen

            if not any(isinstance(s, PaymentScreen | DoneScreen) for s in self.screen_stack):
                self.call_later(self._show_paid)
        if order.phase is Phase.EXPIRED and (before is None or before.phase is not Phase.EXPIRED):
            self.call_later(self._show_expired)
        if (
            order.phase is Phase.ORDERING
            and order.checkout_url is not None
            and (before is None or before.phase is not Phase.ORDERING)
        ):
            self.run_worker(
                self.visit.watch_kept_handoff(),
                group="handoff-watch",
                exclusive=True,
                exit_on_error=False,
            )

    async def _choose_way_again(self) -> None:
        """The server refused the order's way to order (switched off meanwhile, or gone over a
        restart): the welcome, where the customer chooses another way for the same cart (it
        says why, from the VisitState)."""
        from kiosk.tui.screens.welcome import WelcomeScreen

        if not self.visit.state.way_refused:
            return
        if not any(isinstance(s, WelcomeScreen) for s in self.screen_stack):
            await self.push_screen(WelcomeScreen())
            return
        while not isinstance(self.screen, WelcomeScreen):
            await self.pop_screen()

    async def _show_expired(self) -> None:
        """The order expired while the customer was choosing (on the menu or a product): the
        order screen says so, with its one way on (start again with the same items). Where the
        order screen is open already, or the payment (it says so itself), nothing moves."""
        from kiosk.tui.screens.cart import CartScreen
        from kiosk.tui.screens.menu import MenuScreen
        from kiosk.tui.screens.product import ProductScreen

        stack = self.screen_stack
        menus = [i for i, s in enumerate(stack) if isinstance(s, MenuScreen)]
        if not menus or any(not isinstance(s, ProductScreen) for s in stack[menus[-1] + 1 :]):
            return
        while not isinstance(self.screen, MenuScreen):
            await self.pop_screen()
        await self.push_screen(CartScreen())

    async def _show_paid(self) -> None:
        from kiosk.tui.screens.done import DoneScreen

        state = self.visit.state
        while len(self.screen_stack) > 2:
            await self.pop_screen()
        await self.push_screen(DoneScreen(state.cart, state.order.order_number))

    async def go_home(self, *, abandoned: bool = False) -> None:
        """Back to the first screen with nothing left of this visit: every field cleared now, the
        cart discarded on the server in the background (Visit.end). `abandoned`: nobody asked
        (the idle timeout), which the fleet's metrics tell apart from a start over."""
        from kiosk.ordering.events import OrderEvent

        self.visit.end(OrderEvent.ABANDONED if abandoned else OrderEvent.RESET)
        await self._show_start()

    async def serve_locations(self, location_ids: Sequence[str]) -> None:
        """Serve `location_ids` from now on (staff): one is a fixed location, several let the
        customer choose. The visit in progress ends first, as by any reset (its cart discarded),
        and the kiosk shows its new first screen."""
        ids = list(location_ids)
        if not ids:
            raise ValueError("a kiosk serves at least one location")
        self.visit.serve_locations(ids)
        self.services.location_ids = ids
        await self._show_start()

    async def _show_start(self) -> None:
        # The next customer starts in the kiosk's own language, whatever the last one chose.
        self._apply_language(self.settings.language)
        # Each new order starts in the merchant's text size (a customer may have switched it).
        self.reset_large_text()
        # One step from the last screen to the first. Popped one by one, each screen underneath
        # was drawn for a moment (the order, the menu, the last customer's welcome) and a key or
        # a tap in that moment went to a screen on its way out (issue 20: keys in bursts).
        # Repaints wait for the new first screen, and so do keys (then given to it, in order);
        # taps aimed at the old screens are dropped.
        hold = self.hold_keys()
        self._swapping = True
        try:
            with self.batch_update():
                while len(self.screen_stack) > 1:
                    await self.pop_screen()
                await self.push_screen(self._start_screen())
        finally:
            self._swapping = False
            self.release_keys(hold)

    def hold_keys(self, after: float | None = None) -> int:
        """Keys wait from now on: the screen on top is on its way out, and what comes next is meant
        for the screen after it. Held from the key that decided the step, not
        from when its worker runs: the keys after it in the same read (a burst over a laggy
        link) are handled before that, and went to the screen on its way out.

        Each call is paired with a `release_keys(hold)` of the hold it returns; the keys go on
        when every step that holds them has released them. `after`: only keys typed after that
        moment (an event's `time`) wait; by default every key still on its way."""
        since = -math.inf if after is None else after
        self._holders += 1
        if self._held_keys is None:
            self._held_keys = []
            self._hold_after = since
        elif self._replaying:
            # A replayed key began a new step: the replayed keys behind it wait for that step.
            self._hold_generation += 1
            self._hold_after = since
        # Should a step never release them (a message that never came), the keys go on after
        # HOLD_LIMIT rather than the kiosk ignoring every key.
        if self._hold_limit is not None:
            self._hold_limit.stop()
        self._hold_limit = self.set_timer(HOLD_LIMIT, self._hold_expired)
        return self._hold_epoch

    def _hold_expired(self) -> None:
        self._hold_limit = None
        if self._held_keys is not None:
            log.warning("keys held for %.0f s: released", HOLD_LIMIT)
            self._holders = 0
            # The steps that held them release nothing now: late, each would end a later hold.
            self._hold_epoch += 1
            self._replay()

    def holds(self, hold: int) -> bool:
        """Whether `hold` (as hold_keys returned it) may still be holding keys."""
        return self._held_keys is not None and hold == self._hold_epoch

    def release_keys(self, hold: int) -> None:
        """One step's hold ends (`hold`, as hold_keys returned it); when none is left, the held
        keys go to the screen now on top. A hold HOLD_LIMIT already ended releases nothing."""
        if self._held_keys is None or hold != self._hold_epoch:
            return
        self._holders = max(self._holders - 1, 0)
        if self._holders == 0 and not self._replaying:
            self._replay()

    def _replay(self) -> None:
        """The held keys to the screen on top, in the order they were typed (a key that came
        back from the screen going out was held after later ones that came straight here).
        Keys that come meanwhile wait their turn: they are held until the held ones have been
        handled (else the 'c' of 'cookie', held, came after 'ookie')."""
        held = self._held_keys or []
        self._held_keys = []
        self._replaying = True
        for key in sorted(held, key=lambda k: k.time):
            key._kiosk_replay = self._hold_generation  # type: ignore[attr-defined]
            self.post_message(key)
        self.call_later(self._released)

    def _released(self) -> None:
        # The replayed keys have been passed on (this call was queued after them).
        self._replaying = False
        if self._holders > 0:
            return  # one of them began a new step: it releases what waits for it
        if self._held_keys:
            self._replay()  # keys that came during the replay follow it
            return
        self._held_keys = None
        if self._hold_limit is not None:
            self._hold_limit.stop()
            self._hold_limit = None

    def _holds(self, event: events.Event) -> bool:
        """Whether `event` waits: keys are held, and it is not a key being replayed for the step
        now under way (a replayed key is held again only by a step that began after it)."""
        if self._held_keys is None:
            return False
        if getattr(event, "time", math.inf) <= self._hold_after:
            return False  # typed before the key that decided the step: it acts where it is
        replayed = getattr(event, "_kiosk_replay", None)
        return replayed is None or replayed < self._hold_generation

    def _hold(self, event: events.Key) -> bool:
        """Keep `event` for the next screen if keys are held (a copy: the event itself has been
        stopped on its way here)."""
        if self._held_keys is None or not self._holds(event):
            return False
        event.stop()
        event.prevent_default()
        self._held_keys.append(key_again(event))
        return True

    def pass_key_on(self, event: events.Key) -> None:
        """`event`, stopped where it was, handled again from the app (held while keys are)."""
        event.stop()
        event.prevent_default()
        self.post_message(key_again(event))

    async def on_event(self, event: events.Event) -> None:
        held = self._held_keys
        if getattr(event, "is_forwarded", False):
            pass
        elif held is not None and isinstance(event, events.Key) and self._holds(event):
            held.append(event)
            return
        elif self._swapping and isinstance(event, events.MouseEvent | events.Paste):
            # Aimed at a screen on its way out while the next customer's first screen comes.
            # Other steps let taps through: the screen a tap lands on is the one drawn (a tap on
            # the menu just opened, while the welcome's keys were still held, was lost).
            return
        await super().on_event(event)

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

    def reset_now(self, after: float | None = None) -> None:
        """go_home() in an app worker: a screen's own worker would die with the screen it pops.
        The keys after the one that asked (Enter, then 1 on the thank-you screen) are for the
        next customer's first screen: held now (those typed after `after`, see hold_keys)."""
        hold = self.hold_keys(after)

        async def reset() -> None:
            try:
                await self.go_home()
            finally:
                self.release_keys(hold)  # also if go_home failed before the swap

        self.run_worker(reset(), group="reset", exit_on_error=False)

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

    def on_key(self, event: events.Key) -> None:
        """A printable key that comes back to the app unhandled while an input has focus was
        meant for that input (an input stops every printable key it gets). In a burst (arrows
        and a code in one read) Textual hands every key to the widget focused when it reads
        them; the arrows then move focus to the code field and the letters, queued on the old
        widget, came back here: lost, or run as the screen's keys ("r"; issue 20). They go on
        to the input, in order, before any binding is looked at."""
        # Queued on a widget of the screen going out before the step away was taken (a burst
        # read at once): for the next screen.
        if self._hold(event):
            return
        focused = self.focused
        if isinstance(focused, Input) and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))

    def action_start_over(self) -> None:
        if self.cart is None or not self.cart.items:
            if len(self.screen_stack) > 2:
                self.reset_now()
            return
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.reset_now()

        self.push_screen(
            ConfirmDialog(
                _("Start over?"),
                detail=_("Your order will be cleared."),
                yes=_("Start over"),
                no=_("Keep my order"),
            ),
            answered,
        )

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
