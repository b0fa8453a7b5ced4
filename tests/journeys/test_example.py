"""The harness's proof: a takeout order paid on the phone, through the real kiosk on the strict
2.0 server, at 80x24 and 120x40, in virtual time."""

from __future__ import annotations

from tests.journeys.harness import Journey, JourneyFactory


async def order_gyoza_to_payment(j: Journey) -> None:
    """Takeout, one gyoza, checkout with a name and an email, on to the payment screen."""
    walk = j.walk()
    await walk.start()  # "1": takeout
    await walk.add_line("prod_gyoza")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")
    await j.press("f2")
    await j.wait_for_screen("CheckoutScreen")
    await j.type("#name", "Ada Lovelace")
    await j.type("#email", "ada@example.com", then="enter")
    await j.wait_for_screen("PaymentScreen", within=5)
    await j.wait_for(lambda: bool(j.handoffs()), within=5, what="a hand-off")


async def test_a_takeout_order_paid_on_the_phone(journey: JourneyFactory) -> None:
    async with journey() as j:
        await order_gyoza_to_payment(j)
        assert "Scan" in j.screen_text() or "scan" in j.screen_text()
        cart_id = j.cart_id
        assert j.order_result() == {"state": "payment_pending"}
        await j.advance(10)  # the customer takes 10 s to pay
        assert j.screen_name() == "PaymentScreen"
        j.pay()
        took = await j.wait_for_screen("DoneScreen", within=60)
        assert took <= 30, took
        (order,) = j.orders()
        assert order["shortId"] == "H101"
        assert j.server_cart(cart_id)["status"] == "COMPLETED"
        text = j.screen_text()
        assert "Thank you" in text
        # The total the customer reads is the server's.
        assert j.server_cart(cart_id)["orderTotalWithServiceFeeFormatted"] == "£6.71"
        assert "Total" in text and "£6.71" in text
        # The done screen's countdown runs on the same virtual clock: back to the start in 15 s.
        assert "Back to the start in 15 s" in text
        took = await j.wait_for_screen("WelcomeScreen", within=30)
        assert 14 <= took <= 16, took
