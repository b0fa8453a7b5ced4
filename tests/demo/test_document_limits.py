"""Issue 21: the generated 2.0 document and the server agree on every limit. Each limit of a write
body's members (maxLength, minLength, maximum, minimum, maxItems) is read from the document the
demo serves (kiosk/demo/openapi.py), and the server is sent the limit (no refusal for its size or
range, and never a 5xx) and one past it (400 VALIDATION_ERROR naming the member). A refusal for
what a value means (an unknown product, a place that is not a location) is not a size refusal.

Also the two rules no single member carries: `emailAddress: "@"` and a gratuity with both an
amount and a percentage are refused.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import httpx
from starlette.applications import Starlette

from kiosk.demo import create_app

from .support import DT

V2 = "/api/v1/storefront"
_keys = itertools.count()
# A refusal because of size or range says so (pydantic's words and the domain's).
SIZE_WORDS = re.compile(
    r"at most|at least|characters|between|less than|greater than|too (long|many)"
)

# A valid body for each write operation with one, by path suffix (the cart has a cookie in it).
BASE: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/distance"): {"lat": 40.7, "lng": -74.0},
    ("post", "/ordering-sessions"): {"fulfillmentMethod": "takeout"},
    ("patch", "/carts/{cartId}"): {"note": "x"},
    ("put", "/validate-and-update"): {"customerName": "Ada", "emailAddress": "ada@example.com"},
    ("put", "/gratuity"): {"percentage": "18"},
    ("put", "/set-delivery"): {
        "street": "1 Main St",
        "city": "New York",
        "state": "NY",
        "zipCode": "10001",
        "country": "United States",
        "lat": 40.71,
        "lng": -74.0,
    },
    ("put", "/set-table"): {"tableNumber": "5"},
    ("put", "/set-room"): {"lastName": "Lee", "roomNumber": "12"},
    ("post", "/items"): {
        "productId": "prd_cookie",
        "quantity": 1,
        "itemUnavailableAction": "remove_item",
    },
    ("patch", "/items/{itemId}"): {"quantity": 2},
    ("post", "/discount"): {"code": "SAVE10"},
}
LIMITS = ("maxLength", "minLength", "maximum", "minimum", "maxItems")


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = doc["components"]["schemas"][name]
    for branch in schema.get("anyOf", []):
        if branch.get("type") != "null":
            return _resolve(doc, branch)
    return schema


def _value(prop: dict[str, Any], limit: str, past: bool) -> Any:
    bound = prop[limit]
    if limit in ("maxLength", "minLength"):
        size = bound + (1 if limit == "maxLength" else -1) * past
        pattern = prop.get("pattern", "")
        if "@" in pattern:
            return "a" * max(0, size - 12) + "@example.com" if size >= 14 else "a@b.cd"[:size]
        char = "1" if "\\d" in pattern else ("A" if "A-Z" in pattern else "a")
        return char * size
    if limit in ("maximum", "minimum"):
        step = 1 if prop.get("type") == "integer" else 0.5
        return bound + (step if limit == "maximum" else -step) * past
    return [{"groupId": "grp_x", "selectedOptions": []}] * (bound + past)  # maxItems


def cases(doc: dict[str, Any]) -> list[tuple[str, str, str, str, dict[str, Any]]]:
    out = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            base = next((b for (m, s), b in BASE.items() if m == method and path.endswith(s)), None)
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if content is None:
                continue
            schema = _resolve(doc, content["schema"])
            if not schema.get("properties"):
                continue  # an empty body, or a union of bodies (order time: its own tests)
            assert base is not None, f"no base body for {method} {path}"
            for name, raw in schema["properties"].items():
                prop = _resolve(doc, raw)
                out.extend((method, path, name, limit, prop) for limit in LIMITS if limit in prop)
    return out


async def _cart(c: httpx.AsyncClient) -> tuple[str, str, str]:
    r = await c.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "takeout"},
        headers={"Idempotency-Key": f"limits-{next(_keys):012d}"},
    )
    cart, token = r.json()["cart"]["id"], r.json()["cartAccessToken"]
    r = await c.post(
        f"/locations/{DT}/carts/{cart}/items",
        json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
        headers={
            "X-Cart-Token": token,
            "If-Match": r.headers["etag"],
            "Idempotency-Key": f"limits-{next(_keys):012d}",
        },
    )
    return cart, token, r.json()["items"][0]["id"]


async def _send(
    c: httpx.AsyncClient, method: str, path: str, body: dict[str, Any]
) -> httpx.Response:
    cart, token, item = await _cart(c)
    etag = (await c.get(f"/locations/{DT}/carts/{cart}", headers={"X-Cart-Token": token})).headers[
        "etag"
    ]
    url = path.format(locationId=DT, cartId=cart, itemId=item)
    headers = {"Idempotency-Key": f"limits-{next(_keys):012d}"}
    if "{cartId}" in path:
        headers |= {"X-Cart-Token": token, "If-Match": etag}
    return await c.request(method.upper(), url, json=body, headers=headers)


async def test_every_documented_limit_is_the_servers() -> None:
    app = create_app(rate_limit=None)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo" + V2) as c:
        doc = (await c.get("/openapi.json")).json()
        found = cases(doc)
        assert len(found) >= 15, found  # the walk found the limits (not a vacuous pass)
        assert ("post", "/locations/{locationId}/carts/{cartId}/items", "specialInstructions") in {
            (m, p, n) for m, p, n, _, _ in found
        }
        problems = []
        for method, path, name, limit, prop in found:
            base = next(b for (m, s), b in BASE.items() if m == method and path.endswith(s))
            at = await _send(c, method, path, base | {name: _value(prop, limit, past=False)})
            body = at.json()
            if at.status_code >= 500 or (
                at.status_code == 400
                and (body.get("details") or {}).get("field") == name
                and SIZE_WORDS.search(body.get("message", ""))
            ):
                problems.append(("refused at", method, path, name, limit, prop[limit], body))
            past = await _send(c, method, path, base | {name: _value(prop, limit, past=True)})
            body = past.json()
            if past.status_code != 400 or (body.get("details") or {}).get("field") != name:
                problems.append(("taken past", method, path, name, limit, prop[limit], body))
        assert problems == []


async def test_an_at_sign_is_no_email_and_a_tip_is_one_kind(app: Starlette) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo" + V2) as c:
        doc = (await c.get("/openapi.json")).json()
        tip = doc["components"]["schemas"]["GratuityRequest"]
        assert tip["not"] == {"required": ["amount", "percentage"]}
        email = await _send(
            c,
            "put",
            "/locations/{locationId}/carts/{cartId}/validate-and-update",
            {"customerName": "Ada", "emailAddress": "@"},
        )
        assert email.status_code == 400 and email.json()["details"]["field"] == "emailAddress"
        both = await _send(
            c,
            "put",
            "/locations/{locationId}/carts/{cartId}/gratuity",
            {"amount": "1.00", "percentage": "18"},
        )
        assert both.status_code == 400 and both.json()["code"] == "VALIDATION_ERROR", both.text
