"""Waiting for the payment (kiosk.ordering.payment) on the embedded backend with a virtual clock."""

from __future__ import annotations

import asyncio
import contextlib

from kiosk.api import PaymentDeclinedError
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.payment import (
    PaymentOutcome,
    PaymentTick,
    PollSchedule,
    wait_for_payment,
)
from tests.unit.test_ordering_rig import Rig, demo_rig

GET_CART = "GET /carts/{cartId}"
APPROVE = "4242 4242 4242 4242"


async def locked(rig: Rig) -> CartStore:
    store = rig.store()
    await store.start("pickup")
    await store.add_item("prd_cookie", 1)
    await store.begin_payment()
    rig.reset_counts()
    return store


def pay_at(rig: Rig, store: CartStore, delay: float, card: str = APPROVE) -> None:
    """The customer pays on a phone `delay` seconds from now (the processor is not the kiosk)."""
    intent = store.payment_intent
    assert intent is not None

    async def pay() -> None:
        # A decline (PaymentDeclinedError) changes nothing: the kiosk keeps waiting.
        with contextlib.suppress(PaymentDeclinedError):
            await rig.client.confirm_demo_payment(intent.client_secret, card)

    rig.clock.call_later(delay, pay)


def poll_times(rig: Rig, t0: float, ticks: list[PaymentTick]) -> list[int]:
    seen: list[int] = []
    last = 0
    for tick in ticks:
        if tick.polls != last:
            seen.append(round(tick.elapsed))
            last = tick.polls
    return seen


async def test_a_payment_after_25_s_is_seen_with_three_polls() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        pay_at(rig, store, 25)
        ticks: list[PaymentTick] = []
        result = await wait_for_payment(store, timeout=300, on_tick=ticks.append)
        assert result.outcome is PaymentOutcome.COMPLETED
        assert result.order_number and result.order_number.startswith("A")
        assert result.polls == 3
        assert result.elapsed == 30  # polls at 8, 18 and 30 s
        assert rig.requests() == {GET_CART: 3}
        assert poll_times(rig, 0, ticks) == [8, 18]
        # The countdown ticks once a second.
        assert [t.seconds_left for t in ticks[:3]] == [300, 299, 298]
        assert ticks[0].next_poll_in == 8


def test_the_schedule_grows_and_slows_down_when_the_budget_is_low() -> None:
    schedule = PollSchedule()
    assert [schedule.interval(n) for n in range(6)] == [8, 10, 12, 10, 10, 10]
    assert [schedule.interval(n, budget_low=True) for n in range(5)] == [16, 20, 24, 20, 20]
    assert PollSchedule(max_interval=12).interval(3, budget_low=True) == 12


async def test_polling_is_slower_when_the_rate_budget_is_low() -> None:
    async with demo_rig(rate_limit=20) as rig:
        store = await locked(rig)  # 4 of 20 requests used
        for _ in range(13):
            await rig.client.get_cart(rig.location_id, store.cart_id or "")
        assert rig.client.rate_budget.remaining == 3 and rig.client.rate_budget.is_low
        rig.reset_counts()
        result = await wait_for_payment(store, timeout=60)
        assert result.outcome is PaymentOutcome.TIMED_OUT
        # At 16 and 36 s and the last look at the timeout (60 s), instead of at 8, 18, 30, 40, 50
        # and 60 s; never a 429.
        assert result.polls == 3
        assert rig.requests() == {GET_CART: 3}
        assert rig.backend.stats.as_dict()["byStatus"].get("429") is None


async def test_a_normal_budget_polls_six_times_in_a_minute() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        result = await wait_for_payment(store, timeout=60)
        assert result.polls == 6  # 8, 18, 30, 40, 50 s and the last look at 60 s


async def test_polling_waits_for_the_reset_when_the_budget_is_spent() -> None:
    async with demo_rig(rate_limit=6, rate_window=120.0) as rig:
        store = await locked(rig)  # start, add, intent, GET: 4 of 6
        pay_at(rig, store, 50)
        result = await wait_for_payment(store, timeout=300)
        assert result.outcome is PaymentOutcome.COMPLETED
        # Two polls spend the budget (4 s and 12 s); the next waits for the window's reset at
        # 120 s instead of being refused; no 429 was spent.
        assert result.polls == 3
        assert result.elapsed >= 119
        assert rig.backend.stats.as_dict()["byStatus"] == {"200": 3}


async def test_the_payment_times_out() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        t0 = rig.clock()
        result = await wait_for_payment(store, timeout=45)
        assert result.outcome is PaymentOutcome.TIMED_OUT
        assert rig.clock() - t0 == 45
        assert result.polls == 5  # 8, 18, 30, 40 and the last look at 45 s
        assert result.cart is not None and result.cart.is_locked


async def test_a_payment_made_while_polls_wait_for_the_rate_limit_is_seen_at_the_timeout() -> None:
    # The customer pays while the kiosk's polls are held back by a spent budget, and the payment
    # timer runs out before the window resets: the order is paid, so it must not say "time's up".
    async with demo_rig(rate_limit=6, rate_window=600.0) as rig:
        store = await locked(rig)  # 4 of 6 requests used
        pay_at(rig, store, 30)
        result = await wait_for_payment(store, timeout=120)
        assert result.outcome is PaymentOutcome.COMPLETED
        assert result.order_number
        assert rig.backend.stats.as_dict()["byStatus"] == {"200": 3}


async def test_cancel_stops_the_wait_between_polls() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        cancel = asyncio.Event()
        rig.clock.call_later(10, _set(cancel))
        result = await wait_for_payment(store, timeout=300, cancel=cancel)
        assert result.outcome is PaymentOutcome.CANCELLED
        assert result.polls == 1
        assert 10 <= result.elapsed <= 11


async def test_poll_now_polls_at_once() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        intent = store.payment_intent
        assert intent is not None
        nudge = asyncio.Event()

        async def approve_and_nudge() -> None:
            # The demo's approve key: the kiosk itself confirms, then polls without waiting.
            await rig.client.confirm_demo_payment(intent.client_secret, APPROVE)
            nudge.set()

        rig.clock.call_later(2, approve_and_nudge)
        result = await wait_for_payment(store, timeout=300, poll_now=nudge)
        assert result.outcome is PaymentOutcome.COMPLETED
        assert result.polls == 1 and result.elapsed <= 3


async def test_a_declined_card_then_an_approved_one() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        pay_at(rig, store, 5, card="4000 0000 0000 0002")
        pay_at(rig, store, 15)
        result = await wait_for_payment(store, timeout=300)
        assert result.outcome is PaymentOutcome.COMPLETED
        assert result.polls == 2  # 8 (declined at 5 s: still locked), 18 (paid at 15 s)


async def test_transient_errors_do_not_end_the_wait() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        rig.faults(error_rate=1.0)

        async def heal() -> None:
            rig.faults(error_rate=0.0)

        rig.clock.call_later(20, heal)
        pay_at(rig, store, 21)
        errors: list[str] = []
        result = await wait_for_payment(
            store,
            timeout=300,
            on_tick=lambda t: errors.append(type(t.error).__name__) if t.error else None,
        )
        assert result.outcome is PaymentOutcome.COMPLETED
        assert "ServerError" in errors
        assert store.status.kind == "idle"


async def test_a_cart_deleted_during_payment_ends_the_wait() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)

        async def staff_deletes() -> None:
            await rig.client.delete_cart(rig.location_id, store.cart_id or "")

        rig.clock.call_later(6, staff_deletes)
        result = await wait_for_payment(store, timeout=300)
        assert result.outcome is PaymentOutcome.GONE
        assert result.polls == 1 and store.cart_id is None  # the first poll (8 s) finds it gone


async def test_an_already_completed_cart_needs_no_poll() -> None:
    async with demo_rig() as rig:
        store = await locked(rig)
        intent = store.payment_intent
        assert intent is not None
        await rig.client.confirm_demo_payment(intent.client_secret, APPROVE)
        await store.poll()
        rig.reset_counts()
        result = await wait_for_payment(store, timeout=300)
        assert result.outcome is PaymentOutcome.COMPLETED and result.polls == 0
        assert rig.total() == 0


def _set(event: asyncio.Event):  # type: ignore[no-untyped-def]
    async def go() -> None:
        event.set()

    return go
