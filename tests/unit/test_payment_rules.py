"""Rules of the payment wait (kiosk.ordering.payment) that the whole-module mutation run showed
untested (docs/mutation.md, issue 32 item 8): the counter's code, whether the merchant takes
payment at the counter, the poll schedule's steps and its pacing on a spent budget, and the
"Still there?" question as the session says it."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

import pytest

from kiosk.api import Cart
from kiosk.api.models import OrderProgress
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.payment import (
    PaymentOutcome,
    PaymentSession,
    PollSchedule,
    counter_code,
    offers_counter,
)
from tests.support.ordering_rig import Rig, cookie_handed_off, demo_rig


def test_the_counter_code_is_the_carts_last_six_characters_in_capitals() -> None:
    assert counter_code(Cart(id="c0ffee12ab34cd")) == "AB34CD"
    assert counter_code(Cart(id="ab1")) == "AB1"


async def paying_a_cookie(rig: Rig) -> CartStore:
    """A pickup order of one cookie, handed off for payment."""
    store = rig.store()
    await cookie_handed_off(store)
    return store


@pytest.mark.parametrize(
    ("settings", "offered"),
    [
        (SimpleNamespace(pay_at_counter=True), True),
        (SimpleNamespace(payment_mode="counter"), True),
        (SimpleNamespace(pay_at_counter=False, payment_mode="qr"), False),
        (object(), False),
    ],
)
def test_payment_at_the_counter_is_offered_only_where_the_merchant_takes_it(
    settings: object, offered: bool
) -> None:
    assert offers_counter(settings) is offered


def test_the_schedule_takes_its_steps_in_turn_then_repeats_the_last() -> None:
    schedule = PollSchedule(intervals=(1.0, 2.0, 5.0))
    assert [schedule.interval(n) for n in range(5)] == [1.0, 2.0, 5.0, 5.0, 5.0]


def test_a_spent_budget_spreads_what_is_left_even_over_its_last_second() -> None:
    schedule = PollSchedule(intervals=(0.1,))
    # One request left, the window resets in a second: not closer than that second.
    assert schedule.interval(0, budget_low=True, remaining=1, reset_in=1.0) == 1.0
    # Reset now: nothing to spread; the doubled step.
    assert schedule.interval(0, budget_low=True, remaining=1, reset_in=0.0) == 0.2


@pytest.mark.usefixtures("rig_dialect")
async def test_the_session_says_it_is_asking_only_while_still_there_is_up() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        session = PaymentSession(store, timeout=30, ask_for=10)
        seen: list[tuple[bool, bool]] = []
        result = await session.run(
            on_tick=lambda tick: seen.append((tick.asking_left is not None, session.asking))
        )
        assert result.outcome is PaymentOutcome.ABANDONED
        assert all(told == asking for told, asking in seen)
        assert (False, False) in seen and (True, True) in seen


@pytest.mark.usefixtures("rig_dialect")
async def test_the_looks_follow_the_schedule_from_its_first_step_and_a_nudge_looks_once() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        t0 = rig.clock()
        looked: list[float] = []
        cancel = asyncio.Event()
        poll_now = asyncio.Event()

        async def pending() -> OrderProgress:
            looked.append(rig.clock() - t0)
            if len(looked) == 4:
                cancel.set()
            return OrderProgress("payment_pending")

        store.check_payment = pending  # type: ignore[method-assign]
        # "I have paid" pressed at 1 s: one look at once, then the schedule goes on.
        rig.clock.call_later(1.0, _set(poll_now))
        session = PaymentSession(store, timeout=300, schedule=PollSchedule(intervals=(3.0, 7.0)))
        result = await session.run(cancel=cancel, poll_now=poll_now)
        assert result.outcome is PaymentOutcome.CANCELLED
        assert looked[0] == 1.0  # the nudge, before the first step's 3 s
        assert [round(b - a, 6) for a, b in itertools.pairwise(looked)] == [7.0, 7.0, 7.0]


def _set(event: asyncio.Event) -> Callable[[], Awaitable[None]]:
    async def set_it() -> None:
        event.set()

    return set_it


@pytest.mark.usefixtures("rig_dialect")
async def test_the_first_look_comes_after_the_schedules_first_step() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        t0 = rig.clock()
        looked: list[float] = []
        cancel = asyncio.Event()

        async def pending() -> OrderProgress:
            looked.append(rig.clock() - t0)
            if len(looked) == 2:
                cancel.set()
            return OrderProgress("payment_pending")

        store.check_payment = pending  # type: ignore[method-assign]
        session = PaymentSession(store, timeout=300, schedule=PollSchedule(intervals=(3.0, 7.0)))
        await session.run(cancel=cancel)
        assert looked == [3.0, 10.0]


@pytest.mark.usefixtures("rig_dialect")
async def test_a_look_and_the_end_of_the_time_come_when_due_not_at_the_next_whole_second() -> None:
    async with demo_rig() as rig:
        store = await paying_a_cookie(rig)
        t0 = rig.clock()
        looked: list[float] = []

        async def pending() -> OrderProgress:
            looked.append(rig.clock() - t0)
            return OrderProgress("payment_pending")

        store.check_payment = pending  # type: ignore[method-assign]
        session = PaymentSession(store, timeout=6.25, schedule=PollSchedule(intervals=(2.5,)))
        result = await session.run()
        assert result.outcome is PaymentOutcome.TIMED_OUT
        assert result.elapsed == 6.25
        # Every 2.5 s, then one last look when the time is up.
        assert looked == [2.5, 5.0, 6.25]
