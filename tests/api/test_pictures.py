"""Product pictures (kiosk.api.pictures): a plain GET of the URL a product names, one try, taken
only as a picture (200, an image type, within the size), kept for the menu's time (failures too)
in a bounded cache, the API's own host counted against its budget. No fast test ran this module
before (tools/mutate.py: all 56 of its mutants had no test)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from kiosk.api import APIConnectionError, ResponseFormatError, StorefrontClient
from kiosk.api.pictures import IMAGE_CACHE_SIZE
from kiosk.api.v2 import StorefrontClientV2

from .conftest import FakeClock, Server

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24
CDN = "https://cdn.example.test/p/"


def picture(
    body: bytes = PNG, kind: str = "image/png", status: int = 200, length: bool = True
) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        if length:
            return httpx.Response(status, content=body, headers={"content-type": kind})

        async def chunks() -> object:
            yield body[: len(body) // 2]
            yield body[len(body) // 2 :]

        return httpx.Response(status, content=chunks(), headers={"content-type": kind})  # type: ignore[arg-type]

    return answer


@pytest.fixture
def pictures(server: Server) -> Server:
    server.default = picture()
    return server


async def test_a_picture_is_asked_for_as_a_picture(
    client: StorefrontClient, pictures: Server
) -> None:
    await client.get_image(CDN + "latte.png")
    accept = pictures.last.headers["Accept"]
    assert accept.startswith("image/png") and "image/*" in accept
    assert client.stats.by_endpoint["image"] == 1 and client.stats.requests == 1


@pytest.mark.parametrize("kind", ["image/png", "image/jpeg", "IMAGE/GIF", "image/webp; q=1"])
async def test_every_drawable_picture_type_is_taken(
    client: StorefrontClient, server: Server, kind: str
) -> None:
    server.default = picture(kind=kind)
    assert await client.get_image(CDN + "a.png") == PNG


@pytest.mark.parametrize(
    "answer",
    [
        picture(status=404),
        picture(status=204),
        picture(kind="text/html"),
        picture(kind="image/svg+xml"),
        picture(kind=""),
    ],
    ids=["404", "204", "html", "svg", "no-type"],
)
async def test_anything_but_a_picture_is_refused(
    client: StorefrontClient, server: Server, answer: Callable[[httpx.Request], httpx.Response]
) -> None:
    server.default = answer
    with pytest.raises(ResponseFormatError):
        await client.get_image(CDN + "a.png")


@pytest.mark.parametrize("length", [True, False], ids=["declared", "streamed"])
async def test_a_picture_up_to_the_size_is_taken_and_one_byte_more_is_not(
    client: StorefrontClient, server: Server, length: bool
) -> None:
    server.default = picture(length=length)
    assert await client.get_image(CDN + "fits.png", max_bytes=len(PNG)) == PNG
    with pytest.raises(ResponseFormatError):
        await client.get_image(CDN + "big.png", max_bytes=len(PNG) - 1)


@pytest.mark.parametrize("failure", [httpx.ConnectError, httpx.ReadTimeout])
async def test_an_unreachable_picture_is_a_connection_error_tried_once(
    client: StorefrontClient, server: Server, failure: type[Exception]
) -> None:
    server.default = failure
    with pytest.raises(APIConnectionError):
        await client.get_image(CDN + "a.png")
    assert len(server.requests) == 1  # one try: a picture is decoration


async def test_a_picture_is_kept_for_the_menus_time_and_then_asked_again(
    client: StorefrontClient, pictures: Server, clock: FakeClock
) -> None:
    await client.get_image(CDN + "a.png")
    clock.now += client.menu_ttl - 1
    await client.get_image(CDN + "a.png")
    assert len(pictures.requests) == 1 and client.stats.cache_hits == 1
    clock.now += 1  # the menu's time is up
    await client.get_image(CDN + "a.png")
    assert len(pictures.requests) == 2


async def test_a_broken_picture_is_kept_too_and_costs_one_request(
    client: StorefrontClient, server: Server
) -> None:
    server.default = picture(status=404)
    for _ in range(3):
        with pytest.raises(ResponseFormatError):
            await client.get_image(CDN + "gone.png")
    assert len(server.requests) == 1


async def test_the_least_recently_used_picture_leaves_a_full_cache(
    client: StorefrontClient, pictures: Server
) -> None:
    for n in range(IMAGE_CACHE_SIZE):
        await client.get_image(f"{CDN}{n}.png")
    await client.get_image(f"{CDN}0.png")  # used again: now the most recent
    await client.get_image(f"{CDN}new.png")  # one over: the least recent (1) leaves
    asked = len(pictures.requests)
    assert asked == IMAGE_CACHE_SIZE + 1
    await client.get_image(f"{CDN}0.png")
    await client.get_image(f"{CDN}{IMAGE_CACHE_SIZE - 1}.png")
    assert len(pictures.requests) == asked  # both still kept
    await client.get_image(f"{CDN}1.png")
    assert len(pictures.requests) == asked + 1


async def test_pictures_on_the_apis_own_host_count_against_its_budget(
    clock: FakeClock, pictures: Server
) -> None:
    client = StorefrontClientV2(
        "https://api.example.test/api/v1/storefront",
        transport=httpx.MockTransport(pictures),
        clock=clock.time,
        sleep=clock.sleep,
    )
    async with client:
        before = client.rate_budget.remaining
        assert before is not None
        await client.get_image(CDN + "a.png")  # another host: not the API's budget
        assert client.rate_budget.remaining == before
        await client.get_image("/media/a.png")  # the API's own host
        assert client.rate_budget.remaining == before - 1
    assert str(pictures.last.url) == "https://api.example.test/media/a.png"


async def test_the_same_picture_is_one_entry_however_its_url_is_spaced(
    client: StorefrontClient, pictures: Server
) -> None:
    await client.get_image(CDN + "a.png")
    await client.get_image("  " + CDN + "a.png ")
    assert len(pictures.requests) == 1


async def test_a_picture_declared_too_big_is_refused_before_its_bytes_are_read(
    client: StorefrontClient, server: Server
) -> None:
    read: list[bytes] = []

    async def body() -> AsyncIterator[bytes]:
        read.append(b"x")
        yield b"x"

    def huge(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "image/png", "content-length": str(50 * 1024 * 1024)}
        return httpx.Response(200, content=body(), headers=headers)

    server.default = huge
    with pytest.raises(ResponseFormatError):
        await client.get_image(CDN + "huge.png")
    assert read == []
