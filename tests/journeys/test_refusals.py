"""Journeys 26 and 29-31 of ../shared/journeys.md ("When the world changes under an order"): the
server's words where it has them, in the customer's language; a closed location; an empty
category. Through the real kiosk on the strict 2.0 server at 80x24 and 120x40."""

from __future__ import annotations

from decimal import Decimal

from tests.conformance.vendor_server import Seed
from tests.journeys.harness import Journey, JourneyFactory, seed_with
from tests.journeys.test_paying import MERCHANT, checkout_to_payment


def feast() -> Seed:
    """The seed with a code the server takes only from a subtotal of £20.00 (its refusal says
    how much more)."""
    return seed_with(
        discount_codes={"HARBOUR10": Decimal("0.10"), "FEAST20": Decimal("0.20")},
        minimum_spend={"FEAST20": Decimal("20.00")},
    )


def flat(j: Journey) -> str:
    return " ".join(j.screen_text().split())


def discount_said(j: Journey) -> str:
    from kiosk.tui.widgets.chrome import FieldError

    return j.app.screen.query_one("#discount-error", FieldError).message


async def gyoza_in_the_cart(j: Journey) -> None:
    await j.settle()
    await j.press("1")
    await j.wait_for_screen("MenuScreen")
    await j.walk().add_line("prod_gyoza")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")


async def apply_code(j: Journey, code: str) -> None:
    posts = len([r for r in j.requests() if r[1].endswith("/discount")])
    await j.type("#discount", code, then="enter")
    await j.wait_for(
        lambda: len([r for r in j.requests() if r[1].endswith("/discount")]) > posts,
        within=10,
        what="the code sent",
    )
    await j.settle()


async def test_journey_26_a_code_below_its_minimum_spend_says_how_much_more(
    journey: JourneyFactory,
) -> None:
    async with journey(seed=feast(), settings=MERCHANT) as j:
        await gyoza_in_the_cart(j)
        await apply_code(j, "FEAST20")
        # The server's reason, at the field: how much more to add; never a format rule about a
        # well-formed code, and no second instruction after "Add £14.50 more."
        said = discount_said(j)
        assert said == "This code needs an order of at least £20.00. Add £14.50 more.", said
        text = flat(j)
        assert "Add £14.50 more." in text, text
        assert "letters and digits" not in text
        assert "try again" not in text.lower()
        assert j.server_cart().get("discountCode") is None
        assert j.app.focused is not None and j.app.focused.id == "discount"
        # The minimum met (two more dan dan, £20.50 more), the same code is taken: the discount
        # and the totals on screen are the server's.
        await j.press("escape")
        await j.wait_for_screen("MenuScreen")
        await j.walk().add_line("prod_dan_dan")
        await j.walk().add_line("prod_dan_dan")
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        await apply_code(j, "FEAST20")
        await j.wait_for_text("FEAST20 applied", within=10)
        cart = j.server_cart()
        assert cart["discountCode"] == "FEAST20"
        text = flat(j)
        assert discount_said(j) == ""
        assert cart["discountTotalFormatted"].lstrip("-") in text, (cart, text)
        assert cart["orderTotalWithServiceFeeFormatted"] in text, (cart, text)
        assert "Add £" not in text


async def test_journey_29_refusals_in_the_customers_language(journey: JourneyFactory) -> None:
    async with journey(seed=feast(), settings={**MERCHANT, "language": "es"}) as j:
        await gyoza_in_the_cart(j)
        await apply_code(j, "FEAST20")
        # The server explained in English (VALIDATION_ERROR on the code): the kiosk knows that
        # code, and says it in Spanish, once, with one instruction at most.
        said = discount_said(j)
        assert said == "Ese código no sirve para este pedido.", said
        text = flat(j)
        assert "This code needs" not in text and "Add £" not in text, text
        assert "letras y números" not in text
        assert "inténtalo de nuevo" not in text.lower(), text
        assert j.server_cart().get("discountCode") is None


def with_specials() -> Seed:
    """The seed with a category the server lists with no products in it, between two that
    have some."""
    return seed_with(
        categories=[
            ("cat_noodles", "Noodles"),
            ("cat_specials", "Specials"),
            ("cat_sides", "Sides"),
            ("cat_drinks", "Drinks"),
        ]
    )


def products_shown(j: Journey) -> list[str]:
    """The product list's rows as drawn, top to bottom (what the customer reads there)."""
    from kiosk.tui.screens.menu import ProductList

    products = j.app.screen.query_one("#products", ProductList)
    top = int(products.scroll_y)
    rows = range(top, min(len(products.rows), top + products.size.height))
    return [products.text_at(i, 60, False).plain.strip() for i in rows]


async def test_journey_31_an_empty_category_says_it_is_empty(journey: JourneyFactory) -> None:
    async with journey(seed=with_specials()) as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.press("left")  # the categories
        assert j.app.focused is not None and j.app.focused.id == "categories"
        # ★ Popular, Noodles, then Specials.
        await j.press("down", "down")
        await j.settle()
        shown = products_shown(j)
        # Specials is in view and says it has nothing; the row under it is the next category's
        # own header, never its products as if they were Specials'.
        (at,) = [i for i, row in enumerate(shown) if row.startswith("Specials")]
        assert "Nothing here right now" in shown[at], shown
        assert shown[at + 1] == "Sides", shown
        assert j.app.screen.query_one("#products").cursor_key[0] != "cat_sides"
        assert "Nothing here right now" in flat(j)
        # Choosing it says so, and does not pass the customer on to another category's dish.
        await j.press("enter")
        await j.settle()
        assert "Specials has nothing to order right now." in flat(j), flat(j)
        assert j.app.focused is not None and j.app.focused.id == "categories"
        await j.press("enter")
        await j.settle()
        assert j.screen_name() == "MenuScreen"
        # The next category shows its own products under its own name.
        await j.press("down")  # Sides
        await j.settle()
        shown = products_shown(j)
        (at,) = [i for i, row in enumerate(shown) if row == "Sides"]
        assert shown[at + 1].startswith("Gyoza (5)"), shown
        assert j.app.screen.query_one("#products").cursor_key == ("cat_sides", "prod_gyoza")


async def test_journey_30_a_closed_location_offers_only_later_times(
    journey: JourneyFactory,
) -> None:
    async with journey(seed=seed_with(closed_reason="Closed for a private event")) as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.wait_for(
            lambda: j.server_cart()["pickupType"] == "LATER", within=10, what="a later slot"
        )
        cart = j.server_cart()
        first = j.store.first_slot(j.store.seed.locations[0])
        assert (cart["orderDate"], cart["orderTime"]) == first
        # Said on the menu, before the first choice; the menu is the one of that slot.
        text = flat(j).replace(" █ ", " ")  # the banner's second line has its mark too
        assert "We're closed now" in text, text
        assert f"Your order is for Tomorrow {first[1]}." in text, text
        assert "Not available now" not in text and "(later)" not in text, text
        await j.walk().add_line("prod_gyoza")
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        await j.wait_for(lambda: "Tomorrow" in flat(j), within=10, what="the time shown")
        text = flat(j)
        assert "As soon as possible" not in text, text
        assert f"Tomorrow {first[1]}" in text, text
        assert j.server_cart()["pickupType"] == "LATER"
        # And the order goes on to payment (the server refuses a hand-off for now).
        await checkout_to_payment(j)
