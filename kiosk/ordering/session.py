"""The customer session: who is ordering, where, and how; and the one way to end it.

A session holds what the customer told the kiosk (location, fulfillment method and its details, name
and email, the chosen order time) beside the CartStore that holds the cart. `reset()` is the single
"start over" used by the idle timer, the Start-over button and the staff screen: the server cart is
deleted (unless it already became an order) and every field is cleared. The idle timer itself lives
in the TUI.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from kiosk.api.errors import StorefrontError
from kiosk.api.models import Cart, DeliveryAddress, FulfillmentMethod
from kiosk.ordering.cart_store import CartStore

__all__ = ["CustomerSession", "OrderTime"]

log = logging.getLogger("kiosk.ordering")


@dataclass(frozen=True, slots=True)
class OrderTime:
    """ASAP (date and time None) or a later slot from the server's time-intervals."""

    order_date: str | None = None
    order_time: str | None = None

    @property
    def is_asap(self) -> bool:
        return self.order_date is None or self.order_time is None


class CustomerSession:
    """One customer's visit. `store_factory(location_id)` makes the CartStore for a location."""

    def __init__(
        self,
        store_factory: Callable[[str], CartStore],
        location_id: str | None = None,
        *,
        fixed_location: bool = False,
    ) -> None:
        self._factory = store_factory
        # A kiosk configured for one location keeps it across resets; otherwise the customer picks.
        self.fixed_location = fixed_location
        self._home_location = location_id if fixed_location else None
        self.location_id: str | None = location_id
        self.store: CartStore | None = store_factory(location_id) if location_id else None
        self.fulfillment_method: FulfillmentMethod | str | None = None
        self.table_number: str | None = None
        self.delivery: DeliveryAddress | None = None
        self.room: tuple[str, str] | None = None
        self.customer_name: str = ""
        self.email_address: str = ""
        self.order_time: OrderTime = OrderTime()

    def __repr__(self) -> str:
        # Name and email are personal data: not in reprs (and therefore not in logs).
        return (
            f"CustomerSession(location_id={self.location_id!r}, "
            f"fulfillment_method={self.fulfillment_method!r})"
        )

    @property
    def cart(self) -> Cart | None:
        return self.store.cart if self.store is not None else None

    @property
    def has_order_in_progress(self) -> bool:
        """True when there is a server cart this session would delete on reset."""
        return self.store is not None and self.store.cart_id is not None

    def choose_location(self, location_id: str) -> CartStore:
        """Pick the location (the location screen). A different location gets a fresh store; the
        caller discards any cart of the old one first (`reset`)."""
        if self.store is None or self.location_id != location_id:
            self.location_id = location_id
            self.store = self._factory(location_id)
        return self.store

    async def begin(
        self,
        fulfillment_method: FulfillmentMethod | str,
        *,
        table_number: str | None = None,
        delivery: DeliveryAddress | None = None,
        room: tuple[str, str] | None = None,
    ) -> Cart | None:
        """Start ordering (the welcome screen): remember the method and details, then start the
        ordering session on the server."""
        if self.store is None:
            raise RuntimeError("choose a location before starting an order")
        cart = await self.store.start(
            fulfillment_method, table_number=table_number, delivery=delivery, room=room
        )
        self.fulfillment_method = fulfillment_method
        self.table_number = table_number
        self.delivery = delivery
        self.room = room
        return cart

    def remember_customer(self, name: str, email: str) -> None:
        self.customer_name = name
        self.email_address = email

    def clear(self) -> None:
        """Forget everything the customer told the kiosk (not the server cart: see reset)."""
        self.fulfillment_method = None
        self.table_number = None
        self.delivery = None
        self.room = None
        self.customer_name = ""
        self.email_address = ""
        self.order_time = OrderTime()
        if not self.fixed_location:
            self.location_id = None
            self.store = None
        elif self._home_location is not None and self.location_id != self._home_location:
            self.location_id = self._home_location
            self.store = self._factory(self._home_location)

    async def reset(self) -> bool:
        """Start over: delete the server cart (a completed order is left alone) and clear every
        field. Never raises for the server's sake: True when the server confirmed the delete (or
        there was nothing to delete)."""
        deleted = True
        if self.store is not None:
            try:
                deleted = await self.store.discard()
            except StorefrontError:  # discard is best effort already; belt and braces
                log.info("reset: the cart could not be discarded", exc_info=True)
                deleted = False
        self.clear()
        return deleted
