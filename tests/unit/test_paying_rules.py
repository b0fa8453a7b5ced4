"""Rules of paying for the visit's order (kiosk.ordering.paying) that the whole-module mutation
run showed untested (docs/mutation.md, issue 32 item 8): "Still there?" answered, a conflict on
an order paid meanwhile, and the kiosk closing on a paid order. Through the Visit and the
module's public functions, on both dialects."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.api import PaymentDeclinedError
from kiosk.demo.domain.payments import DECLINE_CARD
from kiosk.ordering.cart_store import load_saved_cart
from kiosk.ordering.events import OrderEvent
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.paying import OrderPaidError, paid_meanwhile
from kiosk.ordering.payment import PaymentOutcome, PaymentTick
from kiosk.ordering.visit import Visit
from tests.support.ordering_rig import demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")

APPROVE = "4242 4242 4242 4242"


async def test_an_answer_to_still_there_gives_the_customer_the_whole_time_again() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        answered: list[PaymentTick] = []

        def tick(now: PaymentTick) -> None:
            if now.asking_left is not None and not answered:
                answered.append(now)
                visit.keep_paying()  # the customer touches "I'm still here"

        result = await visit.wait_for_payment(timeout=60, ask_for=20, on_tick=tick)
        # Asked at 60 s, answered at once: another 60 s, then asked again, unanswered.
        assert answered and 60 <= answered[0].elapsed <= 61
        assert result.outcome is PaymentOutcome.ABANDONED
        assert 140 <= result.elapsed <= 142


async def test_a_conflict_on_an_order_paid_meanwhile_is_told_as_paid_with_its_number() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        await paid_meanwhile(store)  # nothing handed off yet: nothing to ask
        await store.begin_payment()
        await paid_meanwhile(store)  # handed off, not paid: the write's own refusal stands
        assert store.phase is Phase.AWAITING_PAYMENT
        await store.payment.confirm_demo(APPROVE)
        with pytest.raises(OrderPaidError) as paid:
            await paid_meanwhile(store)
        assert paid.value.order_number and paid.value.order_number == store.order.order_number
        assert "order is placed" in paid.value.message


async def test_closing_on_a_paid_order_forgets_it_and_keeps_it_on_the_server(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        cart_id = visit.state.cart_id or ""
        await visit.begin_payment()
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID
        assert load_saved_cart(path) is not None
        await visit.quit()
        # Nothing for the next start to take up; the order stands on the server.
        assert load_saved_cart(path) is None
        kept = rig.server_cart(cart_id)
        assert kept is not None and kept["status"] == "COMPLETED"


async def test_a_card_declined_at_the_demo_processor_is_counted_as_a_decline() -> None:
    events: list[OrderEvent] = []

    class Counter:
        def order_event(self, event: OrderEvent) -> None:
            events.append(event)

    async with demo_rig() as rig:
        visit = Visit(
            lambda _location_id: rig.client,
            [rig.location_id],
            wall_clock=rig.clock,
            store_options={"sleep": rig.clock.sleep},
            observer=Counter(),
        )
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        with pytest.raises(PaymentDeclinedError):
            await visit.confirm_demo_payment(DECLINE_CARD)
        assert events.count(OrderEvent.DECLINED) == 1
