"""The six causes of a 5xx that 6,121 hostile requests found (issue 11), one test each, and their
families: each gets a clear 4xx, and the cart it aimed at still reads, unchanged.

Lone surrogates cannot be sent through httpx's JSON encoder (it refuses them), so bodies here are
raw bytes written the way a hostile client writes them: JSON escapes (`"\\ud800"`) that decode to
a lone surrogate on the server.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from .support import DT, add, get_cart, new_cart

CART = "/locations/{loc}/carts/{cart}"
LONE = '"\\ud800"'  # a JSON string literal that decodes to a lone surrogate


async def post_raw(
    client: httpx.AsyncClient, method: str, path: str, raw: bytes | str
) -> httpx.Response:
    content = raw.encode() if isinstance(raw, str) else raw
    headers = {"Content-Type": "application/json"}
    return await client.request(method, path, content=content, headers=headers)


def assert_clear_4xx(r: httpx.Response, *statuses: int) -> dict[str, Any]:
    assert r.status_code in (statuses or (400,)), (r.status_code, r.text[:300])
    body: dict[str, Any] = r.json()
    assert body.get("message") or body.get("error"), body
    return body


# --- 1: deeply nested JSON ------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [64, 5_000, 100_000])
async def test_deeply_nested_json_is_refused(dt: httpx.AsyncClient, depth: int) -> None:
    cart = await new_cart(dt)
    before = await get_cart(dt, cart)
    nested = "[" * depth + "]" * depth
    for raw in (nested, '{"productId": "prd_cookie", "quantity": 1, "x": ' + nested + "}"):
        r = await post_raw(dt, "POST", CART.format(loc=DT, cart=cart) + "/cart-item", raw)
        assert_clear_4xx(r, 400, 413)
    assert await get_cart(dt, cart) == before


# --- 2: huge numbers in money ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount",
    ['"1e999999"', '"123456789012345678901234567890"', "1e999999", '"1e-999999"', '"NaN"'],
)
async def test_huge_tip_amounts_are_refused(dt: httpx.AsyncClient, amount: str) -> None:
    cart = await new_cart(dt)
    assert (await add(dt, cart, "prd_cookie")).status_code == 200
    before = await get_cart(dt, cart)
    for member in ("tipAmount", "tipPercentage", "amount", "percentage"):
        raw = f'{{"{member}": {amount}}}'
        r = await post_raw(dt, "PUT", CART.format(loc=DT, cart=cart) + "/gratuity", raw)
        assert_clear_4xx(r)
    assert await get_cart(dt, cart) == before


async def test_a_huge_quantity_is_refused(dt: httpx.AsyncClient) -> None:
    cart = await new_cart(dt)
    raw = '{"productId": "prd_cookie", "quantity": 1' + "0" * 400 + "}"
    r = await post_raw(dt, "POST", CART.format(loc=DT, cart=cart) + "/cart-item", raw)
    assert_clear_4xx(r)
    assert (await get_cart(dt, cart))["items"] == []


# --- 3: huge coordinates --------------------------------------------------------------------------


@pytest.mark.parametrize("lat", ["1" + "0" * 400, "1e400", "-1e308", "9" * 30])
async def test_huge_coordinates_are_refused(dt: httpx.AsyncClient, lat: str) -> None:
    cart = await new_cart(dt, method="delivery")
    before = await get_cart(dt, cart)
    raw = (
        '{"street": "1 Main St", "city": "New York", "state": "NY", "zipCode": "10038", '
        f'"lat": {lat}, "lng": -74.0}}'
    )
    r = await post_raw(dt, "PUT", CART.format(loc=DT, cart=cart) + "/set-delivery", raw)
    assert_clear_4xx(r)
    assert await get_cart(dt, cart) == before


# --- 4: lone surrogates and NUL in path ids -------------------------------------------------------


@pytest.mark.parametrize("bad", ["%ED%A0%80", "%00", "abc%FF", "%C0%AF"])
async def test_bad_text_in_path_ids_is_a_4xx(dt: httpx.AsyncClient, bad: str) -> None:
    cart = await new_cart(dt)
    for path in (
        f"/locations/{bad}",
        f"/locations/{DT}/carts/{bad}",
        f"/locations/{DT}/products/{bad}",
        f"/locations/{DT}/carts/{cart}/cart-item/{bad}/quantity",
    ):
        method = "PATCH" if path.endswith("/quantity") else "GET"
        r = await dt.request(method, httpx.URL(f"http://demo/api/v1{path}"), json={"quantity": 1})
        assert_clear_4xx(r, 400, 404)
    assert (await get_cart(dt, cart))["id"] == cart


async def test_a_lone_surrogate_in_a_path_id_reaches_no_database(app: Starlette) -> None:
    # httpx cannot put a lone surrogate into a URL: call the ASGI app with the decoded path itself.
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    from kiosk.demo.data import DOWNTOWN

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": f"/api/v1/locations/{DT}/carts/cart_\ud800",
        "raw_path": b"/api/v1/locations/x/carts/y",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"demo"), (b"x-api-key", DOWNTOWN.api_key.encode())],
        "client": ("127.0.0.1", 40000),
        "server": ("demo", 80),
    }
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    assert status in (400, 404)


# --- 5: lone surrogates and control characters in body strings -----------------------------------


@pytest.mark.parametrize("value", [LONE, '"Ann\\u0000"', '"a\\udfff b"', '"\\u001b[31m"'])
async def test_bad_text_in_a_customer_name_is_refused_and_the_cart_still_reads(
    dt: httpx.AsyncClient, value: str
) -> None:
    cart = await new_cart(dt)
    assert (await add(dt, cart, "prd_cookie")).status_code == 200
    before = await get_cart(dt, cart)
    raw = f'{{"customerName": {value}, "emailAddress": "a@example.com"}}'
    r = await post_raw(dt, "PUT", f"/locations/{DT}/cart/{cart}/validate-and-update", raw)
    assert_clear_4xx(r)
    assert await get_cart(dt, cart) == before


@pytest.mark.parametrize("value", [LONE, '"note\\u0000"'])
async def test_bad_text_in_special_instructions_adds_nothing(
    dt: httpx.AsyncClient, value: str
) -> None:
    cart = await new_cart(dt)
    raw = f'{{"productId": "prd_cookie", "quantity": 1, "specialInstructions": {value}}}'
    r = await post_raw(dt, "POST", CART.format(loc=DT, cart=cart) + "/cart-item", raw)
    assert_clear_4xx(r)
    cart_json = await get_cart(dt, cart)
    assert cart_json["items"] == []


async def test_free_text_keeps_tabs_newlines_and_any_real_character(dt: httpx.AsyncClient) -> None:
    cart = await new_cart(dt)
    note = "no nuts\tplease\nextra napkins · 🍪 · مرحبا"
    r = await add(dt, cart, "prd_cookie", specialInstructions=note)
    assert r.status_code == 200, r.text
    items = (await get_cart(dt, cart))["items"]
    assert [i.get("specialInstructions") for i in items] == [note]


# --- 6: a huge form on the demo processor ---------------------------------------------------------


async def test_a_huge_form_on_the_processor_is_refused_without_reading_it(
    root: httpx.AsyncClient,
) -> None:
    read = 0

    async def body() -> Any:
        nonlocal read
        chunk = b"a=" + b"x" * 65_534
        for _ in range(64):  # 4 MiB offered, in 64 KiB chunks
            read += len(chunk)
            yield chunk

    r = await root.post(
        "/demo/processor/confirm",
        content=body(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code in (400, 413), r.text[:200]
    # The server stopped reading soon after the limit (the transport may have a chunk in flight).
    assert read <= 4 * 65_536


async def test_a_json_body_over_the_limit_is_refused(dt: httpx.AsyncClient) -> None:
    cart = await new_cart(dt)
    note = "x" * (70 * 1024)
    r = await dt.post(
        CART.format(loc=DT, cart=cart) + "/cart-item",
        content=json.dumps({"productId": "prd_cookie", "quantity": 1, "specialInstructions": note}),
        headers={"Content-Type": "application/json"},
    )
    assert_clear_4xx(r, 400, 413)
    assert (await get_cart(dt, cart))["items"] == []
