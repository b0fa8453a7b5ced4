"""VisitState: everything a screen shows about the visit, one frozen value replaced whole, and
how its way to order, time and name are derived from the order's owner (the CartStore's cart
and record)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from kiosk.ordering.abilities import Abilities
from kiosk.ordering.cart_writer import IDLE, StoreStatus
from kiosk.ordering.lifecycle import OrderSnapshot, WayToOrder

if TYPE_CHECKING:
    from kiosk.api.models import Cart, DeliveryAddress, Location, MethodsStatus, TimeIntervals

__all__ = ["CUSTOMER_FIELDS", "OrderTime", "VisitState", "resumed_fields", "way_fields"]


@dataclass(frozen=True, slots=True)
class OrderTime:
    """ASAP (date and time None) or a later slot from the server's time-intervals."""

    order_date: str | None = None
    order_time: str | None = None

    @property
    def is_asap(self) -> bool:
        return self.order_date is None or self.order_time is None


@dataclass(frozen=True, slots=True)
class VisitState:
    """Everything a screen shows about the visit, replaced whole on every change."""

    location_id: str | None = None
    location: Location | None = None
    # The cart the server last sent; None before an order starts (or right after a fresh start:
    # a new cart is known empty and is not read back).
    cart: Cart | None = None
    cart_id: str | None = None
    # idle / busy / waiting (rate limit: `status.seconds_left`) / error.
    status: StoreStatus = IDLE
    fulfillment_method: str | None = None
    table_number: str | None = None
    delivery: DeliveryAddress | None = None
    room: tuple[str, str] | None = None
    # Personal data: never in a repr (and so never in a log).
    customer_name: str = field(default="", repr=False)
    email_address: str = field(default="", repr=False)
    order_time: OrderTime = OrderTime()
    # What the ordering session said besides the cart id ("ordering for later only").
    session_message: str | None = None
    # True once a payment intent was made for this cart (its secret stays in the store).
    paying: bool = False
    # The order's lifecycle (kiosk.ordering.lifecycle): its phase, the server's order number,
    # a decline's code, the hand-off. Screens render it; only the server's answers move it.
    order: OrderSnapshot = field(default_factory=OrderSnapshot)
    # The location's slots as the server last listed them (None: not read yet); read again
    # from the server when it refuses a time.
    slots: TimeIntervals | None = None
    # The ways to order the location offers as the server last said them (its record's
    # methodsStatus, else the merchant listing's; None: neither says, pickup is assumed); read
    # again from the server when it refuses the order's way.
    ways: MethodsStatus | None = None
    # The server refused the order's way to order (its words, customer-safe by the client's
    # rule): the customer chooses another, with the same cart and lines. None once one is taken.
    way_refused: str | None = None
    # What each served location's server can do (kiosk.ordering.abilities), by the kiosk's name
    # for the location: screens read it here, never the client.
    served: tuple[tuple[str, Abilities], ...] = ()

    @property
    def abilities(self) -> Abilities:
        """What the chosen location's server can do (the defaults before one is chosen)."""
        return self.abilities_at(self.location_id)

    def abilities_at(self, location_id: str | None) -> Abilities:
        """What the served location `location_id` can do (the location list shows several)."""
        return next((a for key, a in self.served if key == location_id), Abilities())

    @property
    def has_order(self) -> bool:
        """True when there is a server cart a reset would delete."""
        return self.cart_id is not None


# The kiosk's words for one way to order that 2.0 spells as one: an order eaten here is takeout
# there (kiosk.api.v2.V2_FULFILLMENT), so the record's "dine_in" is not contradicted by the cart.
_SAME_WAY = {"dine_in": "pickup"}


def way_fields(cart: Cart | None, order: OrderSnapshot) -> dict[str, Any]:
    """VisitState's way to order: the server's cart where it says it (its method, its table),
    else the record the terminal kept (the address and room as the customer gave them)."""
    way = order.way
    method = str(cart.fulfilment_method) if cart is not None and cart.fulfilment_method else None
    if way is not None and (method is None or _SAME_WAY.get(way.method, way.method) == method):
        method = way.method
    recorded = way if way is not None and way.method == method else None
    info = cart.table_service_info if cart is not None else None
    table = (info.table_number if info is not None else None) or (
        recorded.table_number if recorded is not None else None
    )
    return {
        "fulfillment_method": method,
        "table_number": table or None,
        "delivery": _address(recorded),
        "room": (
            (recorded.room_last_name or "", recorded.room_number or "")
            if recorded is not None and recorded.room_number
            else None
        ),
    }


def resumed_fields(order: OrderSnapshot) -> dict[str, Any]:
    """What a restart takes from the record besides the way: the time and the name."""
    slot = order.order_time
    return {
        "order_time": OrderTime(*slot) if slot is not None else OrderTime(),
        "customer_name": order.customer_name or "",
    }


def _address(way: WayToOrder | None) -> DeliveryAddress | None:
    if way is None or not way.delivery:
        return None
    from kiosk.api.models import DeliveryAddress

    try:
        return DeliveryAddress.model_validate(dict(way.delivery))
    except ValueError:  # an unreadable record: the cart's own address string still shows
        return None


# What a customer leaves in VisitState, as a new visit finds it (Visit.end clears them at once).
CUSTOMER_FIELDS: Mapping[str, Any] = MappingProxyType(
    {
        "fulfillment_method": None,
        "table_number": None,
        "delivery": None,
        "room": None,
        "customer_name": "",
        "email_address": "",
        "order_time": OrderTime(),
        "way_refused": None,
    }
)
