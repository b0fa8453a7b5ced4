"""KioskApp: the ordering flow on top of KioskServices (clients, settings) and the CartStore.

Data flows one way: a key press -> a screen handler -> the CartStore -> the client -> the backend;
the backend's cart -> the CartStore publishes it -> `KioskApp.cart` (reactive) -> every widget that
shows the cart watches it. No widget keeps its own copy of the cart.

Startup stays light: this module imports Textual and the kiosk's own small UI modules only;
kiosk.api (httpx, pydantic models) and kiosk.ordering are imported by the screens' workers, after
the first frame.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.reactive import reactive

from kiosk.paths import styles_dir
from kiosk.tui.kiosk_mode import KioskModeApp

if TYPE_CHECKING:
    from kiosk.api import Cart, Location, StorefrontClient
    from kiosk.ordering.cart_store import CartStore
    from kiosk.ordering.services import KioskServices
    from kiosk.ordering.session import CustomerSession

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
)
# What the boot screen's first frame needs ("Starting…" is styled in the theme). The others are
# read once that frame is out: parsing all twelve first cost ~10 ms of `kiosk demo`'s first frame.
BOOT_STYLESHEETS = ("theme.tcss",)


# Where the open cart's id is kept for crash resume, inside services.state_dir.
CART_ID_FILE = "open-cart.json"


def _css_paths(names: tuple[str, ...] = STYLESHEETS) -> list[str]:
    base = styles_dir()
    return [str(base / name) for name in names]


class KioskApp(KioskModeApp):
    """The counter kiosk. `services` is everything it is given (settings, clients, demo flag)."""

    TITLE = "Kiosk"
    CSS_PATH = _css_paths()  # type: ignore[assignment]
    # -narrow: 80x24 (cart as a bar); -wide: the cart beside the menu.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [Binding("f9", "start_over", "Start over", priority=False)]

    # The cart the server last sent (CartStore publishes it); None before an order starts.
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
        # Injected so that tests and snapshots can freeze countdowns and "open now".
        self.clock = clock
        self.wall_clock = wall_clock
        # Extra CartStore arguments (tests inject its sleep).
        self.store_options = dict(store_options or {})
        # The cart screen's last cross-sell answer, keyed by (cart id, product ids in the cart).
        self.cross_sell_memo: tuple[Any, list[Any]] | None = None
        self.location_id: str | None = None
        self._session: CustomerSession | None = None
        self._watched: CartStore | None = None
        self._unsubscribe: list[Callable[[], object]] = []
        self._thread = threading.get_ident()
        if services is not None:
            self._services_ready(services)

    # Services -------------------------------------------------------------------------------------
    @property
    def services(self) -> KioskServices:
        if self._services is None:
            # AttributeError, so that getattr(app, "services", None) works before they exist.
            raise AttributeError("the kiosk's services are not ready yet")
        return self._services

    def _services_ready(self, services: KioskServices) -> None:
        self._services = services
        if len(services.location_ids) == 1:
            self.location_id = services.location_ids[0]

    @property
    def settings(self) -> Any:
        return self.services.settings

    @property
    def client(self) -> StorefrontClient:
        if self.location_id is None:
            raise LookupError("no location chosen yet")
        return self.services.client_for(self.location_id)

    @property
    def single_location(self) -> bool:
        return len(self.services.location_ids) == 1

    # Start and reset ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        if self._services is not None:
            self.push_screen(self._start_screen())
            self.kiosk_started()
            return
        from kiosk.tui.screens.boot import BootScreen

        boot_screen = BootScreen()
        self.push_screen(boot_screen)
        self.call_after_refresh(self._after_first_frame, boot_screen)

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
            await self.switch_screen(self._start_screen())
            self.kiosk_started()

        self.run_worker(start(), group="boot", exclusive=True, exit_on_error=False)

    def _start_screen(self) -> Any:
        if self.single_location:
            from kiosk.tui.screens.welcome import WelcomeScreen

            return WelcomeScreen()
        from kiosk.tui.screens.location import LocationScreen

        return LocationScreen()

    def cart_id_file(self) -> Any:
        state_dir = self.services.state_dir
        return None if state_dir is None else state_dir / CART_ID_FILE

    def _make_store(self, location_id: str) -> CartStore:
        from kiosk.ordering.cart_store import CartStore

        location = self.location
        aliases = []
        if location is not None and location_id in (location.id, location.restaurant_slug):
            aliases = [a for a in (location.id, location.restaurant_slug) if a]
        return CartStore(
            self.services.client_for(location_id),
            location_id,
            clock=self.wall_clock,
            cart_id_file=self.cart_id_file(),
            location_aliases=aliases,
            **self.store_options,
        )

    @property
    def session(self) -> CustomerSession:
        """The customer's visit (location, method, details) and its CartStore."""
        if self._session is None:
            from kiosk.ordering.session import CustomerSession

            self._session = CustomerSession(
                self._make_store,
                self.location_id if self.single_location else None,
                fixed_location=self.single_location,
            )
        return self._session

    @property
    def store(self) -> CartStore | None:
        return self._session.store if self._session is not None else None

    def choose_location(self, location_id: str, location: Location | None) -> None:
        self.location_id = location_id
        self.location = location
        self.session.choose_location(location_id)
        self._follow_store()

    def _follow_store(self) -> None:
        """Subscribe to the session's current store (it changes with the location)."""
        store = self.store
        if store is self._watched:
            return
        self._unwatch()
        self._watched = store
        if store is None:
            self.cart = None
            return
        self._unsubscribe.append(store.subscribe(self._cart_published))
        self._unsubscribe.append(store.subscribe_status(self._status_published))
        self.cart = store.cart

    def _unwatch(self) -> None:
        for stop in self._unsubscribe:
            stop()
        self._unsubscribe.clear()
        self._watched = None
        self.status_text = ""

    async def start_order(
        self, method: str, details: Mapping[str, str], location: Location | None
    ) -> None:
        """Start (or switch) the ordering session for `method` with its details. A failure leaves
        the session's store as it is, so a retry switches the same cart instead of making
        another."""
        from kiosk.api import DeliveryAddress

        if self.location_id is None:
            raise LookupError("no location chosen yet")
        if self.store is None:
            self.session.choose_location(self.location_id)
        self._follow_store()
        kwargs: dict[str, Any] = {}
        if method == "table_service":
            kwargs["table_number"] = details["table"]
        elif method == "room_service":
            kwargs["room"] = (details["last_name"], details["room"])
        elif method == "delivery":
            data = location.address_data if location is not None else None
            kwargs["delivery"] = DeliveryAddress(
                street=details["street"],
                street_optional=details.get("street2") or None,
                city=details["city"],
                state=details["state"],
                zip_code=details["zip"],
                country=(data.country if data is not None else None) or "US",
            )
        await self.session.begin(method, **kwargs)
        store = self.store
        if store is not None and store.cart is None and store.session_message:
            # A fresh cart is known empty; but the server said something about it (closed now:
            # scheduled for later), and the menu depends on the order time: one read.
            await store.refresh()

    def _cart_published(self, cart: Cart | None) -> None:
        self._set_on_app_thread("cart", cart)

    def _status_published(self, status: Any) -> None:
        self._set_on_app_thread("status_text", describe_status(status))

    def _set_on_app_thread(self, name: str, value: object) -> None:
        # The store may publish from another thread; reactives are set on the app's own.
        if threading.get_ident() != self._thread:
            self.call_from_thread(setattr, self, name, value)
        else:
            setattr(self, name, value)

    async def go_home(self) -> None:
        """Back to the first screen with nothing left of this visit: every field cleared now, the
        cart discarded on the server in the background (a completed order's cart is only
        forgotten: CartStore.discard knows the difference). With a fixed location the next
        customer's order queues behind the discard on the same store (its lock is FIFO)."""
        self._end_visit()
        await self._show_start()

    async def serve_locations(self, location_ids: Sequence[str]) -> None:
        """Serve `location_ids` from now on (staff): one is a fixed location, several let the
        customer choose. The visit in progress ends first, as by any reset (its cart discarded),
        and the kiosk shows its new first screen."""
        ids = list(location_ids)
        if not ids:
            raise ValueError("a kiosk serves at least one location")
        self._end_visit()
        self.services.location_ids = ids
        # The session was made for the old locations (fixed or chosen): the next visit makes one.
        self._session = None
        self.location = None
        self.location_id = ids[0] if len(ids) == 1 else None
        self._follow_store()
        await self._show_start()

    def _end_visit(self) -> None:
        session = self._session
        store = self.store
        self._unwatch()
        self.cart = None
        self.cross_sell_memo = None
        if session is not None:
            session.clear()
        if store is not None:
            self.run_worker(_quietly(store.discard()), group="reset", exit_on_error=False)
        if not self.single_location:
            self.location_id = None
            self.location = None
        self._follow_store()

    async def _show_start(self) -> None:
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        await self.push_screen(self._start_screen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start_over":
            # Offered only once there is something to start over from.
            return self.store is not None and len(self.screen_stack) > 2
        # Kiosk mode refuses quit, suspend and the command palette (kiosk_mode.py).
        return super().check_action(action, parameters)

    def reset_now(self) -> None:
        """go_home() in an app worker: a screen's own worker would die with the screen it pops."""
        self.run_worker(self.go_home(), group="reset", exit_on_error=False)

    def action_start_over(self) -> None:
        if self.store is None or self.cart is None or not self.cart.items:
            if len(self.screen_stack) > 2:
                self.reset_now()
            return
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.reset_now()

        self.push_screen(
            ConfirmDialog(
                "Start over?",
                detail="Your order will be cleared.",
                yes="Start over",
                no="Keep my order",
            ),
            answered,
        )

    async def on_unmount(self) -> None:
        self._unwatch()
        if self._services is not None:
            await self._services.aclose()


async def _quietly(awaitable: Any) -> None:
    # Deleting an abandoned cart is best effort: the server expires carts anyway.
    try:
        await awaitable
    except Exception:  # nothing to show: the customer has moved on
        import logging

        logging.getLogger("kiosk.tui").warning("could not delete an abandoned cart", exc_info=True)


def describe_status(status: Any) -> str:
    """The header's words for a CartStore status: busy, or waiting out the rate limit."""
    kind = getattr(status, "kind", None)
    if kind == "waiting":
        seconds = getattr(status, "seconds_left", None) or 0
        return f"Very busy: sending in {seconds} s"
    if kind == "busy":
        return "Working…"
    # Errors are shown where they happened (the screen's banner), not in the header.
    return ""
