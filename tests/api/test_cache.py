"""The read cache: TTLs under the injected clock, single flight, keys, invalidation; carts never."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from kiosk.api import NotFoundError, StorefrontClient, key_identity

from .conftest import API_KEY, ClientFactory, FakeClock, Server, ok, spec_cart

MENUS = {"menus": [{"id": "m1", "categories": []}]}


class Gate:
    """A handler that holds every request until released, counting them."""

    def __init__(self, body: Any) -> None:
        self.body = body
        self.open = asyncio.Event()
        self.seen = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen += 1
        await self.open.wait()
        return ok(self.body)


async def test_two_concurrent_get_menus_share_one_request(
    client: StorefrontClient, server: Server
) -> None:
    gate = Gate(MENUS)
    server.default = gate
    first = asyncio.create_task(client.get_menus("loc_1"))
    second = asyncio.create_task(client.get_menus("loc_1"))
    await asyncio.sleep(0.01)
    assert gate.seen == 1
    gate.open.set()
    a, b = await asyncio.gather(first, second)
    assert a is b
    assert len(server.requests) == 1
    assert client.stats.cache_misses == 1 and client.stats.shared_flights == 1


async def test_a_failed_flight_fails_every_waiter_and_is_not_cached(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.Response(404, json={"success": False, "code": "NOT_FOUND"}))
    results = await asyncio.gather(
        client.get_menus("loc_1"), client.get_menus("loc_1"), return_exceptions=True
    )
    assert all(isinstance(r, NotFoundError) for r in results)
    assert len(server.requests) == 1
    server.reply(ok(MENUS))
    assert (await client.get_menus("loc_1")).menus[0].id == "m1"
    assert len(server.requests) == 2


async def test_one_waiter_cancelled_does_not_cancel_the_others(
    client: StorefrontClient, server: Server
) -> None:
    gate = Gate(MENUS)
    server.default = gate
    leaving = asyncio.create_task(client.get_menus("loc_1"))
    staying = asyncio.create_task(client.get_menus("loc_1"))
    await asyncio.sleep(0.01)
    leaving.cancel()
    await asyncio.sleep(0)
    gate.open.set()
    assert (await staying).menus[0].id == "m1"
    assert leaving.cancelled()
    assert len(server.requests) == 1


async def test_menus_expire_after_the_menu_ttl(
    client: StorefrontClient, server: Server, clock: FakeClock
) -> None:
    server.default = ok(MENUS)
    await client.get_menus("loc_1")
    clock.now += 299
    await client.get_menus("loc_1")
    assert len(server.requests) == 1 and client.stats.cache_hits == 1
    clock.now += 1.5
    await client.get_menus("loc_1")
    assert len(server.requests) == 2


async def test_menu_ttl_is_configurable_within_the_window(
    make_client: ClientFactory, server: Server, clock: FakeClock
) -> None:
    client = make_client(menu_ttl=600)
    server.default = ok(MENUS)
    await client.get_menus("loc_1")
    clock.now += 599
    await client.get_menus("loc_1")
    assert len(server.requests) == 1


async def test_menu_key_includes_date_and_time(client: StorefrontClient, server: Server) -> None:
    server.default = ok(MENUS)
    await client.get_menus("loc_1")
    await client.get_menus("loc_1", "2026-08-10", "12:00")
    await client.get_menus("loc_1", "2026-08-10", "12:00")
    await client.get_menus("loc_1", "2026-08-10", "18:00")
    await client.get_menus("loc_2")
    assert len(server.requests) == 4


Read = Callable[[StorefrontClient], Awaitable[Any]]


@pytest.mark.parametrize(
    ("read", "body", "ttl"),
    [
        (lambda c: c.get_location("loc_1"), {"id": "loc_1"}, 3600),
        (lambda c: c.get_merchant("acme"), {"id": "m"}, 3600),
        (lambda c: c.get_product("loc_1", "p1"), {"id": "p1"}, 300),
        (lambda c: c.list_products("loc_1"), [{"id": "p1"}], 300),
        (lambda c: c.get_gratuity("loc_1"), {"enabled": True}, 300),
        (lambda c: c.get_time_intervals("loc_1"), {"orderDays": []}, 300),
    ],
)
async def test_cached_reads_and_their_ttls(
    client: StorefrontClient,
    server: Server,
    clock: FakeClock,
    read: Read,
    body: Any,
    ttl: float,
) -> None:
    server.default = ok(body)
    await read(client)
    clock.now += ttl - 1
    await read(client)
    assert len(server.requests) == 1
    clock.now += 2
    await read(client)
    assert len(server.requests) == 2


async def test_list_products_returns_a_copy(client: StorefrontClient, server: Server) -> None:
    server.default = ok([{"id": "p1"}])
    first = await client.list_products("loc_1")
    first.clear()
    assert [p.id for p in await client.list_products("loc_1")] == ["p1"]


@pytest.mark.parametrize(
    ("read", "body"),
    [
        (lambda c: c.get_cart("loc_1", "cart_1"), spec_cart()),
        (lambda c: c.cross_sell("loc_1", "cart_1"), []),
        (lambda c: c.validate_cart("loc_1", "cart_1"), {"valid": True}),
    ],
)
async def test_carts_are_never_cached(
    client: StorefrontClient, server: Server, read: Read, body: Any
) -> None:
    server.default = ok(body)
    await read(client)
    await read(client)
    assert len(server.requests) == 2


async def test_product_key_includes_the_product(client: StorefrontClient, server: Server) -> None:
    server.default = ok({"id": "p"})
    await client.get_product("loc_1", "p1")
    await client.get_product("loc_1", "p2")
    await client.get_product("loc_2", "p1")
    assert len(server.requests) == 3


async def test_cache_key_holds_the_key_identity_never_the_key(
    client: StorefrontClient, server: Server
) -> None:
    server.default = ok(MENUS)
    await client.get_menus("loc_1")
    keys = list(client.memory.keys())
    assert keys == [(key_identity(API_KEY), "menus", "loc_1", "", "")]
    assert API_KEY not in repr(keys)
    assert key_identity(API_KEY) != key_identity(API_KEY + "x")
    assert len(key_identity(API_KEY)) == 8


async def test_clients_with_different_keys_do_not_share(
    make_client: ClientFactory, server: Server
) -> None:
    server.default = ok(MENUS)
    one, other = make_client(), make_client(api_key="sk_other_key_123")
    await one.get_menus("loc_1")
    await other.get_menus("loc_1")
    assert len(server.requests) == 2
    assert server.requests[1].headers["X-API-Key"] == "sk_other_key_123"


async def test_invalidate_by_location_and_kind(client: StorefrontClient, server: Server) -> None:
    server.default = ok({"id": "x", "menus": []})
    await client.get_menus("loc_1")
    await client.get_location("loc_1")
    await client.get_menus("loc_2")
    assert client.invalidate(location_id="loc_1", kind="menus") == 1
    await client.get_menus("loc_1")  # refetched
    await client.get_location("loc_1")  # still cached
    await client.get_menus("loc_2")  # still cached
    assert len(server.requests) == 4
    assert client.invalidate(location_id="loc_1") == 2
    client.clear_cache()
    await client.get_menus("loc_2")
    assert len(server.requests) == 5


async def test_invalidate_during_a_flight_does_not_store_the_stale_result(
    client: StorefrontClient, server: Server
) -> None:
    gate = Gate(MENUS)
    server.default = gate
    pending = asyncio.create_task(client.get_menus("loc_1"))
    await asyncio.sleep(0.01)
    client.invalidate(location_id="loc_1")
    gate.open.set()
    await pending
    await client.get_menus("loc_1")
    assert len(server.requests) == 2


async def test_close_cancels_flights(client: StorefrontClient, server: Server) -> None:
    server.default = Gate(MENUS)
    pending = asyncio.create_task(client.get_menus("loc_1"))
    await asyncio.sleep(0.01)
    await client.aclose()
    with pytest.raises(asyncio.CancelledError):
        await pending


async def test_invalidating_one_location_keeps_another_flight(
    client: StorefrontClient, server: Server
) -> None:
    gate = Gate(MENUS)
    server.default = gate
    one = asyncio.create_task(client.get_menus("loc_1"))
    two = asyncio.create_task(client.get_menus("loc_2"))
    await asyncio.sleep(0.01)
    client.invalidate(location_id="loc_1")
    gate.open.set()
    await asyncio.gather(one, two)
    await client.get_menus("loc_2")  # stored: not invalidated
    await client.get_menus("loc_1")  # not stored: invalidated while in flight
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("read", "first", "then"),
    [
        (
            lambda c, fresh: c.get_time_intervals("loc_1", fresh=fresh),
            {"orderDays": [{"value": "2026-03-02", "intervals": ["12:00", "12:15"]}]},
            {"orderDays": [{"value": "2026-03-02", "intervals": ["12:00"]}]},
        ),
        (
            lambda c, fresh: c.get_merchant("acme", fresh=fresh),
            {"id": "m", "locations": [{"id": "loc_1", "methodsStatus": {"table": True}}]},
            {"id": "m", "locations": [{"id": "loc_1", "methodsStatus": {"table": False}}]},
        ),
    ],
)
async def test_a_fresh_read_asks_the_server_and_keeps_its_answer(
    client: StorefrontClient, server: Server, read: Any, first: Any, then: Any
) -> None:
    """After the server refused what a cached answer offered (a time, a way to order), the
    Visit reads it again with `fresh`: the server is asked, and later reads get the new answer."""
    server.reply(ok(first), ok(then))
    before = await read(client, False)
    assert await read(client, False) == before  # cached
    assert len(server.requests) == 1
    after = await read(client, True)
    assert after != before
    assert len(server.requests) == 2
    assert await read(client, False) == after  # the fresh answer is the one kept
    assert len(server.requests) == 2


# ---------------------------------------------------------------- the memory cache on its own


async def test_the_memory_cache_keeps_a_read_for_the_ttl_its_fetch_gives(clock: FakeClock) -> None:
    from kiosk.api.cache import MemoryCache, Timed
    from kiosk.api.sender import ClientStats

    cache, fetched = MemoryCache(clock.time, ClientStats()), []

    async def fetch() -> Timed[int]:
        fetched.append(clock.now)
        return Timed(len(fetched), 60.0)

    assert await cache.read(("k",), 300.0, fetch) == 1
    clock.now += 59
    assert await cache.read(("k",), 300.0, fetch) == 1
    clock.now += 1  # the fetch's 60 s, not the 300 s asked: it ran out
    assert await cache.read(("k",), 300.0, fetch) == 2
    assert await cache.read(("k",), 300.0, fetch, fresh=True) == 3
    assert cache.invalidate(lambda key: key == ("k",)) == 1
    assert list(cache.keys()) == []
