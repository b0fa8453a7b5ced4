"""CartStore: the one source of truth for the customer's cart.

Every screen asks the store to change the cart and watches what it publishes; no widget keeps a
copy.
The rules it keeps (issue 4, 5 and 6):
- Mutations are serialised (one asyncio.Lock, FIFO, nothing dropped) and the cart is refreshed after
  each one from the server: the Cart the write returns, or one GET when it returns none (the legacy
  contract's order time, discount and customer details answer `{success:true}`; on 2.0 every write
  answers the cart). Nothing is re-read when the write already returned the cart.
- No double writes. After AmbiguousWriteError (the outcome is unknown) the cart is re-read and the
  write is sent again only if the re-read shows it did not land (an add compares the product's
  quantity before and after). "Set" writes (tip, order time, customer, delivery, table, room) leave
  the same state when repeated, so they are simply sent again.
- A rate limit (RateLimitedError: the request never reached the server) is waited out with a
  countdown on the status channel, then the same write is sent again: the order goes through after
  the reset and the customer sees a calm wait, never an error screen.
- Other errors propagate as the typed StorefrontError, after a re-read where the cart may have moved
  (409 conflict, 422); the last good cart is never dropped by an error.
- Crash resume: the open cart's id (and location) is kept in `cart_id_file` (written atomically),
  and the file is removed when the cart completes, expires or is discarded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import SecretStr

from kiosk.api.errors import (
    AmbiguousWriteError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
    StorefrontError,
    UnprocessableError,
)
from kiosk.api.models import (
    Cart,
    CartValidation,
    DeliveryAddress,
    FulfillmentMethod,
    OrderProgress,
    PaymentIntent,
    unavailable_lines,
)
from kiosk.i18n import N_, _
from kiosk.ordering.cart_changes import cart_changes
from kiosk.ordering.clock import LocationClock
from kiosk.ordering.lifecycle import TERMINAL, Event, Lifecycle, OrderSnapshot, Phase, WayToOrder
from kiosk.ordering.modifiers import SelectionState
from kiosk.paths import atomic_write

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase

__all__ = [
    "CartExpiredError",
    "CartStore",
    "CheckoutResult",
    "NoCartError",
    "SavedCart",
    "StoreStatus",
    "WayGoneError",
    "load_saved_cart",
]

log = logging.getLogger("kiosk.ordering")

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
CartListener = Callable[[Cart | None], None]
StatusListener = Callable[["StoreStatus"], None]


class NoCartError(StorefrontError):
    """A cart operation was asked for before an ordering session started (or after it ended)."""

    default_message = "Your order has not been started. Please start a new order."


class WayGoneError(StorefrontError):
    """A resumed order's way to order is refused by the server (the location no longer offers
    it): the cart and its lines are kept, and the customer chooses another way."""

    show_server_message = True
    default_message = "That way to order is no longer offered here. Please choose another."


class CartExpiredError(ConflictError):
    """The server says the order's cart has expired (its status, or a write refused for it):
    nothing more can be written to it; the order can be started again with its lines
    (Visit.start_again)."""

    # In the customer's language where it is shown (kiosk.tui.errors.describe).
    default_message = N_("This order has expired.")
    CODE = "CART_EXPIRED"
    cart_expired = True

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        kwargs["code"] = self.CODE
        super().__init__(message, **kwargs)


@dataclass(frozen=True, slots=True)
class StoreStatus:
    """What the store is doing, for a calm line on screen.

    kind "idle" (nothing pending), "busy" (a request is on its way), "waiting" (the rate limit: the
    write goes out by itself after `seconds_left`), "error" (the last operation failed: `message` is
    the error's customer-safe text).
    """

    kind: Literal["idle", "busy", "waiting", "error"] = "idle"
    message: str = ""
    seconds_left: int | None = None

    def __str__(self) -> str:
        if self.kind == "waiting":
            return f"waiting for rate limit: {self.seconds_left or 0} s"
        if self.kind == "error":
            return f"error: {self.message}"
        return "busy" if self.kind == "busy" else ""


IDLE = StoreStatus()
BUSY = StoreStatus("busy")


@dataclass(frozen=True, slots=True)
class CheckoutResult:
    """What `checkout()` did: the validation, and the payment intent when the cart was valid."""

    validation: CartValidation
    intent: PaymentIntent | None
    # The cart's lines that can no longer be ordered (models.unavailable_lines), on both
    # dialects: the checkout screen marks them, with a way to remove them.
    unavailable: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SavedCart:
    cart_id: str
    location_id: str
    # What reaches the cart besides its id (Storefront 2.0: the cart token); kept out of reprs.
    access: str | None = field(default=None, repr=False)
    # Where the order stood (kiosk.ordering.lifecycle): a restart resumes into the same phase.
    order: OrderSnapshot = field(default_factory=OrderSnapshot)


def load_saved_cart(path: Path | None) -> SavedCart | None:
    """The cart id a previous run left in `path` (None when there is none or it is unreadable)."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    cart_id, location_id = data.get("cartId"), data.get("locationId")
    access = data.get("cartToken")
    if isinstance(cart_id, str) and cart_id and isinstance(location_id, str):
        return SavedCart(
            cart_id,
            location_id,
            access if isinstance(access, str) else None,
            OrderSnapshot.from_json(data.get("order")),
        )
    return None


def _way_details(
    table_number: str | None, delivery: DeliveryAddress | None, room: tuple[str, str] | None
) -> tuple[str | None, str | None, str | None, dict[str, Any] | None]:
    """WayToOrder's fields after its method, from start()'s details."""
    last_name, room_number = room if room is not None else (None, None)
    address = delivery.model_dump(mode="json") if delivery is not None else None
    return table_number, last_name, room_number, address


def _product_quantity(cart: Cart | None, product_id: str) -> int:
    if cart is None:
        return 0
    return sum(item.quantity for item in cart.items if item.product_id == product_id)


class _Landed:
    """Returned by _write when the re-read after an ambiguous failure showed the write landed."""


_LANDED = _Landed()


@dataclass(frozen=True)
class _Unconfirmed:
    """A write whose outcome neither its answer nor a re-read could tell. If the customer repeats
    the same write, the store first checks whether the first one landed, so nothing doubles."""

    key: Hashable
    landed: Callable[[Cart], bool]


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
        self._clock = clock
        self._sleep = sleep
        # Time of day is the location's (ASAP's date and time), never the machine's.
        self.local_clock = local_clock or LocationClock(None, clock)
        self.cart_id_file = cart_id_file
        # The location's id and slug are interchangeable (S): a cart naming either is ours.
        self._location_keys = {location_id, *location_aliases}
        self.max_rate_waits = max_rate_waits
        self.max_ambiguous_retries = max_ambiguous_retries
        # A write whose answer is late or lost is settled by reading the cart: up to
        # `settle_reads` reads, `settle_pause` seconds apart (counted down on the status line),
        # while the server says the write is still running or the read itself fails.
        self.settle_reads = settle_reads
        self.settle_pause = settle_pause

        self.cart: Cart | None = None
        self.cart_id: str | None = None
        # What the ordering session said besides the cart id (e.g. "ordering for later only").
        self.session_message: str | None = None
        self.payment_intent: PaymentIntent | None = None
        self.status: StoreStatus = IDLE
        self.last_error: StorefrontError | None = None

        self._lock = asyncio.Lock()
        self._pending = 0
        # True right after a new session: the server's cart is known to be empty without a GET.
        self._known_empty = False
        # Whether the last payment poll read the cart itself (not only the payment's state).
        self._poll_read_cart = False
        # True when a write may have changed the cart without our seeing it (cancelled mid-write).
        self._stale = False
        self._unconfirmed: _Unconfirmed | None = None
        self._cart_listeners: list[CartListener] = []
        self._status_listeners: list[StatusListener] = []
        # The order's phase (kiosk.ordering.lifecycle), persisted with the cart id on every move.
        self.lifecycle = Lifecycle(persist=lambda _snapshot: self._save_id())

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
        return self._clock

    @property
    def sleep(self) -> Sleep:
        return self._sleep

    # ------------------------------------------------------------------ subscriptions

    def subscribe(self, callback: CartListener) -> Callable[[], None]:
        """Call `callback(cart)` with every cart the store publishes. Returns an unsubscribe."""
        self._cart_listeners.append(callback)
        return lambda: self._remove(self._cart_listeners, callback)

    def subscribe_order(self, callback: Callable[[OrderSnapshot], None]) -> Callable[[], None]:
        """Call `callback(record)` after every row of the order's lifecycle."""
        return self.lifecycle.subscribe(callback)

    def subscribe_status(self, callback: StatusListener) -> Callable[[], None]:
        """Call `callback(status)` on every status change. Returns an unsubscribe."""
        self._status_listeners.append(callback)
        return lambda: self._remove(self._status_listeners, callback)

    @staticmethod
    def _remove(listeners: list[Any], callback: Any) -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(callback)

    def _publish(self, cart: Cart | None) -> None:
        if cart is not None and cart.id and cart.id != self.cart_id:
            # The server answered with another cart id (a resumed or replaced cart): follow it.
            self.cart_id = cart.id
            self._save_id()
        self.cart = cart
        self._known_empty = False
        self._stale = False
        if cart is not None and cart.is_expired:
            # Nothing will be paid: a restart has nothing to come back to. (A completed cart's
            # file stays until the visit ends: the order's number is shown again after a crash.)
            self._expired()
        for callback in list(self._cart_listeners):
            try:
                callback(cart)
            except Exception:  # a listener's bug must not break the order
                log.exception("cart listener failed")

    def _set_status(self, status: StoreStatus) -> None:
        if status == self.status:
            return
        self.status = status
        for callback in list(self._status_listeners):
            try:
                callback(status)
            except Exception:
                log.exception("status listener failed")

    # ------------------------------------------------------------------ the cart id file

    def _save_id(self) -> None:
        if self.cart_id_file is None or self.cart_id is None:
            return
        data: dict[str, Any] = {"cartId": self.cart_id, "locationId": self.location_id}
        data["order"] = self.lifecycle.snapshot.to_json()
        access = self.client.cart_access(self.cart_id)
        if access is not None:
            # The file is the owner's only (0600): the token is what reaches the cart on 2.0.
            data["cartToken"] = access.get_secret_value()
        try:
            atomic_write(self.cart_id_file, json.dumps(data))
        except OSError:
            log.warning("could not keep the cart id for crash resume", exc_info=True)

    def _forget_file(self) -> None:
        if self.cart_id_file is None:
            return
        try:
            self.cart_id_file.unlink(missing_ok=True)
        except OSError:
            log.warning("could not remove the crash-resume file", exc_info=True)

    def _forget(self) -> None:
        self._forget_file()
        self.cart_id = None
        self.payment_intent = None
        self.session_message = None
        # The order is over (told to listeners first: PAID, EXPIRED, CANCELLED); what follows
        # is a new visit's, with nothing in the resume file. An order forgotten mid-payment is
        # one whose cart the server no longer has: it expired.
        if self.lifecycle.phase not in TERMINAL and self.lifecycle.phase is not Phase.ORDERING:
            self.lifecycle.fire(Event.EXPIRED)
        self.lifecycle.fire(Event.NEW_ORDER)
        self._known_empty = False
        self._stale = False
        self._publish(None)

    # ------------------------------------------------------------------ the engine

    async def _operation(self, body: Callable[[], Awaitable[T]]) -> T:
        """Run one operation under the lock, with the status channel kept up to date."""
        self._pending += 1
        self._set_status(BUSY)
        try:
            async with self._lock:
                result = await body()
        except StorefrontError as exc:
            self.last_error = exc
            self._pending -= 1
            self._set_status(StoreStatus("error", exc.message))
            raise
        except BaseException:
            self._pending -= 1
            if self._pending == 0:
                self._set_status(IDLE)
            raise
        self._pending -= 1
        self.last_error = None
        if self._pending == 0:
            self._set_status(IDLE)
        return result

    def _need_cart(self) -> str:
        if self.cart_id is None:
            raise NoCartError()
        return self.cart_id

    def _need_editable(self) -> str:
        cart_id = self._need_cart()
        if self.lifecycle.phase is Phase.EXPIRED:
            # The server said so already: one more request would only be refused again.
            raise CartExpiredError()
        if self.cart is not None and self.cart.is_locked:
            # Refused here: the server would say the same (409 CART_LOCKED) for one more request.
            raise ConflictError(
                _("Your order is being paid for and can't be changed now."), code="CART_LOCKED"
            )
        return cart_id

    async def _wait_out(self, seconds: float | None, *, checking: bool = False) -> None:
        """Wait out a rate limit (or, `checking`, the pause between two reads that settle a write
        in doubt), publishing a whole-second countdown that says why. Uses the injected clock and
        sleep; also counts what it slept, so a sleep that does not move the clock still ends."""
        if seconds is None:
            seconds = self.client.rate_budget.seconds_until_reset() or 5.0
        seconds = max(1.0, float(seconds))
        why = (
            _("Checking your order with the restaurant: {seconds} s")
            if checking
            else _("Very busy: sending in {seconds} s")
        )
        deadline = self._clock() + seconds
        slept = 0.0
        try:
            while slept < seconds:
                left = min(deadline - self._clock(), seconds - slept)
                if left <= 0:
                    break
                shown = math.ceil(left)
                said = why.format(seconds=shown)
                self._set_status(StoreStatus("waiting", message=said, seconds_left=shown))
                step = min(1.0, left)
                await self._sleep(step)
                slept += step
        finally:
            self._set_status(BUSY)

    async def _respect_budget(self) -> None:
        # The last response said nothing is left until the reset: wait rather than spend a 429.
        budget = self.client.rate_budget
        if budget.remaining == 0:
            left = budget.seconds_until_reset()
            if left:
                await self._wait_out(left)

    async def _send(self, call: Callable[[], Awaitable[T]]) -> T:
        """One request that changes nothing on the server if repeated: rate limits waited out."""
        waits = 0
        while True:
            await self._respect_budget()
            try:
                return await call()
            except RateLimitedError as exc:
                waits += 1
                if waits > self.max_rate_waits:
                    raise
                await self._wait_out(exc.retry_after)

    async def _get(self) -> Cart:
        cart_id = self._need_cart()
        return await self._send(lambda: self.client.get_cart(self.location_id, cart_id))

    async def _write(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        landed: Callable[[Cart], bool] | None = None,
        key: Hashable | None = None,
    ) -> T | _Landed:
        """Send one write: rate limits waited out; an unknown outcome resolved by a re-read.

        `landed(cart)` tells from a re-read cart whether the write happened. Without it the write
        is a "set" that may simply be repeated. Returns the call's result, or _LANDED when the
        re-read showed the write had landed (that cart is already published). `key` names a
        write that must not be repeated blindly (an add): see _Unconfirmed.
        """
        pending, self._unconfirmed = self._unconfirmed, None
        if pending is not None and key is not None and pending.key == key:
            current = self.cart
            if self._stale or current is None:
                current = await self._get()
                self._publish(current)
            if pending.landed(current):
                log.info("a repeated write found its unconfirmed twin landed; not sent again")
                return _LANDED
        # A write of ours still in doubt (its answer was lost): if the server's cart moved
        # because it landed, that is our own change, not one made elsewhere.
        doubt = pending
        unknown = 0
        while True:
            try:
                return await self._send(call)
            except AmbiguousWriteError as exc:
                unknown += 1
                # The server said this very write is still running (its answer is late).
                late = exc.has_code("IDEMPOTENCY_IN_PROGRESS")
                if unknown > self.max_ambiguous_retries:
                    # Whether the customer now sees the server's cart (the screen says so only
                    # when it is true).
                    exc.details["reloaded"] = await self._reread_quietly()
                    raise
                if landed is None:
                    if late:
                        # Let the first send finish before the same "set" goes again: sent
                        # meanwhile, ours would name a revision the first one is about to move.
                        await self._wait_out(self.settle_pause, checking=True)
                        await self._reread_quietly()
                    log.info("write outcome unknown; repeating a set-style write")
                    continue
                if await self._settle(landed, key, late=late):
                    return _LANDED
                log.info("write outcome unknown; the re-read cart shows it did not land: resend")
            except (ConflictError, UnprocessableError) as exc:
                # The cart may have moved under us (locked, closed, changed elsewhere): show the
                # truth, then fail, saying what is different; nothing is re-applied by itself.
                before = self.cart
                if isinstance(exc, ConflictError) and exc.cart is not None:
                    self._publish(exc.cart)  # the client read it already (2.0 CART_CONFLICT)
                else:
                    await self._reread_quietly()
                if exc.cart_expired or (self.cart is not None and self.cart.is_expired):
                    # Refused because the cart has expired (said by the refusal, or by the
                    # cart read after it): the order ends there, said as that, not as a change.
                    self._expired()
                    if self.lifecycle.phase is Phase.EXPIRED:
                        raise CartExpiredError() from exc
                if (
                    exc.has_code("CART_CONFLICT")
                    and doubt is not None
                    and self.cart is not None
                    and doubt.landed(self.cart)
                ):
                    # What moved the cart was our own write in doubt, landing late: nothing was
                    # changed elsewhere, and this write (refused, so not made) goes again once.
                    log.info("the cart moved by our own late write; sending this one again")
                    doubt = None
                    continue
                if exc.has_code("CART_CONFLICT"):
                    raise _conflict_said(exc, before, self.cart) from exc
                raise
            except asyncio.CancelledError:
                self._stale = True
                raise

    async def _reread_quietly(self) -> bool:
        """Read the cart after an error, never raising; True when the cart shown is the server's
        as it now is (read, or known gone)."""
        if self.cart_id is None:
            return True
        try:
            cart = await self.client.get_cart(self.location_id, self.cart_id)
        except NotFoundError:
            log.info("the cart is gone on the server; forgetting it")
            self._forget()
        except StorefrontError:
            log.info("could not re-read the cart after an error", exc_info=True)
            return False
        else:
            self._publish(cart)
        return True

    async def _settle(
        self, landed: Callable[[Cart], bool], key: Hashable | None, *, late: bool
    ) -> bool:
        """The order is IN_DOUBT while a write is settled (kiosk.ordering.lifecycle, persisted:
        a restart in the middle settles by reading the server); SETTLED after, whatever the
        reads said (a write still unconfirmed is remembered by the store, not by the phase)."""
        life = self.lifecycle
        life.fire(Event.WRITE_LOST)
        try:
            return await self._settle_by_reading(landed, key, late=late)
        finally:
            if life.phase is Phase.IN_DOUBT:  # unless the reads found the order paid or gone
                life.fire(Event.SETTLED)

    async def _settle_by_reading(
        self, landed: Callable[[Cart], bool], key: Hashable | None, *, late: bool
    ) -> bool:
        """Settle a write whose answer was lost or late by reading the cart: True when the cart
        shows it landed (that cart published), False when it certainly did not (the answer was
        lost and the cart, read, does not have it: the caller sends it again). While the server
        says the write is still running, or the read itself fails, the cart is read again after a
        pause counted down on the status line, up to `settle_reads` reads; past them the write is
        in doubt: AmbiguousWriteError, the cart as last read kept on screen, and the write
        remembered, so that repeating it checks first and its late landing is never taken for a
        change made elsewhere."""
        failure: StorefrontError | None = None
        reads = 0
        while True:
            reads += 1
            try:
                after = await self._get()
            except NotFoundError:
                raise
            except StorefrontError as exc:
                failure = exc
            else:
                failure = None
                self._publish(after)
                if landed(after):
                    log.info("write outcome unknown; the re-read cart shows it landed")
                    return True
                if not late:
                    return False
            if reads >= self.settle_reads:
                break
            await self._wait_out(self.settle_pause, checking=True)
        # Neither the write nor the check can be confirmed: say so, keep the cart, and remember
        # the write so that repeating it checks before sending.
        self._stale = failure is not None
        if key is not None:
            self._unconfirmed = _Unconfirmed(key, landed)
        unsure = AmbiguousWriteError(cause=failure)
        unsure.details["reloaded"] = failure is None
        if failure is not None:
            raise unsure from failure
        raise unsure

    async def _baseline(self) -> Cart | None:
        """The cart as it is now, for an add's before/after comparison (a GET only when unknown)."""
        if self._known_empty:
            return None
        if self.cart is None or self._stale:
            cart = await self._get()
            self._publish(cart)
        return self.cart

    async def _finish(self, result: Cart | _Landed | None) -> Cart | None:
        """Publish a write's cart, or read it once when the write returned none."""
        if isinstance(result, _Landed):
            return self.cart
        if result is None:
            result = await self._get()
        self._publish(result)
        return result

    # ------------------------------------------------------------------ session

    async def start(
        self,
        fulfillment_method: FulfillmentMethod | str,
        *,
        table_number: str | None = None,
        delivery: DeliveryAddress | None = None,
        room: tuple[str, str] | None = None,
    ) -> Cart | None:
        """Start an ordering session (row 8), then send the fulfillment's details (set-table,
        set-delivery or set-room). With a cart already open, the session switches that cart's
        fulfillment method and keeps its lines. Returns the cart when a detail write returned
        one; a fresh pickup or dine-in cart is known to be empty and is not read back."""
        method = str(fulfillment_method)

        async def body() -> Cart | None:
            existing = self.cart_id
            session = await self._write(
                lambda: self.client.start_ordering_session(
                    self.location_id, method, existing_cart_id=existing
                )
            )
            assert not isinstance(session, _Landed)
            if not session.cart_id:
                raise UnprocessableError(server_message=session.error_message)
            self.session_message = session.error_message
            if session.cart_id != existing:
                self.cart_id = session.cart_id
                self.payment_intent = None
                # A new cart is a new order (this persists it with the cart's id).
                self.lifecycle.fire(Event.NEW_ORDER)
                self._publish(None)
                # A brand-new session's cart is empty: no need to read it back.
                self._known_empty = existing is None
            cart = await self._set_details(table_number, delivery, room)
            self._record_way(WayToOrder(method, *_way_details(table_number, delivery, room)))
            return cart

        return await self._operation(body)

    async def _set_details(
        self,
        table_number: str | None,
        delivery: DeliveryAddress | None,
        room: tuple[str, str] | None,
    ) -> Cart | None:
        cart_id = self._need_cart()
        loc = self.location_id
        call: Callable[[], Awaitable[Cart]] | None = None
        if delivery is not None:
            call = lambda: self.client.set_delivery(loc, cart_id, delivery)  # noqa: E731
        elif table_number is not None:
            call = lambda: self.client.set_table(loc, cart_id, table_number)  # noqa: E731
        elif room is not None:
            last_name, room_number = room
            call = lambda: self.client.set_room(loc, cart_id, last_name, room_number)  # noqa: E731
        if call is None:
            # No details to send: a new cart is known empty; a switched one is read once (its
            # fees may have changed with the method).
            return None if self._known_empty else await self._finish(None)
        return await self._finish(await self._write(call))

    async def set_delivery(self, address: DeliveryAddress) -> Cart | None:
        return await self._details(None, address, None)

    async def set_table(self, table_number: str) -> Cart | None:
        return await self._details(table_number, None, None)

    async def set_room(self, last_name: str, room_number: str) -> Cart | None:
        return await self._details(None, None, (last_name, room_number))

    async def _details(
        self,
        table_number: str | None,
        delivery: DeliveryAddress | None,
        room: tuple[str, str] | None,
    ) -> Cart | None:
        async def body() -> Cart | None:
            cart = await self._set_details(table_number, delivery, room)
            way = self.lifecycle.snapshot.way
            method = way.method if way is not None else None
            if method is None and self.cart is not None and self.cart.fulfilment_method:
                method = str(self.cart.fulfilment_method)
            if method is not None:
                self._record_way(WayToOrder(method, *_way_details(table_number, delivery, room)))
            return cart

        return await self._operation(body)

    def _record_way(self, way: WayToOrder) -> None:
        """The way to order the server took, kept for a restart (WAY_CHOSEN)."""
        if self.lifecycle.phase is Phase.ORDERING and self.lifecycle.snapshot.way != way:
            self.lifecycle.fire(Event.WAY_CHOSEN, way=way)

    def _refused(self) -> None:
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

    def restore(self, cart_id: str, order: OrderSnapshot) -> None:
        """A restart: the cart and the order's record as the resume file kept them (RESTORED),
        before the server is asked where they stand."""
        self.cart_id = cart_id
        self.lifecycle.fire(Event.RESTORED, snapshot=order)

    async def resume(self, cart_id: str, location_id: str | None = None) -> Cart | None:
        """Resume a cart after a crash (row 9 with `currentCartId`). The cart is read first: when it
        is gone, COMPLETED, EXPIRED or another location's, it is forgotten and None returned. A
        LOCKED cart (the crash came mid-payment) is returned as it is, for the payment screen."""

        async def body() -> Cart | None:
            if location_id is not None and location_id not in self._location_keys:
                self._forget()
                return None
            self.cart_id = cart_id
            try:
                cart = await self._get()
            except (NotFoundError, ConflictError, UnprocessableError):
                self._forget()
                return None
            except StorefrontError as exc:
                if exc.status == 400:  # the server says the id is not a cart id at all
                    self._forget()
                    return None
                # The network, the server or our key failed: the cart may well be fine. Keep the
                # file so that the next start can try again.
                self.cart_id = None
                raise
            foreign = bool(cart.location_id) and cart.location_id not in self._location_keys
            if foreign or cart.is_completed or cart.is_expired or not cart.id:
                self._forget()
                return None
            if not cart.is_locked:
                # The order's own way to order, never a default: the server's cart says which
                # (2.0), else the record this terminal kept (a dialect whose cart is silent).
                way = self.lifecycle.snapshot.way
                method = cart.fulfilment_method or (way.method if way is not None else None)
                try:
                    resumed = await self._write(
                        lambda: self.client.resume_cart(self.location_id, cart_id, method)
                    )
                except (InvalidRequestError, UnprocessableError, ConflictError) as exc:
                    if isinstance(exc, ConflictError) and exc.code == "CART_CONFLICT":
                        raise
                    # The order stays as the server holds it, lines and all; only its way
                    # must be chosen again.
                    self.cart_id = cart_id
                    self._save_id()
                    self._publish(cart)
                    raise WayGoneError(server_message=exc.server_message) from exc
                if resumed != cart_id:
                    # The server would not resume it and made a new cart: drop that one too.
                    with contextlib.suppress(StorefrontError):
                        await self.client.delete_cart(self.location_id, str(resumed))
                    self._forget()
                    return None
            self.cart_id = cart_id
            self._save_id()
            self._publish(cart)
            return cart

        return await self._operation(body)

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

        return await self._operation(body)

    # ------------------------------------------------------------------ reads

    async def refresh(self) -> Cart | None:
        """Read the cart once and publish it."""

        async def body() -> Cart | None:
            if self.cart_id is None:
                return None
            try:
                cart = await self._get()
            except NotFoundError:
                self._forget()
                raise
            self._publish(cart)
            return cart

        return await self._operation(body)

    async def check_payment(self) -> OrderProgress | None:
        """One look at the payment: 2.0's order-result, or (v1, which has no payment poll) the
        cart itself. What the server said moves the order's lifecycle, persisted before anyone
        hears of it: completed -> PAID with the server's number, failed -> DECLINED with its
        code, gone or expired -> EXPIRED. A completed order's cart is read once more, for the
        receipt, unless the order is the cart held (OrderProgress.agrees_with). Returns what the
        server said, None when there is no cart."""
        cart_id = self.cart_id
        if cart_id is None:
            return None

        async def ask() -> OrderProgress | None:
            try:
                return await self.client.order_progress(self.location_id, cart_id)
            except NotFoundError:
                self._gone()
                raise

        progress = await self._operation(ask)
        self._poll_read_cart = progress is None
        if progress is None:
            try:
                cart = await self.refresh()
            except NotFoundError:
                self._gone()
                raise
            progress = _progress_of(cart)
        self._heard(progress)
        if progress.completed and not self._poll_read_cart and not progress.agrees_with(self.cart):
            # The receipt's lines and totals, read when the order is not the cart held (a tip
            # added on the payment page, a line dropped); the order is placed whether or not this
            # read works.
            with contextlib.suppress(StorefrontError):
                await self.refresh()
                self._poll_read_cart = True
        return progress

    def _heard(self, progress: OrderProgress) -> None:
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

    def _gone(self) -> None:
        self.lifecycle.fire(Event.EXPIRED)
        self._forget()

    def _expired(self) -> None:
        """The server says the cart has expired: EXPIRED (once), and nothing left to resume. The
        cart stays published as the server holds it: its lines can be ordered again."""
        if self.lifecycle.phase is not Phase.EXPIRED:
            self.lifecycle.fire(Event.EXPIRED)
        self._forget_file()

    async def poll(self) -> Cart | None:
        """check_payment, for callers that want the cart (None when the server only answered
        the payment's state and the cart was not read)."""
        await self.check_payment()
        return self.cart

    async def last_look(self) -> Cart | None:
        """Before leaving the payment: a payment that landed wins (the payment poll), else the
        server's cart as it is now, locked or not (read when the poll did not read it)."""
        progress = await self.check_payment()
        if (progress is not None and progress.completed) or self._poll_read_cart:
            return self.cart
        return await self.refresh()

    # ------------------------------------------------------------------ lines

    async def add_item(
        self,
        product_id: str,
        quantity: int,
        selections: SelectionState | Sequence[Mapping[str, Any]] | None = None,
        special_instructions: str | None = None,
    ) -> Cart | None:
        """Add a line (row 12). `selections` is a SelectionState or its to_request() list."""
        modifiers: list[Mapping[str, Any]] | None
        if isinstance(selections, SelectionState):
            modifiers = list(selections.to_request())
        else:
            modifiers = list(selections) if selections is not None else None

        async def body() -> Cart | None:
            cart_id = self._need_editable()
            before = _product_quantity(await self._baseline(), product_id)
            result = await self._write(
                lambda: self.client.add_item(
                    self.location_id,
                    cart_id,
                    product_id,
                    quantity,
                    modifiers or None,
                    special_instructions,
                ),
                landed=lambda after: _product_quantity(after, product_id) >= before + quantity,
                key=(
                    "add",
                    product_id,
                    quantity,
                    json.dumps(modifiers, sort_keys=True, default=str),
                    special_instructions,
                ),
            )
            return await self._finish(result)

        return await self._operation(body)

    async def set_quantity(self, item_id: str, quantity: int) -> Cart | None:
        """Change a line's quantity (row 13); 0 removes the line."""

        def landed(after: Cart) -> bool:
            line = next((i for i in after.items if i.id == item_id), None)
            return line is None if quantity == 0 else line is not None and line.quantity == quantity

        async def body() -> Cart | None:
            cart_id = self._need_editable()
            result = await self._write(
                lambda: self.client.set_item_quantity(self.location_id, cart_id, item_id, quantity),
                landed=landed,
            )
            return await self._finish(result)

        return await self._operation(body)

    async def remove_item(self, item_id: str) -> Cart | None:
        return await self.set_quantity(item_id, 0)

    # ------------------------------------------------------------------ discount, tip, time

    async def apply_discount(self, code: str) -> Cart | None:
        """Apply a code (row 20); the cart is the write's answer (2.0), else read once (legacy). A
        refused code raises InvalidRequestError with the server's reason and leaves the cart as it
        was."""
        code = code.strip()

        def landed(after: Cart) -> bool:
            return (after.discount_code or "").strip().upper() == code.upper()

        async def body() -> Cart | None:
            cart_id = self._need_editable()
            result = await self._write(
                lambda: self.client.apply_discount(self.location_id, cart_id, code), landed=landed
            )
            return await self._finish(result)

        return await self._operation(body)

    async def remove_discount(self) -> Cart | None:
        async def body() -> Cart | None:
            cart_id = self._need_editable()
            result = await self._write(
                lambda: self.client.remove_discount(self.location_id, cart_id),
                landed=lambda after: not after.discount_code,
            )
            return await self._finish(result)

        return await self._operation(body)

    async def set_tip(
        self, percentage: str | int | None = None, amount_minor: int | None = None
    ) -> Cart | None:
        """A tip as a percentage ("18") or a fixed amount in minor units (row 16)."""
        pct = None if percentage is None else str(percentage)

        async def body() -> Cart | None:
            cart_id = self._need_editable()
            result = await self._write(
                lambda: self.client.set_tip(
                    self.location_id, cart_id, percentage=pct, amount_minor=amount_minor
                )
            )
            return await self._finish(result)

        return await self._operation(body)

    async def set_no_tip(self) -> Cart | None:
        # A zero percentage, not a zero amount: some locations take percentages only.
        return await self.set_tip(percentage="0")

    async def set_order_time_asap(
        self, order_date: str | None = None, order_time: str | None = None
    ) -> Cart | None:
        """ASAP (row 14). The row wants a date and time too: given, else the cart's own, else now
        at the location (its timezone, not the machine's)."""
        return await self._order_time("ASAP", order_date, order_time)

    async def set_order_time_later(self, order_date: str, order_time: str) -> Cart | None:
        """A later slot (row 14): `order_date` YYYY-MM-DD and `order_time` HH:MM, location-local,
        as the server's time-intervals list them."""
        return await self._order_time("LATER", order_date, order_time)

    async def _order_time(
        self, pickup_type: str, order_date: str | None, order_time: str | None
    ) -> Cart | None:
        async def body() -> Cart | None:
            cart_id = self._need_editable()
            today, now = self.local_clock.date_and_time()
            day = order_date or (self.cart.order_date if self.cart else None) or today
            at = order_time or (self.cart.order_time if self.cart else None) or now
            result = await self._write(
                lambda: self.client.set_order_time(self.location_id, cart_id, pickup_type, day, at)
            )
            cart = await self._finish(result)
            if self.lifecycle.phase is Phase.ORDERING:
                slot = (day, at) if pickup_type == "LATER" else None
                self.lifecycle.fire(Event.TIME_CHOSEN, order_time=slot)
            return cart

        return await self._operation(body)

    # ------------------------------------------------------------------ checkout

    async def set_customer(self, name: str, email: str) -> Cart | None:
        """Customer details (row 15); the cart is the write's answer (2.0), else read once
        (legacy). A 400 names the field."""

        async def body() -> Cart | None:
            cart_id = self._need_editable()
            result = await self._write(
                lambda: self.client.update_customer(self.location_id, cart_id, name, email)
            )
            return await self._finish(result)

        return await self._operation(body)

    async def validate(self) -> CartValidation:
        """Ask the server whether the cart can be paid for (row 22). Changes nothing."""

        async def body() -> CartValidation:
            cart_id = self._need_cart()
            return await self._send(lambda: self.client.validate_cart(self.location_id, cart_id))

        return await self._operation(body)

    async def begin_payment(self) -> PaymentIntent:
        """Create the payment intent (row 24; the cart turns LOCKED), then read the cart once to
        learn its checkoutUrl. The intent's clientSecret is for the processor only."""

        async def body() -> PaymentIntent:
            cart_id = self._need_cart()
            intent = self.payment_intent
            if intent is not None and self.cart is not None:
                left = self.handoff_seconds_left()
                if self.cart.is_locked or (
                    not self.client.intent_changes_cart and (left is None or left > 0)
                ):
                    # Locked by our own intent (a retry after a decline), or the hand-off the
                    # checkout just opened and still open: reuse it.
                    return intent
            intent = await self._create_intent(cart_id)
            await self._after_intent(intent)
            self._handed_off(intent)
            return intent

        return await self._operation(body)

    def _handed_off(self, intent: PaymentIntent) -> None:
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

    def restore_handoff(self, snapshot: OrderSnapshot) -> None:
        """After a restart: the hand-off the customer was shown (2.0), from the resume file, so
        the payment screen shows the same code instead of asking for a new one."""
        if self.client.intent_changes_cart or not snapshot.checkout_url:
            return  # v1: the locked cart's own intent is asked for again (begin_payment)
        self.payment_intent = PaymentIntent(
            client_secret=SecretStr(""),
            checkout_url=snapshot.checkout_url,
            expires_at=snapshot.handoff_expires(),
        )
        self.client.restore_handoff(self.cart_id or "", snapshot.checkout_url)

    def handoff_seconds_left(self) -> float | None:
        """Seconds until the payment hand-off expires (2.0's expiresAt); None when it does not."""
        intent = self.payment_intent
        if intent is None or intent.expires_at is None:
            return None
        return intent.expires_at.timestamp() - self._clock()

    async def renew_handoff(self) -> PaymentIntent:
        """A fresh hand-off for the cart being paid, when the old one runs out: its checkout URL
        goes to the cart shown (the QR code), without reading the cart again."""

        async def body() -> PaymentIntent:
            cart_id = self._need_cart()
            try:
                intent = await self._create_intent(cart_id)
            except StorefrontError:
                # As a refused checkout: back to the order (a slot taken, a product sold out, a
                # way switched off since the first code are changes to the order), never left
                # midway with nothing to press.
                self._refused()
                raise
            if self.cart is not None and intent.checkout_url:
                self._publish(self.cart.model_copy(update={"checkout_url": intent.checkout_url}))
            self._handed_off(intent)
            return intent

        return await self._operation(body)

    async def _after_intent(self, intent: PaymentIntent | None) -> None:
        """The cart as the payment begins: read once where the intent changes it (the legacy
        API locks it and puts the checkout URL on it); else the URL the hand-off answered."""
        if intent is not None and not self.client.intent_changes_cart and self.cart is not None:
            self._publish(self.cart.model_copy(update={"checkout_url": intent.checkout_url}))
            return
        self._publish(await self._get())

    async def _create_intent(self, cart_id: str) -> PaymentIntent:
        result = await self._write(
            lambda: self.client.create_payment_intent(self.location_id, cart_id)
        )
        assert not isinstance(result, _Landed)
        self.payment_intent = result
        return result

    async def checkout(self, name: str, email: str) -> CheckoutResult:
        """The checkout screen's one step: customer details, validation and, when the cart is
        valid, the payment intent, with ONE read of the cart at the end (instead of one after the
        details and another after the intent: the details do not show in the cart). On a refused
        name or email nothing else is sent."""

        async def body() -> CheckoutResult:
            cart_id = self._need_editable()
            life = self.lifecycle
            life.fire(Event.CHECKOUT)
            try:
                await self._write(
                    lambda: self.client.update_customer(self.location_id, cart_id, name, email)
                )
                if name and life.phase is Phase.CHECKING_OUT:
                    life.fire(Event.NAMED, customer_name=name)
                validation = await self._send(
                    lambda: self.client.validate_cart(self.location_id, cart_id)
                )
                intent = await self._create_intent(cart_id) if validation.valid else None
                await self._after_intent(intent)
            except StorefrontError as exc:
                self._refused()
                unavailable = await self._unavailable_after(exc)
                if not unavailable:
                    raise
                # Lines no longer available (2.0 refuses the hand-off, or the cart moved on
                # because they sold out): told as v1's validation tells them, line by line.
                return CheckoutResult(CartValidation(valid=False), None, unavailable)
            if intent is None:
                self._refused()
            else:
                self._handed_off(intent)
            return CheckoutResult(validation, intent, unavailable_lines(self.cart, validation))

        return await self._operation(body)

    async def _unavailable_after(self, exc: StorefrontError) -> tuple[str, ...]:
        """The lines a refused checkout concerns: those it names (the cart re-read first, so its
        lines show the server's own marking), or, when the cart moved on meanwhile (it was read
        again), those the cart now marks."""
        if exc.unavailable_items or exc.unavailable_products:
            await self._reread_quietly()
        elif not exc.has_code("CART_CONFLICT"):
            return ()  # about something else (a field, the time): said as it is
        if self.lifecycle.phase is Phase.EXPIRED:
            return ()
        return unavailable_lines(self.cart, exc)

    async def confirm_demo_payment(self, card_number: str) -> None:
        """Demo only: pay the open intent as the demo processor would (declines raise)."""
        if self.payment_intent is None:
            raise NoCartError("There is no payment to confirm.")
        intent = self.payment_intent
        await self.client.confirm_demo_payment(intent.client_secret, card_number)


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


def _conflict_said(exc: StorefrontError, before: Cart | None, after: Cart | None) -> ConflictError:
    """The refused write's error, retold with what changed on the cart meanwhile."""
    changes = cart_changes(before, after)
    what = "; ".join(changes) if changes else _("it was updated")
    told = ConflictError(
        # The kiosk's own sentence: whole, with its one instruction (no hint is added to it).
        _("Your order was changed elsewhere ({what}). Please check it and try again.").format(
            what=what
        ),
        status=exc.status,
        code=exc.code,
        details=exc.details,
        endpoint=exc.endpoint,
    )
    told.details["changes"] = changes
    return told
