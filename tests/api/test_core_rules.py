"""The client core's rules staff or the server would notice when broken: what the health line and
the metrics are told of each request, and how an answer is read."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import RetryPolicy, StorefrontClient, StorefrontError, key_identity
from kiosk.api.errors import InvalidRequestError, NotFoundError, ResponseFormatError
from kiosk.api.v2 import StorefrontClientV2

from .conftest import BASE, ClientFactory, FakeClock, Server, ok, spec_cart


class Ticker:
    """A timer that moves by one second each time it is read."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def test_staff_see_when_the_last_request_failed_and_when_one_last_succeeded(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    assert (client.last_error, client.last_error_at, client.last_success_at) == (None,) * 3
    server.reply(ok({"message": "bad", "code": "BAD"}, status=400), ok(spec_cart()))
    with pytest.raises(InvalidRequestError) as refused:
        await client.get_cart("loc_1", "cart_1")
    assert client.last_error is refused.value and client.last_error_at == clock.now
    assert client.last_success_at is None
    clock.now += 60
    await client.get_cart("loc_1", "cart_1")
    assert client.last_success_at == clock.now
    assert client.last_error_at == clock.now - 60  # the failure is not forgotten by a success


async def test_the_metrics_are_told_each_request_with_how_long_it_took(
    make_client: ClientFactory, server: Server
) -> None:
    client = make_client(timer=Ticker())
    told: list[tuple[str, float, StorefrontError | None]] = []
    client.observer = lambda operation, seconds, error: told.append((operation, seconds, error))
    server.reply(ok(spec_cart()), ok({"message": "bad", "code": "BAD"}, status=400))
    await client.get_cart("loc_1", "cart_1")
    with pytest.raises(InvalidRequestError) as refused:
        await client.get_cart("loc_1", "cart_1")
    assert [(op, error) for op, _, error in told] == [("cart", None), ("cart", refused.value)]
    # Measured from the request's start (each read of this timer moves it by one second).
    assert all(1.0 <= seconds < 20.0 for _, seconds, _ in told)


async def test_a_broken_metrics_listener_never_breaks_an_order(
    client: StorefrontClient, server: Server
) -> None:
    def broken(operation: str, seconds: float, error: StorefrontError | None) -> None:
        raise RuntimeError("metrics down")

    client.observer = broken
    server.reply(ok(spec_cart()))
    assert (await client.get_cart("loc_1", "cart_1")).id == spec_cart()["id"]


def test_the_client_keeps_the_settings_it_was_given(make_client: ClientFactory) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    policy = RetryPolicy(max_attempts=2, random=lambda: 0.0)
    client = make_client(
        transport=transport, timeout=4.0, deadline=12.0, max_wait=7.0, retry=policy
    )
    assert client.retry is policy
    assert (client.timeout, client.deadline, client.max_wait) == (4.0, 12.0, 7.0)
    assert client.transport is transport
    assert client.base_url == BASE and not client.is_closed

    def heard(reason: str) -> None: ...

    client.retry_observer = heard
    assert client.retry_observer is heard and client.sender.retry_observer is heard


async def test_a_closed_client_says_so(make_client: ClientFactory) -> None:
    client = make_client()
    async with client as opened:
        assert opened is client and not client.is_closed
    assert client.is_closed


def test_staff_see_since_when_stale_data_is_shown(client: StorefrontClient) -> None:
    assert client.stale_since is None
    client.stale_since = 1234.0
    assert client.stale_since == 1234.0 and client.disk.stale_since == 1234.0


@pytest.mark.parametrize("body", [b"", b"  \n", b"\t"])
async def test_an_empty_answer_to_a_write_is_no_content_not_an_error(
    client: StorefrontClient, server: Server, body: bytes
) -> None:
    server.reply(httpx.Response(200, content=body))
    assert await client.set_order_time("loc_1", "cart_1", "ASAP", "", "") is None


@pytest.mark.parametrize("reply", [{"products": {"id": "p"}}, {"items": []}, "p", 5])
async def test_a_list_read_that_is_no_list_is_a_format_error(
    client: StorefrontClient, server: Server, reply: Any
) -> None:
    server.reply(ok(reply))
    with pytest.raises(ResponseFormatError):
        await client.list_products("loc_1")


async def test_a_client_without_settings_uses_the_documented_ones(server: Server) -> None:
    client = StorefrontClient(BASE, "sk_test_key", transport=httpx.MockTransport(server))
    try:
        assert (client.timeout, client.deadline, client.max_wait) == (10.0, 30.0, 30.0)
        # Menus kept 5 minutes (the spec allows 5 to 10), a location an hour, time slots 5 min.
        assert (client.menu_ttl, client.location_ttl, client.slots_ttl) == (300.0, 3600.0, 300.0)
        assert client.rate_budget.limit == 200
        server.reply(ok(spec_cart()))
        await client.get_cart("loc_1", "cart_1")
        # The server is told who asks and that JSON is the answer wanted.
        assert server.last.headers["User-Agent"] == "kiosk"
        assert server.last.headers["Accept"] == "application/json"
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    "base", ["https:///api/v1", "ftp://api.example.test/api/v1", "api.example.test/api/v1"]
)
def test_a_base_url_without_a_web_address_is_refused(base: str) -> None:
    with pytest.raises(ValueError):
        StorefrontClient(base, "sk_test_key")


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:8080/api/v1", "https://api.example.test/api/v1"]
)
def test_http_and_https_servers_are_both_reached(base: str) -> None:
    assert StorefrontClient(base, "sk_test_key").base_url == base


async def test_a_redirect_is_never_followed_with_the_key(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.Response(302, headers={"Location": "https://elsewhere.test/steal"}))
    server.default = ok(spec_cart())
    with pytest.raises(StorefrontError):
        await client.get_cart("loc_1", "cart_1")
    assert all(r.url.host == "api.example.test" for r in server.requests)


def test_a_key_is_known_by_a_short_identity_never_by_itself() -> None:
    one, other = key_identity("sk_live_one"), key_identity("sk_live_other")
    assert len(one) == 8 and int(one, 16) >= 0 and one != other
    assert key_identity("sk_live_one") == one and "sk_live_one" not in one


async def test_a_cart_token_restored_after_a_restart_never_shows_in_a_refusal(
    server: Server,
) -> None:
    # 2.0: the token comes back from the terminal's resume file, not from a server answer, so
    # only the request's own credential header can scrub it from what the server echoes.
    token = "tok-RESTORED-7f3a9c2e11"
    server.reply(
        ok({"id": "loc_1", "slug": "downtown"}),  # 2.0 reads the location's id first
        ok({"message": f"token {token} is not valid here", "code": "BAD"}, status=400),
    )
    client = StorefrontClientV2(
        "http://demo/api/v1/storefront",
        transport=httpx.MockTransport(server),
        retry=RetryPolicy(random=lambda: 0.0),
    )
    async with client:
        client.restore_cart_access("cart_1", SecretStr(token))
        with pytest.raises(StorefrontError) as refused:
            await client.get_cart("loc_1", "cart_1")
    assert server.last.headers["X-Cart-Token"] == token
    error = refused.value
    assert token not in f"{error} {error!r} {error.message} {error.server_message} {error.details}"


async def test_answers_and_errors_are_stamped_with_the_clock_the_client_was_given(
    make_client: ClientFactory, clock: FakeClock
) -> None:
    assert make_client().clock() == clock.now


async def test_a_read_retried_after_a_server_error_that_then_finds_no_cart_says_so(
    client: StorefrontClient, server: Server
) -> None:
    # Only a retried delete may take a 404 as its own earlier attempt landing: a read may not.
    server.reply(httpx.Response(503), ok({"message": "Not found", "code": "CART_NOT_FOUND"}, 404))
    with pytest.raises(NotFoundError):
        await client.get_cart("loc_1", "cart_1")
    assert len(server.requests) == 2
