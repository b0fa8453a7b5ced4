"""The app as its screens and parts see it: a Protocol, so that they need not import KioskApp.

Screens, widgets, idle, health and resume type `self.app` as `Kiosk` (kiosk/tui/app.py implements
it). Importing the Protocol instead of the app keeps the dependency one-way: app -> kiosk_mode ->
idle/health/staff -> screens -> contract; nothing below the app imports it back (no import cycle
in kiosk/tui, tests/unit/test_import_hygiene.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual import events

    from kiosk.api import Cart, Location
    from kiosk.config import Settings
    from kiosk.help_call import HelpDesk
    from kiosk.ordering.recent import RecentNumber
    from kiosk.ordering.services import KioskServices
    from kiosk.ordering.visit import Visit, VisitState
    from kiosk.tui.flow import Wants
    from kiosk.tui.pin import PinThrottle

__all__ = ["Kiosk", "kiosk_of", "shop_currency"]


class IdleEnd(Protocol):
    def walked_away(self) -> None:
        """Nobody answered a screen's own "Still there?": the idle reset's end."""


def kiosk_of(app: object) -> Kiosk:
    """`app` (a screen's or widget's `self.app`) as the kiosk app it is."""
    return cast("Kiosk", app)


def shop_currency(app: object) -> str:
    """The currency every amount on screen is shown in: the location's, else the open cart's,
    else "" (an amount without a symbol, never a guessed dollar)."""
    kiosk = kiosk_of(app)
    location = getattr(kiosk, "location", None)
    if location is not None and location.currency:
        return str(location.currency)
    cart = getattr(kiosk, "cart", None)
    return str(cart.currency) if cart is not None and cart.currency else ""


class Kiosk(Protocol):
    """What screens and parts use of the kiosk app, besides Textual's App."""

    # Published state (reactives on the app).
    visit_state: VisitState | None
    cart: Cart | None
    location: Location | None
    status_text: str
    # Injected clocks: monotonic for countdowns, wall for time of day.
    clock: Callable[[], float]
    wall_clock: Callable[[], float]
    # Whether a quit keeps the open order's cart for the next start (True: journey 16).
    keep_cart_on_quit: bool

    # The last order's number, for "show my number again" on the first screens.
    @property
    def recent_number(self) -> RecentNumber: ...

    pin_throttle: PinThrottle
    # "Still there?" and the full reset after it (kiosk.tui.idle.IdleWatcher, which imports
    # this module: named here by what the screens ask of it).
    idle: IdleEnd
    # Whether staff closed this terminal (issue 34: kiosk.tui.kiosk_mode).
    out_of_order: bool

    @property
    def services(self) -> KioskServices: ...
    @property
    def services_or_none(self) -> KioskServices | None:
        """The services, None while the app is still booting (`services` raises then)."""

    @property
    def settings(self) -> Any: ...
    @property
    def visit(self) -> Visit: ...
    @property
    def location_id(self) -> str | None: ...
    @property
    def single_location(self) -> bool: ...
    @property
    def kiosk_settings(self) -> Settings | None: ...
    @property
    def kiosk_mode(self) -> bool: ...
    @property
    def health_line_shown(self) -> bool: ...
    @property
    def health_line_words(self) -> bool: ...
    @property
    def help_desk(self) -> HelpDesk | None: ...

    def cart_id_file(self) -> Path | None: ...
    def choose_location(self, location_id: str, location: Location | None) -> None: ...
    def navigate(self, wants: Wants) -> Awaitable[Any]:
        """The customer asked for a step of the flow: the router decides the screens."""

    async def go_home(self, *, abandoned: bool = False) -> None: ...
    def reset_now(self, after: float | None = None) -> None: ...
    def hold_keys(self, after: float | None = None) -> int: ...
    def holds(self, hold: int) -> bool: ...
    def hold_keys_from(self, event: events.Key) -> int: ...
    def release_keys(self, hold: int) -> None: ...
    def pass_key_on(self, event: events.Key) -> None: ...
    async def set_language(self, code: str) -> None: ...
    async def serve_locations(self, location_ids: Sequence[str]) -> None: ...
    def show_health_line(self, shown: bool | None) -> None: ...
    def boot(self, boot_screen: Any) -> None: ...
    def action_start_over(self) -> None: ...
    def clear_help(self) -> bool: ...
    def set_out_of_order(self, on: bool) -> None: ...
