"""Journey 8 in the client: every 2.0 request body is held to the vendor's own schema before it is
sent (kiosk.api.request_schema), the rules read from the vendor's document, never re-typed; a
refusal names the field. A server's field errors (`details.fields`) are read whatever their shape.
The retry cap bounds 429s too; a resend that meets IDEMPOTENCY_IN_PROGRESS is in doubt, not
failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api import RetryPolicy, StorefrontClient
from kiosk.api.errors import (
    AmbiguousWriteError,
    InvalidRequestError,
    RateLimitedError,
    error_from_response,
)
from kiosk.api.models import DeliveryAddress
from kiosk.api.request_schema import SCHEMAS_PATH, extract, kiosk_operations, main
from kiosk.api.v2 import StorefrontClientV2

VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor-v2"
BASE = "http://vendor.test/api/v1/storefront"
LOC = "64b0c0ffee0000000000000a"
CART = "64b0c0ffee0000000000000b"


def test_the_packaged_schemas_are_the_vendors_regenerated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What the package carries is exactly what extracting the vendor's document gives (run the
    module's command after the document changes), under the vendor's licence."""
    assert main([str(VENDOR / "openapi-facts.json")]) == 0
    regenerated = capsys.readouterr().out
    assert regenerated == SCHEMAS_PATH.read_text(encoding="utf-8")
    licence = SCHEMAS_PATH.with_name("LICENSE").read_text(encoding="utf-8")
    assert licence == (VENDOR / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence


def test_every_body_the_kiosk_sends_has_the_vendors_schema() -> None:
    document = json.loads((VENDOR / "openapi-facts.json").read_text(encoding="utf-8"))
    extracted = extract(document, kiosk_operations())
    for key in kiosk_operations():
        method, path = key.split(" ", 1)
        declared = document["paths"][path][method.lower()].get("requestBody")
        assert (key in extracted["operations"]) == (declared is not None), key
    # The discount code's rule is the document's, not ours.
    code = extracted["operations"]["POST /locations/{locationId}/carts/{cartId}/discount"]
    assert code["properties"]["code"] == {
        "type": "string",
        "minLength": 6,
        "maxLength": 24,
        "pattern": "^[A-Za-z0-9]+$",
    }


class Counting:
    def __init__(self) -> None:
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        # Refused (not retried): whether it was sent is the point.
        body = {"code": "NOT_FOUND", "message": "x", "requestId": "r" * 8}
        return httpx.Response(404, json=body)


def _client(transport: Any) -> StorefrontClientV2:
    client = StorefrontClientV2(BASE, transport=httpx.MockTransport(transport))
    client._location_ids[LOC] = LOC  # known: no location read first
    return client


ADDRESS = DeliveryAddress(
    street="10 Pitt St",
    city="Sydney",
    state="NSW",
    zipCode="2000",
    country="AU",
    lat=-33.8,
    lng=151.2,
)

REFUSED = [
    ("apply_discount", ("ab-1",), "code", "minLength"),
    ("apply_discount", ("ABCDEF-1",), "code", "pattern"),
    ("apply_discount", ("A" * 25,), "code", "maxLength"),
    ("update_customer", ("Zoe", "zoe..t@example.com"), "emailAddress", "pattern"),
    ("update_customer", ("Zoe", ".zoe@example.com"), "emailAddress", "pattern"),
    ("update_customer", ("Zoe", "zoe@exa_mple.com"), "emailAddress", "pattern"),
    ("update_customer", ("Zoe", "z" * 250 + "@example.com"), "emailAddress", "maxLength"),
    ("update_customer", ("", "zoe@example.com"), "customerName", "minLength"),
    ("update_customer", ("Z" * 101, ""), "customerName", "maxLength"),
    ("set_table", ("7a",), "tableNumber", "pattern"),
    ("set_table", ("",), "tableNumber", "pattern"),
    ("set_room", ("Smith", "2" * 21), "roomNumber", "maxLength"),
    ("set_room", ("Smith", "12B"), "roomNumber", "pattern"),
    ("set_room", ("", "214"), "lastName", "minLength"),
    ("set_item_quantity", ("line1", 100), "quantity", "maximum"),
    ("add_item", ("prd_1", 100), "quantity", "maximum"),
    ("add_item", ("prd_1", 1, None, "x" * 501), "specialInstructions", "maxLength"),
    ("add_item", ("", 1), "productId", "minLength"),
]


@pytest.mark.parametrize(("method", "args", "field", "rule"), REFUSED)
async def test_a_body_that_breaks_the_schema_is_refused_before_any_request(
    method: str, args: tuple[Any, ...], field: str, rule: str
) -> None:
    server = Counting()
    async with _client(server) as client:
        with pytest.raises(InvalidRequestError) as refused:
            await getattr(client, method)(LOC, CART, *args)
    assert server.sent == []
    assert refused.value.field == field
    assert refused.value.details["rule"] == rule
    assert refused.value.code == "VALIDATION_ERROR"


async def test_a_delivery_address_without_its_coordinates_is_refused_at_lat() -> None:
    server = Counting()
    async with _client(server) as client:
        with pytest.raises(InvalidRequestError) as refused:
            await client.set_delivery(LOC, CART, ADDRESS.model_copy(update={"lat": None}))
    assert server.sent == [] and refused.value.field == "lat"


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("apply_discount", ("SPRING24",)),
        ("update_customer", ("Zoe", "zoe.t@example.com")),
        ("update_customer", ("Zoe", "")),  # 2.0 needs a name only
        ("update_customer", ("Zoé O'Brien", "o'brien+kiosk@mail.example.co.uk")),
        ("set_table", ("7",)),
        ("set_table", (" 12 ",)),
        ("set_room", ("Smith", "214")),
        ("set_item_quantity", ("line1", 0)),
        ("add_item", ("prd_1", 99, None, "x" * 500)),
        ("set_delivery", (ADDRESS,)),
    ],
)
async def test_a_body_within_the_rules_goes_out(method: str, args: tuple[Any, ...]) -> None:
    server = Counting()
    async with _client(server) as client:
        with pytest.raises(Exception):  # noqa: B017 - the fake server answers 404: sent is the point
            await getattr(client, method)(LOC, CART, *args)
    assert len(server.sent) >= 1


async def test_legacy_v1_keeps_its_own_rules() -> None:
    """v1's spec types the code as a string: the vendor's 2.0 rule does not apply there."""
    sent: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"success": True})

    client = StorefrontClient(
        "http://legacy.test/api/v1", "sk_test_1234", transport=httpx.MockTransport(handle)
    )
    async with client:
        await client.apply_discount("loc", "cart", "ab-1")
        assert client.email_required
    assert json.loads(sent[0].content)["code"] == "ab-1"


@pytest.mark.parametrize(
    ("details", "field", "fields"),
    [
        ({"fields": {"emailAddress": "Invalid email"}}, "emailAddress", "emailAddress"),
        ({"fields": [{"path": ["code"], "message": "Too short"}]}, "code", "code"),
        ({"fields": [{"field": "body.tableNumber"}]}, "tableNumber", "tableNumber"),
        ({"fields": ["customerName", "emailAddress"]}, "customerName", "customerName,emailAddress"),
        ({"problems": ["emailAddress: 'zoe..t' does not match '^x$'"]}, "emailAddress", None),
        ({"problems": ["(root): 'customerName' is a required property"]}, "customerName", None),
        ({"field": "email"}, "email", None),
        ({"fields": "nonsense"}, None, "nonsense"),  # a scalar kept as it came, naming nothing
    ],
)
def test_the_servers_field_errors_are_read_in_every_shape(
    details: dict[str, Any], field: str | None, fields: str | None
) -> None:
    body = {
        "code": "VALIDATION_ERROR",
        "message": "The request body does not match the contract [see details.fields].",
        "requestId": "req-12345678",
        "details": details,
    }
    error = error_from_response(400, json.dumps(body).encode())
    assert isinstance(error, InvalidRequestError)
    assert error.field == field
    assert error.details.get("fields") == fields


def test_2_0_needs_a_name_only() -> None:
    assert StorefrontClientV2(BASE).email_required is False


# ----------------------------------------------------------------------------- 429s and doubt


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _refusing(count: list[int], retry_after: float | None) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        count[0] += 1
        body: dict[str, Any] = {
            "code": "RATE_LIMITED",
            "message": "Slow down",
            "requestId": "r" * 8,
        }
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return httpx.Response(429, json=body, headers=headers)

    return handle


@pytest.mark.parametrize("max_wait", [1.0, 30.0])
async def test_fifteen_429s_are_bounded_by_the_retry_cap_on_a_keyed_write(max_wait: float) -> None:
    """Before: a keyed write slept through every 429 (`retry 15/3`, 14 s of silence). Now the
    client sleeps at most `max_wait` in all and at most the policy's retries, then raises the
    wait for the caller's countdown."""
    clock, count = Clock(), [0]
    client = StorefrontClientV2(
        BASE,
        transport=httpx.MockTransport(_refusing(count, 1)),
        clock=clock.time,
        sleep=clock.sleep,
        max_wait=max_wait,
        retry=RetryPolicy(max_attempts=4, random=lambda: 0.0),
    )
    client._location_ids[LOC] = LOC
    async with client:
        with pytest.raises(RateLimitedError) as refused:
            await client.add_item(LOC, CART, "prd_1", 1)
    assert refused.value.retry_after == 1
    assert sum(clock.sleeps) < max_wait
    assert count[0] <= 4
    # A second is already the caller's to count down: not slept here at all.
    assert count[0] == (1 if max_wait == 1.0 else 4)


async def test_the_log_says_retries_of_their_cap(caplog: pytest.LogCaptureFixture) -> None:
    clock, count = Clock(), [0]
    client = StorefrontClientV2(
        BASE,
        transport=httpx.MockTransport(_refusing(count, 0.5)),
        clock=clock.time,
        sleep=clock.sleep,
        max_wait=30,
        retry=RetryPolicy(max_attempts=4, random=lambda: 0.0),
    )
    client._location_ids[LOC] = LOC
    caplog.set_level("INFO", "kiosk.api")
    async with client:
        with pytest.raises(RateLimitedError):
            await client.add_item(LOC, CART, "prd_1", 1)
    said = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert [s.split("retry ")[1].split(" ")[0] for s in said] == ["1/3", "2/3", "3/3"]


async def test_a_resend_that_meets_its_twin_still_running_is_in_doubt_not_failed() -> None:
    """The first send timed out (the server stalls); the resend with the same key answers 409
    IDEMPOTENCY_IN_PROGRESS: the write may yet land, so it is AmbiguousWriteError (the store
    settles it by reading the cart), never a refusal shown as such."""
    keys: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["idempotency-key"])
        if len(keys) == 1:
            raise httpx.ReadTimeout("stalled", request=request)
        body = {
            "code": "IDEMPOTENCY_IN_PROGRESS",
            "message": "A request with this Idempotency-Key is still running",
            "requestId": "r" * 8,
        }
        return httpx.Response(409, json=body)

    clock = Clock()
    client = StorefrontClientV2(
        BASE,
        transport=httpx.MockTransport(handle),
        clock=clock.time,
        sleep=clock.sleep,
        retry=RetryPolicy(max_attempts=4, random=lambda: 0.0),
    )
    client._location_ids[LOC] = LOC
    async with client:
        with pytest.raises(AmbiguousWriteError) as doubt:
            await client.add_item(LOC, CART, "prd_1", 1)
    assert len(keys) == 2 and keys[0] == keys[1]  # the same write, resent once
    assert doubt.value.code == "IDEMPOTENCY_IN_PROGRESS"


async def test_a_bare_2_0_429_while_our_count_has_room_waits_a_second_not_the_window() -> None:
    """The strict server's burst (a bare 429 RATE_LIMITED, no Retry-After): with the kiosk's
    own count far from the limit, the refusal is a burst, so the wait is a second (counted down
    by the caller), not the ten minutes until the window's oldest request leaves it."""
    clock, count = Clock(), [0]
    client = StorefrontClientV2(
        BASE,
        transport=httpx.MockTransport(_refusing(count, None)),
        clock=clock.time,
        sleep=clock.sleep,
        max_wait=1.0,
        rate_limit=200,
    )
    client._location_ids[LOC] = LOC
    async with client:
        with pytest.raises(RateLimitedError) as refused:
            await client.add_item(LOC, CART, "prd_1", 1)
    assert refused.value.retry_after == 1.0
    assert clock.sleeps == []
