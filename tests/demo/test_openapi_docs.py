"""The demo backend's own OpenAPI documents (issue 11): /api/v1/storefront/openapi.json (2.0)
and /api/v1/openapi.json (the legacy API and /demo), generated from the route table
(kiosk.demo.openapi).

They are valid OpenAPI 3.1; every route of the app is in one of them with its methods; the 2.0
document names only operations the vendor has (bar the extras listed below), with statuses and
headers the vendor declares; and schemathesis, driven by each document against the app in-process,
finds no 5xx and only answers the document states. Bounded for CI (EXAMPLES per operation,
derandomized); a longer run:
    KIOSK_OPENAPI_EXAMPLES=200 ./dev test tests/demo/test_openapi_docs.py
or against a running `kiosk demo-server` (kiosk/demo/README.md).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from jsonschema import Draft202012Validator
from starlette.routing import Route
from starlette.testclient import TestClient

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN, MERCHANT_SLUG

from .real_cart import CHECKS, RealCart
from .support import WED_AFTERNOON
from .vendor_schema import DOCUMENT as VENDOR_DOCUMENT

EXAMPLES = int(os.environ.get("KIOSK_OPENAPI_EXAMPLES", "10"))
V2 = "/api/v1/storefront"
V2_DOC = V2 + "/openapi.json"
V1_DOC = "/api/v1/openapi.json"
DT = DOWNTOWN.id
# Operations of our 2.0 document that the vendor's does not have, each with its reason.
DELIBERATE_EXTRAS = {
    ("GET", "/openapi.json"): "the demo serves its own document; the vendor publishes its apart",
}
HYPOTHESIS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

APP = create_app(clock=lambda: WED_AFTERNOON, rate_limit=None)
CLIENT = TestClient(APP, base_url="http://demo")


def document(path: str) -> dict[str, Any]:
    r = CLIENT.get(path)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    doc: dict[str, Any] = r.json()
    return doc


def vendor() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(VENDOR_DOCUMENT.read_text(encoding="utf-8"))
    return doc


def shape(path: str) -> str:
    """A path template without its parameter names ("/carts/{cartId}" is "/carts/{}")."""
    return re.sub(r"{[^}]+}", "{}", path)


def operations(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    methods = {"get", "put", "post", "patch", "delete"}
    return {
        (method.upper(), shape(path)): op
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
        if method in methods
    }


@pytest.mark.parametrize("path", [V2_DOC, V1_DOC])
def test_the_documents_are_valid_openapi_3_1(path: str) -> None:
    doc = document(path)
    assert doc["openapi"].startswith("3.1")
    schemathesis.openapi.from_dict(doc).validate()  # the OpenAPI 3.1 meta-schema
    for schema in doc["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)
    # Built once: the second answer is the same document.
    assert CLIENT.get(path).content == CLIENT.get(path).content


def test_every_route_of_the_app_is_documented_with_its_methods() -> None:
    v2 = operations(document(V2_DOC))
    v1 = operations(document(V1_DOC))
    seen = 0
    for route in APP.routes:
        assert isinstance(route, Route), route
        if route.path.startswith(V2 + "/"):
            documented, relative = v2, route.path.removeprefix(V2)
        else:
            documented, relative = v1, route.path
        for method in sorted((route.methods or set()) - {"HEAD"}):
            assert (method, shape(relative)) in documented, (method, route.path)
            seen += 1
    assert seen == len(v2) + len(v1)  # and nothing documented that is not a route


def test_the_2_0_document_invents_no_operation() -> None:
    ours = operations(document(V2_DOC))
    theirs = operations(vendor())
    extras = {key for key in ours if key not in theirs}
    assert extras == set(DELIBERATE_EXTRAS)
    for key, op in ours.items():
        if key in extras:
            continue
        their = theirs[key]
        # Only statuses the vendor declares for the operation.
        assert set(op["responses"]) <= set(their["responses"]), key
        # The headers the vendor requires, required alike (Idempotency-Key, If-Match).
        wanted = {
            p["name"]: p["required"] for p in their.get("parameters", []) if p["in"] == "header"
        }
        got = {p["name"]: p["required"] for p in op.get("parameters", []) if p["in"] == "header"}
        assert got == wanted, key
        # The cart token where the vendor takes it, optional where the vendor's is.
        token = {"StorefrontCartCapability": []}
        assert (token in op.get("security", [])) == (token in their.get("security", [])), key
        assert ({} in op.get("security", [])) == ({} in their.get("security", [])), key


def test_the_documented_bodies_are_the_ones_the_handlers_parse() -> None:
    doc = document(V2_DOC)
    item = doc["paths"]["/locations/{locationId}/carts/{cartId}/items"]["post"]
    ref = item["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    add = doc["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert add["additionalProperties"] is False
    assert set(add["required"]) == {"productId", "quantity", "itemUnavailableAction"}
    # A body the document refuses is refused by the handler, in the 2.0 envelope.
    cart = RealCart(APP)
    r = cart.client.post(
        f"/locations/{DT}/carts/{cart.id}/items",
        json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "x", "y": 1},
        headers={**cart.headers(), "Idempotency-Key": "k" * 16},
    )
    assert r.status_code == 400 and r.json()["code"] == "VALIDATION_ERROR"
    assert r.json()["details"] == {"field": "itemUnavailableAction"}
    # A malformed If-Match is refused even where none is needed (a new cart), as documented.
    session = cart.client.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "takeout"},
        headers={"Idempotency-Key": "s" * 16, "If-Match": ""},
    )
    assert session.status_code == 400, session.text
    # A body of another media type than JSON is refused by the edge, before any handler (415).
    form = cart.client.post(
        f"/locations/{DT}/distance",
        content=b"lat=1&lng=2",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415 and form.json()["details"] == {"field": "Content-Type"}


# --- schemathesis, driven by our own documents ---------------------------------------------------


@pytest.fixture(scope="module")
def our_v2_schema() -> Any:
    return schemathesis.openapi.from_asgi(V2_DOC, APP)


@pytest.fixture(scope="module")
def our_v1_schema() -> Any:
    return schemathesis.openapi.from_asgi(V1_DOC, APP)


# Lazy schemas: each operation's cases are built when its test runs (one subtest an operation),
# not by every xdist worker at collection (test_schemathesis_v2.py says why).
v2_schema = schemathesis.pytest.from_fixture("our_v2_schema")
v1_schema = schemathesis.pytest.from_fixture("our_v1_schema").include(
    # The /demo controls would set faults and sold-outs under the run; they have their own tests.
    path_regex=r"^/api/v1/(locations|merchant)/"
)
CARTS: dict[str, Any] = {}


def v2_cart() -> RealCart:
    if "v2" not in CARTS:
        CARTS["v2"] = RealCart(APP)
    cart: RealCart = CARTS["v2"]
    return cart


def v1_cart() -> str:
    """A real open legacy cart with a line; a new one when a request paid for or deleted it."""
    c = CLIENT
    headers = {"X-API-Key": DOWNTOWN.api_key}
    base = f"/api/v1/locations/{DT}"
    cart_id = CARTS.get("v1")
    if cart_id is not None:
        r = c.get(f"{base}/carts/{cart_id}", headers=headers)
        if r.status_code == 200 and r.json()["status"] == "OPEN":
            return str(cart_id)
    r = c.post(f"{base}/ordering-sessions", json={"fulfillmentMethod": "pickup"}, headers=headers)
    assert r.status_code == 200, r.text
    cart_id = r.json()["cartId"]
    added = c.post(
        f"{base}/carts/{cart_id}/cart-item",
        json={"productId": "prd_cookie", "quantity": 1},
        headers=headers,
    )
    assert added.status_code == 200, added.text
    CARTS["v1"] = cart_id
    return str(cart_id)


@v2_schema.parametrize()
@HYPOTHESIS
def test_our_2_0_document_drives_the_demo(case: Any) -> None:
    params = case.path_parameters or {}
    headers: dict[str, str] = {}
    # Most generated ids would only ever meet a 404: aim at a real location and cart.
    if "locationId" in params:
        params["locationId"] = DT
    if "merchantSlug" in params:
        params["merchantSlug"] = MERCHANT_SLUG
    if "cartId" in params:
        cart = v2_cart()
        params["cartId"] = cart.id
        if "itemId" in params:
            params["itemId"] = cart.item
        headers = cart.headers()
    case.path_parameters = params
    case.headers = {**(case.headers or {}), **headers}
    case.call_and_validate(checks=CHECKS)


@v1_schema.parametrize()
@HYPOTHESIS
def test_our_v1_document_drives_the_demo(case: Any) -> None:
    params = case.path_parameters or {}
    if "locationId" in params:
        params["locationId"] = DT
    if "merchantSlug" in params:
        params["merchantSlug"] = MERCHANT_SLUG
    if "cartId" in params:
        params["cartId"] = v1_cart()
    case.path_parameters = params
    case.headers = {**(case.headers or {}), "X-API-Key": DOWNTOWN.api_key}
    case.call_and_validate(checks=CHECKS)
