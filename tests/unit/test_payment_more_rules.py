"""More rules of the payment wait (kiosk.ordering.payment) that the whole-module mutation run
showed untested (docs/mutation.md, issue 32 item 8): how long a code kept after going back to the
order may still be paid, and what the payment screen's tick says."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from kiosk.api.errors import ServerError
from kiosk.api.models import OrderProgress
from kiosk.ordering.lifecycle import OrderSnapshot, Phase
from kiosk.ordering.payment import (
    PaymentOutcome,
    PaymentSession,
    PaymentTick,
    PollSchedule,
    kept_handoff_left,
)
from tests.support.ordering_rig import demo_rig
from tests.unit.test_payment_rules import paying_a_cookie

NOW = 1772467200.0
URL = "https://pay.example/abc"


def at(seconds: float) -> str:
    return datetime.fromtimestamp(NOW + seconds, UTC).isoformat()


@pytest.mark.parametrize(
    ("order", "left"),
    [
        # Back on the order with a code that stops working in 90 s, or stopped 5 s ago.
        (OrderSnapshot(checkout_url=URL, handoff_expires_at=at(90)), 90.0),
        (OrderSnapshot(checkout_url=URL, handoff_expires_at=at(-5)), -5.0),
        # A code with no known expiry is watched until the visit ends.
        (OrderSnapshot(checkout_url=URL), math.inf),
        # No code kept, or the order is not back on ordering (the payment screen watches it).
        (OrderSnapshot(), None),
        (OrderSnapshot(handoff_expires_at=at(90)), None),
        (OrderSnapshot(Phase.AWAITING_PAYMENT, checkout_url=URL, handoff_expires_at=at(90)), None),
        (OrderSnapshot(Phase.DECLINED, checkout_url=URL), None),
    ],
)
def test_a_kept_code_may_be_paid_until_it_stops_working(
    order: OrderSnapshot, left: float | None
) -> None:
    assert kept_handoff_left(order, NOW) == left


@pytest.mark.usefixtures("rig_dialect")
async def test_each_tick_says_the_time_to_pay_the_next_look_and_the_codes_time_left() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        t0 = rig.clock()
        intent = store.payment_intent
        # 2.0's hand-off stops working at its expiresAt; v1's payment intent has none.
        assert intent is not None and (intent.expires_at is not None) is (rig.dialect == "v2")
        ticks: list[PaymentTick] = []
        session = PaymentSession(store, timeout=6.25, schedule=PollSchedule(intervals=(2.5,)))
        result = await session.run(on_tick=ticks.append)
        assert result.outcome is PaymentOutcome.TIMED_OUT
        assert ticks
        for tick in ticks:
            # Up to the time run out (rounded up), the next look (at 2.5 s steps, rounded up).
            assert tick.seconds_left == max(0, math.ceil(6.25 - tick.elapsed))
            next_look = (math.floor(tick.elapsed / 2.5) + 1) * 2.5
            assert tick.next_poll_in == math.ceil(next_look - tick.elapsed)
            assert tick.polls == math.floor(tick.elapsed / 2.5)
            assert tick.phase is Phase.AWAITING_PAYMENT and tick.asking_left is None
            assert tick.error is None and tick.cart is not None and tick.cart.id == store.cart_id
            if intent.expires_at is None:
                assert tick.handoff_seconds_left is None
            else:
                # The code's seconds are never more than it has (rounded down).
                left = intent.expires_at.timestamp() - (t0 + tick.elapsed)
                assert tick.handoff_seconds_left == math.floor(left)
        assert [t.seconds_left for t in ticks][:2] == [7, 6]


@pytest.mark.usefixtures("rig_dialect")
async def test_while_asking_still_there_the_time_to_pay_says_0_and_the_question_counts_down() -> (
    None
):
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        ticks: list[PaymentTick] = []
        session = PaymentSession(store, timeout=4, ask_for=3)
        result = await session.run(on_tick=ticks.append)
        assert result.outcome is PaymentOutcome.ABANDONED
        asking = [t for t in ticks if t.asking_left is not None]
        assert [t.asking_left for t in asking] == [3, 2, 1]
        assert {t.seconds_left for t in asking} == {0}


@pytest.mark.only_dialect("v2", reason="a 2.0 hand-off stops working at its expiresAt")
@pytest.mark.usefixtures("rig_dialect")
async def test_a_code_that_could_not_be_renewed_says_0_s_left_once_it_stopped_working() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        intent = store.payment_intent
        assert intent is not None and intent.expires_at is not None
        await rig.clock.sleep(intent.expires_at.timestamp() - 2.5 - rig.clock())

        async def refused() -> Any:
            raise ServerError()

        store.payment.renew = refused  # type: ignore[method-assign]
        ticks: list[PaymentTick] = []
        session = PaymentSession(store, timeout=6, schedule=PollSchedule(intervals=(30.0,)))
        await session.run(on_tick=ticks.append)
        said = [t.handoff_seconds_left for t in ticks]
        assert said[:3] == [2, 1, 0] and set(said[3:]) == {0}


@pytest.mark.usefixtures("rig_dialect")
async def test_after_a_look_slower_than_the_interval_the_next_look_is_said_to_be_now() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)

        async def slow_look() -> OrderProgress:
            await rig.clock.sleep(3.0)  # the server took three seconds to answer
            return OrderProgress("payment_pending")

        store.check_payment = slow_look  # type: ignore[method-assign]
        ticks: list[PaymentTick] = []
        session = PaymentSession(store, timeout=6, schedule=PollSchedule(intervals=(2.0,)))
        await session.run(on_tick=ticks.append)
        assert ticks[0].next_poll_in == 2
        # The look was due at 4 s and it is 5 s: the next one is now, not in a second.
        after_look = next(t for t in ticks if t.polls == 1)
        assert after_look.next_poll_in == 0
