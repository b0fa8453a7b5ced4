"""Storefront API 2.0: an adapter of `StorefrontBase` (base.py), beside the v1 one (client.py)
(../shared/storefront-v2-contract.md).

What 2.0 changes on the wire, all of it here:
- no API key: the catalog is anonymous; a cart is reached with the token its ordering session
  returned (`X-Cart-Token`), kept inside the client per cart and never shown;
- every cart write sends `If-Match: "cart-<revision>"` with the revision of the last cart seen, and
  an `Idempotency-Key` made once per logical write and reused only when that same write is sent
  again (a lost answer, a 5xx): the server runs it once, so the client may retry it;
- amounts are decimal strings in major units ("12" is twelve units): `money.MAJOR_UNITS`;
- fulfillment names `takeout`, `table_side`, `room_service`, `delivery`; countries named in full;
- checkout is a hand-off (`checkout-handoffs` gives the hosted page's URL) and the order number
  comes from `order-result`;
- rate limits come as a bare 429 RATE_LIMITED: the client counts its own budget (RateBudget).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx
from pydantic import SecretStr

from .base import StorefrontBase
from .endpoints import V2_ENDPOINTS, Endpoint
from .errors import ConflictError, NotFoundError, ResponseFormatError, StorefrontError
from .models import (
    Cart,
    CartValidation,
    DeliveryAddress,
    FulfillmentMethod,
    MenuProduct,
    OrderingSession,
    OrderProgress,
    PaymentIntent,
    Readiness,
    normalize_fulfillment,
)
from .money import MAJOR_UNITS, MoneyError, parse_money
from .request_schema import check_body, operation_key, required_fields

__all__ = ["COUNTRY_NAMES", "V2_FULFILLMENT", "StorefrontClientV2"]

T = TypeVar("T")

# The kiosk's fulfillment methods as 2.0 names them (answers: models.FULFILLMENT_ALIASES).
# 2.0 has no dine-in: an order eaten here is collected at the counter, so it is takeout there.
V2_FULFILLMENT = {
    FulfillmentMethod.PICKUP: "takeout",
    FulfillmentMethod.DINE_IN: "takeout",
    FulfillmentMethod.TABLE_SERVICE: "table_side",
    FulfillmentMethod.ROOM_SERVICE: "room_service",
    FulfillmentMethod.DELIVERY: "delivery",
}
# order-result "failed" codes that mean the cart is gone, not that a payment was declined.
CART_GONE_CODES = frozenset({"CART_EXPIRED", "CART_NOT_FOUND", "NOT_FOUND", "CART_DELETED"})
# DeliveryAddress.country is one of four names in full, not an ISO code.
COUNTRY_NAMES = {
    "US": "United States",
    "USA": "United States",
    "AE": "United Arab Emirates",
    "AU": "Australia",
    "GB": "United Kingdom",
    "UK": "United Kingdom",
}


class _CartAccess:
    __slots__ = ("checkout_url", "revision", "token")

    def __init__(self, token: SecretStr) -> None:
        self.token = token
        self.revision: int | None = None
        self.checkout_url: str | None = None


def _order_size(order: Any) -> tuple[int | None, int | None]:
    """A completed order's `pricing.total` (minor units) and its items' quantities added up;
    (None, None) for what does not parse: the cart is then read again for the receipt."""
    if not isinstance(order, dict):
        return None, None
    pricing, items = order.get("pricing"), order.get("items")
    if not isinstance(pricing, dict) or not isinstance(items, list):
        return None, None
    quantity = 0
    for item in items:
        count = item.get("quantity") if isinstance(item, dict) else None
        if not isinstance(count, int) or isinstance(count, bool):
            return None, None
        quantity += count
    marker = MAJOR_UNITS.set(True)
    try:
        total = parse_money(pricing.get("total", ""))
    except MoneyError:
        return None, None
    finally:
        MAJOR_UNITS.reset(marker)
    return total, quantity


def _instant(value: Any) -> datetime | None:
    """An ISO 8601 date-time with its offset; None when absent or unreadable (then the hand-off
    is simply not renewed: the payment timeout still ends the wait)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _read_refusal(exc: StorefrontError) -> None:
    """What a 2.0 refusal says in 2.0's own shapes, onto the typed error (the ordering core reads
    the error, never these shapes): a hand-off refused for lines no longer available (400
    `details.reason` ITEM_UNAVAILABLE with `itemIds` and `productIds`), and a write refused
    because the cart has expired (409 CART_IMMUTABLE with `details.status` EXPIRED)."""
    details = exc.details
    if details.get("reason") == "ITEM_UNAVAILABLE":
        exc.unavailable_items = _ids(details.get("itemIds"))
        exc.unavailable_products = _ids(details.get("productIds"))
    elif exc.has_code("CART_IMMUTABLE") and str(details.get("status", "")).upper() == "EXPIRED":
        exc.cart_expired = True


def _ids(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, tuple) else ()


class StorefrontClientV2(StorefrontBase):
    """The 2.0 dialect. `StorefrontClientV2(base_url)` with base_url ending /api/v1/storefront."""

    dialect = "v2"
    endpoints = V2_ENDPOINTS
    base_suffix = "/api/v1/storefront"
    needs_key = False
    needs_coordinates = True
    counts_own_budget = True  # a bare 429 RATE_LIMITED, no X-RateLimit-* headers
    # The hand-off gives the checkout URL; what locks a 2.0 cart is not documented (the hosted
    # page's payment intent, we infer), and a read right after the hand-off would not show it.
    intent_changes_cart = False

    def __init__(self, base_url: str, api_key: str = "", **options: Any) -> None:
        super().__init__(base_url, "", **options)
        self._carts: dict[str, _CartAccess] = {}
        # The cart an ordering session is resuming (its token and revision go with the request).
        self._resuming: str | None = None
        self._last_checkout_url: str | None = None
        # The location as the kiosk was given it (slug or id) -> its id (from the location read).
        self._location_ids: dict[str, str] = {}

    @property
    def email_required(self) -> bool:
        """Whether validate-and-update needs an email (the vendor's schema: a name only)."""
        ep = self.endpoints["customer"]
        key = operation_key(ep.method, ep.path_template)
        return "emailAddress" in required_fields(key)

    # ------------------------------------------------------------------ credentials, revisions

    def cart_access(self, cart_id: str) -> SecretStr | None:
        """The cart's token, for the crash-resume file (None: this client never had one)."""
        access = self._carts.get(cart_id)
        return None if access is None else access.token

    def restore_cart_access(self, cart_id: str, token: SecretStr) -> None:
        self._carts.setdefault(cart_id, _CartAccess(token))

    def restore_handoff(self, cart_id: str, checkout_url: str) -> None:
        access = self._carts.setdefault(cart_id, _CartAccess(SecretStr("")))
        access.checkout_url = checkout_url
        self._last_checkout_url = checkout_url

    def _request_headers(
        self, endpoint: Endpoint, path_params: Mapping[str, str]
    ) -> dict[str, str]:
        headers: dict[str, str] = {}
        cart_id = path_params.get("cart_id")
        if endpoint.name == "resume_session":
            cart_id = self._resuming
        access = self._carts.get(cart_id) if cart_id else None
        if access is not None and access.token.get_secret_value():
            headers["X-Cart-Token"] = access.token.get_secret_value()
        if endpoint.revisioned and access is not None and access.revision is not None:
            headers["If-Match"] = f'"cart-{access.revision}"'
        if endpoint.keyed:
            # One key per logical write: made here, once per call, reused by every retry of it.
            headers["Idempotency-Key"] = "kiosk-" + secrets.token_hex(16)
        return headers

    async def _call(self, endpoint: Endpoint, path_params: Mapping[str, str], **kwargs: Any) -> Any:
        """2.0 takes a location's slug only where it reads the location (`locationSlugOrId`);
        every other operation names its `locationId`. A kiosk set up with a slug sends the id
        from that read everywhere else (one location read, usually already made and cached)."""
        if kwargs.get("body") is not None and not endpoint.outside_base:
            # Every body the kiosk sends is held to the vendor's schema first (one place): a
            # customer's mistake is refused here, naming the field, before any request.
            check_body(
                operation_key(endpoint.method, endpoint.path_template),
                kwargs["body"],
                endpoint=endpoint.name,
            )
        given = path_params.get("location_id")
        if given and endpoint.name != "location":
            path_params = {**path_params, "location_id": await self._location_key(given)}
        try:
            return await super()._call(endpoint, path_params, **kwargs)
        except StorefrontError as exc:
            _read_refusal(exc)
            raise

    async def _location_key(self, given: str) -> str:
        known = self._location_ids.get(given)
        if known is None:
            await self.get_location(given)  # its answer records the id (_answered)
            known = self._location_ids.setdefault(given, given)
        return known

    def _from_store(self, endpoint: Endpoint, path_params: Mapping[str, str], data: Any) -> None:
        if endpoint.name == "location":  # a slug's id, as from the server's answer
            self._answered(endpoint, path_params, None, data)

    def _answered(
        self,
        endpoint: Endpoint,
        path_params: Mapping[str, str],
        response: httpx.Response | None,
        data: Any,
    ) -> None:
        if endpoint.name == "location" and isinstance(data, dict):
            location_id = data.get("id")
            given = path_params.get("location_id")
            if isinstance(location_id, str) and location_id and given:
                self._location_ids[given] = location_id
                self._location_ids[location_id] = location_id
            return
        cart = data.get("cart", data) if isinstance(data, dict) else None
        if not (isinstance(cart, dict) and isinstance(cart.get("id"), str)):
            return
        token = data.get("cartAccessToken") if isinstance(data, dict) else None
        if isinstance(token, str) and token:
            self._seen_secrets.append(token)
            self._carts[cart["id"]] = _CartAccess(SecretStr(token))
        access = self._carts.get(cart["id"])
        if access is not None and isinstance(cart.get("revision"), int):
            access.revision = cart["revision"]

    def _parse(self, model: type[T], data: Any, endpoint: str) -> T:
        marker = MAJOR_UNITS.set(True)
        try:
            return super()._parse(model, data, endpoint)
        finally:
            MAJOR_UNITS.reset(marker)

    async def _cart_write(
        self, name: str, location_id: str, cart_id: str, body: Any = None, **params: str
    ) -> Cart:
        """A stale revision re-reads the cart (so the next write names the right one) and raises,
        saying so: nothing is re-applied by itself."""
        try:
            return await super()._cart_write(name, location_id, cart_id, body, **params)
        except ConflictError as exc:
            if exc.code == "CART_CONFLICT":
                exc.cart = await self.get_cart(location_id, cart_id)
            raise

    # ------------------------------------------------------------------ the cart's life

    async def start_ordering_session(
        self,
        location_id: str,
        fulfillment_method: FulfillmentMethod | str,
        existing_cart_id: str | None = None,
        marketplace_id: str | None = None,
    ) -> OrderingSession:
        method = FulfillmentMethod(fulfillment_method)
        body: dict[str, Any] = {"fulfillmentMethod": V2_FULFILLMENT[method], "channel": "kiosk"}
        if marketplace_id:
            body["marketplaceId"] = marketplace_id
        name = "ordering_session"
        if existing_cart_id and existing_cart_id in self._carts:
            # Resuming needs the cart's token and current revision (If-Match), or the server
            # answers 428: read it first when this client has not seen it yet.
            body["existingCartId"] = existing_cart_id
            name = "resume_session"
            if self._carts[existing_cart_id].revision is None:
                await self.get_cart(location_id, existing_cart_id)
        ep = self.endpoints[name]
        self._resuming = existing_cart_id if name == "resume_session" else None
        try:
            data = await self._call(ep, {"location_id": location_id}, body=body)
        finally:
            self._resuming = None
        cart = data.get("cart") if isinstance(data, dict) else None
        cart_id = cart.get("id", "") if isinstance(cart, dict) else ""
        if not isinstance(cart_id, str) or not cart_id:
            # 2.0 refuses with an error status, never with a 200: a 200 without a cart is a
            # reply the kiosk cannot use (a cart id "" would reach a path and fail obscurely).
            raise ResponseFormatError(
                status=200, endpoint=ep.name, details={"errors": "no cart in the reply"}
            )
        return self._parse(OrderingSession, {"cartId": cart_id}, ep.name)

    async def resume_cart(
        self, location_id: str, cart_id: str, fulfillment_method: FulfillmentMethod | str | None
    ) -> str:
        """2.0 resumes a cart through an ordering session, which names a way to order and
        switches the cart to it: the cart's own way is asked for (a resumed table order asked
        as takeout became a counter order). A refusal (that way no longer offered) propagates."""
        method = normalize_fulfillment(fulfillment_method)
        if not isinstance(method, FulfillmentMethod):
            raise ResponseFormatError(
                endpoint="resume_session", details={"errors": "the cart has no way to order"}
            )
        session = await self.start_ordering_session(location_id, method, cart_id)
        return session.cart_id

    async def create_or_resume_cart(self, location_id: str, current_cart_id: str = "") -> str:
        session = await self.start_ordering_session(
            location_id, FulfillmentMethod.PICKUP, current_cart_id or None
        )
        return session.cart_id

    async def get_cart(self, location_id: str, cart_id: str) -> Cart:
        cart = await super().get_cart(location_id, cart_id)
        access = self._carts.get(cart_id)
        if access is not None and access.checkout_url and not cart.checkout_url:
            return cart.model_copy(update={"checkout_url": access.checkout_url})
        return cart

    async def order_progress(self, location_id: str, cart_id: str) -> OrderProgress:
        """2.0's documented poll while the customer pays (`GET …/order-result`, section 7): one
        closed variant, `payment_pending`, `order_pending`, `completed` with the order (its
        `shortId` is the number to show: never the cart's `fulfillmentIdentifier`, which holds
        the table, the address or "counter") or `failed` with a code. The order result is the
        authority on the payment: the cart's status is not documented to change when it lands."""
        ep = self.endpoints["order_result"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        if not isinstance(data, dict) or not isinstance(data.get("state"), str):
            raise ResponseFormatError(endpoint=ep.name, details={"errors": "no state"})
        state = data["state"]
        order = data.get("order")
        short = order.get("shortId") if isinstance(order, dict) else None
        code = data.get("code")
        if state == "completed" and not (isinstance(short, str) and short.strip()):
            # A completed order without its number is not something to tell a customer.
            raise ResponseFormatError(
                endpoint=ep.name, details={"errors": "a completed order without its shortId"}
            )
        if state == "failed" and code in CART_GONE_CODES:
            # Not a declined payment: the cart itself is gone (deleted or expired), so nothing
            # will be paid. The document lists no failure codes; these are the error codes it
            # names for a cart that cannot be used any more (inferred, one place).
            state = "expired"
        total, quantity = _order_size(order) if state == "completed" else (None, None)
        return OrderProgress(
            state,
            order_number=short.strip() if isinstance(short, str) and short.strip() else None,
            failure_code=code if isinstance(code, str) and code else None,
            total=total,
            quantity=quantity,
        )

    async def delete_cart(self, location_id: str, cart_id: str) -> None:
        """A stale revision (the cart moved on, e.g. locked by its hand-off) is read and the delete
        sent once more: unlike a line write, deleting an abandoned cart does not depend on what
        the cart holds."""
        ep = self.endpoints["delete_cart"]
        where = {"location_id": location_id, "cart_id": cart_id}
        access = self._carts.get(cart_id)
        if access is not None and access.revision is None:
            # A delete names the revision (If-Match) or is answered 428: a client that has not
            # read this cart yet (a restart that only asked order-result) reads it first.
            await self.get_cart(location_id, cart_id)
        try:
            await self._call(ep, where, body={})
        except ConflictError as exc:
            if exc.code != "CART_CONFLICT":
                raise
            await self.get_cart(location_id, cart_id)
            await self._call(ep, where, body={})

    # ------------------------------------------------------------------ cart writes

    def _item_body(
        self,
        product_id: str,
        quantity: int,
        selections: list[dict[str, Any]],
        special_instructions: str | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "productId": product_id,
            "quantity": quantity,
            # A line that becomes unavailable is dropped, not the whole order (a kiosk customer
            # has left by then and cannot be asked).
            "itemUnavailableAction": "remove_item",
        }
        if selections:
            body["selections"] = selections
        if special_instructions:
            body["specialInstructions"] = special_instructions
        return body

    async def set_order_time(
        self,
        location_id: str,
        cart_id: str,
        pickup_type: str,
        order_date: str,
        order_time: str,
    ) -> Cart:
        """2.0 answers the cart (200 StorefrontCart): the caller needs no read after it."""
        body: dict[str, str] = {"pickupType": pickup_type}
        if pickup_type == "LATER":
            body |= {"orderDate": order_date, "orderTime": order_time}
        return await self._cart_write("order_time", location_id, cart_id, body)

    async def update_customer(
        self, location_id: str, cart_id: str, customer_name: str, email_address: str
    ) -> Cart:
        """2.0 answers the cart (200 StorefrontCart): the caller needs no read after it."""
        body = {"customerName": customer_name}
        if email_address:
            body["emailAddress"] = email_address
        return await self._cart_write("customer", location_id, cart_id, body)

    async def set_delivery(self, location_id: str, cart_id: str, address: DeliveryAddress) -> Cart:
        body = address.to_request()
        country = str(body.get("country") or "US")
        body["country"] = COUNTRY_NAMES.get(country.upper(), country)
        body.setdefault("streetOptional", "")
        return await self._cart_write("delivery", location_id, cart_id, body)

    async def ordering_readiness(
        self, location_id: str, fulfillment_method: FulfillmentMethod | str
    ) -> Readiness:
        """GET ordering-readiness (anonymous; creates nothing). Never cached: it changes with
        the hour."""
        ep = self.endpoints["readiness"]
        method = V2_FULFILLMENT[FulfillmentMethod(fulfillment_method)]
        data = await self._call(
            ep, {"location_id": location_id}, query={"fulfillmentMethod": method}
        )
        if not isinstance(data, dict) or not isinstance(data.get("ready"), bool):
            raise ResponseFormatError(endpoint=ep.name, details={"errors": "no ready"})
        return self._parse(Readiness, data, ep.name)

    async def distance_miles(self, location_id: str, lat: float, lng: float) -> float:
        ep = self.endpoints["distance"]
        data = await self._call(
            ep, {"location_id": location_id}, body={"lat": lat, "lng": lng, "unit": "miles"}
        )
        distance = data.get("distance") if isinstance(data, dict) else None
        miles = distance.get("miles") if isinstance(distance, dict) else None
        if isinstance(miles, bool) or not isinstance(miles, int | float) or miles < 0:
            raise ResponseFormatError(endpoint=ep.name)
        return float(miles)

    async def set_table(self, location_id: str, cart_id: str, table_number: str) -> Cart:
        body = {"tableNumber": str(table_number).strip()}
        return await self._cart_write("table", location_id, cart_id, body)

    async def set_room(
        self, location_id: str, cart_id: str, last_name: str, room_number: str
    ) -> Cart:
        body = {"lastName": last_name.strip(), "roomNumber": str(room_number).strip()}
        return await self._cart_write("room", location_id, cart_id, body)

    async def apply_discount(self, location_id: str, cart_id: str, code: str) -> Cart:
        """2.0 answers the cart (200 StorefrontCart): the caller needs no read after it."""
        return await self._cart_write("apply_discount", location_id, cart_id, {"code": code})

    async def remove_discount(self, location_id: str, cart_id: str) -> Cart:
        return await self._cart_write("remove_discount", location_id, cart_id, {})

    async def validate_cart(self, location_id: str, cart_id: str) -> CartValidation:
        """2.0 validates in validate-and-update (update_customer), which refuses a cart that cannot
        be paid for; there is nothing more to ask, so this reads nothing."""
        return CartValidation(valid=True)

    async def cross_sell(self, location_id: str, cart_id: str) -> list[MenuProduct]:
        ep = self.endpoints["cross_sell"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        return self._parse_list(MenuProduct, data, ep.name, "products")

    # ------------------------------------------------------------------ checkout

    async def create_payment_intent(self, location_id: str, cart_id: str) -> PaymentIntent:
        """The checkout hand-off: the hosted checkout page's URL (the QR code). 2.0 gives the
        kiosk no client secret; the payment belongs to that page."""
        ep = self.endpoints["checkout_handoff"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body={})
        url = data.get("checkoutUrl") if isinstance(data, dict) else None
        if not isinstance(url, str) or not url:
            raise NotFoundError("The checkout page could not be opened", status=404)
        access = self._carts.setdefault(cart_id, _CartAccess(SecretStr("")))
        access.checkout_url = url
        self._last_checkout_url = url
        return PaymentIntent(
            client_secret=SecretStr(""),
            checkout_url=url,
            expires_at=_instant(data.get("expiresAt")),
        )

    async def confirm_demo_payment(self, client_secret: SecretStr, card_number: str) -> None:
        """The demo backend's processor, paying the hand-off this client opened (demo only)."""
        url = self._last_checkout_url
        ep = self.endpoints["demo_confirm"]
        await self._call(
            ep,
            {},
            body={"checkoutUrl": url or "", "cardNumber": card_number},
            secrets=(card_number, card_number.replace(" ", "")),
        )
