"""Rules of the 2.0 dialect (kiosk.api.v2) the mutation run (tools/mutate.py, docs/mutation.md)
found untested: a kiosk set up with a location's slug names the location by its id everywhere but
the location read (also when that read came from the site's disk cache), a cart token seen once is
scrubbed from every error after, and a cart read keeps what the server answered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from kiosk.api.errors import StorefrontError
from kiosk.api.models import FulfillmentMethod
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.diskcache import DiskCache
from tests.demo.support import WED_AFTERNOON

BASE = "http://demo/api/v1/storefront"
SLUG, DT = DOWNTOWN.slug, DOWNTOWN.id


class StrictAboutIds(httpx.AsyncBaseTransport):
    """The demo backend, but as 2.0 is written: only the location read takes a slug
    (`locationSlugOrId`); any other path naming the slug is a 404. Keeps the requests."""

    def __init__(self) -> None:
        self.inner = httpx.ASGITransport(app=create_app(clock=lambda: WED_AFTERNOON))
        self.sent: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        path = request.url.path
        if f"/locations/{SLUG}/" in path:
            return httpx.Response(404, json={"code": "NOT_FOUND", "message": "No such location."})
        return await self.inner.handle_async_request(request)

    def paths(self) -> list[str]:
        return [r.url.path.removeprefix("/api/v1/storefront") for r in self.sent]


@pytest.fixture
async def strict() -> AsyncIterator[StrictAboutIds]:
    yield StrictAboutIds()


async def test_a_kiosk_set_up_with_a_slug_names_the_location_by_its_id(
    strict: StrictAboutIds,
) -> None:
    async with StorefrontClientV2(BASE, transport=strict) as client:
        cart_id = (await client.start_ordering_session(SLUG, FulfillmentMethod.PICKUP)).cart_id
        await client.get_menus(SLUG)
        await client.get_cart(SLUG, cart_id)
    assert strict.paths()[0] == f"/locations/{SLUG}"  # the one read that takes a slug
    assert all(f"/locations/{DT}" in p for p in strict.paths()[1:]), strict.paths()


async def test_a_slug_read_from_the_disk_cache_still_names_the_location_by_its_id(
    strict: StrictAboutIds, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    async with StorefrontClientV2(BASE, transport=strict, disk_cache=DiskCache(folder)) as first:
        await first.get_location(SLUG)
    strict.sent.clear()
    # A second terminal on the site's shared folder: the location comes from disk.
    async with StorefrontClientV2(BASE, transport=strict, disk_cache=DiskCache(folder)) as second:
        location = await second.get_location(SLUG)
        assert location.id == DT
        cart_id = (await second.start_ordering_session(SLUG, FulfillmentMethod.PICKUP)).cart_id
        assert cart_id
    assert strict.paths()[0] == f"/locations/{DT}/ordering-sessions"
    assert not any(f"/locations/{SLUG}" in p for p in strict.paths()), strict.paths()


async def test_a_cart_token_seen_once_is_scrubbed_from_every_later_error() -> None:
    token: list[str] = []

    async def echo(request: httpx.Request) -> httpx.Response | None:
        # A catalog read carries no token; a careless server echoes it back anyway.
        if token and "/products/" in request.url.path:
            return httpx.Response(400, json={"code": "BAD", "message": f"token {token[0]} bad"})
        return None

    inner = httpx.ASGITransport(app=create_app(clock=lambda: WED_AFTERNOON))

    class Echoing(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            return await echo(request) or await inner.handle_async_request(request)

    async with StorefrontClientV2(BASE, transport=Echoing()) as client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        access = client.cart_access(cart_id)
        assert access is not None
        token.append(access.get_secret_value())
        with pytest.raises(StorefrontError) as caught:
            await client.get_product(DT, "prd_cookie")
    error = caught.value
    shown = str(error) + repr(error) + error.message + (error.server_message or "")
    assert token[0] not in shown


async def test_a_cart_read_without_this_clients_token_is_what_the_server_answered() -> None:
    """2.0 reads a cart with its token or a signed-in customer (C|B): a client that never opened
    the cart (no token, no hand-off) still gets the server's cart, untouched."""
    inner = httpx.ASGITransport(app=create_app(clock=lambda: WED_AFTERNOON))
    opener = StorefrontClientV2(BASE, transport=inner)
    async with opener:
        cart_id = (await opener.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        access = opener.cart_access(cart_id)
        assert access is not None

        class SignedIn(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                assert "x-cart-token" not in request.headers
                request.headers["X-Cart-Token"] = access.get_secret_value()
                return await inner.handle_async_request(request)

        async with StorefrontClientV2(BASE, transport=SignedIn()) as reader:
            cart = await reader.get_cart(DT, cart_id)
    assert cart.id == cart_id
    assert cart.checkout_url is None
