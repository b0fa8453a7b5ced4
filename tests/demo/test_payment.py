"""Payment: the intent locks the cart, the demo processor approves or declines, an approval
creates the order (COMPLETED, short order number), a decline leaves the cart payable."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from kiosk.demo.backend import Backend

from .support import DT, LATTE_OK, WS, Clock, add, add_flash_discount, get_cart, new_cart


async def paid_cart(dt: httpx.AsyncClient) -> tuple[str, dict[str, Any]]:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_latte", 2, LATTE_OK)
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    assert r.status_code == 200, r.text
    return cart_id, r.json()


async def test_intent_locks_the_cart(dt: httpx.AsyncClient, clock: Clock) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_latte", 2, LATTE_OK)
    before = await get_cart(dt, cart_id)
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    intent = r.json()
    assert set(intent) >= {"clientSecret", "paymentIntentId", "amount", "currency"}
    assert intent["amount"] == before["orderTotalWithServiceFeeAmount"]
    assert intent["currency"] == "usd"
    assert intent["clientSecret"].startswith(intent["paymentIntentId"] + "_secret_")
    cart = await get_cart(dt, cart_id)
    assert cart["status"] == "LOCKED"
    assert cart["lockedAt"] == "2026-03-11T19:30:00.000Z"
    assert cart["checkoutUrl"] == f"http://demo/demo/checkout/{intent['paymentIntentId']}"
    assert intent["clientSecret"] not in cart["checkoutUrl"]
    assert intent["clientSecret"] not in str(cart)
    # A second call returns the same intent.
    again = (await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")).json()
    assert again == intent


MUTATIONS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/locations/{loc}/carts/{cart}/cart-item", {"productId": "prd_cookie", "quantity": 1}),
    ("PATCH", "/locations/{loc}/carts/{cart}/cart-item/{item}/quantity", {"quantity": 5}),
    ("PUT", "/locations/{loc}/carts/{cart}/gratuity", {"percentage": "20"}),
    ("PUT", "/locations/{loc}/carts/{cart}/update-order-time", {"pickupType": "ASAP"}),
    (
        "PUT",
        "/locations/{loc}/cart/{cart}/validate-and-update",
        {"customerName": "Ann", "emailAddress": "ann@example.com"},
    ),
    (
        "PUT",
        "/locations/{loc}/carts/{cart}/set-delivery",
        {"street": "1 A St", "city": "NYC", "state": "NY", "zipCode": "10038", "country": "US"},
    ),
    ("POST", "/locations/{loc}/discounts/apply-discount", {"code": "SAVE10", "cartId": "{cart}"}),
    ("DELETE", "/locations/{loc}/carts/{cart}/discount", None),
]


@pytest.mark.parametrize(
    ("method", "path", "body"), MUTATIONS, ids=[m[1].split("/")[-1] for m in MUTATIONS]
)
async def test_locked_cart_refuses_every_change(
    dt: httpx.AsyncClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    cart_id, _ = await paid_cart(dt)
    before = await get_cart(dt, cart_id)
    url = path.format(loc=DT, cart=cart_id, item=before["items"][0]["id"])
    if body is not None:
        body = {k: (cart_id if v == "{cart}" else v) for k, v in body.items()}
    r = await dt.request(method, url, json=body)
    assert r.status_code == 409, r.text
    assert r.json()["code"] == "CART_LOCKED" and r.json()["error"] == "conflict"
    assert await get_cart(dt, cart_id) == before


async def test_approve_creates_the_order(dt: httpx.AsyncClient, root: httpx.AsyncClient) -> None:
    cart_id, intent = await paid_cart(dt)
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent["clientSecret"], "cardNumber": "4242 4242 4242 4242"},
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"status": "succeeded", "orderNumber": "A001", "cartId": cart_id}
    cart = await get_cart(dt, cart_id)
    assert cart["status"] == "COMPLETED"
    assert cart["fulfillmentIdentifier"] == "A001"
    # Confirming again is harmless; a second cart gets the next number.
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent["clientSecret"], "cardNumber": "4242424242424242"},
    )
    assert r.json()["orderNumber"] == "A001"
    _, intent2 = await paid_cart(dt)
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent2["clientSecret"], "cardNumber": "4242-4242-4242-4242"},
    )
    assert r.json()["orderNumber"] == "A002"
    # A completed cart cannot be paid or changed again.
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    assert r.status_code == 409 and r.json()["code"] == "CART_COMPLETED"
    assert (await add(dt, cart_id, "prd_cookie")).status_code == 409


async def test_decline_leaves_the_cart_payable(
    dt: httpx.AsyncClient, root: httpx.AsyncClient
) -> None:
    cart_id, intent = await paid_cart(dt)
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent["clientSecret"], "cardNumber": "4000 0000 0000 0002"},
    )
    assert r.status_code == 402
    assert r.json()["code"] == "CARD_DECLINED" and r.json()["error"] == "payment_declined"
    cart = await get_cart(dt, cart_id)
    assert cart["status"] == "LOCKED" and cart["fulfillmentIdentifier"] is None
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent["clientSecret"], "cardNumber": "4242424242424242"},
    )
    assert r.status_code == 200
    assert (await get_cart(dt, cart_id))["status"] == "COMPLETED"


async def test_processor_refusals(dt: httpx.AsyncClient, root: httpx.AsyncClient) -> None:
    cart_id, intent = await paid_cart(dt)
    secret = intent["clientSecret"]
    cases = [
        ({"clientSecret": secret, "cardNumber": "5555 5555 5555 4444"}, 400, "CARD_NOT_SUPPORTED"),
        ({"clientSecret": secret, "cardNumber": "4242 abcd"}, 400, "VALIDATION_ERROR"),
        ({"clientSecret": secret}, 400, "VALIDATION_ERROR"),
        ({"clientSecret": "pi_x_secret_y", "cardNumber": "4242424242424242"}, 404, "NOT_FOUND"),
    ]
    for body, status, code in cases:
        r = await root.post("/demo/processor/confirm", json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), body
    assert (await get_cart(dt, cart_id))["status"] == "LOCKED"


async def test_helpers_approve_and_decline(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id, _ = await paid_cart(dt)
    backend.decline_payment(cart_id)
    assert backend.get_cart_json(cart_id)["status"] == "LOCKED"
    number = backend.approve_payment(cart_id)
    assert re.fullmatch(r"A\d{3}", number)
    assert backend.get_cart_json(cart_id)["fulfillmentIdentifier"] == number
    open_cart = await new_cart(dt)
    with pytest.raises(ValueError):
        backend.approve_payment(open_cart)


async def test_westside_order_numbers_have_their_own_prefix(
    ws: httpx.AsyncClient, backend: Backend
) -> None:
    cart_id = await new_cart(ws, WS)
    await add(ws, cart_id, "prd_cookie", loc=WS)
    await ws.post(f"/locations/{WS}/carts/{cart_id}/payment-intent")
    assert backend.approve_payment(cart_id) == "W001"


async def test_payment_refused_for_an_invalid_cart(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    assert r.status_code == 400 and r.json()["code"] == "EMPTY_CART"
    await add(dt, cart_id, "prd_cookie")
    backend.set_sold_out("prd_cookie", True)
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    assert r.status_code == 400 and r.json()["code"] == "ITEM_SOLD_OUT"
    assert r.json()["errors"][0]["itemId"]
    assert (await get_cart(dt, cart_id))["status"] == "OPEN"


async def test_locked_pricing_is_frozen(
    dt: httpx.AsyncClient, backend: Backend, clock: Clock
) -> None:
    add_flash_discount(backend, clock)
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cheesecake", 2)
    await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "FLASH", "cartId": cart_id}
    )
    intent = (await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")).json()
    locked = await get_cart(dt, cart_id)
    clock.advance(3600)  # the code expires and the ASAP time moves on; the locked cart does not
    assert await get_cart(dt, cart_id) == locked
    assert locked["discountTotal"] == "650"
    assert intent["amount"] == locked["orderTotalWithServiceFeeAmount"]


async def test_delete_during_payment_cancels_it(
    dt: httpx.AsyncClient, root: httpx.AsyncClient
) -> None:
    cart_id, intent = await paid_cart(dt)
    assert (await dt.delete(f"/locations/{DT}/carts/{cart_id}")).status_code == 200
    r = await root.post(
        "/demo/processor/confirm",
        json={"clientSecret": intent["clientSecret"], "cardNumber": "4242424242424242"},
    )
    assert r.status_code == 409 and r.json()["code"] == "PAYMENT_CANCELED"
    page = await root.get(f"/demo/checkout/{intent['paymentIntentId']}")
    assert page.status_code == 410


async def test_checkout_page_and_form_post(dt: httpx.AsyncClient, root: httpx.AsyncClient) -> None:
    cart_id, intent = await paid_cart(dt)
    cart = await get_cart(dt, cart_id)
    page = await root.get(cart["checkoutUrl"].removeprefix("http://demo"))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert cart["orderTotalWithServiceFeeFormatted"] in html
    assert "Caffè Latte" in html
    # The secret travels in the form body, never in a URL.
    assert f'name="clientSecret" value="{intent["clientSecret"]}"' in html
    assert 'action="/demo/processor/confirm"' in html
    declined = await root.post(
        "/demo/processor/confirm",
        data={"clientSecret": intent["clientSecret"], "cardNumber": "4000 0000 0000 0002"},
    )
    assert declined.status_code == 402 and "declined" in declined.text
    assert f'href="/demo/checkout/{intent["paymentIntentId"]}"' in declined.text
    paid = await root.post(
        "/demo/processor/confirm",
        data={"clientSecret": intent["clientSecret"], "cardNumber": "4242 4242 4242 4242"},
    )
    assert paid.status_code == 200 and "A001" in paid.text
    assert "A001" in (await root.get(f"/demo/checkout/{intent['paymentIntentId']}")).text
    assert (await root.get("/demo/checkout/pi_nope")).status_code == 404


async def test_checkout_page_escapes_text(
    dt: httpx.AsyncClient, root: httpx.AsyncClient, backend: Backend
) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cookie")
    with backend.store.write() as conn:  # a product name with markup, as a hostile menu could have
        cart = backend.store.get_cart(conn, cart_id)
        assert cart is not None
        cart["items"][0]["name"] = "<script>alert(1)</script>"
        backend.store.put_cart(conn, cart, 0.0)
    intent = (await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")).json()
    html = (await root.get(f"/demo/checkout/{intent['paymentIntentId']}")).text
    assert "<script>" not in html and "&lt;script&gt;" in html


async def test_public_base_url_sets_the_checkout_url(clock: Clock) -> None:
    from kiosk.demo import create_app
    from kiosk.demo.data import DOWNTOWN

    from .support import make_client

    app = create_app(clock=clock, public_base_url="https://kiosk.example.test/")
    async with make_client(app, DOWNTOWN.api_key) as c:
        cart_id, intent = await paid_cart(c)
        cart = await get_cart(c, cart_id)
    assert (
        cart["checkoutUrl"]
        == f"https://kiosk.example.test/demo/checkout/{intent['paymentIntentId']}"
    )
