"""The client core's rules staff or the server would notice when broken: what the health line and
the metrics are told of each request, and how an answer is read."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from kiosk.api import StorefrontClient, StorefrontError
from kiosk.api.errors import InvalidRequestError, ResponseFormatError

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
    assert all(seconds >= 1.0 for _, seconds, _ in told)


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
    client = make_client(transport=transport, timeout=4.0, deadline=12.0, max_wait=7.0)
    assert (client.timeout, client.deadline, client.max_wait) == (4.0, 12.0, 7.0)
    assert client.transport is transport
    assert client.base_url == BASE and not client.is_closed

    def heard(reason: str) -> None: ...

    client.retry_observer = heard
    assert client.retry_observer is heard and client.sender.retry_observer is heard


async def test_a_closed_client_says_so(make_client: ClientFactory) -> None:
    client = make_client()
    async with client:
        assert not client.is_closed
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
