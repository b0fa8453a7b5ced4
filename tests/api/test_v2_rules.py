"""Rules of the 2.0 dialect (kiosk.api.v2) the mutation run (tools/mutate.py, docs/mutation.md)
found untested: a kiosk set up with a location's slug names the location by its id everywhere but
the location read (also when that read came from the site's disk cache), a cart token seen once is
scrubbed from every error after, and a cart read keeps what the server answered."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api.errors import ResponseFormatError, StorefrontError
from kiosk.api.models import DeliveryAddress, FulfillmentMethod
from kiosk.api.money import parse_money
from kiosk.api.probe import probe_dialects
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.diskcache import DiskCache
from tests.demo.support import WED_AFTERNOON

BASE = "http://demo/api/v1/storefront"
SLUG, DT = DOWNTOWN.slug, DOWNTOWN.id
LOCATION = {"id": DT, "restaurantDisplayName": "Downtown", "timezone": "UTC"}


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


async def test_a_2_0_order_total_is_read_in_major_units_and_only_there() -> None:
    """An order result's "12" is twelve units (2.0 is major units); the rest of the kiosk, in
    the same task, still reads money by its own default afterwards."""
    order = {"shortId": "K7", "pricing": {"total": "12"}, "items": [{"quantity": 1}]}

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(f"/locations/{DT}"):
            return httpx.Response(200, json=LOCATION)
        assert request.url.path.endswith("/order-result")
        return httpx.Response(200, json={"state": "completed", "order": order})

    async with StorefrontClientV2(BASE, transport=httpx.MockTransport(answer)) as client:
        progress = await client.order_progress(DT, "c" * 24)
    assert (progress.total, progress.quantity) == (1200, 1)
    assert parse_money("12") == 12  # minor units, the default, as before the read


async def test_a_restored_handoff_without_a_token_never_sends_a_made_up_one() -> None:
    sent: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(f"/locations/{DT}"):
            return httpx.Response(200, json=LOCATION)
        sent.append(request)
        return httpx.Response(401, json={"code": "UNAUTHORIZED", "message": "No cart token."})

    async with StorefrontClientV2(BASE, transport=httpx.MockTransport(refuse)) as client:
        client.restore_handoff("c" * 24, "https://pay.example.test/h/1")
        with pytest.raises(StorefrontError):
            await client.get_cart(DT, "c" * 24)
    assert sent and all("x-cart-token" not in r.headers for r in sent)


async def test_the_doctor_of_a_2_0_kiosk_says_no_legacy_key_was_given() -> None:
    def legacy_only(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/locations/loc_1":
            return httpx.Response(401, json={"error": {"code": "UNAUTHORIZED", "message": "key"}})
        return httpx.Response(404, text="<html>Not Found</html>")

    transport = httpx.MockTransport(legacy_only)
    async with StorefrontClientV2(BASE, transport=transport) as client:
        answers = {a.dialect: a for a in await probe_dialects(client, "loc_1")}
    assert answers["v1"].speaks
    assert answers["v1"].detail == "answers (HTTP 401: no location key given)"


class Rewriting(httpx.AsyncBaseTransport):
    """The demo backend, with `rewrite` (set by a test) changing an answer's JSON on its way."""

    def __init__(self) -> None:
        self.inner = httpx.ASGITransport(app=create_app(clock=lambda: WED_AFTERNOON))
        self.sent: list[httpx.Request] = []
        self.rewrite: Callable[[httpx.Request, Any], Any] = lambda request, data: data

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if not response.headers.get("content-type", "").startswith("application/json"):
            return response
        data = self.rewrite(request, json.loads(response.content))
        kept = {k: v for k, v in response.headers.items() if k.lower() in ("etag", "x-request-id")}
        return httpx.Response(response.status_code, json=data, headers=kept)


async def test_a_2_0_cart_is_read_in_major_units() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id

        def whole_units(request: httpx.Request, data: Any) -> Any:
            if request.method == "GET" and request.url.path.endswith(cart_id):
                data |= {"subTotal": "12", "orderTotal": "15"}
            return data

        server.rewrite = whole_units
        cart = await client.get_cart(DT, cart_id)
        assert parse_money("12") == 12  # the caller's own reading is left as it was
    assert (cart.sub_total, cart.order_total) == (1200, 1500)


@pytest.mark.parametrize("named", ["", None, 7], ids=repr)
async def test_a_location_answer_naming_no_id_keeps_the_location_as_given(named: Any) -> None:
    server = Rewriting()

    def no_id(request: httpx.Request, data: Any) -> Any:
        if request.url.path.endswith(f"/locations/{DT}"):
            data["id"] = named
        return data

    server.rewrite = no_id
    async with StorefrontClientV2(BASE, transport=server) as client:
        with contextlib.suppress(ResponseFormatError):
            await client.get_location(DT)
        await client.get_menus(DT)
    assert server.sent[-1].url.path.endswith(f"/locations/{DT}/menus")


async def test_an_answer_with_an_empty_token_keeps_the_token_the_kiosk_holds() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        held = client.cart_access(cart_id)
        assert held is not None and held.get_secret_value()

        def emptied(request: httpx.Request, data: Any) -> Any:
            if request.url.path.endswith("/ordering-sessions"):
                data["cartAccessToken"] = ""
            return data

        server.rewrite = emptied
        await client.start_ordering_session(DT, FulfillmentMethod.PICKUP, cart_id)
        assert client.cart_access(cart_id) == held
        await client.get_cart(DT, cart_id)
    assert server.sent[-1].headers["x-cart-token"] == held.get_secret_value()


async def test_a_cart_this_client_holds_no_token_for_is_not_resumed_but_replaced() -> None:
    server = Rewriting()
    foreign = "f" * 24
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = await client.create_or_resume_cart(DT, foreign)
    assert cart_id and cart_id != foreign
    sessions = [r for r in server.sent if r.url.path.endswith("/ordering-sessions")]
    assert len(sessions) == 1
    assert "existingCartId" not in json.loads(sessions[0].content)
    assert "if-match" not in sessions[0].headers


@pytest.mark.parametrize("cart", [None, {}, {"id": ""}, {"id": 7}], ids=str)
async def test_a_session_answer_without_a_usable_cart_id_is_refused(cart: Any) -> None:
    server = Rewriting()

    def broken(request: httpx.Request, data: Any) -> Any:
        if request.url.path.endswith("/ordering-sessions"):
            return {"cart": cart} if cart is not None else {"ok": True}
        return data

    server.rewrite = broken
    async with StorefrontClientV2(BASE, transport=server) as client:
        with pytest.raises(ResponseFormatError):
            await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)


async def test_resuming_a_restored_cart_reads_its_revision_first_and_only_then() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as opener:
        cart_id = (await opener.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        token = opener.cart_access(cart_id)
        assert token is not None
        # The client that opened the cart knows its revision: the resume is one request.
        server.sent.clear()
        assert await opener.resume_cart(DT, cart_id, FulfillmentMethod.PICKUP) == cart_id
        assert [(r.method, r.url.path.rsplit("/", 1)[-1]) for r in server.sent] == [
            ("POST", "ordering-sessions")
        ]
    # A restarted kiosk holds the token from its resume file, not the revision: it reads first.
    async with StorefrontClientV2(BASE, transport=server) as restarted:
        restarted.restore_cart_access(cart_id, token)
        server.sent.clear()
        assert await restarted.resume_cart(DT, cart_id, FulfillmentMethod.PICKUP) == cart_id
    cart_reads = [r for r in server.sent if r.method == "GET" and r.url.path.endswith(cart_id)]
    session = [r for r in server.sent if r.url.path.endswith("/ordering-sessions")]
    assert len(cart_reads) == 1 and len(session) == 1
    assert server.sent.index(cart_reads[0]) < server.sent.index(session[0])
    assert session[0].headers["if-match"].startswith('"cart-')


async def test_a_session_names_the_marketplace_when_given() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        await client.start_ordering_session(DT, FulfillmentMethod.PICKUP, marketplace_id=DT)
    [session] = [r for r in server.sent if r.url.path.endswith("/ordering-sessions")]
    assert json.loads(session.content)["marketplaceId"] == DT


async def test_create_or_resume_resumes_the_cart_this_client_opened() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = await client.create_or_resume_cart(DT)
        assert await client.create_or_resume_cart(DT, cart_id) == cart_id
    sessions = [r for r in server.sent if r.url.path.endswith("/ordering-sessions")]
    assert "existingCartId" not in json.loads(sessions[0].content)
    assert json.loads(sessions[1].content)["existingCartId"] == cart_id


async def test_deleting_a_cart_reads_its_revision_first_only_when_unknown() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as opener:
        first = (await opener.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        second = (await opener.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        token = opener.cart_access(second)
        assert token is not None
        server.sent.clear()
        await opener.delete_cart(DT, first)  # its revision is known: one request
        assert [r.method for r in server.sent] == ["DELETE"]
    async with StorefrontClientV2(BASE, transport=server) as restarted:
        await restarted.get_location(DT)
        restarted.restore_cart_access(second, token)
        server.sent.clear()
        await restarted.delete_cart(DT, second)  # a restart knows the token only: read first
    assert [r.method for r in server.sent] == ["GET", "DELETE"]
    assert server.sent[1].headers["if-match"].startswith('"cart-')


async def test_deleting_a_cart_this_client_holds_no_token_for_is_the_servers_to_refuse() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        await client.get_location(DT)
        server.sent.clear()
        with pytest.raises(StorefrontError) as refused:
            await client.delete_cart(DT, "f" * 24)
    assert refused.value.status in (401, 404)
    assert [r.method for r in server.sent] == ["DELETE"]


async def test_a_delivery_without_a_country_is_sent_as_the_united_states() -> None:
    server = Rewriting()
    address = DeliveryAddress.model_validate(
        {
            "street": "1 Main St",
            "city": "Springfield",
            "state": "IL",
            "zipCode": "62701",
            "country": "",
            "lat": 39.8,
            "lng": -89.6,
        }
    )
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.DELIVERY)).cart_id
        with contextlib.suppress(StorefrontError):
            await client.set_delivery(DT, cart_id, address)
    [sent] = [r for r in server.sent if r.url.path.endswith("/set-delivery")]
    assert json.loads(sent.content)["country"] == "United States"


@pytest.mark.parametrize("answer", [[], {}, {"ready": "yes"}, {"ready": None}], ids=str)
async def test_a_readiness_answer_without_a_yes_or_no_is_refused(answer: Any) -> None:
    server = Rewriting()

    def broken(request: httpx.Request, data: Any) -> Any:
        return answer if request.url.path.endswith("/ordering-readiness") else data

    server.rewrite = broken
    async with StorefrontClientV2(BASE, transport=server) as client:
        with pytest.raises(ResponseFormatError):
            await client.ordering_readiness(DT, FulfillmentMethod.PICKUP)


async def test_cross_sell_reads_a_bare_or_a_wrapped_list() -> None:
    server = Rewriting()
    async with StorefrontClientV2(BASE, transport=server) as client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        bare = await client.cross_sell(DT, cart_id)
        assert bare, "the demo suggests something for an empty cart"

        def wrapped(request: httpx.Request, data: Any) -> Any:
            return {"products": data} if request.url.path.endswith("/products") else data

        server.rewrite = wrapped
        assert [p.id for p in await client.cross_sell(DT, cart_id)] == [p.id for p in bare]


async def test_a_handoff_brings_a_page_and_nothing_made_up() -> None:
    """2.0's hand-off gives the page to pay on, no client secret; a cart this client never had
    a token for gets none invented; a hand-off without a page is told in the kiosk's words."""
    sent: list[httpx.Request] = []
    page: list[Any] = ["https://pay.example.test/h/1"]

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        path = request.url.path
        if path.endswith(f"/locations/{DT}"):
            return httpx.Response(200, json=LOCATION)
        if path.endswith("/checkout-handoffs"):
            return httpx.Response(201, json={"checkoutUrl": page[0], "expiresAt": None})
        return httpx.Response(401, json={"code": "UNAUTHORIZED", "message": "No cart token."})

    async with StorefrontClientV2(BASE, transport=httpx.MockTransport(answer)) as client:
        intent = await client.create_payment_intent(DT, "c" * 24)
        assert intent.checkout_url == page[0]
        assert intent.client_secret.get_secret_value() == ""
        with pytest.raises(StorefrontError):
            await client.get_cart(DT, "c" * 24)
        assert all("x-cart-token" not in r.headers for r in sent)
        page[0] = ""
        with pytest.raises(StorefrontError) as refused:
            await client.create_payment_intent(DT, "d" * 24)
    assert refused.value.message == "The checkout page could not be opened"
