"""An independent, strict Storefront API 2.0 server for tests.

Written from the vendor's documents only: ../shared/storefront-v2-contract.md (the digest),
tests/data/vendor-v2/openapi-facts.json (the vendor's OpenAPI, prose removed) and
storefront_operations.json (the vendor SDK's operation manifest), with the vendor's example
payloads read for shapes. It deliberately shares nothing with kiosk/demo or kiosk/api: a second
reading of the contract, so that the kiosk is tested against more than its own interpretation.

Every request is checked against the facts file (path and method, credentials, Idempotency-Key,
If-Match, query parameters, the request body's schema). Every breach is answered with the
documented error envelope and recorded, as "METHOD PATH: what broke", in `app.state.violations`.
Business refusals (an unknown discount code, a missing required modifier) are answered the same
way but recorded in `app.state.refusals`: a client may meet those without breaking the contract.

`faults=Faults(...)` makes cart writes fail: `error_rate` answers 5xx before committing,
`drop_rate` commits the write and then drops the answer (an exception under httpx.ASGITransport,
a connection closed mid-body under uvicorn). Both draw from one seeded random generator, so a run
is repeatable; `script` forces the first outcomes ("error", "drop", "ok") for exact tests.

Test-only helpers live under /__test__ (never under the API's base path) and on `app.state.store`.

Server-side events (POST, JSON body optional; `locationId` in it names a location, default the
first one; each is also a `Store` method and a tests/journeys/harness.py `Journey` method):

- `/__test__/carts/{cartId}/expire`: the cart expires now. Status EXPIRED; every edit and a
  hand-off are refused 409 CART_IMMUTABLE "The cart is EXPIRED." {status: EXPIRED} (a payment
  intent too, without details); GET keeps answering the cart; order-result answers {state:
  "failed", code: "CART_EXPIRED"} (the documents list no state "expired": a finished cart
  that was never paid most plausibly reads as a failed order, as after a DELETE); resuming it
  through an ordering-session starts a new cart (201). The hosted page refuses to pay it.
- `/__test__/products/{productId}/sell-out` and `/restock`: menus say availability "sold_out";
  an add is refused 400 VALIDATION_ERROR "<name> is not available." {field: productId}; a line
  of it carries `availability: "sold_out"` (CartItem is open and names no such member: our
  choice, the product's own word) and keeps its `itemUnavailableAction` (the customer's choice
  for the restaurant, not a server action); a hand-off is refused 400 VALIDATION_ERROR "Sorry,
  <name> is no longer available. Remove it from your order to continue." {field: items, reason:
  ITEM_UNAVAILABLE, itemIds, productIds}.
- `/__test__/methods/{method}/off` and `/on` (the API's word: takeout, table_side, delivery,
  room_service): merchant `methodsStatus` and ordering-readiness ({ready: false, reason}) follow;
  an ordering-session (new or resuming), a PATCH of the cart's fulfillmentMethod and a hand-off
  of a cart on it are refused 400 VALIDATION_ERROR "<Way> orders are not available at <location>
  right now." {field: fulfillmentMethod}.
- `/__test__/slots/take` {times: ["HH:MM"...], day?: ISO date (default today there), after?:
  "HH:MM" (every later slot that day)}: they leave time-intervals; setting one is refused 400
  VALIDATION_ERROR "That time is not one of the offered slots." {field: orderTime}; a hand-off
  of a cart holding one is refused 400 VALIDATION_ERROR "<HH:MM> is no longer available. Please
  choose another time." {field: orderTime, reason: SLOT_UNAVAILABLE}.
- `/__test__/discount-codes` {code, percentOff, minimumSubtotal?}: a code at run time. A code
  with a minimum (the seed's BIG100: 10% off from 100.00 in the location's currency) below it
  is refused 400 VALIDATION_ERROR "This code needs an order of at least £100.00. Add £81.25
  more." {field: code, reason: MINIMUM_NOT_MET, minimumSubtotal, amountShort} (the documents
  have no 422 and no code of their own for it). A cart that falls below the minimum after the
  code was applied keeps the code with no discount until it reaches it again.

`harbour_and_bondi()` adds a second location (`bondi_location()`): Sydney time and AUD, table
and delivery only, tips off (a tip is refused 400 VALIDATION_ERROR {field: amount}), a 2-to-3
choice group, BIG100 only.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tests.conformance.contract import BASE_PATH, Contract, Operation, load_contract

CENT = Decimal("0.01")
IF_MATCH_CART = "cart"
CART_WRITE_PREFIX = "/locations/{locationId}/carts/{cartId}"
FULFILMENT_METHODS = ("takeout", "table_side", "delivery", "room_service")
# methodsStatus's words for them (contract line 135).
METHODS_STATUS = {
    "pickup": "takeout",
    "table": "table_side",
    "delivery": "delivery",
    "roomService": "room_service",
}
METHOD_NAMES = {
    "takeout": "Pickup",
    "table_side": "Table",
    "delivery": "Delivery",
    "room_service": "Room service",
}


# ---------------------------------------------------------------------------------------------
# Seed data: one merchant, one location (GBP), a menu with a required modifier group.


@dataclass
class Option:
    id: str
    name: str
    price: Decimal
    max_quantity: int = 1
    child_groups: list[Group] = field(default_factory=list)
    # Per link: a child group's rule as this option overrides it (group id -> (min, max)).
    # ModifierChildLink.overrides {min, max} (openapi-facts.json line 651): the same group can be
    # optional under one option and required under another.
    overrides: dict[str, tuple[int, int]] = field(default_factory=dict)

    def rule_of(self, child: Group) -> tuple[int, int]:
        return self.overrides.get(child.id, (child.min, child.max))


@dataclass
class Group:
    id: str
    name: str
    min: int
    max: int
    options: list[Option]
    description: str | None = None


@dataclass
class Product:
    id: str
    name: str
    price: Decimal
    description: str
    category_id: str
    groups: list[Group] = field(default_factory=list)
    availability: str = "available"
    calories: float | None = None


@dataclass
class Location:
    id: str
    slug: str
    name: str
    bio: str
    street: str
    city: str
    state: str
    zip_code: str
    country: str
    lat: float
    lng: float
    timezone: str
    currency: str  # one of the cart enum: usd | gbp | aed | aud
    symbol: str
    statement_descriptor: str
    categories: list[tuple[str, str]]  # (id, name), in menu order
    products: list[Product]
    popular: list[str]
    discount_codes: dict[str, Decimal]  # code -> rate off the subtotal
    tax_rate: Decimal = Decimal("0.20")
    service_fee_rate: Decimal = Decimal("0.02")
    delivery_fee: Decimal = Decimal("2.50")
    tip_percentages: tuple[str, ...] = ("10", "15", "20")
    # OrderTimes.requireScheduledOrders (contract line 136, openapi-facts.json line 525): orders
    # must name a LATER slot; ASAP is refused (what the server enforces: see update_order_time
    # and checkout_handoff).
    require_scheduled: bool = False
    # Closed today: no slot today, readiness {ready: false, reason} (contract line 29), the
    # menus inactive, ASAP refused; tomorrow's slots still offered (scheduleAllowed).
    closed_reason: str | None = None
    # The ways to order this location takes now, by the API's fulfilment word (takeout,
    # table_side, delivery, room_service); merchant `methodsStatus` publishes them (contract
    # line 135: pickup = takeout). A way switched off (`Store.switch`) is refused.
    methods: dict[str, bool] = field(
        default_factory=lambda: dict.fromkeys(FULFILMENT_METHODS, True)
    )
    tips_enabled: bool = True
    # code -> the subtotal (before discount) the code needs; the code's rate is in
    # `discount_codes`. Below it the code is refused, and a cart that falls below it keeps the
    # code with no discount (our reading: the documents say nothing about minimum spends).
    minimum_spend: dict[str, Decimal] = field(default_factory=dict)
    # Slots taken (`Store.take_slots`): (date, "HH:MM"); and date -> "HH:MM" after which every
    # slot of that day is taken.
    taken_slots: set[tuple[str, str]] = field(default_factory=set)
    taken_after: dict[str, str] = field(default_factory=dict)

    def slot_taken(self, day: str, slot: str) -> bool:
        after = self.taken_after.get(day)
        return (day, slot) in self.taken_slots or (after is not None and slot > after)

    def method_refusal(self, method: str) -> str | None:
        """Why this location takes no `method` order now (None: it does)."""
        if self.methods.get(method, False):
            return None
        return f"{METHOD_NAMES[method]} orders are not available at {self.name} right now."

    def product(self, product_id: str) -> Product | None:
        return next((p for p in self.products if p.id == product_id), None)

    @property
    def address_string(self) -> str:
        return f"{self.street}, {self.city} {self.zip_code}"


@dataclass
class Seed:
    merchant_id: str
    merchant_slug: str
    merchant_name: str
    country: str
    locations: list[Location]


def harbour_noodles() -> Seed:
    """A noodle bar on Bristol's harbourside: GBP, one product with a required choice (and a
    nested one), optional extras with per-option maxima, a sold-out drink, a discount code."""
    heat = Group(
        "grp_heat",
        "Heat",
        1,
        1,
        [Option("opt_mild", "Mild", Decimal("0.00")), Option("opt_hot", "Hot", Decimal("0.00"))],
    )
    broth = Group(
        "grp_broth",
        "Broth",
        1,
        1,
        [
            Option("opt_chicken", "Chicken", Decimal("0.00")),
            Option("opt_mushroom", "Mushroom", Decimal("0.00")),
            Option("opt_sichuan", "Sichuan", Decimal("0.50"), child_groups=[heat]),
        ],
        description="Choose one",
    )
    # Optional up to 2 as a group; the noodle base's link overrides it to exactly 1 (the rice's
    # link does not): openapi-facts.json line 651, ModifierChildLink.overrides {min, max}.
    sauce = Group(
        "grp_sauce",
        "Sauce",
        0,
        2,
        [
            Option("opt_sauce_soy", "Soy glaze", Decimal("0.00")),
            Option("opt_sauce_chilli", "Chilli crisp", Decimal("0.30")),
            Option("opt_sauce_sesame", "Sesame", Decimal("0.00")),
        ],
        description="Optional, up to 2",
    )
    base = Group(
        "grp_base",
        "Base",
        1,
        1,
        [
            Option("opt_base_rice", "Rice", Decimal("0.00"), child_groups=[sauce]),
            Option(
                "opt_base_noodles",
                "Noodles",
                Decimal("0.50"),
                child_groups=[sauce],
                overrides={"grp_sauce": (1, 1)},
            ),
        ],
        description="Choose one",
    )
    extras = Group(
        "grp_extras",
        "Extras",
        0,
        3,
        [
            Option("opt_egg", "Soy egg", Decimal("1.20"), max_quantity=2),
            Option("opt_pakchoi", "Pak choi", Decimal("1.00")),
            Option("opt_chilli", "Chilli oil", Decimal("0.40")),
        ],
    )
    products = [
        Product(
            "prod_wonton_soup",
            "Wonton noodle soup",
            Decimal("9.50"),
            "Pork and prawn wontons, egg noodles, greens.",
            "cat_noodles",
            [broth, extras],
            calories=620,
        ),
        Product(
            "prod_dan_dan",
            "Dan dan noodles",
            Decimal("10.25"),
            "Sesame, chilli, minced pork.",
            "cat_noodles",
            [extras],
        ),
        Product(
            "prod_build_bowl",
            "Build your bowl",
            Decimal("8.75"),
            "Rice or noodles, greens, a sauce.",
            "cat_noodles",
            [base],
        ),
        Product(
            "prod_gyoza",
            "Gyoza (5)",
            Decimal("5.50"),
            "Pan-fried vegetable dumplings.",
            "cat_sides",
        ),
        Product(
            "prod_crackers", "Prawn crackers", Decimal("3.00"), "A basket to share.", "cat_sides"
        ),
        Product("prod_jasmine_tea", "Jasmine tea", Decimal("2.80"), "A pot for one.", "cat_drinks"),
        Product(
            "prod_lychee_soda",
            "Lychee soda",
            Decimal("3.25"),
            "Sparkling, not too sweet.",
            "cat_drinks",
            availability="sold_out",
        ),
    ]
    location = Location(
        id="66a1f0c2b3d4e5f60718293a",
        slug="harbour-noodles",
        name="Harbour Noodles Quayside",
        bio="Hand-pulled noodles by the water.",
        street="12 Narrow Quay",
        city="Bristol",
        state="England",
        zip_code="BS1 4QA",
        country="United Kingdom",
        lat=51.4496,
        lng=-2.5975,
        timezone="Europe/London",
        currency="gbp",
        symbol="£",
        statement_descriptor="HARBOUR NOODLES",
        categories=[("cat_noodles", "Noodles"), ("cat_sides", "Sides"), ("cat_drinks", "Drinks")],
        products=products,
        popular=["prod_wonton_soup", "prod_gyoza"],
        discount_codes={"HARBOUR10": Decimal("0.10"), "BIG100": Decimal("0.10")},
        minimum_spend={"BIG100": Decimal("100.00")},
    )
    return Seed(
        merchant_id="66a1f0c2b3d4e5f607182900",
        merchant_slug="harbour-noodles-co",
        merchant_name="Harbour Noodles",
        country="United Kingdom",
        locations=[location],
    )


BONDI_LOCATION_ID = "66a1f0c2b3d4e5f60718293b"


def bondi_location() -> Location:
    """A second location whose rules the first lacks: Sydney time and AUD, table and delivery
    only (no pickup, no room service), tips off, a platter whose fillings are a 2-to-3 choice,
    and only the minimum-spend code BIG100 (10% off from A$100.00)."""
    fillings = Group(
        "grp_fillings",
        "Fillings",
        2,
        3,
        [
            Option("opt_fill_prawn", "Prawn", Decimal("1.00")),
            Option("opt_fill_pork", "Pork and chive", Decimal("0.00")),
            Option("opt_fill_veg", "Vegetable", Decimal("0.00")),
            Option("opt_fill_chicken", "Chicken and corn", Decimal("0.00")),
        ],
        description="Choose 2 to 3",
    )
    products = [
        Product(
            "prod_bondi_platter",
            "Dumpling platter (12)",
            Decimal("18.50"),
            "Twelve steamed dumplings, your choice of fillings.",
            "cat_bondi_dumplings",
            [fillings],
        ),
        Product(
            "prod_bondi_laksa",
            "Prawn laksa",
            Decimal("21.00"),
            "Coconut curry broth, rice noodles, prawns.",
            "cat_bondi_bowls",
        ),
        Product(
            "prod_bondi_lemonade",
            "Yuzu lemonade",
            Decimal("6.50"),
            "House-made, lightly sparkling.",
            "cat_bondi_drinks",
        ),
    ]
    return Location(
        id=BONDI_LOCATION_ID,
        slug="harbour-noodles-bondi",
        name="Harbour Noodles Bondi",
        bio="Dumplings and noodles by the beach.",
        street="80 Campbell Parade",
        city="Bondi Beach",
        state="NSW",
        zip_code="2026",
        country="Australia",
        lat=-33.8915,
        lng=151.2767,
        timezone="Australia/Sydney",
        currency="aud",
        symbol="A$",
        statement_descriptor="HARBOUR BONDI",
        categories=[
            ("cat_bondi_dumplings", "Dumplings"),
            ("cat_bondi_bowls", "Bowls"),
            ("cat_bondi_drinks", "Drinks"),
        ],
        products=products,
        popular=["prod_bondi_platter"],
        discount_codes={"BIG100": Decimal("0.10")},
        minimum_spend={"BIG100": Decimal("100.00")},
        tax_rate=Decimal("0.10"),
        service_fee_rate=Decimal("0.00"),
        delivery_fee=Decimal("5.00"),
        methods={
            "takeout": False,
            "table_side": True,
            "delivery": True,
            "room_service": False,
        },
        tips_enabled=False,
    )


def harbour_and_bondi() -> Seed:
    """The merchant with both locations: Bristol first (the default), then Bondi."""
    seed = harbour_noodles()
    seed.locations.append(bondi_location())
    return seed


# ---------------------------------------------------------------------------------------------
# Faults


@dataclass
class Faults:
    """Seeded failures of cart writes (POST/PUT/PATCH/DELETE under a cart), and 429 bursts."""

    error_rate: float = 0.0  # answer 5xx before committing
    drop_rate: float = 0.0  # commit, then drop the answer
    # Commit, then answer too late: in-process httpx.ReadTimeout reaches the client; over uvicorn
    # the answer really waits `stall_delay` seconds. For `stall_seconds` on the server's clock
    # the same Idempotency-Key answers 409 IDEMPOTENCY_IN_PROGRESS (contract line 43); after that
    # a resend replays the stored answer (line 42).
    stall_rate: float = 0.0
    stall_seconds: float = 30.0
    stall_delay: float = 15.0
    seed: int = 0
    # Forced first outcomes of cart writes: ok | error | drop | stall
    script: list[str] = field(default_factory=list)
    # The next N API requests (any operation) answer a bare 429 RATE_LIMITED (contract line 14).
    rate_limited: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._script = list(self.script)

    def add_script(self, *outcomes: str) -> None:
        """Force the next cart writes' outcomes (after any already scripted)."""
        unknown = set(outcomes) - {"ok", "error", "drop", "stall"}
        if unknown:
            raise ValueError(f"unknown outcomes {sorted(unknown)}")
        self._script += outcomes

    def take_rate_limited(self) -> bool:
        """True: this request is one of the 429 burst."""
        if self.rate_limited > 0:
            self.rate_limited -= 1
            return True
        return False

    def before_commit(self) -> bool:
        """True: this write fails with a 5xx and changes nothing."""
        if self._script:
            if self._script[0] == "error":
                self._script.pop(0)
                return True
            return False
        return self._rng.random() < self.error_rate

    def after_commit(self) -> str:
        """What becomes of this committed write's answer: ok | drop | stall."""
        if self._script:
            outcome = self._script.pop(0)
            return outcome if outcome in ("drop", "stall") else "ok"
        # One draw whatever the rates: a seed gives the same drops with or without stalls.
        draw = self._rng.random()
        if draw < self.drop_rate:
            return "drop"
        if draw < self.drop_rate + self.stall_rate:
            return "stall"
        return "ok"


class PaymentRefused(Exception):
    """The hosted checkout would not take this payment (test-only controls): the reason."""


class DroppedAnswer(ConnectionError):
    """Raised after a committed write to make its answer vanish (see DroppedResponse)."""


class DroppedResponse(Response):
    """Starts the answer and breaks off mid-body: uvicorn then closes the connection (the client
    sees a transport error); httpx.ASGITransport hands the exception to the client."""

    def __init__(self, length: int) -> None:
        super().__init__(status_code=200, media_type="application/json")
        self.length = max(length, 2)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(self.length).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b"{", "more_body": True})
        raise DroppedAnswer("the answer was dropped after the write committed")


# ---------------------------------------------------------------------------------------------
# State


def _hex24() -> str:
    return secrets.token_hex(12)


def _same_token(offered: str | None, expected: str) -> bool:
    # Header values arrive as latin-1 text; compare_digest wants bytes for anything non-ASCII.
    return offered is not None and secrets.compare_digest(
        offered.encode("latin-1", "replace"), expected.encode()
    )


def _money(value: Decimal) -> str:
    return str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def _iso(moment: datetime) -> str:
    return (
        moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    )


@dataclass
class Line:
    id: str
    product: Product
    quantity: int
    unit_price: Decimal
    category_id: str | None
    special_instructions: str
    unavailable_action: str
    selections: list[dict[str, Any]]


@dataclass
class Handoff:
    id: str
    cart_id: str
    url: str
    expires_at: datetime
    created_at: datetime | None = None


@dataclass
class Cart:
    id: str
    token: str
    location: Location
    method: str
    created_at: datetime
    expires_at: datetime
    order_date: str
    order_time: str
    merchant_id: str
    revision: int = 0
    status: str = "OPEN"
    locked_at: datetime | None = None
    lines: list[Line] = field(default_factory=list)
    pickup_type: str = "ASAP"
    tip_amount: Decimal | None = None
    tip_percentage: Decimal | None = None
    discount_code: str | None = None
    delivery: dict[str, Any] | None = None
    table: str | None = None
    room: dict[str, str] | None = None
    customer: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    result: str = "payment_pending"  # payment_pending | order_pending | completed | failed
    failure_code: str | None = None
    order: dict[str, Any] | None = None
    rating: dict[str, Any] | None = None


class Store:
    """Everything the server knows, in memory."""

    def __init__(
        self,
        seed: Seed,
        clock: Callable[[], datetime],
        cart_lifetime: timedelta = timedelta(hours=24),
        handoff_lifetime: timedelta = timedelta(minutes=15),
    ) -> None:
        self.seed = seed
        self.clock = clock
        # Every cart and hand-off carries an `expiresAt` (contract lines 75, 125); how long is
        # not documented, so both are settings.
        self.cart_lifetime = cart_lifetime
        self.handoff_lifetime = handoff_lifetime
        self.carts: dict[str, Cart] = {}
        self.handoffs: dict[str, Handoff] = {}
        self.orders: dict[str, dict[str, Any]] = {}
        self.next_order_number = 101

    # -- lookups --------------------------------------------------------------------------------

    def location_by_slug_or_id(self, key: str) -> Location | None:
        return next((x for x in self.seed.locations if key in (x.id, x.slug)), None)

    def location_by_id(self, key: str) -> Location | None:
        return next((x for x in self.seed.locations if x.id == key), None)

    def cart(self, cart_id: str) -> Cart | None:
        """The cart as it is now: an open cart past its `expiresAt` on the server's clock has
        expired (contract line 125: EXPIRED refuses edits). A locked (paid) cart waits for its
        order; a completed one is done."""
        cart = self.carts.get(cart_id)
        if cart is not None and cart.status == "OPEN" and self.clock() >= cart.expires_at:
            cart.status = "EXPIRED"
            cart.revision += 1
            if cart.result != "completed":
                cart.result, cart.failure_code = "failed", "CART_EXPIRED"
        return cart

    def handoffs_of(self, cart_id: str) -> list[Handoff]:
        return [h for h in self.handoffs.values() if h.cart_id == cart_id]

    def latest_handoff(self, cart_id: str) -> Handoff | None:
        found = self.handoffs_of(cart_id)
        return found[-1] if found else None

    # -- time -----------------------------------------------------------------------------------

    def local_now(self, location: Location) -> datetime:
        return self.clock().astimezone(ZoneInfo(location.timezone))

    def order_days(self, location: Location) -> list[dict[str, Any]]:
        """Today's remaining quarter hours (from 15 minutes ahead) and tomorrow's: the location is
        open around the clock so that tests do not depend on the hour they run at. Closed today:
        tomorrow's only."""
        now = self.local_now(location)
        first = now + timedelta(minutes=15)
        first = first.replace(second=0, microsecond=0) + timedelta(minutes=-first.minute % 15)
        days = []
        for offset, label in ((0, "Today"), (1, "Tomorrow")):
            day: date = (now + timedelta(days=offset)).date()
            if first.date() > day:
                minute = 24 * 60  # late at night: nothing left today
            elif first.date() == day:
                minute = first.hour * 60 + first.minute
            else:
                minute = 0
            slots = []
            while minute < 24 * 60:
                slots.append(f"{minute // 60:02d}:{minute % 60:02d}")
                minute += 15
            if offset == 0 and location.closed_reason is not None:
                slots = []
            slots = [s for s in slots if not location.slot_taken(day.isoformat(), s)]
            days.append({"value": day.isoformat(), "label": label, "intervals": slots})
        return [d for d in days if d["intervals"]]

    def first_slot(self, location: Location) -> tuple[str, str] | None:
        days = self.order_days(location)
        return (days[0]["value"], days[0]["intervals"][0]) if days else None

    def asap_refusal(self, location: Location) -> str | None:
        """Why this location takes no ASAP order now (None: it does)."""
        if location.closed_reason is not None:
            return f"The location is closed: {location.closed_reason}."
        if location.require_scheduled:
            return "This location takes scheduled orders only: choose a time."
        return None

    def asap(self, location: Location) -> tuple[str, str]:
        ready = self.local_now(location) + timedelta(minutes=15)
        return ready.date().isoformat(), ready.strftime("%H:%M")

    # -- carts ----------------------------------------------------------------------------------

    def new_cart(self, location: Location, method: str) -> Cart:
        now = self.clock()
        order_date, order_time = self.asap(location)
        cart = Cart(
            id=_hex24(),
            token="ct_" + secrets.token_urlsafe(24),
            location=location,
            method=method,
            created_at=now,
            expires_at=now + self.cart_lifetime,
            order_date=order_date,
            order_time=order_time,
            merchant_id=self.seed.merchant_id,
        )
        self.carts[cart.id] = cart
        return cart

    def cart_json(self, cart: Cart) -> dict[str, Any]:
        return cart_body(cart)

    # -- test-only payment ----------------------------------------------------------------------
    # What the hosted checkout page does (the exchange and payment-intent are its calls, contract
    # line 142). By hand-off (the URL the kiosk showed) or by cart (the newest hand-off).

    def payable(self, cart_id: str, handoff: Handoff | None = None) -> Cart:
        """The cart a payment would pay, or PaymentRefused: a hand-off past its `expiresAt`
        (line 75), a cart deleted or expired (DELETE expires it, line 61), one already paid or
        completed (one order per cart: a second payment must not make a second order)."""
        cart = self.cart(cart_id)
        if cart is None:
            raise PaymentRefused("no such cart")
        if handoff is not None and self.clock() >= handoff.expires_at:
            raise PaymentRefused("the hand-off has expired")
        if cart.status == "EXPIRED":
            raise PaymentRefused("the cart was deleted or has expired")
        if cart.status == "COMPLETED" or cart.result in ("order_pending", "completed"):
            raise PaymentRefused("the cart is already paid")
        if not cart.lines:
            raise PaymentRefused("the cart is empty")
        return cart

    def pay(self, cart_id: str, handoff: Handoff | None = None) -> None:
        """The hosted checkout took the money: the cart locks, its order is being placed. A
        payment after a decline may succeed (a retry on the page, or a fresh hand-off)."""
        cart = self.payable(cart_id, handoff)
        cart.status = "LOCKED"
        cart.locked_at = cart.locked_at or self.clock()
        cart.result = "order_pending"
        cart.failure_code = None
        cart.revision += 1

    def fail_payment(
        self, cart_id: str, code: str = "PAYMENT_FAILED", handoff: Handoff | None = None
    ) -> None:
        """The payment did not go through: order-result answers {state: "failed", code} (line
        143; the codes are not listed: PAYMENT_DECLINED for a declined card is ours). The cart
        stays open, so the customer can pay again or change the order (inferred: what releases
        a lock is not documented)."""
        cart = self.payable(cart_id, handoff)
        if cart.status == "LOCKED":  # locked by the page's payment intent
            cart.status = "OPEN"
            cart.locked_at = None
            cart.revision += 1
        cart.result = "failed"
        cart.failure_code = code

    def decline(self, cart_id: str, handoff: Handoff | None = None) -> None:
        self.fail_payment(cart_id, "PAYMENT_DECLINED", handoff)

    def complete(self, cart: Cart) -> None:
        """The kitchen accepted the order: an order with a short number, the cart completed."""
        number = self.next_order_number
        self.next_order_number += 1
        cart.status = "COMPLETED"
        cart.result = "completed"
        cart.revision += 1
        # The order's number is its own (customer_order.json line 3: shortId "A100"), never
        # the cart's fulfillmentIdentifier (line 6: "counter").
        cart.order = order_body(cart, _hex24(), f"H{number}", self.clock())
        self.orders[cart.order["id"]] = cart.order

    # -- test-only server-side events -----------------------------------------------------------
    # What happens on the vendor's side while a kiosk is mid-order; reached through /__test__
    # routes and tests/journeys/harness.py, never through the API.

    def expire_cart(self, cart_id: str) -> Cart:
        """The cart's time runs out now (as at its `expiresAt`): status EXPIRED, edits and
        hand-offs refused with 409 CART_IMMUTABLE, reads keep answering it, order-result says
        failed / CART_EXPIRED (as for a DELETE). Only an OPEN cart expires; a LOCKED (paid)
        or COMPLETED one is left as it is (KeyError: no such cart)."""
        cart = self.carts[cart_id]
        if cart.status == "OPEN":
            cart.expires_at = min(cart.expires_at, self.clock())
            self.cart(cart_id)
        return cart

    def products_named(self, product_id: str, location_id: str | None) -> list[Product]:
        found = [
            p
            for loc in self.seed.locations
            if location_id in (None, loc.id)
            for p in loc.products
            if p.id == product_id
        ]
        if not found:
            raise KeyError(f"no product {product_id}")
        return found

    def sell_out(self, product_id: str, location_id: str | None = None) -> None:
        """The product sells out (every location, or one): menus say `availability:
        "sold_out"`, an add is refused, its lines in open carts say so, a hand-off is refused."""
        for found in self.products_named(product_id, location_id):
            found.availability = "sold_out"
        self._touch_carts(lambda c: any(ln.product.id == product_id for ln in c.lines))

    def restock(self, product_id: str, location_id: str | None = None) -> None:
        for found in self.products_named(product_id, location_id):
            found.availability = "available"
        self._touch_carts(lambda c: any(ln.product.id == product_id for ln in c.lines))

    def switch(self, method: str, on: bool, location_id: str | None = None) -> None:
        """A way to order (the API's word) is switched off or on at a location (default: the
        first): methodsStatus and readiness follow, sessions and changes to it are refused."""
        if method not in FULFILMENT_METHODS:
            raise KeyError(f"no fulfilment method {method}")
        location = self.location_or_first(location_id)
        location.methods[method] = on

    def take_slots(
        self,
        times: tuple[str, ...] | list[str] = (),
        *,
        day: str | None = None,
        after: str | None = None,
        location_id: str | None = None,
    ) -> list[str]:
        """Slots of `day` (ISO date; default today at the location) are taken: each of `times`
        ("HH:MM"), and with `after` every slot later than it that day. They leave
        time-intervals; setting one, or a hand-off of a cart that holds one, is refused. The
        slots of that day still offered, after the change."""
        location = self.location_or_first(location_id)
        day = day or self.local_now(location).date().isoformat()
        location.taken_slots.update((day, t) for t in times)
        if after is not None:
            location.taken_after[day] = min(after, location.taken_after.get(day, after))
        return next((d["intervals"] for d in self.order_days(location) if d["value"] == day), [])

    def add_code(
        self,
        code: str,
        rate: Decimal,
        minimum: Decimal | None = None,
        location_id: str | None = None,
    ) -> None:
        """A discount code `rate` off the subtotal (0.10 is 10%), valid from `minimum`."""
        location = self.location_or_first(location_id)
        location.discount_codes[code.upper()] = rate
        if minimum is not None:
            location.minimum_spend[code.upper()] = minimum
        else:
            location.minimum_spend.pop(code.upper(), None)

    def location_or_first(self, location_id: str | None) -> Location:
        if location_id is None:
            return self.seed.locations[0]
        found = self.location_by_id(location_id)
        if found is None:
            raise KeyError(f"no location {location_id}")
        return found

    def _touch_carts(self, concerned: Callable[[Cart], bool]) -> None:
        # A server-side change to what a cart answers is a new revision of it.
        for cart in self.carts.values():
            if cart.status == "OPEN" and concerned(cart):
                cart.revision += 1


# ---------------------------------------------------------------------------------------------
# Bodies


def _fmt(location: Location, value: Decimal) -> str:
    value = value.quantize(CENT, rounding=ROUND_HALF_UP)
    sign = "-" if value < 0 else ""
    return f"{sign}{location.symbol}{abs(value):,.2f}"


def totals(cart: Cart) -> dict[str, Decimal]:
    """The server computes every total (notes); the formulas themselves are not documented."""
    loc = cart.location
    subtotal_before = sum((ln.unit_price * ln.quantity for ln in cart.lines), Decimal(0))
    rate = loc.discount_codes.get(cart.discount_code or "", Decimal(0))
    if subtotal_before < loc.minimum_spend.get(cart.discount_code or "", Decimal(0)):
        rate = Decimal(0)  # kept on the cart, applied again once the minimum is reached
    discount = (subtotal_before * rate).quantize(CENT, rounding=ROUND_HALF_UP)
    subtotal = subtotal_before - discount
    tax = (subtotal * loc.tax_rate).quantize(CENT, rounding=ROUND_HALF_UP)
    if cart.tip_amount is not None:
        tip = cart.tip_amount
    elif cart.tip_percentage is not None:
        tip = (subtotal * cart.tip_percentage / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    else:
        tip = Decimal(0)
    service = (subtotal * loc.service_fee_rate).quantize(CENT, rounding=ROUND_HALF_UP)
    fulfilment = loc.delivery_fee if cart.method == "delivery" and cart.lines else Decimal(0)
    order_total = subtotal + tax + fulfilment + tip
    return {
        "subTotal": subtotal,
        "discountTotal": discount,
        "waiterTipTotal": tip,
        "taxTotal": tax,
        "taxAndFeeTotal": tax + service + fulfilment,
        "serviceFeeTotal": service,
        "paymentProcessingFeeTotal": Decimal(0),
        "applicationFeeTotal": Decimal(0),
        "netSalesTotal": subtotal,
        "fulfillmentMethodFeeTotal": fulfilment,
        "orderTotal": order_total,
        "orderTotalWithServiceFee": order_total + service,
        "enterpriseFeeTotal": Decimal(0),
        "subTotalWithoutDiscount": subtotal_before,
    }


def line_body(cart: Cart, line: Line) -> dict[str, Any]:
    loc = cart.location
    total = line.unit_price * line.quantity
    body: dict[str, Any] = {
        "id": line.id,
        "productId": line.product.id,
        "name": line.product.name,
        "description": line.product.description,
        "imageUrl": "",
        "price": _money(line.unit_price),
        "priceFormatted": _fmt(loc, line.unit_price),
        "quantity": line.quantity,
        "total": _money(total),
        "totalFormatted": _fmt(loc, total),
        "discount": "0.00",
        "discountFormatted": _fmt(loc, Decimal(0)),
        "categoryId": line.category_id,
        "specialInstructions": line.special_instructions,
        "itemUnavailableAction": line.unavailable_action,
        "selections": line.selections,
        "product": {
            "id": line.product.id,
            "name": line.product.name,
            "price": _money(line.product.price),
        },
    }
    if line.product.availability != "available":
        # CartItem is open (contract line 127) and names no availability member; a real
        # server would most plausibly echo the product's own word, as its menus publish it.
        body["availability"] = line.product.availability
    return body


def fulfillment_identifier(cart: Cart) -> str:
    """Where the order is handed over. The vendor's own example order is a takeout with
    `fulfillmentIdentifier: "counter"` beside `shortId: "A100"` (vendor-fixtures/
    customer_order.json lines 3, 5-6); the digest says its meaning is not stated (contract line
    124). By that example it names the hand-over point, not the order: the counter for takeout,
    and by analogy the table number, the delivery address, the room number, once the cart has
    them ("" before: the member is a required string, openapi-facts.json line 1114)."""
    if cart.method == "takeout":
        return "counter"
    if cart.method == "table_side":
        return cart.table or ""
    if cart.method == "delivery":
        return str(cart.delivery["addressString"]) if cart.delivery else ""
    return cart.room["roomNumber"] if cart.room else ""


def cart_body(cart: Cart) -> dict[str, Any]:
    loc = cart.location
    amounts = totals(cart)
    body: dict[str, Any] = {
        "id": cart.id,
        "locationId": loc.id,
        "merchantId": cart.merchant_id,
        "status": cart.status,
        "lockedAt": _iso(cart.locked_at) if cart.locked_at else None,
        "revision": cart.revision,
        "expiresAt": _iso(cart.expires_at),
        "restaurantDisplayName": loc.name,
        "fulfilmentMethod": cart.method,  # sic: cart responses spell it with one "l"
        "fulfillmentIdentifier": fulfillment_identifier(cart),
        "metadata": dict(cart.metadata),
        "pickupType": cart.pickup_type,
        "orderDate": cart.order_date,
        "orderTime": cart.order_time,
        "currency": loc.currency,
    }
    for name, value in amounts.items():
        body[name] = _money(value)
        body[name + "Formatted"] = _fmt(loc, value)
    body["orderTotalWithServiceFeeAmount"] = int(
        (amounts["orderTotalWithServiceFee"] * 100).to_integral_value(rounding=ROUND_HALF_UP)
    )
    if cart.discount_code:
        body["discountCode"] = cart.discount_code
    body["statementDescriptor"] = loc.statement_descriptor
    body["totalQuantity"] = sum(ln.quantity for ln in cart.lines)
    body["items"] = [line_body(cart, ln) for ln in cart.lines]
    tip_rate = (cart.tip_percentage or Decimal(0)) / 100
    body["fees"] = {
        "enterpriseFeeRate": "0",
        "enterpriseFeeFix": "0.00",
        "serviceFeeRate": str(loc.service_fee_rate),
        "serviceFeeFix": "0.00",
        "taxRate": str(loc.tax_rate),
        "tipRate": str(tip_rate.normalize()) if tip_rate else "0",
        "fulfillmentMethodFeeFix": _money(loc.delivery_fee)
        if cart.method == "delivery"
        else "0.00",
        "fulfillmentMethodFeeRate": "0",
        "paymentProcessingFeeRate": "0",
        "paymentProcessingFeeFix": "0.00",
    }
    body["deliveryInfo"] = cart.delivery
    body["tableServiceInfo"] = {"tableNumber": cart.table} if cart.table else None
    body["roomServiceInfo"] = dict(cart.room) if cart.room else None
    return body


def _order_modifiers(product: Product, selections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(groups: list[Group], chosen: list[dict[str, Any]]) -> None:
        for pick in chosen:
            group = next(g for g in groups if g.id == pick["groupId"])
            for sel in pick["selectedOptions"]:
                option = next(o for o in group.options if o.id == sel["optionId"])
                found.append(
                    {
                        "groupName": group.name,
                        "name": option.name,
                        "quantity": sel["quantity"],
                        "price": _money(option.price),
                    }
                )
                walk(option.child_groups, sel.get("children", []))

    walk(product.groups, selections)
    return found


def order_body(cart: Cart, order_id: str, short_id: str, now: datetime) -> dict[str, Any]:
    amounts = totals(cart)
    paid = amounts["orderTotalWithServiceFee"]
    return {
        "id": order_id,
        "shortId": short_id,
        "restaurantDisplayName": cart.location.name,
        "fulfillmentMethod": cart.method,
        "fulfillmentIdentifier": fulfillment_identifier(cart),
        "pickupType": cart.pickup_type,
        "orderTime": cart.order_time,
        "orderDate": cart.order_date,
        "totalQuantity": sum(ln.quantity for ln in cart.lines),
        "currency": cart.location.currency,
        "orderTotal": _money(paid),
        "status": "received",
        "createdAt": _iso(now),
        "partiallyRefunded": False,
        "items": [
            {
                "id": ln.id,
                "name": ln.product.name,
                "quantity": ln.quantity,
                "price": _money(ln.unit_price),
                "total": _money(ln.unit_price * ln.quantity),
                "discount": "0.00",
                "specialInstructions": ln.special_instructions,
                "modifiers": _order_modifiers(ln.product, ln.selections),
            }
            for ln in cart.lines
        ],
        "pricing": {
            "subtotal": _money(amounts["subTotal"]),
            "discount": _money(amounts["discountTotal"]),
            "tax": _money(amounts["taxTotal"]),
            "tip": _money(amounts["waiterTipTotal"]),
            "serviceFee": _money(amounts["serviceFeeTotal"]),
            "fulfillmentFee": _money(amounts["fulfillmentMethodFeeTotal"]),
            "enterpriseFee": _money(amounts["enterpriseFeeTotal"]),
            "total": _money(paid),
            "refunded": "0.00",
            "netPaid": _money(paid),
        },
        "deliveryInfo": {"deliveryAddress": cart.delivery["addressString"]}
        if cart.delivery
        else None,
        # Completed orders do not keep table or room details yet (the notes' known gaps).
        "roomServiceInfo": None,
        "tableServiceInfo": None,
        "payment": {"cardLast4": "4242", "walletType": None, "cardBrand": "visa"},
        "updatedAt": None,
    }


def location_body(loc: Location) -> dict[str, Any]:
    return {
        "id": loc.id,
        "restaurantSlug": loc.slug,
        "restaurantDisplayName": loc.name,
        "restaurantBio": loc.bio,
        "coverPhoto": "",
        "restaurantLogo": "",
        "addressData": {
            "street": loc.street,
            "streetOptional": "",
            "city": loc.city,
            "state": loc.state,
            "zipCode": loc.zip_code,
            "country": loc.country,
            "lat": loc.lat,
            "lng": loc.lng,
        },
        "addressString": loc.address_string,
    }


def _link_body(option: Option, child: Group) -> dict[str, Any]:
    """A ModifierChildLink (openapi-facts.json line 643): the group as it is, and, where this
    link changes its rule, `overrides` {min, max} (line 651) beside it."""
    link: dict[str, Any] = {"groupId": child.id, "applyPerParentQuantity": False}
    if child.id in option.overrides:
        low, high = option.overrides[child.id]
        link["overrides"] = {"min": low, "max": high}
    return link


def _option_body(option: Option) -> dict[str, Any]:
    return {
        "id": option.id,
        "name": option.name,
        "price": _money(option.price),
        "maxQuantity": option.max_quantity,
        "childGroups": [
            {
                **_link_body(option, child),
                "group": {
                    "id": child.id,
                    "name": child.name,
                    "description": child.description,
                    "imageUrl": "",
                    "rule": {"min": child.min, "max": child.max},
                    "items": [
                        {
                            "id": o.id,
                            "name": o.name,
                            "price": _money(o.price),
                            "maxQuantity": o.max_quantity,
                        }
                        for o in child.options
                    ],
                },
            }
            for child in option.child_groups
        ],
    }


def menu_product_body(loc: Location, product: Product) -> dict[str, Any]:
    return {
        "id": product.id,
        "name": product.name,
        "price": _money(product.price),
        "displayPrice": _fmt(loc, product.price),
        "currency": loc.currency,
        "modifierIds": [g.id for g in product.groups],
        "description": product.description,
        "availability": product.availability,
        "images": [],
        "nutrition": {
            "calorieCount": product.calories,
            "dietaryPreferences": [],
            "ingredients": [],
        },
    }


def product_body(loc: Location, product: Product) -> dict[str, Any]:
    body = menu_product_body(loc, product)
    body["locationId"] = loc.id
    body["modifiers"] = [
        {
            "id": g.id,
            "name": g.name,
            "description": g.description,
            "imageUrl": "",
            "rule": {"min": g.min, "max": g.max},
            "items": [_option_body(o) for o in g.options],
        }
        for g in product.groups
    ]
    return body


# ---------------------------------------------------------------------------------------------
# Errors


class ApiError(Exception):
    """An answer in the documented error envelope."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        violation: str | None = None,
        refusal: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.violation = violation
        self.refusal = refusal


def _refuse(message: str, details: dict[str, Any] | None = None, status: int = 400) -> ApiError:
    code = {400: "VALIDATION_ERROR", 404: "NOT_FOUND", 409: "CART_IMMUTABLE"}[status]
    return ApiError(status, code, message, details, refusal=True)


@dataclass
class Reply:
    status: int
    body: Any
    etag: str | None = None


def _cart_reply(cart: Cart, status: int = 200) -> Reply:
    return Reply(status, cart_body(cart), etag=f'"cart-{cart.revision}"')


# ---------------------------------------------------------------------------------------------
# The request pipeline


@dataclass
class Ctx:
    request: Request
    operation: Operation
    path: str
    params: dict[str, str]
    query: dict[str, Any]
    body: Any  # parsed JSON, or None when absent
    store: Store
    location: Location | None = None
    cart: Cart | None = None


@dataclass
class Stored:
    fingerprint: str
    status: int
    body: Any
    headers: dict[str, str]


class Server:
    def __init__(
        self,
        seed: Seed,
        faults: Faults | None,
        rate_limit: int | None,
        rate_window: float,
        clock: Callable[[], datetime],
        cart_lifetime: timedelta = timedelta(hours=24),
        handoff_lifetime: timedelta = timedelta(minutes=15),
    ) -> None:
        self.contract: Contract = load_contract()
        self.store = Store(seed, clock, cart_lifetime, handoff_lifetime)
        self.faults = faults or Faults()
        self.rate_limit = rate_limit
        self.rate_window = rate_window
        self._window: list[float] = []
        self.idempotency: dict[str, Stored] = {}
        # Stalled writes still "running": Idempotency-Key -> until when (the server's clock).
        self.in_progress: dict[str, datetime] = {}
        self.stalled: list[str] = []
        # Set by tests.conformance.serving.UvicornThread: a stall then really waits.
        self.over_network = False
        self.violations: list[str] = []
        self.refusals: list[str] = []
        self.unimplemented: list[str] = []
        self.log: list[tuple[str, str, int]] = []  # (method, path, status) of every answer
        self.dropped: list[str] = []
        self.failed_writes: list[str] = []
        self.slug_as_id = False
        # This server's own answers that break the document (a bug here, not in the client).
        self.answer_errors: list[str] = []

    # -- answers --------------------------------------------------------------------------------

    def _error(self, method: str, path: str, error: ApiError) -> JSONResponse:
        if error.violation:
            self.violations.append(f"{method} {path}: {error.violation}")
        elif error.refusal:
            self.refusals.append(f"{method} {path}: {error.code} {error.message}")
        request_id = "req_" + secrets.token_hex(8)
        body: dict[str, Any] = {
            "code": error.code,
            "message": error.message,
            "requestId": request_id,
        }
        if error.details is not None:
            body["details"] = error.details
        self.log.append((method, path, error.status))
        return JSONResponse(body, status_code=error.status, headers={"X-Request-Id": request_id})

    # -- checks ---------------------------------------------------------------------------------

    def _check_rate(self) -> None:
        if self.faults.take_rate_limited():
            # A burst (Faults.rate_limited): bare, as below.
            raise ApiError(429, "RATE_LIMITED", "Too many requests.")
        if self.rate_limit is None:
            return
        now = time.monotonic()
        self._window = [t for t in self._window if now - t < self.rate_window]
        if len(self._window) >= self.rate_limit:
            # Bare: no Retry-After nor X-RateLimit-* header is documented.
            raise ApiError(429, "RATE_LIMITED", "Too many requests.")
        self._window.append(now)

    def _check_params(self, op: Operation, params: dict[str, str], request: Request) -> dict:
        problems: list[str] = []
        for p in op.params:
            if p.location == "path":
                for problem in self.contract.errors(p.schema, params.get(p.name)):
                    problems.append(f"path parameter {p.name} {problem}")
        declared = op.query_params()
        query: dict[str, Any] = {}
        for name, raw in request.query_params.multi_items():
            param = declared.get(name)
            if param is None:
                problems.append(f"query parameter {name!r} is not documented")
                continue
            value: Any = raw
            kind = param.schema.get("type")
            if kind == "boolean":
                value = {"true": True, "false": False}.get(raw, raw)
            elif kind == "integer":
                value = int(raw) if raw.lstrip("-").isdigit() else raw
            for problem in self.contract.errors(param.schema, value):
                problems.append(f"query parameter {name} {problem}")
            query[name] = value
        for name, param in declared.items():
            if param.required and name not in query:
                problems.append(f"required query parameter {name} is missing")
        if problems:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "The request's parameters are invalid.",
                {"problems": problems},
                violation="; ".join(problems),
            )
        return query

    def _check_credentials(self, op: Operation, request: Request) -> None:
        """Credentials the operation does not declare. Which ones must match is checked once the
        cart is known (_authorise)."""
        headers = request.headers
        if "x-api-key" in headers:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "X-API-Key is not part of this API.",
                {"header": "X-API-Key"},
                violation="sent X-API-Key: 2.0 declares no API key on any operation",
            )
        schemes = {name for alternative in op.security for name in alternative}
        offered = {
            "StorefrontCustomerAuth": "authorization" in headers,
            "StorefrontCartCapability": "x-cart-token" in headers,
            "StorefrontCheckoutHandoff": "x-checkout-handoff" in headers,
            "StorefrontReceiptCapability": "x-receipt-token" in headers,
        }
        header_name = {
            "StorefrontCustomerAuth": "Authorization",
            "StorefrontCartCapability": "X-Cart-Token",
            "StorefrontCheckoutHandoff": "X-Checkout-Handoff",
            "StorefrontReceiptCapability": "X-Receipt-Token",
        }
        extra = [header_name[s] for s, sent in offered.items() if sent and s not in schemes]
        if extra:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "A credential this operation does not take was sent.",
                {"headers": extra},
                violation=f"sent {', '.join(extra)}, which {op.operation_id} does not declare "
                f"(security: {op.security or 'anonymous'})",
            )

    def _check_idempotency_key(self, op: Operation, request: Request) -> str | None:
        key = request.headers.get("idempotency-key")
        param = op.header("Idempotency-Key")
        if param is None:
            if key is not None:
                raise ApiError(
                    400,
                    "VALIDATION_ERROR",
                    "This operation takes no Idempotency-Key.",
                    violation=f"sent Idempotency-Key, which {op.operation_id} does not declare",
                )
            return None
        if key is None:
            if param.required:
                raise ApiError(
                    400,
                    "IDEMPOTENCY_KEY_REQUIRED",
                    "An Idempotency-Key header is required.",
                    violation="Idempotency-Key missing",
                )
            return None
        problems = self.contract.errors(param.schema, key)
        if problems:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "The Idempotency-Key is malformed.",
                {"header": "Idempotency-Key"},
                violation=f"Idempotency-Key {key!r} malformed: {problems[0]}",
            )
        return key

    def _check_if_match(self, op: Operation, request: Request, body: Any) -> int | None:
        """The revision the client names, or None. Missing where required: the documented
        precondition status (428 for carts, 400 for addresses)."""
        value = request.headers.get("if-match")
        param = op.header("If-Match")
        rules = op.revision
        if param is None:
            if value is not None:
                raise ApiError(
                    400,
                    "VALIDATION_ERROR",
                    "This operation takes no If-Match.",
                    violation=f"sent If-Match, which {op.operation_id} does not declare",
                )
            return None
        needed = param.required or (
            # ordering-sessions: needed only when resuming a cart
            rules.get("resource") == IF_MATCH_CART
            and isinstance(body, dict)
            and body.get("existingCartId")
        )
        if value is None:
            if needed:
                status = int(rules.get("preconditionStatus") or 428)
                code = "PRECONDITION_REQUIRED" if status == 428 else "VALIDATION_ERROR"
                raise ApiError(
                    status,
                    code,
                    "An If-Match header with the current revision is required.",
                    violation=f"If-Match missing (answered {status})",
                )
            return None
        problems = self.contract.errors(param.schema, value)
        if problems:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "The If-Match header is malformed.",
                {"header": "If-Match"},
                violation=f"If-Match {value!r} malformed: {problems[0]}",
            )
        return int(value.rsplit("-", 1)[1].rstrip('"'))

    async def _read_body(self, op: Operation, request: Request) -> Any:
        raw = await request.body()
        schema = op.body_schema()
        if not raw:
            if op.body_required:
                raise ApiError(
                    400,
                    "VALIDATION_ERROR",
                    "A JSON body is required.",
                    violation="required request body missing",
                )
            return None
        if schema is None:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "This operation takes no body.",
                violation=f"sent a body ({raw[:60]!r}) where {op.operation_id} documents none",
            )
        content_type = request.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() != "application/json":
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "Bodies are application/json.",
                violation=f"body sent as {content_type or 'no Content-Type'}",
            )
        try:
            body = json.loads(raw)
        except ValueError:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "The body is not JSON.",
                violation="body is not valid JSON",
            ) from None
        problems = self.contract.errors(schema, body)
        if problems:
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                "The request body is invalid.",
                {"problems": problems},
                violation="body breaks the schema: " + "; ".join(problems),
            )
        return body

    def _authorise(self, ctx: Ctx) -> None:
        """Resolve the location and cart of the path, and check the credential owns the cart."""
        op, request = ctx.operation, ctx.request
        if "locationId" in ctx.params:
            ctx.location = self.store.location_by_id(ctx.params["locationId"])
            by_slug = self.store.location_by_slug_or_id(ctx.params["locationId"])
            if ctx.location is None and by_slug is not None and self.slug_as_id:
                # Exploration only: record the breach, then carry on to find the next one.
                self.violations.append(
                    f"{request.method} {ctx.path}: a location slug in {{locationId}} (only "
                    "/locations/{locationSlugOrId} takes a slug)"
                )
                ctx.location = by_slug
            if ctx.location is None:
                raise ApiError(
                    404,
                    "NOT_FOUND",
                    "No such location.",
                    violation="a location slug in {locationId} (only /locations/{locationSlugOrId}"
                    " takes a slug)"
                    if by_slug
                    else None,
                    refusal=by_slug is None,
                )
        token = request.headers.get("x-cart-token")
        bearer = request.headers.get("authorization")
        if bearer is not None:
            # This server issues no customer JWTs, so none can be valid here.
            raise ApiError(
                401,
                "UNAUTHORIZED",
                "The bearer token is not valid.",
                violation="Authorization sent, but no customer token was ever issued",
            )
        if "cartId" not in ctx.params:
            return
        cart = self.store.cart(ctx.params["cartId"])
        if cart is None or ctx.location is None or cart.location.id != ctx.location.id:
            raise _refuse("No such cart.", status=404)
        ctx.cart = cart
        if op.profile in ("cartOrCustomer", "cart"):
            if token is None:
                raise ApiError(
                    401,
                    "UNAUTHORIZED",
                    "A cart token is required.",
                    violation="X-Cart-Token missing on a cart operation",
                )
            if not _same_token(token, cart.token):
                raise ApiError(
                    403,
                    "FORBIDDEN",
                    "This credential does not own the cart.",
                    violation="X-Cart-Token is not this cart's token",
                )

    # -- dispatch -------------------------------------------------------------------------------

    async def handle(self, request: Request, op: Operation, handler: Handler | None) -> Response:
        method, path = request.method, request.url.path
        try:
            self._check_rate()
            params = {k: str(v) for k, v in request.path_params.items()}
            query = self._check_params(op, params, request)
            self._check_credentials(op, request)
            key = self._check_idempotency_key(op, request)
            body = await self._read_body(op, request)
            named_revision = self._check_if_match(op, request, body)
            if handler is None:
                self.unimplemented.append(f"{method} {op.template}")
                raise ApiError(404, "NOT_FOUND", "This server does not offer that operation.")
            ctx = Ctx(request, op, path, params, query, body, self.store)
            self._authorise(ctx)
            fingerprint = ""
            if key is not None:
                fingerprint = hashlib.sha256(
                    json.dumps([method, path, body], sort_keys=True).encode()
                ).hexdigest()
                stored = self.idempotency.get(key)
                if stored is not None:
                    if stored.fingerprint != fingerprint:
                        raise ApiError(
                            409,
                            "IDEMPOTENCY_KEY_REUSED",
                            "This Idempotency-Key was used for another request.",
                            violation=f"Idempotency-Key {key} reused for a different request",
                        )
                    running = self.in_progress.get(key)
                    if running is not None and self.store.clock() < running:
                        # The first is still running (contract line 43): not a breach, the
                        # resend after a timeout is what the key is for (line 42).
                        raise ApiError(
                            409,
                            "IDEMPOTENCY_IN_PROGRESS",
                            "A request with this Idempotency-Key is still running.",
                        )
                    self.log.append((method, path, stored.status))
                    return JSONResponse(stored.body, stored.status, headers=stored.headers)
            is_cart_write = method != "GET" and op.template.startswith(CART_WRITE_PREFIX)
            if is_cart_write and self.faults.before_commit():
                self.failed_writes.append(f"{method} {path}")
                status = 503 if len(self.failed_writes) % 2 else 500
                code = "DEPENDENCY_UNAVAILABLE" if status == 503 else "INTERNAL_ERROR"
                raise ApiError(status, code, "The write failed; nothing was changed.")
            try:
                stale = (
                    named_revision is not None
                    and ctx.cart is not None
                    and op.revision.get("required")
                    and named_revision != ctx.cart.revision
                )
                if stale:
                    assert ctx.cart is not None
                    raise ApiError(
                        409,
                        "CART_CONFLICT",
                        "The cart changed since you read it.",
                        {"revision": ctx.cart.revision},
                    )
                reply = handler(ctx)
            except ApiError as error:
                if key is None or error.violation:
                    raise
                # The first outcome is what a resend with the same key gets back.
                response = self._error(method, path, error)
                self.idempotency[key] = Stored(
                    fingerprint,
                    error.status,
                    json.loads(response.body),
                    {"X-Request-Id": response.headers["x-request-id"]},
                )
                return response
        except ApiError as error:
            return self._error(method, path, error)
        problems = self.contract.response_errors(method, op.template, reply.status, reply.body)
        if reply.status == 302:
            problems = []
        self.answer_errors += [f"{method} {path} {reply.status}: {p}" for p in problems]
        headers = {}
        if reply.etag:
            headers["ETag"] = reply.etag
            headers["Cache-Control"] = "private, no-store"
        if reply.status == 302:
            self.log.append((method, path, 302))
            return Response(status_code=302, headers={"Location": reply.body})
        if key is not None:
            self.idempotency[key] = Stored(fingerprint, reply.status, reply.body, headers)
        outcome = self.faults.after_commit() if is_cart_write else "ok"
        if outcome == "drop":
            self.dropped.append(f"{method} {path}")
            self.log.append((method, path, -1))
            return DroppedResponse(len(json.dumps(reply.body)))
        if outcome == "stall":
            self.stalled.append(f"{method} {path}")
            if key is not None:
                self.in_progress[key] = self.store.clock() + timedelta(
                    seconds=self.faults.stall_seconds
                )
            if not self.over_network:
                # In-process the client's own timeout cannot fire (nothing waits on a socket):
                # raise what it would raise. The write has committed.
                self.log.append((method, path, -2))
                raise httpx.ReadTimeout("the answer came after the client's timeout")
            await asyncio.sleep(self.faults.stall_delay)
        self.log.append((method, path, reply.status))
        return JSONResponse(reply.body, reply.status, headers=headers)


Handler = Callable[[Ctx], Reply]


# ---------------------------------------------------------------------------------------------
# Operation handlers


def _need_open(cart: Cart) -> None:
    if cart.status != "OPEN":
        raise _refuse(f"The cart is {cart.status}.", {"status": cart.status}, status=409)


def get_merchant(ctx: Ctx) -> Reply:
    seed = ctx.store.seed
    if ctx.params["merchantSlug"] != seed.merchant_slug:
        raise _refuse("No such merchant.", status=404)
    return Reply(
        200,
        {
            "id": seed.merchant_id,
            "name": seed.merchant_name,
            "country": seed.country,
            "currency": seed.locations[0].currency,
            "bio": "",
            "logo": "",
            "cover": "",
            "locations": [
                {
                    "id": loc.id,
                    "restaurantDisplayName": loc.name,
                    "coverPhoto": "",
                    "restaurantLogo": "",
                    "addressString": loc.address_string,
                    "restaurantBio": loc.bio,
                    "lat": loc.lat,
                    "lng": loc.lng,
                    "methodsStatus": {
                        word: loc.methods.get(method, False)
                        for word, method in METHODS_STATUS.items()
                    },
                }
                for loc in seed.locations
            ],
        },
    )


def get_location(ctx: Ctx) -> Reply:
    loc = ctx.store.location_by_slug_or_id(ctx.params["locationSlugOrId"])
    if loc is None:
        raise _refuse("No such location.", status=404)
    return Reply(200, location_body(loc))


def _loc(ctx: Ctx) -> Location:
    assert ctx.location is not None
    return ctx.location


def _cart(ctx: Ctx) -> Cart:
    assert ctx.cart is not None
    return ctx.cart


def distance(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    lat1, lng1, lat2, lng2 = map(math.radians, (loc.lat, loc.lng, ctx.body["lat"], ctx.body["lng"]))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    )
    km = 2 * 6371.0088 * math.asin(math.sqrt(h))
    miles = km / 1.609344
    unit = ctx.body.get("unit", "miles")
    return Reply(
        200,
        {
            "locationId": loc.id,
            "location": {
                "id": loc.id,
                "restaurantDisplayName": loc.name,
                "addressString": loc.address_string,
                "coordinates": {"lat": loc.lat, "lng": loc.lng},
            },
            "distance": {
                "value": round(miles if unit == "miles" else km, 3),
                "unit": unit,
                "miles": round(miles, 3),
                "kilometers": round(km, 3),
            },
        },
    )


def time_intervals(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    days = ctx.store.order_days(loc)
    # OrderTimes {orderDays, scheduleAllowed, requireScheduledOrders} (contract line 136).
    return Reply(
        200,
        {
            "orderDays": days,
            "scheduleAllowed": True,
            "requireScheduledOrders": loc.require_scheduled,
        },
    )


def readiness(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    offered = [m for m in FULFILMENT_METHODS if loc.methods.get(m)]
    method = ctx.query.get("fulfillmentMethod") or (offered[0] if offered else "takeout")
    refusal = loc.method_refusal(method)
    if refusal is not None:
        return Reply(200, {"ready": False, "fulfillmentMethod": method, "reason": refusal})
    if loc.closed_reason is not None:
        # {ready: false, fulfillmentMethod, reason} (contract line 29).
        return Reply(
            200, {"ready": False, "fulfillmentMethod": method, "reason": loc.closed_reason}
        )
    if loc.require_scheduled:
        # Ready, for the first slot: pickupType LATER is one of the two the ready variant takes
        # (openapi-facts.json line 3017).
        slot = ctx.store.first_slot(loc)
        if slot is None:
            return Reply(
                200, {"ready": False, "fulfillmentMethod": method, "reason": "No slots left."}
            )
        return Reply(
            200,
            {
                "ready": True,
                "fulfillmentMethod": method,
                "pickupType": "LATER",
                "orderDate": slot[0],
                "orderTime": slot[1],
            },
        )
    order_date, order_time = ctx.store.asap(loc)
    ready = ctx.store.clock() + timedelta(minutes=15)
    return Reply(
        200,
        {
            "ready": True,
            "fulfillmentMethod": method,
            "pickupType": "ASAP",
            "orderDate": order_date,
            "orderTime": order_time,
            "estimatedReadyTime": _iso(ready),
        },
    )


def gratuity_config(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    return Reply(
        200,
        {
            "enabled": loc.tips_enabled,
            "shouldAllowCustomTip": loc.tips_enabled,
            "tipPercentage": list(loc.tip_percentages),
            "defaultTipPercentage": "0",
            "description": "Tips go to the kitchen and floor team.",
        },
    )


def menus(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    today = ctx.store.local_now(loc).date().isoformat()
    categories = [
        {
            "id": cat_id,
            "name": name,
            "products": [
                menu_product_body(loc, p) for p in loc.products if p.category_id == cat_id
            ],
        }
        for cat_id, name in loc.categories
    ]
    popular = [] if ctx.query.get("menuOnly") else loc.popular
    return Reply(
        200,
        {
            "menus": [
                {
                    "id": "menu_all_day",
                    "name": "All day",
                    # Closed today: the menu is shown but not active, unless asked for
                    # another day (orderDate, contract line 55): tomorrow's slots are open.
                    "isActive": loc.closed_reason is None
                    or ctx.query.get("orderDate") not in (None, today),
                    "time": "00:00-24:00",
                    "imageUrl": "",
                    "categories": categories,
                }
            ],
            "popularProducts": [
                menu_product_body(loc, p) for pid in popular if (p := loc.product(pid))
            ],
        },
    )


def product(ctx: Ctx) -> Reply:
    loc = _loc(ctx)
    found = loc.product(ctx.params["productId"])
    if found is None:
        raise _refuse("No such product.", status=404)
    return Reply(200, product_body(loc, found))


def ordering_session(ctx: Ctx) -> Reply:
    loc, body, store = _loc(ctx), ctx.body, ctx.store
    refusal = loc.method_refusal(body["fulfillmentMethod"])
    if refusal is not None:
        raise _refuse(refusal, {"field": "fulfillmentMethod"})
    existing_id = body.get("existingCartId")
    if existing_id:
        cart = store.cart(existing_id)
        if cart is None or cart.location.id != loc.id:
            raise _refuse("No such cart.", status=404)
        token = ctx.request.headers.get("x-cart-token")
        if not _same_token(token, cart.token):
            raise ApiError(
                403,
                "FORBIDDEN",
                "Resuming a cart takes its cart token.",
                violation="existingCartId resumed without that cart's X-Cart-Token",
            )
        named = ctx.request.headers.get("if-match", "")
        if int(named.rsplit("-", 1)[1].rstrip('"')) != cart.revision:
            raise ApiError(409, "CART_CONFLICT", "The cart changed since you read it.")
        if cart.status == "OPEN":
            if cart.method != body["fulfillmentMethod"]:
                _set_method(cart, body["fulfillmentMethod"])
                cart.revision += 1
            return Reply(200, {"cart": cart_body(cart)}, etag=f'"cart-{cart.revision}"')
        # A finished cart cannot be resumed: the session starts a new one (201).
    cart = store.new_cart(loc, body["fulfillmentMethod"])
    if body.get("channel"):
        cart.metadata["channel"] = body["channel"]
    return Reply(
        201,
        {"cart": cart_body(cart), "cartAccessToken": cart.token},
        etag=f'"cart-{cart.revision}"',
    )


def analytics(ctx: Ctx) -> Reply:
    cart = ctx.store.cart(ctx.body["cartId"])
    token = ctx.request.headers.get("x-cart-token")
    if cart is None or not _same_token(token, cart.token):
        raise _refuse("No such cart.", status=404)
    return Reply(202, {"status": "accepted"})


def get_cart(ctx: Ctx) -> Reply:
    return _cart_reply(_cart(ctx))


def _set_method(cart: Cart, method: str) -> None:
    if method != cart.method:
        cart.method = method
        cart.delivery = None
        cart.table = None
        cart.room = None


def update_cart(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    if "fulfillmentMethod" in ctx.body:
        refusal = cart.location.method_refusal(ctx.body["fulfillmentMethod"])
        if refusal is not None:
            raise _refuse(refusal, {"field": "fulfillmentMethod"})
        _set_method(cart, ctx.body["fulfillmentMethod"])
    if "note" in ctx.body:
        # The cart schema has no note member: metadata is the only open place for it.
        cart.metadata["note"] = ctx.body["note"]
    cart.revision += 1
    return _cart_reply(cart)


def delete_cart(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    if cart.status in ("COMPLETED", "EXPIRED"):
        raise _refuse(f"The cart is {cart.status}.", status=409)
    cart.status = "EXPIRED"
    cart.result = "failed"
    cart.failure_code = "CART_EXPIRED"
    cart.expires_at = ctx.store.clock()
    cart.revision += 1
    return _cart_reply(cart)


def recommendations(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    in_cart = {ln.product.id for ln in cart.lines}
    picks = [
        p
        for p in cart.location.products
        if p.id not in in_cart and p.availability == "available" and not p.groups
    ][:3]
    body = [
        {
            "id": p.id,
            "name": p.name,
            "price": _money(p.price),
            "description": p.description,
            "availability": p.availability,
            "images": [],
            "modifierIds": [g.id for g in p.groups],
        }
        for p in picks
    ]
    return Reply(200, body, etag=f'"cart-{cart.revision}"')


def validate_and_update(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    if not cart.lines:
        raise _refuse("The cart is empty.", {"field": "items"})
    cart.customer = dict(ctx.body)
    cart.revision += 1
    return _cart_reply(cart)


def set_gratuity(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    amount, percentage = ctx.body.get("amount"), ctx.body.get("percentage")
    tipped = any(v is not None and Decimal(str(v)) != 0 for v in (amount, percentage))
    if tipped and not cart.location.tips_enabled:
        raise _refuse(f"{cart.location.name} does not take tips.", {"field": "amount"})
    if amount is not None and percentage is not None:
        raise _refuse("Give an amount or a percentage, not both.", {"field": "amount"})
    cart.tip_amount = Decimal(amount).quantize(CENT) if amount is not None else None
    cart.tip_percentage = Decimal(percentage) if percentage is not None else None
    if cart.tip_percentage is not None and cart.tip_percentage > 100:
        raise _refuse("A tip percentage is at most 100.", {"field": "percentage"})
    cart.revision += 1
    return _cart_reply(cart)


def _need_method(cart: Cart, method: str) -> None:
    if cart.method != method:
        raise _refuse(
            f"The cart's fulfilment method is {cart.method}, not {method}.",
            {"field": "fulfillmentMethod"},
        )


def set_delivery(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    _need_method(cart, "delivery")
    address = {"streetOptional": "", **ctx.body}
    parts = [address["street"], address["streetOptional"], address["city"], address["zipCode"]]
    cart.delivery = {
        "addressString": ", ".join(p for p in parts if p),
        "addressData": address,
    }
    cart.revision += 1
    return _cart_reply(cart)


def set_table(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    _need_method(cart, "table_side")
    cart.table = ctx.body["tableNumber"]
    cart.revision += 1
    return _cart_reply(cart)


def set_room(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    _need_method(cart, "room_service")
    cart.room = {"lastName": ctx.body["lastName"], "roomNumber": ctx.body["roomNumber"]}
    cart.revision += 1
    return _cart_reply(cart)


def update_order_time(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    if ctx.body["pickupType"] == "ASAP":
        refusal = ctx.store.asap_refusal(cart.location)
        if refusal is not None:
            raise _refuse(refusal, {"field": "pickupType"})
        cart.pickup_type = "ASAP"
        cart.order_date, cart.order_time = ctx.store.asap(cart.location)
    else:
        days = {d["value"]: d["intervals"] for d in ctx.store.order_days(cart.location)}
        if ctx.body["orderTime"] not in days.get(ctx.body["orderDate"], []):
            raise _refuse("That time is not one of the offered slots.", {"field": "orderTime"})
        cart.pickup_type = "LATER"
        cart.order_date, cart.order_time = ctx.body["orderDate"], ctx.body["orderTime"]
    cart.revision += 1
    return _cart_reply(cart)


Rules = list[tuple[Group, int, int]]  # a group and its rule (min, max) where it is linked


def _price_selections(
    groups: Rules, chosen: list[dict[str, Any]], where: str
) -> tuple[Decimal, list[dict[str, Any]]]:
    """Check the selections against the groups' rules (a nested group's as its link overrides
    it); the extra price per unit, and the selections as stored (defaults filled in)."""
    by_id = {g.id: (g, low, high) for g, low, high in groups}
    seen: set[str] = set()
    extra = Decimal(0)
    stored: list[dict[str, Any]] = []
    for pick in chosen:
        found = by_id.get(pick["groupId"])
        if found is None or pick["groupId"] in seen:
            raise _refuse(f"Unknown or repeated modifier group {pick['groupId']} ({where}).")
        group, low, high = found
        seen.add(group.id)
        options = {o.id: o for o in group.options}
        count = 0
        kept_options = []
        for sel in pick["selectedOptions"]:
            option = options.get(sel["optionId"])
            if option is None:
                raise _refuse(f"Unknown option {sel['optionId']} in {group.name}.")
            if sel["quantity"] > option.max_quantity:
                raise _refuse(f"At most {option.max_quantity} of {option.name}.")
            count += sel["quantity"]
            child_extra, children = _price_selections(
                [(c, *option.rule_of(c)) for c in option.child_groups],
                sel.get("children", []),
                f"{where} > {option.name}",
            )
            extra += (option.price + child_extra) * sel["quantity"]
            kept = {"optionId": option.id, "quantity": sel["quantity"]}
            if children:
                kept["children"] = children
            kept_options.append(kept)
        if not low <= count <= high:
            raise _refuse(
                f"{group.name}: choose between {low} and {high} ({where}).",
                {"groupId": group.id},
            )
        stored.append({"groupId": group.id, "selectedOptions": kept_options})
    for group, low, _ in groups:
        if low > 0 and group.id not in seen:
            raise _refuse(f"{group.name} is required ({where}).", {"groupId": group.id})
    return extra, stored


def add_item(ctx: Ctx) -> Reply:
    cart, body = _cart(ctx), ctx.body
    _need_open(cart)
    found = cart.location.product(body["productId"])
    if found is None:
        raise _refuse("No such product.", {"field": "productId"})
    if found.availability != "available":
        raise _refuse(f"{found.name} is not available.", {"field": "productId"})
    extra, selections = _price_selections(
        [(g, g.min, g.max) for g in found.groups], body.get("selections", []), found.name
    )
    # Every add is a line of its own: the documents never say that equal lines merge.
    cart.lines.append(
        Line(
            id=_hex24(),
            product=found,
            quantity=body["quantity"],
            unit_price=found.price + extra,
            category_id=body.get("categoryId", found.category_id),
            special_instructions=body.get("specialInstructions", ""),
            unavailable_action=body["itemUnavailableAction"],
            selections=selections,
        )
    )
    cart.revision += 1
    return _cart_reply(cart)


def _line(cart: Cart, item_id: str) -> Line:
    line = next((ln for ln in cart.lines if ln.id == item_id), None)
    if line is None:
        raise _refuse("No such item in the cart.", status=404)
    return line


def update_item(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    line = _line(cart, ctx.params["itemId"])
    if ctx.body["quantity"] == 0:
        cart.lines.remove(line)
    else:
        line.quantity = ctx.body["quantity"]
    cart.revision += 1
    return _cart_reply(cart)


def remove_item(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    cart.lines.remove(_line(cart, ctx.params["itemId"]))
    cart.revision += 1
    return _cart_reply(cart)


def apply_discount(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    code, loc = ctx.body["code"].upper(), cart.location
    if code not in loc.discount_codes:
        raise _refuse("That discount code is not valid here.", {"field": "code"})
    minimum = loc.minimum_spend.get(code)
    subtotal = sum((ln.unit_price * ln.quantity for ln in cart.lines), Decimal(0))
    if minimum is not None and subtotal < minimum:
        # No documented code for it: a VALIDATION_ERROR naming the field, with the figures.
        raise _refuse(
            f"This code needs an order of at least {_fmt(loc, minimum)}. "
            f"Add {_fmt(loc, minimum - subtotal)} more.",
            {
                "field": "code",
                "reason": "MINIMUM_NOT_MET",
                "minimumSubtotal": _money(minimum),
                "amountShort": _money(minimum - subtotal),
            },
        )
    cart.discount_code = code
    cart.revision += 1
    return _cart_reply(cart)


def remove_discount(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    cart.discount_code = None
    cart.revision += 1
    return _cart_reply(cart)


def checkout_handoff(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    _need_open(cart)
    if not cart.lines:
        raise _refuse("The cart is empty.", {"field": "items"})
    missing = {
        "delivery": cart.delivery is None,
        "table_side": cart.table is None,
        "room_service": cart.room is None,
    }.get(cart.method, False)
    if missing:
        raise _refuse(f"A {cart.method} cart needs its details first.", {"field": cart.method})
    _need_orderable(cart)
    if cart.pickup_type == "ASAP":
        # requireScheduledOrders (contract line 136) says only that orders must be scheduled;
        # a new cart starts ASAP (the readiness/cart default), so the hand-off, where an order
        # begins, is where an unscheduled one is stopped. Likewise a closed location.
        refusal = ctx.store.asap_refusal(cart.location)
        if refusal is not None:
            raise _refuse(refusal, {"field": "pickupType"})
    now = ctx.store.clock()
    if cart.result == "failed":
        # A fresh hand-off after a declined payment: a new attempt, waiting for its payment.
        cart.result, cart.failure_code = "payment_pending", None
    handoff_id = secrets.token_urlsafe(16)
    expires = now + ctx.store.handoff_lifetime
    url = f"https://checkout.harbour-noodles.test/pay/{handoff_id}"
    ctx.store.handoffs[handoff_id] = Handoff(handoff_id, cart.id, url, expires, now)
    return Reply(201, {"checkoutUrl": url, "expiresAt": _iso(expires)})


def _need_orderable(cart: Cart) -> None:
    """What a hand-off re-checks of a cart against the location as it is now: its way to order
    still offered, every line's product still available, a LATER time still offered. Each a
    400 VALIDATION_ERROR naming the field (the documents list no code of their own for them)."""
    loc = cart.location
    refusal = loc.method_refusal(cart.method)
    if refusal is not None:
        raise _refuse(refusal, {"field": "fulfillmentMethod"})
    gone = [ln for ln in cart.lines if ln.product.availability != "available"]
    if gone:
        names = list(dict.fromkeys(ln.product.name for ln in gone))
        verb, them = ("is", "it") if len(names) == 1 else ("are", "them")
        raise _refuse(
            f"Sorry, {', '.join(names)} {verb} no longer available. "
            f"Remove {them} from your order to continue.",
            {
                "field": "items",
                "reason": "ITEM_UNAVAILABLE",
                "itemIds": [ln.id for ln in gone],
                "productIds": list(dict.fromkeys(ln.product.id for ln in gone)),
            },
        )
    if cart.pickup_type == "LATER" and loc.slot_taken(cart.order_date, cart.order_time):
        raise _refuse(
            f"{cart.order_time} is no longer available. Please choose another time.",
            {"field": "orderTime", "reason": "SLOT_UNAVAILABLE"},
        )


def payment_intent(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    if cart.status not in ("OPEN", "LOCKED"):
        raise _refuse(f"The cart is {cart.status}.", status=409)
    if not cart.lines:
        raise _refuse("The cart is empty.", {"field": "items"})
    if cart.status == "OPEN":
        cart.status = "LOCKED"
        cart.locked_at = ctx.store.clock()
        cart.revision += 1
    return Reply(200, {"clientSecret": f"harbour_intent_{cart.id}"}, etag=f'"cart-{cart.revision}"')


def order_result(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    state = cart.result
    if state == "order_pending":
        # Placing the order takes one poll: the next one finds it completed.
        ctx.store.complete(cart)
        return Reply(200, {"state": "order_pending"})
    if state == "completed":
        return Reply(200, {"state": "completed", "order": cart.order})
    if state == "failed":
        return Reply(200, {"state": "failed", "code": cart.failure_code or "FAILED"})
    return Reply(200, {"state": "payment_pending"})


def rating(ctx: Ctx) -> Reply:
    cart = _cart(ctx)
    if cart.status != "COMPLETED":
        raise _refuse("Only a completed order can be rated.", {"field": "rating"})
    cart.rating = dict(ctx.body)
    return Reply(200, {"success": True, "id": _hex24()})


HANDLERS: dict[tuple[str, str], Handler] = {
    ("GET", "/merchant/{merchantSlug}"): get_merchant,
    ("GET", "/locations/{locationSlugOrId}"): get_location,
    ("POST", "/locations/{locationId}/distance"): distance,
    ("GET", "/locations/{locationId}/time-intervals"): time_intervals,
    ("GET", "/locations/{locationId}/ordering-readiness"): readiness,
    ("GET", "/locations/{locationId}/gratuity"): gratuity_config,
    ("GET", "/locations/{locationId}/menus"): menus,
    ("GET", "/locations/{locationId}/products/{productId}"): product,
    ("POST", "/locations/{locationId}/ordering-sessions"): ordering_session,
    ("POST", "/locations/{locationId}/analytics-events"): analytics,
    ("GET", CART_WRITE_PREFIX): get_cart,
    ("PATCH", CART_WRITE_PREFIX): update_cart,
    ("DELETE", CART_WRITE_PREFIX): delete_cart,
    ("GET", CART_WRITE_PREFIX + "/products"): recommendations,
    ("PUT", CART_WRITE_PREFIX + "/validate-and-update"): validate_and_update,
    ("PUT", CART_WRITE_PREFIX + "/gratuity"): set_gratuity,
    ("PUT", CART_WRITE_PREFIX + "/set-delivery"): set_delivery,
    ("PUT", CART_WRITE_PREFIX + "/set-table"): set_table,
    ("PUT", CART_WRITE_PREFIX + "/set-room"): set_room,
    ("PUT", CART_WRITE_PREFIX + "/update-order-time"): update_order_time,
    ("POST", CART_WRITE_PREFIX + "/items"): add_item,
    ("PATCH", CART_WRITE_PREFIX + "/items/{itemId}"): update_item,
    ("DELETE", CART_WRITE_PREFIX + "/items/{itemId}"): remove_item,
    ("POST", CART_WRITE_PREFIX + "/discount"): apply_discount,
    ("DELETE", CART_WRITE_PREFIX + "/discount"): remove_discount,
    ("POST", CART_WRITE_PREFIX + "/checkout-handoffs"): checkout_handoff,
    ("POST", CART_WRITE_PREFIX + "/payment-intent"): payment_intent,
    ("GET", CART_WRITE_PREFIX + "/order-result"): order_result,
    ("POST", CART_WRITE_PREFIX + "/rating"): rating,
}


# ---------------------------------------------------------------------------------------------
# The app


def make_vendor_app(
    seed: Seed | None = None,
    faults: Faults | None = None,
    *,
    rate_limit: int | None = None,
    rate_window: float = 60.0,
    clock: Callable[[], datetime] | None = None,
    slug_as_id: bool = False,
    cart_lifetime: timedelta = timedelta(hours=24),
    handoff_lifetime: timedelta = timedelta(minutes=15),
    test_payment: bool = True,
) -> Starlette:
    """The strict 2.0 server. `seed`: the data (default harbour_noodles()); `faults`: seeded
    failures of cart writes; `rate_limit`: requests per `rate_window` seconds (default: none);
    `clock`: an aware datetime source (default: the real clock); `slug_as_id`: serve a location
    slug given where {locationId} is documented (still recorded as a violation), to explore a
    client past that first breach. `cart_lifetime`, `handoff_lifetime`: from creation to
    `expiresAt` (on `clock`). `test_payment`: advertise the test payment a client can find
    (docs/api.md, "A test payment"; False: a server like the hosted one, which has none)."""
    server = Server(
        seed or harbour_noodles(),
        faults,
        rate_limit,
        rate_window,
        clock or (lambda: datetime.now(UTC)),
        cart_lifetime,
        handoff_lifetime,
    )
    server.slug_as_id = slug_as_id
    contract = server.contract
    by_template: dict[str, list[str]] = {}
    for method, template in contract.operations:
        by_template.setdefault(template, []).append(method)

    def endpoint_for(template: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            op = contract.operations.get((request.method, template))
            if op is None:
                return server._error(
                    request.method,
                    request.url.path,
                    ApiError(
                        404,
                        "NOT_FOUND",
                        "Not found.",
                        violation=f"{request.method} is not documented on {template}",
                    ),
                )
            return await server.handle(request, op, HANDLERS.get((request.method, template)))

        return endpoint

    async def unknown(request: Request) -> Response:
        return server._error(
            request.method,
            request.url.path,
            ApiError(404, "NOT_FOUND", "Not found.", violation="path not in the document"),
        )

    async def test_pay_or_refuse(request: Request) -> Response:
        """What the hosted page does with a hand-off (by its id, the checkoutUrl's last
        segment) or with a cart's newest hand-off (by cart id: a restarted kiosk's test pays
        the cart whose code it showed). Actions: pay | decline | fail ({"code": ...})."""
        store = server.store
        if "handoffId" in request.path_params:
            handoff = store.handoffs.get(request.path_params["handoffId"])
            if handoff is None:
                return JSONResponse({"error": "no such handoff"}, 404)
            cart_id = handoff.cart_id
        else:
            cart_id = request.path_params["cartId"]
            if cart_id not in store.carts:
                return JSONResponse({"error": "no such cart"}, 404)
            handoff = store.latest_handoff(cart_id)
        action = request.path_params["action"]
        try:
            if action == "pay":
                store.pay(cart_id, handoff)
            elif action == "decline":
                store.decline(cart_id, handoff)
            elif action == "fail":
                raw = await request.body()
                code = (json.loads(raw) if raw else {}).get("code", "PAYMENT_FAILED")
                store.fail_payment(cart_id, str(code), handoff)
            else:
                return JSONResponse({"error": f"no action {action}"}, 404)
        except PaymentRefused as refused:
            return JSONResponse({"refused": str(refused), "cart": cart_id}, 409)
        return JSONResponse({action: cart_id, "handoff": handoff.id if handoff else None})

    async def well_known_test_payment(request: Request) -> Response:
        """The documented test payment (docs/api.md): GET says there is one; POST
        {"checkoutUrl"} pays that hand-off, as the hosted page would."""
        if request.method == "GET":
            return JSONResponse({"testPayment": True, "pays": "checkoutUrl"})
        raw = await request.body()
        try:
            url = (json.loads(raw) if raw else {}).get("checkoutUrl")
        except (ValueError, AttributeError):
            url = None
        if not isinstance(url, str) or not url:
            return JSONResponse({"error": "checkoutUrl is required"}, 400)
        handoff = server.store.handoffs.get(url.rstrip("/").rsplit("/", 1)[-1])
        if handoff is None:
            return JSONResponse({"error": "no such handoff"}, 404)
        try:
            server.store.pay(handoff.cart_id, handoff)
        except PaymentRefused as refused:
            return JSONResponse({"refused": str(refused)}, 409)
        return JSONResponse({"pay": handoff.cart_id, "handoff": handoff.id})

    async def test_faults(request: Request) -> Response:
        """Out-of-process control of the faults: {"rate_limited": N, "script": [...]}."""
        raw = await request.body()
        wanted = json.loads(raw) if raw else {}
        if "rate_limited" in wanted:
            server.faults.rate_limited = int(wanted["rate_limited"])
        server.faults.add_script(*wanted.get("script", []))
        return JSONResponse({"rate_limited": server.faults.rate_limited})

    async def _options(request: Request) -> dict[str, Any]:
        raw = await request.body()
        return json.loads(raw) if raw else {}

    def _event(
        act: Callable[[Request, dict[str, Any]], dict[str, Any]],
    ) -> Callable[[Request], Any]:
        """A server-side event (see `Store`'s test-only events): the body (optional JSON) may
        name `locationId` (default: the first location; for products, every location). 404
        for something unknown."""

        async def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(act(request, await _options(request)))
            except KeyError as missing:
                return JSONResponse({"error": str(missing)}, 404)

        return endpoint

    store = server.store

    def expire(request: Request, _: dict[str, Any]) -> dict[str, Any]:
        cart = store.expire_cart(request.path_params["cartId"])
        return {"cart": cart.id, "status": cart.status}

    def availability(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        product_id, action = request.path_params["productId"], request.path_params["action"]
        if action not in ("sell-out", "restock"):
            raise KeyError(f"no action {action}")
        (store.sell_out if action == "sell-out" else store.restock)(
            product_id, body.get("locationId")
        )
        return {"product": product_id, "availability": action}

    def switch(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        method, state = request.path_params["method"], request.path_params["state"]
        if state not in ("on", "off"):
            raise KeyError(f"no state {state}")
        store.switch(method, state == "on", body.get("locationId"))
        location = store.location_or_first(body.get("locationId"))
        return {"location": location.id, "methods": location.methods}

    def take(_: Request, body: dict[str, Any]) -> dict[str, Any]:
        left = store.take_slots(
            body.get("times", []),
            day=body.get("day"),
            after=body.get("after"),
            location_id=body.get("locationId"),
        )
        return {"intervals": left}

    def add_code(_: Request, body: dict[str, Any]) -> dict[str, Any]:
        minimum = body.get("minimumSubtotal")
        store.add_code(
            body["code"],
            Decimal(str(body["percentOff"])) / 100,
            Decimal(str(minimum)) if minimum is not None else None,
            body.get("locationId"),
        )
        return {"code": body["code"].upper()}

    routes = [
        # Before the payment route of the same shape: "expire" is an event, not a payment.
        Route("/__test__/carts/{cartId}/expire", _event(expire), methods=["POST"]),
        Route("/__test__/products/{productId}/{action}", _event(availability), methods=["POST"]),
        Route("/__test__/methods/{method}/{state}", _event(switch), methods=["POST"]),
        Route("/__test__/slots/take", _event(take), methods=["POST"]),
        Route("/__test__/discount-codes", _event(add_code), methods=["POST"]),
        Route("/__test__/handoffs/{handoffId}/{action}", test_pay_or_refuse, methods=["POST"]),
        Route("/__test__/carts/{cartId}/{action}", test_pay_or_refuse, methods=["POST"]),
        Route("/__test__/faults", test_faults, methods=["POST"]),
    ]

    async def no_test_payment(request: Request) -> Response:
        # A server without one answers as for any path it lacks. Outside the API's base path,
        # so no breach of the document (a client may look for it: docs/api.md).
        return JSONResponse({"error": "Not found."}, 404)

    routes.append(
        Route(
            "/.well-known/storefront-test-payment",
            well_known_test_payment if test_payment else no_test_payment,
            methods=["GET", "POST"],
        )
    )
    # Every documented path is routed (all verbs reach the endpoint, which flags undocumented
    # ones); a documented operation this server does not offer answers 404 and is counted.
    routes += [
        Route(
            BASE_PATH + template,
            endpoint_for(template),
            methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        )
        for template in by_template
    ]
    routes.append(
        Route(
            "/{rest:path}",
            unknown,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        )
    )
    app = Starlette(routes=routes)
    app.state.server = server
    app.state.store = server.store
    app.state.contract = contract
    app.state.violations = server.violations
    app.state.refusals = server.refusals
    app.state.answer_errors = server.answer_errors
    app.state.test_payment = test_payment
    app.state.implemented = sorted(HANDLERS)
    return app
