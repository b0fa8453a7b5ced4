"""A restart takes up the order this terminal kept: the resume file and the server, never a
default.

The saved location may be an id or a slug, and may differ in kind from how this kiosk names it:
the cart is found by either. An order handed to payment (or paid, or declined) comes back in its
phase, and the server is asked at once where the payment stands, so a customer who paid
meanwhile sees the number now. An open cart is resumed with the order's own way to order (the
server's cart, else the record kept); when the server refuses that way, the same cart and its
lines wait for the customer to choose another. An open cart with no lines is dropped.

The visit (`ResumeHost`) chooses the location, holds the store and publishes what came back;
only the store, the order's owner, touches the order's record.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import SecretStr

from kiosk.api.errors import NotFoundError, StorefrontError
from kiosk.ordering.cart_store import CartStore, WayGoneError, load_saved_cart
from kiosk.ordering.lifecycle import OrderSnapshot, Phase

if TYPE_CHECKING:
    from kiosk.api.models import Cart, Location

__all__ = ["ResumeHost", "ResumeOutcome", "quietly", "resume_saved"]

log = logging.getLogger("kiosk.ordering")


@dataclass(frozen=True, slots=True)
class ResumeOutcome:
    """What `Visit.resume_saved()` did: "none", "open", "locked" (awaiting payment: the payment
    screen), "declined", "paid" (the number, at once), "way_gone" (choose another way), "gone"
    or "failed"."""

    kind: str
    cart: Cart | None = None


class ResumeHost(Protocol):
    """What the resume asks of the visit."""

    location_ids: list[str]
    cart_id_file: Path | None

    def choose_location(self, location_id: str, location: Location | None = None) -> None: ...

    async def load_location(self, location_id: str | None = None) -> Location: ...

    def known_location(self, location_id: str) -> Location | None: ...

    def need_store(self) -> CartStore: ...

    def sync_store(self) -> None: ...

    def order_resumed(self, *, paid: bool) -> None: ...

    def abandon_resume(self) -> None: ...

    async def reread_refused(self, exc: StorefrontError) -> None: ...

    async def learn_option_names(self, cart: Cart) -> None: ...


async def resume_saved(host: ResumeHost) -> ResumeOutcome:
    """Take up the cart a previous run left open in the resume file (see the module); the names
    of its lines' choices are read before it is shown (`learn_option_names`)."""
    outcome = await _take_up(host)
    if outcome.cart is not None:
        await host.learn_option_names(outcome.cart)
    return outcome


async def _take_up(host: ResumeHost) -> ResumeOutcome:
    saved = load_saved_cart(host.cart_id_file)
    if saved is None or host.cart_id_file is None:
        return ResumeOutcome("none")
    location_id = await _served_location(host, saved.location_id)
    if location_id is None:
        # The kiosk now serves other locations: that cart is not for this kiosk any more.
        log.info("crash resume: the saved cart is for another location; forgotten")
        with contextlib.suppress(OSError):
            host.cart_id_file.unlink()
        return ResumeOutcome("gone")
    location = host.known_location(location_id)
    if location is None:
        with contextlib.suppress(StorefrontError):
            location = await host.load_location(location_id)
    host.choose_location(location_id, location)
    store = host.need_store()
    if location is not None:
        store.know_location((saved.location_id, location.id, location.restaurant_slug), None)
    if saved.access:
        store.client.restore_cart_access(saved.cart_id, SecretStr(saved.access))
    order = saved.order
    if order.phase is Phase.IN_DOUBT:
        # Settled by reading the server (below): back to where the doubt began.
        order = replace(order, phase=order.doubt_from or Phase.ORDERING, doubt_from=None)
    if order.phase is not Phase.ORDERING or order.checkout_url is not None:
        # Handed to payment, or back on the order with a code that can still pay it (2.0):
        # where the payment stands is asked first, so a payment made meanwhile is shown.
        outcome = await _resume_order(host, store, saved.cart_id, order)
        if outcome is not None:
            return outcome
    else:
        store.restore(saved.cart_id, order)
    way_gone: WayGoneError | None = None
    try:
        cart = await store.resume(saved.cart_id, saved.location_id)
    except WayGoneError as exc:
        way_gone = exc
    except StorefrontError:
        log.warning("crash resume: the server could not be asked; kept for the next start")
        host.abandon_resume()
        return ResumeOutcome("failed")
    finally:
        host.sync_store()
    if way_gone is not None:
        # The location no longer offers the order's way: the same cart and its lines wait
        # for the customer to choose another way (the welcome screen says why). Set after
        # the store's state, which has no such message; the time and name come back too.
        host.order_resumed(paid=False)
        await host.reread_refused(way_gone)  # the ways read again; the refusal said last
        log.info("crash resume: the order's way to order is no longer offered")
        return ResumeOutcome("way_gone", store.cart)
    if cart is not None and not cart.items and not cart.is_locked:
        log.info("crash resume: the saved cart has no lines; dropped")
        await quietly(store.discard())
        cart = None
    if cart is None:
        log.info("crash resume: the saved cart is no longer open; starting clean")
        host.abandon_resume()
        return ResumeOutcome("gone")
    log.info("crash resume: cart resumed (%s)", "locked" if cart.is_locked else "open")
    host.order_resumed(paid=cart.is_completed)
    return ResumeOutcome("locked" if cart.is_locked else "open", cart)


async def _resume_order(
    host: ResumeHost, store: CartStore, cart_id: str, order: OrderSnapshot
) -> ResumeOutcome | None:
    """A restart after the order was handed to payment (or paid, or declined): the phase
    comes back as it was, and the server is asked at once where the payment stands, so a
    customer who paid meanwhile sees the number now. None: back to ordering (the hand-off
    was never shown, or a code kept while ordering has not paid it), resumed as an open
    cart."""
    store.restore(cart_id, order)
    store.payment.restore(cart_id, order)
    try:
        await store.check_payment()
    except NotFoundError:
        log.info("crash resume: the order's cart is gone")
        host.abandon_resume()
        return ResumeOutcome("gone")
    except StorefrontError:
        log.warning("crash resume: the payment could not be checked; kept for the next start")
        store.let_go()
        host.abandon_resume()
        return ResumeOutcome("failed")
    finally:
        host.sync_store()
    phase = store.phase
    if phase is Phase.CHECKING_OUT:
        store.back_to_order()
        return None
    if phase is Phase.ORDERING:
        return None  # not paid: the open cart is resumed as it is
    if phase is Phase.EXPIRED:
        await quietly(store.discard())
        host.abandon_resume()
        return ResumeOutcome("gone")
    if store.cart is None:
        with contextlib.suppress(StorefrontError):
            await store.refresh()
    host.sync_store()
    cart = store.cart
    kind = {Phase.PAID: "paid", Phase.DECLINED: "declined"}.get(phase, "locked")
    host.order_resumed(paid=phase is Phase.PAID)
    log.info("crash resume: the order comes back %s", phase)
    return ResumeOutcome(kind, cart)


async def _served_location(host: ResumeHost, saved: str) -> str | None:
    """Which of the served locations `saved` (an id or a slug) names, None when none does."""
    if saved in host.location_ids:
        return saved
    for location_id in host.location_ids:
        known = host.known_location(location_id)
        location: Location | None = known
        if location is None:
            with contextlib.suppress(StorefrontError, LookupError):
                location = await host.load_location(location_id)
        if location is not None and saved in (location.id, location.restaurant_slug):
            return location_id
    return None


async def quietly(awaitable: Awaitable[bool]) -> bool:
    # Deleting an abandoned cart is best effort: the server expires carts anyway.
    try:
        return await awaitable
    except Exception:  # nothing to show: the customer has moved on
        log.warning("could not delete an abandoned cart", exc_info=True)
        return False
