"""What a server's refusal concerns, so that the Visit reads that again (Visit.reread_refused).

A refusal names the field it is about (2.0's `details.field`, v1's `field`): a refused time names
the order time, a refused way to order the fulfillment method. Whatever the request was (setting
a time, a hand-off of a cart holding a taken time, an ordering session, a restart's resume), the
same refusal re-reads the same thing: the slots, or the location's ways to order.
"""

from __future__ import annotations

import enum

from kiosk.api.errors import InvalidRequestError, StorefrontError, UnprocessableError
from kiosk.ordering.cart_store import WayGoneError

__all__ = ["Concern", "refusal_concerns"]


class Concern(enum.Enum):
    TIME = "time"
    WAY = "way to order"


# The request fields each concern goes by, in both dialects' spellings.
_FIELDS = {
    Concern.TIME: frozenset({"orderTime", "orderDate", "pickupType", "order_time", "order_date"}),
    Concern.WAY: frozenset(
        {"fulfillmentMethod", "fulfilmentMethod", "fulfillment_method", "fulfilment_method"}
    ),
}
# Refusal codes that say the same without a field.
_CODES = {Concern.TIME: frozenset({"SLOT_UNAVAILABLE"})}


def refusal_concerns(exc: StorefrontError) -> Concern | None:
    """The time or the way to order when the server refused one of them, else None (a refusal
    of something else, or a failure that is no refusal: the network, a rate limit, a conflict)."""
    if isinstance(exc, WayGoneError):
        return Concern.WAY
    if not isinstance(exc, InvalidRequestError | UnprocessableError):
        return None
    reason = exc.details.get("reason")
    for concern, fields in _FIELDS.items():
        if exc.field in fields:
            return concern
        if exc.has_code(*_CODES.get(concern, ())) or reason in _CODES.get(concern, ()):
            return concern
    return None
