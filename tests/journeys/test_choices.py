"""Journeys 7-10 of ../shared/journeys.md, "Choices and input", through the real kiosk on the
strict 2.0 server at 80x24 and 120x40."""

from __future__ import annotations

from tests.journeys.harness import Journey, JourneyFactory, seed_with
from tests.journeys.test_paying import MERCHANT, checkout_to_payment, name_to_payment


def item_posts(j: Journey) -> int:
    return len([r for r in j.requests() if r[0] == "POST" and r[1].endswith("/items")])


async def test_journey_7_a_required_choice_inside_a_choice_is_required(
    journey: JourneyFactory,
) -> None:
    # Build your bowl: Sauce is optional up to 2 as a group, but the Noodles option's link
    # overrides it to exactly 1 (ModifierChildLink.overrides): required, "choose 1".
    async with journey() as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.walk().open_product("prod_build_bowl")
        await j.press("down", "space")  # Noodles
        text = j.screen_text()
        assert "Sauce  required · choose 1" in text, text
        assert "optional · up to 2" not in text
        posts = item_posts(j)
        await j.press("f2")
        assert "Sauce: choose 1 more." in j.screen_text()
        assert j.screen_name() == "ProductScreen"
        assert item_posts(j) == posts  # refused on the kiosk, before any request
        await j.press("down", "space", "f2")  # Soy glaze, then Add
        await j.wait_for(lambda: j.screen_name() != "ProductScreen", within=10, what="the add")
        (line,) = j.server_cart()["items"]
        groups = {s["groupId"]: s for s in line["selections"]}
        (base,) = groups["grp_base"]["selectedOptions"]
        assert [c["groupId"] for c in base["children"]] == ["grp_sauce"]
        assert j.refusals == []


async def test_journey_10_a_scheduled_only_location_offers_no_asap_and_says_the_slot(
    journey: JourneyFactory,
) -> None:
    async with journey(seed=seed_with(require_scheduled=True)) as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.walk().add_line("prod_gyoza")
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        await j.wait_for(lambda: j.server_cart()["pickupType"] == "LATER", within=10, what="LATER")
        cart = j.server_cart()
        text = " ".join(j.screen_text().split())
        assert "for later only" in text, text
        assert f"Today {cart['orderTime']}" in text or f"Tomorrow {cart['orderTime']}" in text
        assert "As soon as possible" not in text
        # The first slot offered is the one set.
        first_day = j.store.order_days(j.store.seed.locations[0])[0]
        assert (cart["orderDate"], cart["orderTime"]) == (
            first_day["value"],
            first_day["intervals"][0],
        )
        # And the order goes on to payment (the server refuses a hand-off for ASAP here).
        await checkout_to_payment(j)


async def to_cart(j: Journey) -> None:
    await j.settle()
    await j.press("1")
    await j.wait_for_screen("MenuScreen")
    await j.walk().add_line("prod_gyoza")
    await j.press("f4")
    await j.wait_for_screen("CartScreen")


def flat(j: Journey) -> str:
    return " ".join(j.screen_text().split())


# What no customer screen may show (journey 8).
API_WORDS = ("contract", "details", "Idempotency-Key", "emailAddress", "VALIDATION_ERROR", "400")


async def test_journey_8_a_typed_code_and_email_are_checked_before_they_are_sent(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_cart(j)
        sent = len(j.requests())
        await j.type("#discount", "ab-1", then="enter")
        text = flat(j)
        assert "letters and digits" in text, text
        assert not [r for r in j.requests()[sent:] if r[1].endswith("/discount")]
        for word in API_WORDS:
            assert word not in text, word
        # The cursor is back in the field: the next keys land in it.
        await j.press("backspace", "backspace", "x", "y", "z", "1", "2")
        assert j.app.focused is not None and j.app.focused.id == "discount"
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        await j.type("#name", "Zoe")
        await j.type("#email", "zoe..t@example.com", then="f2")
        text = flat(j)
        assert j.screen_name() == "CheckoutScreen"
        assert not [r for r in j.requests() if r[1].endswith("/validate-and-update")]
        assert "email" in text.lower()
        for word in API_WORDS:
            assert word not in text, word


async def test_journey_9_email_is_an_offer_not_a_demand(journey: JourneyFactory) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_cart(j)
        await j.press("f2")
        await j.wait_for_screen("CheckoutScreen")
        assert "Email me a receipt (optional)" in flat(j)
        await name_to_payment(j)
        assert not j.server_cart().get("emailAddress")


async def test_a_line_taken_up_after_a_restart_reads_its_choices_by_name(
    journey: JourneyFactory,
) -> None:
    # A 2.0 cart echoes a line's choices by id only; the names come from the product read. A
    # restarted kiosk had not read it: the customer read "opt_mushroom" for "Mushroom".
    async with journey() as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.walk().add_line("prod_wonton_soup")  # Mushroom broth, a Soy egg
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        assert "Mushroom" in j.screen_text() and "Soy egg" in j.screen_text()
        sent = len(j.requests())
        await j.restart()
        await j.wait_for_screen("MenuScreen", within=10)
        await j.press("f4")
        await j.wait_for_screen("CartScreen")
        text = j.screen_text()
        assert "Mushroom" in text and "Soy egg" in text, text
        assert "opt_" not in text, text
        # What it costs: the soup's product, read once (the disk cache may have answered it).
        reads = [r for r in j.requests()[sent:] if "/products/" in r[1]]
        assert len(reads) <= 1, reads
        assert j.violations == []
