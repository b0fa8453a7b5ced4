"""Retries, exact waits, the no-double-write rule, 429 handling, deadlines and the rate budget."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import (
    AmbiguousWriteError,
    APIConnectionError,
    APITimeoutError,
    Cart,
    DeliveryAddress,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    ServerError,
    StorefrontClient,
)

from .conftest import EPOCH, ClientFactory, FakeClock, Server, ok, spec_cart

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


async def test_read_retries_connection_errors_with_exact_backoff(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.ConnectError, httpx.ReadTimeout, ok({"id": "loc_1"}))
    location = await client.get_location("loc_1")
    assert location.id == "loc_1"
    assert len(server.requests) == 3
    assert clock.sleeps == [0.5, 1.0]
    assert client.stats.requests == 3 and client.stats.retries == 2
    assert client.last_success_at == EPOCH + 1.5


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_read_retries_5xx(client: StorefrontClient, server: Server, status: int) -> None:
    server.reply(httpx.Response(status), ok(spec_cart()))
    assert isinstance(await client.get_cart("loc_1", "cart_1"), Cart)
    assert len(server.requests) == 2


@pytest.mark.parametrize("failure", [*AMBIGUOUS, *NOT_SENT])
async def test_read_gives_up_after_max_attempts(
    client: StorefrontClient, server: Server, clock: FakeClock, failure: type[Exception]
) -> None:
    server.default = failure
    expected = (
        APITimeoutError if issubclass(failure, httpx.TimeoutException) else APIConnectionError
    )
    with pytest.raises(expected) as info:
        await client.get_cart("loc_1", "cart_1")
    assert type(info.value) is expected
    assert info.value.details["cause"] == failure.__name__
    assert len(server.requests) == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]


async def test_backoff_is_capped(make_client: ClientFactory, server: Server, clock: FakeClock):
    client = make_client(
        retry=RetryPolicy(max_attempts=6, base_delay=1.0, max_delay=3.0, random=lambda: 0.0),
        deadline=100,
    )
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await client.get_location("loc_1")
    assert clock.sleeps == [1.0, 2.0, 3.0, 3.0, 3.0]


async def test_jitter_is_injectable(make_client: ClientFactory, server: Server, clock: FakeClock):
    client = make_client(retry=RetryPolicy(jitter=0.25, random=lambda: 1.0))
    server.reply(httpx.ConnectError, httpx.ConnectError, ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [0.375, 0.75]


async def test_seeded_jitter_gives_reproducible_waits(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(retry=RetryPolicy(random=random.Random(7).random))
    server.reply(httpx.ConnectError, httpx.ConnectError, httpx.ConnectError, ok({"id": "l"}))
    await client.get_location("l")
    rng = random.Random(7)
    expected = [d * (1 - 0.25 * rng.random()) for d in (0.5, 1.0, 2.0)]
    assert clock.sleeps == pytest.approx(expected, abs=1e-12)
    assert all(0.75 * d <= w <= d for w, d in zip(clock.sleeps, (0.5, 1.0, 2.0), strict=True))


async def test_a_4xx_is_not_retried(client: StorefrontClient, server: Server, clock: FakeClock):
    server.default = httpx.Response(404, json={"success": False, "code": "NOT_FOUND"})
    with pytest.raises(Exception, match="find"):
        await client.get_cart("loc_1", "cart_1")
    assert len(server.requests) == 1 and clock.sleeps == []


async def test_configuration_errors_are_not_retried(
    client: StorefrontClient, server: Server
) -> None:
    server.default = httpx.UnsupportedProtocol
    with pytest.raises(APIConnectionError):
        await client.get_location("loc_1")
    assert len(server.requests) == 1


async def test_5xx_retry_after_header_is_honoured_on_reads(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, headers={"Retry-After": "4"}), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [4.0]


async def test_5xx_ignores_the_rate_limit_reset_header(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    # X-RateLimit-Reset comes on every response; on a 5xx it is not a wait the server asked for, so
    # the read is retried on the backoff schedule instead of being raised as a 10-minute wait.
    reset = {"X-RateLimit-Reset": str(int(EPOCH + 600)), "X-RateLimit-Remaining": "150"}
    server.reply(httpx.Response(500, headers=reset), ok({"id": "l"}))
    await client.get_location("l")
    assert len(server.requests) == 2
    assert len(clock.sleeps) == 1 and clock.sleeps[0] <= 0.5


async def test_5xx_retry_after_beyond_max_wait_is_raised(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, headers={"Retry-After": "300"}))
    with pytest.raises(ServerError) as info:
        await client.get_location("l")
    assert info.value.retry_after == 300 and clock.sleeps == []


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


async def test_429_body_retry_after(client: StorefrontClient, server: Server, clock: FakeClock):
    server.reply(httpx.Response(429, json={"error": "rate_limit_exceeded", "retryAfter": 7}))
    server.reply(ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [7.0]


async def test_429_retry_after_seconds_header(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429, headers={"Retry-After": "3"}), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [3.0]


async def test_429_retry_after_http_date(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    when = formatdate(clock.now + 12, usegmt=True)
    server.reply(httpx.Response(429, headers={"Retry-After": when}), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [12.0]


async def test_429_x_ratelimit_reset(client: StorefrontClient, server: Server, clock: FakeClock):
    reset = str(int(clock.now + 20))
    server.reply(httpx.Response(429, headers={"X-RateLimit-Reset": reset}), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [20.0]


async def test_429_body_wins_over_headers(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(
        httpx.Response(
            429,
            json={"retryAfter": 2},
            headers={"Retry-After": "9", "X-RateLimit-Reset": str(int(clock.now + 30))},
        ),
        ok({"id": "l"}),
    )
    await client.get_location("l")
    assert clock.sleeps == [2.0]


async def test_429_without_a_hint_backs_off(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429), httpx.Response(429), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [0.5, 1.0]


async def test_429_longer_than_max_wait_is_raised_not_slept(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429, json={"retryAfter": 120, "message": "Too many"}))
    with pytest.raises(RateLimitedError) as info:
        await client.get_location("l")
    assert info.value.retry_after == 120
    assert clock.sleeps == [] and len(server.requests) == 1
    assert "busy" in info.value.message


async def test_max_wait_is_configurable(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(max_wait=5)
    server.reply(httpx.Response(429, headers={"Retry-After": "6"}))
    with pytest.raises(RateLimitedError) as info:
        await client.get_location("l")
    assert info.value.retry_after == 6 and clock.sleeps == []


async def test_429_retries_run_out(client: StorefrontClient, server: Server, clock: FakeClock):
    server.default = httpx.Response(429, json={"retryAfter": 1})
    with pytest.raises(RateLimitedError) as info:
        await client.get_location("l")
    assert len(server.requests) == 4 and clock.sleeps == [1.0, 1.0, 1.0]
    assert info.value.retry_after == 1


async def test_429_wait_past_the_deadline_is_raised(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(deadline=30)
    server.default = httpx.Response(429, json={"retryAfter": 20})
    with pytest.raises(RateLimitedError) as info:
        await client.get_location("l")
    assert clock.sleeps == [20.0] and len(server.requests) == 2
    assert info.value.retry_after == 20


@pytest.mark.parametrize("name", sorted(WRITES))
async def test_429_on_a_write_is_retried(
    client: StorefrontClient, server: Server, clock: FakeClock, name: str
) -> None:
    server.reply(httpx.Response(429, json={"retryAfter": 2}), ok(WRITE_REPLY))
    await WRITES[name](client)
    assert len(server.requests) == 2 and clock.sleeps == [2.0]


# ---------------------------------------------------------------- deadlines and timeouts


async def test_overall_deadline_stops_retries(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(deadline=2.0)
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await client.get_location("l")
    # 0.5 + 1.0 fit in 2 s; the next wait (2.0) would end past the deadline.
    assert clock.sleeps == [0.5, 1.0] and len(server.requests) == 3


async def test_per_attempt_timeout_shrinks_to_the_time_left(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(timeout=10.0, deadline=12.0)
    server.reply(httpx.Response(429, json={"retryAfter": 5}), ok({"id": "l"}))
    await client.get_location("l")
    first, second = (r.extensions["timeout"] for r in server.requests)
    assert first["read"] == 10.0 and first["connect"] == 10.0
    assert second["read"] == pytest.approx(7.0)


async def test_a_hung_read_is_cut_by_the_attempt_timeout(
    make_client: ClientFactory, server: Server
) -> None:
    client = make_client(timeout=0.05)

    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        raise AssertionError("not reached")

    server.reply(hang, ok({"id": "l"}))
    assert (await client.get_location("l")).id == "l"
    assert len(server.requests) == 2


async def test_a_hung_write_is_ambiguous(make_client: ClientFactory, server: Server) -> None:
    client = make_client(timeout=0.05)

    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        raise AssertionError("not reached")

    server.reply(hang)
    with pytest.raises(AmbiguousWriteError) as info:
        await client.add_item("loc_1", "cart_1", "prod_1", 1)
    assert isinstance(info.value.cause, APITimeoutError)
    assert len(server.requests) == 1


# ---------------------------------------------------------------- rate budget


async def test_rate_budget_tracks_every_response(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    budget = client.rate_budget
    assert budget.remaining is None and not budget.is_low and budget.limit == 200
    reset = str(int(clock.now + 300))
    server.reply(
        ok({"id": "l"}, headers={"X-RateLimit-Remaining": "150", "X-RateLimit-Reset": reset})
    )
    await client.get_location("l")
    assert budget.remaining == 150 and not budget.is_low
    assert budget.seconds_until_reset() == 300
    server.reply(
        httpx.Response(404, headers={"X-RateLimit-Remaining": "39", "X-RateLimit-Reset": reset})
    )
    with pytest.raises(Exception, match="find"):
        await client.get_cart("l", "c")
    assert budget.remaining == 39 and budget.is_low  # errors count too
    clock.now += 301
    assert budget.remaining == 200 and not budget.is_low  # the window has rolled over
    assert budget.seconds_until_reset() == 0


async def test_rate_budget_reads_a_limit_header_and_a_relative_reset(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(
        ok(
            {"id": "l"},
            headers={
                "X-RateLimit-Limit": "100",
                "X-RateLimit-Remaining": "19",
                "X-RateLimit-Reset": "60",
            },
        )
    )
    await client.get_location("l")
    budget = client.rate_budget
    assert budget.limit == 100 and budget.remaining == 19 and budget.is_low
    assert budget.reset_at == clock.now + 60


async def test_rate_budget_ignores_garbage_headers(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(
        ok({"id": "l"}, headers={"X-RateLimit-Remaining": "lots", "X-RateLimit-Reset": "nan"})
    )
    await client.get_location("l")
    assert client.rate_budget.remaining is None and client.rate_budget.reset_at is None


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


async def test_a_read_404_after_a_timeout_is_still_raised(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.ReadTimeout, httpx.Response(404, json={"code": "NOT_FOUND"}))
    with pytest.raises(NotFoundError):
        await client.get_cart("loc_1", "cart_1")


async def test_5xx_body_retry_after_is_honoured_on_reads(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, json={"error": "down", "retryAfter": 6}), ok({"id": "l"}))
    await client.get_location("l")
    assert clock.sleeps == [6.0]


async def test_a_wait_ending_exactly_at_the_deadline_is_not_taken(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(deadline=1.5)
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await client.get_location("l")
    assert clock.sleeps == [0.5] and len(server.requests) == 2


async def test_an_overrunning_sleep_raises_the_last_failure(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    async def slow_sleep(seconds: float) -> None:
        clock.now += seconds + 100  # the machine was suspended

    client = make_client(sleep=slow_sleep)
    server.default = httpx.Response(503)
    with pytest.raises(ServerError):
        await client.get_location("l")
    assert len(server.requests) == 1
