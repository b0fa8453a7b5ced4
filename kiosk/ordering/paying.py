"""Paying for the visit's order: the hand-off's intents (pay again, at the counter, a look now,
the demo's card), the wait for the payment with its "Still there?", a kept code's watch, and
going back from paying to the order (the same order again in a new cart where the cart locked).

The Visit offers these intents as they are (`PayingHost` is what they ask of it); the order's
record moves only through its owner, the CartStore, and the waiting itself is
kiosk.ordering.payment's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from kiosk.api.errors import StorefrontError
from kiosk.i18n import N_
from kiosk.ordering.events import OrderEvent, OrderObserver, tell
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.reorder import Orderer, ReopenResult, order_again
from kiosk.ordering.visit_resume import quietly

if TYPE_CHECKING:
    from kiosk.api.models import Cart, PaymentIntent
    from kiosk.ordering.cart_store import CartStore
    from kiosk.ordering.payment import PaymentResult, PaymentSession, PaymentTick
    from kiosk.ordering.visit_state import VisitState

__all__ = ["OrderPaidError", "Paying", "PayingHost", "close_order", "paid_meanwhile"]


class PayingHost(Orderer, Protocol):
    """What paying asks of the visit."""

    state: VisitState
    wall_clock: Callable[[], float]
    observer: OrderObserver | None

    def need_store(self) -> CartStore: ...

    def on_store(self, work: Callable[[CartStore], Awaitable[Any]]) -> Awaitable[Any]: ...

    def sync_store(self) -> None: ...


class Paying:
    """The paying intents of one visit."""

    def __init__(self, host: PayingHost) -> None:
        self._host = host
        # The payment being waited for (wait_for_payment), while it runs.
        self._payment_session: PaymentSession | None = None

    async def reopen_order(self) -> ReopenResult:
        """Back from payment to the cart with the order intact. A cart being paid for is locked
        and takes no more changes, so the same order is made again in a new cart (the same way
        of ordering, lines, choices, notes, code and time) and the old one deleted, its payment
        hand-off with it. One last look first: a payment that landed meanwhile wins."""
        store = self._host.need_store()
        cart = await store.payment.last_look()
        if store.phase is Phase.PAID:
            number = store.order.order_number
            return ReopenResult(completed=cart, order_number=number, paid=True)
        if cart is None or not cart.is_locked:
            # Still open (2.0 does not lock a cart on its hand-off): the same cart is the order,
            # and the hand-off stays payable until it expires (kept: a payment there is watched).
            store.back_to_order()
            self._host.sync_store()
            return ReopenResult(kept_handoff=store.order.checkout_url is not None)
        return await self._order_again(store, cart)

    async def start_again(self) -> ReopenResult:
        """The order's cart expired on the server: a new cart with the same way to order (its
        table, room or address), lines, choices, notes, code and time, as far as the server
        allows; `dropped_lines` names the lines it refused (sold out or gone since)."""
        store = self._host.need_store()
        if store.phase is not Phase.EXPIRED:
            raise RuntimeError(f"start_again in phase {store.phase}: only an expired order")
        cart = store.cart
        if cart is None:
            with contextlib.suppress(StorefrontError):
                cart = await store.refresh()  # a 2.0 server still answers an expired cart
        if cart is None:
            from kiosk.api.models import Cart

            cart = Cart(id="")  # no longer readable: nothing to copy but the way to order
        return await self._order_again(store, cart)

    async def _order_again(self, store: CartStore, cart: Cart) -> ReopenResult:
        """The same order in a new cart (kiosk.ordering.reorder): the old one discarded first."""
        state = self._host.state
        await quietly(store.discard())
        return await order_again(self._host, cart, state)

    async def confirm_demo_payment(self, card_number: str) -> None:
        from kiosk.api.errors import PaymentDeclinedError

        try:
            await self._host.on_store(lambda s: s.payment.confirm_demo(card_number))
        except PaymentDeclinedError:
            tell(self._host.observer, OrderEvent.DECLINED)
            raise

    async def check_payment(self) -> Phase:
        """One look at the payment now ("I have paid", a last look): the phase it leaves."""
        store = self._host.need_store()
        await self._host.on_store(lambda s: s.check_payment())
        return store.phase

    async def pay_again(self) -> PaymentIntent:
        """After a decline: a fresh hand-off (a new code) for the same cart."""
        store = self._host.need_store()
        store.want_new_code()
        try:
            return await self._host.on_store(lambda s: s.payment.renew())
        except StorefrontError:
            # Refused (or not asked): back on the order, as after a refused checkout (the store
            # says why the order must change); the old code is kept as it was.
            self._host.sync_store()
            raise

    def choose_counter(self, at_counter: bool) -> None:
        """The customer pays at the counter (or back to the QR code): the same hand-off, kept in
        the resume file so a restart shows the same choice."""
        self._host.need_store().choose_counter(at_counter)
        self._host.sync_store()

    def kept_handoff_seconds_left(self) -> float | None:
        """Back on the order with a hand-off that may still be paid (2.0): seconds until it stops
        working; None when there is none (kiosk.ordering.payment.kept_handoff_left)."""
        from kiosk.ordering.payment import kept_handoff_left

        return kept_handoff_left(self._host.state.order, self._host.wall_clock())

    async def watch_kept_handoff(self, *, every: float = 10.0) -> Phase:
        """While the customer is back on the order and the old code may still pay it, look at
        the payment now and then (kiosk.ordering.payment.watch_kept_handoff). Returns the phase
        it leaves."""
        from kiosk.ordering.payment import watch_kept_handoff

        store = self._host.need_store()
        look = lambda: self._host.on_store(lambda s: s.check_payment())  # noqa: E731
        return await watch_kept_handoff(store, look, every=every, wall_clock=self._host.wall_clock)

    async def wait_for_payment(
        self,
        *,
        timeout: float,  # noqa: ASYNC109 - the payment timer on the injected clock
        on_tick: Callable[[PaymentTick], None] | None = None,
        cancel: asyncio.Event | None = None,
        poll_now: asyncio.Event | None = None,
        every: float | None = None,
        ask_for: float = 0.0,
    ) -> PaymentResult:
        """Wait for the payment (kiosk.ordering.payment.PaymentSession: a frugal schedule on the
        rate budget) until the order completes, `cancel` is set, the cart is gone, or the time
        runs out; with `ask_for`, the time running out asks "Still there?" for that long
        (`keep_paying` answers it) and, unanswered, ends ABANDONED after one last look."""
        from kiosk.ordering.payment import PaymentSession, PollSchedule

        store = self._host.need_store()
        schedule = PollSchedule(intervals=(every,)) if every else None
        session = PaymentSession(store, timeout=timeout, ask_for=ask_for, schedule=schedule)
        self._payment_session = session
        try:
            return await session.run(on_tick=on_tick, cancel=cancel, poll_now=poll_now)
        finally:
            if self._payment_session is session:
                self._payment_session = None
            self._host.sync_store()

    def keep_paying(self) -> None:
        """The customer answered "Still there?" on the payment: the time to pay starts again."""
        if self._payment_session is not None:
            self._payment_session.keep()


class OrderPaidError(StorefrontError):
    """The order was paid meanwhile (the payment poll said so): there is nothing left to change.
    The screens show the order's number (the app follows VisitState.order to the done screen)."""

    default_message = N_("Your payment went through: your order is placed.")

    def __init__(self, order_number: str | None) -> None:
        super().__init__()
        self.order_number = order_number


async def paid_meanwhile(store: CartStore) -> None:
    """A write refused as a conflict on a cart that was handed to payment: the customer may
    have paid with the code (2.0 keeps a hand-off payable after the customer goes back).
    Ask the payment poll; if it says paid, the order is theirs (OrderPaidError carries the
    number) instead of "check and try again"."""
    if store.order.checkout_url is None or store.cart_id is None:
        return
    try:
        await store.check_payment()
    except StorefrontError:
        return
    if store.phase is Phase.PAID:
        raise OrderPaidError(store.order.order_number)


async def close_order(store: CartStore, *, keep_cart: bool) -> None:
    """The kiosk is closing normally: a paid order (placed, its number shown) is forgotten,
    never deleted; an open order is kept for the next start unless `keep_cart` is False, and
    an order being paid for is always kept (the resume file takes the payment up next start:
    a customer may be paying with its code right now)."""
    if store.phase is Phase.PAID:
        await quietly(store.discard())
    elif not keep_cart and store.cart_id is not None:
        cart = store.cart
        paying = store.phase in (Phase.AWAITING_PAYMENT, Phase.DECLINED)
        if not (paying or (cart and cart.is_locked)):
            await quietly(store.discard())
