"""The whole ordering flow, driven by keys, against the embedded backend; assertions on the server's
cart.

One walk per fulfillment method, with the refusals a customer meets on the way: a modifier the
server refuses (sold out after the product was shown), a refused discount code, a declined then
approved payment, a network failure mid-flow (the cart is never lost), sold-out lines at checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import _character_to_key
from textual.pilot import Pilot

from kiosk.i18n import _
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen, ProductList
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.chrome import Banner, FieldError
from kiosk.tui.widgets.qr import QRCode

from .conftest import Kiosk, make_kiosk, no_sleep, no_thanks, settle


async def keys(pilot: Pilot[Any], *names: str) -> None:
    for name in names:
        await pilot.press(name)
        await settle(pilot)


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type `text` as one burst, the way a terminal delivers fast typing: every letter is queued
    (the same Key events Pilot.press makes), then the app is waited for once. Pilot.press waits
    for the app to go idle after each letter (two 20 ms samples at least, ~60 ms a letter), and
    what the callers look at is the text typed, not the state after each letter (letter by letter:
    test_search.py; bursts on every screen: test_bursts.py, test_cart_bursts.py)."""
    driver = pilot.app._driver
    assert driver is not None
    for char in text:
        # Pilot.press's name for a character: letters and digits as they are, the rest by name.
        name = char if char.isalnum() else _character_to_key(char)
        driver.send_message(events.Key(name, char))
    await pilot.pause()
    await settle(pilot)


async def fill(pilot: Pilot[Any], text: str) -> None:
    """Put `text` in the focused input at once (typing is tested elsewhere; a key costs ~50 ms)."""
    from textual.widgets import Input

    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    focused.value = text
    await settle(pilot)


def banner(pilot: Pilot[Any]) -> str:
    return pilot.app.screen.query_one(Banner).message


async def open_menu(pilot: Pilot[Any], location: str, method: str) -> None:
    await settle(pilot)
    assert isinstance(pilot.app.screen, LocationScreen)
    await keys(pilot, location)
    assert isinstance(pilot.app.screen, WelcomeScreen)
    await keys(pilot, method)


async def add_simple(pilot: Pilot[Any], search: str, quantity: str = "1") -> None:
    """Search the menu, open the first match and add it with its default choices."""
    assert isinstance(pilot.app.screen, MenuScreen)
    await type_text(pilot, search)
    await keys(pilot, "enter")
    assert isinstance(pilot.app.screen, ProductScreen), banner(pilot)
    await keys(pilot, quantity, "f2")
    await no_thanks(pilot)  # the one suggestion after an add
    screen = pilot.app.screen
    assert isinstance(screen, MenuScreen), banner(pilot)
    # Leaving the menu for the product cleared the search (Escape now would go back a step).
    assert screen.query_text == ""


async def checkout_and_pay(k: Kiosk, pilot: Pilot[Any], paid: str = "keys") -> dict[str, Any]:
    """From the menu: cart, checkout with name and email, then payment.

    paid="keys": decline once, then approve with the demo keys. paid="elsewhere": the customer
    pays on the phone (the processor is told directly) and presses Cancel a moment later: the
    kiosk looks once more and shows the order instead of discarding it."""
    await keys(pilot, "f4")
    assert isinstance(pilot.app.screen, CartScreen)
    await keys(pilot, "f2")
    assert isinstance(pilot.app.screen, CheckoutScreen)
    await fill(pilot, "Ada Lovelace")
    await keys(pilot, "enter")
    await fill(pilot, "ada@example.com")
    await keys(pilot, "enter")
    assert isinstance(pilot.app.screen, PaymentScreen), banner(pilot)
    server = k.server_cart()
    assert server["status"] == "LOCKED"
    qr = pilot.app.screen.query_one(QRCode)
    assert qr.data == server["checkoutUrl"]
    if paid == "keys":
        await keys(pilot, "d")
        # The payment's state is the screen's headline, in the error colour (issue 33), in
        # the customer's language.
        headline = str(pilot.app.screen.query_one("#pay-title").render())
        assert headline == _("Your payment did not go through"), headline
        assert k.server_cart()["status"] == "LOCKED"
        await keys(pilot, "a")
    else:
        intent = pilot.app.visit.payment_intent  # type: ignore[attr-defined]
        k.backend.confirm_payment(intent.client_secret.get_secret_value(), "4242424242424242")
        await keys(pilot, "escape", "y")
    assert isinstance(pilot.app.screen, DoneScreen), banner(pilot)
    server = k.server_cart()
    assert server["status"] == "COMPLETED"
    assert server["fulfillmentIdentifier"]
    return server


async def test_pickup_with_modifier_refusal_discount_and_declined_payment(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        assert isinstance(app.screen, MenuScreen)
        server = kiosk.server_cart()
        assert server["fulfilmentMethod"] == "pickup"
        assert server["items"] == []

        # Classic Burger: make it a combo (nested child groups appear with their defaults).
        await type_text(pilot, "classic")
        await keys(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, ProductScreen)
        assert screen.state is not None and screen.state.is_valid
        await keys(pilot, "end", "space")
        groups = [g.id for g in screen.state.groups()]
        assert groups[-2:] == ["grp_combo_side", "grp_combo_drink"]

        # The chosen drink sells out while the customer looks: the server refuses, at that group.
        kiosk.backend.set_sold_out("opt_cdrink_icedtea")
        await keys(pilot, "f2")
        assert isinstance(app.screen, ProductScreen)
        refused = screen.state.find_group("grp_combo_drink")
        assert refused is not None and refused.error
        assert "Combo drink" in banner(pilot)
        assert kiosk.server_cart()["items"] == []
        # The cursor was put on that group: choose the lemonade instead and add.
        row = screen.query_one("#modifiers").cursor_row
        assert row.group.id == "grp_combo_drink"
        await keys(pilot, "down", "space", "f2")
        await no_thanks(pilot)
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        items = kiosk.server_cart()["items"]
        assert [i["productId"] for i in items] == ["prd_classic_burger"]
        assert "Combo" in str(items[0]["selections"]) and "Lemonade" in str(items[0]["selections"])
        assert app.screen.query_text == ""  # the search ended when the product opened

        # The cart: a refused code shows the server's reason at the field; a good one applies.
        await keys(pilot, "f4")
        cart_screen = app.screen
        assert isinstance(cart_screen, CartScreen)
        await pilot.click("#discount")
        await type_text(pilot, "WINTER23")
        await keys(pilot, "enter")
        error = cart_screen.query_one("#discount-error", FieldError)
        assert error.message and "expired" in error.message.lower()
        assert kiosk.server_cart()["discountCode"] is None
        cart_screen.query_one("#discount").value = ""
        await fill(pilot, "SAVE10")
        await keys(pilot, "enter")
        assert kiosk.server_cart()["discountCode"] == "SAVE10"
        assert app.cart is not None and app.cart.discount_total > 0
        # Tips: a preset, then "No tip".
        await pilot.click("#tip-18")
        await settle(pilot)
        assert kiosk.server_cart()["fees"]["tipRate"].startswith("0.18")
        await pilot.click("#tip-none")
        await settle(pilot)
        assert kiosk.server_cart()["waiterTipTotal"] in ("0", "0.00")
        await keys(pilot, "escape")

        server = await checkout_and_pay(kiosk, pilot)
        number = server["fulfillmentIdentifier"]
        assert app.screen.query_one("#order-number").value == number.upper()
        await keys(pilot, "enter")
        assert isinstance(app.screen, LocationScreen)
        assert app.cart is None


async def test_local_checks_before_the_server(kiosk: Kiosk) -> None:
    """Empty name, bad email: said at the field, nothing sent; the server's own refusal at the
    field.
    """
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        await keys(pilot, "f2")
        assert screen.query_one("#e-name", FieldError).message
        assert screen.query_one("#e-email", FieldError).message
        await fill(pilot, "Bo")
        await keys(pilot, "tab")
        await fill(pilot, "bo@nowhere")
        await keys(pilot, "enter")
        assert "look right" in screen.query_one("#e-email", FieldError).message
        assert kiosk.server_cart()["status"] == "OPEN"


async def test_dine_in_then_the_done_screen_times_out(tmp_path: Path) -> None:
    now = [1000.0]
    kiosk = make_kiosk(tmp_path, clock=lambda: now[0])
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "2")
        assert kiosk.server_cart()["fulfilmentMethod"] == "dine_in"
        await add_simple(pilot, "cookie", quantity="3")
        assert [i["quantity"] for i in kiosk.server_cart()["items"]] == [3]
        # The cookie names no modifier groups: its menu record was enough, no detail fetched.
        assert app.visit.client.stats.by_endpoint["product"] == 0
        assert app.visit.client.stats.by_endpoint["menus"] == 1
        server = await checkout_and_pay(kiosk, pilot)
        assert server["fulfilmentMethod"] == "dine_in"
        screen = app.screen
        assert isinstance(screen, DoneScreen)
        assert "Take a seat" in str(screen.query_one("#done-next").render())
        # Back to the start after settings.done_timeout (15 s), on the app's clock.
        assert "15 s" in str(screen.query_one("#done-countdown").render())
        now[0] += 14.2
        screen._tick()
        await settle(pilot)
        assert app.screen is screen
        assert "1 s" in str(screen.query_one("#done-countdown").render())
        now[0] += 1.0
        screen._tick()
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        assert not app.visit.state.has_order and app.cart is None


async def test_delivery_address_checked_then_sent(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "3")
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        # Nothing typed: each required field says so, and no cart exists yet.
        await keys(pilot, "enter", "enter", "enter", "enter", "enter")
        assert isinstance(app.screen, WelcomeScreen)
        assert screen.query_one("#e-street", FieldError).message
        assert app.visit.state.cart_id is None
        for name, value in (
            ("street", "12 Water St"),
            ("city", "New York"),
            ("state", "NY"),
            ("zip", "10038"),
        ):
            screen.query_one(f"#f-{name}").value = value
        await pilot.click("#start")
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        server = kiosk.server_cart()
        assert server["fulfilmentMethod"] == "delivery"
        assert server["deliveryInfo"]["addressString"].startswith("12 Water St")
        await add_simple(pilot, "fries")
        server = await checkout_and_pay(kiosk, pilot)
        assert "12 Water St" in str(app.screen.query_one("#done-next").render())


@pytest.mark.parametrize(
    ("method_key", "fields", "check"),
    [
        ("2", {"table": "12"}, lambda c: c["tableServiceInfo"]["tableNumber"] == "12"),
        (
            "3",
            {"last_name": "Okafor", "room": "415"},
            lambda c: c["roomServiceInfo"] == {"lastName": "Okafor", "roomNumber": "415"},
        ),
    ],
    ids=["table_service", "room_service"],
)
async def test_hotel_methods(
    tmp_path: Path, method_key: str, fields: dict[str, str], check
) -> None:
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "2", method_key)  # Westside: pickup, table service, room service
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        for index, value in enumerate(fields.values()):
            await fill(pilot, value)
            await keys(pilot, "enter")
            if index + 1 < len(fields):
                assert app.focused is screen.query_one(f"#f-{list(fields)[index + 1]}")
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        assert check(kiosk.server_cart())
        await add_simple(pilot, "latte")
        paid = "elsewhere" if method_key == "2" else "keys"
        server = await checkout_and_pay(kiosk, pilot, paid=paid)
        assert check(server)
        assert server["fulfillmentIdentifier"].startswith("W")


async def test_network_error_mid_flow_keeps_the_cart(tmp_path: Path) -> None:
    # The store's pauses between the reads that settle the failed write are not waited out in
    # real time (they were ~12 s of this test's 18 s): nothing here looks at the countdown.
    kiosk = make_kiosk(tmp_path, store_options={"sleep": no_sleep})
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4")
        screen = app.screen
        assert isinstance(screen, CartScreen)
        kiosk.backend.faults.update({"error_rate": 1.0, "error_status": 503})
        await keys(pilot, "plus")
        assert isinstance(app.screen, CartScreen)
        assert "try again" in banner(pilot).lower()
        # Nothing lost: the screen still shows the line, the server still has it.
        assert app.cart is not None and [i.quantity for i in app.cart.items] == [1]
        assert [i["quantity"] for i in kiosk.server_cart()["items"]] == [1]
        assert "F5" in banner(pilot)  # the screen has inputs: R could end up in one
        kiosk.backend.faults.reset()
        await keys(pilot, "f5")
        assert [i["quantity"] for i in kiosk.server_cart()["items"]] == [2]
        assert [i.quantity for i in app.cart.items] == [2]
        assert not screen.query_one(Banner).shown


async def test_sold_out_line_at_checkout_has_a_way_forward(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await add_simple(pilot, "cookie")
        kiosk.backend.set_sold_out("prd_cookie")
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        await fill(pilot, "Ada")
        await keys(pilot, "tab")
        await fill(pilot, "ada@example.com")
        await keys(pilot, "enter")
        assert isinstance(app.screen, CheckoutScreen)
        problems = str(screen.query_one("#problems-text").render())
        assert "sold out" in problems
        assert kiosk.server_cart()["status"] == "OPEN"
        await pilot.click("#remove-unavailable")
        await settle(pilot)
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_espresso"]
        await keys(pilot, "f2")
        assert isinstance(app.screen, PaymentScreen), banner(pilot)


async def test_cancel_payment_discards_the_cart(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        cart_id = app.visit.state.cart_id
        await keys(pilot, "f4", "f2")
        await fill(pilot, "Ada")
        await keys(pilot, "tab")
        await fill(pilot, "ada@example.com")
        await keys(pilot, "enter")
        assert isinstance(app.screen, PaymentScreen)
        await keys(pilot, "f9")  # Cancel payment (also the Cancel button)
        await keys(pilot, "n")  # keep paying
        assert isinstance(app.screen, PaymentScreen)
        await keys(pilot, "f9", "y")
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        with pytest.raises(KeyError):
            kiosk.backend.get_cart_json(cart_id)


async def test_escape_on_payment_goes_back_to_the_cart_with_the_order_intact(
    kiosk: Kiosk,
) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso", "2")
        await keys(pilot, "f4", "f2")
        await fill(pilot, "Ada")
        await keys(pilot, "tab")
        await fill(pilot, "ada@example.com")
        await keys(pilot, "enter")
        assert isinstance(app.screen, PaymentScreen)
        locked_id = app.visit.state.cart_id
        await keys(pilot, "escape", "n")  # keep paying
        assert isinstance(app.screen, PaymentScreen)
        await keys(pilot, "escape", "y")
        await settle(pilot)
        assert isinstance(app.screen, CartScreen), banner(pilot)
        assert "back" in banner(pilot)
        server = kiosk.server_cart()
        assert server["id"] != locked_id and server["status"] == "OPEN"
        assert [(i["productId"], i["quantity"]) for i in server["items"]] == [("prd_espresso", 2)]
        with pytest.raises(KeyError):
            kiosk.backend.get_cart_json(locked_id)  # the locked cart and its payment are gone
        # The order goes on from here as any other.
        await keys(pilot, "plus")
        await keys(pilot, "f2")
        assert isinstance(app.screen, CheckoutScreen)


async def test_start_over_asks_then_deletes_the_cart(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        cart_id = app.visit.state.cart_id
        await keys(pilot, "f9", "n")
        assert isinstance(app.screen, MenuScreen)
        assert kiosk.backend.get_cart_json(cart_id)["items"]
        await keys(pilot, "f9", "y")
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        with pytest.raises(KeyError):
            kiosk.backend.get_cart_json(cart_id)


async def test_menu_shows_sold_out_and_searches(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        products = app.screen.query_one(ProductList)
        sold = [p for c, p in products.entries() if c.state(p)[0] == "sold_out"]
        assert {p.id for p in sold} >= {"prd_kale_chips", "prd_smash_burger"}
        await type_text(pilot, "kale")
        assert [p.id for _, p in products.entries()] == ["prd_kale_chips"]
        await keys(pilot, "enter")
        assert isinstance(app.screen, MenuScreen)
        assert "sold out" in banner(pilot).lower()
        await keys(pilot, "backspace", "backspace", "backspace", "backspace")
        assert app.screen.query_one(ProductList).rows == products.rows
        assert "Type to search" in str(app.screen.query_one("#search").render())


async def test_cart_lines_tip_and_later_slot(kiosk: Kiosk) -> None:
    from textual.widgets import Select

    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await add_simple(pilot, "cookie", quantity="2")
        await keys(pilot, "f4", "escape", "f4")
        screen = app.screen
        assert isinstance(screen, CartScreen)
        # Back and forth with the same cart: the recommendations were read once for the cart
        # (the first add's suggestion); the second add and the cart screen asked for none.
        assert app.visit.client.stats.by_endpoint["cross_sell"] == 1
        # Lines: the cursor starts on the first line; + and - change it, Delete removes it.
        await keys(pilot, "plus", "plus", "minus")
        items = {i["productId"]: i["quantity"] for i in kiosk.server_cart()["items"]}
        assert items == {"prd_espresso": 2, "prd_cookie": 2}
        await keys(pilot, "delete")
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_cookie"]
        assert [i.product_id for i in app.cart.items] == ["prd_cookie"]
        # A custom tip amount, checked here first.
        await pilot.click("#tip-custom")
        await settle(pilot)
        assert app.focused is screen.query_one("#custom-tip")
        await fill(pilot, "abc")
        await keys(pilot, "enter")
        assert screen.query_one("#tip-error", FieldError).message
        await fill(pilot, "2.50")
        await keys(pilot, "enter")
        assert kiosk.server_cart()["waiterTipTotal"] == "250"
        assert screen.query_one("#tip-custom").has_class("-chosen")
        # A later slot from the server's time intervals, then back to ASAP.
        select = screen.query_one("#later", Select)
        assert screen.slot_values
        slot = sorted(screen.slot_values)[3]
        select.value = slot
        await settle(pilot)
        server = kiosk.server_cart()
        assert server["pickupType"] == "LATER"
        assert f"{server['orderDate']} {server['orderTime']}" == slot
        await pilot.click("#asap")
        await settle(pilot)
        assert kiosk.server_cart()["pickupType"] == "ASAP"


async def test_rate_limit_is_waited_out_with_a_calm_status(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path, store_options={"sleep": no_sleep})
    app = kiosk.app
    seen: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.watch(app, "status_text", lambda text: seen.append(text), init=False)
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "espresso")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        kiosk.backend.faults.update({"burst_429": 3, "burst_retry_after_s": 2})
        await keys(pilot, "f2")
        await no_thanks(pilot)
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        # The add went through after the wait; the customer saw a countdown, not an error.
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_espresso"]
        assert any(text.startswith("Very busy: sending in") for text in seen), seen
        assert app.status_text == ""
        assert not app.screen.query_one(Banner).has_class("-error")


async def test_closed_location_schedules_for_later_and_says_so(kiosk: Kiosk) -> None:
    from .conftest import FIXED_NOW

    kiosk.backend.set_clock(lambda: FIXED_NOW + 12 * 3600)  # 22:00 in Los Angeles: closed
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "2", "1")
        assert isinstance(app.screen, MenuScreen)
        assert "scheduled for tomorrow" in banner(pilot)
        server = kiosk.server_cart()
        assert server["pickupType"] == "LATER"
        # The menu shown is the one for that time (breakfast), not the one for now.
        products = app.screen.query_one(ProductList)
        assert any(p.id == "prd_pancakes" for _, p in products.entries())


@pytest.mark.parametrize(
    ("slug", "offered"),
    [("lantern-kitchen", ["pickup", "table_service", "room_service"]), (None, ["pickup"])],
    ids=["from-merchant-listing", "pickup-assumed"],
)
async def test_methods_when_the_location_does_not_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slug: str | None, offered: list[str]
) -> None:
    """Like the vendor's location record: no methodsStatus. A one-location kiosk starts here."""
    from .conftest import WESTSIDE

    kiosk = make_kiosk(tmp_path, locations=[WESTSIDE], merchant_slug=slug)
    original = kiosk.backend.location_json

    def without_methods(loc: Any) -> Any:
        body = dict(original(loc))
        body.pop("methodsStatus", None)
        return body

    monkeypatch.setattr(kiosk.backend, "location_json", without_methods)
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        assert screen.methods == offered
        assert "Westside" in str(screen.query_one("#welcome-title").render())


async def test_menu_that_fails_to_load_is_retried_with_f5(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        kiosk.backend.faults.update({"error_rate": 1.0, "error_status": 502})
        await keys(pilot, "1")
        # The session could not even start: said on the welcome screen, with the way forward.
        assert isinstance(app.screen, WelcomeScreen)
        assert "try again" in banner(pilot).lower()
        kiosk.backend.faults.reset()
        await keys(pilot, "r")
        assert isinstance(app.screen, MenuScreen)
        kiosk.backend.faults.update({"error_rate": 1.0, "error_status": 502})
        # Menus are cached for minutes: make this load reach the server.
        app.visit.client.clear_cache()
        app.screen.load()
        await settle(pilot)
        assert "Press F5" in banner(pilot)
        kiosk.backend.faults.reset()
        await keys(pilot, "r")  # a letter searches the menu here...
        assert app.screen.query_text == "r"
        await keys(pilot, "backspace", "f5")  # ...and F5 retries
        assert not app.screen.query_one(Banner).shown
        assert any(True for _ in app.screen.query_one(ProductList).entries())
