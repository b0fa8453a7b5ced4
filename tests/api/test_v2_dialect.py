"""The 2.0 dialect (kiosk.api.v2) against a 2.0 server: the demo backend's /api/v1/storefront,
in-process. Every request the client sends is checked against the vendor's document (path and
method exist, required headers present in their documented form, body valid against the request
schema, closed objects); the order goes through; secrets stay out of reprs and errors; a lost
answer or a 5xx never doubles a line.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api.endpoints import V2_ENDPOINTS, V2_UNUSED
from kiosk.api.errors import ConflictError, InvalidRequestError, RateLimitedError
from kiosk.api.models import DeliveryAddress, FulfillmentMethod, Selection
from kiosk.api.money import parse_money
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN, WESTSIDE
from tests.demo.support import WED_AFTERNOON
from tests.demo.vendor_schema import DOCUMENT, document, errors_of

BASE = "http://demo/api/v1/storefront"
DT = DOWNTOWN.id


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to the app and keeps each one, for the conformance checks."""

    def __init__(self, app: Any) -> None:
        self.inner = httpx.ASGITransport(app=app)
        self.sent: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return await self.inner.handle_async_request(request)


def operation(method: str, path: str) -> tuple[str, dict[str, Any]]:
    relative = path.removeprefix("/api/v1/storefront")
    for template, ops in document()["paths"].items():
        pattern = "^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, relative) and method.lower() in ops:
            return template, ops[method.lower()]
    raise AssertionError(f"{method} {path}: no such operation in the vendor's document")


def conformance_problems(request: httpx.Request) -> list[str]:
    if not request.url.path.startswith("/api/v1/storefront"):
        return []  # the demo processor, outside the API
    template, op = operation(request.method, request.url.path)
    problems = []
    for param in op.get("parameters", []):
        param = resolve(param)
        if param.get("in") != "header":
            continue
        value = request.headers.get(param["name"])
        if value is None:
            if param.get("required"):
                problems.append(f"{template}: missing header {param['name']}")
            continue
        problems += [f"{template} {param['name']}: {e}" for e in errors_of(param["schema"], value)]
    if "x-api-key" in request.headers:
        problems.append(f"{template}: 2.0 has no API key")
    body_schema = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    content = request.content
    if content:
        if "schema" not in body_schema:
            problems.append(f"{template}: sends a body the operation does not take")
        else:
            problems += [
                f"{template} body: {e}"
                for e in errors_of(body_schema["schema"], json.loads(content))
            ]
    elif op.get("requestBody", {}).get("required"):
        problems.append(f"{template}: the body is required")
    return problems


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not ref:
        return node
    target: Any = document()
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return resolve(target)


@pytest.fixture
async def served() -> AsyncIterator[tuple[StorefrontClientV2, Recorder, Any]]:
    app = create_app(clock=lambda: WED_AFTERNOON)
    recorder = Recorder(app)
    client = StorefrontClientV2(BASE, transport=recorder)
    async with client:
        yield client, recorder, app
    assert [p for r in recorder.sent for p in conformance_problems(r)] == []
    # Never a 428: every write that needs a revision named one.
    assert all("if-match" in r.headers for r in recorder.sent if needs_match(r)), "428 risk"


def needs_match(request: httpx.Request) -> bool:
    if not request.url.path.startswith("/api/v1/storefront"):
        return False
    _, op = operation(request.method, request.url.path)
    return any(
        resolve(p).get("name") == "If-Match" and resolve(p).get("required")
        for p in op.get("parameters", [])
    )


async def test_a_whole_order_over_2_0(served: tuple[StorefrontClientV2, Recorder, Any]) -> None:
    client, recorder, _ = served
    location = await client.get_location(DT)
    menus = await client.get_menus(DT)
    assert location.id == DT and menus.menus
    session = await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)
    cart_id = session.cart_id
    assert session.ok and re.fullmatch(r"[0-9a-f]{24}", cart_id)
    cart = await client.add_item(
        DT,
        cart_id,
        "prd_latte",
        1,
        [
            Selection.model_validate(
                {
                    "groupId": "grp_drink_size",
                    "selectedOptions": [{"optionId": "opt_size_large", "quantity": 1}],
                }
            ),
            Selection.model_validate(
                {
                    "groupId": "grp_milk",
                    "selectedOptions": [{"optionId": "opt_milk_oat", "quantity": 1}],
                }
            ),
        ],
    )
    [line] = cart.items
    assert line.price == 645  # "6.45" in major units -> 645 minor
    cart = await client.add_item(DT, cart_id, "prd_cookie", 1)
    cookie = next(i for i in cart.items if i.product_id == "prd_cookie")
    cart = await client.set_item_quantity(DT, cart_id, cookie.id, 2)
    assert {i.product_id: i.quantity for i in cart.items} == {"prd_latte": 1, "prd_cookie": 2}
    await client.set_tip(DT, cart_id, percentage="18")
    await client.apply_discount(DT, cart_id, "SAVE10")
    await client.set_order_time(DT, cart_id, "ASAP", "", "")
    await client.update_customer(DT, cart_id, "Test order", "test@example.com")
    assert (await client.validate_cart(DT, cart_id)).valid
    intent = await client.create_payment_intent(DT, cart_id)
    assert intent.checkout_url and "/demo/checkout/" in intent.checkout_url
    locked = await client.get_cart(DT, cart_id)
    assert locked.is_locked and locked.checkout_url == intent.checkout_url
    await client.confirm_demo_payment(intent.client_secret, "4242 4242 4242 4242")
    paid = await client.get_cart(DT, cart_id)
    assert paid.status == "COMPLETED" and paid.fulfillment_identifier == "A001"
    # No key was ever sent; the token went only where a cart is.
    assert all("x-api-key" not in r.headers for r in recorder.sent)
    catalog = [r for r in recorder.sent if "/carts/" not in r.url.path]
    assert all("x-cart-token" not in r.headers for r in catalog)


async def test_the_cart_token_is_a_secret(served: tuple[StorefrontClientV2, Recorder, Any]) -> None:
    client, recorder, _ = served
    cart_id = (await client.start_ordering_session(DT, "pickup")).cart_id
    token = client.cart_access(cart_id)
    assert isinstance(token, SecretStr) and token.get_secret_value()
    assert token.get_secret_value() not in repr(client) + str(token) + repr(token)
    # A second client restored from the resume file reaches the same cart.
    other = StorefrontClientV2(BASE, transport=recorder)
    async with other:
        other.restore_cart_access(cart_id, token)
        assert (await other.get_cart(DT, cart_id)).id == cart_id


async def test_fulfillment_the_2_0_way(served: tuple[StorefrontClientV2, Recorder, Any]) -> None:
    client, _, _ = served
    cart_id = (await client.start_ordering_session(WESTSIDE.id, "table_service")).cart_id
    with pytest.raises(InvalidRequestError):
        await client.set_table(WESTSIDE.id, cart_id, "12A")  # refused before it is sent
    cart = await client.set_table(WESTSIDE.id, cart_id, "12")
    assert cart.table_service_info is not None and cart.table_service_info.table_number == "12"
    delivery = (await client.start_ordering_session(DT, "delivery")).cart_id
    address = DeliveryAddress.model_validate(
        {
            "street": "1 Main St",
            "city": "New York",
            "state": "NY",
            "zipCode": "10038",
            "country": "US",
            "lat": 40.71,
            "lng": -74.0,
        }
    )
    cart = await client.set_delivery(DT, delivery, address)
    assert cart.fulfilment_method == FulfillmentMethod.DELIVERY


async def test_a_stale_revision_rereads_and_says_so(
    served: tuple[StorefrontClientV2, Recorder, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="kiosk.api")
    client, recorder, _ = served
    cart_id = (await client.start_ordering_session(DT, "pickup")).cart_id
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    # Another device changes the cart behind this client's back.
    other = StorefrontClientV2(BASE, transport=recorder)
    async with other:
        token = client.cart_access(cart_id)
        assert token is not None
        other.restore_cart_access(cart_id, token)
        await other.get_cart(DT, cart_id)
        await other.add_item(DT, cart_id, "prd_brownie", 1)
    with pytest.raises(ConflictError) as conflict:
        await client.add_item(DT, cart_id, "prd_cookie", 1)
    assert conflict.value.code == "CART_CONFLICT" and conflict.value.request_id
    # The requestId goes to the log (what the service's support asks for).
    assert f"requestId {conflict.value.request_id}" in caplog.text
    # Re-read, not re-applied: the next write names the new revision and goes through once.
    cart = await client.add_item(DT, cart_id, "prd_cookie", 1)
    assert {i.product_id: i.quantity for i in cart.items} == {"prd_cookie": 2, "prd_brownie": 1}


async def test_lost_answers_and_5xx_never_double_a_line() -> None:
    app = create_app(clock=lambda: WED_AFTERNOON, rate_limit=None)
    backend = app.state.backend
    client = StorefrontClientV2(BASE, transport=httpx.ASGITransport(app=app), sleep=_no_sleep)
    async with client:
        cart_id = (await client.start_ordering_session(DT, "pickup")).cart_id
        backend.faults.update({"drop_after_commit_rate": 0.3, "error_rate": 0.1, "seed": 7})
        wanted: dict[str, int] = {}
        for product in ["prd_cookie", "prd_brownie", "prd_espresso"] * 5:
            await client.add_item(DT, cart_id, product, 1)
            wanted[product] = wanted.get(product, 0) + 1
        backend.faults.reset()
        cart = await client.get_cart(DT, cart_id)
    assert {i.product_id: i.quantity for i in cart.items} == wanted
    assert (
        backend.stats.as_dict()["byStatus"].get("500", 0)
        + backend.stats.as_dict()["byStatus"].get(500, 0)
        > 0
    )


async def _no_sleep(seconds: float) -> None:
    return None


def test_two_zero_amounts_are_major_units() -> None:
    from kiosk.api.money import MAJOR_UNITS

    assert parse_money("12") == 12  # legacy: no dot = minor units
    marker = MAJOR_UNITS.set(True)
    try:
        assert parse_money("12") == 1200 and parse_money("5.50") == 550
    finally:
        MAJOR_UNITS.reset(marker)


def test_every_manifest_operation_is_used_or_listed_unused() -> None:
    manifest = json.loads((DOCUMENT.parent / "storefront_operations.json").read_text())
    names = {
        f"{o['method']} " + re.sub(r":(\w+)", r"{\1}", o["path"].removeprefix("/api/v1/storefront"))
        for o in manifest["operations"]
    }
    used = {
        f"{e.method} "
        + re.sub(r"\{(\w+)\}", lambda m: "{" + _camel(m.group(1)) + "}", e.path_template)
        for e in V2_ENDPOINTS.values()
        if not e.outside_base
    }
    used = {
        u.replace("{locationId}", "{locationSlugOrId}") if u == "GET /locations/{locationId}" else u
        for u in used
    }
    assert names - used - set(V2_UNUSED) == set()
    assert set(V2_UNUSED) <= names and not (set(V2_UNUSED) & used)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p.title() for p in rest)


async def test_the_2_0_budget_is_counted_by_the_kiosk_and_a_bare_429_waits_it_out() -> None:
    """2.0 sends a bare 429 RATE_LIMITED with no X-RateLimit-* or Retry-After: the kiosk counts
    its own requests in the 10-minute window and, refused, waits until the oldest one leaves it."""
    now = [1_000_000.0]
    answers = iter([200, 200, 200, 429])

    def handle(request: httpx.Request) -> httpx.Response:
        status = next(answers)
        if status == 429:
            body = {"code": "RATE_LIMITED", "message": "Too many requests", "requestId": "r1"}
            return httpx.Response(429, json=body)
        return httpx.Response(200, json={"id": DT, "restaurantDisplayName": "D"})

    client = StorefrontClientV2(
        BASE,
        transport=httpx.MockTransport(handle),
        clock=lambda: now[0],
        rate_limit=3,
        max_wait=0,
        location_ttl=0,
    )
    async with client:
        budget = client.rate_budget
        assert budget.remaining == 3 and budget.seconds_until_reset() is None
        for _ in range(3):  # at +0, +100 and +200 s
            await client.get_location(DT)
            client.invalidate()
            now[0] += 100
        assert budget.remaining == 0  # three sent in the window, as counted here
        assert budget.seconds_until_reset() == pytest.approx(300.0)
        now[0] += 301  # +601 s: the first request has left the window
        assert budget.remaining == 1
        with pytest.raises(RateLimitedError) as refused:
            await client.get_location(DT)
        # The server says the window is spent: wait until the oldest request still counted
        # (sent at +100 s) leaves it, at +700 s.
        assert refused.value.retry_after == pytest.approx(99.0)
        assert budget.remaining == 0 and budget.seconds_until_reset() == pytest.approx(99.0)
        now[0] += 100
        assert budget.remaining is not None and budget.remaining > 0
