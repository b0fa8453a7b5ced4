"""Journeys 20, 23 and 24 of ../shared/journeys.md, "When the world changes under an order": the
server refuses the order's way to order or its time, and the kiosk re-reads what the refusal
concerns (the location's ways, the slots, the cart) and shows what the server holds. Through the
real kiosk on the strict 2.0 server, 80x24 and 120x40."""

from __future__ import annotations

from typing import Any

from textual.widgets import Select

from tests.journeys.harness import Journey, JourneyFactory
from tests.journeys.test_paying import MERCHANT
from tests.journeys.test_restarts import to_checkout

# The welcome's own words for table service (the list's row, not the server's sentence).
TABLE_ROW = "We bring your order to your table"


def lines_of(cart: dict[str, Any]) -> list[tuple[str, int]]:
    return sorted((str(i["productId"]), int(i["quantity"])) for i in cart["items"])


def offered(j: Journey) -> list[str]:
    """The ways the welcome lists now."""
    return list(getattr(j.app.screen, "methods", []))


async def test_journey_20_a_restart_where_the_way_to_order_is_gone(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_checkout(j, "table", table="8")
        cart_id = j.cart_id
        lines = lines_of(j.server_cart(cart_id))
        assert lines, "an item in the cart"
        j.switch_off("table_side")  # while the kiosk is down
        await j.restart()
        await j.wait_for_screen("WelcomeScreen")
        await j.wait_for_text("not available", within=10)
        await j.settle()
        # Told why, and table service is no longer offered; the order is still there.
        text = j.screen_text()
        assert "Table orders are not available" in text, text
        assert "table_service" not in offered(j), offered(j)
        assert TABLE_ROW not in text, text
        assert j.app.visit.state.cart_id == cart_id
        # Another way: the same cart and its lines, now a takeout order on the server.
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.settle()
        assert j.cart_id == cart_id
        after = j.server_cart(cart_id)
        assert after["fulfilmentMethod"] == "takeout", after["fulfilmentMethod"]
        assert lines_of(after) == lines
        assert j.app.visit.state.fulfillment_method == "pickup"
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        text = j.screen_text()
        assert "Gyoza" in text, text
        assert "Table 8" not in text, text


async def to_cart(j: Journey) -> None:
    await j.settle()
    await j.press("1")
    await j.wait_for_screen("MenuScreen")
    await j.walk().add_line("prod_gyoza")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")
    await j.wait_for(
        lambda: bool(j.app.screen.query_one("#time-section").display), what="the times"
    )


async def test_journey_23_a_time_taken_meanwhile(journey: JourneyFactory) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_cart(j)
        screen: Any = j.app.screen
        select = screen.query_one("#later", Select)
        slots = sorted(screen.slot_values)
        first, taken, later = slots[2], slots[5], slots[6]
        # A later time the server holds.
        select.value = first
        await j.settle()
        cart = j.server_cart()
        assert f"{cart['orderDate']} {cart['orderTime']}" == first
        # Meanwhile two later times are taken; the customer picks one of them.
        day = taken.split(" ")[0]
        j.take_slots(taken.split(" ")[1], later.split(" ")[1], day=day)
        select.value = taken
        await j.settle()
        # The refusal is said; the select shows the server's time, not the refused one.
        await j.wait_for_text("not one of the offered slots", within=10)
        cart = j.server_cart()
        assert f"{cart['orderDate']} {cart['orderTime']}" == first
        assert select.value == first, select.value
        # The list offered next is the server's current one: neither taken time is offered.
        assert taken not in screen.slot_values and later not in screen.slot_values
        values = {value for _label, value in select._options}
        assert taken not in values and later not in values, sorted(values)[:10]
        assert first in values
        # ... and a time from that list is taken by the server.
        other = slots[7]
        select.value = other
        await j.settle()
        cart = j.server_cart()
        assert f"{cart['orderDate']} {cart['orderTime']}" == other
        assert select.value == other
        # That time is taken too, now while the customer checks out: the hand-off is refused,
        # said, and back in the order the list is the server's again.
        j.take_slots(other.split(" ")[1], day=day)
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        await j.type("#name", "Ada Lovelace", then="f2")
        await j.wait_for_text("no longer available", within=10)
        assert j.screen_name() == "CheckoutScreen"
        await j.press("escape")
        await j.wait_for_screen("CartScreen")
        screen = j.app.screen
        select = screen.query_one("#later", Select)
        values = {value for _label, value in select._options}
        assert other not in values and other not in screen.slot_values
        assert select.value != other


async def test_journey_24_a_way_to_order_switched_off_mid_order(journey: JourneyFactory) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_checkout(j, "table", table="8")
        cart_id = j.cart_id
        lines = lines_of(j.server_cart(cart_id))
        j.switch_off("table_side")
        # The hand-off is refused: the customer is told, and chooses another way.
        await j.type("#name", "Ada Lovelace", then="f2")
        await j.wait_for_screen("WelcomeScreen", within=10)
        await j.wait_for_text("not available", within=10)
        await j.settle()
        text = j.screen_text()
        assert "Table orders are not available" in text, text
        assert "table_service" not in offered(j), offered(j)
        assert TABLE_ROW not in text, text
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.settle()
        assert j.cart_id == cart_id
        after = j.server_cart(cart_id)
        assert after["fulfilmentMethod"] == "takeout", after["fulfilmentMethod"]
        assert lines_of(after) == lines
        # On to the payment with the same lines, now a takeout order.
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        assert "Gyoza" in j.screen_text()
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        await j.press("f2")
        await j.wait_for_screen("PaymentScreen", within=10)
        await j.wait_for(lambda: bool(j.handoffs()), within=10, what="a hand-off")


async def test_journey_24_a_way_switched_off_before_the_order_starts(
    journey: JourneyFactory,
) -> None:
    """The welcome listed table service; it is switched off before the customer starts: the
    start is refused and said, and the list is the server's again (no cart was made)."""
    async with journey(settings=MERCHANT) as j:
        await j.settle()
        assert "table_service" in offered(j)
        j.switch_off("table_side")
        await j.press("2")
        await j.type("#f-table", "8", then="enter")
        await j.wait_for_text("not available", within=10)
        await j.settle()
        assert j.screen_name() == "WelcomeScreen"
        assert "table_service" not in offered(j), offered(j)
        assert TABLE_ROW not in j.screen_text()
        assert not j.app.screen.query_one("#details").display  # that way's form is closed
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        assert j.server_cart()["fulfilmentMethod"] == "takeout"
