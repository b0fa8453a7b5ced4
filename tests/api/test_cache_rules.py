"""The caches' rules a restaurant or the server would notice when broken: what the server says
about keeping an answer is obeyed, and a read forgotten is asked again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api import APIConnectionError, RetryPolicy, StorefrontError
from kiosk.api.cache import DiskReads, MemoryCache, Timed, cache_rules
from kiosk.api.sender import ClientStats
from kiosk.api.v2 import StorefrontClientV2
from kiosk.diskcache import DiskCache

from .conftest import ClientFactory, FakeClock, Server, ok


@pytest.mark.parametrize(
    "header", ["max-age=0", "s-maxage=0, max-age=60", 'max-age="0"', "max-age=-5"]
)
def test_an_answer_the_server_says_is_stale_at_once_is_not_kept(header: str) -> None:
    # Kept on the shared disk (it may be revalidated there) but for no time at all.
    assert cache_rules(header, 300.0) == (0.0, True)


def test_a_quoted_max_age_is_read_as_its_number() -> None:
    assert cache_rules('max-age="45"', 300.0) == (45.0, True)


async def test_a_read_in_flight_when_the_cache_is_cleared_is_not_kept(clock: FakeClock) -> None:
    cache, answers = MemoryCache(clock.time, ClientStats()), iter(["old menu", "new menu"])
    asked, gate = asyncio.Event(), asyncio.Event()

    async def fetch() -> Timed[str]:
        asked.set()
        await gate.wait()
        return Timed(next(answers), 300.0)

    pending = asyncio.ensure_future(cache.read(("menus",), 300.0, fetch))
    await asked.wait()  # the read has started and waits for the server
    cache.clear()
    gate.set()
    assert await pending == "old menu"  # its caller gets its answer...
    # ...but a menu read before the clear is not what the next customer is shown.
    assert await cache.read(("menus",), 300.0, fetch) == "new menu"


async def test_a_fresh_read_does_not_join_a_read_already_in_flight(clock: FakeClock) -> None:
    # Asked again after the server refused what a cached answer offered: a read that started
    # before the refusal may hold the old answer.
    cache, answers = MemoryCache(clock.time, ClientStats()), iter(["old slots", "new slots"])
    asked, gate = asyncio.Event(), asyncio.Event()

    async def fetch() -> Timed[str]:
        asked.set()
        await gate.wait()
        return Timed(next(answers), 300.0)

    earlier = asyncio.ensure_future(cache.read(("slots",), 300.0, fetch))
    await asked.wait()
    fresh = asyncio.ensure_future(cache.read(("slots",), 300.0, fetch, fresh=True))
    gate.set()
    assert (await earlier, await fresh) == ("old slots", "new slots")


# ---------------------------------------------------------------- the site's cache on disk

LOCATION = {"id": "loc_1", "restaurantDisplayName": "Demo Cafe"}


@pytest.fixture
def disk(tmp_path: Path, clock: FakeClock) -> DiskCache:
    return DiskCache(tmp_path / "cache", clock=clock.time)


async def test_a_fresh_read_asks_the_server_even_when_the_disk_entry_is_fresh(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    server.reply(ok(LOCATION), ok({**LOCATION, "restaurantDisplayName": "Demo Cafe (new)"}))
    await make_client(disk_cache=disk).get_location("loc_1")
    other = make_client(disk_cache=disk)
    location = await other.get_location("loc_1", fresh=True)
    assert location.restaurant_display_name == "Demo Cafe (new)"
    assert len(server.requests) == 2


async def test_a_read_from_disk_is_kept_in_memory_only_for_what_is_left_of_its_ttl(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(LOCATION), ok({**LOCATION, "restaurantDisplayName": "Demo Cafe (new)"}))
    await make_client(disk_cache=disk).get_location("loc_1")  # kept an hour on disk
    clock.now += 3000
    other = make_client(disk_cache=disk)
    assert (await other.get_location("loc_1")).restaurant_display_name == "Demo Cafe"
    assert len(server.requests) == 1  # from disk
    clock.now += 601  # the disk entry's hour is over: so is the memory's copy of it
    assert (await other.get_location("loc_1")).restaurant_display_name == "Demo Cafe (new)"
    assert len(server.requests) == 2


async def test_a_kept_entry_that_no_longer_reads_is_not_served_when_offline(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(LOCATION))
    first = make_client(disk_cache=disk)
    await first.get_location("loc_1")
    # Another kiosk version wrote the entry in a shape this one cannot read.
    disk.put(first.disk_key("location", "loc_1"), {"restaurant": "?"}, ttl=0.0)
    clock.now += 1
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await make_client(disk_cache=disk).get_location("loc_1")


async def test_an_answer_given_without_its_bytes_is_kept_with_its_etag(
    clock: FakeClock, disk: DiskCache
) -> None:
    reads = DiskReads(disk, clock.time, ClientStats(), ("storefront", "v1", "test"))
    sent: list[str | None] = []

    async def call(etag: str | None, meta: dict[str, Any] | None) -> Any:
        sent.append(etag)
        if meta is not None:
            meta["etag"] = '"v7"'
        return LOCATION

    await reads.fetch("location", "loc_1", (), 60.0, call, dict, kept=lambda data: None)
    entry = disk.get(reads.key("location", "loc_1"))
    assert entry is not None and entry.data == LOCATION and entry.etag == '"v7"'


async def test_a_not_modified_for_an_entry_that_no_longer_reads_is_read_again_in_full(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    renamed = {**LOCATION, "restaurantDisplayName": "Demo Cafe (new)"}
    server.reply(
        ok(LOCATION, headers={"ETag": '"v1"'}),
        httpx.Response(304, headers={"ETag": '"v1"'}),
        ok(renamed, headers={"ETag": '"v2"'}),
    )
    first = make_client(disk_cache=disk)
    await first.get_location("loc_1")
    # Another kiosk version rewrote the entry, same ETag, in a shape this one cannot read.
    disk.put(first.disk_key("location", "loc_1"), {"restaurant": "?"}, ttl=0.0, etag='"v1"')
    clock.now += 1
    location = await make_client(disk_cache=disk).get_location("loc_1")
    assert location.restaurant_display_name == "Demo Cafe (new)"
    assert "If-None-Match" not in server.last.headers


def _v2_terminal(server: Server, clock: FakeClock, disk: DiskCache) -> StorefrontClientV2:
    return StorefrontClientV2(
        "http://demo/api/v1/storefront",
        transport=httpx.MockTransport(server),
        clock=clock.time,
        sleep=clock.sleep,
        retry=RetryPolicy(random=lambda: 0.0),
        disk_cache=disk,
    )


@pytest.mark.parametrize("then", ["not modified", "unreachable"])
async def test_a_location_known_by_its_slug_is_named_by_its_id_after_a_read_from_disk(
    server: Server, clock: FakeClock, disk: DiskCache, then: str
) -> None:
    # 2.0 names a location by its id everywhere but its own read: a terminal set up with the
    # slug learns the id from that read, also when the answer is the one kept on disk.
    server.reply(ok({"id": "loc_dt", "slug": "downtown"}, headers={"ETag": '"v1"'}))
    async with _v2_terminal(server, clock, disk) as first:
        await first.get_location("downtown")
    clock.now += 3601  # the kept location is stale: revalidated, or served while offline
    if then == "not modified":
        server.reply(httpx.Response(304, headers={"ETag": '"v1"'}))
    else:
        server.default = httpx.ConnectError
    async with _v2_terminal(server, clock, disk) as second:
        await second.get_location("downtown")
        server.default = httpx.ConnectError  # only the path asked matters here
        with pytest.raises(StorefrontError):
            await second.get_cart("downtown", "cart_1")
    assert "/locations/loc_dt/" in server.last.url.path
