"""Each contract row under the retry rules, through the client: which rows are never sent twice,
which are retried like reads, 429 on every write, a retried DELETE. The rules themselves (waits,
429s, deadlines, the rate budget, keyed writes) are tested on the sender alone: test_sender.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import (
    AmbiguousWriteError,
    APIConnectionError,
    DeliveryAddress,
    NotFoundError,
    ServerError,
    StorefrontClient,
)

from .conftest import ClientFactory, FakeClock, Server, ok, spec_cart

Call = Callable[[StorefrontClient], Awaitable[Any]]

# Every write that is not idempotent: none may be repeated once it may have reached the server.
WRITES: dict[str, Call] = {
    "ordering_session": lambda c: c.start_ordering_session("loc_1", "pickup"),
    "create_cart": lambda c: c.create_or_resume_cart("loc_1"),
    "add_item": lambda c: c.add_item("loc_1", "cart_1", "prod_1", 1),
    "item_quantity": lambda c: c.set_item_quantity("loc_1", "cart_1", "item_1", 3),
    "order_time": lambda c: c.set_order_time("loc_1", "cart_1", "ASAP", "2026-08-10", "12:00"),
    "customer": lambda c: c.update_customer("loc_1", "cart_1", "Ada", "a@b.test"),
    "tip": lambda c: c.set_tip("loc_1", "cart_1", percentage="18"),
    "delivery": lambda c: c.set_delivery(
        "loc_1",
        "cart_1",
        DeliveryAddress(street="s", city="c", state="st", zip_code="z", country="US"),
    ),
    "table": lambda c: c.set_table("loc_1", "cart_1", "4"),
    "room": lambda c: c.set_room("loc_1", "cart_1", "Doe", "204"),
    "apply_discount": lambda c: c.apply_discount("loc_1", "cart_1", "SAVE"),
    "payment_intent": lambda c: c.create_payment_intent("loc_1", "cart_1"),
    "demo_confirm": lambda c: c.confirm_demo_payment(SecretStr("pi_x_secret_y"), "4242"),
    # A payment is never sent twice, a test one neither (docs/api.md, "A test payment").
    "test_payment": lambda c: c.pay_test_order("https://pay.example.test/h/1"),
}

# A reply every write above accepts.
WRITE_REPLY = {"cartId": "cart_1", "cart": spec_cart(), "clientSecret": "pi_x_secret_y"}

# Failures after which a write's outcome is unknown.
AMBIGUOUS = [httpx.ReadTimeout, httpx.WriteTimeout, httpx.RemoteProtocolError, httpx.ReadError]
# Failures that certainly happened before the request left.
NOT_SENT = [httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout]


def test_the_write_list_is_every_non_idempotent_row() -> None:
    from kiosk.api import ENDPOINTS

    assert set(WRITES) == {e.name for e in ENDPOINTS.values() if not e.idempotent}


# ---------------------------------------------------------------- reads


# ---------------------------------------------------------------- writes: never twice


@pytest.mark.parametrize("failure", AMBIGUOUS)
@pytest.mark.parametrize("name", sorted(WRITES))
async def test_write_is_not_retried_after_it_may_have_been_sent(
    client: StorefrontClient, server: Server, clock: FakeClock, name: str, failure: type[Exception]
) -> None:
    server.reply(failure, ok(WRITE_REPLY))
    with pytest.raises(AmbiguousWriteError) as info:
        await WRITES[name](client)
    assert len(server.requests) == 1, "an ambiguous write must never be sent twice"
    assert clock.sleeps == []
    assert "check your order" in info.value.message
    assert isinstance(info.value.cause, APIConnectionError)
    assert isinstance(info.value.__cause__, failure)
    assert info.value.endpoint == name
    assert client.last_error is info.value


@pytest.mark.parametrize("status", [500, 502, 503, 504])
@pytest.mark.parametrize("name", ["add_item", "payment_intent", "apply_discount"])
async def test_write_5xx_is_ambiguous(
    client: StorefrontClient, server: Server, name: str, status: int
) -> None:
    server.reply(
        httpx.Response(status, json={"success": False, "code": "GENERIC_ERROR", "message": "x"}),
        ok(WRITE_REPLY),
    )
    with pytest.raises(AmbiguousWriteError) as info:
        await WRITES[name](client)
    assert len(server.requests) == 1
    assert info.value.status == status
    assert isinstance(info.value.cause, ServerError)


@pytest.mark.parametrize("failure", NOT_SENT)
@pytest.mark.parametrize("name", sorted(WRITES))
async def test_write_is_retried_when_it_never_left(
    client: StorefrontClient, server: Server, clock: FakeClock, name: str, failure: type[Exception]
) -> None:
    server.reply(failure, ok(WRITE_REPLY))
    await WRITES[name](client)
    assert len(server.requests) == 2
    assert server.requests[0].content == server.requests[1].content
    assert clock.sleeps == [0.5]


async def test_add_item_after_a_read_timeout_adds_nothing_twice(
    client: StorefrontClient, server: Server
) -> None:
    """The story the rule exists for: the server did add the item, the reply was lost."""
    added: list[bytes] = []

    def add_then_drop(request: httpx.Request) -> httpx.Response:
        added.append(request.content)
        raise httpx.ReadTimeout("reply lost", request=request)

    server.reply(add_then_drop)
    with pytest.raises(AmbiguousWriteError):
        await client.add_item("loc_1", "cart_1", "prod_1", 1)
    assert len(added) == 1
    # The caller re-reads the cart, as the error says.
    server.reply(ok(spec_cart()))
    cart = await client.get_cart("loc_1", "cart_1")
    assert cart.items[0].product_id == "prod_1"


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("delete_cart", lambda c: c.delete_cart("loc_1", "cart_1")),
        ("remove_discount", lambda c: c.remove_discount("loc_1", "cart_1")),
        ("validate", lambda c: c.validate_cart("loc_1", "cart_1")),
    ],
)
async def test_idempotent_writes_are_retried_like_reads(
    client: StorefrontClient, server: Server, name: str, call: Call
) -> None:
    server.reply(httpx.ReadTimeout, httpx.Response(502), ok({**spec_cart(), "valid": True}))
    await call(client)
    assert len(server.requests) == 3
    assert client.stats.by_endpoint[name] == 3


# ---------------------------------------------------------------- 429


@pytest.mark.parametrize("name", sorted(WRITES))
async def test_429_on_a_write_is_retried(
    client: StorefrontClient, server: Server, clock: FakeClock, name: str
) -> None:
    server.reply(httpx.Response(429, json={"retryAfter": 2}), ok(WRITE_REPLY))
    await WRITES[name](client)
    assert len(server.requests) == 2 and clock.sleeps == [2.0]


# ---------------------------------------------------------------- deadlines and timeouts


# ---------------------------------------------------------------- rate budget


def test_rate_limit_is_configurable(make_client: ClientFactory) -> None:
    assert make_client(rate_limit=50).rate_budget.limit == 50


async def test_delete_retried_after_it_may_have_landed_counts_404_as_done(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.ReadTimeout, httpx.Response(404, json={"code": "NOT_FOUND"}))
    assert await client.delete_cart("loc_1", "cart_1") is None
    assert len(server.requests) == 2


async def test_delete_after_a_connect_error_still_reports_404(
    client: StorefrontClient, server: Server
) -> None:
    # The first attempt never left, so a 404 means the cart really was not there.
    server.reply(httpx.ConnectError, httpx.Response(404, json={"code": "NOT_FOUND"}))
    with pytest.raises(NotFoundError):
        await client.delete_cart("loc_1", "cart_1")


async def test_delete_404_on_the_first_attempt_is_raised(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.Response(404, json={"code": "NOT_FOUND"}))
    with pytest.raises(NotFoundError):
        await client.delete_cart("loc_1", "cart_1")
