"""Bad input gets a clear 4xx (shape B naming the field), never a 500, never a changed cart."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .support import DT, add, get_cart, new_cart

ITEM = "/locations/{loc}/carts/{cart}/cart-item"
QTY = "/locations/{loc}/carts/{cart}/cart-item/{item}/quantity"
TIME = "/locations/{loc}/carts/{cart}/update-order-time"
CUSTOMER = "/locations/{loc}/cart/{cart}/validate-and-update"
TIP = "/locations/{loc}/carts/{cart}/gratuity"
DELIVERY = "/locations/{loc}/carts/{cart}/set-delivery"
TABLE = "/locations/{loc}/carts/{cart}/set-table"
ROOM = "/locations/{loc}/carts/{cart}/set-room"
DISCOUNT = "/locations/{loc}/discounts/apply-discount"
ADDRESS = {"street": "1 Main St", "city": "New York", "state": "NY", "zipCode": "10038"}

# (id, method, path, JSON body, expected status, expected details.field, expected code)
CASES: list[tuple[str, str, str, Any, int, str, str]] = [
    (
        "quantity negative",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": -1},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity zero",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 0},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity huge",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 10**12},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity over the cap",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 100},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity as string",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": "2"},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity as float",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 1.5},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity as bool",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": True},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    (
        "quantity missing",
        "POST",
        ITEM,
        {"productId": "prd_cookie"},
        400,
        "quantity",
        "VALIDATION_ERROR",
    ),
    ("productId missing", "POST", ITEM, {"quantity": 1}, 400, "productId", "VALIDATION_ERROR"),
    (
        "productId a number",
        "POST",
        ITEM,
        {"productId": 7, "quantity": 1},
        400,
        "productId",
        "VALIDATION_ERROR",
    ),
    (
        "unknown product",
        "POST",
        ITEM,
        {"productId": "prd_unicorn", "quantity": 1},
        400,
        "productId",
        "INVALID_PRODUCT",
    ),
    (
        "other location's product",
        "POST",
        ITEM,
        {"productId": "prd_club_tray", "quantity": 1},
        400,
        "productId",
        "INVALID_PRODUCT",
    ),
    (
        "sold-out product",
        "POST",
        ITEM,
        {"productId": "prd_kale_chips", "quantity": 1},
        400,
        "productId",
        "INVALID_PRODUCT",
    ),
    (
        "breakfast product at lunch",
        "POST",
        ITEM,
        {
            "productId": "prd_pancakes",
            "quantity": 1,
            "modifiers": [
                {
                    "groupId": "grp_pancake_syrup",
                    "selectedOptions": [{"optionId": "opt_psyrup_none", "quantity": 1}],
                }
            ],
        },
        400,
        "productId",
        "INVALID_PRODUCT",
    ),
    (
        "instructions too long",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 1, "specialInstructions": "x" * 501},
        400,
        "specialInstructions",
        "VALIDATION_ERROR",
    ),
    (
        "instructions a list",
        "POST",
        ITEM,
        {"productId": "prd_cookie", "quantity": 1, "specialInstructions": ["x"]},
        400,
        "specialInstructions",
        "VALIDATION_ERROR",
    ),
    (
        "body an array",
        "POST",
        ITEM,
        [{"productId": "prd_cookie", "quantity": 1}],
        400,
        "body",
        "VALIDATION_ERROR",
    ),
    ("body a string", "POST", ITEM, "prd_cookie", 400, "body", "VALIDATION_ERROR"),
    ("body empty", "POST", ITEM, None, 400, "productId", "VALIDATION_ERROR"),
    ("set quantity negative", "PATCH", QTY, {"quantity": -1}, 400, "quantity", "VALIDATION_ERROR"),
    ("set quantity huge", "PATCH", QTY, {"quantity": 1000}, 400, "quantity", "VALIDATION_ERROR"),
    ("set quantity text", "PATCH", QTY, {"quantity": "three"}, 400, "quantity", "VALIDATION_ERROR"),
    (
        "pickupType unknown",
        "PUT",
        TIME,
        {"pickupType": "SOON"},
        400,
        "pickupType",
        "VALIDATION_ERROR",
    ),
    (
        "orderDate month 13",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-13-01", "orderTime": "12:00"},
        400,
        "orderDate",
        "VALIDATION_ERROR",
    ),
    (
        "orderDate Feb 30",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-02-30", "orderTime": "12:00"},
        400,
        "orderDate",
        "VALIDATION_ERROR",
    ),
    (
        "orderDate words",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "tomorrow", "orderTime": "12:00"},
        400,
        "orderDate",
        "VALIDATION_ERROR",
    ),
    (
        "orderDate missing",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderTime": "12:00"},
        400,
        "orderDate",
        "VALIDATION_ERROR",
    ),
    (
        "orderDate in the past",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-03-10", "orderTime": "12:00"},
        400,
        "orderDate",
        "INVALID_ORDER_TIME",
    ),
    (
        "orderDate too far ahead",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2027-03-12", "orderTime": "12:00"},
        400,
        "orderDate",
        "INVALID_ORDER_TIME",
    ),
    (
        "orderTime 25:00",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-03-12", "orderTime": "25:00"},
        400,
        "orderTime",
        "VALIDATION_ERROR",
    ),
    (
        "orderTime 9:00",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-03-12", "orderTime": "9:00"},
        400,
        "orderTime",
        "VALIDATION_ERROR",
    ),
    (
        "orderTime off the slots",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-03-12", "orderTime": "12:07"},
        400,
        "orderTime",
        "INVALID_ORDER_TIME",
    ),
    (
        "orderTime already past today",
        "PUT",
        TIME,
        {"pickupType": "LATER", "orderDate": "2026-03-11", "orderTime": "15:00"},
        400,
        "orderTime",
        "INVALID_ORDER_TIME",
    ),
    (
        "customerName empty",
        "PUT",
        CUSTOMER,
        {"customerName": "  ", "emailAddress": "a@b.co"},
        400,
        "customerName",
        "VALIDATION_ERROR",
    ),
    (
        "customerName missing",
        "PUT",
        CUSTOMER,
        {"emailAddress": "a@b.co"},
        400,
        "customerName",
        "VALIDATION_ERROR",
    ),
    (
        "customerName a number",
        "PUT",
        CUSTOMER,
        {"customerName": 5, "emailAddress": "a@b.co"},
        400,
        "customerName",
        "VALIDATION_ERROR",
    ),
    (
        "email without @",
        "PUT",
        CUSTOMER,
        {"customerName": "Ann", "emailAddress": "ann.example.com"},
        400,
        "emailAddress",
        "VALIDATION_ERROR",
    ),
    (
        "email without domain",
        "PUT",
        CUSTOMER,
        {"customerName": "Ann", "emailAddress": "ann@"},
        400,
        "emailAddress",
        "VALIDATION_ERROR",
    ),
    (
        "email missing",
        "PUT",
        CUSTOMER,
        {"customerName": "Ann"},
        400,
        "emailAddress",
        "VALIDATION_ERROR",
    ),
    (
        "tip percentage words",
        "PUT",
        TIP,
        {"percentage": "lots"},
        400,
        "percentage",
        "VALIDATION_ERROR",
    ),
    (
        "tip percentage negative",
        "PUT",
        TIP,
        {"percentage": "-5"},
        400,
        "percentage",
        "VALIDATION_ERROR",
    ),
    (
        "tip percentage over 100",
        "PUT",
        TIP,
        {"percentage": "101"},
        400,
        "percentage",
        "VALIDATION_ERROR",
    ),
    ("tip amount negative", "PUT", TIP, {"amount": "-1.00"}, 400, "amount", "VALIDATION_ERROR"),
    (
        "tip amount three decimals",
        "PUT",
        TIP,
        {"amount": "5.001"},
        400,
        "amount",
        "VALIDATION_ERROR",
    ),
    ("tip amount huge", "PUT", TIP, {"amount": "99999.00"}, 400, "amount", "VALIDATION_ERROR"),
    ("tip neither", "PUT", TIP, {}, 400, "percentage", "VALIDATION_ERROR"),
    (
        "delivery street missing",
        "PUT",
        DELIVERY,
        {k: v for k, v in ADDRESS.items() if k != "street"},
        400,
        "street",
        "VALIDATION_ERROR",
    ),
    (
        "delivery lat out of range",
        "PUT",
        DELIVERY,
        {**ADDRESS, "country": "US", "lat": 200, "lng": 0},
        400,
        "lat",
        "VALIDATION_ERROR",
    ),
    (
        "delivery too far",
        "PUT",
        DELIVERY,
        {**ADDRESS, "country": "US", "lat": 40.75, "lng": -73.5},
        400,
        "lat",
        "OUT_OF_DELIVERY_AREA",
    ),
    (
        "table at a location without table service",
        "PUT",
        TABLE,
        {"tableNumber": "12"},
        400,
        "fulfillmentMethod",
        "FULFILLMENT_METHOD_UNAVAILABLE",
    ),
    (
        "room at a location without room service",
        "PUT",
        ROOM,
        {"lastName": "Doe", "roomNumber": "12"},
        400,
        "fulfillmentMethod",
        "FULFILLMENT_METHOD_UNAVAILABLE",
    ),
    (
        "discount unknown",
        "POST",
        DISCOUNT,
        {"code": "FREEFOOD", "cartId": "{cart}"},
        400,
        "code",
        "INVALID_DISCOUNT_CODE",
    ),
    (
        "discount expired",
        "POST",
        DISCOUNT,
        {"code": "WINTER23", "cartId": "{cart}"},
        400,
        "code",
        "INVALID_DISCOUNT_CODE",
    ),
    (
        "discount minimum not met",
        "POST",
        DISCOUNT,
        {"code": "FIVEOFF", "cartId": "{cart}"},
        400,
        "code",
        "MINIMUM_ORDER_NOT_MET",
    ),
    (
        "discount without cartId",
        "POST",
        DISCOUNT,
        {"code": "SAVE10"},
        400,
        "cartId",
        "VALIDATION_ERROR",
    ),
    (
        "discount code a number",
        "POST",
        DISCOUNT,
        {"code": 10, "cartId": "{cart}"},
        400,
        "code",
        "VALIDATION_ERROR",
    ),
]


def _fill(value: Any, cart_id: str) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, cart_id) for k, v in value.items()}
    if value == "{cart}":
        return cart_id
    return value


async def _cart_with_a_line(client: httpx.AsyncClient) -> tuple[str, str, dict[str, Any]]:
    cart_id = await new_cart(client, method="delivery")
    r = await add(client, cart_id, "prd_cookie", 2, specialInstructions="warm")
    assert r.status_code == 200
    item_id = r.json()["cart"]["items"][0]["id"]
    return cart_id, item_id, await get_cart(client, cart_id)


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "field", "code"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
async def test_bad_input(
    dt: httpx.AsyncClient,
    method: str,
    path: str,
    body: Any,
    status: int,
    field: str,
    code: str,
) -> None:
    cart_id, item_id, before = await _cart_with_a_line(dt)
    url = path.format(loc=DT, cart=cart_id, item=item_id)
    if body is None:
        r = await dt.request(method, url)
    else:
        r = await dt.request(method, url, json=_fill(body, cart_id))
    assert r.status_code == status, r.text
    err = r.json()
    assert err["error"] == "validation_error"
    assert err["status"] == status
    assert err["code"] == code
    assert err["details"]["field"] == field
    assert err["details"]["code"] == code
    assert isinstance(err["message"], str) and len(err["message"]) > 5
    assert await get_cart(dt, cart_id) == before


RAW: list[tuple[str, bytes, dict[str, str], int, str]] = [
    ("malformed JSON", b'{"productId": "prd_cookie", "quantity": 1', {}, 400, "body"),
    ("not UTF-8", b"\xff\xfe{}", {}, 400, "body"),
    ("NaN quantity", b'{"productId": "prd_cookie", "quantity": NaN}', {}, 400, "quantity"),
    ("a 1 MB body", b'{"productId": "' + b"x" * 1_000_000 + b'"}', {}, 413, "body"),
    ("65 KB of whitespace", b"{" + b" " * 66_000 + b"}", {}, 413, "body"),
]


@pytest.mark.parametrize(
    ("raw", "headers", "status", "field"),
    [pytest.param(*case[1:], id=case[0]) for case in RAW],
)
async def test_bad_bytes(
    dt: httpx.AsyncClient, raw: bytes, headers: dict[str, str], status: int, field: str
) -> None:
    cart_id, _, before = await _cart_with_a_line(dt)
    r = await dt.post(
        ITEM.format(loc=DT, cart=cart_id),
        content=raw,
        headers={"Content-Type": "application/json", **headers},
    )
    assert r.status_code == status, r.text
    assert r.json()["details"]["field"] == field
    assert await get_cart(dt, cart_id) == before


async def test_a_streamed_body_over_the_cap_without_length(dt: httpx.AsyncClient) -> None:
    cart_id, _, before = await _cart_with_a_line(dt)

    async def chunks() -> Any:
        for _ in range(20):
            yield b" " * 8192

    r = await dt.post(ITEM.format(loc=DT, cart=cart_id), content=chunks())
    assert r.status_code == 413
    assert await get_cart(dt, cart_id) == before


async def test_unknown_cart_and_item_are_404_shape_a(dt: httpx.AsyncClient) -> None:
    cart_id, _, before = await _cart_with_a_line(dt)
    r = await dt.get(f"/locations/{DT}/carts/cart_nope")
    assert r.status_code == 404
    assert r.json() == {"success": False, "message": "Cart not found", "code": "NOT_FOUND"}
    r = await dt.patch(QTY.format(loc=DT, cart=cart_id, item="item_nope"), json={"quantity": 1})
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    r = await dt.get(f"/locations/{DT}/products/prd_unicorn")
    assert r.status_code == 404 and r.json()["success"] is False
    r = await dt.get("/locations/nowhere/menus")
    assert r.status_code == 404
    r = await dt.get("/no/such/endpoint")
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    r = await dt.put(f"/locations/{DT}/carts/{cart_id}/cart-item")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"
    assert await get_cart(dt, cart_id) == before


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"orderDate": "2026-02-30"}, "orderDate"),
        ({"orderDate": "11/03/2026"}, "orderDate"),
        ({"orderTime": "7am"}, "orderTime"),
        ({"orderTime": "24:00"}, "orderTime"),
    ],
)
async def test_bad_menu_query(dt: httpx.AsyncClient, query: dict[str, str], field: str) -> None:
    r = await dt.get(f"/locations/{DT}/menus", params=query)
    assert r.status_code == 400
    assert r.json()["details"]["field"] == field
