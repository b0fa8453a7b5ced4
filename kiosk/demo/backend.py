"""The demo backend's business rules: one method per contract row, plus the demo processor.

Methods take already-authenticated location records and parsed JSON bodies, and return JSON-able
values or raise ApiError. The Starlette layer (app.py) does HTTP, auth, rate limiting and faults.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.demo import data
from kiosk.demo.catalog import (
    Catalog,
    menu_open_at,
    selections_delta,
    selections_json,
    selections_key,
)
from kiosk.demo.errors import ApiError, locked, not_found, validation
from kiosk.demo.faults import Faults, RateLimiter, Stats
from kiosk.demo.money import dec, fmt, parse_major, rate, total
from kiosk.demo.pricing import Pricing, price_cart
from kiosk.demo.store import Store

MAX_QUANTITY = 99  # per line
MAX_LINES = 50
MAX_INSTRUCTIONS = 200
SLOT_MINUTES = 15
SCHEDULE_DAYS = 3  # today and the next two days
LEAD_MINUTES = 15  # the earliest slot today is at least this far ahead

# Response aliases a client might send back to us; requests should use the canonical values.
METHOD_ALIASES = {
    "takeout": "pickup",
    "table": "table_service",
    "table_side": "table_service",
    "roomService": "room_service",
    "dinein": "dine_in",
}
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
APPROVE_CARD = "4242424242424242"
DECLINE_CARD = "4000000000000002"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _str(
    body: dict[str, Any], name: str, *, required: bool = True, max_len: int = 200
) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise validation(f"{name} is required", name)
        return None
    if not isinstance(value, str):
        raise validation(f"{name} must be a string", name)
    value = value.strip()
    if required and not value:
        raise validation(f"{name} must not be empty", name)
    if len(value) > max_len:
        raise validation(f"{name} must be at most {max_len} characters", name)
    return value


def _int(body: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = body.get(name)
    if value is None:
        raise validation(f"{name} is required", name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation(f"{name} must be a whole number", name)
    if value < lo or value > hi:
        raise validation(f"{name} must be between {lo} and {hi}", name)
    return value


# Requests with a missing or wrong key allowed per IP and window (then 429).
FAILED_AUTH_LIMIT = 20


class Backend:
    def __init__(
        self,
        db_path: str = ":memory:",
        *,
        clock: Callable[[], float] | None = None,
        rate_limit: int | None = 200,
        rate_window: float = 600.0,
        extra_products: int = 0,
        public_base_url: str | None = None,
        seed: bool = True,
        synchronous: str = "NORMAL",
        menu: str | Path | data.Restaurant | None = None,
    ) -> None:
        self.clock: Callable[[], float] = clock or time.time
        self.store = Store(db_path, synchronous=synchronous)
        if seed:
            self.store.seed(extra_products, self.clock(), data.load(menu))
        self.catalog = Catalog(self.store.load_catalog())
        self.public_base_url = public_base_url.rstrip("/") if public_base_url else None
        self.faults = Faults()
        self.stats = Stats()
        self.limiter = RateLimiter(rate_limit, rate_window, lambda: self.clock())
        # Requests whose key is refused: their own small window, so they cannot spend the budget.
        self.auth_limiter = RateLimiter(FAILED_AUTH_LIMIT, rate_window, lambda: self.clock())
        self._zones: dict[str, ZoneInfo] = {}

    @property
    def carts(self) -> CartInspector:
        """Read-only views of the stored carts, for tests and demos."""
        return CartInspector(self)

    def set_clock(self, fn: Callable[[], float]) -> None:
        self.clock = fn

    def close(self) -> None:
        self.store.close()

    # -- time ----------------------------------------------------------------------------------

    def zone(self, loc: dict[str, Any]) -> ZoneInfo:
        tz = loc["timezone"]
        if tz not in self._zones:
            self._zones[tz] = ZoneInfo(tz)
        return self._zones[tz]

    def local_now(self, loc: dict[str, Any], now: float | None = None) -> datetime:
        return datetime.fromtimestamp(self.clock() if now is None else now, self.zone(loc))

    def hours_on(self, loc: dict[str, Any], day: date) -> tuple[str, str] | None:
        name = data.DAYS[day.weekday()]
        for h in loc["details"]["hours"]:
            if h["day"] == name:
                return h["open"], h["close"]
        return None

    def is_open(self, loc: dict[str, Any], local: datetime) -> bool:
        hours = self.hours_on(loc, local.date())
        if hours is None:
            return False
        return hours[0] <= local.strftime("%H:%M") < hours[1]

    def order_days(self, loc: dict[str, Any]) -> list[dict[str, Any]]:
        now = self.local_now(loc)
        earliest = now + timedelta(minutes=LEAD_MINUTES)
        days = []
        for offset in range(SCHEDULE_DAYS):
            day = now.date() + timedelta(days=offset)
            hours = self.hours_on(loc, day)
            if hours is None:
                continue
            oh, om = map(int, hours[0].split(":"))
            ch, cm = map(int, hours[1].split(":"))
            start = oh * 60 + om
            start += (-start) % SLOT_MINUTES
            intervals = []
            for minute in range(start, ch * 60 + cm, SLOT_MINUTES):
                hhmm = f"{minute // 60:02d}:{minute % 60:02d}"
                if offset == 0:
                    slot = datetime(day.year, day.month, day.day, minute // 60, minute % 60)
                    if slot.replace(tzinfo=now.tzinfo) < earliest:
                        continue
                intervals.append(hhmm)
            if not intervals:
                continue
            label = (
                "Today" if offset == 0 else "Tomorrow" if offset == 1 else day.strftime("%a, %b %d")
            )
            days.append({"value": day.isoformat(), "label": label, "intervals": intervals})
        return days

    def order_moment(self, loc: dict[str, Any], cart: dict[str, Any]) -> datetime:
        """The local time the order is for: now for ASAP (frozen once locked), or the slot."""
        if cart.get("pickupType") == "LATER" and cart.get("orderDate") and cart.get("orderTime"):
            y, m, d = map(int, cart["orderDate"].split("-"))
            hh, mm = map(int, cart["orderTime"].split(":"))
            return datetime(y, m, d, hh, mm, tzinfo=self.zone(loc))
        return self.local_now(loc, cart.get("lockedAtTs"))

    # -- lookups -------------------------------------------------------------------------------

    def location(self, ident: str) -> dict[str, Any] | None:
        return self.catalog.resolve_location(ident)

    def sold_out(self) -> set[str]:
        return self.store.sold_out()

    def set_sold_out(self, item_id: str, sold_out: bool = True) -> None:
        """Mark a product or a modifier option sold out (or back in stock), for every location."""
        if item_id not in self.catalog.products and item_id not in self.catalog.options:
            raise KeyError(item_id)
        self.store.set_sold_out(item_id, sold_out)

    def _currency(self, loc: dict[str, Any]) -> str:
        return self.catalog.currency

    # -- merchant and location -----------------------------------------------------------------

    def merchant_json(self, slug: str) -> dict[str, Any]:
        m = self.catalog.merchant
        if m is None or slug not in (m["slug"], m["id"]):
            raise not_found("Merchant not found")
        locs = [
            {
                "id": loc["id"],
                "slug": loc["slug"],
                "restaurantDisplayName": loc["name"],
                "addressString": self._address_string(loc),
                "timezone": loc["timezone"],
                "methodsStatus": self._methods_status(loc),
            }
            for loc in self.catalog.locations.values()
            if not loc["hidden"]
        ]
        return {
            "id": m["id"],
            "slug": m["slug"],
            "name": m["name"],
            "currency": self.catalog.currency,
            "locations": locs,
        }

    @staticmethod
    def _address_string(loc: dict[str, Any]) -> str:
        a = loc["details"]["address"]
        # "120 Lantern Street, New York, NY 10038"; a file may leave state or zip code empty.
        tail = " ".join(part for part in (a["state"], a["zipCode"]) if part)
        return ", ".join(part for part in (a["street"], a["city"], tail) if part)

    @staticmethod
    def _methods_status(loc: dict[str, Any]) -> dict[str, bool]:
        methods = set(loc["methods"])
        return {
            "pickup": "pickup" in methods,
            "delivery": "delivery" in methods,
            "table": "table_service" in methods,
            "roomService": "room_service" in methods,
            "dineIn": "dine_in" in methods,
        }

    def location_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        det = loc["details"]
        local = self.local_now(loc)
        return {
            "id": loc["id"],
            "restaurantSlug": loc["slug"],
            "restaurantDisplayName": loc["name"],
            "restaurantBio": det["bio"],
            "addressData": dict(det["address"]),
            "addressString": self._address_string(loc),
            "phone": det["phone"],
            "timezone": loc["timezone"],
            "currency": self.catalog.currency,
            "isOrderingAllowed": True,
            "isScheduledOrderAllowed": bool(det["scheduled"]),
            "isOpenNow": self.is_open(loc, local),
            "methodsStatus": self._methods_status(loc),
            "fulfillmentMethods": list(loc["methods"]),
            "hours": [dict(h) for h in det["hours"]],
            "deliveryRadiusMiles": det["delivery_radius_miles"],
            "isActive": True,
        }

    def time_intervals_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        return {
            "orderDays": self.order_days(loc),
            "scheduleAllowed": bool(loc["details"]["scheduled"]),
            "timezone": loc["timezone"],
        }

    def gratuity_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        g = loc["details"]["gratuity"]
        return {
            "enabled": g["enabled"],
            "shouldAllowCustomTip": g["shouldAllowCustomTip"],
            "tipPercentage": list(g["tipPercentage"]),
            "defaultTipPercentage": g["defaultTipPercentage"],
        }

    # -- menus and products --------------------------------------------------------------------

    def _parse_when(
        self, loc: dict[str, Any], order_date: str | None, order_time: str | None
    ) -> datetime:
        now = self.local_now(loc)
        if order_date is None and order_time is None:
            return now
        day = now.date()
        if order_date is not None:
            if not DATE_RE.match(order_date):
                raise validation("orderDate must be YYYY-MM-DD", "orderDate")
            try:
                day = date.fromisoformat(order_date)
            except ValueError:
                raise validation("orderDate is not a real date", "orderDate") from None
        hh, mm = now.hour, now.minute
        if order_time is not None:
            if not TIME_RE.match(order_time):
                raise validation("orderTime must be HH:MM (24-hour)", "orderTime")
            hh, mm = map(int, order_time.split(":"))
        return datetime(day.year, day.month, day.day, hh, mm, tzinfo=self.zone(loc))

    def menus_json(
        self, loc: dict[str, Any], order_date: str | None, order_time: str | None
    ) -> dict[str, Any]:
        when = self._parse_when(loc, order_date, order_time)
        sold = self.sold_out()
        cur = self._currency(loc)
        lid = loc["id"]
        menus = []
        listed: set[str] = set()
        for menu in self.catalog.menus.get(lid, []):
            if not menu_open_at(menu, when):
                continue
            cats = []
            for cat_id, name, pids in menu.categories:
                prods = [
                    self.catalog.menu_product(lid, self.catalog.products[p], sold, cur)
                    for p in pids
                    if p in self.catalog.products
                ]
                listed.update(pids)
                cats.append({"id": cat_id, "name": name, "products": prods})
            window = "all-day" if menu.start is None else f"{menu.start}-{menu.end}"
            menus.append(
                {
                    "id": menu.id,
                    "name": menu.name,
                    "isActive": True,
                    "time": window,
                    "availableTimes": [
                        {
                            "days": list(menu.days),
                            "start": menu.start or "00:00",
                            "end": menu.end or "23:59",
                        }
                    ],
                    "categories": cats,
                }
            )
        popular = [
            self.catalog.menu_product(lid, self.catalog.products[p], sold, cur)
            for p in loc.get("popular", [])
            if p in listed and p in self.catalog.products
        ]
        return {
            "menus": menus,
            "popularProducts": popular,
            "orderDate": when.date().isoformat(),
            "orderTime": when.strftime("%H:%M"),
        }

    def products_json(self, loc: dict[str, Any]) -> list[dict[str, Any]]:
        sold = self.sold_out()
        cur = self._currency(loc)
        lid = loc["id"]
        return [
            self.catalog.menu_product(lid, self.catalog.products[pid], sold, cur)
            for pid in self.catalog.placements.get(lid, {})
        ]

    def product_json(self, loc: dict[str, Any], pid: str) -> dict[str, Any]:
        product = self.catalog.location_product(loc["id"], pid)
        if product is None:
            raise not_found("Product not found")
        sold = self.sold_out()
        cur = self._currency(loc)
        out = self.catalog.menu_product(loc["id"], product, sold, cur)
        out["locationId"] = loc["id"]
        out["modifiers"] = [
            self.catalog.group_json(self.catalog.groups[g], sold, cur)
            for g in product.modifier_ids
            if g in self.catalog.groups
        ]
        return out

    # -- carts: creation -----------------------------------------------------------------------

    def _new_cart(self, loc: dict[str, Any], method: str, now: float) -> dict[str, Any]:
        return {
            # 24 hex characters: the form Storefront 2.0 requires of cart ids (v1 takes any string).
            "id": secrets.token_hex(12),
            "locationId": loc["id"],
            "status": "OPEN",
            "fulfillmentMethod": method,
            "pickupType": "ASAP",
            "orderDate": None,
            "orderTime": None,
            "items": [],
            "discountCode": None,
            "tip": None,
            "deliveryInfo": None,
            "tableServiceInfo": None,
            "roomServiceInfo": None,
            "customerName": None,
            "emailAddress": None,
            "lockedAt": None,
            "lockedAtTs": None,
            "paymentIntentId": None,
            "checkoutUrl": None,
            "fulfillmentIdentifier": None,
            "metadata": {},
            "createdAt": iso(now),
            "updatedAt": iso(now),
        }

    def _method(self, loc: dict[str, Any], body: dict[str, Any]) -> str:
        raw = _str(body, "fulfillmentMethod", max_len=40)
        assert raw is not None
        method = METHOD_ALIASES.get(raw, raw)
        if method not in data.METHODS:
            raise validation(
                f"fulfillmentMethod must be one of {', '.join(data.METHODS)}", "fulfillmentMethod"
            )
        if method not in loc["methods"]:
            raise validation(
                f"{loc['name']} does not offer {method}",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        return method

    def _check_marketplace(self, loc: dict[str, Any], body: dict[str, Any]) -> None:
        mid = _str(body, "marketplaceId", required=False, max_len=100)
        if mid and mid not in (loc["id"], loc["slug"]):
            raise validation("marketplaceId does not name this location", "marketplaceId")

    def _schedule_if_closed(self, loc: dict[str, Any], cart: dict[str, Any]) -> str | None:
        if self.is_open(loc, self.local_now(loc)):
            return None
        days = self.order_days(loc) if loc["details"]["scheduled"] else []
        if not days:
            return f"{loc['name']} is closed now and does not take orders for later"
        cart["pickupType"] = "LATER"
        cart["orderDate"] = days[0]["value"]
        cart["orderTime"] = days[0]["intervals"][0]
        return (
            f"{loc['name']} is closed now; this order is scheduled for "
            f"{days[0]['label'].lower()} at {days[0]['intervals'][0]}"
        )

    def start_session(
        self,
        loc: dict[str, Any],
        body: dict[str, Any],
        *,
        new_cart_fields: dict[str, Any] | None = None,
        may_resume: Callable[[dict[str, Any]], bool] = lambda cart: True,
    ) -> dict[str, Any]:
        """Open a new cart, or resume `existingCartId`. 2.0 gives a new cart its token's hash
        (`new_cart_fields`) and resumes only a cart its caller may reach (`may_resume`)."""
        method = self._method(loc, body)
        self._check_marketplace(loc, body)
        existing = _str(body, "existingCartId", required=False, max_len=100)
        now = self.clock()
        with self.store.write() as conn:
            cart = self.store.get_cart(conn, existing) if existing else None
            if cart is not None and cart["locationId"] == loc["id"] and may_resume(cart):
                if cart["status"] == "OPEN":
                    cart["fulfillmentMethod"] = method
                    cart["updatedAt"] = iso(now)
                    self.store.put_cart(conn, cart, now)
                    return {"cartId": cart["id"]}
                if cart["status"] == "LOCKED":
                    return {
                        "cartId": cart["id"],
                        "errorMessage": "This cart is being paid for and cannot change now",
                    }
            cart = self._new_cart(loc, method, now)
            cart.update(new_cart_fields or {})
            message = self._schedule_if_closed(loc, cart)
            self.store.put_cart(conn, cart, now)
        out: dict[str, Any] = {"cartId": cart["id"]}
        if message:
            out["errorMessage"] = message
        return out

    def create_or_resume_cart(self, loc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        self._check_marketplace(loc, body)
        current = _str(body, "currentCartId", required=False, max_len=100)
        now = self.clock()
        with self.store.write() as conn:
            if current:
                cart = self.store.get_cart(conn, current)
                if (
                    cart is not None
                    and cart["locationId"] == loc["id"]
                    and cart["status"] in ("OPEN", "LOCKED")
                ):
                    return {"cartId": cart["id"]}
            cart = self._new_cart(loc, loc["methods"][0], now)
            self._schedule_if_closed(loc, cart)
            self.store.put_cart(conn, cart, now)
        return {"cartId": cart["id"]}

    # -- carts: reading ------------------------------------------------------------------------

    def _load(self, conn: Any, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        cart = self.store.get_cart(conn, cart_id)
        if cart is None or cart["locationId"] != loc["id"]:
            raise not_found("Cart not found")
        return cart

    def _price(self, loc: dict[str, Any], cart: dict[str, Any]) -> Pricing:
        # A locked cart is priced as of its lock time, so the amount of its payment intent holds.
        now = cart.get("lockedAtTs") or self.clock()
        return price_cart(cart, loc["details"]["fees"], self.catalog.discounts, now)

    def get_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        pricing = self._price(loc, cart)
        if pricing.discount_state in ("expired", "unknown") and cart["status"] == "OPEN":
            # Revalidation removes a code that can never apply again (persisted, so it stays gone).
            with self.store.write() as conn:
                cart = self._load(conn, loc, cart_id)
                if cart["discountCode"] and cart["status"] == "OPEN":
                    cart["discountCode"] = None
                    self.store.put_cart(conn, cart, self.clock())
        return self.cart_json(loc, cart, pricing)

    def get_cart_json(self, cart_id: str) -> dict[str, Any]:
        """Test helper: the cart as GET would return it, without HTTP or auth."""
        with self.store.read() as conn:
            cart = self.store.get_cart(conn, cart_id)
        if cart is None:
            raise KeyError(cart_id)
        loc = self.catalog.locations[cart["locationId"]]
        return self.cart_json(loc, cart, self._price(loc, cart))

    def cart_json(self, loc: dict[str, Any], cart: dict[str, Any], p: Pricing) -> dict[str, Any]:
        cur = self._currency(loc)
        fees = loc["details"]["fees"]
        moment = self.order_moment(loc, cart)
        items = []
        for it in cart["items"]:
            line = int(it["unitPrice"]) * int(it["quantity"])
            items.append(
                {
                    "id": it["id"],
                    "productId": it["productId"],
                    "name": it["name"],
                    "description": it["description"],
                    "imageUrl": None,
                    "categoryId": it.get("categoryId"),
                    "price": total(int(it["unitPrice"])),
                    "priceFormatted": fmt(int(it["unitPrice"]), cur),
                    "basePrice": dec(int(it["basePrice"])),
                    "quantity": it["quantity"],
                    "total": total(line),
                    "totalFormatted": fmt(line, cur),
                    "discount": "0.00",
                    "discountFormatted": fmt(0, cur),
                    "selections": selections_json(it["selections"], cur),
                    "specialInstructions": it.get("specialInstructions"),
                }
            )
        code = cart.get("discountCode")
        if p.discount_state in ("expired", "unknown"):
            code = None
        out: dict[str, Any] = {
            "id": cart["id"],
            "locationId": cart["locationId"],
            "status": cart["status"],
            "lockedAt": cart["lockedAt"],
            "discountCode": code,
            "currency": cur,
            "fulfilmentMethod": cart["fulfillmentMethod"],
            "statementDescriptor": loc["details"]["statement"],
            "pickupType": cart["pickupType"],
            "orderDate": moment.date().isoformat(),
            "orderTime": moment.strftime("%H:%M"),
            "totalQuantity": sum(int(i["quantity"]) for i in cart["items"]),
            "restaurantDisplayName": loc["name"],
            "deliveryInfo": cart["deliveryInfo"],
            "tableServiceInfo": cart["tableServiceInfo"],
            "roomServiceInfo": cart["roomServiceInfo"],
            "customerName": cart.get("customerName"),
            "emailAddress": cart.get("emailAddress"),
            "fees": {
                "enterpriseFeeRate": rate(fees["enterpriseFeeRate"]),
                "enterpriseFeeFix": dec(int(fees["enterpriseFeeFix"])),
                "serviceFeeRate": rate(fees["serviceFeeRate"]),
                "serviceFeeFix": dec(int(fees["serviceFeeFix"])),
                "taxRate": rate(fees["taxRate"]),
                "tipRate": rate(p.tip_rate),
                "fulfillmentMethodFeeFix": dec(p.method_fee_fix),
                "fulfillmentMethodFeeRate": rate(p.method_fee_rate),
                "paymentProcessingFeeRate": rate(fees["paymentProcessingFeeRate"]),
                "paymentProcessingFeeFix": dec(int(fees["paymentProcessingFeeFix"])),
            },
            "items": items,
            "metadata": cart.get("metadata") or {},
            "checkoutUrl": cart.get("checkoutUrl"),
            "fulfillmentIdentifier": cart.get("fulfillmentIdentifier"),
            "paymentIntentId": cart.get("paymentIntentId"),
            "createdAt": cart["createdAt"],
            "updatedAt": cart["updatedAt"],
            "isActive": cart["status"] != "COMPLETED",
        }
        totals = {
            "subTotal": p.sub_total,
            "discountTotal": p.discount,
            "waiterTipTotal": p.tip,
            "taxTotal": p.tax,
            "taxAndFeeTotal": p.tax_and_fee,
            "serviceFeeTotal": p.service_fee,
            "paymentProcessingFeeTotal": p.processing_fee,
            "applicationFeeTotal": p.enterprise_fee,
            "netSalesTotal": p.sub_total,
            "fulfillmentMethodFeeTotal": p.method_fee,
            "orderTotalWithServiceFee": p.order_total_with_service_fee,
            "orderTotal": p.order_total,
            "enterpriseFeeTotal": p.enterprise_fee,
            "subTotalWithoutDiscount": p.sub_total_without_discount,
        }
        for name, minor in totals.items():
            out[name] = total(minor)
            out[name + "Formatted"] = fmt(minor, cur)
        out["orderTotalWithServiceFeeAmount"] = p.order_total_with_service_fee
        if p.notices:
            out["discountNotice"] = p.notices[0]["message"]
        return out

    # -- carts: mutations ----------------------------------------------------------------------

    def _mutate(
        self, loc: dict[str, Any], cart_id: str, change: Callable[[dict[str, Any]], None]
    ) -> dict[str, Any]:
        now = self.clock()
        with self.store.write() as conn:
            cart = self._load(conn, loc, cart_id)
            if cart["status"] != "OPEN":
                raise locked()
            change(cart)
            cart["updatedAt"] = iso(now)
            self.store.put_cart(conn, cart, now)
        return cart

    def add_item(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        pid = _str(body, "productId", max_len=100)
        assert pid is not None
        quantity = _int(body, "quantity", 1, MAX_QUANTITY)
        instructions = _str(body, "specialInstructions", required=False, max_len=MAX_INSTRUCTIONS)
        product = self.catalog.location_product(loc["id"], pid)
        if product is None:
            raise validation(f"Unknown product {pid!r}", "productId", code="INVALID_PRODUCT")
        sold = self.sold_out()
        if pid in sold:
            raise validation(
                f"{product.name} is sold out",
                "productId",
                code="INVALID_PRODUCT",
                reason="sold_out",
            )
        selections = self.catalog.check_selections(product, body.get("modifiers"), sold)
        unit = product.price + selections_delta(selections)
        place = self.catalog.placements[loc["id"]][pid]

        def change(cart: dict[str, Any]) -> None:
            if not self.catalog.product_open_at(loc["id"], pid, self.order_moment(loc, cart)):
                raise validation(
                    f"{product.name} is not available at the order time",
                    "productId",
                    code="INVALID_PRODUCT",
                    reason="not_available_at_order_time",
                )
            key = selections_key(selections)
            for it in cart["items"]:
                if (
                    it["productId"] == pid
                    and selections_key(it["selections"]) == key
                    and (it.get("specialInstructions") or None) == (instructions or None)
                    and it["unitPrice"] == unit
                ):
                    if it["quantity"] + quantity > MAX_QUANTITY:
                        raise validation(
                            f"At most {MAX_QUANTITY} of one item per order", "quantity"
                        )
                    it["quantity"] += quantity
                    return
            if len(cart["items"]) >= MAX_LINES:
                raise validation(f"A cart holds at most {MAX_LINES} lines", "productId")
            cart["items"].append(
                {
                    "id": "item_" + secrets.token_hex(6),
                    "productId": pid,
                    "name": product.name,
                    "description": product.description,
                    "categoryId": place[0][1],
                    "basePrice": product.price,
                    "unitPrice": unit,
                    "quantity": quantity,
                    "selections": selections,
                    "specialInstructions": instructions or None,
                }
            )

        cart = self._mutate(loc, cart_id, change)
        return {"cartId": cart["id"], "cart": self.cart_json(loc, cart, self._price(loc, cart))}

    def set_quantity(
        self, loc: dict[str, Any], cart_id: str, item_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        quantity = _int(body, "quantity", 0, MAX_QUANTITY)
        sold = self.sold_out()

        def change(cart: dict[str, Any]) -> None:
            for i, it in enumerate(cart["items"]):
                if it["id"] == item_id:
                    if quantity == 0:
                        del cart["items"][i]
                    else:
                        if quantity > it["quantity"] and it["productId"] in sold:
                            raise validation(
                                f"{it['name']} is sold out",
                                "quantity",
                                code="INVALID_PRODUCT",
                                reason="sold_out",
                            )
                        it["quantity"] = quantity
                    return
            raise not_found("Cart item not found")

        cart = self._mutate(loc, cart_id, change)
        return {"cartId": cart["id"], "cart": self.cart_json(loc, cart, self._price(loc, cart))}

    def delete_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        with self.store.write() as conn:
            self._load(conn, loc, cart_id)
            conn.execute("DELETE FROM carts WHERE id = ?", (cart_id,))
            conn.execute(
                "UPDATE payment_intents SET status = 'canceled'"
                " WHERE cart_id = ? AND status != 'succeeded'",
                (cart_id,),
            )
        return {"success": True}

    def update_order_time(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        kind = _str(body, "pickupType", max_len=10)
        if kind not in ("ASAP", "LATER"):
            raise validation("pickupType must be ASAP or LATER", "pickupType")
        if kind == "ASAP":
            if not self.is_open(loc, self.local_now(loc)):
                raise ApiError(
                    422,
                    "LOCATION_CLOSED",
                    f"{loc['name']} is closed now; choose a later time",
                    field="pickupType",
                )

            def asap(cart: dict[str, Any]) -> None:
                cart["pickupType"] = "ASAP"
                cart["orderDate"] = None
                cart["orderTime"] = None

            self._mutate(loc, cart_id, asap)
            return {"success": True}
        if not loc["details"]["scheduled"]:
            raise validation(
                f"{loc['name']} does not take orders for later",
                "pickupType",
                code="SCHEDULING_NOT_ALLOWED",
            )
        order_date = _str(body, "orderDate", max_len=10)
        order_time = _str(body, "orderTime", max_len=5)
        when = self._parse_when(loc, order_date, order_time)
        day = next((d for d in self.order_days(loc) if d["value"] == when.date().isoformat()), None)
        if day is None:
            raise validation(
                "orderDate is not a day this location takes orders for",
                "orderDate",
                code="INVALID_ORDER_TIME",
            )
        if order_time not in day["intervals"]:
            raise validation(
                "orderTime is not one of the open time slots (see time-intervals)",
                "orderTime",
                code="INVALID_ORDER_TIME",
            )

        def later(cart: dict[str, Any]) -> None:
            cart["pickupType"] = "LATER"
            cart["orderDate"] = order_date
            cart["orderTime"] = order_time

        self._mutate(loc, cart_id, later)
        return {"success": True}

    def validate_and_update(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        name = _str(body, "customerName", max_len=100)
        email = body.get("emailAddress")
        if not isinstance(email, str) or not EMAIL_RE.match(email.strip()) or len(email) > 254:
            raise validation("emailAddress must be an e-mail address", "emailAddress")

        def change(cart: dict[str, Any]) -> None:
            cart["customerName"] = name
            cart["emailAddress"] = email.strip()

        self._mutate(loc, cart_id, change)
        return {"success": True}

    def set_gratuity(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        g = loc["details"]["gratuity"]
        if not g["enabled"]:
            raise validation(
                f"{loc['name']} does not take tips", "percentage", code="TIPS_DISABLED"
            )
        tip: dict[str, Any]
        if "percentage" in body and body["percentage"] is not None:
            raw = body["percentage"]
            if isinstance(raw, bool) or not isinstance(raw, str | int | float):
                raise validation('percentage must be a string such as "18"', "percentage")
            text = str(raw).strip()
            minor = parse_major(text)
            if minor is None or minor < 0 or minor > 10000:
                raise validation("percentage must be a number from 0 to 100", "percentage")
            canonical = dec(minor).rstrip("0").rstrip(".") if "." in dec(minor) else dec(minor)
            if not g["shouldAllowCustomTip"] and canonical not in g["tipPercentage"] and minor != 0:
                raise validation(
                    f"percentage must be one of {', '.join(g['tipPercentage'])}",
                    "percentage",
                    code="INVALID_TIP",
                )
            tip = {"percentage": canonical}
        elif "amount" in body and body["amount"] is not None:
            if not g["shouldAllowCustomTip"]:
                raise validation(
                    f"{loc['name']} accepts only a percentage tip", "amount", code="INVALID_TIP"
                )
            raw = body["amount"]
            if isinstance(raw, bool) or not isinstance(raw, str | int | float):
                raise validation('amount must be a string such as "5.00"', "amount")
            minor = parse_major(str(raw))
            if minor is None or minor < 0 or minor > 50000:
                raise validation("amount must be between 0.00 and 500.00", "amount")
            tip = {"amount": minor}
        else:
            raise validation("send percentage or amount", "percentage")

        def change(cart: dict[str, Any]) -> None:
            cart["tip"] = tip

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    def set_delivery(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        if "delivery" not in loc["methods"]:
            raise validation(
                f"{loc['name']} does not deliver",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        street = _str(body, "street")
        street2 = _str(body, "streetOptional", required=False)
        city = _str(body, "city", max_len=100)
        state = _str(body, "state", max_len=100)
        zip_code = _str(body, "zipCode", max_len=20)
        country = _str(body, "country", max_len=60)
        coords: dict[str, float] = {}
        for name, bound in (("lat", 90.0), ("lng", 180.0)):
            v = body.get(name)
            if v is None:
                continue
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not math.isfinite(v)
                or abs(v) > bound
            ):
                raise validation(f"{name} must be a number within ±{bound:g}", name)
            coords[name] = float(v)
        det = loc["details"]
        if len(coords) == 2:
            a = det["address"]
            miles = _haversine_miles(a["lat"], a["lng"], coords["lat"], coords["lng"])
            if miles > det["delivery_radius_miles"]:
                raise validation(
                    f"The address is {miles:.1f} miles away; we deliver within "
                    f"{det['delivery_radius_miles']:g} miles",
                    "lat",
                    code="OUT_OF_DELIVERY_AREA",
                )
        line = ", ".join(x for x in (street, street2) if x)
        info = {
            "addressString": f"{line}, {city}, {state} {zip_code}",
            "addressData": {
                "street": street,
                "streetOptional": street2,
                "city": city,
                "state": state,
                "zipCode": zip_code,
                "country": country,
                **coords,
            },
        }

        def change(cart: dict[str, Any]) -> None:
            cart["deliveryInfo"] = info

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    @staticmethod
    def _short_id(body: dict[str, Any], name: str) -> str:
        v = body.get(name)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            v = str(v)
        if not isinstance(v, str) or not re.fullmatch(r"[A-Za-z0-9-]{1,10}", v.strip()):
            raise validation(f"{name} must be 1 to 10 letters, digits or dashes", name)
        return v.strip()

    def set_table(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if "table_service" not in loc["methods"]:
            raise validation(
                f"{loc['name']} has no table service",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        table = self._short_id(body, "tableNumber")

        def change(cart: dict[str, Any]) -> None:
            cart["tableServiceInfo"] = {"tableNumber": table}

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    def set_room(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if "room_service" not in loc["methods"]:
            raise validation(
                f"{loc['name']} has no room service",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        last = _str(body, "lastName", max_len=60)
        room = self._short_id(body, "roomNumber")

        def change(cart: dict[str, Any]) -> None:
            cart["roomServiceInfo"] = {"lastName": last, "roomNumber": room}

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    def apply_discount(self, loc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        raw = _str(body, "code", max_len=40)
        cart_id = _str(body, "cartId", max_len=100)
        assert raw is not None and cart_id is not None
        code = raw.upper()
        discount = self.catalog.discounts.get(code)

        def change(cart: dict[str, Any]) -> None:
            if discount is None:
                raise validation(f"{raw} is not a valid code", "code", code="INVALID_DISCOUNT_CODE")
            exp = discount.get("expires_at")
            if exp is not None and self.clock() >= float(exp):
                raise validation(
                    f"{code} has expired", "code", code="INVALID_DISCOUNT_CODE", reason="expired"
                )
            sub = sum(int(i["unitPrice"]) * int(i["quantity"]) for i in cart["items"])
            minimum = int(discount.get("minimum") or 0)
            if sub < minimum:
                raise validation(
                    f"{code} needs an order of at least {fmt(minimum)}",
                    "code",
                    code="MINIMUM_ORDER_NOT_MET",
                    minimumOrder=dec(minimum),
                )
            cart["discountCode"] = code

        self._mutate(loc, cart_id, change)
        return {"success": True}

    def remove_discount(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        def change(cart: dict[str, Any]) -> None:
            cart["discountCode"] = None

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    # -- checks before payment -----------------------------------------------------------------

    def _problems(self, loc: dict[str, Any], cart: dict[str, Any]) -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        if not cart["items"]:
            errors.append({"code": "EMPTY_CART", "message": "The cart is empty"})
        sold = self.sold_out()
        moment = self.order_moment(loc, cart)
        for it in cart["items"]:
            pid = it["productId"]
            if self.catalog.location_product(loc["id"], pid) is None:
                errors.append(
                    {
                        "code": "ITEM_UNAVAILABLE",
                        "message": f"{it['name']} is no longer on the menu",
                        "itemId": it["id"],
                    }
                )
            elif pid in sold or _option_sold_out(it["selections"], sold):
                errors.append(
                    {
                        "code": "ITEM_SOLD_OUT",
                        "message": f"{it['name']} is sold out",
                        "itemId": it["id"],
                    }
                )
            elif not self.catalog.product_open_at(loc["id"], pid, moment):
                errors.append(
                    {
                        "code": "ITEM_UNAVAILABLE",
                        "message": f"{it['name']} is not served at {moment.strftime('%H:%M')}",
                        "itemId": it["id"],
                    }
                )
        method = cart["fulfillmentMethod"]
        if method == "delivery" and not cart["deliveryInfo"]:
            errors.append(
                {"code": "DELIVERY_ADDRESS_REQUIRED", "message": "Add a delivery address"}
            )
        if method == "table_service" and not cart["tableServiceInfo"]:
            errors.append({"code": "TABLE_NUMBER_REQUIRED", "message": "Add a table number"})
        if method == "room_service" and not cart["roomServiceInfo"]:
            errors.append({"code": "ROOM_REQUIRED", "message": "Add a last name and room number"})
        if cart["pickupType"] == "LATER":
            if moment < self.local_now(loc):
                errors.append(
                    {"code": "ORDER_TIME_PASSED", "message": "The chosen order time has passed"}
                )
        elif not self.is_open(loc, self.local_now(loc)):
            errors.append({"code": "LOCATION_CLOSED", "message": f"{loc['name']} is closed now"})
        return errors

    def validate_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        errors = self._problems(loc, cart) if cart["status"] == "OPEN" else []
        warnings = self._price(loc, cart).notices
        return {"valid": not errors, "errors": errors, "warnings": warnings}

    def cross_sell(self, loc: dict[str, Any], cart_id: str) -> list[dict[str, Any]]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        in_cart = {it["productId"] for it in cart["items"]}
        sold = self.sold_out()
        moment = self.order_moment(loc, cart)
        out = []
        for pid in loc.get("crossSell", []):
            if pid in in_cart or pid in sold or pid not in self.catalog.products:
                continue
            if not self.catalog.product_open_at(loc["id"], pid, moment):
                continue
            out.append(
                self.catalog.menu_product(
                    loc["id"], self.catalog.products[pid], sold, self._currency(loc)
                )
            )
        return out[:4]

    # -- payment -------------------------------------------------------------------------------

    def create_payment_intent(
        self, loc: dict[str, Any], cart_id: str, base_url: str
    ) -> dict[str, Any]:
        now = self.clock()
        with self.store.write() as conn:
            cart = self._load(conn, loc, cart_id)
            if cart["status"] == "COMPLETED":
                raise ApiError(
                    409, "CART_COMPLETED", "The order for this cart is already paid", field="cartId"
                )
            if cart["status"] == "LOCKED":
                row = conn.execute(
                    "SELECT id, client_secret, amount, currency FROM payment_intents WHERE id = ?",
                    (cart["paymentIntentId"],),
                ).fetchone()
                return self._intent_json(row, cart)
            problems = self._problems(loc, cart)
            if problems:
                first = problems[0]
                status = 422 if first["code"] == "LOCATION_CLOSED" else 400
                raise ApiError(
                    status,
                    first["code"],
                    first["message"],
                    field="cartId",
                    extra={"errors": problems},
                )
            pricing = price_cart(cart, loc["details"]["fees"], self.catalog.discounts, now)
            if pricing.discount_state in ("expired", "unknown"):
                cart["discountCode"] = None
            amount = pricing.order_total_with_service_fee
            pi_id = "pi_" + secrets.token_hex(12)
            secret = f"{pi_id}_secret_{secrets.token_urlsafe(18)}"
            conn.execute(
                "INSERT INTO payment_intents"
                " (id, cart_id, client_secret, amount, currency, status, created_at)"
                " VALUES (?, ?, ?, ?, ?, 'requires_payment_method', ?)",
                (pi_id, cart_id, secret, amount, self.catalog.currency, now),
            )
            cart["status"] = "LOCKED"
            cart["lockedAt"] = iso(now)
            cart["lockedAtTs"] = now
            cart["paymentIntentId"] = pi_id
            cart["checkoutUrl"] = f"{self.public_base_url or base_url}/demo/checkout/{pi_id}"
            cart["updatedAt"] = iso(now)
            self.store.put_cart(conn, cart, now)
            return self._intent_json((pi_id, secret, amount, self.catalog.currency), cart)

    @staticmethod
    def _intent_json(row: Any, cart: dict[str, Any]) -> dict[str, Any]:
        pi_id, secret, amount, currency = row
        return {
            "clientSecret": secret,
            "paymentIntentId": pi_id,
            "amount": int(amount),
            "currency": currency,
            "checkoutUrl": cart["checkoutUrl"],
        }

    def intent_by_id(self, pi_id: str) -> dict[str, Any] | None:
        with self.store.read() as conn:
            row = conn.execute(
                "SELECT id, cart_id, client_secret, amount, currency, status"
                " FROM payment_intents WHERE id = ?",
                (pi_id,),
            ).fetchone()
        if row is None:
            return None
        keys = ("id", "cartId", "clientSecret", "amount", "currency", "status")
        return dict(zip(keys, row, strict=True))

    def confirm_payment(self, client_secret: str, card_number: str) -> dict[str, Any]:
        """The demo processor: approve 4242..., decline 4000 0000 0000 0002."""
        card = re.sub(r"[\s-]", "", card_number)
        if not card.isdigit():
            raise validation("cardNumber must contain only digits and spaces", "cardNumber")
        now = self.clock()
        with self.store.write() as conn:
            row = conn.execute(
                "SELECT id, cart_id, status, amount FROM payment_intents WHERE client_secret = ?",
                (client_secret,),
            ).fetchone()
            if row is None:
                raise not_found("Payment not found")
            pi_id, cart_id, status, amount = row
            cart = self.store.get_cart(conn, cart_id)
            if status == "succeeded" and cart is not None:
                return {
                    "status": "succeeded",
                    "orderNumber": cart["fulfillmentIdentifier"],
                    "cartId": cart_id,
                }
            if status == "canceled" or cart is None or cart["status"] != "LOCKED":
                raise ApiError(
                    409, "PAYMENT_CANCELED", "This payment was canceled", field="clientSecret"
                )
            if card == DECLINE_CARD:
                # Nothing to write: the intent stays payable and the cart stays LOCKED.
                raise ApiError(
                    402,
                    "CARD_DECLINED",
                    "The card was declined; try another card",
                    field="cardNumber",
                )
            if card != APPROVE_CARD:
                raise validation(
                    "Demo processor: use 4242 4242 4242 4242 to approve"
                    " or 4000 0000 0000 0002 to decline",
                    "cardNumber",
                    code="CARD_NOT_SUPPORTED",
                )
            loc = self.catalog.locations[cart["locationId"]]
            n = self.store.next_counter(conn, "order:" + loc["id"])
            prefix = loc["details"]["order_prefix"]
            number = f"{prefix}{n % 1000:03d}"
            order_id = "ord_" + secrets.token_hex(8)
            conn.execute(
                "INSERT INTO orders (id, cart_id, location_id, number, amount, created_at, doc)"
                " VALUES (?, ?, ?, ?, ?, ?, '{}')",
                (order_id, cart_id, loc["id"], number, amount, now),
            )
            conn.execute("UPDATE payment_intents SET status = 'succeeded' WHERE id = ?", (pi_id,))
            cart["status"] = "COMPLETED"
            cart["fulfillmentIdentifier"] = number
            cart["orderId"] = order_id
            cart["updatedAt"] = iso(now)
            self.store.put_cart(conn, cart, now)
        return {"status": "succeeded", "orderNumber": number, "cartId": cart_id}

    def _secret_for_cart(self, cart_id: str) -> str:
        with self.store.read() as conn:
            cart = self.store.get_cart(conn, cart_id)
            if cart is None or not cart.get("paymentIntentId"):
                raise ValueError(f"cart {cart_id} has no payment intent")
            row = conn.execute(
                "SELECT client_secret FROM payment_intents WHERE id = ?", (cart["paymentIntentId"],)
            ).fetchone()
        return str(row[0])

    def approve_payment(self, cart_id: str) -> str:
        """Test helper: pay the cart's intent with the approving card; return the order number."""
        result = self.confirm_payment(self._secret_for_cart(cart_id), APPROVE_CARD)
        return str(result["orderNumber"])

    def decline_payment(self, cart_id: str) -> None:
        """Test/demo helper: a declined card on the cart's intent (the cart stays LOCKED)."""
        try:
            self.confirm_payment(self._secret_for_cart(cart_id), DECLINE_CARD)
        except ApiError as exc:
            if exc.code != "CARD_DECLINED":
                raise


class CartInspector:
    """backend.carts: what is stored, without HTTP, auth or rate limits."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def ids(self, location_id: str | None = None) -> list[str]:
        sql = "SELECT id FROM carts"
        args: tuple[str, ...] = ()
        if location_id is not None:
            sql += " WHERE location_id = ?"
            args = (location_id,)
        with self._backend.store.read() as conn:
            return [r[0] for r in conn.execute(sql + " ORDER BY created_at, id", args)]

    def get_cart_json(self, cart_id: str) -> dict[str, Any]:
        """The cart as GET .../carts/{cartId} returns it (KeyError when there is none)."""
        return self._backend.get_cart_json(cart_id)

    def raw(self, cart_id: str) -> dict[str, Any]:
        """The stored document (items with minor-unit prices, tip, lock time...)."""
        with self._backend.store.read() as conn:
            cart = self._backend.store.get_cart(conn, cart_id)
        if cart is None:
            raise KeyError(cart_id)
        return cart

    def __len__(self) -> int:
        return len(self.ids())

    def __contains__(self, cart_id: object) -> bool:
        return isinstance(cart_id, str) and cart_id in self.ids()


def _option_sold_out(selections: list[dict[str, Any]], sold: set[str]) -> bool:
    for g in selections:
        for o in g["selectedOptions"]:
            if o["optionId"] in sold or _option_sold_out(o.get("children") or [], sold):
                return True
    return False


def _haversine_miles(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    r = 3958.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))
