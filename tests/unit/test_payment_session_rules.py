"""More rules of the payment wait (kiosk.ordering.payment) that the whole-module mutation run
showed untested (docs/mutation.md, issue 32 item 8): a wait whose order was settled elsewhere
ends at once, without another look at the server; a code about to stop working is renewed in
time, and a refused renewal asked again at a steady pace."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from kiosk.api.errors import RateLimitedError, ServerError
from kiosk.api.models import OrderProgress
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.payment import (
    PaymentOutcome,
    PaymentSession,
    PaymentTick,
    PollSchedule,
    watch_kept_handoff,
)
from tests.support.ordering_rig import cookie_handed_off, cookie_order, demo_rig
from tests.unit.test_payment_rules import paying_a_cookie

pytestmark = pytest.mark.usefixtures("rig_dialect")


async def test_a_payment_told_paid_elsewhere_ends_the_wait_at_once_without_another_look() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        ticks: list[PaymentTick] = []

        def tick(now: PaymentTick) -> None:
            ticks.append(now)
            # Told elsewhere meanwhile (a kept code's watch, the counter): the order is paid.
            store.heard(OrderProgress("completed", order_number="A12"))

        session = PaymentSession(store, timeout=60)
        result = await session.run(on_tick=tick)
        assert store.phase is Phase.PAID
        assert result.outcome is PaymentOutcome.COMPLETED and result.order_number == "A12"
        assert result.polls == 0 and len(ticks) == 1


def renewals(store: Any, refuse: bool = False) -> list[float]:
    """The seconds the code had left each time a renewal was asked for (refused when `refuse`)."""
    real = store.payment.renew
    asked: list[float] = []

    async def renew() -> Any:
        asked.append(store.payment.seconds_left())
        if refuse:
            raise ServerError(status=503)
        return await real()

    store.payment.renew = renew
    return asked


@pytest.mark.only_dialect("v2", reason="a 2.0 hand-off stops working at its expiresAt")
async def test_a_code_is_renewed_once_twenty_seconds_are_left_and_never_stops_working() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        intent = store.payment_intent
        assert intent is not None and intent.expires_at is not None
        rig.clock.now = intent.expires_at.timestamp() - 25.0  # 25 s before the code stops
        asked = renewals(store)
        ticks: list[PaymentTick] = []
        await PaymentSession(store, timeout=30).run(on_tick=ticks.append)
        assert asked == [20.0]
        assert all(t.handoff_seconds_left is not None and t.handoff_seconds_left > 0 for t in ticks)


@pytest.mark.only_dialect("v2", reason="a 2.0 hand-off stops working at its expiresAt")
async def test_a_renewal_refused_is_asked_again_every_twenty_seconds() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        intent = store.payment_intent
        assert intent is not None and intent.expires_at is not None
        rig.clock.now = intent.expires_at.timestamp() - 25.0
        asked = renewals(store, refuse=True)
        await PaymentSession(store, timeout=50).run()
        assert asked == [20.0, 0.0, -20.0]


async def test_still_there_is_asked_even_for_a_single_second() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        ticks: list[PaymentTick] = []
        result = await PaymentSession(store, timeout=3, ask_for=1).run(on_tick=ticks.append)
        assert result.outcome is PaymentOutcome.ABANDONED
        assert [t.asking_left for t in ticks if t.asking_left is not None] == [1]


def look_times(rig: Any, store: Any, first: Callable[[], None]) -> list[float]:
    """The seconds (from now) of each look at the payment; `first` is what the first look finds."""
    t0 = rig.clock()
    times: list[float] = []

    async def look() -> OrderProgress:
        times.append(rig.clock() - t0)
        if len(times) == 1:
            first()
        return OrderProgress("payment_pending")

    store.check_payment = look
    return times


async def test_a_spent_budget_holds_the_next_look_until_its_reset() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        budget = store.client.rate_budget
        spent = httpx.Headers({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "45"})
        times = look_times(rig, store, lambda: budget.update(spent))
        await PaymentSession(store, timeout=50, schedule=PollSchedule(intervals=(0.25,))).run()
        # The budget is spent and resets in 45 s: the next look waits for the reset.
        assert times[1] - times[0] == pytest.approx(45.0)


@pytest.mark.parametrize(
    ("error", "gap"),
    [
        # Only a 429's wait is honoured; another failure waits the error interval (10 s).
        (RateLimitedError(status=429, retry_after=45), 45.0),
        (ServerError(status=503, retry_after=45), 10.0),
    ],
)
async def test_after_a_failed_look_only_a_rate_limits_wait_is_honoured(
    error: Exception, gap: float
) -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)

        def fail() -> None:
            raise error

        times = look_times(rig, store, fail)
        await PaymentSession(store, timeout=50).run()
        assert times[1] - times[0] == pytest.approx(gap)


async def kept_code(rig: Any) -> Any:
    """A cookie checked out, then the customer back on the order with the code kept."""
    store = rig.store()
    await cookie_order(store)
    result = await store.checkout("Ana", "ana@example.com")
    assert result.intent is not None
    store.back_to_order()
    assert store.phase is Phase.ORDERING and store.order.checkout_url is not None
    return store


@pytest.mark.parametrize(
    ("state", "gap"),
    [
        ("payment_pending", 10.0),  # the customer is choosing, not paying: the slow pace
        ("order_pending", 1.0),  # paid, the order being placed: its number is one look away
    ],
)
async def test_a_kept_code_is_looked_at_slowly_until_the_order_is_being_placed(
    state: str, gap: float
) -> None:
    async with demo_rig() as rig:
        store = await kept_code(rig)
        looked: list[float] = []

        async def look() -> OrderProgress:
            looked.append(rig.clock())
            if len(looked) == 3:
                store.heard(OrderProgress("completed", order_number="A12"))
            return OrderProgress(state)

        phase = await watch_kept_handoff(store, look, every=10, wall_clock=rig.clock)
        assert phase is Phase.PAID
        assert [b - a for a, b in itertools.pairwise(looked)] == [gap, gap]


async def test_the_visits_payment_wait_does_not_ask_still_there_unless_told_to() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_handed_off(visit)
        result = await visit.wait_for_payment(timeout=3)
        assert result.outcome is PaymentOutcome.TIMED_OUT
