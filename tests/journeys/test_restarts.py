"""Journeys 18-20 of ../shared/journeys.md, "Restarts rebuild the order from the server": kill -9
on the checkout screen, then a new kiosk on the same terminal. The order must come back as the
server holds it (its way to order, its table or address, its fee and total), never as a default,
and be paid as that order. Through the real kiosk on the strict 2.0 server, 80x24 and 120x40."""

from __future__ import annotations

from tests.journeys.harness import JourneyFactory
from tests.journeys.test_paying import MERCHANT, ZONES, name_to_payment, number_of, to_checkout


async def test_journey_18_a_restart_at_checkout_keeps_the_table(journey: JourneyFactory) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_checkout(j, "table", table="8")
        cart_id = j.cart_id
        before = j.server_cart(cart_id)
        assert before["fulfilmentMethod"] == "table_side"
        await j.restart()
        await j.wait_for(lambda: j.app.visit.state.cart_id == cart_id, what="the cart resumed")
        await j.settle()
        # The server still holds a table order for table 8, and the screen says so.
        after = j.server_cart(cart_id)
        assert after["fulfilmentMethod"] == "table_side", after["fulfilmentMethod"]
        assert after["tableServiceInfo"]["tableNumber"] == "8"
        assert (
            after["orderTotalWithServiceFeeFormatted"]
            == before["orderTotalWithServiceFeeFormatted"]
        )
        assert j.app.visit.state.fulfillment_method == "table_service"
        assert j.app.visit.state.table_number == "8"
        if j.screen_name() != "CheckoutScreen":
            await j.press("f4")
            await j.wait_for_screen("CartScreen")
            assert "Table 8" in j.screen_text(), j.screen_text()
            await j.press("f2")
            await j.wait_for_screen("CheckoutScreen")
        await name_to_payment(j)
        j.pay(cart_id)
        await j.wait_for_screen("DoneScreen", within=30)
        number = number_of(j, cart_id)
        text = j.screen_text()
        assert number in text
        assert "table 8" in text.lower(), text
        (order,) = j.orders()
        assert order["fulfillmentMethod"] == "table_side", order


async def test_journey_19_a_restart_at_checkout_keeps_the_delivery_and_its_fee(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=ZONES) as j:
        await to_checkout(j, "delivery", street="10 Pitt St", unit="Unit 5")
        cart_id = j.cart_id
        before = j.server_cart(cart_id)
        assert before["fulfilmentMethod"] == "delivery"
        total = before["orderTotalWithServiceFeeFormatted"]
        fee = before["fulfillmentMethodFeeTotalFormatted"]
        await j.restart()
        await j.wait_for(lambda: j.app.visit.state.cart_id == cart_id, what="the cart resumed")
        await j.settle()
        after = j.server_cart(cart_id)
        assert after["fulfilmentMethod"] == "delivery", after["fulfilmentMethod"]
        assert "10 Pitt St" in after["fulfillmentIdentifier"]
        assert after["orderTotalWithServiceFeeFormatted"] == total
        assert j.app.visit.state.fulfillment_method == "delivery"
        if j.screen_name() != "CheckoutScreen":
            await j.press("f4")
            await j.wait_for_screen("CartScreen")
            text = j.screen_text()
            assert total in text and fee in text, text
            await j.press("f2")
            await j.wait_for_screen("CheckoutScreen")
        await name_to_payment(j)
        j.pay(cart_id)
        await j.wait_for_screen("DoneScreen", within=30)
        text = j.screen_text()
        assert number_of(j, cart_id) in text
        assert "10 Pitt St" in text, text
        assert total in text, text
        (order,) = j.orders()
        assert order["fulfillmentMethod"] == "delivery", order
