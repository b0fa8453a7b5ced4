"""Reading a demo restaurant file (TOML) and checking it before the demo starts.

    load_file(path, name=None) -> records.Restaurant     raises MenuFileError

The format is described in kiosk/demo/README.md ("Restaurant files"). The check has two layers:
typed records (pydantic, strict: a price written as "9.50" is refused, not converted; unknown keys
are refused, so a misspelt field does not silently fall back to its default), then the references
between them (every product a menu names exists, ids are unique, ...). Every problem found is
reported at once, each as `<file>: <path>: <message>`, e.g. `menu.toml: products[3].price: Input
should be greater than or equal to 0`.

Money is integer minor units (the demo backend's unit everywhere); rates are decimal strings.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Literal, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from kiosk.demo import records

MAX_PROBLEMS = 20  # listed in one message; the rest are counted
MAX_GROUP_DEPTH = 4  # nested child groups, as deep as the catalog serves them (catalog.MAX_DEPTH)
# The demo formats money with two decimals; these currencies have none or three.
NOT_TWO_DECIMALS = {"bhd", "clp", "isk", "jod", "jpy", "krw", "kwd", "omr", "pyg", "tnd", "vnd"}


class MenuFileError(Exception):
    """A restaurant file that cannot be used; str() names the file and the path of each problem."""

    def __init__(self, name: str, problems: list[tuple[str, str]]) -> None:
        self.name = name
        self.problems = problems
        lines = [f"{name}: {path}: {msg}" if path else f"{name}: {msg}" for path, msg in problems]
        if len(lines) > MAX_PROBLEMS:
            lines = [*lines[:MAX_PROBLEMS], f"{name}: ... and {len(lines) - MAX_PROBLEMS} more"]
        super().__init__("\n".join(lines))


# --- field types ----------------------------------------------------------------------------------


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"{value!r} is not a known time zone (an IANA name such as Europe/Berlin)"
        ) from None
    return value


def _rate(value: str) -> str:
    try:
        rate = Decimal(value)
    except InvalidOperation:
        raise ValueError(f'{value!r} is not a decimal number such as "0.0888"') from None
    if not rate.is_finite() or not 0 <= rate < 1:
        raise ValueError(
            "must be a fraction from 0 up to (not including) 1, e.g. 0.0888 for 8.88 %"
        )
    if rate != rate.quantize(Decimal("0.0001")):
        raise ValueError("must have at most 4 decimals")
    return value


def _currency(value: str) -> str:
    if not re.fullmatch(r"[a-z]{3}", value):
        raise ValueError(f'{value!r} is not a lowercase ISO 4217 code such as "usd"')
    if value in NOT_TWO_DECIMALS:
        raise ValueError(f"{value!r} has no two decimal places; the demo's money needs them")
    return value


Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
Text = Annotated[str, Field(max_length=1000)]
# Under 10^6 major units: far below the backend's bound on any amount (money.MAX_MAJOR).
Minor = Annotated[int, Field(ge=0, le=99_999_999)]
Clock = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")]
Rate = Annotated[str, AfterValidator(_rate)]
Tag = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=40)]
Day = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
Method = Literal["pickup", "dine_in", "table_service", "delivery", "room_service"]


class _Record(BaseModel):
    # strict: TOML already gives typed values, so a string where a number belongs is a mistake.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --- records --------------------------------------------------------------------------------------


class MerchantIn(_Record):
    id: Id
    slug: Slug
    name: Name
    currency: Annotated[str, AfterValidator(_currency)]


class AddressIn(_Record):
    street: Name
    city: Name
    state: Text = ""
    zip_code: Text = ""
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")]
    lat: Annotated[float, Field(ge=-90, le=90)]
    lng: Annotated[float, Field(ge=-180, le=180)]


class HoursIn(_Record):
    days: Annotated[list[Day], Field(min_length=1)]
    open: Clock
    close: Clock  # the first minute closed; at most 23:59 (a day's hours never cross midnight)

    @model_validator(mode="after")
    def _open_before_close(self) -> Self:
        if self.open >= self.close:
            raise ValueError(f"open ({self.open}) must be before close ({self.close})")
        return self


class MethodFeeIn(_Record):
    rate: Rate = "0"
    fix: Minor = 0


class FeesIn(_Record):
    tax_rate: Rate
    enterprise_fee_rate: Rate = "0"
    enterprise_fee_fix: Minor = 0
    service_fee_rate: Rate = "0"
    service_fee_fix: Minor = 0
    payment_processing_fee_rate: Rate = "0"
    payment_processing_fee_fix: Minor = 0
    method_fees: dict[Method, MethodFeeIn] = {}


Percent = Annotated[int, Field(ge=0, le=100)]


class TipsIn(_Record):
    enabled: bool = False
    allow_custom: bool = False
    percentages: list[Percent] = []
    default: Percent | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.default is not None and self.default not in self.percentages:
            raise ValueError(f"default ({self.default}) must be one of percentages")
        if self.enabled and not self.allow_custom and not self.percentages:
            raise ValueError("tips are enabled but neither percentages nor allow_custom are given")
        return self


class LocationIn(_Record):
    id: Id
    slug: Slug
    name: Name
    timezone: Annotated[str, AfterValidator(_timezone)]
    api_key: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{16,128}$")]
    methods: Annotated[list[Method], Field(min_length=1)]
    subscribed: bool = True
    hidden: bool = False
    bio: Text = ""
    phone: Annotated[str, Field(max_length=40)] = ""
    address: AddressIn
    hours: Annotated[list[HoursIn], Field(min_length=1)]
    scheduled: bool = True
    delivery_radius_miles: Annotated[float, Field(ge=0, le=100)] = 0.0
    order_prefix: Annotated[str, Field(pattern=r"^[A-Z]{1,3}$")] = "A"
    # What a card statement shows; card networks allow 22 characters.
    statement: Annotated[str, Field(min_length=1, max_length=22)] | None = None
    fees: FeesIn
    tips: TipsIn = TipsIn()
    popular: list[Id] = []
    cross_sell: list[Id] = []


class DiscountIn(_Record):
    code: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
    kind: Literal["percent", "fixed"]
    value: Annotated[int, Field(ge=1, le=99_999_999)]  # percent, or minor units
    minimum: Minor = 0
    expires_at: datetime | None = None
    description: Text = ""

    @model_validator(mode="after")
    def _value_fits_kind(self) -> Self:
        if self.kind == "percent" and self.value > 100:
            raise ValueError(f"a percent discount's value must be 1 to 100 (got {self.value})")
        if self.expires_at is not None and self.expires_at.tzinfo is None:
            raise ValueError("expires_at needs a UTC offset, e.g. 2024-01-01T00:00:00Z")
        return self


class OptionIn(_Record):
    id: Id
    name: Name
    price: Minor = 0  # added to the product's price
    max_quantity: Annotated[int, Field(ge=0, le=99)] = 1  # 0: sold out
    is_default: bool = Field(False, alias="default")
    child_groups: list[Id] = []
    tags: list[Tag] = []


class GroupIn(_Record):
    id: Id
    name: Name
    min: Annotated[int, Field(ge=0, le=99)] = 0
    max: Annotated[int, Field(ge=1, le=99)]
    description: Text = ""
    options: Annotated[list[OptionIn], Field(min_length=1)]

    @model_validator(mode="after")
    def _satisfiable(self) -> Self:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        most = sum(o.max_quantity for o in self.options)
        if self.min > most:
            raise ValueError(f"min ({self.min}) needs more than its options allow ({most})")
        defaults = sum(o.is_default for o in self.options)
        if defaults > self.max:
            raise ValueError(f"{defaults} options are default, more than max ({self.max})")
        return self


class ProductIn(_Record):
    id: Id
    name: Name
    description: Text = ""
    price: Minor
    tags: list[Tag] = []
    calories: Annotated[int, Field(ge=0, le=20_000)] | None = None
    modifier_groups: list[Id] = []
    sold_out: bool = False  # when the demo database is first created
    picture: bool = False  # a plate drawn in code (kiosk.demo.pictures), served with the menu


class CategoryIn(_Record):
    id: Id
    name: Name
    products: Annotated[list[Id], Field(min_length=1)]


class MenuIn(_Record):
    id: Id
    name: Name
    location: Id
    start: Clock | None = None  # local time; none: all day
    end: Clock | None = None
    days: Annotated[list[Day], Field(min_length=1)] | None = None  # none: every day
    categories: Annotated[list[CategoryIn], Field(min_length=1)]

    @model_validator(mode="after")
    def _window(self) -> Self:
        if (self.start is None) != (self.end is None):
            raise ValueError("give both start and end, or neither (all day)")
        if self.start is not None and self.end is not None and self.start >= self.end:
            raise ValueError(f"start ({self.start}) must be before end ({self.end})")
        return self


class RestaurantIn(_Record):
    format: Literal[1] = 1
    merchant: MerchantIn
    locations: Annotated[list[LocationIn], Field(min_length=1)]
    discounts: list[DiscountIn] = []
    modifier_groups: list[GroupIn] = []
    products: Annotated[list[ProductIn], Field(min_length=1)]
    menus: Annotated[list[MenuIn], Field(min_length=1)]


# --- loading --------------------------------------------------------------------------------------


def load_file(
    path: str | Path, name: str | None = None, source: str | None = None
) -> records.Restaurant:
    """Read and check a restaurant file. `name` is how messages call it (default: the path);
    `source` what the restaurant records as its origin (default: the path)."""
    label = name or str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise MenuFileError(label, [("", "no such file")]) from None
    except OSError as exc:
        raise MenuFileError(label, [("", f"cannot be read ({exc.strerror or exc})")]) from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise MenuFileError(label, [("", "is not UTF-8 text")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise MenuFileError(label, [("", f"is not valid TOML: {exc}")]) from None
    return from_document(doc, label, source=source or str(path))


def from_document(doc: dict[str, Any], label: str, source: str | None = None) -> records.Restaurant:
    """Check a parsed document and build the restaurant; MenuFileError names `label`."""
    try:
        parsed = RestaurantIn.model_validate(doc)
    except ValidationError as exc:
        raise MenuFileError(label, [_pydantic_problem(e) for e in exc.errors()]) from None
    problems = _cross_check(parsed)
    if problems:
        raise MenuFileError(label, problems)
    return _build(parsed, source or label)


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _pydantic_problem(error: Any) -> tuple[str, str]:
    msg = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "missing":
        msg = "is required"
    elif error["type"] == "extra_forbidden":
        msg = "is not a known field (misspelt?)"
    return _path(tuple(error["loc"])), msg


Problem = tuple[str, str]


def _cross_check(r: RestaurantIn) -> list[Problem]:
    """The references between records: what the typed records cannot see on their own."""
    return [problem for check in _CROSS_CHECKS for problem in check(r)]


def _duplicates(kind: str, items: list[tuple[str, str]]) -> list[Problem]:
    """Each value given again after its first place, with both places."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path, value in items:
        if value in seen:
            problems.append((path, f"duplicate {kind} {value!r} (also at {seen[value]})"))
        else:
            seen[value] = path
    return problems


# The values that must be unique across the file: (kind, the values with their places).
_UNIQUE: tuple[tuple[str, Callable[[RestaurantIn], list[tuple[str, str]]]], ...] = (
    ("location id", lambda r: [(f"locations[{i}].id", x.id) for i, x in enumerate(r.locations)]),
    (
        "location slug",
        lambda r: [(f"locations[{i}].slug", x.slug) for i, x in enumerate(r.locations)],
    ),
    (
        "api_key",
        lambda r: [(f"locations[{i}].api_key", x.api_key) for i, x in enumerate(r.locations)],
    ),
    (
        "group id",
        lambda r: [(f"modifier_groups[{i}].id", g.id) for i, g in enumerate(r.modifier_groups)],
    ),
    # Products and options share one namespace: "sold out" is kept by id for both.
    (
        "product or option id",
        lambda r: (
            [(f"products[{i}].id", p.id) for i, p in enumerate(r.products)]
            + [
                (f"modifier_groups[{i}].options[{j}].id", o.id)
                for i, g in enumerate(r.modifier_groups)
                for j, o in enumerate(g.options)
            ]
        ),
    ),
    ("menu id", lambda r: [(f"menus[{i}].id", m.id) for i, m in enumerate(r.menus)]),
    (
        "category id",
        lambda r: [
            (f"menus[{i}].categories[{j}].id", c.id)
            for i, m in enumerate(r.menus)
            for j, c in enumerate(m.categories)
        ],
    ),
    (
        "discount code",
        lambda r: [(f"discounts[{i}].code", d.code.upper()) for i, d in enumerate(r.discounts)],
    ),
)


def _unique_values(r: RestaurantIn) -> list[Problem]:
    return [problem for kind, items in _UNIQUE for problem in _duplicates(kind, items(r))]


def _one_listed(r: RestaurantIn) -> list[Problem]:
    if all(loc.hidden for loc in r.locations):
        return [("locations", "every location is hidden; at least one must be listed")]
    return []


def _location_rules(r: RestaurantIn) -> list[Problem]:
    problems: list[Problem] = []
    for i, loc in enumerate(r.locations):
        days = [d for h in loc.hours for d in h.days]
        for day in sorted({d for d in days if days.count(d) > 1}, key=records.DAYS.index):
            problems.append((f"locations[{i}].hours", f"{day} is given more than once"))
        if "delivery" in loc.methods and loc.delivery_radius_miles <= 0:
            problems.append(
                (
                    f"locations[{i}].delivery_radius_miles",
                    "must be above 0 when delivery is offered",
                )
            )
        problems += _duplicates(
            "method", [(f"locations[{i}].methods[{j}]", m) for j, m in enumerate(loc.methods)]
        )
    return problems


def _product_groups(r: RestaurantIn) -> list[Problem]:
    problems: list[Problem] = []
    groups = {g.id for g in r.modifier_groups}
    for i, p in enumerate(r.products):
        for j, gid in enumerate(p.modifier_groups):
            if gid not in groups:
                problems.append(
                    (f"products[{i}].modifier_groups[{j}]", f"no modifier group {gid!r}")
                )
        problems += _duplicates(
            "group",
            [(f"products[{i}].modifier_groups[{j}]", g) for j, g in enumerate(p.modifier_groups)],
        )
    return problems


def _group_tree(r: RestaurantIn) -> list[Problem]:
    problems: list[Problem] = []
    groups = {g.id: g for g in r.modifier_groups}
    for i, g in enumerate(r.modifier_groups):
        for j, o in enumerate(g.options):
            for k, gid in enumerate(o.child_groups):
                if gid not in groups:
                    problems.append(
                        (
                            f"modifier_groups[{i}].options[{j}].child_groups[{k}]",
                            f"no modifier group {gid!r}",
                        )
                    )
        depth = _depth(g.id, groups, ())
        if depth is None:
            problems.append(
                (f"modifier_groups[{i}]", f"{g.id!r} contains itself through child_groups")
            )
        elif depth > MAX_GROUP_DEPTH:
            problems.append(
                (
                    f"modifier_groups[{i}]",
                    f"child groups nest {depth} deep (at most {MAX_GROUP_DEPTH})",
                )
            )
    return problems


def _menu_references(r: RestaurantIn) -> list[Problem]:
    problems: list[Problem] = []
    loc_ids = {loc.id for loc in r.locations}
    products = {p.id for p in r.products}
    for i, m in enumerate(r.menus):
        if m.location not in loc_ids:
            problems.append((f"menus[{i}].location", f"no location {m.location!r}"))
        for j, c in enumerate(m.categories):
            for k, pid in enumerate(c.products):
                if pid not in products:
                    problems.append(
                        (f"menus[{i}].categories[{j}].products[{k}]", f"no product {pid!r}")
                    )
    return problems


def _placed_products(r: RestaurantIn) -> list[Problem]:
    """A location's popular and cross-sell products must be on one of its menus."""
    placed: dict[str, set[str]] = {}
    for m in r.menus:
        for c in m.categories:
            placed.setdefault(m.location, set()).update(c.products)
    problems: list[Problem] = []
    for i, loc in enumerate(r.locations):
        for field in ("popular", "cross_sell"):
            for j, pid in enumerate(getattr(loc, field)):
                if pid not in placed.get(loc.id, set()):
                    problems.append(
                        (
                            f"locations[{i}].{field}[{j}]",
                            f"{pid!r} is on none of this location's menus",
                        )
                    )
    return problems


# In this order: a file's problems are listed as they were before the checks were split.
_CROSS_CHECKS: tuple[Callable[[RestaurantIn], list[Problem]], ...] = (
    _unique_values,
    _one_listed,
    _location_rules,
    _product_groups,
    _group_tree,
    _menu_references,
    _placed_products,
)


def _depth(gid: str, groups: dict[str, GroupIn], trail: tuple[str, ...]) -> int | None:
    """How many levels of groups `gid` opens (1: no children); None if it contains itself."""
    if gid in trail:
        return None
    group = groups.get(gid)
    if group is None:
        return 0  # an unknown child is reported on its own
    deepest = 0
    for option in group.options:
        for child in option.child_groups:
            d = _depth(child, groups, (*trail, gid))
            if d is None:
                return None
            deepest = max(deepest, d)
    return deepest + 1


# --- building the restaurant ---------------------------------------------------------------------


def _details(loc: LocationIn) -> dict[str, Any]:
    """The record GET /locations/{id} is built from (the shape the backend reads)."""
    hours = [{"day": day, "open": h.open, "close": h.close} for h in loc.hours for day in h.days]
    hours.sort(key=lambda h: records.DAYS.index(h["day"]))
    f, a, t = loc.fees, loc.address, loc.tips
    return {
        "bio": loc.bio,
        "address": {
            "street": a.street,
            "city": a.city,
            "state": a.state,
            "zipCode": a.zip_code,
            "country": a.country,
            "lat": float(a.lat),
            "lng": float(a.lng),
        },
        "phone": loc.phone,
        "hours": hours,
        "scheduled": loc.scheduled,
        "delivery_radius_miles": float(loc.delivery_radius_miles),
        "fees": {
            "taxRate": f.tax_rate,
            "enterpriseFeeRate": f.enterprise_fee_rate,
            "enterpriseFeeFix": f.enterprise_fee_fix,
            "serviceFeeRate": f.service_fee_rate,
            "serviceFeeFix": f.service_fee_fix,
            "paymentProcessingFeeRate": f.payment_processing_fee_rate,
            "paymentProcessingFeeFix": f.payment_processing_fee_fix,
            "methodFees": {m: (fee.rate, fee.fix) for m, fee in f.method_fees.items()},
        },
        "gratuity": {
            "enabled": t.enabled,
            "shouldAllowCustomTip": t.allow_custom,
            "tipPercentage": [str(p) for p in t.percentages],
            "defaultTipPercentage": None if t.default is None else str(t.default),
        },
        "order_prefix": loc.order_prefix,
        "statement": loc.statement or loc.name.upper()[:22],
    }


def _build(r: RestaurantIn, source: str) -> records.Restaurant:
    locations = tuple(
        records.DemoLocation(
            id=loc.id,
            slug=loc.slug,
            name=loc.name,
            timezone=loc.timezone,
            api_key=loc.api_key,
            methods=tuple(loc.methods),
            subscribed=loc.subscribed,
            hidden=loc.hidden,
        )
        for loc in r.locations
    )
    return records.Restaurant(
        source=source,
        merchant_id=r.merchant.id,
        merchant_slug=r.merchant.slug,
        merchant_name=r.merchant.name,
        currency=r.merchant.currency,
        locations=locations,
        details={loc.id: _details(loc) for loc in r.locations},
        discounts={
            d.code.upper(): records.DemoDiscount(
                code=d.code.upper(),
                kind=d.kind,
                value=d.value,
                minimum=d.minimum,
                expires_at=None if d.expires_at is None else d.expires_at.timestamp(),
                description=d.description,
            )
            for d in r.discounts
        },
        groups=tuple(
            records.Group(
                g.id,
                g.name,
                g.min,
                g.max,
                tuple(
                    records.Option(
                        o.id,
                        o.name,
                        o.price,
                        o.max_quantity,
                        o.is_default,
                        tuple(o.child_groups),
                        tuple(o.tags),
                    )
                    for o in g.options
                ),
                g.description,
            )
            for g in r.modifier_groups
        ),
        products=tuple(
            records.Product(
                p.id,
                p.name,
                p.description,
                p.price,
                tuple(p.tags),
                p.calories,
                tuple(p.modifier_groups),
                p.picture,
            )
            for p in r.products
        ),
        menus=tuple(
            records.Menu(
                m.id,
                m.name,
                m.location,
                m.start,
                m.end,
                tuple((c.id, c.name, tuple(c.products)) for c in m.categories),
                records.DAYS if m.days is None else tuple(m.days),
            )
            for m in r.menus
        ),
        popular={loc.id: tuple(loc.popular) for loc in r.locations if loc.popular},
        cross_sell={loc.id: tuple(loc.cross_sell) for loc in r.locations if loc.cross_sell},
        initial_sold_out=tuple(p.id for p in r.products if p.sold_out),
    )
