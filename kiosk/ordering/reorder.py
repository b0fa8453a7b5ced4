"""The same order again in a new cart: back from a payment that locked the cart (v1), or after
the cart expired on the server; and one line made again with new choices (`replace_line`).

The new cart is started the same way to order (its table, room or address), then its lines,
choices, notes, code and later time are added one by one through the visit's own intents (so
each is serialised, re-read on refusal and published as any customer's change); what the server
refuses (sold out or gone since, a code no longer valid) is named, not fatal. A refused start
(that way is no longer offered) propagates. The tip is not copied: it is chosen again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from kiosk.api.errors import InvalidRequestError, NotFoundError, StorefrontError, UnprocessableError
from kiosk.i18n import N_, _
from kiosk.ordering.selections import request_selections, same_selections

if TYPE_CHECKING:
    from kiosk.api.models import Cart, DeliveryAddress
    from kiosk.ordering.modifiers import SelectionState
    from kiosk.ordering.visit_state import VisitState

log = logging.getLogger("kiosk.ordering")

__all__ = ["LineKeptError", "Orderer", "ReopenResult", "order_again", "replace_line"]


class LineKeptError(StorefrontError):
    """An edited line's new choice was added but the old line could not be removed: both are in
    the order (never neither); the customer removes the old one."""

    CODE = "LINE_KEPT"
    # Marked for the catalogue; the product screen shows it in the customer's language.
    default_message = N_(
        "Your new choice was added, but the old line is still in your order. "
        "Please remove it (Del)."
    )


@dataclass(frozen=True, slots=True)
class ReopenResult:
    """What `Visit.reopen_order()` (or `start_again()`) did: `completed`, the order paid
    meanwhile (nothing was touched; `order_number` is the server's); else the order is open
    again, less the lines (by name) and extras (the code, the tip, the later time) that `dropped`
    names (`dropped_lines`: the lines alone). `kept_handoff`: the same cart, and the code shown
    before still pays it (2.0)."""

    completed: Cart | None = None
    dropped: tuple[str, ...] = ()
    dropped_lines: tuple[str, ...] = ()
    order_number: str | None = None
    paid: bool = False
    kept_handoff: bool = False


class Orderer(Protocol):
    """The intents an order is made again with (the Visit's)."""

    async def start(
        self,
        fulfillment_method: str,
        *,
        table_number: str | None = None,
        delivery: DeliveryAddress | None = None,
        room: tuple[str, str] | None = None,
    ) -> Cart | None: ...

    async def add_item(
        self,
        product_id: str,
        quantity: int,
        selections: Sequence[Mapping[str, Any]] | None = None,
        special_instructions: str | None = None,
    ) -> Cart | None: ...

    async def apply_discount(self, code: str) -> Cart | None: ...

    async def set_quantity(self, item_id: str, quantity: int) -> Cart | None: ...

    async def remove_item(self, item_id: str) -> Cart | None: ...

    async def set_order_time_later(self, order_date: str, order_time: str) -> Cart | None: ...


async def order_again(visit: Orderer, cart: Cart, state: VisitState) -> ReopenResult:
    """`cart`'s order made again through `visit`, the way `state` (before the old cart was
    discarded) says it was ordered."""
    method = state.fulfillment_method or str(cart.fulfilment_method)
    await visit.start(
        method, table_number=state.table_number, delivery=state.delivery, room=state.room
    )
    lines: list[str] = []
    refused = (InvalidRequestError, NotFoundError, UnprocessableError)
    for item in cart.items:
        try:
            await visit.add_item(
                item.product_id,
                item.quantity,
                request_selections(item.selections),
                item.special_instructions,
            )
        except refused:
            lines.append(item.name or item.product_id)  # sold out or gone since
    dropped = list(lines)
    extras: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
    if cart.discount_code:
        code = cart.discount_code
        extras.append((f"code {code}", lambda: visit.apply_discount(code)))
    if not state.order_time.is_asap:
        day, at = state.order_time.order_date or "", state.order_time.order_time or ""
        extras.append(("the later time", lambda: visit.set_order_time_later(day, at)))
    for name, redo in extras:
        try:
            await redo()
        except refused:
            dropped.append(name)
    if cart.waiter_tip_total:
        dropped.append("the tip (please choose it again)")
    return ReopenResult(dropped=tuple(dropped), dropped_lines=tuple(lines))


async def replace_line(
    visit: Orderer,
    cart: Cart | None,
    item_id: str,
    quantity: int,
    selections: SelectionState | Sequence[Mapping[str, Any]],
) -> Cart | None:
    """A line of `cart` edited on the product screen: its choices and quantity replaced.

    The API edits only a line's quantity in place (2.0 contract: "Modifier changes are
    remove-then-add"; v1 has no such route either). So the same choices are a quantity change,
    and changed choices a new line: the new line is ADDED FIRST and the old one removed after,
    so that a failed second write leaves both lines in the order (said, with LineKeptError),
    never neither. Its note goes with the line."""
    from kiosk.ordering.modifiers import SelectionState

    old = next((i for i in cart.items if i.id == item_id), None) if cart else None
    if old is None:
        raise NotFoundError(_("This line is no longer in your order."), status=404)
    wanted = selections.to_request() if isinstance(selections, SelectionState) else selections
    if same_selections(old.selections, wanted):
        if quantity == old.quantity:
            return cart
        return await visit.set_quantity(item_id, quantity)
    await visit.add_item(old.product_id, quantity, wanted, old.special_instructions)
    try:
        return await visit.remove_item(item_id)
    except StorefrontError as exc:
        log.warning("edited line: the old line could not be removed (%s)", exc.code)
        raise LineKeptError(status=exc.status, code=LineKeptError.CODE) from exc
