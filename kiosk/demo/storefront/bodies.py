"""The 2.0 request bodies as pydantic models: the write handlers parse their bodies with these, and
the OpenAPI document (kiosk.demo.openapi) is generated from the same models, so the two cannot
drift apart. Closed objects, as the vendor's are; strict types (no "5" for 5).

What a model checks is the body's shape and the simple bounds of a member; what needs the
location, the cart or the catalog (a product, a tip the location allows, the delivery radius) stays
with the domain (kiosk.demo.backend), which answers with its own codes. `parse` turns a refusal into
the 2.0 envelope's 400 VALIDATION_ERROR naming the member, with the messages the handlers used.

Models are built on first use (`defer_build`): `kiosk demo`'s start pays only for the classes.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from kiosk.demo.storefront.errors import V2Error

FulfillmentMethod = Literal["takeout", "table_side", "room_service", "delivery"]
Country = Literal["United States", "United Arab Emirates", "Australia", "United Kingdom"]
Decimal = Annotated[str, StringConstraints(pattern=r"^\d+(?:\.\d+)?$")]
EMAIL = r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$"
Latitude = Annotated[float, Field(ge=-90, le=90)]
Longitude = Annotated[float, Field(ge=-180, le=180)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class EmptyBody(Body):
    """An optional closed `{}` (DELETE cart, DELETE discount, checkout hand-off)."""


class DistanceRequest(Body):
    lat: Latitude
    lng: Longitude
    unit: Literal["miles", "kilometers"] = "miles"


class OrderingSessionRequest(Body):
    fulfillmentMethod: FulfillmentMethod
    # Resuming a cart also needs its X-Cart-Token and If-Match.
    existingCartId: Annotated[str, StringConstraints(pattern=r"^[a-f\d]{24}$")] | None = None
    marketplaceId: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    channel: Literal["qr", "web", "kiosk", "app", "pos", "unknown"] | None = None
    metadata: dict[str, Any] | None = None
    returnUrl: Annotated[str, StringConstraints(max_length=2048)] | None = None


class CartPatch(Body):
    fulfillmentMethod: FulfillmentMethod | None = None
    note: Annotated[str, StringConstraints(max_length=500)] | None = None


class CustomerDetails(Body):
    """validate-and-update: the cart is checked for payment, then the customer is stored."""

    customerName: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)
    ]
    # The domain's rule (kiosk.demo.domain.checkout.EMAIL_RE): "@" alone is no address.
    emailAddress: Annotated[str, StringConstraints(max_length=254, pattern=EMAIL)] | None = None
    phoneNumber: Annotated[str, StringConstraints(max_length=32)] | None = None


class GratuityRequest(Body):
    """A percentage ("18") or an amount in major units ("5.00"), never both; the location says
    which. (The document says so too: `not: {required: [amount, percentage]}`.)"""

    model_config = Body.model_config | ConfigDict(
        json_schema_extra={"not": {"required": ["amount", "percentage"]}}
    )
    amount: Decimal | None = None
    percentage: Decimal | None = None

    @model_validator(mode="after")
    def _one_of(self) -> GratuityRequest:
        if self.amount is not None and self.percentage is not None:
            raise PydanticCustomError("one_of", "send amount or percentage, not both")
        return self


class DeliveryAddress(Body):
    street: Annotated[str, StringConstraints(min_length=1)]
    streetOptional: str | None = None
    city: Annotated[str, StringConstraints(min_length=1)]
    state: Annotated[str, StringConstraints(min_length=1)]
    zipCode: Annotated[str, StringConstraints(min_length=1)]
    country: Country
    lat: Latitude
    lng: Longitude


class TableRequest(Body):
    tableNumber: Decimal


class RoomRequest(Body):
    lastName: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    roomNumber: Annotated[str, StringConstraints(max_length=20, pattern=r"^\d+(?:\.\d+)?$")]


class OrderTimeAsap(Body):
    pickupType: Literal["ASAP"]


class OrderTimeLater(Body):
    """A slot from time-intervals (the domain checks that it is one)."""

    pickupType: Literal["LATER"]
    orderDate: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    orderTime: Annotated[str, StringConstraints(min_length=1, max_length=32)]


OrderTimeRequest = Annotated[OrderTimeAsap | OrderTimeLater, Field(discriminator="pickupType")]


class SelectedOption(Body):
    optionId: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    # The range (up to the option's own maximum) is the catalog's: INVALID_MODIFIER_SELECTION.
    quantity: int = 1
    children: list[SelectedModifierGroup] | None = None


class SelectedModifierGroup(Body):
    groupId: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    selectedOptions: Annotated[list[SelectedOption], Field(max_length=50)]


class AddCartItem(Body):
    productId: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    quantity: Annotated[int, Field(ge=1, le=99)]
    itemUnavailableAction: Literal["remove_item", "cancel_entire_order"]
    specialInstructions: Annotated[str, StringConstraints(max_length=500)] | None = None
    categoryId: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    selections: Annotated[list[SelectedModifierGroup], Field(max_length=50)] | None = None


class ItemQuantity(Body):
    """0 removes the line."""

    quantity: Annotated[int, Field(ge=0, le=99)]


class DiscountRequest(Body):
    code: Annotated[str, StringConstraints(min_length=6, max_length=24, pattern=r"^[A-Za-z0-9]+$")]


# The messages the handlers gave before the models did the checking (a client shows them).
MESSAGES = {
    "lat": "lat is out of range",
    "lng": "lng is out of range",
    "unit": "unit must be miles or kilometers",
    "fulfillmentMethod": "Unknown fulfillmentMethod",
    "existingCartId": "existingCartId must be 24 hex characters",
    "note": "note is at most 500 characters",
    "customerName": "customerName is 1-100 characters",
    "emailAddress": "emailAddress is not an e-mail address",
    "phoneNumber": "phoneNumber is at most 32 characters",
    "country": "country must be a country this API names",
    "tableNumber": "tableNumber must be digits",
    "roomNumber": "roomNumber must be digits",
    "pickupType": "pickupType must be ASAP or LATER",
    "itemUnavailableAction": "Unknown itemUnavailableAction",
    "code": "code is 6-24 letters or digits",
    "amount": 'amount must be a decimal string such as "5.00"',
    "percentage": 'percentage must be a decimal string such as "18"',
}
# A tagged union puts the tag before the member in an error's location.
_TAGS = {"ASAP", "LATER"}


@cache
def adapter(body_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(body_type)


def parse(body_type: Any, value: Any) -> dict[str, Any]:
    """The body the edge parsed (None: none sent) as the model reads it (JSON-ready, defaults
    filled in), or a V2Error 400."""
    types = adapter(body_type)
    try:
        parsed = types.validate_python({} if value is None else value)
    except ValidationError as exc:
        raise _refusal(exc) from None
    out: dict[str, Any] = types.dump_python(parsed, mode="json")
    return out


def _refusal(exc: ValidationError) -> V2Error:
    error = exc.errors(include_url=False)[0]
    kind = error["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        where = str((error.get("ctx") or {}).get("discriminator", "")).strip("'")
        message = MESSAGES.get(where, f"{where} is required")
        return V2Error(400, "VALIDATION_ERROR", message, {"field": where})
    loc = [str(part) for part in error["loc"] if part not in _TAGS]
    if kind == "one_of":
        return V2Error(400, "VALIDATION_ERROR", error["msg"], {"field": "amount"})
    if not loc:
        return V2Error(400, "VALIDATION_ERROR", "The body must be a JSON object")
    where = ".".join(loc)
    if kind == "extra_forbidden":
        message = f"Unknown member {loc[-1]!r}"
    elif kind == "missing":
        message = f"{where} is required"
    elif where in MESSAGES:
        message = MESSAGES[where]
    elif error.get("input") is None:
        message = f"{where} is required"
    else:
        message = f"{where}: {error['msg']}"
    return V2Error(400, "VALIDATION_ERROR", message, {"field": where})
