"""What a server's refusal concerns (kiosk.ordering.refusals): the Visit reads that again."""

from __future__ import annotations

import pytest

from kiosk.api.errors import (
    APIConnectionError,
    ConflictError,
    InvalidRequestError,
    RateLimitedError,
    StorefrontError,
    UnprocessableError,
)
from kiosk.ordering.cart_store import WayGoneError
from kiosk.ordering.refusals import Concern, refusal_concerns

TAKEN = "That time is not one of the offered slots."
OFF = "Delivery orders are not available at Harbour Noodles Quayside right now."


@pytest.mark.parametrize(
    ("error", "concern"),
    [
        (InvalidRequestError(server_message=TAKEN, field="orderTime"), Concern.TIME),
        (InvalidRequestError(field="orderDate"), Concern.TIME),
        # A hand-off of a cart holding a taken time.
        (
            InvalidRequestError(field="orderTime", details={"reason": "SLOT_UNAVAILABLE"}),
            Concern.TIME,
        ),
        (InvalidRequestError(details={"reason": "SLOT_UNAVAILABLE"}), Concern.TIME),
        (UnprocessableError(field="order_time"), Concern.TIME),
        (InvalidRequestError(server_message=OFF, field="fulfillmentMethod"), Concern.WAY),
        (UnprocessableError(field="fulfillment_method"), Concern.WAY),
        (WayGoneError(server_message=OFF), Concern.WAY),
        # Refusals of something else, and failures that are no refusal.
        (InvalidRequestError(field="code", details={"reason": "MINIMUM_NOT_MET"}), None),
        (InvalidRequestError(field="items", details={"reason": "ITEM_UNAVAILABLE"}), None),
        (InvalidRequestError(), None),
        (ConflictError(field="orderTime"), None),
        (APIConnectionError(), None),
        (RateLimitedError(retry_after=2), None),
        (StorefrontError(field="fulfillmentMethod"), None),
    ],
)
def test_what_a_refusal_concerns(error: StorefrontError, concern: Concern | None) -> None:
    assert refusal_concerns(error) is concern
