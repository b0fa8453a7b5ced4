"""Keys pressed in bursts, as customers press them (issue 13): every key is handled against the
state it was meant for, with the backend as far away as a real network. `burst` queues the whole
burst before anything settles (each test here fails on the kiosk before the fix)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from kiosk.tui.screens.cart import CartLines, CartScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk, settle
from .test_flow import banner, keys, open_menu, type_text


async def burst(pilot: Pilot[Any], *names: str) -> None:
    """Every key queued at once, as a terminal delivers a burst: none waits for what the one
    before it started (Pilot.press waits for the app to go idle between keys)."""
    driver = pilot.app._driver
    assert driver is not None
    for name in names:
        driver.send_message(events.Key(name, {"plus": "+", "minus": "-"}.get(name)))
    await settle(pilot)


class Slow(httpx.AsyncBaseTransport):
    """The backend 30 ms away, as over a real network: a burst outruns the answers."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.03)
        return await self.inner.handle_async_request(request)


async def open_checkout(pilot: Pilot[Any]) -> None:
    """Downtown, pickup, a sparkling water, then the checkout form (name first)."""
    from kiosk.tui.screens.checkout import CheckoutScreen

    app: Any = pilot.app
    await open_menu(pilot, "1", "1")
    await app.visit.add_item("prd_sparkling", 1)
    await keys(pilot, "f4", "f2")
    assert isinstance(app.screen, CheckoutScreen)


async def test_two_quick_adds_add_once_and_stay_on_the_menu(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path, wrap_transport=Slow)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "cookie")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        await burst(pilot, "f2", "f2")  # the second arrives before the first has landed
        assert isinstance(app.screen, MenuScreen), (type(app.screen), banner(pilot))
        items = k.server_cart()["items"]
        assert [(i["productId"], i["quantity"]) for i in items] == [("prd_cookie", 1)]


async def test_five_quick_plus_on_a_cart_line_are_five_steps(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path, wrap_transport=Slow)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await app.visit.add_item("prd_sparkling", 1)
        await keys(pilot, "f4")
        assert isinstance(app.screen, CartScreen)
        lines = app.screen.query_one(CartLines)
        lines.focus()
        await settle(pilot)
        await burst(pilot, "plus", "plus", "plus", "plus", "plus")
        assert k.server_cart()["items"][0]["quantity"] == 6
        assert app.cart is not None and app.cart.items[0].quantity == 6
        await burst(pilot, "minus", "minus")
        assert k.server_cart()["items"][0]["quantity"] == 4


async def test_text_typed_fast_then_tab_then_more_text_lands_in_two_fields(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, wrap_transport=Slow).app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_checkout(pilot)
        await burst(pilot, *"Ann", "tab", *"ann@example.com")
        values = {i.id: i.value for i in app.screen.query(Input)}
        assert values["name"] == "Ann" and values["email"] == "ann@example.com", values
        await burst(pilot, "shift+tab")
        assert app.focused is app.screen.query_one("#name", Input)


async def test_arrows_in_a_burst_walk_the_checkout_form_at_80x24(tmp_path: Path) -> None:
    """↓ moves to the next field, as Tab does: the form's column used to take the arrow to
    scroll itself, and the email typed next landed in the name."""
    app = make_kiosk(tmp_path, wrap_transport=Slow).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_checkout(pilot)
        await burst(pilot, *"Ann", "down", *"ann@example.com", "up", *"e")
        values = {i.id: i.value for i in app.screen.query(Input)}
        assert values["name"] == "Anne" and values["email"] == "ann@example.com", values


async def test_name_enter_email_in_one_read_fill_two_fields(tmp_path: Path) -> None:
    """Enter moves on by a message (Input.Submitted) that used to reach the screen after the
    keys typed on were given to the name: 'Annann' and '@example.com'."""
    app = make_kiosk(tmp_path, wrap_transport=Slow).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_checkout(pilot)
        await burst(pilot, *"Ann", "enter", *"ann@example.com")
        values = {i.id: i.value for i in app.screen.query(Input)}
        assert values["name"] == "Ann" and values["email"] == "ann@example.com", values


async def test_a_choice_then_letters_in_one_read_search_the_menu(tmp_path: Path) -> None:
    """1 (Pickup) and 'cookie' at once: the letters come while the welcome starts the order, and
    were lost there; they are the menu's search."""
    k = make_kiosk(tmp_path, wrap_transport=Slow)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")  # the first location
        assert isinstance(app.screen, WelcomeScreen)
        await burst(pilot, "1", *"cookie")
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        assert app.screen.query_text == "cookie"


async def test_a_fields_own_keys_act_in_order_with_the_letters_around_them(
    tmp_path: Path,
) -> None:
    """Backspace, ←→, Home and End queued with letters (one read) edit where they were typed:
    Textual ran a field's bindings after the key had bubbled up to the app, so the letter after
    a Backspace was inserted first and then deleted (kiosk/tui/widgets/fields.py)."""
    from textual.widgets import Input

    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_checkout(pilot)
        name = app.screen.query_one("#name", Input)
        name.focus()
        await settle(pilot)
        driver = app._driver
        assert driver is not None
        typed = [*"Anm", "backspace", "n", "left", "left", "left", "J", "end", "e"]
        for key in typed:
            driver.send_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        assert name.value == "JAnne"
