"""One suggestion after an add (Visit.suggestion): from the cart's recommendations, never twice
in a visit, nothing when none is left, and no request more than the cart screen spends."""

from __future__ import annotations

import pytest

from tests.support.ordering_rig import demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


async def test_each_recommendation_is_suggested_once_then_none() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        recommended = [p.id for p in await visit.cross_sell()]
        assert recommended, "the demo recommends something for an espresso"
        asked = visit.client.stats.by_endpoint["cross_sell"]
        seen = []
        while (product := await visit.suggestion()) is not None:
            seen.append(product.id)
            assert len(seen) <= len(recommended)
        assert seen == [p for p in recommended if p != "prd_espresso"]
        # The same cart contents: the cart screen's memo answered, no request at all.
        assert visit.client.stats.by_endpoint["cross_sell"] == asked
        # A new visit may suggest them again.
        await visit.reset()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        product = await visit.suggestion()
        assert product is not None and product.id == seen[0]


async def test_nothing_in_the_cart_is_suggested() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        recommended = [p.id for p in await visit.cross_sell()]
        await visit.add_item(recommended[0], 1)
        product = await visit.suggestion()
        assert product is None or product.id != recommended[0]


async def test_the_recommendations_are_read_once_a_cart_and_what_is_in_it_is_left_out() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        first = await visit.suggestion()
        assert first is not None
        await visit.add_item(first.id, 1)
        # Another line, another suggestion: from the same answer, never what the cart holds.
        second = await visit.suggestion()
        assert second is None or second.id not in {"prd_espresso", first.id}
        # The cart screen, after the cart's contents changed: the same answer, no request.
        assert first.id in [p.id for p in await visit.cross_sell()]
        assert visit.client.stats.by_endpoint["cross_sell"] == 1
        # A new cart reads its own.
        await visit.reset()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        await visit.cross_sell()
        assert visit.client.stats.by_endpoint["cross_sell"] == 2


async def test_no_second_drink_is_suggested_to_an_order_that_has_one() -> None:
    """Issue 33: Lantern's menu files the espresso, the lemonade and the cold brew under
    "Coffee & espresso" and "Tea, juice & more": after an espresso, only food is suggested."""
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.menus()
        await visit.add_item("prd_espresso", 1)
        # The server recommends the lemonade; the order screen's list leaves it out too.
        server = await rig.client.cross_sell(rig.location_id, visit.state.cart_id or "")
        assert "prd_lemonade" in [p.id for p in server]
        recommended = [p.id for p in await visit.cross_sell()]
        assert recommended and not {"prd_lemonade", "prd_cold_brew"} & set(recommended)
        seen = []
        while (product := await visit.suggestion()) is not None:
            seen.append(product.id)
        assert seen and not {"prd_lemonade", "prd_cold_brew"} & set(seen)
        assert "prd_cookie" in seen


async def test_a_drink_is_suggested_to_an_order_without_one() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.menus()
        await visit.add_item("prd_mixed_nuts", 1)
        seen = []
        while (product := await visit.suggestion()) is not None:
            seen.append(product.id)
        assert "prd_lemonade" in seen


def test_a_drink_is_what_the_menu_files_under_drinks() -> None:
    from kiosk.ordering.pairing import is_drink_category

    for name in ("Drinks", "Coffee & espresso", "Tea, juice & more", "Bebidas", "Hot drinks"):
        assert is_drink_category(name), name
    for name in ("Small plates", "Noodles", "Breakfast", "Snacks", "Desserts"):
        assert not is_drink_category(name), name
