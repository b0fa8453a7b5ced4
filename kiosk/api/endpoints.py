"""Every path the kiosk sends: the one table (storefront-contract.md, "Endpoints").

Nothing else in the program spells a path. A row tagged A (our assumption) in the contract is one
line to change here when the real service differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Formatter
from urllib.parse import quote

__all__ = ["DEMO_CONFIRM", "ENDPOINTS", "V2_ENDPOINTS", "V2_UNUSED", "Endpoint"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One contract row.

    `is_write` marks a request that changes server state. `idempotent` marks a request whose
    repetition is harmless, so the client may retry it after an ambiguous failure (a read timeout, a
    dropped connection, a 5xx). GETs are idempotent; so are the two DELETEs (deleting twice leaves
    the same state) and the validate POST (it only reads). Every other write is retried only when it
    certainly never reached the server.
    `outside_base` rows live on the base URL's origin, not below /api/v1 (the demo processor).
    """

    name: str
    method: str
    path_template: str
    is_write: bool
    idempotent: bool
    contract_row: int | None
    outside_base: bool = False
    # Storefront 2.0: the write carries `If-Match: "cart-N"` (revisioned) and an Idempotency-Key.
    revisioned: bool = False
    keyed: bool = False

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(f for _, f, _, _ in Formatter().parse(self.path_template) if f)

    def path(self, **params: str) -> str:
        """The path with every parameter percent-encoded as one segment ("/" included)."""
        missing = set(self.params) - params.keys()
        extra = params.keys() - set(self.params)
        if missing or extra:
            raise TypeError(f"{self.name}: path parameters {sorted(self.params)} expected")
        encoded: dict[str, str] = {}
        for key, value in params.items():
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{self.name}: {key} must be a non-empty string")
            encoded[key] = quote(value, safe="")
        return self.path_template.format(**encoded)


def _row(
    row: int | None,
    name: str,
    method: str,
    template: str,
    *,
    idempotent: bool | None = None,
    outside_base: bool = False,
    revisioned: bool = False,
    keyed: bool = False,
) -> Endpoint:
    is_write = method != "GET"
    return Endpoint(
        name=name,
        method=method,
        path_template=template,
        is_write=is_write,
        idempotent=(not is_write) if idempotent is None else idempotent,
        contract_row=row,
        outside_base=outside_base,
        revisioned=revisioned,
        keyed=keyed,
    )


_LOC = "/locations/{location_id}"
# A server's test payment, when it has one (docs/api.md, "A test payment"; no contract row): a GET
# says it is there, a POST {"checkoutUrl"} pays that hand-off with the server's approving test
# instrument. On the origin, in both dialects; `kiosk doctor --test-order` pays with it.
TEST_PAYMENT_PATH = "/.well-known/storefront-test-payment"
_TEST_PAYMENT = (
    _row(None, "test_payment_offered", "GET", TEST_PAYMENT_PATH, outside_base=True),
    _row(None, "test_payment", "POST", TEST_PAYMENT_PATH, outside_base=True),
)
_CART = _LOC + "/carts/{cart_id}"

_ROWS = (
    _row(1, "merchant", "GET", "/merchant/{merchant_slug}"),
    _row(2, "location", "GET", _LOC),
    _row(3, "time_intervals", "GET", _LOC + "/time-intervals"),
    _row(4, "gratuity", "GET", _LOC + "/gratuity"),
    _row(5, "menus", "GET", _LOC + "/menus"),
    _row(6, "products", "GET", _LOC + "/products"),
    _row(7, "product", "GET", _LOC + "/products/{product_id}"),
    _row(8, "ordering_session", "POST", _LOC + "/ordering-sessions"),
    _row(9, "create_cart", "POST", _LOC + "/carts"),
    _row(10, "cart", "GET", _CART),
    _row(11, "delete_cart", "DELETE", _CART, idempotent=True),
    _row(12, "add_item", "POST", _CART + "/cart-item"),
    _row(13, "item_quantity", "PATCH", _CART + "/cart-item/{item_id}/quantity"),
    _row(14, "order_time", "PUT", _CART + "/update-order-time"),
    # Singular `cart` segment: the spec's own spelling (S), not a typo.
    _row(15, "customer", "PUT", _LOC + "/cart/{cart_id}/validate-and-update"),
    _row(16, "tip", "PUT", _CART + "/gratuity"),
    _row(17, "delivery", "PUT", _CART + "/set-delivery"),
    _row(18, "table", "PUT", _CART + "/set-table"),
    _row(19, "room", "PUT", _CART + "/set-room"),
    _row(20, "apply_discount", "POST", _LOC + "/discounts/apply-discount"),
    _row(21, "remove_discount", "DELETE", _CART + "/discount", idempotent=True),
    # Validation only reads the cart, so repeating it is harmless (assumption A, as is the row).
    _row(22, "validate", "POST", _CART + "/validate", idempotent=True),
    _row(23, "cross_sell", "GET", _CART + "/products"),
    _row(24, "payment_intent", "POST", _CART + "/payment-intent"),
    # The demo backend's processor (contract, payment section, A): on the origin, outside /api/v1.
    _row(None, "demo_confirm", "POST", "/demo/processor/confirm", outside_base=True),
    *_TEST_PAYMENT,
)

ENDPOINTS: dict[str, Endpoint] = {e.name: e for e in _ROWS}
DEMO_CONFIRM = ENDPOINTS["demo_confirm"]


# --- Storefront 2.0 (../shared/storefront-v2-contract.md, section 4): base /api/v1/storefront ---

_V2_CART = "/locations/{location_id}/carts/{cart_id}"


def _v2(
    name: str, method: str, template: str, *, match: bool = False, key: bool = False
) -> Endpoint:
    # 2.0 rows have no row number in our legacy contract; a keyed write may be resent.
    return _row(None, name, method, template, revisioned=match, keyed=key)


_V2_ROWS = (
    _v2("merchant", "GET", "/merchant/{merchant_slug}"),
    _v2("location", "GET", "/locations/{location_id}"),
    _v2("distance", "POST", "/locations/{location_id}/distance"),
    _v2("time_intervals", "GET", "/locations/{location_id}/time-intervals"),
    _v2("readiness", "GET", "/locations/{location_id}/ordering-readiness"),
    _v2("gratuity", "GET", "/locations/{location_id}/gratuity"),
    _v2("menus", "GET", "/locations/{location_id}/menus"),
    _v2("product", "GET", "/locations/{location_id}/products/{product_id}"),
    _v2("ordering_session", "POST", "/locations/{location_id}/ordering-sessions", key=True),
    # Resuming an existing cart through an ordering session needs its revision too.
    _v2(
        "resume_session", "POST", "/locations/{location_id}/ordering-sessions", match=True, key=True
    ),
    _v2("cart", "GET", _V2_CART),
    _v2("delete_cart", "DELETE", _V2_CART, match=True, key=True),
    _v2("cross_sell", "GET", _V2_CART + "/products"),
    _v2("customer", "PUT", _V2_CART + "/validate-and-update", match=True, key=True),
    _v2("tip", "PUT", _V2_CART + "/gratuity", match=True, key=True),
    _v2("delivery", "PUT", _V2_CART + "/set-delivery", match=True, key=True),
    _v2("table", "PUT", _V2_CART + "/set-table", match=True, key=True),
    _v2("room", "PUT", _V2_CART + "/set-room", match=True, key=True),
    _v2("order_time", "PUT", _V2_CART + "/update-order-time", match=True, key=True),
    _v2("add_item", "POST", _V2_CART + "/items", match=True, key=True),
    _v2("item_quantity", "PATCH", _V2_CART + "/items/{item_id}", match=True, key=True),
    _v2("remove_item", "DELETE", _V2_CART + "/items/{item_id}", match=True, key=True),
    _v2("apply_discount", "POST", _V2_CART + "/discount", match=True, key=True),
    _v2("remove_discount", "DELETE", _V2_CART + "/discount", match=True, key=True),
    _v2("checkout_handoff", "POST", _V2_CART + "/checkout-handoffs", key=True),
    _v2("order_result", "GET", _V2_CART + "/order-result"),
    # The demo backend's processor, on the origin (as in v1).
    _row(None, "demo_confirm", "POST", "/demo/processor/confirm", outside_base=True),
    *_TEST_PAYMENT,
)

V2_ENDPOINTS: dict[str, Endpoint] = {e.name: e for e in _V2_ROWS}

# Every operation of the vendor's manifest (vendor-v2/storefront_operations.json) the kiosk does
# not call, with why. A test checks that used + unused cover the manifest.
_ACCOUNTS = "customer accounts: a shared counter terminal keeps no sign-in"
_LOYALTY = "loyalty needs a signed-in customer"
_HOSTED = "the hosted checkout page's call, not the storefront's (the vendor's notes)"
_C = "/locations/{locationId}/carts/{cartId}"
V2_UNUSED: dict[str, str] = {
    "GET /locations/{locationId}/redirect": "a web storefront's redirect; a kiosk has no browser",
    "POST /locations/{locationId}/analytics-events": "marketing analytics, not ordering",
    f"PATCH {_C}": "the method is chosen before the cart exists; a kiosk takes no order notes",
    f"POST {_C}/claim": "attaching a cart to a signed-in customer; kiosk guests do not sign in",
    f"POST {_C}/checkout-handoffs/exchange": _HOSTED,
    f"POST {_C}/payment-intent": _HOSTED,
    f"POST {_C}/rating": "rating comes after the meal, not at the counter",
    f"GET {_C}/loyalty/quote": _LOYALTY,
    f"POST {_C}/loyalty/redeem": _LOYALTY,
    f"DELETE {_C}/loyalty/redeem": _LOYALTY,
    "POST /customer/auth/login": _ACCOUNTS,
    "POST /customer/auth/verify-otp": _ACCOUNTS,
    "GET /customer": _ACCOUNTS,
    "GET /customer/orders": _ACCOUNTS,
    "GET /customer/orders/{orderId}": _ACCOUNTS,
    "GET /customer/addresses": _ACCOUNTS,
    "POST /customer/addresses": _ACCOUNTS,
    "PATCH /customer/addresses/{addressId}": _ACCOUNTS,
    "DELETE /customer/addresses/{addressId}": _ACCOUNTS,
    "GET /customer/saved-payments": _ACCOUNTS,
    "DELETE /customer/saved-payments/{paymentId}": _ACCOUNTS,
    "DELETE /customer/logout": _ACCOUNTS,
    "GET /customer/loyalty/ledger": _ACCOUNTS,
    "POST /customer/loyalty/claims": _ACCOUNTS,
    "GET /customer/loyalty/claims": _ACCOUNTS,
    "GET /receipts/{receiptId}": "the done screen shows the order; receipts are for own devices",
}
