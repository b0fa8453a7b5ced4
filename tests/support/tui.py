"""A kiosk against the embedded demo backend, in-process, and the waits that settle it: KioskApp
-> StorefrontClient -> httpx.ASGITransport -> kiosk.demo's ASGI app. Tests assert on the backend's
carts, not only the screen.

The backend's clock is fixed (Tuesday 10 March 2026, 13:00 in New York, 10:00 in Los Angeles: both
demo locations open, the lunch menu on), the client never sleeps between retries, and nothing
touches the network.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import Input

from kiosk.api import RetryPolicy
from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.demo import data as demo_data
from kiosk.demo.data import LOCATIONS
from kiosk.ordering.services import KioskServices
from kiosk.runtime import build_demo_services, make_app
from kiosk.tui.app import KioskApp

FIXED_NOW = datetime(2026, 3, 10, 17, 0, tzinfo=UTC).timestamp()
# For kiosks built by hand over HTTP-shaped transports (tests/e2e).
BASE_URL = "http://demo.test/api/v1"
PAY_URL = "https://pay.lantern.example"
# Workers that run until the customer pays: never waited for as a whole.
LONG_RUNNING = frozenset({"payment-wait", "handoff-watch"})


async def no_sleep(_: float) -> None:
    return None


@dataclass
class Kiosk:
    """One kiosk under test: the app, its services and the demo backend behind them."""

    app: KioskApp
    asgi: Any
    services: KioskServices

    @property
    def backend(self) -> Any:
        return self.asgi.state.backend

    def server_cart(self) -> dict[str, Any]:
        """The cart as the backend holds it (GET shape), for the order in progress."""
        cart_id = self.app.visit.state.cart_id
        assert cart_id is not None, "no order in progress"
        return self.backend.get_cart_json(cart_id)


class CountingSecrets:
    """Deterministic stand-in for the demo backend's `secrets` (ids and client secrets)."""

    def __init__(self) -> None:
        self._n = itertools.count(1)

    def token_hex(self, n: int = 8) -> str:
        return f"{next(self._n):0{2 * n}x}"

    def token_urlsafe(self, n: int = 16) -> str:
        return f"s{next(self._n):0{n}d}"


def make_kiosk(
    tmp_path: Path,
    *,
    locations: Iterable[Any] = LOCATIONS,
    extra_products: int = 0,
    settings: Settings | None = None,
    clock: Callable[[], float] | None = None,
    merchant_slug: str | None = None,
    wrap_transport: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    client_options: dict[str, Any] | None = None,
    menu: str | None = None,
    **app_kwargs: Any,
) -> Kiosk:
    asgi = create_app(
        ":memory:",
        clock=lambda: FIXED_NOW,
        extra_products=extra_products,
        public_base_url=PAY_URL,
        menu=menu,  # a built-in restaurant's name; None: the default (lantern)
    )
    restaurant = demo_data.load(menu) if menu else None
    if restaurant is not None and locations is LOCATIONS:
        locations = restaurant.visible_locations
    # Built as the CLI builds them (kiosk.runtime), with the test's backend and a client that
    # never sleeps between retries.
    services = build_demo_services(
        settings or Settings(),
        backend_app=asgi,
        base_url=BASE_URL,
        wrap_transport=wrap_transport,
        location_ids=[loc.id for loc in locations],
        restaurant=restaurant,
        state_dir=tmp_path / "state",
        client_options=client_options
        or {"sleep": no_sleep, "retry": RetryPolicy(max_attempts=2, random=lambda: 0.0)},
    )
    # The demo's merchant listing is the fallback for a location's methods: off unless asked.
    services.merchant_slug = merchant_slug
    # The staff screen's fault switches: only where a test hands the backend over
    # (`k.services.demo_backend = k.backend`).
    services.demo_backend = None
    kwargs: dict[str, Any] = {"wall_clock": lambda: FIXED_NOW}
    if clock is not None:
        kwargs["clock"] = clock
    kwargs.update(app_kwargs)
    return Kiosk(make_app(services=services, **kwargs), asgi, services)


async def settle(pilot: Pilot[Any], rounds: int = 20) -> None:
    """Let every worker that will finish, finish, and every message it caused be handled.

    The payment wait runs until paid: it is not waited for. `pause(0)` processes what is queued
    without Pilot's idle detection (20 ms a call), which keeps the suite fast.
    """
    app = pilot.app
    quiet = 0
    for _ in range(rounds):
        await pilot.pause(0)
        busy = [w for w in app.workers if not w.is_finished and w.group not in LONG_RUNNING]
        if busy:
            quiet = 0
            await app.workers.wait_for_complete(busy)
            continue
        if messages_pending(app):
            quiet = 0
            continue
        quiet += 1
        if quiet >= 2:
            return
    await pilot.pause()


def messages_pending(app: KioskApp) -> bool:
    """Whether a message waits in the app's queue or a widget's on any screen, or keys are held.

    `pause(0)` waits for the top screen's queues only, once: keys replayed from the screen
    below (the welcome's hold, released after its own queues) were forwarded to the menu's
    list just after that wait, and a settle that saw two quiet rounds returned with them still
    queued (the burst test's letters, on a busy machine)."""
    if app._held_keys is not None:
        return True
    pumps = [app, *(w for screen in app.screen_stack for w in screen.walk_children(with_self=True))]
    # Textual's own queue (MessagePump._message_queue): no public way to ask whether it is empty.
    return any(pump._message_queue.qsize() for pump in pumps)


def freeze_inputs(app: KioskApp) -> None:
    """No blinking cursor in snapshots."""
    for widget in app.screen.query(Input):
        widget.cursor_blink = False


async def no_thanks(pilot: Pilot[Any]) -> bool:
    """Decline the one suggestion the kiosk shows after an add (issue 13), when it shows one.
    True when there was one."""
    from kiosk.tui.screens.product import SuggestionDialog

    if not isinstance(pilot.app.screen, SuggestionDialog):
        return False
    await pilot.press("n")
    await settle(pilot)
    return True
