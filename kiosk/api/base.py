"""`StorefrontBase`: what every dialect offers the kiosk (one protocol), and the rows both dialects
speak alike (the cached reads, the cart's lines and tip, the test payment, pictures).

The Visit, the CartStore and the doctor hold a `StorefrontBase`; `StorefrontClient` (client.py,
v1) and `StorefrontClientV2` (v2.py, 2.0) are its two adapters, siblings over the same plumbing
(core.py: the sender and the caches). A row a dialect speaks its own way is declared here and
written in each adapter.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

from .cache import Timed
from .core import ClientCore
from .endpoints import ENDPOINTS
from .errors import StorefrontError
from .models import (
    Cart,
    CartValidation,
    DeliveryAddress,
    FulfillmentMethod,
    Location,
    MenuProduct,
    MenusResponse,
    Merchant,
    OrderingSession,
    OrderProgress,
    PaymentIntent,
    ProductDetail,
    Readiness,
    Selection,
    TimeIntervals,
    TipSettings,
)
from .money import to_decimal_string
from .pictures import IMAGE_MAX_BYTES

__all__ = ["StorefrontBase"]

M = TypeVar("M", bound=BaseModel)


class StorefrontBase(ClientCore, ABC):
    """The Storefront API as the kiosk uses it, one async method per contract row."""

    async def _read_one(
        self,
        kind: str,
        model: type[M],
        params: dict[str, str],
        scope: str,
        ttl: float,
        extra: tuple[Hashable, ...] = (),
        *,
        fresh: bool = False,
    ) -> M:
        """A cached GET of one object: the endpoint named `kind`, parsed as `model`. `fresh`:
        asked of the server, whatever the caches hold (the answer is kept as usual)."""
        ep = ENDPOINTS[kind]

        def parse(data: Any) -> M:
            return self._parse(model, data, ep.name)

        async def fetch() -> Timed[M]:
            return await self._fetch_shared(
                kind, scope, extra, ttl, ep, params, None, parse, fresh=fresh
            )

        return await self._cached(kind, scope, extra, ttl, fetch, fresh=fresh)

    async def get_merchant(self, merchant_slug: str, *, fresh: bool = False) -> Merchant:
        params = {"merchant_slug": merchant_slug}
        return await self._read_one(
            "merchant", Merchant, params, merchant_slug, self.location_ttl, fresh=fresh
        )

    async def get_location(self, location_id: str, *, fresh: bool = False) -> Location:
        params = {"location_id": location_id}
        return await self._read_one(
            "location", Location, params, location_id, self.location_ttl, fresh=fresh
        )

    async def get_time_intervals(self, location_id: str, *, fresh: bool = False) -> TimeIntervals:
        params = {"location_id": location_id}
        return await self._read_one(
            "time_intervals", TimeIntervals, params, location_id, self.slots_ttl, fresh=fresh
        )

    async def get_gratuity(self, location_id: str) -> TipSettings:
        # Tip settings are menu-like configuration: the menu TTL (A).
        params = {"location_id": location_id}
        return await self._read_one("gratuity", TipSettings, params, location_id, self.menu_ttl)

    async def get_menus(
        self, location_id: str, order_date: str | None = None, order_time: str | None = None
    ) -> MenusResponse:
        ep = self.endpoints["menus"]
        query = {}
        if order_date:
            query["orderDate"] = order_date
        if order_time:
            query["orderTime"] = order_time

        extra = (order_date or "", order_time or "")

        def parse(data: Any) -> MenusResponse:
            if isinstance(data, list):
                data = {"menus": data}  # tolerated: a bare list of menus
            return self._parse(MenusResponse, data, ep.name)

        async def fetch() -> Timed[MenusResponse]:
            params = {"location_id": location_id}
            return await self._fetch_shared(
                "menus", location_id, extra, self.menu_ttl, ep, params, query or None, parse
            )

        return await self._cached("menus", location_id, extra, self.menu_ttl, fetch)

    async def list_products(self, location_id: str) -> list[MenuProduct]:
        ep = self.endpoints["products"]

        def parse(data: Any) -> list[MenuProduct]:
            return self._parse_list(MenuProduct, data, ep.name, "products")

        async def fetch() -> Timed[list[MenuProduct]]:
            params = {"location_id": location_id}
            return await self._fetch_shared(
                "products", location_id, (), self.menu_ttl, ep, params, None, parse
            )

        products = await self._cached("products", location_id, (), self.menu_ttl, fetch)
        return list(products)

    async def get_product(self, location_id: str, product_id: str) -> ProductDetail:
        params = {"location_id": location_id, "product_id": product_id}
        return await self._read_one(
            "product", ProductDetail, params, location_id, self.menu_ttl, (product_id,)
        )

    async def _cart_result(self, data: Any, location_id: str, cart_id: str, endpoint: str) -> Cart:
        """A write's cart: `{cartId, cart}` (contract) or a bare Cart; when the body carries no cart
        (tolerated), the cart is read back once."""
        if isinstance(data, dict):
            inner = data.get("cart")
            if isinstance(inner, dict):
                return self._parse(Cart, inner, endpoint)
            if "id" in data and ("items" in data or "status" in data):
                return self._parse(Cart, data, endpoint)
            new_id = data.get("cartId")
            if isinstance(new_id, str) and new_id:
                cart_id = new_id
        return await self.get_cart(location_id, cart_id)

    async def get_cart(self, location_id: str, cart_id: str) -> Cart:
        """Row 10. Never cached: the server's cart is the truth (and revalidates discounts)."""
        ep = self.endpoints["cart"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        if isinstance(data, dict) and isinstance(data.get("cart"), dict) and "id" not in data:
            data = data["cart"]  # tolerated wrapper
        return self._parse(Cart, data, ep.name)

    async def add_item(
        self,
        location_id: str,
        cart_id: str,
        product_id: str,
        quantity: int,
        modifiers: Sequence[Selection | Mapping[str, Any]] | None = None,
        special_instructions: str | None = None,
    ) -> Cart:
        """Row 12. Never retried once it may have reached the server (AmbiguousWriteError)."""
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise ValueError("quantity must be a positive integer")
        selections = [
            m.to_request() if isinstance(m, Selection) else dict(m) for m in modifiers or ()
        ]
        body = self._item_body(product_id, quantity, selections, special_instructions)
        return await self._cart_write("add_item", location_id, cart_id, body)

    async def _cart_write(
        self, name: str, location_id: str, cart_id: str, body: Any = None, **params: str
    ) -> Cart:
        """A cart write whose answer is the cart (read back once when the answer has none)."""
        ep = self.endpoints[name]
        path = {"location_id": location_id, "cart_id": cart_id, **params}
        data = await self._call(ep, path, body=body)
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_item_quantity(
        self, location_id: str, cart_id: str, item_id: str, quantity: int
    ) -> Cart:
        """Row 13. Quantity 0 removes the line."""
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 0:
            raise ValueError("quantity must be a non-negative integer")
        return await self._cart_write(
            "item_quantity", location_id, cart_id, {"quantity": quantity}, item_id=item_id
        )

    async def set_tip(
        self,
        location_id: str,
        cart_id: str,
        *,
        percentage: str | None = None,
        amount_minor: int | None = None,
    ) -> Cart:
        """Row 16: a percentage ("18") or a fixed amount in minor units (sent as "5.00")."""
        if (percentage is None) == (amount_minor is None):
            raise ValueError("give exactly one of percentage or amount_minor")
        body: dict[str, str]
        if percentage is not None:
            body = {"percentage": str(percentage)}
        else:
            assert amount_minor is not None
            if amount_minor < 0:
                raise ValueError("a tip amount must not be negative")
            body = {"amount": to_decimal_string(amount_minor)}
        ep = self.endpoints["tip"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return await self._cart_result(data, location_id, cart_id, ep.name)

    def offers(self, operation: str) -> bool:
        """False once this server showed it has no such route (an assumption-A row: "validate",
        "remove_discount"); the screens then hide what needs it."""
        return operation not in self._missing_routes

    async def test_payment_offered(self) -> bool:
        """Whether this server has a test payment (docs/api.md, "A test payment"): a 2xx to its
        GET. Any other answer (a 404 from a server that has none, a refusal) is no."""
        try:
            await self._call(self.endpoints["test_payment_offered"], {})
        except StorefrontError:
            return False
        return True

    async def pay_test_order(self, checkout_url: str) -> None:
        """Pay the hand-off at `checkout_url` with the server's test payment (its approving test
        instrument), as a customer would on the checkout page."""
        await self._call(self.endpoints["test_payment"], {}, body={"checkoutUrl": checkout_url})

    async def get_image(self, url: str, *, max_bytes: int = IMAGE_MAX_BYTES) -> bytes:
        """A product picture's bytes (`images[0]` of a product), for the screen to draw: see
        pictures.py (not a contract row; no credential; one try; kept for `menu_ttl`)."""
        return await self.pictures.get(url, max_bytes=max_bytes)

    # ------------------------------------------------------------------ each dialect's own
    # Declared here, written by each adapter (client.py v1, v2.py 2.0) in its own words.

    @property
    @abstractmethod
    def email_required(self) -> bool:
        raise NotImplementedError

    @abstractmethod
    def cart_access(self, cart_id: str) -> SecretStr | None:
        raise NotImplementedError

    @abstractmethod
    def restore_cart_access(self, cart_id: str, access: SecretStr) -> None:
        raise NotImplementedError

    @abstractmethod
    def restore_handoff(self, cart_id: str, checkout_url: str) -> None:
        raise NotImplementedError

    @abstractmethod
    async def ordering_readiness(
        self, location_id: str, fulfillment_method: FulfillmentMethod | str
    ) -> Readiness | None:
        raise NotImplementedError

    @abstractmethod
    async def start_ordering_session(
        self,
        location_id: str,
        fulfillment_method: FulfillmentMethod | str,
        existing_cart_id: str | None = None,
        marketplace_id: str | None = None,
    ) -> OrderingSession:
        raise NotImplementedError

    @abstractmethod
    async def resume_cart(
        self, location_id: str, cart_id: str, fulfillment_method: FulfillmentMethod | str | None
    ) -> str:
        raise NotImplementedError

    @abstractmethod
    async def create_or_resume_cart(self, location_id: str, current_cart_id: str = "") -> str:
        raise NotImplementedError

    @abstractmethod
    async def order_progress(self, location_id: str, cart_id: str) -> OrderProgress | None:
        raise NotImplementedError

    @abstractmethod
    async def delete_cart(self, location_id: str, cart_id: str) -> None:
        raise NotImplementedError

    @abstractmethod
    def _item_body(
        self,
        product_id: str,
        quantity: int,
        selections: list[dict[str, Any]],
        special_instructions: str | None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    @abstractmethod
    async def set_order_time(
        self,
        location_id: str,
        cart_id: str,
        pickup_type: str,
        order_date: str,
        order_time: str,
    ) -> Cart | None:
        raise NotImplementedError

    @abstractmethod
    async def update_customer(
        self, location_id: str, cart_id: str, customer_name: str, email_address: str
    ) -> Cart | None:
        raise NotImplementedError

    @abstractmethod
    async def set_delivery(self, location_id: str, cart_id: str, address: DeliveryAddress) -> Cart:
        raise NotImplementedError

    @abstractmethod
    async def set_table(self, location_id: str, cart_id: str, table_number: str) -> Cart:
        raise NotImplementedError

    @abstractmethod
    async def set_room(
        self, location_id: str, cart_id: str, last_name: str, room_number: str
    ) -> Cart:
        raise NotImplementedError

    @abstractmethod
    async def distance_miles(self, location_id: str, lat: float, lng: float) -> float:
        raise NotImplementedError

    @abstractmethod
    async def apply_discount(self, location_id: str, cart_id: str, code: str) -> Cart | None:
        raise NotImplementedError

    @abstractmethod
    async def remove_discount(self, location_id: str, cart_id: str) -> Cart:
        raise NotImplementedError

    @abstractmethod
    async def validate_cart(self, location_id: str, cart_id: str) -> CartValidation:
        raise NotImplementedError

    @abstractmethod
    async def cross_sell(self, location_id: str, cart_id: str) -> list[MenuProduct]:
        raise NotImplementedError

    @abstractmethod
    async def create_payment_intent(self, location_id: str, cart_id: str) -> PaymentIntent:
        raise NotImplementedError

    @abstractmethod
    async def confirm_demo_payment(self, client_secret: SecretStr, card_number: str) -> None:
        raise NotImplementedError
