"""The 2.0 answers as the OpenAPI document states them (kiosk.demo.openapi).

The handlers build their JSON in shapes.py; these types describe it for the document, and the
conformance test (tests/demo/test_openapi_docs.py) checks every answer against them. The error
envelope and the small answers are stated member by member; a cart only by the members a client
steers by (the vendor's StorefrontCart has 46 required members: `shapes.cart` is their truth).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, StringConstraints, with_config
from typing_extensions import TypedDict

from kiosk.demo.storefront.bodies import FulfillmentMethod

Text = Annotated[str, StringConstraints(min_length=1)]
Amount = Annotated[str, StringConstraints(pattern=r"^-?\d+(?:\.\d+)?$")]
CLOSED = ConfigDict(extra="forbid", defer_build=True)
OPEN = ConfigDict(extra="allow", defer_build=True)


@with_config(CLOSED)
class ErrorEnvelope(TypedDict):
    code: Text
    message: Text
    requestId: Annotated[str, StringConstraints(min_length=8)]
    details: NotRequired[dict[str, Any]]


@with_config(OPEN)
class Cart(TypedDict):
    id: Text
    locationId: Text
    status: Literal["OPEN", "LOCKED", "COMPLETED", "EXPIRED"]
    revision: Annotated[int, Field(ge=0)]
    fulfilmentMethod: FulfillmentMethod
    currency: Text
    items: list[dict[str, Any]]
    orderTotal: Amount
    orderTotalWithServiceFeeAmount: int
    expiresAt: Text


@with_config(CLOSED)
class OrderingSession(TypedDict):
    cart: Cart
    cartAccessToken: NotRequired[Text]  # only for a new cart


@with_config(CLOSED)
class CheckoutHandoff(TypedDict):
    checkoutUrl: Text
    expiresAt: Text


@with_config(CLOSED)
class OrderPending(TypedDict):
    state: Literal["payment_pending"]


@with_config(CLOSED)
class OrderCompleted(TypedDict):
    state: Literal["completed"]
    order: dict[str, Any]


@with_config(CLOSED)
class OrderFailed(TypedDict):
    state: Literal["failed"]
    code: Text


@with_config(CLOSED)
class NotReady(TypedDict):
    ready: Literal[False]
    fulfillmentMethod: FulfillmentMethod
    reason: Text


@with_config(CLOSED)
class Ready(TypedDict):
    ready: Literal[True]
    fulfillmentMethod: FulfillmentMethod
    pickupType: Literal["ASAP", "LATER"]
    orderDate: Text
    orderTime: Text


OrderResult = OrderPending | OrderCompleted | OrderFailed
Readiness = Ready | NotReady
Recommendations = list[dict[str, Any]]
AnyObject = dict[str, Any]
