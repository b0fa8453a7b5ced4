"""The order's time as the location allows it: the menus for the order's time, and an order
set to the first later slot where the location takes none for now.

A location may take orders for later only (time-intervals' requireScheduledOrders), or, closed
now, say so through 2.0's readiness when nothing on the menus is served: the order still set for
as soon as possible is then set to the first slot (through the visit's own intent), and the
screens say it once (`scheduled_first`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from kiosk.ordering.pairing import drink_ids

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import Cart, MenusResponse
    from kiosk.ordering.catalogue import Catalogue
    from kiosk.ordering.visit_state import VisitState

__all__ = ["OrderTiming", "TimingHost"]


class TimingHost(Protocol):
    """What the order's time asks of the visit."""

    state: VisitState

    @property
    def client(self) -> StorefrontBase: ...

    async def set_order_time_later(self, order_date: str, order_time: str) -> Cart | None: ...


class OrderTiming:
    """The order's time for one visit."""

    def __init__(self, host: TimingHost, catalogue: Catalogue) -> None:
        self._host = host
        self._catalogue = catalogue
        # This visit's location takes no order for as soon as possible now (readiness: closed;
        # the server's reason, "" without one), None: it does, or nobody had to ask (`menus`).
        self.asap_refused: str | None = None
        # The later slot this visit's order was set to because none is taken for now (day label,
        # time), for the screens to say.
        self.scheduled_first: tuple[str, str] | None = None

    def new_visit(self) -> None:
        self.asap_refused = self.scheduled_first = None

    async def menus(self) -> MenusResponse:
        """The menus for the order's time (its later slot, else now). When nothing is served
        now, the server is asked whether it takes an order for now at all (2.0's readiness,
        one read): closed, the order is set to the first later slot (said once, see
        `scheduled_first`) and the menus are those of that slot."""
        order_date, order_time = self.menu_slot()
        location = self._host.state.location_id or ""
        menus = await self._host.client.get_menus(location, order_date or None, order_time or None)
        self._catalogue.drinks = drink_ids(menus)
        if order_date or not menus.menus or any(m.is_active for m in menus.menus):
            return menus
        if self.asap_refused is None and self._host.state.cart_id is not None:
            self.asap_refused = await self._catalogue.why_not_now(location)
        if self.asap_refused is None or await self.schedule_if_required() is None:
            return menus
        order_date, order_time = self.menu_slot()
        menus = await self._host.client.get_menus(location, order_date or None, order_time or None)
        self._catalogue.drinks = drink_ids(menus)
        return menus

    def menu_slot(self) -> tuple[str, str]:
        """The later slot the cart is for, ("", "") when ASAP."""
        cart = self._host.state.cart
        if cart is not None and (cart.pickup_type or "").upper() == "LATER":
            return (cart.order_date or "", cart.order_time or "")
        return ("", "")

    async def schedule_if_required(self) -> tuple[str, str] | None:
        """A location that takes orders for later only (time-intervals' requireScheduledOrders):
        an order still set for as soon as possible is set to the first slot, which the customer
        is then told of. Returns (the day's label, the time) when it set one, else None."""
        cart = self._host.state.cart
        if cart is not None and (cart.pickup_type or "").upper() == "LATER":
            return None
        slots = await self._catalogue.time_intervals()
        later_only = slots.require_scheduled_orders or self.asap_refused is not None
        first = slots.first_slot() if later_only else None
        if first is None:
            return None
        day, at = first
        await self._host.set_order_time_later(day.value, at)
        self.scheduled_first = (day.label or day.value, at)
        return self.scheduled_first
