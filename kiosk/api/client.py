"""StorefrontClient: the legacy (v1) dialect, an adapter of `StorefrontBase` (base.py).

What v1 speaks its own way: an API key on every request, `{success:true}` answers to some writes
(the cart is then read by the caller), the optional A-tagged routes (validate, DELETE discount),
the payment intent's client secret and the demo processor. The retry rules are the sender's
(sender.py), the caches cache.py's, the rows both dialects speak alike base.py's.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import SecretStr

from .base import StorefrontBase
from .core import RequestObserver, key_identity
from .endpoints import ENDPOINTS, Endpoint
from .errors import ResponseFormatError, StorefrontError, UnsupportedOperationError
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
)
from .sender import RETRY_REASONS, ClientStats, RateBudget, RetryPolicy

__all__ = [
    "RETRY_REASONS",
    "ClientStats",
    "RateBudget",
    "RequestObserver",
    "RetryPolicy",
    "StorefrontBase",
    "StorefrontClient",
    "key_identity",
]

log = logging.getLogger("kiosk.api")


class StorefrontClient(StorefrontBase):
    """The Storefront API, one async method per contract row. Use as an async context manager.

    The legacy (v1) dialect: an API key on every request. `kiosk.api.v2` speaks 2.0 behind the
    same methods (`StorefrontBase`); the class attributes below are what a dialect sets.
    """

    dialect = "v1"
    # Whether a delivery address must carry its coordinates (2.0 does; the legacy server places
    # the address itself).
    needs_coordinates = False
    # Whether the server sends no X-RateLimit-* headers, so the kiosk counts its own budget.
    counts_own_budget = False
    # Whether creating the payment intent locks the cart and puts the checkout URL on it, so the
    # cart is read after it (the legacy API). 2.0's hand-off answers the URL itself.
    intent_changes_cart = True
    endpoints: Mapping[str, Endpoint] = ENDPOINTS
    base_suffix = "/api/v1"
    needs_key = True

    @property
    def email_required(self) -> bool:
        """Whether the customer's details need an email: the legacy validate-and-update takes
        customerName and emailAddress, both (its spec, row 15)."""
        return True

    def cart_access(self, cart_id: str) -> SecretStr | None:
        """What must be kept with a cart id to reach the cart again after a restart (2.0: its
        token); None when the key alone reaches it (v1)."""
        return None

    def restore_cart_access(self, cart_id: str, access: SecretStr) -> None:
        """Give back what cart_access returned before a restart (v1: nothing to do)."""

    def restore_handoff(self, cart_id: str, checkout_url: str) -> None:
        """Give back the checkout hand-off a previous run made for `cart_id` (v1: nothing)."""

    def _request_headers(
        self, endpoint: Endpoint, path_params: Mapping[str, str]
    ) -> dict[str, str]:
        """The dialect's credentials and preconditions for one request (v1: the API key)."""
        return {"X-API-Key": self._api_key.get_secret_value()}

    async def ordering_readiness(
        self, location_id: str, fulfillment_method: FulfillmentMethod | str
    ) -> Readiness | None:
        """Whether the location takes an order for as soon as possible now; None: this dialect
        cannot say (the legacy API has no such read)."""
        return None

    async def start_ordering_session(
        self,
        location_id: str,
        fulfillment_method: FulfillmentMethod | str,
        existing_cart_id: str | None = None,
        marketplace_id: str | None = None,
    ) -> OrderingSession:
        """Row 8. The session's `error_message` (e.g. "closed") is returned, not raised."""
        ep = self.endpoints["ordering_session"]
        body: dict[str, Any] = {"fulfillmentMethod": str(fulfillment_method)}
        if existing_cart_id:
            body["existingCartId"] = existing_cart_id
        if marketplace_id:
            body["marketplaceId"] = marketplace_id
        data = await self._call(ep, {"location_id": location_id}, body=body)
        if isinstance(data, dict) and "cartId" not in data and isinstance(data.get("cart"), dict):
            data = {**data, "cartId": data["cart"].get("id", "")}
        return self._parse(OrderingSession, data, ep.name)

    async def resume_cart(
        self, location_id: str, cart_id: str, fulfillment_method: FulfillmentMethod | str | None
    ) -> str:
        """Take up `cart_id` after a restart, as the order it is: `fulfillment_method` is the
        order's own way to order (the server's cart, else what the terminal kept), never a
        default. The legacy API's row 9 keeps the cart's own method, so it is not sent here.
        Returns the cart id the server answered (another id: it would not resume this one)."""
        return await self.create_or_resume_cart(location_id, cart_id)

    async def create_or_resume_cart(self, location_id: str, current_cart_id: str = "") -> str:
        """Row 9: the cart id (`currentCartId` "" means start a new cart)."""
        ep = self.endpoints["create_cart"]
        body = {"marketplaceId": location_id, "currentCartId": current_cart_id}
        data = await self._call(ep, {"location_id": location_id}, body=body)
        if isinstance(data, dict):
            for candidate in (data.get("cartId"), data.get("id")):
                if isinstance(candidate, str) and candidate:
                    return candidate
            inner = data.get("cart")
            if isinstance(inner, dict) and isinstance(inner.get("id"), str) and inner["id"]:
                return str(inner["id"])
        raise ResponseFormatError(endpoint=ep.name, details={"errors": "no cartId in the reply"})

    async def order_progress(self, location_id: str, cart_id: str) -> OrderProgress | None:
        """Where a checked-out cart's payment stands, for an API that has a poll of its own
        (2.0's order-result). None here: the legacy API has none, the cart itself turns
        COMPLETED (read it with get_cart; its `fulfillmentIdentifier` is the number, A)."""
        return None

    async def delete_cart(self, location_id: str, cart_id: str) -> None:
        """Row 11. Idempotent: retried like a read. A 404 on a retry, after an attempt that may have
        landed, counts as deleted; a 404 on the first attempt raises NotFoundError."""
        ep = self.endpoints["delete_cart"]
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, gone_is_done=True)

    def _item_body(
        self,
        product_id: str,
        quantity: int,
        selections: list[dict[str, Any]],
        special_instructions: str | None,
    ) -> dict[str, Any]:
        """The add-item body as this dialect spells it (v1: `modifiers`)."""
        body: dict[str, Any] = {"productId": product_id, "quantity": quantity}
        if selections:
            body["modifiers"] = selections
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
    ) -> Cart | None:
        """Row 14. `pickup_type` is "ASAP" or "LATER". The legacy answer is `{success:true}` (S),
        not the cart: None, and the caller reads the cart (2.0 returns it)."""
        ep = self.endpoints["order_time"]
        body = {"pickupType": pickup_type, "orderDate": order_date, "orderTime": order_time}
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return None

    async def update_customer(
        self, location_id: str, cart_id: str, customer_name: str, email_address: str
    ) -> Cart | None:
        """Row 15 (the singular `cart` path). A 400 names the field (InvalidRequestError.field).
        The legacy answer is `{success:true}` (S): None (2.0 returns the cart)."""
        ep = self.endpoints["customer"]
        body = {"customerName": customer_name, "emailAddress": email_address}
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return None

    async def set_delivery(self, location_id: str, cart_id: str, address: DeliveryAddress) -> Cart:
        """Row 17."""
        ep = self.endpoints["delivery"]
        data = await self._call(
            ep, {"location_id": location_id, "cart_id": cart_id}, body=address.to_request()
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_table(self, location_id: str, cart_id: str, table_number: str) -> Cart:
        """Row 18."""
        ep = self.endpoints["table"]
        data = await self._call(
            ep,
            {"location_id": location_id, "cart_id": cart_id},
            body={"tableNumber": str(table_number)},
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_room(
        self, location_id: str, cart_id: str, last_name: str, room_number: str
    ) -> Cart:
        """Row 19."""
        ep = self.endpoints["room"]
        data = await self._call(
            ep,
            {"location_id": location_id, "cart_id": cart_id},
            body={"lastName": last_name, "roomNumber": str(room_number)},
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def distance_miles(self, location_id: str, lat: float, lng: float) -> float:
        """Miles from the location to a point (2.0's distance operation). The legacy contract
        has none: UnsupportedOperationError."""
        raise UnsupportedOperationError(endpoint="distance")

    async def apply_discount(self, location_id: str, cart_id: str, code: str) -> Cart | None:
        """Row 20. A bad code raises InvalidRequestError (code INVALID_DISCOUNT_CODE). The legacy
        answer is `{success:true}` (S), not the cart: None, and the caller reads the cart. (The
        demo backend answers the same; 2.0 returns the cart.)"""
        ep = self.endpoints["apply_discount"]
        await self._call(ep, {"location_id": location_id}, body={"code": code, "cartId": cart_id})
        return None

    async def _optional_route(
        self, name: str, location_id: str, cart_id: str, exc: StorefrontError
    ) -> None:
        """After `exc` from the optional route `name`: re-raise it unless it says the route is
        missing (404/405 that is not about the cart); then remember that, once the cart itself
        is known to be there (a missing cart is found by that read)."""
        if exc.status not in (404, 405) or exc.has_code("CART_NOT_FOUND"):
            raise exc
        await self.get_cart(location_id, cart_id)
        log.info("this server has no %s route (HTTP %s)", name, exc.status)
        self._missing_routes.add(name)

    async def remove_discount(self, location_id: str, cart_id: str) -> Cart:
        """Row 21 (assumption A). Idempotent: retried like a read. A server without the route
        (404/405) is remembered, and UnsupportedOperationError raised: the customer starts over to
        drop a code there."""
        ep = self.endpoints["remove_discount"]
        if ep.name in self._missing_routes:
            raise UnsupportedOperationError(endpoint=ep.name)
        try:
            data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        except StorefrontError as exc:
            await self._optional_route(ep.name, location_id, cart_id, exc)
            raise UnsupportedOperationError(status=exc.status, endpoint=ep.name) from exc
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def validate_cart(self, location_id: str, cart_id: str) -> CartValidation:
        """Row 22 (assumption A: a real legacy server may have no such route). Only reads, so
        retried like a read. A 404 or 405 there means the server has none: remembered, and the
        cart counts as valid (the payment intent refuses a cart that cannot be paid for)."""
        ep = self.endpoints["validate"]
        if ep.name in self._missing_routes:
            return CartValidation(valid=True)
        try:
            data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        except StorefrontError as exc:
            await self._optional_route(ep.name, location_id, cart_id, exc)
            return CartValidation(valid=True)
        return self._parse(CartValidation, data, ep.name)

    async def cross_sell(self, location_id: str, cart_id: str) -> list[MenuProduct]:
        """Row 23. Depends on the cart, so never cached."""
        ep = self.endpoints["cross_sell"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        return self._parse_list(MenuProduct, data, ep.name, "products")

    async def create_payment_intent(self, location_id: str, cart_id: str) -> PaymentIntent:
        """Row 24. Locks the cart. Never retried once it may have reached the server."""
        ep = self.endpoints["payment_intent"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        intent = self._parse(PaymentIntent, data, ep.name)
        self._seen_secrets.append(intent.client_secret.get_secret_value())
        return intent

    async def confirm_demo_payment(self, client_secret: SecretStr, card_number: str) -> None:
        """The demo backend's processor (contract, payment section, A): POST on the base URL's
        origin, outside /api/v1. A decline raises PaymentDeclinedError (402) or that status's
        error."""
        ep = self.endpoints["demo_confirm"]
        secret = client_secret.get_secret_value()
        if secret not in self._seen_secrets:
            self._seen_secrets.append(secret)
        await self._call(
            ep,
            {},
            body={"clientSecret": secret, "cardNumber": card_number},
            secrets=(secret, card_number, card_number.replace(" ", "")),
        )
