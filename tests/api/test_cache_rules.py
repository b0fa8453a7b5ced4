"""The caches' rules a restaurant or the server would notice when broken: what the server says
about keeping an answer is obeyed, and a read forgotten is asked again."""

from __future__ import annotations

import asyncio

import pytest

from kiosk.api.cache import MemoryCache, Timed, cache_rules
from kiosk.api.sender import ClientStats

from .conftest import FakeClock


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
