"""What the customer changes on the order: the ordering session and its way to order, the
lines, the code, the tip, the time, the customer's details.

Each edit is one operation of the cart writer (kiosk.ordering.cart_writer: serialised, rate limits
waited out, a write in doubt settled, never sent twice): the server's answer is published, or the
cart is read once when the write answers none (the legacy contract's order time, discount and
customer details answer `{success:true}`; on 2.0 every write answers the cart). What an edit means
for the order's record (a new cart, the way to order, the time) is recorded by the order's owner,
the CartStore (`EditsOwner`): only it touches the cart id and the lifecycle.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from kiosk.api.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    StorefrontError,
    UnprocessableError,
)
from kiosk.api.models import Cart, CartValidation, DeliveryAddress, FulfillmentMethod
from kiosk.ordering.cart_writer import CartWriter, Landed, WriteOwner
from kiosk.ordering.lifecycle import OrderSnapshot, WayToOrder
from kiosk.ordering.modifiers import SelectionState

if TYPE_CHECKING:
    from kiosk.ordering.clock import LocationClock

__all__ = ["CartEdits", "EditsOwner", "WayGoneError"]


class WayGoneError(StorefrontError):
    """A resumed order's way to order is refused by the server (the location no longer offers
    it): the cart and its lines are kept, and the customer chooses another way."""

    show_server_message = True
    default_message = "That way to order is no longer offered here. Please choose another."


class EditsOwner(WriteOwner, Protocol):
    """What the edits ask of the order's owner: the record, and the rows each edit makes."""

    @property
    def order(self) -> OrderSnapshot: ...

    @property
    def known_empty(self) -> bool:
        """True right after a new session: the server's cart is empty without a GET."""

    @property
    def local_clock(self) -> LocationClock: ...

    def editable_cart_id(self) -> str:
        """The cart id, when the order may still change (else the refusal the server would
        give)."""

    def session_started(self, cart_id: str, message: str | None, existing: str | None) -> None:
        """The server's ordering session answered `cart_id` (a new order unless `existing`)."""

    def record_way(self, way: WayToOrder) -> None: ...

    def is_ours(self, location_key: str) -> bool: ...

    def take_up(self, cart_id: str, cart: Cart | None = None) -> None:
        """A resume takes up `cart_id` (with the server's `cart`: kept and published)."""

    def let_go(self) -> None:
        """The server could not be asked: the cart is let go, its resume file kept."""

    def time_chosen(self, slot: tuple[str, str] | None) -> None: ...


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


class CartEdits:
    """The customer's changes to one store's order, sent through its writer."""

    def __init__(self, owner: EditsOwner, writer: CartWriter) -> None:
        self._owner = owner
        self._writer = writer
        self.client = writer.client
        self.location_id = writer.location_id

    @property
    def cart(self) -> Cart | None:
        return self._owner.cart

    # ------------------------------------------------------------------ the way to order

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

        owner = self._owner

        async def body() -> Cart | None:
            existing = owner.cart_id
            session = await self._writer.write(
                lambda: self.client.start_ordering_session(
                    self.location_id, method, existing_cart_id=existing
                )
            )
            assert not isinstance(session, Landed)
            if not session.cart_id:
                raise UnprocessableError(server_message=session.error_message)
            owner.session_started(session.cart_id, session.error_message, existing)
            cart = await self._set_details(table_number, delivery, room)
            self._owner.record_way(WayToOrder(method, *_way_details(table_number, delivery, room)))
            return cart

        return await self._writer.run(body)

    async def _set_details(
        self,
        table_number: str | None,
        delivery: DeliveryAddress | None,
        room: tuple[str, str] | None,
    ) -> Cart | None:
        cart_id = self._writer.need_cart()
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
            return None if self._owner.known_empty else await self._finish(None)
        return await self._finish(await self._writer.write(call))

    async def resume(self, cart_id: str, location_id: str | None = None) -> Cart | None:
        """Resume a cart after a crash (row 9 with `currentCartId`). The cart is read first: when it
        is gone, COMPLETED, EXPIRED or another location's, it is forgotten and None returned. A
        LOCKED cart (the crash came mid-payment) is returned as it is, for the payment screen."""
        owner = self._owner

        async def body() -> Cart | None:
            if location_id is not None and not owner.is_ours(location_id):
                owner.cart_gone()
                return None
            owner.take_up(cart_id)
            try:
                cart = await self._writer.get()
            except (NotFoundError, ConflictError, UnprocessableError):
                owner.cart_gone()
                return None
            except StorefrontError as exc:
                if exc.status == 400:  # the server says the id is not a cart id at all
                    owner.cart_gone()
                    return None
                # The network, the server or our key failed: the cart may well be fine. Keep the
                # file so that the next start can try again.
                owner.let_go()
                raise
            foreign = bool(cart.location_id) and not owner.is_ours(cart.location_id or "")
            if foreign or cart.is_completed or cart.is_expired or not cart.id:
                owner.cart_gone()
                return None
            if not cart.is_locked and not await self._resume_session(cart_id, cart):
                return None
            owner.take_up(cart_id, cart)
            return cart

        return await self._writer.run(body)

    async def _resume_session(self, cart_id: str, cart: Cart) -> bool:
        """The resuming ordering session for an open cart, asked for the order's own way to order,
        never a default: the server's cart says which (2.0), else the record this terminal kept
        (a dialect whose cart is silent). False: the server made another cart (dropped too)."""
        owner = self._owner
        way = owner.order.way
        method = cart.fulfilment_method or (way.method if way is not None else None)
        try:
            resumed = await self._writer.write(
                lambda: self.client.resume_cart(self.location_id, cart_id, method)
            )
        except (InvalidRequestError, UnprocessableError, ConflictError) as exc:
            if isinstance(exc, ConflictError) and exc.code == "CART_CONFLICT":
                raise
            # The order stays as the server holds it, lines and all; only its way must be
            # chosen again.
            owner.take_up(cart_id, cart)
            raise WayGoneError(server_message=exc.server_message) from exc
        if resumed != cart_id:
            # The server would not resume it and made a new cart: drop that one too.
            with contextlib.suppress(StorefrontError):
                await self.client.delete_cart(self.location_id, str(resumed))
            owner.cart_gone()
            return False
        return True

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
            way = self._owner.order.way
            method = way.method if way is not None else None
            if method is None and self.cart is not None and self.cart.fulfilment_method:
                method = str(self.cart.fulfilment_method)
            if method is not None:
                self._owner.record_way(
                    WayToOrder(method, *_way_details(table_number, delivery, room))
                )
            return cart

        return await self._writer.run(body)

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
            cart_id = self._owner.editable_cart_id()
            before = _product_quantity(await self._baseline(), product_id)
            result = await self._writer.write(
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

        return await self._writer.run(body)

    async def set_quantity(self, item_id: str, quantity: int) -> Cart | None:
        """Change a line's quantity (row 13); 0 removes the line."""

        def landed(after: Cart) -> bool:
            line = next((i for i in after.items if i.id == item_id), None)
            return line is None if quantity == 0 else line is not None and line.quantity == quantity

        async def body() -> Cart | None:
            cart_id = self._owner.editable_cart_id()
            result = await self._writer.write(
                lambda: self.client.set_item_quantity(self.location_id, cart_id, item_id, quantity),
                landed=landed,
            )
            return await self._finish(result)

        return await self._writer.run(body)

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
            cart_id = self._owner.editable_cart_id()
            result = await self._writer.write(
                lambda: self.client.apply_discount(self.location_id, cart_id, code),
                landed=landed,
            )
            return await self._finish(result)

        return await self._writer.run(body)

    async def remove_discount(self) -> Cart | None:
        async def body() -> Cart | None:
            cart_id = self._owner.editable_cart_id()
            result = await self._writer.write(
                lambda: self.client.remove_discount(self.location_id, cart_id),
                landed=lambda after: not after.discount_code,
            )
            return await self._finish(result)

        return await self._writer.run(body)

    async def set_tip(
        self, percentage: str | int | None = None, amount_minor: int | None = None
    ) -> Cart | None:
        """A tip as a percentage ("18") or a fixed amount in minor units (row 16)."""
        pct = None if percentage is None else str(percentage)

        async def body() -> Cart | None:
            cart_id = self._owner.editable_cart_id()
            result = await self._writer.write(
                lambda: self.client.set_tip(
                    self.location_id, cart_id, percentage=pct, amount_minor=amount_minor
                )
            )
            return await self._finish(result)

        return await self._writer.run(body)

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
            cart_id = self._owner.editable_cart_id()
            today, now = self._owner.local_clock.date_and_time()
            day = order_date or (self.cart.order_date if self.cart else None) or today
            at = order_time or (self.cart.order_time if self.cart else None) or now
            result = await self._writer.write(
                lambda: self.client.set_order_time(self.location_id, cart_id, pickup_type, day, at)
            )
            cart = await self._finish(result)
            self._owner.time_chosen((day, at) if pickup_type == "LATER" else None)
            return cart

        return await self._writer.run(body)

    # ------------------------------------------------------------------ checkout

    async def set_customer(self, name: str, email: str) -> Cart | None:
        """Customer details (row 15); the cart is the write's answer (2.0), else read once
        (legacy). A 400 names the field."""

        async def body() -> Cart | None:
            cart_id = self._owner.editable_cart_id()
            result = await self._writer.write(
                lambda: self.client.update_customer(self.location_id, cart_id, name, email)
            )
            return await self._finish(result)

        return await self._writer.run(body)

    async def validate(self) -> CartValidation:
        """Ask the server whether the cart can be paid for (row 22). Changes nothing."""

        async def body() -> CartValidation:
            cart_id = self._writer.need_cart()
            return await self._writer.send(
                lambda: self.client.validate_cart(self.location_id, cart_id)
            )

        return await self._writer.run(body)

    async def _baseline(self) -> Cart | None:
        """The cart as it is now, for an add's before/after comparison (a GET only when unknown)."""
        if self._owner.known_empty:
            return None
        if self.cart is None or self._writer.stale:
            cart = await self._writer.get()
            self._owner.publish(cart)
        return self.cart

    async def _finish(self, result: Cart | Landed | None) -> Cart | None:
        """Publish a write's cart, or read it once when the write returned none."""
        if isinstance(result, Landed):
            return self.cart
        if result is None:
            result = await self._writer.get()
        self._owner.publish(result)
        return result
