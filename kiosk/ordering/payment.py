"""Waiting for the payment: poll the payment's state until the server decides, paced by the budget.

The API has no push (S), so the kiosk polls (2.0: `order-result`; v1: the cart). Each poll is one
GET of a 200-per-10-minutes budget that several terminals may share. The schedule, and why (issue
19, "paid -> number fast and frugal"; this is the one place it is decided, PollSchedule holds the
numbers):
- Every 2 s while the budget has room (most of the time): the customer who has just paid is
  looking at the kiosk, and the number should be there within a poll or two of the server
  completing the order (the goal is 3 s). A 60 s payment costs about 30 small GETs, well inside a
  budget of 200 per 10 minutes. The "I have paid" button (and the demo's approve key) polls at once.
- Budget-aware. When the budget runs low (RateBudget.is_low) every interval doubles, and polls are
  never closer than the time to the reset divided by the requests left (capped at `max_interval`,
  so a payment is still seen); when the budget is spent, the next poll waits for the reset.
- What the server says moves the order's lifecycle (CartStore.check_payment): completed ends the
  wait with the number; a decline is shown and the wait goes on (the hosted page lets the customer
  try again, and a later success still shows the number); a cart that is gone ends it.

The countdown is driven from here, once a second through `on_tick`, so a TUI worker can show it
without a timer of its own. Transient errors (network, 5xx, rate limit) do not end the wait: the
next poll simply comes later; only a cart that is gone or expired does.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from kiosk.api import RateBudget
from kiosk.api.errors import NotFoundError, RateLimitedError, StorefrontError
from kiosk.api.models import Cart, OrderProgress
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.lifecycle import OrderSnapshot, Phase

__all__ = [
    "PaymentOutcome",
    "PaymentResult",
    "PaymentSession",
    "PaymentTick",
    "PollSchedule",
    "counter_code",
    "kept_handoff_left",
    "offers_counter",
    "wait_for_payment",
    "watch_kept_handoff",
]

log = logging.getLogger("kiosk.ordering")

# Seconds before a checkout hand-off expires when a fresh one is asked for (enough for one
# request and a phone that is slow to load the page); also the least time between two renewals.
HANDOFF_MARGIN = 20.0
# Seconds to the next look after "order_pending" (paid, the order being placed), wherever the
# payment is watched (the payment screen's wait, a kept hand-off's watch).
PLACING_INTERVAL = 1.0


# Pay at the counter (issue 13), decided here. Neither API places an order without a payment: the
# order exists once its payment succeeds (v1: the intent's webhook; 2.0: order-result "completed").
# The v1 contract's "Pay at counter" is the same hand-off with the checkoutUrl opened by staff on
# the counter's payment device, so that is what the kiosk does: the cart is handed to payment as
# for the QR code (locked, nothing to change), the kiosk shows a short code instead of the QR, the
# customer says it at the counter, staff find the order by it on their device and take the
# payment there, and the kiosk, still waiting, shows the order number once it is paid. The code
# is the cart id's last characters in capitals: nothing secret (no token, no clientSecret), and
# the demo's counter page (/demo/counter) lists pending payments by the same rule.
COUNTER_CODE_LENGTH = 6


def counter_code(cart: Cart) -> str:
    """The code the customer says at the counter for `cart` (see above)."""
    return cart.id[-COUNTER_CODE_LENGTH:].upper()


def offers_counter(settings: object) -> bool:
    """Whether the merchant takes payment at the counter (`pay_at_counter`; the older
    `payment_mode = "counter"` means the same)."""
    return bool(
        getattr(settings, "pay_at_counter", False)
        or getattr(settings, "payment_mode", "") == "counter"
    )


@dataclass(frozen=True, slots=True)
class PollSchedule:
    """Seconds between polls: `intervals` in turn, then the last one repeated; × `low_budget_factor`
    when the rate budget is low (capped at `max_interval`)."""

    # Every 2 s while the budget has room: see the module's docstring for the reasoning.
    intervals: tuple[float, ...] = (2.0,)
    low_budget_factor: float = 2.0
    max_interval: float = 30.0
    # After a failed poll: wait at least this long before the next.
    error_interval: float = 10.0
    # After "order_pending" (paid, the order being placed): the number is one look away.
    placing_interval: float = PLACING_INTERVAL

    def interval(
        self,
        poll_number: int,
        *,
        budget_low: bool = False,
        remaining: int | None = None,
        reset_in: float | None = None,
    ) -> float:
        """The wait before poll `poll_number` (0 = the first poll). `remaining` requests left in
        the rate window and `reset_in` seconds until it resets, when known, pace the polls."""
        base = self.intervals[min(poll_number, len(self.intervals) - 1)]
        if not budget_low:
            return base
        base = min(self.max_interval, base * self.low_budget_factor)
        if remaining is not None and remaining > 0 and reset_in is not None and reset_in > 0:
            # Spread what is left over the window (never slower than max_interval).
            base = max(base, min(self.max_interval, reset_in / remaining))
        return base

    def for_budget(self, poll_number: int, budget: RateBudget) -> float:
        """`interval` for the client's rate budget as it is now."""
        return self.interval(
            poll_number,
            budget_low=budget.is_low,
            remaining=budget.remaining,
            reset_in=budget.seconds_until_reset(),
        )


class PaymentOutcome(enum.Enum):
    COMPLETED = "completed"  # the order exists: PaymentResult.order_number is the server's number
    TIMED_OUT = "timed_out"  # the payment timer ran out (a session that does not ask)
    ABANDONED = "abandoned"  # the time ran out, nobody answered "Still there?", the last look
    # found no payment: the visit ends, and no code is left up for the next person
    CANCELLED = "cancelled"  # the customer pressed Cancel
    GONE = "gone"  # the cart expired or was deleted: nothing will be paid


@dataclass(frozen=True, slots=True)
class PaymentTick:
    """Once a second while waiting: what the payment screen shows."""

    elapsed: float
    seconds_left: int  # until the payment times out
    next_poll_in: int
    polls: int
    cart: Cart | None
    error: StorefrontError | None  # the last poll's failure, if the last poll failed
    # Until the checkout hand-off expires (2.0); None when it does not. Renewed before it does.
    handoff_seconds_left: int | None = None
    # The order's phase as the server last decided it (AWAITING_PAYMENT or DECLINED here).
    phase: Phase = Phase.AWAITING_PAYMENT
    # The time to pay ran out: seconds left to answer "Still there?" (None while not asking).
    asking_left: int | None = None


@dataclass(frozen=True, slots=True)
class PaymentResult:
    outcome: PaymentOutcome
    cart: Cart | None
    polls: int
    elapsed: float
    # The server's order number (2.0: order-result's order.shortId), once paid.
    order_number: str | None = None


class PaymentSession:
    """One wait for one payment, with its own clocks: the time to pay, the looks at the server
    (PollSchedule), the hand-off renewed before it expires, then, when the time runs out, the
    question "Still there?" for `ask_for` seconds and one last look. It always ends: paid
    (COMPLETED), the cart gone (GONE), cancelled, or, when nobody answered, ABANDONED (the
    caller ends the visit: no stranger's code is left up). `ask_for` 0: TIMED_OUT after the
    last look, without asking.

    It uses the store's injected clock and sleep, so tests run it in no time; cancelling the
    task that runs it (a Textual worker) stops it too, leaving the cart as it is."""

    def __init__(
        self,
        store: CartStore,
        *,
        timeout: float,
        ask_for: float = 0.0,
        schedule: PollSchedule | None = None,
    ) -> None:
        self.store = store
        self.timeout = timeout
        self.ask_for = ask_for
        self.schedule = schedule or PollSchedule()
        self.polls = 0
        self.last_error: StorefrontError | None = None
        self._started = 0.0
        self._deadline = 0.0
        # When "Still there?" was first shown (None while not asking).
        self._asked_at: float | None = None
        # When the hand-off was last renewed (never twice within HANDOFF_MARGIN).
        self._renewed_at = -math.inf

    @property
    def asking(self) -> bool:
        return self._asked_at is not None

    def keep(self) -> None:
        """The customer answered "Still there?": the time to pay starts again."""
        if self._asked_at is not None:
            self._asked_at = None
            self._deadline = self.store.clock() + self.timeout

    def _done(self, outcome: PaymentOutcome) -> PaymentResult:
        store = self.store
        elapsed = store.clock() - self._started
        return PaymentResult(outcome, store.cart, self.polls, elapsed, store.order.order_number)

    async def _last_look(self) -> bool:
        """One look, waiting out a rate limit if it must (the customer may have paid since the
        last poll, or while polls were held back): True when the order is paid."""
        with contextlib.suppress(StorefrontError):
            self.polls += 1
            await self.store.check_payment()
        return self.store.phase is Phase.PAID

    async def run(
        self,
        *,
        on_tick: Callable[[PaymentTick], None] | None = None,
        cancel: asyncio.Event | None = None,
        poll_now: asyncio.Event | None = None,
    ) -> PaymentResult:
        store = self.store
        clock, sleep = store.clock, store.sleep
        self._started = clock()
        self._deadline = self._started + self.timeout
        if store.phase is Phase.PAID:
            return self._done(PaymentOutcome.COMPLETED)
        next_poll = self._started + self.schedule.for_budget(0, store.client.rate_budget)
        self._renewed_at = -math.inf
        while True:
            now = clock()
            ended = await self._ended(now, cancel)
            if ended is not None:
                return ended
            handoff_left = await self._renew_if_due(now)
            if (poll_now is not None and poll_now.is_set()) or now >= next_poll:
                if poll_now is not None:
                    poll_now.clear()
                next_poll = clock() + await self._look()
                ended = self._settled()
                if ended is not None:
                    return ended
            now = clock()
            if on_tick is not None:
                on_tick(self._tick(now, next_poll, handoff_left))
            until = self._deadline if self._asked_at is None else self._asked_at + self.ask_for
            step = min(1.0, max(0.0, next_poll - now), max(0.0, until - now))
            await _sleep_or_nudge(sleep, max(step, 0.05), poll_now, cancel)

    def _settled(self) -> PaymentResult | None:
        """The end the server decided: paid, or the cart gone or expired (None: still open)."""
        store = self.store
        if store.phase is Phase.PAID:  # told here, or elsewhere meanwhile (a last look, a restart)
            return self._done(PaymentOutcome.COMPLETED)
        if store.cart_id is None or store.phase is Phase.EXPIRED:
            return self._done(PaymentOutcome.GONE)
        return None

    async def _ended(self, now: float, cancel: asyncio.Event | None) -> PaymentResult | None:
        """Whether the wait ends now: cancelled, settled by the server, or its time run out (then
        "Still there?" for `ask_for` seconds, and one last look either way)."""
        if cancel is not None and cancel.is_set():
            return self._done(PaymentOutcome.CANCELLED)
        settled = self._settled()
        if settled is not None or now < self._deadline:
            return settled
        if self.ask_for <= 0:
            paid = await self._last_look()
            return self._done(PaymentOutcome.COMPLETED if paid else PaymentOutcome.TIMED_OUT)
        if self._asked_at is None:
            self._asked_at = now
            return None
        if now - self._asked_at < self.ask_for:
            return None
        paid = await self._last_look()
        return self._done(PaymentOutcome.COMPLETED if paid else PaymentOutcome.ABANDONED)

    async def _renew_if_due(self, now: float) -> float | None:
        """A fresh hand-off before the QR code's page would refuse the customer (not while asking
        "Still there?": nobody may be there to scan it). Returns the hand-off's seconds left."""
        store = self.store
        left = store.payment.seconds_left()
        due = left is not None and left <= HANDOFF_MARGIN
        if not due or self.asking or now - self._renewed_at < HANDOFF_MARGIN:
            return left
        self._renewed_at = now
        try:
            await store.payment.renew()
            log.info("checkout hand-off renewed before it expired")
        except StorefrontError as exc:
            log.info("checkout hand-off renewal failed: %s", exc)
            self.last_error = exc
        return store.payment.seconds_left()

    async def _look(self) -> float:
        """One look at the payment; returns the seconds to the next (NotFound ends the cart)."""
        store, budget = self.store, self.store.client.rate_budget
        self.polls += 1
        wait = self.schedule.for_budget(self.polls, budget)
        try:
            progress = await store.check_payment()
            self.last_error = None
            if progress is not None and progress.state == "order_pending":
                # The money is in and the order is being placed: the customer is watching
                # the screen for the number, and it is one look away.
                wait = min(wait, self.schedule.placing_interval)
        except NotFoundError:
            pass  # the store has forgotten the cart: GONE
        except StorefrontError as exc:
            log.info("payment poll failed: %s", exc)
            self.last_error = exc
            wait = max(wait, self.schedule.error_interval)
            if isinstance(exc, RateLimitedError) and exc.retry_after:
                # Only a 429's wait is honoured: other errors may carry a window's reset.
                wait = max(wait, exc.retry_after)
        if budget.remaining == 0:
            wait = max(wait, budget.seconds_until_reset() or 0.0)
        return wait

    def _tick(self, now: float, next_poll: float, handoff_left: float | None) -> PaymentTick:
        asking_left = None
        if self._asked_at is not None:
            asking_left = max(0, math.ceil(self._asked_at + self.ask_for - now))
        return PaymentTick(
            elapsed=now - self._started,
            seconds_left=max(0, math.ceil(self._deadline - now)),
            next_poll_in=max(0, math.ceil(next_poll - now)),
            polls=self.polls,
            cart=self.store.cart,
            error=self.last_error,
            handoff_seconds_left=(
                None if handoff_left is None else max(0, math.floor(handoff_left))
            ),
            phase=self.store.phase,
            asking_left=asking_left,
        )


async def wait_for_payment(
    store: CartStore,
    *,
    # The payment timer on the store's injected clock, not an asyncio timeout.
    timeout: float,  # noqa: ASYNC109
    on_tick: Callable[[PaymentTick], None] | None = None,
    cancel: asyncio.Event | None = None,
    poll_now: asyncio.Event | None = None,
    schedule: PollSchedule | None = None,
) -> PaymentResult:
    """A PaymentSession that does not ask "Still there?": TIMED_OUT after its last look."""
    session = PaymentSession(store, timeout=timeout, schedule=schedule)
    return await session.run(on_tick=on_tick, cancel=cancel, poll_now=poll_now)


def kept_handoff_left(order: OrderSnapshot, now: float) -> float | None:
    """Back on the order with a hand-off that may still be paid (2.0): seconds until it stops
    working; None when there is none (infinite when it has no known expiry: then it is watched
    until the visit ends)."""
    if order.phase is not Phase.ORDERING or order.checkout_url is None:
        return None
    expires = order.handoff_expires()
    if expires is None:
        return float("inf")
    return expires.timestamp() - now


async def watch_kept_handoff(
    store: CartStore,
    look: Callable[[], Awaitable[OrderProgress | None]],
    *,
    every: float,
    wall_clock: Callable[[], float],
) -> Phase:
    """While the customer is back on the order and the old code may still pay it, `look` at the
    payment now and then (a slow pace: the customer is choosing, not paying; none while the rate
    budget is low: the customer's own writes come first). Ends when the order is paid (the app
    then shows the number), the code has expired, or the phase moves on. Returns the phase it
    leaves."""
    pace = every
    while True:
        left = kept_handoff_left(store.order, wall_clock())
        if left is None or left <= 0:
            return store.phase
        await store.sleep(min(pace, left))
        if kept_handoff_left(store.order, wall_clock()) is None:
            return store.phase
        if store.client.rate_budget.is_low:
            continue
        progress = None
        with contextlib.suppress(StorefrontError):
            progress = await look()
        if store.phase is not Phase.ORDERING:
            return store.phase
        # Paid, the order being placed: its number is one look away.
        placing = progress is not None and progress.state == "order_pending"
        pace = PLACING_INTERVAL if placing else every


async def _sleep_or_nudge(
    sleep: Callable[[float], Awaitable[None]],
    seconds: float,
    poll_now: asyncio.Event | None,
    cancel: asyncio.Event | None,
) -> None:
    """Sleep up to `seconds`, waking early when `poll_now` or `cancel` is set."""
    events = [e for e in (poll_now, cancel) if e is not None]
    if any(e.is_set() for e in events):
        return
    nap = sleep(seconds)
    if not events:
        await nap
        return
    nap_task = asyncio.ensure_future(nap)
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait([nap_task, *waiters], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (nap_task, *waiters):
            if not task.done():
                task.cancel()
