"""Pydantic models of the contract's shapes: strict in what we send, tolerant in what we accept.

Every response model is frozen, keeps unknown fields (`extra="allow"`), reads camelCase and
snake_case, and never raises on a missing optional field. The menu is the exception that proves
it: lean slotted records, validated by the same rules, without the unknown fields (see "menus and
products"). A JSON null where a field has a default
gives the default (a null list is [], a null total is 0); a null for a required string gives "".
Money is integer minor units, parsed by kiosk.api.money's rule; each keeps its display twin.
"""

from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum
from functools import cache
from types import NoneType, UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    model_validator,
)
from pydantic.alias_generators import to_camel

from .money import format_money, parse_money, to_decimal_string

T = TypeVar("T")

__all__ = [
    "FULFILLMENT_ALIASES",
    "AddressData",
    "ApiModel",
    "AvailableTime",
    "Cart",
    "CartItem",
    "CartStatus",
    "CartValidation",
    "Category",
    "ChildGroup",
    "CustomerOrder",
    "DeliveryAddress",
    "DeliveryInfo",
    "Fees",
    "FulfillmentMethod",
    "Location",
    "Loyalty",
    "Menu",
    "MenuProduct",
    "MenusResponse",
    "Merchant",
    "MerchantLocation",
    "MethodsStatus",
    "ModifierGroup",
    "ModifierItem",
    "ModifierRule",
    "OpeningHours",
    "OrderDay",
    "OrderProgress",
    "OrderingSession",
    "PaymentIntent",
    "ProductDetail",
    "RoomServiceInfo",
    "SelectedOption",
    "Selection",
    "TableServiceInfo",
    "TimeIntervals",
    "TipSettings",
    "ValidationIssue",
    "normalize_fulfillment",
    "unavailable_lines",
    "validate_as",
]


# --------------------------------------------------------------------------- field types


def _money(value: Any) -> int:
    return parse_money(value)


def _optional_money(value: Any) -> int | None:
    return None if value is None else parse_money(value)


def _whole_number(value: Any) -> Any:
    # Quantities and calories: accept 2.0 (tolerant); anything else is left for pydantic to judge.
    if isinstance(value, float) and math.isfinite(value):
        return round(value)
    return value


def _string_list(value: Any) -> Any:
    # One null or number among a product's tags must not sink the whole menu (tolerant reader):
    # nulls are dropped, numbers kept as their text; anything else is left for pydantic to judge.
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) if isinstance(v, int | float) else v for v in value if v is not None]
    return value


Money = Annotated[int, BeforeValidator(_money)]
"""Integer minor units, from an API money string or int."""
StrList = Annotated[list[str], BeforeValidator(_string_list)]
OptionalMoney = Annotated[int | None, BeforeValidator(_optional_money)]
WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
OptionalWholeNumber = Annotated[int | None, BeforeValidator(_whole_number)]


class FulfillmentMethod(StrEnum):
    """What requests send as `fulfillmentMethod`."""

    PICKUP = "pickup"
    DELIVERY = "delivery"
    DINE_IN = "dine_in"
    TABLE_SERVICE = "table_service"
    ROOM_SERVICE = "room_service"


# Response spellings (contract: "Fulfillment values", A + P aliases). Compared case-insensitively.
FULFILLMENT_ALIASES: dict[str, FulfillmentMethod] = {
    "takeout": FulfillmentMethod.PICKUP,
    "take_out": FulfillmentMethod.PICKUP,
    "table_side": FulfillmentMethod.TABLE_SERVICE,
    "table": FulfillmentMethod.TABLE_SERVICE,
    "roomservice": FulfillmentMethod.ROOM_SERVICE,
    "dinein": FulfillmentMethod.DINE_IN,
}


def normalize_fulfillment(value: Any) -> FulfillmentMethod | str | None:
    """A response's fulfillment value as a FulfillmentMethod; unknown strings are kept as is."""
    if value is None or isinstance(value, FulfillmentMethod):
        return value
    if not isinstance(value, str):
        return str(value)
    key = value.strip().lower()
    try:
        return FulfillmentMethod(key)
    except ValueError:
        return FULFILLMENT_ALIASES.get(key, value)


# The validator turns known spellings into FulfillmentMethod members, which the union keeps as such.
Fulfillment = Annotated[FulfillmentMethod | str | None, BeforeValidator(normalize_fulfillment)]


class CartStatus:
    """Known cart statuses (spec: OPEN; public API: the rest). Unknown values are kept."""

    OPEN = "OPEN"
    LOCKED = "LOCKED"
    COMPLETED = "COMPLETED"
    EXPIRED = "EXPIRED"


# --------------------------------------------------------------------------- base


def _accepts_none(annotation: Any) -> bool:
    if annotation is None or annotation is NoneType or annotation is Any:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _accepts_none(get_args(annotation)[0])
    if origin is Union or origin is UnionType:
        return any(_accepts_none(arg) for arg in get_args(annotation))
    return False


@cache
def _null_plan(cls: type[BaseModel]) -> tuple[frozenset[str], frozenset[str]]:
    """(keys whose null means "use the default", keys whose null means "") for a model class."""
    to_default: set[str] = set()
    to_empty: set[str] = set()
    for name, info in cls.model_fields.items():
        if _accepts_none(info.annotation):
            continue
        keys = {name}
        if info.alias:
            keys.add(info.alias)
        if isinstance(info.validation_alias, AliasChoices):
            keys.update(c for c in info.validation_alias.choices if isinstance(c, str))
        elif isinstance(info.validation_alias, str):
            keys.add(info.validation_alias)
        if not info.is_required():
            to_default |= keys
        elif info.annotation is str:
            to_empty |= keys
    return frozenset(to_default), frozenset(to_empty)


class ApiModel(BaseModel):
    """Base of every API shape: frozen, unknown fields kept, camelCase or snake_case accepted."""

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        coerce_numbers_to_str=True,
        hide_input_in_errors=True,
        # Built at first use, not at import: the first frame does not wait for 40-odd schemas.
        defer_build=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _nulls_to_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        to_default, to_empty = _null_plan(cls)
        if not any(v is None and (k in to_default or k in to_empty) for k, v in data.items()):
            return data
        out = {}
        for key, value in data.items():
            if value is None and key in to_default:
                continue
            out[key] = "" if value is None and key in to_empty else value
        return out


class RequestModel(BaseModel):
    """Base of request shapes: strict (unknown fields refused), sent by alias without nulls."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )

    def to_request(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --------------------------------------------------------------------------- merchant, location


class MethodsStatus(ApiModel):
    """Which fulfillment methods a location offers now (keys as the API spells them)."""

    pickup: bool = False
    delivery: bool = False
    table: bool = False
    room_service: bool = False
    dine_in: bool = False

    def offers(self, method: FulfillmentMethod | str) -> bool:
        key = normalize_fulfillment(method)
        return {
            FulfillmentMethod.PICKUP: self.pickup,
            FulfillmentMethod.DELIVERY: self.delivery,
            FulfillmentMethod.TABLE_SERVICE: self.table,
            FulfillmentMethod.ROOM_SERVICE: self.room_service,
            FulfillmentMethod.DINE_IN: self.dine_in,
        }.get(key, False)  # type: ignore[call-overload]


class MerchantLocation(ApiModel):
    id: str
    slug: str | None = None
    restaurant_display_name: str = ""
    address_string: str | None = None
    methods_status: MethodsStatus | None = None

    @property
    def location_key(self) -> str:
        """What to put in a path: the slug when there is one, else the id (interchangeable, S)."""
        return self.slug or self.id


class Merchant(ApiModel):
    id: str
    name: str = ""
    currency: str = "usd"
    locations: list[MerchantLocation] = Field(default_factory=list)


class AddressData(ApiModel):
    street: str | None = None
    street_optional: str | None = None
    city: str | None = None
    state: str | None = None
    zip_code: str | None = None
    country: str | None = None
    lat: float | None = None
    lng: float | None = None


class OpeningHours(ApiModel):
    day: str = ""
    open: str | None = None
    close: str | None = None


class Location(ApiModel):
    id: str
    restaurant_slug: str | None = None
    restaurant_display_name: str = ""
    restaurant_bio: str | None = None
    address_data: AddressData | None = None
    address_string: str | None = None
    phone: str | None = None
    timezone: str | None = None
    # "" when the record does not say (2.0's location has no currency: its menus and carts do).
    # Never a guessed "usd": an AUD restaurant's amounts would read as dollars.
    currency: str = ""
    is_ordering_allowed: bool | None = None
    is_scheduled_order_allowed: bool | None = None
    methods_status: MethodsStatus | None = None
    hours: list[OpeningHours] = Field(default_factory=list)
    delivery_radius_miles: float | None = None


class OrderDay(ApiModel):
    value: str = ""
    label: str | None = None
    intervals: StrList = Field(default_factory=list)


class TimeIntervals(ApiModel):
    order_days: list[OrderDay] = Field(default_factory=list)
    schedule_allowed: bool = False
    # 2.0's OrderTimes: the location takes orders for later only (no "as soon as possible").
    require_scheduled_orders: bool = False

    def first_slot(self) -> tuple[OrderDay, str] | None:
        """The earliest slot offered (the day and its time), None when there is none."""
        return next(((day, at) for day in self.order_days for at in day.intervals), None)


class TipSettings(ApiModel):
    enabled: bool = False
    should_allow_custom_tip: bool = False
    tip_percentage: StrList = Field(default_factory=list)
    default_tip_percentage: str | None = None


# --------------------------------------------------------------------------- menus and products
#
# The menu is held once, lean: slotted frozen records (plain dataclasses with tuples) validated by
# pydantic straight from the payload, with the same rules as the models (money, nulls, numbers as
# text), kept in the client's cache and drawn by the menu screen as they are. Unknown fields are
# dropped here (a 5,000-product menu as frozen models with per-instance extras took 16.1 MiB); the
# full product, options and modifiers, is a model again when it is opened (`ProductDetail`).


def _null_is(default: Any) -> BeforeValidator:
    """A JSON null where the record has a default reads as that default (as `ApiModel` does)."""
    return BeforeValidator(lambda value: default if value is None else value)


def _shared_text(value: Any) -> Any:
    # Values repeated across thousands of products ("available", "usd", "vegan") are held once.
    return sys.intern(value) if isinstance(value, str) and len(value) <= 40 else value


def _shared_list(value: Any) -> Any:
    value = _string_list(value)
    if isinstance(value, list):
        return tuple(_shared_text(v) for v in value)
    return value


def _marked_words(value: Any) -> tuple[str, ...]:
    # Diet and allergen words: the strings kept, anything else dropped (tolerant reader).
    if not isinstance(value, list):
        return ()
    return tuple(_shared_text(v) for v in value if isinstance(v, str))


def _dietary_preferences(value: Any) -> tuple[str, ...]:
    # 2.0's `nutrition` object: only its diet words are kept on the lean record.
    return _marked_words(value.get("dietaryPreferences")) if isinstance(value, dict) else ()


LeanText = Annotated[str, _null_is("")]
SharedText = Annotated[str, BeforeValidator(_shared_text)]
SharedTexts = Annotated[tuple[str, ...], BeforeValidator(_shared_list)]
LeanMoney = Annotated[int, BeforeValidator(lambda v: 0 if v is None else parse_money(v))]

_LEAN = ConfigDict(
    alias_generator=to_camel,
    validate_by_name=True,
    validate_by_alias=True,
    coerce_numbers_to_str=True,
    hide_input_in_errors=True,
)


# Built on first use, not at import (startup stays light).
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def validate_as(kind: type[T], data: Any) -> T:
    """`data` validated as `kind`: a model (`model_validate`) or a lean menu record. Raises
    pydantic's ValidationError on bad data, like `model_validate`."""
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return kind.model_validate(data)
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    result: T = adapter.validate_python(data)
    return result


class _Priced:
    """What a listed product and its detail both answer."""

    __slots__ = ()
    if TYPE_CHECKING:
        availability: str
        display_price: str | None
        price: int
        currency: str | None

    @property
    def is_available(self) -> bool:
        return self.availability.strip().lower() == "available"

    def price_text(self, currency: str, locale: str | None = None) -> str:
        """The server's display price, or a fallback formatted here (always, in `locale`).

        `currency` is the location's (required: a product listed without one, as 2.0's
        cross-sell answers are, must not fall back to dollars in an AUD restaurant); it wins
        over the product's own field; with neither the amount is shown without a symbol."""
        if self.display_price and not locale:
            return self.display_price
        return format_money(self.price, currency or self.currency or "", locale)


@dataclass(frozen=True, slots=True)
class AvailableTime:
    __pydantic_config__ = _LEAN

    days: Annotated[SharedTexts, _null_is(())] = ()
    start: str | None = None
    end: str | None = None


@dataclass(frozen=True, slots=True)
class MenuProduct(_Priced):
    """A product as a menu lists it (lean: see above)."""

    __pydantic_config__ = _LEAN

    id: LeanText
    name: LeanText = ""
    description: str | None = None
    price: LeanMoney = 0
    display_price: str | None = None
    currency: SharedText | None = None
    # A product that does not say is taken as available (assumption A); the server re-checks on add.
    availability: Annotated[SharedText, _null_is("available")] = "available"
    images: SharedTexts = ()
    modifier_ids: SharedTexts = ()
    tags: SharedTexts = ()
    calories: OptionalWholeNumber = None
    available_times: Annotated[tuple[AvailableTime, ...], _null_is(())] = ()
    # What kiosk.ordering.diet reads beside the tags: an `allergens` list and 2.0's
    # `nutrition.dietaryPreferences` (kept as its words only).
    allergens: Annotated[tuple[str, ...], BeforeValidator(_marked_words)] = ()
    dietary_preferences: Annotated[tuple[str, ...], BeforeValidator(_dietary_preferences)] = Field(
        default=(), validation_alias="nutrition"
    )


@dataclass(frozen=True, slots=True)
class Category:
    __pydantic_config__ = _LEAN

    id: LeanText
    name: LeanText = ""
    products: Annotated[tuple[MenuProduct, ...], _null_is(())] = ()


@dataclass(frozen=True, slots=True)
class Menu:
    __pydantic_config__ = _LEAN

    id: LeanText
    name: LeanText = ""
    is_active: Annotated[bool, _null_is(True)] = True
    time: str | None = None
    categories: Annotated[tuple[Category, ...], _null_is(())] = ()


@dataclass(frozen=True, slots=True)
class MenusResponse:
    """The menus of a location (lean)."""

    __pydantic_config__ = _LEAN

    menus: Annotated[tuple[Menu, ...], _null_is(())] = ()
    popular_products: Annotated[tuple[MenuProduct, ...], _null_is(())] = ()


class ModifierRule(ApiModel):
    """How many options of a group may be chosen in total. `max` None means no upper limit."""

    min: WholeNumber = 0
    max: OptionalWholeNumber = None


class ChildGroup(ApiModel):
    """A ModifierChildLink: the group an option opens. 2.0's link may carry `overrides` {min,
    max} (openapi-facts ModifierChildLink): the same group can be optional under one option and
    required under another. The link's rule is the one that holds, so it is applied here, once,
    to the group this link carries: everything after (the rules, the screen, the preview) reads
    one rule."""

    group_id: str = ""
    group: ModifierGroup | None = None
    overrides: ModifierRule | None = None

    @model_validator(mode="after")
    def _apply_overrides(self) -> ChildGroup:
        if self.overrides is not None and self.group is not None:
            given = self.overrides.model_fields_set
            rule = self.group.rule.model_copy(
                update={k: getattr(self.overrides, k) for k in ("min", "max") if k in given}
            )
            group = self.group.model_copy(
                update={"rule": rule, "required": None, "quantity": None, "is_fixed": None}
            )
            return self.model_copy(update={"group": group})
        return self


class ModifierItem(ApiModel):
    id: str
    name: str = ""
    price: Money = 0
    price_formatted: str | None = Field(
        default=None,
        validation_alias=AliasChoices("priceFormatted", "displayPrice", "price_formatted"),
    )
    # 0 means sold out (contract). Missing: at most one of this option (assumption A).
    max_quantity: WholeNumber = 1
    is_default: bool = False
    child_groups: list[ChildGroup] = Field(default_factory=list)

    @property
    def is_sold_out(self) -> bool:
        return self.max_quantity <= 0


class ModifierGroup(ApiModel):
    """A modifier group. `rule` is read from the new shape, or derived from the legacy trio
    `required` / `quantity` / `isFixed` when `rule` is absent: required -> min 1; isFixed ->
    min = max = quantity; quantity -> max, 0 or missing meaning no limit."""

    id: str
    name: str = ""
    description: str | None = None
    rule: ModifierRule = Field(default_factory=ModifierRule)
    items: list[ModifierItem] = Field(default_factory=list)
    required: bool | None = None
    quantity: OptionalWholeNumber = None
    is_fixed: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _rule_from_legacy(cls, data: Any) -> Any:
        if not isinstance(data, dict) or isinstance(data.get("rule"), dict | ModifierRule):
            return data
        quantity = _whole_number(data.get("quantity"))
        quantity = quantity if isinstance(quantity, int) and quantity > 0 else None
        fixed = bool(data.get("isFixed", data.get("is_fixed")))
        required = bool(data.get("required"))
        rule: dict[str, int | None]
        if fixed and quantity is not None:
            rule = {"min": quantity, "max": quantity}
        else:
            rule = {"min": 1 if required else 0, "max": quantity}
        return {**data, "rule": rule}

    @property
    def min_selections(self) -> int:
        return self.rule.min

    @property
    def max_selections(self) -> int | None:
        return self.rule.max

    @property
    def is_required(self) -> bool:
        return self.rule.min > 0


class ProductDetail(_Priced, ApiModel):
    """A product opened: its menu fields and its modifier groups, validated in full (unknown
    fields kept, like every model)."""

    id: str
    name: str = ""
    description: str | None = None
    price: Money = 0
    display_price: str | None = None
    currency: str | None = None
    availability: str = "available"
    images: StrList = Field(default_factory=list)
    modifier_ids: StrList = Field(default_factory=list)
    tags: StrList = Field(default_factory=list)
    calories: OptionalWholeNumber = None
    available_times: list[AvailableTime] = Field(default_factory=list)
    modifiers: list[ModifierGroup] = Field(default_factory=list)

    @classmethod
    def from_listed(cls, listed: MenuProduct) -> ProductDetail:
        """The detail of a listed product that names no modifier groups: nothing more to fetch."""
        fields = asdict(listed)
        # The diet words go back under the names the payload gave them (extras of the model).
        allergens, preferences = fields.pop("allergens"), fields.pop("dietary_preferences")
        if allergens:
            fields["allergens"] = list(allergens)
        if preferences:
            fields["nutrition"] = {"dietaryPreferences": list(preferences)}
        return cls.model_validate({**fields, "modifiers": []})


# --------------------------------------------------------------------------- requests


class SelectedOption(RequestModel):
    option_id: str
    quantity: int = Field(default=1, ge=1)
    children: list[Selection] = Field(default_factory=list)

    def to_request(self) -> dict[str, Any]:
        out: dict[str, Any] = {"optionId": self.option_id, "quantity": self.quantity}
        if self.children:  # optional in the contract: sent only when there is something to send
            out["children"] = [c.to_request() for c in self.children]
        return out


class Selection(RequestModel):
    """One modifier group's choice, as add-item requests send it."""

    group_id: str
    selected_options: list[SelectedOption] = Field(default_factory=list)

    def to_request(self) -> dict[str, Any]:
        return {
            "groupId": self.group_id,
            "selectedOptions": [o.to_request() for o in self.selected_options],
        }


class DeliveryAddress(RequestModel):
    street: str
    city: str
    state: str
    zip_code: str
    country: str
    street_optional: str | None = None
    lat: float | None = None
    lng: float | None = None


# --------------------------------------------------------------------------- cart


class Fees(ApiModel):
    """Rates (4-decimal fractions) and fixed amounts (2 decimals), strings as sent (spec 2.6)."""

    enterprise_fee_rate: str | None = None
    enterprise_fee_fix: str | None = None
    service_fee_rate: str | None = None
    service_fee_fix: str | None = None
    tax_rate: str | None = None
    tip_rate: str | None = None
    fulfillment_method_fee_fix: str | None = None
    fulfillment_method_fee_rate: str | None = None
    payment_processing_fee_rate: str | None = None
    payment_processing_fee_fix: str | None = None


class DeliveryInfo(ApiModel):
    address_string: str | None = None
    address_data: dict[str, Any] | None = None


class TableServiceInfo(ApiModel):
    table_number: str | None = None


class RoomServiceInfo(ApiModel):
    last_name: str | None = None
    room_number: str | None = None


class CartItem(ApiModel):
    id: str
    product_id: str = ""
    name: str = ""
    description: str | None = None
    image_url: str | None = None
    quantity: WholeNumber = 0
    price: Money = 0
    price_formatted: str | None = None
    total: Money = 0
    total_formatted: str | None = None
    discount: Money = 0
    discount_formatted: str | None = None
    # Entry shape not fixed by the spec: kept exactly as it came.
    selections: list[Any] = Field(default_factory=list)
    special_instructions: str | None = None
    # Not in either contract's line; a 2.0 server may say the product's own word here once it
    # sells out ("sold_out"). Missing means available.
    availability: str | None = None

    @property
    def is_unavailable(self) -> bool:
        """The server marks this line as no longer orderable (sold out, withdrawn)."""
        said = (self.availability or "").strip().lower()
        return bool(said) and said != "available"


_TOTALS = (
    "sub_total",
    "discount_total",
    "waiter_tip_total",
    "tax_total",
    "tax_and_fee_total",
    "service_fee_total",
    "payment_processing_fee_total",
    "application_fee_total",
    "net_sales_total",
    "fulfillment_method_fee_total",
    "order_total_with_service_fee",
    "order_total",
    "enterprise_fee_total",
    "sub_total_without_discount",
)


class Cart(ApiModel):
    """The cart, spec 2.4 to 2.7. Totals are int minor units; `<total>_formatted` is the twin."""

    TOTALS: ClassVar[tuple[str, ...]] = _TOTALS

    id: str
    location_id: str = ""
    status: str = CartStatus.OPEN
    locked_at: str | None = None
    discount_code: str | None = None
    currency: str = "usd"
    # Responses spell it `fulfilmentMethod` (S); the other spelling is read too.
    fulfilment_method: Fulfillment = Field(
        default=None,
        validation_alias=AliasChoices("fulfilmentMethod", "fulfillmentMethod", "fulfilment_method"),
    )
    statement_descriptor: str | None = None
    pickup_type: str | None = None
    order_date: str | None = None
    order_time: str | None = None
    total_quantity: WholeNumber = 0
    restaurant_display_name: str = ""
    delivery_info: DeliveryInfo | None = None
    table_service_info: TableServiceInfo | None = None
    room_service_info: RoomServiceInfo | None = None
    fees: Fees = Field(default_factory=Fees)
    items: list[CartItem] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    checkout_url: str | None = None
    fulfillment_identifier: str | None = None

    sub_total: Money = 0
    sub_total_formatted: str | None = None
    discount_total: Money = 0
    discount_total_formatted: str | None = None
    waiter_tip_total: Money = 0
    waiter_tip_total_formatted: str | None = None
    tax_total: Money = 0
    tax_total_formatted: str | None = None
    tax_and_fee_total: Money = 0
    tax_and_fee_total_formatted: str | None = None
    service_fee_total: Money = 0
    service_fee_total_formatted: str | None = None
    payment_processing_fee_total: Money = 0
    payment_processing_fee_total_formatted: str | None = None
    application_fee_total: Money = 0
    application_fee_total_formatted: str | None = None
    net_sales_total: Money = 0
    net_sales_total_formatted: str | None = None
    fulfillment_method_fee_total: Money = 0
    fulfillment_method_fee_total_formatted: str | None = None
    order_total_with_service_fee: Money = 0
    order_total_with_service_fee_formatted: str | None = None
    order_total: Money = 0
    order_total_formatted: str | None = None
    enterprise_fee_total: Money = 0
    enterprise_fee_total_formatted: str | None = None
    sub_total_without_discount: Money = 0
    sub_total_without_discount_formatted: str | None = None
    # Spec: minor units as a number; the vendor fixture sends 5.5 (major units). Kept as sent;
    # screens show the string totals instead.
    order_total_with_service_fee_amount: int | float | None = None

    @property
    def fulfillment_method(self) -> FulfillmentMethod | str | None:
        """The same value under the request spelling."""
        return self.fulfilment_method

    @property
    def status_upper(self) -> str:
        return (self.status or "").strip().upper()

    @property
    def is_open(self) -> bool:
        return self.status_upper == CartStatus.OPEN and self.locked_at is None

    @property
    def is_locked(self) -> bool:
        """Not editable any more: LOCKED, or `lockedAt` set (spec), or already COMPLETED."""
        return (
            self.status_upper in (CartStatus.LOCKED, CartStatus.COMPLETED)
            or self.locked_at is not None
        )

    @property
    def is_completed(self) -> bool:
        return self.status_upper == CartStatus.COMPLETED

    @property
    def is_expired(self) -> bool:
        return self.status_upper == CartStatus.EXPIRED

    @property
    def item_count(self) -> int:
        return self.total_quantity or sum(item.quantity for item in self.items)

    @property
    def amount_due(self) -> int:
        """What the customer pays, minor units: `orderTotalWithServiceFee` (the service,
        processing and platform fees added), else `orderTotal` (the receipt's Total row)."""
        return self.order_total_with_service_fee or self.order_total

    def formatted(self, total: str, locale: str | None = None) -> str:
        """Display text of a total: the server's twin, else a local fallback; in `locale` (another
        language than the server's) always formatted here. `total` is a name in Cart.TOTALS
        (snake_case)."""
        if total not in _TOTALS:
            raise KeyError(total)
        twin = getattr(self, f"{total}_formatted")
        if twin and not locale:
            return str(twin)
        return format_money(getattr(self, total), self.currency, locale)


class ValidationIssue(ApiModel):
    code: str = ""
    message: str = ""
    item_id: str | None = None


class CartValidation(ApiModel):
    valid: bool = False
    errors: list[ValidationIssue] = Field(default_factory=list)


class Readiness(ApiModel):
    """2.0's ordering readiness (contract section 2): whether an order for as soon as possible
    is taken now (`ready`), and the server's reason when it is not (closed now)."""

    ready: bool = True
    reason: str | None = None


def unavailable_lines(cart: Cart | None, said: Any = None) -> tuple[str, ...]:
    """Which of the cart's lines can no longer be ordered, in the cart's order: the one reading
    of it for both dialects. A line counts when the cart marks it (`CartItem.is_unavailable`),
    when a refusal names it by line or by product (`StorefrontError.unavailable_items` and
    `unavailable_products`, read by the dialect from its own shapes: 2.0's ITEM_UNAVAILABLE),
    or when a validation names it (v1's validate: an issue with the line's `itemId`)."""
    if cart is None:
        return ()
    lines = set(getattr(said, "unavailable_items", ()))
    products = set(getattr(said, "unavailable_products", ()))
    if isinstance(said, CartValidation):
        lines.update(issue.item_id for issue in said.errors if issue.item_id)
    return tuple(
        item.id
        for item in cart.items
        if item.is_unavailable or item.id in lines or item.product_id in products
    )


class OrderingSession(ApiModel):
    """Row 8's result. A refusal may come as `errorMessage` with no cart: check `ok`."""

    cart_id: str = ""
    error_message: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.cart_id) and not self.error_message


class PaymentIntent(ApiModel):
    """The processor's hand-off. `client_secret` is a SecretStr: repr and str never show it."""

    client_secret: SecretStr
    payment_intent_id: str | None = None
    amount: OptionalMoney = None
    currency: str | None = None
    # Not in the contract's row 24; some backends (the demo) send it here too. The cart has it.
    checkout_url: str | None = None
    # 2.0's checkout hand-off expires (`expiresAt`); after that a fresh one is asked for.
    expires_at: datetime | None = None

    def amount_text(self) -> str | None:
        return None if self.amount is None else to_decimal_string(self.amount)


@dataclass(frozen=True, slots=True)
class OrderProgress:
    """Where a handed-off cart's payment stands, as the server's payment poll says it (2.0's
    `order-result`, contract section 7): `state` is "payment_pending", "order_pending",
    "completed" or "failed"; a completed order's `order.shortId` is `order_number` (the number
    the customer is told); a failed one's `code` is `failure_code`. An unknown state is kept as
    sent (the kiosk then keeps waiting)."""

    state: str
    order_number: str | None = None
    failure_code: str | None = None
    # A completed order's total (minor units) and its lines' quantities added up, when the poll
    # says them (2.0's `order.pricing.total`, `order.items`): the cart already held is the
    # receipt when they agree with it (CartStore.check_payment), not read again.
    total: int | None = None
    quantity: int | None = None

    @property
    def completed(self) -> bool:
        return self.state == "completed"

    def agrees_with(self, cart: Cart | None) -> bool:
        """True when this completed order is `cart` as the kiosk holds it: the same amount paid
        and the same quantities on its lines, added up."""
        return (
            cart is not None
            and self.total is not None
            and self.quantity is not None
            and self.total == cart.amount_due
            and self.quantity == sum(item.quantity for item in cart.items)
        )

    @property
    def failed(self) -> bool:
        return self.state == "failed"


# --------------------------------------------------------------------------- other vendor shapes


class CustomerOrder(ApiModel):
    """The vendor's order shape (vendor-fixtures/customer_order.json). No contract row reads orders;
    kept so the client can parse it if a backend ever returns one (e.g. inside a completed cart)."""

    id: str
    short_id: str | None = None
    status: str | None = None
    fulfillment_method: Fulfillment = Field(
        default=None,
        validation_alias=AliasChoices(
            "fulfillmentMethod", "fulfilmentMethod", "fulfillment_method"
        ),
    )
    fulfillment_identifier: str | None = None
    currency: str = "usd"
    order_total: Money = 0
    total_quantity: WholeNumber = 0
    items: list[dict[str, Any]] = Field(default_factory=list)


class Loyalty(ApiModel):
    """The vendor's loyalty shape (vendor-fixtures/loyalty.json). Not offered by the kiosk; parsed
    loosely so such a body never breaks anything."""

    quote: dict[str, Any] | None = None
    ledger: dict[str, Any] | None = None


ChildGroup.model_rebuild()
SelectedOption.model_rebuild()
