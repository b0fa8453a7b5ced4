"""CartStore rules a broken line of code used to slip past (found by the mutation run,
tools/mutate.py and docs/mutation.md): how many rate-limit waits a write takes, the customer's
name recorded at checkout, and the time left on a 2.0 hand-off. Through CartStore's public
methods, on both dialects unless a rule is one dialect's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.api import InvalidRequestError, RateLimitedError
from kiosk.ordering.cart_store import WayGoneError, load_saved_cart
from kiosk.ordering.lifecycle import Phase
from tests.support.ordering_rig import V1_ONLY_ROUTES, demo_rig

pytestmark = pytest.mark.usefixtures("rig_dialect")


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_a_write_waits_out_as_many_rate_limits_as_it_may_and_no_more() -> None:
    async with demo_rig() as rig:
        store = rig.store(max_rate_waits=2)
        await store.start("pickup")
        # Longer than the client sleeps by itself (30 s): each 429 is the store's to wait out.
        rig.faults(burst_429=2, burst_retry_after_s=45)
        cart = await store.add_item("prd_cookie", 1)
        assert cart is not None and [i.quantity for i in cart.items] == [1]
        rig.faults(burst_429=3, burst_retry_after_s=45)
        with pytest.raises(RateLimitedError):
            await store.add_item("prd_cookie", 1)


async def test_checkout_records_the_customers_name_and_hands_off() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        result = await store.checkout("Ana", "ana@example.com")
        assert result.intent is not None
        assert store.order.customer_name == "Ana"
        assert store.phase is Phase.AWAITING_PAYMENT


async def test_the_time_left_on_the_handoff_counts_down_with_the_clock() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        result = await store.checkout("Ana", "ana@example.com")
        intent = result.intent
        assert intent is not None
        if intent.expires_at is None:  # v1: a payment intent that does not expire by itself
            assert store.payment.seconds_left() is None
            return
        left = store.payment.seconds_left()
        assert left == pytest.approx(intent.expires_at.timestamp() - rig.clock())
        assert left is not None and left > 0
        await rig.clock.sleep(30)
        assert store.payment.seconds_left() == pytest.approx(left - 30)


async def test_a_resume_refused_for_its_way_keeps_the_order_and_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        await store.start("pickup")
        await store.add_item("prd_cookie", 2)
        saved = load_saved_cart(path)
        assert saved is not None

        async def way_switched_off(*_: Any, **__: Any) -> str:
            raise InvalidRequestError(status=400, server_message="Pickup is not offered now")

        # The server refuses to resume the cart for its way to order (switched off meanwhile).
        monkeypatch.setattr(rig.client, "resume_cart", way_switched_off)
        again = rig.store(cart_id_file=path)
        with pytest.raises(WayGoneError):
            await again.resume(saved.cart_id, saved.location_id)
        assert again.cart is not None and again.cart.id == saved.cart_id
        assert [(i.product_id, i.quantity) for i in again.cart.items] == [("prd_cookie", 2)]
        assert load_saved_cart(path) is not None  # still there for the next start


async def test_the_ways_to_order_of_the_chosen_location_are_read() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        location = await visit.load_location(rig.location_id)
        ways = await visit.location_ways(location)
        assert ways is not None
        assert visit.state.ways == ways


def test_a_carts_item_count_is_its_total_quantity_else_its_lines_added_up() -> None:
    from kiosk.api import Cart

    lines = [{"id": "a", "quantity": 2}, {"id": "b", "quantity": 3}]
    assert Cart.model_validate({"id": "c1", "items": lines}).item_count == 5
    assert Cart.model_validate({"id": "c1", "items": lines, "totalQuantity": 7}).item_count == 7
