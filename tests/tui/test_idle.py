"""Idle handling: "Still there?" after the quiet time, a countdown, any key keeps the order, and at
zero a full reset (the cart gone from the server, every field cleared) and the attract screen. Never
during payment, nor on the order-number screen.

Time is the app's injected clock; `app.idle.check()` is what the interval timer calls each tick.
One test runs the real timer with tiny timeouts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Static

from kiosk.tui.screens.attract import AttractScreen
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.idle import StillThereDialog
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import Kiosk, make_kiosk, settle
from .test_kiosk_mode import FakeClock, keys, kiosk_with, to_menu_with_cookie

IDLE = {"idle_timeout": 60.0, "idle_countdown": 10.0}


def countdown_text(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, StillThereDialog)
    return str(screen.query_one("#idle-countdown", Static).render())


async def tick(pilot: Pilot[Any], clock: FakeClock, seconds: float) -> None:
    clock.advance(seconds)
    pilot.app.idle.check()
    await settle(pilot)


async def to_payment(k: Kiosk, pilot: Pilot[Any]) -> None:
    await keys(pilot, "f4")
    assert isinstance(pilot.app.screen, CartScreen)
    await keys(pilot, "f2")
    assert isinstance(pilot.app.screen, CheckoutScreen)
    for value in ("Ada Lovelace", "ada@example.com"):
        focused = pilot.app.focused
        assert isinstance(focused, Input)
        focused.value = value
        await keys(pilot, "enter")
    assert isinstance(pilot.app.screen, PaymentScreen)
    assert k.server_cart()["status"] == "LOCKED"


async def test_prompt_countdown_then_full_reset_and_attract(tmp_path: Path) -> None:
    k, clock = kiosk_with(tmp_path, **IDLE)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        app.visit.remember_customer("Ada", "ada@example.com")

        await tick(pilot, clock, 59)
        assert isinstance(app.screen, MenuScreen), "not before the quiet time has passed"
        await tick(pilot, clock, 2)
        assert isinstance(app.screen, StillThereDialog)
        assert "10 s" in countdown_text(pilot)
        await tick(pilot, clock, 4)
        assert "6 s" in countdown_text(pilot)
        # Still there: the server cart is untouched while the prompt counts down.
        assert cart_id in k.backend.carts.ids()

        await tick(pilot, clock, 6)
        assert isinstance(app.screen, AttractScreen)
        assert "Touch or press any key to order" in str(
            app.screen.query_one("#attract-call", Static).render()
        )
        # The cart is gone on the server, and from the kiosk: no order, no customer details.
        assert cart_id not in k.backend.carts.ids()
        assert len(k.backend.carts) == 0
        assert not app.visit.state.has_order and app.cart is None and app.location_id is None
        assert app.visit.state.customer_name == "" and app.visit.state.fulfillment_method is None
        assert not (tmp_path / "state" / "open-cart.json").exists()
        # The fleet's metrics count it as abandoned, not as a customer's start over.
        metrics = app.services.metrics
        assert metrics is not None
        assert (metrics.orders["abandoned"], metrics.orders["reset"]) == (1, 0)
        # Underneath: a fresh first screen and nothing else.
        assert len(app.screen_stack) == 3
        assert isinstance(app.screen_stack[1], LocationScreen)

        # Any key: the first screen; the key itself is not taken as a choice.
        await keys(pilot, "1")
        assert isinstance(app.screen, LocationScreen)
        await keys(pilot, "1")
        assert isinstance(app.screen, WelcomeScreen)


async def test_any_key_during_the_prompt_keeps_the_order(tmp_path: Path) -> None:
    k, clock = kiosk_with(tmp_path, **IDLE)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        menu = app.screen
        await tick(pilot, clock, 61)
        assert isinstance(app.screen, StillThereDialog)
        await tick(pilot, clock, 9)
        await keys(pilot, "x")
        assert app.screen is menu
        # The key answered the prompt: it did not type into the menu's search.
        assert menu.query_text == ""
        # Long past the old countdown: nothing happens, the quiet time started again.
        await tick(pilot, clock, 30)
        assert app.screen is menu
        assert k.server_cart()["id"] == cart_id and len(k.server_cart()["items"]) == 1
        # ...and after a full quiet time the prompt comes back; a click answers it too.
        await tick(pilot, clock, 31)
        assert isinstance(app.screen, StillThereDialog)
        await pilot.click(offset=(1, 1))
        await settle(pilot)
        assert app.screen is menu
        assert cart_id in k.backend.carts.ids()


async def test_never_during_payment(tmp_path: Path) -> None:
    k, clock = kiosk_with(tmp_path, **IDLE, payment_timeout=900.0)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        await to_payment(k, pilot)
        payment = app.screen
        for _ in range(5):
            await tick(pilot, clock, 100)
            assert app.screen is payment
        assert k.server_cart()["status"] == "LOCKED"
        assert cart_id in k.backend.carts.ids()
        # A "cancel the payment?" question over the payment screen does not make it idle either.
        await keys(pilot, "escape")
        await tick(pilot, clock, 500)
        assert payment in app.screen_stack
        assert not isinstance(app.screen, StillThereDialog)


async def test_never_on_the_order_number_screen(tmp_path: Path) -> None:
    # The done screen returns to the start by itself after done_timeout.
    k, clock = kiosk_with(tmp_path, **IDLE, done_timeout=300.0)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await to_menu_with_cookie(k, pilot)
        await to_payment(k, pilot)
        await keys(pilot, "a")  # the demo processor approves
        assert isinstance(app.screen, DoneScreen)
        await tick(pilot, clock, 100)
        assert isinstance(app.screen, DoneScreen)


async def test_first_screen_with_nothing_to_keep_goes_straight_to_attract(tmp_path: Path) -> None:
    k, clock = kiosk_with(tmp_path, **IDLE)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await tick(pilot, clock, 61)
        assert isinstance(app.screen, AttractScreen)
        # The attract screen itself never times out.
        await tick(pilot, clock, 1000)
        assert isinstance(app.screen, AttractScreen)


async def test_the_real_timer_resets_an_abandoned_order(tmp_path: Path) -> None:
    # Tiny timeouts on the real clock: the interval timer alone drives the prompt and the reset.
    k = make_kiosk(tmp_path)
    app = k.app
    app.IDLE_CHECK_INTERVAL = 0.02
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        app.services.settings = app.settings.replace(idle_timeout=0.2, idle_countdown=0.2)
        app.idle.activity()
        saw_prompt = False
        for _ in range(200):  # bounded: 200 x 20 ms
            await pilot.pause(0.02)
            saw_prompt = saw_prompt or isinstance(app.screen, StillThereDialog)
            if isinstance(app.screen, AttractScreen):
                break
        await settle(pilot)
        assert saw_prompt
        assert isinstance(app.screen, AttractScreen)
        assert cart_id not in k.backend.carts.ids()
