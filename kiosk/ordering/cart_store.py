"""CartStore: the order's one owner, and the one source of truth for the customer's cart.

Every screen asks (through the Visit) for the cart to change and watches what the store publishes;
no widget keeps a copy. Only the store holds the cart id and the order's lifecycle: every change
of the order's phase or recorded fact is a row of kiosk.ordering.lifecycle fired here.

Here: the order's record and its rows (a new cart, the way to order, the time, the hand-off, what
a look at the payment said, a write in doubt, a refusal), the cart it publishes, the checkout and
the discard. Its other jobs, each in its own module beside it, report back to it:
- What the customer changes: kiosk.ordering.cart_edits.CartEdits (the ordering session and its
  way to order, the lines, code, tip, time, customer details; a resume after a restart).
- How a request goes out: kiosk.ordering.cart_writer.CartWriter (serialised, FIFO, nothing
  dropped; rate limits waited out with a countdown; a write in doubt settled by reading the cart,
  never sent twice). The cart is refreshed after each write from the server: the Cart the write
  returns, or one GET when it returns none (the legacy contract's order time, discount and
  customer details answer `{success:true}`). Errors propagate as the typed StorefrontError, after
  a re-read where the cart may have moved; the last good cart is never dropped by an error.
- The payment hand-off and the looks at the payment: kiosk.ordering.handoff.PaymentHandoff.
- Crash resume: kiosk.ordering.resume_file.ResumeFile, written on every row of the lifecycle and
  removed when the cart completes, expires or is discarded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from kiosk.api.errors import (
    ConflictError,
    NotFoundError,
    StorefrontError,
)
from kiosk.api.models import (
    Cart,
    CartValidation,
    OrderProgress,
    PaymentIntent,
    unavailable_lines,
)
from kiosk.i18n import _
from kiosk.ordering.cart_edits import CartEdits, WayGoneError
from kiosk.ordering.cart_writer import (
    BUSY,
    IDLE,
    CartExpiredError,
    CartWriter,
    NoCartError,
    Sleep,
    StatusListener,
    StoreStatus,
)
from kiosk.ordering.clock import LocationClock
from kiosk.ordering.events import Listeners
from kiosk.ordering.handoff import PaymentHandoff
from kiosk.ordering.lifecycle import TERMINAL, Event, Lifecycle, OrderSnapshot, Phase, WayToOrder
from kiosk.ordering.resume_file import ResumeFile, SavedCart, load_saved_cart

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import Location

__all__ = [
    "BUSY",
    "IDLE",
    "CartExpiredError",
    "CartStore",
    "CheckoutResult",
    "NoCartError",
    "SavedCart",
    "StoreStatus",
    "WayGoneError",
    "load_saved_cart",
    "store_at",
]

log = logging.getLogger("kiosk.ordering")

CartListener = Callable[[Cart | None], None]


@dataclass(frozen=True, slots=True)
class CheckoutResult:
    """What `checkout()` did: the validation, and the payment intent when the cart was valid."""

    validation: CartValidation
    intent: PaymentIntent | None
    # The cart's lines that can no longer be ordered (models.unavailable_lines), on both
    # dialects: the checkout screen marks them, with a way to remove them.
    unavailable: tuple[str, ...] = ()


P = ParamSpec("P")
R = TypeVar("R")


def _edit(
    method: Callable[Concatenate[CartEdits, P], Awaitable[R]],
) -> Callable[Concatenate[CartStore, P], Coroutine[Any, Any, R]]:
    """A customer's edit (a CartEdits method) as the store's: one signature, written once."""

    async def edit(store: CartStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await method(store._edits, *args, **kwargs)

    edit.__name__ = method.__name__
    edit.__qualname__ = f"CartStore.{method.__name__}"
    edit.__doc__ = method.__doc__
    return edit


class CartStore:
    """The customer's cart, kept true to the server. One store per customer session."""

    def __init__(
        self,
        client: StorefrontBase,
        location_id: str,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Sleep = asyncio.sleep,
        cart_id_file: Path | None = None,
        location_aliases: Sequence[str] = (),
        max_rate_waits: int = 20,
        max_ambiguous_retries: int = 3,
        local_clock: LocationClock | None = None,
        settle_reads: int = 8,
        settle_pause: float = 2.0,
    ) -> None:
        self.client = client
        self.location_id = location_id
        # Time of day is the location's (ASAP's date and time), never the machine's.
        self.local_clock = local_clock or LocationClock(None, clock)
        self.cart_id_file = cart_id_file
        self._file = ResumeFile(cart_id_file)
        # The location's id and slug are interchangeable (S): a cart naming either is ours.
        self._location_keys = {location_id, *location_aliases}

        self.cart: Cart | None = None
        self.cart_id: str | None = None
        # What the ordering session said besides the cart id (e.g. "ordering for later only").
        self.session_message: str | None = None
        # True right after a new session: the server's cart is known to be empty without a GET.
        self._known_empty = False
        self._cart_listeners: Listeners[Cart | None] = Listeners("cart")
        # The order's phase (kiosk.ordering.lifecycle), persisted with the cart id on every move.
        self.lifecycle = Lifecycle(persist=lambda _snapshot: self._save_id())
        # How requests go out, and the payment's hand-off: each reports back to this owner.
        self._writer = CartWriter(
            self,
            client,
            location_id,
            clock=clock,
            sleep=sleep,
            max_rate_waits=max_rate_waits,
            max_ambiguous_retries=max_ambiguous_retries,
            settle_reads=settle_reads,
            settle_pause=settle_pause,
        )
        self._handoff = PaymentHandoff(self, self._writer)
        self._edits = CartEdits(self, self._writer)

    def __repr__(self) -> str:
        return f"CartStore(location_id={self.location_id!r}, cart_id={self.cart_id!r})"

    def know_location(self, keys: Sequence[str | None], local_clock: LocationClock | None) -> None:
        """The location's record arrived: its other names (id, slug) are ours too, and time of day
        is read on its clock."""
        self._location_keys.update(k for k in keys if k)
        if local_clock is not None:
            self.local_clock = local_clock

    @property
    def clock(self) -> Callable[[], float]:
        """The injected clock (payment polling and countdowns use the same one)."""
        return self._writer.clock

    @property
    def sleep(self) -> Sleep:
        return self._writer.sleep

    @property
    def status(self) -> StoreStatus:
        """What the writer is doing now (idle, busy, waiting out a rate limit, error)."""
        return self._writer.status

    @property
    def last_error(self) -> StorefrontError | None:
        return self._writer.last_error

    @property
    def settle_reads(self) -> int:
        return self._writer.settle_reads

    # ------------------------------------------------------------------ subscriptions

    def subscribe(self, callback: CartListener) -> Callable[[], None]:
        """Call `callback(cart)` with every cart the store publishes. Returns an unsubscribe."""
        return self._cart_listeners.add(callback)

    def subscribe_order(self, callback: Callable[[OrderSnapshot], None]) -> Callable[[], None]:
        """Call `callback(record)` after every row of the order's lifecycle."""
        return self.lifecycle.subscribe(callback)

    def subscribe_status(self, callback: StatusListener) -> Callable[[], None]:
        """Call `callback(status)` on every status change. Returns an unsubscribe."""
        return self._writer.subscribe_status(callback)

    def publish(self, cart: Cart | None) -> None:
        """A cart the server answered: published to every listener (the one way `cart` changes)."""
        if cart is not None and cart.id and cart.id != self.cart_id:
            # The server answered with another cart id (a resumed or replaced cart): follow it.
            self.cart_id = cart.id
            self._save_id()
        self.cart = cart
        self._known_empty = False
        self._writer.stale = False
        if cart is not None and cart.is_expired:
            # Nothing will be paid: a restart has nothing to come back to. (A completed cart's
            # file stays until the visit ends: the order's number is shown again after a crash.)
            self._expired()
        self._cart_listeners.tell(cart)

    # ------------------------------------------------------------------ the resume file

    def _save_id(self) -> None:
        if self.cart_id is None:
            return
        access = self.client.cart_access(self.cart_id)
        self._file.save(self.cart_id, self.location_id, self.lifecycle.snapshot, access)

    def _forget(self) -> None:
        self._file.remove()
        self.cart_id = None
        self._handoff.forget()
        self.session_message = None
        # The order is over (told to listeners first: PAID, EXPIRED, CANCELLED); what follows
        # is a new visit's, with nothing in the resume file. An order forgotten mid-payment is
        # one whose cart the server no longer has: it expired.
        if self.lifecycle.phase not in TERMINAL and self.lifecycle.phase is not Phase.ORDERING:
            self.lifecycle.fire(Event.EXPIRED)
        self.lifecycle.fire(Event.NEW_ORDER)
        self._known_empty = False
        self._writer.stale = False
        self.publish(None)

    # ------------------------------------------------------------------ what the writer found

    def cart_gone(self) -> None:
        self._forget()

    def cart_expired(self) -> bool:
        self._expired()
        return self.lifecycle.phase is Phase.EXPIRED

    def write_in_doubt(self) -> None:
        """A write's answer was lost: IN_DOUBT (persisted: a restart in the middle settles by
        reading the server) until `write_settled`."""
        self.lifecycle.fire(Event.WRITE_LOST)

    def write_settled(self) -> None:
        if self.lifecycle.phase is Phase.IN_DOUBT:  # unless the reads found it paid or gone
            self.lifecycle.fire(Event.SETTLED)

    def editable_cart_id(self) -> str:
        """The cart id, when the order may still change (else the refusal the server would
        give, without asking it)."""
        cart_id = self._writer.need_cart()
        if self.lifecycle.phase is Phase.EXPIRED:
            # The server said so already: one more request would only be refused again.
            raise CartExpiredError()
        if self.cart is not None and self.cart.is_locked:
            # Refused here: the server would say the same (409 CART_LOCKED) for one more request.
            raise ConflictError(
                _("Your order is being paid for and can't be changed now."), code="CART_LOCKED"
            )
        return cart_id

    # ------------------------------------------------------------------ the edits' rows

    @property
    def known_empty(self) -> bool:
        return self._known_empty

    def session_started(self, cart_id: str, message: str | None, existing: str | None) -> None:
        """The server's ordering session answered `cart_id`: another cart than `existing` is a
        new order (NEW_ORDER, persisted with its id); a brand-new one is known empty."""
        self.session_message = message
        if cart_id == existing:
            return
        self.cart_id = cart_id
        self._handoff.forget()
        self.lifecycle.fire(Event.NEW_ORDER)
        self.publish(None)
        self._known_empty = existing is None

    def time_chosen(self, slot: tuple[str, str] | None) -> None:
        """The order's time, kept for a restart (TIME_CHOSEN; None: as soon as possible)."""
        if self.lifecycle.phase is Phase.ORDERING:
            self.lifecycle.fire(Event.TIME_CHOSEN, order_time=slot)

    def record_way(self, way: WayToOrder) -> None:
        """The way to order the server took, kept for a restart (WAY_CHOSEN)."""
        if self.lifecycle.phase is Phase.ORDERING and self.lifecycle.snapshot.way != way:
            self.lifecycle.fire(Event.WAY_CHOSEN, way=way)

    def checkout_refused(self) -> None:
        """The checkout did not hand off: back to ordering, unless what happened meanwhile ended
        the order (the cart expired, or was paid on an earlier code) or moved it on."""
        if self.lifecycle.phase is Phase.CHECKING_OUT:
            self.lifecycle.fire(Event.REFUSED)

    # ------------------------------------------------------------------ the order's record

    @property
    def order(self) -> OrderSnapshot:
        """The order's record (phase, number, hand-off, the way to order); changed only by the
        lifecycle's rows, through this store."""
        return self.lifecycle.snapshot

    @property
    def phase(self) -> Phase:
        return self.lifecycle.phase

    def back_to_order(self) -> None:
        """The customer went back from paying to the order (BACK)."""
        self.lifecycle.fire(Event.BACK)

    def want_new_code(self) -> None:
        """Pay again with a new code (RETRY): after a decline, or while waiting."""
        if self.lifecycle.phase in (Phase.DECLINED, Phase.AWAITING_PAYMENT):
            self.lifecycle.fire(Event.RETRY)

    def choose_counter(self, at_counter: bool) -> None:
        """Pay at the counter (or back to the QR code): the same hand-off (COUNTER)."""
        if self.lifecycle.snapshot.at_counter != at_counter:
            self.lifecycle.fire(Event.COUNTER, at_counter=at_counter)

    def let_go(self) -> None:
        """A restart whose server could not be asked: this run lets the cart go, its resume
        file kept for the next start to try again (no row: the record stays as it was)."""
        self.cart_id = None

    def restore(self, cart_id: str, order: OrderSnapshot) -> None:
        """A restart: the cart and the order's record as the resume file kept them (RESTORED),
        before the server is asked where they stand."""
        self.cart_id = cart_id
        self.lifecycle.fire(Event.RESTORED, snapshot=order)

    resume = _edit(CartEdits.resume)

    def is_ours(self, location_key: str) -> bool:
        """Whether `location_key` (an id or a slug) names this store's location."""
        return location_key in self._location_keys

    def take_up(self, cart_id: str, cart: Cart | None = None) -> None:
        """A resume takes up `cart_id`: with the server's `cart`, kept in the resume file and
        published (before it, the cart is only being read)."""
        self.cart_id = cart_id
        if cart is not None:
            self._save_id()
            self.publish(cart)

    async def discard(self) -> bool:
        """End the session: delete the cart on the server (unless it became an order) and forget
        it. Best effort, never waits on a rate limit: True when the server confirmed the delete
        (or the cart was already gone or completed)."""

        async def body() -> bool:
            cart_id = self.cart_id
            if cart_id is None:
                self._forget()
                return True
            # A paid order stands; an expired cart is already ended by the server (a delete
            # would only be refused): neither is deleted, only forgotten.
            ended = self.lifecycle.phase in (Phase.PAID, Phase.EXPIRED)
            self.lifecycle.fire(Event.CANCELLED)
            done = True
            cart = self.cart
            if not (ended or (cart is not None and (cart.is_completed or cart.is_expired))):
                try:
                    await self.client.delete_cart(self.location_id, cart_id)
                except NotFoundError:
                    pass
                except StorefrontError:
                    log.info("could not delete the cart; forgetting it anyway", exc_info=True)
                    done = False
            self._forget()
            return done

        return await self._writer.run(body)

    # ------------------------------------------------------------------ reads

    async def refresh(self) -> Cart | None:
        """Read the cart once and publish it."""

        async def body() -> Cart | None:
            if self.cart_id is None:
                return None
            try:
                cart = await self._writer.get()
            except NotFoundError:
                self._forget()
                raise
            self.publish(cart)
            return cart

        return await self._writer.run(body)

    async def check_payment(self) -> OrderProgress | None:
        """One look at the payment (kiosk.ordering.handoff): what the server said moves the
        order's lifecycle (`heard`); None when there is no cart."""
        return await self._handoff.look()

    async def poll(self) -> Cart | None:
        """check_payment, for callers that want the cart (None when the server only answered
        the payment's state and the cart was not read)."""
        await self.check_payment()
        return self.cart

    def heard(self, progress: OrderProgress) -> None:
        """Move the lifecycle on what the payment poll said (see check_payment)."""
        life = self.lifecycle
        if progress.completed:
            if life.phase is Phase.PAID:  # the same "completed" again: the first number stands
                life.fire(Event.PAID)
            else:
                life.fire(Event.PAID, order_number=progress.order_number)
        elif progress.state == "expired":
            life.fire(Event.EXPIRED)
        elif progress.failed:
            # A decline is told once per attempt: after "pay again" the server may still say the
            # old attempt failed until the new one starts (failure_code is kept until then).
            if life.phase is Phase.AWAITING_PAYMENT and life.snapshot.failure_code is None:
                life.fire(Event.DECLINED, failure_code=progress.failure_code or "FAILED")
            else:
                log.info("payment poll: the last attempt failed (%s)", progress.failure_code)
        elif life.snapshot.failure_code is not None and life.phase is Phase.AWAITING_PAYMENT:
            life.fire(Event.NEW_ATTEMPT, failure_code=None)

    def payment_gone(self) -> None:
        self.lifecycle.fire(Event.EXPIRED)
        self._forget()

    def _expired(self) -> None:
        """The server says the cart has expired: EXPIRED (once), and nothing left to resume. The
        cart stays published as the server holds it: its lines can be ordered again."""
        if self.lifecycle.phase is not Phase.EXPIRED:
            self.lifecycle.fire(Event.EXPIRED)
        self._file.remove()

    # ------------------------------------------------------------------ the customer's edits

    # Each edit is CartEdits' own (its signature and words), done on this store's edits.
    start = _edit(CartEdits.start)
    set_delivery = _edit(CartEdits.set_delivery)
    set_table = _edit(CartEdits.set_table)
    set_room = _edit(CartEdits.set_room)
    add_item = _edit(CartEdits.add_item)
    set_quantity = _edit(CartEdits.set_quantity)
    remove_item = _edit(CartEdits.remove_item)
    apply_discount = _edit(CartEdits.apply_discount)
    remove_discount = _edit(CartEdits.remove_discount)
    set_tip = _edit(CartEdits.set_tip)
    set_no_tip = _edit(CartEdits.set_no_tip)
    set_order_time_asap = _edit(CartEdits.set_order_time_asap)
    set_order_time_later = _edit(CartEdits.set_order_time_later)
    set_customer = _edit(CartEdits.set_customer)
    validate = _edit(CartEdits.validate)

    # ------------------------------------------------------------------ the payment hand-off

    @property
    def payment(self) -> PaymentHandoff:
        """The payment hand-off and the looks at it (kiosk.ordering.handoff)."""
        return self._handoff

    @property
    def payment_intent(self) -> PaymentIntent | None:
        """The open hand-off (its clientSecret is for the processor only)."""
        return self._handoff.intent

    async def begin_payment(self) -> PaymentIntent:
        """Create the payment intent (row 24; kiosk.ordering.handoff)."""
        return await self._handoff.begin()

    def handed_off(self, intent: PaymentIntent) -> None:
        """The server gave a hand-off: the order awaits payment, with the URL the customer pays
        at and when it stops working (kept in the resume file: a restart shows the same code)."""
        life = self.lifecycle
        if life.phase is Phase.ORDERING:
            life.fire(Event.CHECKOUT)  # a cart locked before this run (v1's resume)
        elif life.phase is Phase.DECLINED and not self.client.intent_changes_cart:
            life.fire(Event.RETRY)
        expires = intent.expires_at.isoformat() if intent.expires_at is not None else None
        life.fire(
            Event.HANDED_OFF,
            checkout_url=intent.checkout_url or (self.cart.checkout_url if self.cart else None),
            handoff_expires_at=expires,
        )

    async def checkout(self, name: str, email: str) -> CheckoutResult:
        """The checkout screen's one step: customer details, validation and, when the cart is
        valid, the payment intent, with ONE read of the cart at the end (instead of one after the
        details and another after the intent: the details do not show in the cart). On a refused
        name or email nothing else is sent."""

        async def body() -> CheckoutResult:
            cart_id = self.editable_cart_id()
            life = self.lifecycle
            life.fire(Event.CHECKOUT)
            try:
                await self._writer.write(
                    lambda: self.client.update_customer(self.location_id, cart_id, name, email)
                )
                if name and life.phase is Phase.CHECKING_OUT:
                    life.fire(Event.NAMED, customer_name=name)
                validation = await self._writer.send(
                    lambda: self.client.validate_cart(self.location_id, cart_id)
                )
                intent = await self._handoff.create_intent(cart_id) if validation.valid else None
                await self._handoff.after_intent(intent)
            except StorefrontError as exc:
                self.checkout_refused()
                unavailable = await self._unavailable_after(exc)
                if not unavailable:
                    raise
                # Lines no longer available (2.0 refuses the hand-off, or the cart moved on
                # because they sold out): told as v1's validation tells them, line by line.
                return CheckoutResult(CartValidation(valid=False), None, unavailable)
            if intent is None:
                self.checkout_refused()
            else:
                self.handed_off(intent)
            return CheckoutResult(validation, intent, unavailable_lines(self.cart, validation))

        return await self._writer.run(body)

    async def _unavailable_after(self, exc: StorefrontError) -> tuple[str, ...]:
        """The lines a refused checkout concerns: those it names (the cart re-read first, so its
        lines show the server's own marking), or, when the cart moved on meanwhile (it was read
        again), those the cart now marks."""
        if exc.unavailable_items or exc.unavailable_products:
            await self._writer.reread_quietly()
        elif not exc.has_code("CART_CONFLICT"):
            return ()  # about something else (a field, the time): said as it is
        if self.lifecycle.phase is Phase.EXPIRED:
            return ()
        return unavailable_lines(self.cart, exc)


def store_at(
    client: StorefrontBase,
    location_id: str,
    location: Location | None,
    *,
    clock: Callable[[], float],
    cart_id_file: Path | None,
    options: Mapping[str, Any],
) -> CartStore:
    """A store for `location_id`: a cart naming the location's id or slug is its own, and time
    of day is read on the location's clock (when its record is known)."""
    aliases: list[str] = []
    if location is not None and location_id in (location.id, location.restaurant_slug):
        aliases = [a for a in (location.id, location.restaurant_slug) if a]
    return CartStore(
        client,
        location_id,
        clock=clock,
        cart_id_file=cart_id_file,
        location_aliases=aliases,
        local_clock=LocationClock(location, clock),
        **options,
    )
