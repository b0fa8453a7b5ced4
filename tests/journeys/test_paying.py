"""Journeys 1-6 of ../shared/journeys.md, "Paying and the order number": through the real kiosk
on the strict 2.0 server (tests/conformance/vendor_server.py, written from the vendor's documents),
at 80x24 and 120x40, in virtual time. A journey passes when the customer reads the right thing.

The strict server's order numbers are H101, H102, … (order-result's `order.shortId`); the cart's
`fulfillmentIdentifier` is "counter", the table number, the address or the room, as in the
vendor's own example: a kiosk that showed it as the number would show "7" or "counter"."""

from __future__ import annotations

from kiosk.ordering.lifecycle import Phase
from tests.journeys.harness import Journey, JourneyFactory

MERCHANT = {"merchant": "harbour-noodles-co"}
ZONES = {
    **MERCHANT,
    "delivery_zones": [
        {"name": "Harbourside", "postal_codes": ["BS1 4QA"], "lat": 51.4496, "lng": -2.5975}
    ],
}


async def to_checkout(j: Journey, method: str = "takeout", **details: str) -> None:
    """The way to order and its details, one gyoza, on to the checkout screen."""
    await j.settle()
    if method == "takeout":
        await j.press("1")
    elif method == "table":
        await j.press("2")
        await j.type("#f-table", details.get("table", "7"), then="enter")
    elif method == "delivery":
        await j.press("3")
        await j.type("#f-street", details.get("street", "10 Pitt St"))
        await j.type("#f-street2", details.get("unit", "Unit 5"))
        await j.type("#f-city", "Bristol")
        await j.type("#f-state", "England")
        await j.type("#f-zip", "BS1 4QA", then="enter")
    await j.wait_for_screen("MenuScreen")
    await j.walk().add_line("prod_gyoza")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")
    await j.press("f2")
    await j.wait_for_screen("CheckoutScreen")


async def to_payment(j: Journey, method: str = "takeout", **details: str) -> None:
    """The way to order and its details, one gyoza, checkout with a name, on to the payment."""
    await to_checkout(j, method, **details)
    await name_to_payment(j)


async def checkout_to_payment(j: Journey) -> None:
    """From the cart: checkout with a name only (2.0 asks no more: journey 9), to the payment."""
    await j.press("f2")
    await j.wait_for_screen("CheckoutScreen")
    await name_to_payment(j)


async def name_to_payment(j: Journey) -> None:
    """On the checkout: a name, F2, on to the payment and its hand-off."""
    await j.type("#name", "Ada Lovelace", then="f2")
    await j.wait_for_screen("PaymentScreen", within=10)
    await j.wait_for(lambda: bool(j.handoffs()), within=10, what="a hand-off")


async def back_to_the_order(j: Journey) -> None:
    await j.press("escape", "y")
    await j.wait_for_screen("CartScreen", within=10)


def number_of(j: Journey, cart_id: str) -> str:
    (order,) = [o for o in j.orders() if o.get("cartId", cart_id) == cart_id] or j.orders()
    return str(order["shortId"])


def phase(j: Journey) -> Phase:
    return j.app.visit.state.order.phase


async def paid_and_read(j: Journey, cart_id: str) -> str:
    """The phone pays; the done screen shows the server's number within a few seconds."""
    j.pay(cart_id)
    took = await j.wait_for_screen("DoneScreen", within=30)
    assert took <= 3, f"the number took {took} s"
    number = number_of(j, cart_id)
    text = j.screen_text()
    assert number in text, text
    return text


async def test_journey_1_table_service_shows_the_order_number_not_the_table(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j, "table", table="7")
        cart_id = j.cart_id
        assert j.server_cart(cart_id)["fulfillmentIdentifier"] == "7"
        text = await paid_and_read(j, cart_id)
        number = number_of(j, cart_id)
        assert number != "7"
        assert f"Receipt · order {number}" in text
        assert "order 7" not in text and "number is 7" not in text
        # The table is shown as the table.
        assert "table 7" in text.lower()


async def test_journey_2_delivery_shows_the_order_number_not_the_address(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=ZONES) as j:
        await to_payment(j, "delivery", street="10 Pitt St", unit="Unit 5")
        cart_id = j.cart_id
        assert "10 Pitt St" in j.server_cart(cart_id)["fulfillmentIdentifier"]
        text = await paid_and_read(j, cart_id)
        number = number_of(j, cart_id)
        assert f"Receipt · order {number}" in text
        assert "order 10 Pitt" not in text
        # The address is shown as the address.
        assert "10 Pitt St" in text


async def test_journey_3_a_declined_card_is_said_within_one_poll_and_a_later_payment_wins(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        first_code = j.handoffs(cart_id)[-1]
        await j.advance(5)
        j.decline(cart_id)
        took = await j.wait_for_text("did not go through", within=10)
        assert took <= 2, took  # within one poll
        assert phase(j) is Phase.DECLINED
        text = j.screen_text()
        assert "Pay again" in text and "Back to my order" in text
        assert "Time left to pay" not in text or "did not go through" in text
        # Pay again: a fresh hand-off and a fresh code.
        await j.press("enter")  # the focused "Pay again with a new code"
        await j.wait_for(lambda: len(j.handoffs(cart_id)) == 2, within=10, what="a new hand-off")
        await j.wait_for(lambda: phase(j) is Phase.AWAITING_PAYMENT, within=5, what="waiting")
        assert j.handoffs(cart_id)[-1] != first_code
        assert "did not go through" not in j.screen_text()
        await paid_and_read(j, cart_id)


async def test_journey_4_a_restart_on_the_payment_screen_comes_back_and_shows_the_number(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        url = j.app.visit.state.order.checkout_url
        assert url
        # kill -9 on "Scan to pay": the restart comes back to the same cart's payment.
        await j.restart()
        await j.wait_for_screen("PaymentScreen", within=10)
        assert j.app.visit.state.cart_id == cart_id
        assert j.app.visit.state.order.checkout_url == url  # the same code, not a new one
        assert len(j.handoffs(cart_id)) == 1
        # The customer pays meanwhile; the kiosk dies again and comes back to the number.
        j.pay(cart_id)
        await j.restart()
        took = await j.wait_for_screen("DoneScreen", within=10)
        assert took <= 3, took
        assert number_of(j, cart_id) in j.screen_text()
        assert "COMPLETED" not in j.screen_text()


async def test_journey_5_back_from_payment_keeps_the_code_payable_and_shows_its_number(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        await j.press("escape")
        text = " ".join(j.screen_text().split())  # the dialog wraps at 80 columns
        # The kiosk says only what the server confirms: the 2.0 code is not said to stop.
        assert "stops working" not in text
        assert "If you pay with this code" in text and "your order number appears here" in text
        await j.press("n")  # "Keep paying": nothing changes
        await back_to_the_order(j)
        assert j.server_cart(cart_id)["status"] == "OPEN"
        # The customer pays with the code shown before: the kiosk shows its number.
        j.pay(cart_id)
        took = await j.wait_for_screen("DoneScreen", within=30)
        assert took <= 12, took  # the slow watch of a kept code (every 10 s)
        text = j.screen_text()
        assert number_of(j, cart_id) in text
        assert "try again" not in text.lower()


async def test_journey_5_a_write_after_the_old_code_paid_shows_the_number_not_an_error(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        await back_to_the_order(j)
        j.pay(cart_id)
        await j.press("plus")  # one more gyoza: refused, the cart is paid
        await j.wait_for_screen("DoneScreen", within=5)
        text = j.screen_text()
        assert number_of(j, cart_id) in text
        for wrong in ("COMPLETED", "try again", "changed elsewhere"):
            assert wrong not in text, wrong


async def test_journey_6_paid_quickly_the_number_within_three_seconds(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        before = len([r for r in j.requests() if r[1].endswith("/order-result")])
        await j.advance(4)
        await paid_and_read(j, cart_id)
        polls = len([r for r in j.requests() if r[1].endswith("/order-result")]) - before
        # Every 2 s while the budget has room: about a poll a second of waiting, no more.
        assert polls <= 6, polls
