"""One suggestion after an add (Visit.suggestion): from the cart's recommendations, never twice
in a visit, nothing when none is left, and no request more than the cart screen spends."""

from __future__ import annotations

from tests.unit.test_ordering_rig import demo_rig


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
