"""Journeys 21 and 25 of ../shared/journeys.md, "When the world changes under an order": the
server changes the order while the customer is at the kiosk (its cart expires, a product sells
out), and the kiosk shows only what the server holds, with one way forward. Through the real
kiosk on the strict 2.0 server, 80x24 and 120x40, in virtual time."""

from __future__ import annotations

from textual.widgets import Button

from kiosk.ordering.lifecycle import Phase
from tests.journeys.harness import Journey, JourneyFactory
from tests.journeys.test_paying import MERCHANT, name_to_payment, number_of, phase


async def gyoza_and_tea_in_the_cart(j: Journey) -> None:
    """Takeout, one gyoza and one jasmine tea, on the cart screen."""
    await j.settle()
    await j.press("1")
    await j.wait_for_screen("MenuScreen")
    walk = j.walk()
    await walk.add_line("prod_gyoza")
    await walk.add_line("prod_jasmine_tea")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")


def server_lines(j: Journey, cart_id: str | None = None) -> dict[str, int]:
    return {i["productId"]: i["quantity"] for i in j.server_cart(cart_id)["items"]}


def shown(j: Journey, selector: str) -> bool:
    found = j.app.screen.query(selector)
    return bool(found) and found.first().display


async def test_journey_21_an_expired_cart_is_said_once_and_started_again(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await gyoza_and_tea_in_the_cart(j)
        old = j.cart_id
        # While the customer reads the order, its cart expires on the server, and the tea
        # sells out meanwhile.
        j.expire_cart()
        j.sell_out("prod_jasmine_tea")
        await j.press("plus")  # one more gyoza: the server refuses, the cart has expired
        await j.wait_for(lambda: phase(j) is Phase.EXPIRED, within=10, what="expired")
        text = j.screen_text()
        # Said once, in one sentence, with no second instruction and none of the API's words.
        assert text.count("This order has expired") == 1, text
        assert "try again" not in text.lower(), text
        assert "EXPIRED" not in text, text
        assert server_lines(j, old) == {"prod_gyoza": 1, "prod_jasmine_tea": 1}
        # The expired lines are not offered for checkout: no button, no F2.
        assert not shown(j, "#checkout"), text
        assert "Checkout" not in text, text
        await j.press("f2")
        assert j.screen_name() == "CartScreen"
        # One action: start again with the same items.
        assert "Start again with the same items" in " ".join(text.split()), text
        assert isinstance(j.app.focused, Button) and j.app.focused.id == "start-again"
        await j.press("enter")
        await j.wait_for(
            lambda: j.app.visit.state.cart_id not in (None, old), within=10, what="a new cart"
        )
        await j.settle()
        new = j.cart_id
        assert phase(j) is Phase.ORDERING
        # The same way to order and the lines the server still sells; the rest is named.
        cart = j.server_cart(new)
        assert cart["fulfilmentMethod"] == "takeout"
        assert server_lines(j, new) == {"prod_gyoza": 1}
        text = " ".join(j.screen_text().split())
        assert "Jasmine tea" in text and "could not be added" in text, text
        assert "This order has expired" not in text, text
        assert shown(j, "#checkout")
        # The new order goes on to payment as any other.
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        await name_to_payment(j)
        j.pay(new)
        await j.wait_for_screen("DoneScreen", within=30)
        assert number_of(j, new) in j.screen_text()


async def test_journey_21_expiry_found_at_checkout_goes_back_to_the_order_said_once(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await gyoza_and_tea_in_the_cart(j)
        old = j.cart_id
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        j.expire_cart()
        await j.type("#name", "Ada Lovelace", then="f2")
        await j.wait_for(lambda: phase(j) is Phase.EXPIRED, within=10, what="expired")
        await j.wait_for_screen("CartScreen", within=5)
        text = j.screen_text()
        assert text.count("This order has expired") == 1, text
        assert "try again" not in text.lower() and "EXPIRED" not in text, text
        assert not shown(j, "#checkout")
        assert not j.handoffs(old)
        await j.press("enter")  # the focused "Start again with the same items"
        await j.wait_for(
            lambda: j.app.visit.state.cart_id not in (None, old), within=10, what="a new cart"
        )
        assert server_lines(j) == {"prod_gyoza": 1, "prod_jasmine_tea": 1}


async def test_journey_21_expiry_found_on_the_menu_shows_the_order_said_once(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await gyoza_and_tea_in_the_cart(j)
        old = j.cart_id
        await j.press("escape")
        await j.wait_for_screen("MenuScreen")
        j.expire_cart()
        await j.walk().add_line("prod_crackers")  # refused: the order has expired
        await j.wait_for_screen("CartScreen", within=5)
        assert phase(j) is Phase.EXPIRED
        text = j.screen_text()
        assert text.count("This order has expired") == 1, text
        assert "try again" not in text.lower() and "EXPIRED" not in text, text
        await j.press("enter")  # the focused "Start again with the same items"
        await j.wait_for(
            lambda: j.app.visit.state.cart_id not in (None, old), within=10, what="a new cart"
        )
        assert server_lines(j) == {"prod_gyoza": 1, "prod_jasmine_tea": 1}
        await j.press("escape")  # back on the menu: nothing left of the refusal
        await j.wait_for_screen("MenuScreen")
        assert "expired" not in j.screen_text().lower()


async def test_journey_25_sold_out_at_checkout_is_marked_with_a_remove_action(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await gyoza_and_tea_in_the_cart(j)
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        j.sell_out("prod_gyoza")
        await j.type("#name", "Ada Lovelace", then="f2")
        await j.wait_for(lambda: shown(j, "#problems"), within=10, what="the problems")
        assert j.screen_name() == "CheckoutScreen"
        text = " ".join(j.screen_text().split())
        # The line is named as the v1 checkout names it, with its way forward; one instruction.
        assert "• Gyoza (5): Sold out" in text, text
        assert "Jasmine tea" not in text.split("Your order can't be paid for yet")[1], text
        assert "Remove it from your order" not in text, text  # the server's second instruction
        assert isinstance(j.app.focused, Button) and j.app.focused.id == "remove-unavailable"
        assert not j.handoffs()
        await j.press("enter")
        await j.wait_for(lambda: "prod_gyoza" not in server_lines(j), within=10, what="removed")
        assert server_lines(j) == {"prod_jasmine_tea": 1}
        await j.press("f2")
        await j.wait_for_screen("PaymentScreen", within=10)
        cart_id = j.cart_id
        j.pay(cart_id)
        await j.wait_for_screen("DoneScreen", within=30)
        assert number_of(j, cart_id) in j.screen_text()


async def test_journey_25_the_sold_out_line_is_marked_on_the_order_and_removed_there(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await gyoza_and_tea_in_the_cart(j)
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        j.sell_out("prod_gyoza")
        await j.type("#name", "Ada Lovelace", then="f2")
        await j.wait_for(lambda: shown(j, "#problems"), within=10, what="the problems")
        await j.press("escape")  # back to the order
        await j.wait_for_screen("CartScreen")
        rows = [row for row in j.screen_text().splitlines() if "×" in row]
        gyoza = next(row for row in rows if "Gyoza" in row)
        tea = next(row for row in rows if "Jasmine tea" in row)
        assert "Sold out" in gyoza and "Sold out" not in tea, rows
        # The cursor is on the first line (the gyoza): Del removes it.
        await j.press("delete")
        await j.wait_for(lambda: "prod_gyoza" not in server_lines(j), within=10, what="removed")
        assert "Sold out" not in j.screen_text()
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        await name_to_payment(j)
