"""Pay at the counter (when the merchant enables it) and what the payment screen says about the
demo's checkout page: reachable from a phone only with `kiosk demo --lan`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Static

from kiosk.config import Settings
from kiosk.tui.screens.attract import attract_line
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.widgets.order_number import OrderNumber
from kiosk.tui.widgets.qr import QRCode

from .conftest import PAY_URL, Kiosk, make_kiosk, settle
from .test_flow import add_simple, banner, fill, keys, open_menu


async def _to_payment(pilot, k) -> None:  # type: ignore[no-untyped-def]
    await open_menu(pilot, "1", "1")
    await add_simple(pilot, "espresso")
    await keys(pilot, "f4", "f2")
    await fill(pilot, "Ada Lovelace")
    await keys(pilot, "enter")
    await fill(pilot, "ada@example.com")
    await keys(pilot, "enter")
    assert isinstance(pilot.app.screen, PaymentScreen), banner(pilot)


def _text(screen: PaymentScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


@pytest.mark.parametrize("dialect", ["v2", "v1"])
async def test_pay_at_the_counter_shows_a_code_and_staff_take_the_payment(
    tmp_path: Path, dialect: str
) -> None:
    k = make_kiosk(tmp_path, settings=Settings(pay_at_counter=True, api_dialect=dialect))
    assert k.services.clients[next(iter(k.services.clients))].dialect == dialect
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await _to_payment(pilot, k)
        screen = app.screen
        assert isinstance(screen, PaymentScreen)
        assert screen.query(QRCode) and screen.query_one("#counter", Button).display
        server = k.server_cart()
        await keys(pilot, "c")
        code = server["id"][-6:].upper()
        shown = screen.query_one("#counter-code", OrderNumber)
        assert shown.number == code
        assert not screen.query(QRCode)  # the code replaces the QR code
        assert "Please pay at the counter" in _text(screen, "#pay-title")
        assert "say the code" in _text(screen, "#pay-steps")
        assert k.server_cart()["status"] == "LOCKED"  # handed to payment, nothing lost

        # Staff, on their own device: the demo's counter page finds the order by the code and
        # links its checkout page, where they take the payment.
        transport = httpx.ASGITransport(app=k.asgi)
        async with httpx.AsyncClient(transport=transport, base_url="http://demo.test") as staff:
            page = await staff.get("/demo/counter", params={"code": code.lower()})
            assert page.status_code == 200 and code in page.text
            link = re.search(r'href="(/demo/checkout/[^"]+)"', page.text)
            assert link is not None
            checkout = await staff.get(link.group(1))
            secret = re.search(r'name="clientSecret" value="([^"]+)"', checkout.text)
            assert secret is not None
            paid = await staff.post(
                "/demo/processor/confirm",
                json={"clientSecret": secret.group(1), "cardNumber": "4242424242424242"},
            )
            assert paid.status_code == 200, paid.text
            assert code not in (await staff.get("/demo/counter")).text  # paid: off the list

        # Back to the QR and to the counter again: a choice, not a one-way door.
        await keys(pilot, "c")
        assert screen.query(QRCode) and not screen.query("#counter-code")
        await keys(pilot, "c")
        # The kiosk's last look (Cancel asks first) finds the order paid and shows its number.
        await keys(pilot, "f9", "y")
        assert isinstance(app.screen, DoneScreen), banner(pilot)
        number = k.server_cart()["fulfillmentIdentifier"]
        assert app.screen.query_one(OrderNumber).value == number.upper()


async def test_without_the_setting_there_is_no_counter_choice(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await _to_payment(pilot, k)
        screen = app.screen
        assert isinstance(screen, PaymentScreen)
        assert not screen.query("#counter")
        await keys(pilot, "c")
        assert screen.query(QRCode) and not screen.query("#counter-code")
    assert "counter" not in attract_line(Settings())
    assert "at the counter" in attract_line(Settings(pay_at_counter=True))


async def test_the_demo_says_plainly_that_a_pays_when_no_phone_can_reach_the_page(
    tmp_path: Path,
) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await _to_payment(pilot, k)
        screen = app.screen
        assert isinstance(screen, PaymentScreen)
        # One instruction: the title's (it was said four times, issue 20).
        assert "press A to pay" in _text(screen, "#pay-title")
        said = " ".join(_text(screen, s) for s in ("#pay-steps", "#pay-demo", "#pay-amount"))
        assert "press a" not in said.casefold() and "a pays" not in said.casefold()
        assert "not on a phone" in _text(screen, "#pay-steps")
        # No address a customer could type, and the developer's hints (--lan, the test cards)
        # are the staff screen's (issue 33): one short line says the other key.
        assert _text(screen, "#pay-url") == ""
        assert _text(screen, "#pay-demo") == "Demo: D declines"


async def _at_payment_a_phone_can_open(pilot: Pilot[Any], k: Kiosk) -> PaymentScreen:
    """The payment screen of a kiosk whose checkout pages a phone can open: the test backend
    names them at PAY_URL, as `--lan` names them at the LAN address (kiosk.cli.
    serve_demo_on_lan), and the kiosk is told that origin is phone-reachable."""
    k.services.phone_origin = PAY_URL
    await _to_payment(pilot, k)
    screen = pilot.app.screen
    assert isinstance(screen, PaymentScreen)
    return screen


async def test_with_lan_the_qr_carries_the_lan_address_and_says_scan(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _at_payment_a_phone_can_open(pilot, k)
        qr = screen.query_one(QRCode)
        assert qr.data == k.server_cart()["checkoutUrl"]
        assert qr.data.startswith(PAY_URL + "/demo/checkout/")
        assert "Scan to pay" in _text(screen, "#pay-title")
        assert "Or visit pay.lantern.example/demo/checkout/" in _text(screen, "#pay-url")


async def test_a_long_payment_address_is_shown_whole_to_be_typed(tmp_path: Path) -> None:
    """The checkout URL is the server's and opaque: however long, the "Or visit" line shows
    every character (wrapped at 80x24), so that a customer without a camera can type it."""
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _at_payment_a_phone_can_open(pilot, k)
        cart = app.cart
        assert cart is not None and cart.checkout_url
        long = cart.checkout_url + "?session=" + "x7Kq9" * 16
        screen._show_qr(cart.model_copy(update={"checkout_url": long}))
        await settle(pilot)
        field = screen.query_one("#pay-url", Static)
        drawn = [field.render_line(y).text.strip() for y in range(field.size.height)]
        assert len(drawn) > 1, drawn
        assert "".join(drawn).replace(" ", "") == "Orvisit" + long.removeprefix("https://")
