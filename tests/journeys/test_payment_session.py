"""Journeys 22, 27 and 28 of ../shared/journeys.md, "A payment session that always ends": the
payment screen shows only a payment that can still happen, ends by itself when nobody is there,
and a payment that lands after the screen moved on is shown on that terminal. Through the real
kiosk on the strict 2.0 server, 80x24 and 120x40, in virtual time."""

from __future__ import annotations

from tests.journeys.harness import Journey, JourneyFactory
from tests.journeys.test_paying import MERCHANT, number_of, to_payment

FIRST_SCREENS = ("WelcomeScreen", "AttractScreen")


def shows_a_code(j: Journey) -> bool:
    screen = j.app.screen
    return bool(screen.query("#qr")) and screen.query_one("#qr").display


async def test_journey_22_an_expired_cart_takes_its_code_and_countdown_away_at_once(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        assert shows_a_code(j) and "Time left to pay" in j.screen_text()
        j.expire_cart()
        await j.wait_for(lambda: not shows_a_code(j), within=10, what="the code gone")
        text = j.screen_text()
        assert "no longer available" in text, text
        assert "Time left to pay" not in text and "I have paid" not in text, text
        assert text.count("no longer available") == 1, text
        # One way forward: a new order.
        assert "New order" in text or "Start a new order" in text, text


async def test_journey_27_nobody_there_when_the_time_to_pay_runs_out(
    journey: JourneyFactory,
) -> None:
    async with journey(settings={**MERCHANT, "payment_timeout": 120}) as j:
        await to_payment(j)
        cart_id = j.cart_id
        await j.wait_for(lambda: "Still there?" in j.screen_text(), within=130, what="the prompt")
        looks_before = sum(1 for m, p, _s in j.requests() if p.endswith("/order-result"))
        await j.wait_for(lambda: j.screen_name() in FIRST_SCREENS, within=40, what="the start")
        # One last look at the payment before the order was given up, and nothing of it left.
        looks_after = sum(1 for m, p, _s in j.requests() if p.endswith("/order-result"))
        assert looks_after > looks_before
        assert j.app.visit.state.cart_id is None
        assert j.server_cart(cart_id)["status"] == "EXPIRED"  # deleted: its code pays no more
        assert "Scan" not in j.screen_text()


async def test_journey_27_an_answer_keeps_the_payment(journey: JourneyFactory) -> None:
    async with journey(settings={**MERCHANT, "payment_timeout": 120}) as j:
        await to_payment(j)
        cart_id = j.cart_id
        await j.wait_for(lambda: "Still there?" in j.screen_text(), within=130, what="the prompt")
        await j.press("space")
        await j.settle()
        assert j.screen_name() == "PaymentScreen" and shows_a_code(j)
        j.pay(cart_id)
        await j.wait_for_screen("DoneScreen", within=30)
        assert number_of(j, cart_id) in j.screen_text()


async def test_journey_28_paid_while_the_link_was_frozen_the_next_session_offers_the_number(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_payment(j)
        cart_id = j.cart_id
        j.pay(cart_id)
        # The old kiosk shows the number to a terminal nobody reads, then ends the visit.
        await j.wait_for_screen("DoneScreen", within=30)
        await j.advance(40)
        await j.wait_for(lambda: j.screen_name() in FIRST_SCREENS, within=30, what="the start")
        # The link comes back: a new session takes the terminal over.
        await j.restart()
        number = number_of(j, cart_id)
        text = j.screen_text()
        assert "Missed your order number?" in text, text
        await j.press("n")
        await j.wait_for(lambda: number in j.screen_text(), within=5, what="the number")
