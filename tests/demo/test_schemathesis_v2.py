"""The vendor's own OpenAPI document drives the demo backend's 2.0 API (schemathesis, in-process):
for every operation the demo emulates, generated requests get no 5xx, and every answer's status,
content type, headers and body are as the vendor documents them.

Cart operations run against a real cart: its id, token and current revision are put into each
generated request, so the write handlers themselves are exercised, not only the 404 of a random
id. Bounded for CI (EXAMPLES per operation, derandomized); a longer run:
    KIOSK_CONFORMANCE_EXAMPLES=500 ./dev test tests/demo/test_schemathesis_v2.py
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks
from starlette.testclient import TestClient

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN

from .support import WED_AFTERNOON
from .vendor_schema import DOCUMENT

EXAMPLES = int(os.environ.get("KIOSK_CONFORMANCE_EXAMPLES", "20"))
DT = DOWNTOWN.id
# The operations the demo emulates (kiosk/demo/README.md lists the others, which answer 404).
EMULATED = (
    r"^/merchant/\{merchantSlug\}$",
    r"^/locations/\{locationSlugOrId\}$",
    r"^/locations/\{locationId\}/(distance|time-intervals|ordering-readiness|gratuity|menus)$",
    r"^/locations/\{locationId\}/products/\{productId\}$",
    r"^/locations/\{locationId\}/ordering-sessions$",
    r"^/locations/\{locationId\}/carts/\{cartId\}"
    r"(/products|/validate-and-update|/gratuity|/set-delivery|/set-table|/set-room"
    r"|/update-order-time|/items|/items/\{itemId\}|/discount|/checkout-handoffs|/order-result)?$",
)

APP = create_app(clock=lambda: WED_AFTERNOON, rate_limit=None)
schema = schemathesis.openapi.from_path(str(DOCUMENT))
schema.app = APP
emulated = schema.include(path_regex="|".join(EMULATED))
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]


class Cart:
    """A real cart with a line, made through the 2.0 API itself."""

    def __init__(self) -> None:
        self.client = TestClient(APP, base_url="http://demo/api/v1/storefront")
        self.fresh()

    def fresh(self) -> None:
        r = self.client.post(
            f"/locations/{DT}/ordering-sessions",
            json={"fulfillmentMethod": "takeout"},
            headers={"Idempotency-Key": os.urandom(12).hex()},
        )
        assert r.status_code == 201, r.text
        self.id = r.json()["cart"]["id"]
        self.token = r.json()["cartAccessToken"]
        added = self.client.post(
            f"/locations/{DT}/carts/{self.id}/items",
            json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
            headers={**self.headers(), "Idempotency-Key": os.urandom(12).hex()},
        )
        assert added.status_code == 200, added.text
        self.item = added.json()["items"][0]["id"]

    def headers(self) -> dict[str, str]:
        r = self.client.get(
            f"/locations/{DT}/carts/{self.id}", headers={"X-Cart-Token": self.token}
        )
        if r.status_code != 200 or r.json()["status"] != "OPEN":
            # A checkout hand-off locked it, or a DELETE expired it: carry on with a new one.
            self.fresh()
            return self.headers()
        return {"X-Cart-Token": self.token, "If-Match": r.headers["etag"]}


CART: Cart | None = None


def real_cart() -> Cart:
    global CART
    if CART is None:
        CART = Cart()
    return CART


@emulated.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_vendor_document_drives_the_demo(case: Any) -> None:
    params = case.path_parameters or {}
    if "locationId" in params or "locationSlugOrId" in params:
        # Most generated ids would only ever meet a 404: aim at a real location (and cart).
        key = "locationId" if "locationId" in params else "locationSlugOrId"
        params[key] = DT
    headers: dict[str, str] = {}
    if "cartId" in params:
        cart = real_cart()
        params["cartId"] = cart.id
        if "itemId" in params:
            params["itemId"] = cart.item
        headers = cart.headers()
    if params.get("merchantSlug") is not None:
        params["merchantSlug"] = "lantern-kitchen"
    case.path_parameters = params
    case.headers = {**(case.headers or {}), **headers}
    case.call_and_validate(checks=CHECKS)


@pytest.mark.parametrize("path", ["/customer", "/receipts/abc", "/customer/orders"])
def test_operations_not_emulated_answer_a_documented_404(path: str) -> None:
    r = TestClient(APP, base_url="http://demo").get("/api/v1/storefront" + path)
    assert r.status_code == 404
    assert set(r.json()) >= {"code", "message", "requestId"}
