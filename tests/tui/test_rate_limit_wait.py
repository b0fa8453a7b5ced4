"""A read refused by the rate limit for longer than the client will sleep (retryAfter over its 30 s
max_wait) is a calm wait, not an error: "We're very busy right now. Trying again in N s…" counts
down once a second and the read goes again by itself at zero. Esc still goes back, and then nothing
is sent. Optional reads (tips, slots) wait and go again without a word.

The refusals come from a transport in front of the demo backend that answers 429 with retryAfter.
Time is the app's injected clock; `screen.rate_wait.check()` is what the screen's timer calls each
second. One test runs the real timer, with a tiny tick.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot

from kiosk.demo.data import LOCATIONS
from kiosk.tui.screens.base import KioskScreen, RateLimitWait
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen, ProductList
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.chrome import Banner

from .conftest import make_kiosk, settle
from .test_flow import add_simple, banner, keys, open_menu, type_text
from .test_kiosk_mode import FakeClock

MENUS = "/menus"
ESPRESSO = "/products/prd_espresso"
SLOTS = "/time-intervals"
TIPS = "/gratuity"


class Refusing(httpx.AsyncBaseTransport):
    """Answers the next `times` GETs whose path ends with a given suffix with 429 and retryAfter;
    counts the GETs it refused and those it passed on to the backend, per suffix."""

    def __init__(self, inner: httpx.AsyncBaseTransport, retry_after: float) -> None:
        self.inner = inner
        self.retry_after = retry_after
        self.left: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.passed: Counter[str] = Counter()

    def refuse(self, suffix: str, times: int = 1) -> None:
        self.left[suffix] = times

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            for suffix in (MENUS, ESPRESSO, SLOTS, TIPS, *self.left):
                if request.url.path.endswith(suffix):
                    if self.left[suffix] > 0:
                        self.left[suffix] -= 1
                        self.refused[suffix] += 1
                        body = {
                            "error": "Too Many Requests",
                            "message": "Rate limit exceeded",
                            "retryAfter": self.retry_after,
                        }
                        return httpx.Response(429, json=body)
                    self.passed[suffix] += 1
                    break
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def refusing_kiosk(
    tmp_path: Path, retry_after: float, clock: FakeClock | None = None
) -> tuple[Any, Refusing]:
    made: list[Refusing] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        made.append(Refusing(inner, retry_after))
        return made[0]

    kwargs: dict[str, Any] = {} if clock is None else {"clock": clock}
    k = make_kiosk(tmp_path, wrap_transport=wrap, **kwargs)
    return k, made[0]


async def tick(pilot: Pilot[Any], clock: FakeClock, seconds: float) -> None:
    """What the screen's timer does after `seconds` on the app's clock."""
    clock.advance(seconds)
    screen = pilot.app.screen
    assert isinstance(screen, KioskScreen)
    screen.rate_wait.check()
    await settle(pilot)


def busy(seconds: int) -> str:
    return f"We're very busy right now. Trying again in {seconds} s…  Esc to go back."


async def test_a_refused_menu_counts_down_and_loads_by_itself(tmp_path: Path) -> None:
    clock = FakeClock()
    k, transport = refusing_kiosk(tmp_path, retry_after=45, clock=clock)
    transport.refuse(MENUS)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        assert transport.refused[MENUS] == 1 and transport.passed[MENUS] == 0
        # A calm wait with a countdown, not an error with "Press R".
        assert banner(pilot) == busy(45)
        assert not screen.query_one(Banner).has_class("-error")
        products = screen.query_one(ProductList)
        assert not products.rows
        assert screen.rate_wait.active

        await tick(pilot, clock, 1)
        assert banner(pilot) == busy(44)
        await tick(pilot, clock, 30)
        assert banner(pilot) == busy(14)
        # F5 (R is typed into the menu's search) does not jump the queue: nothing is sent early.
        await keys(pilot, "f5")
        assert transport.passed[MENUS] == 0 and banner(pilot) == busy(14)
        await tick(pilot, clock, 13)
        assert banner(pilot) == busy(1)
        assert transport.passed[MENUS] == 0

        # Zero: the menu is read again, by itself, and shown; the countdown is gone.
        await tick(pilot, clock, 1)
        assert transport.passed[MENUS] == 1 and transport.refused[MENUS] == 1
        assert products.rows
        assert banner(pilot) == ""
        assert not screen.rate_wait.active


async def test_refused_again_waits_again(tmp_path: Path) -> None:
    clock = FakeClock()
    k, transport = refusing_kiosk(tmp_path, retry_after=40, clock=clock)
    transport.refuse(MENUS, times=2)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        assert banner(pilot) == busy(40)
        await tick(pilot, clock, 40)
        # Sent again at zero, refused again: a new countdown from the server's new retryAfter.
        assert transport.refused[MENUS] == 2 and banner(pilot) == busy(40)
        await tick(pilot, clock, 40)
        assert transport.passed[MENUS] == 1 and banner(pilot) == ""
        assert app.screen.query_one(ProductList).rows


async def test_esc_goes_back_from_a_refused_product_and_nothing_is_sent(tmp_path: Path) -> None:
    clock = FakeClock()
    k, transport = refusing_kiosk(tmp_path, retry_after=40, clock=clock)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        transport.refuse(ESPRESSO)
        await type_text(pilot, "espresso")
        await keys(pilot, "enter")
        product = app.screen
        assert isinstance(product, ProductScreen)
        assert transport.refused[ESPRESSO] == 1
        assert banner(pilot) == busy(40)
        await tick(pilot, clock, 5)
        assert banner(pilot) == busy(35)
        timer = product.rate_wait._timer
        assert timer is not None and timer._task is not None

        await keys(pilot, "escape")
        assert isinstance(app.screen, MenuScreen)
        # The wait died with its screen: its timer is stopped, no product read follows.
        assert not product.is_attached and timer._task is None
        clock.advance(60)
        await settle(pilot)
        assert transport.passed[ESPRESSO] == 0

        # Opened again once the wait is over: read and shown as usual.
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen) and banner(pilot) == ""
        assert transport.passed[ESPRESSO] == 1


async def test_refused_tips_and_slots_wait_quietly_and_load(tmp_path: Path) -> None:
    clock = FakeClock()
    k, transport = refusing_kiosk(tmp_path, retry_after=40, clock=clock)
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "cookie")
        transport.refuse(SLOTS)
        transport.refuse(TIPS)
        await keys(pilot, "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        assert transport.refused[SLOTS] == 1 and transport.refused[TIPS] == 1
        # Optional sections: no banner, the order goes on without them meanwhile.
        assert banner(pilot) == ""
        assert not cart.query_one("#time-section").display
        assert not cart.query_one("#tip-section").display
        await tick(pilot, clock, 39)
        assert banner(pilot) == "" and transport.passed[SLOTS] == 0
        await tick(pilot, clock, 1)
        assert transport.passed[SLOTS] == 1 and transport.passed[TIPS] == 1
        assert cart.query_one("#time-section").display
        assert cart.query_one("#tip-section").display
        assert banner(pilot) == ""


async def test_the_screen_timer_runs_the_countdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real timer and clock, with a tick of 10 ms: a 50 ms wait completes on its own."""
    monkeypatch.setattr(RateLimitWait, "TICK", 0.01)
    k, transport = refusing_kiosk(tmp_path, retry_after=0.05)
    # Under the client's max_wait it retries once itself (no sleep in tests); refused again,
    # it gives the wait to the screen.
    transport.refuse(MENUS, times=2)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        assert isinstance(app.screen, MenuScreen)
        assert transport.refused[MENUS] == 2
        for _ in range(100):
            if transport.passed[MENUS]:
                break
            await pilot.pause(0.02)
        await settle(pilot)
        assert transport.passed[MENUS] == 1
        assert app.screen.query_one(ProductList).rows and banner(pilot) == ""


async def test_a_refused_write_shows_its_countdown_at_once_with_the_real_retry_settings(
    tmp_path: Path,
) -> None:
    """Issue 12: with the client as the composition root builds it (the real RetryPolicy and
    runtime.CLIENT_MAX_WAIT), a 429 on an add is not slept through silently: the header counts
    down from the server's retryAfter before any time has passed, and the add goes through after."""
    from kiosk.api import RetryPolicy
    from kiosk.runtime import CLIENT_MAX_WAIT

    gate = asyncio.Event()
    slept: list[float] = []

    async def held_sleep(seconds: float) -> None:
        # The Visit's one-second countdown steps, held until the test lets time pass.
        slept.append(seconds)
        await gate.wait()

    k = make_kiosk(
        tmp_path,
        client_options={"retry": RetryPolicy(), "max_wait": CLIENT_MAX_WAIT},
        store_options={"sleep": held_sleep},
    )
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_menu(pilot, "1", "1")
        await settle(pilot)
        await type_text(pilot, "espresso")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen), banner(pilot)
        k.backend.faults.update({"burst_429": 1, "burst_retry_after_s": 12})
        await pilot.press("f2")
        # Not settle(): the add's worker is held in the wait until the gate opens.
        for _ in range(20):
            await pilot.pause(0)
            if slept:
                break
        await pilot.pause(0)
        # The first second of the wait: the countdown is up and nothing has slept yet.
        assert slept == [1.0]
        assert app.status_text == "Very busy: sending in 12 s"
        assert app.visit.state.status.kind == "waiting"
        assert app.visit.state.status.seconds_left == 12
        gate.set()
        await settle(pilot)
        assert app.status_text == ""
        lines = [(i["productId"], i["quantity"]) for i in k.server_cart()["items"]]
        assert lines == [("prd_espresso", 1)]


async def test_a_restaurant_chosen_while_the_refused_list_waits_is_chosen_when_it_loads(
    tmp_path: Path,
) -> None:
    """The first screen's list refused by the rate limit: 1 pressed during the countdown is kept,
    not refused as "could not be loaded", and made when the list loads by itself."""
    clock = FakeClock()
    k, transport = refusing_kiosk(tmp_path, retry_after=45, clock=clock)
    for location in LOCATIONS:
        transport.refuse(f"/locations/{location.id}")
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen) and not screen.locations
        assert banner(pilot) == busy(45)
        await keys(pilot, "1")
        assert app.screen is screen and banner(pilot) == busy(45)
        await tick(pilot, clock, 45)
        assert isinstance(app.screen, WelcomeScreen), banner(pilot)
        assert app.visit.state.location_id == LOCATIONS[0].id
