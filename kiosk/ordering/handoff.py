"""The payment hand-off and the looks at it: the requests of paying for one order.

The hand-off is the payment intent (v1: it locks the cart and puts the checkout URL on it; 2.0:
it answers the URL and when it stops working). A look asks the server where the payment stands
(2.0's order-result; v1, which has no payment poll, the cart itself). What a look or a hand-off
means for the order (PAID, DECLINED, EXPIRED, HANDED_OFF, ...) is recorded by the order's owner,
the CartStore (`HandoffOwner`); this module only asks and hands the answers over. The waiting
itself (the schedule, the clocks, "Still there?") is kiosk.ordering.payment.PaymentSession.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from pydantic import SecretStr

from kiosk.api.errors import NotFoundError, StorefrontError
from kiosk.api.models import OrderProgress, PaymentIntent
from kiosk.ordering.cart_writer import CartWriter, Landed, NoCartError, WriteOwner

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import Cart
    from kiosk.ordering.lifecycle import OrderSnapshot

__all__ = ["HandoffOwner", "PaymentHandoff"]


class HandoffOwner(WriteOwner, Protocol):
    """The rows the hand-off asks the order's owner to record (the owner decides each)."""

    async def refresh(self) -> Cart | None: ...

    def handed_off(self, intent: PaymentIntent) -> None:
        """The server gave a hand-off: the order awaits payment at its URL."""

    def checkout_refused(self) -> None:
        """The hand-off was refused: back to the order."""

    def heard(self, progress: OrderProgress) -> None:
        """What a look at the payment said."""

    def payment_gone(self) -> None:
        """The cart being paid for is gone on the server."""


class PaymentHandoff:
    """The hand-off of one store's order, and the looks at its payment."""

    def __init__(self, owner: HandoffOwner, writer: CartWriter) -> None:
        self._owner = owner
        self._writer = writer
        self.intent: PaymentIntent | None = None
        # Whether the last look read the cart itself (not only the payment's state).
        self.look_read_cart = False

    @property
    def _client(self) -> StorefrontBase:
        return self._writer.client

    def forget(self) -> None:
        self.intent = None

    # ------------------------------------------------------------------ the hand-off

    async def begin(self) -> PaymentIntent:
        """Create the payment intent (row 24; the cart turns LOCKED), then read the cart once to
        learn its checkoutUrl. The intent's clientSecret is for the processor only."""

        async def body() -> PaymentIntent:
            cart_id = self._writer.need_cart()
            intent = self.intent
            cart = self._owner.cart
            if intent is not None and cart is not None:
                left = self.seconds_left()
                if cart.is_locked or (
                    not self._client.intent_changes_cart and (left is None or left > 0)
                ):
                    # Locked by our own intent (a retry after a decline), or the hand-off the
                    # checkout just opened and still open: reuse it.
                    return intent
            intent = await self.create_intent(cart_id)
            await self.after_intent(intent)
            self._owner.handed_off(intent)
            return intent

        return await self._writer.run(body)

    def restore(self, cart_id: str, snapshot: OrderSnapshot) -> None:
        """After a restart: the hand-off the customer was shown (2.0), from the resume file, so
        the payment screen shows the same code instead of asking for a new one."""
        if self._client.intent_changes_cart or not snapshot.checkout_url:
            return  # v1: the locked cart's own intent is asked for again (begin)
        self.intent = PaymentIntent(
            client_secret=SecretStr(""),
            checkout_url=snapshot.checkout_url,
            expires_at=snapshot.handoff_expires(),
        )
        self._client.restore_handoff(cart_id, snapshot.checkout_url)

    def seconds_left(self) -> float | None:
        """Seconds until the payment hand-off expires (2.0's expiresAt); None when it does not."""
        intent = self.intent
        if intent is None or intent.expires_at is None:
            return None
        return intent.expires_at.timestamp() - self._writer.clock()

    async def renew(self) -> PaymentIntent:
        """A fresh hand-off for the cart being paid, when the old one runs out: its checkout URL
        goes to the cart shown (the QR code), without reading the cart again."""

        async def body() -> PaymentIntent:
            cart_id = self._writer.need_cart()
            try:
                intent = await self.create_intent(cart_id)
            except StorefrontError:
                # As a refused checkout: back to the order (a slot taken, a product sold out, a
                # way switched off since the first code are changes to the order), never left
                # midway with nothing to press.
                self._owner.checkout_refused()
                raise
            cart = self._owner.cart
            if cart is not None and intent.checkout_url:
                self._owner.publish(cart.model_copy(update={"checkout_url": intent.checkout_url}))
            self._owner.handed_off(intent)
            return intent

        return await self._writer.run(body)

    async def after_intent(self, intent: PaymentIntent | None) -> None:
        """The cart as the payment begins: read once where the intent changes it (the legacy
        API locks it and puts the checkout URL on it); else the URL the hand-off answered."""
        cart = self._owner.cart
        if intent is not None and not self._client.intent_changes_cart and cart is not None:
            self._owner.publish(cart.model_copy(update={"checkout_url": intent.checkout_url}))
            return
        self._owner.publish(await self._writer.get())

    async def create_intent(self, cart_id: str) -> PaymentIntent:
        writer = self._writer
        result = await writer.write(
            lambda: self._client.create_payment_intent(writer.location_id, cart_id)
        )
        assert not isinstance(result, Landed)
        self.intent = result
        return result

    async def confirm_demo(self, card_number: str) -> None:
        """Demo only: pay the open intent as the demo processor would (declines raise)."""
        if self.intent is None:
            raise NoCartError("There is no payment to confirm.")
        await self._client.confirm_demo_payment(self.intent.client_secret, card_number)

    # ------------------------------------------------------------------ the looks

    async def look(self) -> OrderProgress | None:
        """One look at the payment: 2.0's order-result, or (v1, which has no payment poll) the
        cart itself. What the server said moves the order's lifecycle (the owner's `heard`),
        persisted before anyone hears of it. A completed order's cart is read once more, for
        the receipt, unless the order is the cart held (OrderProgress.agrees_with). Returns what
        the server said, None when there is no cart."""
        owner, writer = self._owner, self._writer
        cart_id = owner.cart_id
        if cart_id is None:
            return None

        async def ask() -> OrderProgress | None:
            try:
                return await self._client.order_progress(writer.location_id, cart_id)
            except NotFoundError:
                owner.payment_gone()
                raise

        progress = await writer.run(ask)
        self.look_read_cart = progress is None
        if progress is None:
            try:
                cart = await owner.refresh()
            except NotFoundError:
                owner.payment_gone()
                raise
            progress = _progress_of(cart)
        owner.heard(progress)
        if progress.completed and not self.look_read_cart and not progress.agrees_with(owner.cart):
            # The receipt's lines and totals, read when the order is not the cart held (a tip
            # added on the payment page, a line dropped); the order is placed whether or not this
            # read works.
            with contextlib.suppress(StorefrontError):
                await owner.refresh()
                self.look_read_cart = True
        return progress

    async def last_look(self) -> Cart | None:
        """Before leaving the payment: a payment that landed wins (the payment poll), else the
        server's cart as it is now, locked or not (read when the poll did not read it)."""
        progress = await self.look()
        if (progress is not None and progress.completed) or self.look_read_cart:
            return self._owner.cart
        return await self._owner.refresh()


def _progress_of(cart: Cart | None) -> OrderProgress:
    """The legacy API's payment state, read off its cart (it has no payment poll): COMPLETED is
    paid, and its `fulfillmentIdentifier` is the order's number (A: the legacy contract's guess;
    a completed cart without one is still paid, shown without a number)."""
    if cart is None:
        return OrderProgress("payment_pending")
    if cart.is_completed:
        return OrderProgress("completed", order_number=cart.fulfillment_identifier or None)
    if cart.is_expired:
        return OrderProgress("expired")
    return OrderProgress("payment_pending")
