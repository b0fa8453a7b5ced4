"""The cart writer: how every request of an order goes out, one at a time.

Its job is the sending, not the order: the CartStore (the order's one owner) says what to write,
and the writer sends it.
- Serialised: one asyncio.Lock (FIFO, nothing dropped); the status channel says "busy" while an
  operation runs and "error" with the customer-safe text when it failed.
- Rate limits (RateLimitedError: the request never reached the server) are waited out with a
  whole-second countdown on the status channel, then the same request goes again.
- No double writes: after AmbiguousWriteError (the outcome is unknown) the cart is re-read and the
  write is sent again only if the re-read shows it did not land. A write nobody could confirm is
  remembered (`_Unconfirmed`), so repeating it checks first.
- A refused write (409, 422) re-reads the cart, so the screen shows the server's.

What the writer learns about the order (a cart read, the cart gone or expired, a write in doubt)
it hands to its owner (`WriteOwner`): only the owner records it in the order's lifecycle.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from kiosk.api.errors import (
    AmbiguousWriteError,
    ConflictError,
    NotFoundError,
    RateLimitedError,
    StorefrontError,
    UnprocessableError,
)
from kiosk.i18n import N_, _
from kiosk.ordering.cart_changes import cart_changes
from kiosk.ordering.events import Listeners

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import Cart

__all__ = [
    "BUSY",
    "IDLE",
    "CartExpiredError",
    "CartWriter",
    "Landed",
    "NoCartError",
    "StoreStatus",
    "WriteOwner",
]

log = logging.getLogger("kiosk.ordering")

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
StatusListener = Callable[["StoreStatus"], None]


class NoCartError(StorefrontError):
    """A cart operation was asked for before an ordering session started (or after it ended)."""

    default_message = "Your order has not been started. Please start a new order."


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


class Landed:
    """Returned by `CartWriter.write` when the re-read after an ambiguous failure showed the
    write landed (that cart is already published)."""


_LANDED = Landed()


@dataclass(frozen=True)
class _Unconfirmed:
    """A write whose outcome neither its answer nor a re-read could tell. If the customer repeats
    the same write, the writer first checks whether the first one landed, so nothing doubles."""

    key: Hashable
    landed: Callable[[Cart], bool]


class WriteOwner(Protocol):
    """What the writer asks of the order's owner (the CartStore): the cart it holds, and the
    owner's own say on what a request found. The writer never records the order itself."""

    @property
    def cart(self) -> Cart | None: ...

    @property
    def cart_id(self) -> str | None: ...

    def publish(self, cart: Cart | None) -> None:
        """A cart read from the server: the owner publishes it."""

    def cart_gone(self) -> None:
        """The server no longer has the cart: the owner forgets it."""

    def cart_expired(self) -> bool:
        """The server says the cart expired: the owner records it; True when it is recorded."""

    def write_in_doubt(self) -> None:
        """A write's answer was lost: the owner records the doubt until `write_settled`."""

    def write_settled(self) -> None: ...


class CartWriter:
    """Sends the order's requests for one store: one at a time, rate limits waited out, a write
    in doubt settled by reading the cart."""

    def __init__(
        self,
        owner: WriteOwner,
        client: StorefrontBase,
        location_id: str,
        *,
        clock: Callable[[], float],
        sleep: Sleep,
        max_rate_waits: int = 20,
        max_ambiguous_retries: int = 3,
        settle_reads: int = 8,
        settle_pause: float = 2.0,
    ) -> None:
        self._owner = owner
        self.client = client
        self.location_id = location_id
        self.clock = clock
        self.sleep = sleep
        self.max_rate_waits = max_rate_waits
        self.max_ambiguous_retries = max_ambiguous_retries
        # A write whose answer is late or lost is settled by reading the cart: up to
        # `settle_reads` reads, `settle_pause` seconds apart (counted down on the status line),
        # while the server says the write is still running or the read itself fails.
        self.settle_reads = settle_reads
        self.settle_pause = settle_pause
        self.status: StoreStatus = IDLE
        self.last_error: StorefrontError | None = None
        # True when a write may have changed the cart without our seeing it (cancelled
        # mid-write); the owner clears it when it publishes a cart read.
        self.stale = False
        self._lock = asyncio.Lock()
        self._pending = 0
        self._unconfirmed: _Unconfirmed | None = None
        self._status_listeners: Listeners[StoreStatus] = Listeners("status")

    # ------------------------------------------------------------------ the status channel

    def subscribe_status(self, callback: StatusListener) -> Callable[[], None]:
        """Call `callback(status)` on every status change. Returns an unsubscribe."""
        return self._status_listeners.add(callback)

    def _set_status(self, status: StoreStatus) -> None:
        if status == self.status:
            return
        self.status = status
        self._status_listeners.tell(status)

    # ------------------------------------------------------------------ one operation at a time

    async def run(self, body: Callable[[], Awaitable[T]]) -> T:
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

    def need_cart(self) -> str:
        cart_id = self._owner.cart_id
        if cart_id is None:
            raise NoCartError()
        return cart_id

    # ------------------------------------------------------------------ rate limits

    async def wait_out(self, seconds: float | None, *, checking: bool = False) -> None:
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
        deadline = self.clock() + seconds
        slept = 0.0
        try:
            while slept < seconds:
                left = min(deadline - self.clock(), seconds - slept)
                if left <= 0:
                    break
                shown = math.ceil(left)
                said = why.format(seconds=shown)
                self._set_status(StoreStatus("waiting", message=said, seconds_left=shown))
                step = min(1.0, left)
                await self.sleep(step)
                slept += step
        finally:
            self._set_status(BUSY)

    async def _respect_budget(self) -> None:
        # The last response said nothing is left until the reset: wait rather than spend a 429.
        budget = self.client.rate_budget
        if budget.remaining == 0:
            left = budget.seconds_until_reset()
            if left:
                await self.wait_out(left)

    async def send(self, call: Callable[[], Awaitable[T]]) -> T:
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
                await self.wait_out(exc.retry_after)

    async def get(self) -> Cart:
        """The cart as the server holds it now (not published: the caller decides)."""
        cart_id = self.need_cart()
        return await self.send(lambda: self.client.get_cart(self.location_id, cart_id))

    # ------------------------------------------------------------------ writes

    async def write(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        landed: Callable[[Cart], bool] | None = None,
        key: Hashable | None = None,
    ) -> T | Landed:
        """Send one write: rate limits waited out; an unknown outcome resolved by a re-read.

        `landed(cart)` tells from a re-read cart whether the write happened. Without it the write
        is a "set" that may simply be repeated. Returns the call's result, or a `Landed` when the
        re-read showed the write had landed (that cart is already published). `key` names a
        write that must not be repeated blindly (an add): see _Unconfirmed.
        """
        owner = self._owner
        pending, self._unconfirmed = self._unconfirmed, None
        if pending is not None and key is not None and pending.key == key:
            current = owner.cart
            if self.stale or current is None:
                current = await self.get()
                owner.publish(current)
            if pending.landed(current):
                log.info("a repeated write found its unconfirmed twin landed; not sent again")
                return _LANDED
        # A write of ours still in doubt (its answer was lost): if the server's cart moved
        # because it landed, that is our own change, not one made elsewhere.
        doubt = pending
        unknown = 0
        while True:
            try:
                return await self.send(call)
            except AmbiguousWriteError as exc:
                unknown += 1
                # The server said this very write is still running (its answer is late).
                late = exc.has_code("IDEMPOTENCY_IN_PROGRESS")
                if unknown > self.max_ambiguous_retries:
                    # Whether the customer now sees the server's cart (the screen says so only
                    # when it is true).
                    exc.details["reloaded"] = await self.reread_quietly()
                    raise
                if landed is None:
                    if late:
                        # Let the first send finish before the same "set" goes again: sent
                        # meanwhile, ours would name a revision the first one is about to move.
                        await self.wait_out(self.settle_pause, checking=True)
                        await self.reread_quietly()
                    log.info("write outcome unknown; repeating a set-style write")
                    continue
                if await self._settle(landed, key, late=late):
                    return _LANDED
                log.info("write outcome unknown; the re-read cart shows it did not land: resend")
            except (ConflictError, UnprocessableError) as exc:
                if await self._refused_write(exc, doubt):
                    doubt = None
                    continue
                raise
            except asyncio.CancelledError:
                self.stale = True
                raise

    async def _refused_write(
        self, exc: ConflictError | UnprocessableError, doubt: _Unconfirmed | None
    ) -> bool:
        """A write refused as a conflict: the cart may have moved under us (locked, closed,
        changed elsewhere). The truth is shown, then the write fails saying what is different;
        nothing is re-applied by itself. True: what moved the cart was our own write in doubt,
        landing late, and this one (refused, so not made) goes again once."""
        owner = self._owner
        before = owner.cart
        if isinstance(exc, ConflictError) and exc.cart is not None:
            owner.publish(exc.cart)  # the client read it already (2.0 CART_CONFLICT)
        else:
            await self.reread_quietly()
        cart = owner.cart
        expired = exc.cart_expired or (cart is not None and cart.is_expired)
        # Refused because the cart has expired (said by the refusal, or by the cart read after
        # it): the order ends there (the owner records it), said as that, not as a change.
        if expired and owner.cart_expired():
            raise CartExpiredError() from exc
        conflict = exc.has_code("CART_CONFLICT")
        if conflict and doubt is not None and cart is not None and doubt.landed(cart):
            log.info("the cart moved by our own late write; sending this one again")
            return True
        if conflict:
            raise _conflict_said(exc, before, cart) from exc
        return False

    async def reread_quietly(self) -> bool:
        """Read the cart after an error, never raising; True when the cart shown is the server's
        as it now is (read, or known gone)."""
        owner = self._owner
        cart_id = owner.cart_id
        if cart_id is None:
            return True
        try:
            cart = await self.client.get_cart(self.location_id, cart_id)
        except NotFoundError:
            log.info("the cart is gone on the server; forgetting it")
            owner.cart_gone()
        except StorefrontError:
            log.info("could not re-read the cart after an error", exc_info=True)
            return False
        else:
            owner.publish(cart)
        return True

    # ------------------------------------------------------------------ a write in doubt

    async def _settle(
        self, landed: Callable[[Cart], bool], key: Hashable | None, *, late: bool
    ) -> bool:
        """The order is IN_DOUBT while a write is settled (the owner records it, persisted: a
        restart in the middle settles by reading the server); SETTLED after, whatever the reads
        said (a write still unconfirmed is remembered here, not by the order's phase)."""
        self._owner.write_in_doubt()
        try:
            return await self._settle_by_reading(landed, key, late=late)
        finally:
            self._owner.write_settled()

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
                after = await self.get()
            except NotFoundError:
                raise
            except StorefrontError as exc:
                failure = exc
            else:
                failure = None
                self._owner.publish(after)
                if landed(after):
                    log.info("write outcome unknown; the re-read cart shows it landed")
                    return True
                if not late:
                    return False
            if reads >= self.settle_reads:
                break
            await self.wait_out(self.settle_pause, checking=True)
        # Neither the write nor the check can be confirmed: say so, keep the cart, and remember
        # the write so that repeating it checks before sending.
        self.stale = failure is not None
        if key is not None:
            self._unconfirmed = _Unconfirmed(key, landed)
        unsure = AmbiguousWriteError(cause=failure)
        unsure.details["reloaded"] = failure is None
        if failure is not None:
            raise unsure from failure
        raise unsure


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
