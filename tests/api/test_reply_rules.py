"""Rules of the shared client the mutation run (tools/mutate.py, docs/mutation.md) found untested:
what counts as a cart in a write's reply, what the doctor's probe says of a server that fails, and
which product pictures are fetched at all. Each breaks one rule a fast test did not notice."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from kiosk.api import ResponseFormatError, StorefrontClient
from kiosk.api.probe import probe_dialects

from .conftest import ClientFactory, Server, ok, spec_cart

# ---------------------------------------------------------------- a write's reply


@pytest.mark.parametrize("missing", ["status", "items"])
async def test_a_bare_cart_with_lines_or_a_status_is_the_cart(
    client: StorefrontClient, server: Server, missing: str
) -> None:
    bare = spec_cart(totalQuantity=3)
    del bare[missing]
    server.reply(ok(bare))
    cart = await client.add_item("loc_1", "cart_1", "prod_1", 1)
    assert cart.total_quantity == 3
    assert len(server.requests) == 1  # not read back: the reply was the cart


@pytest.mark.parametrize(
    "reply",
    [{"id": "cart_1"}, {"id": "cart_1", "note": "saved"}],
    ids=["id-only", "id-and-other"],
)
async def test_a_reply_with_an_id_but_neither_lines_nor_status_is_read_back(
    client: StorefrontClient, server: Server, reply: dict[str, Any]
) -> None:
    server.reply(ok(reply), ok(spec_cart(totalQuantity=4)))
    cart = await client.set_table("loc_1", "cart_1", "7")
    assert cart.total_quantity == 4
    assert [r.method for r in server.requests] == ["PUT", "GET"]


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        ({"cartId": "cart_2", "status": "OPEN"}, "cart_2"),  # no id: not a cart, its id read
        ({"cartId": ""}, "cart_1"),  # an empty new id: the cart written is read
        ({"cartId": 7}, "cart_1"),
    ],
    ids=["cartId-and-status", "empty-cartId", "number-cartId"],
)
async def test_a_reply_naming_no_usable_cart_reads_the_right_one_back(
    client: StorefrontClient, server: Server, reply: dict[str, Any], read: str
) -> None:
    server.reply(ok(reply), ok(spec_cart(id=read)))
    cart = await client.set_table("loc_1", "cart_1", "7")
    assert cart.id == read
    assert server.requests[1].url.path == f"/api/v1/locations/loc_1/carts/{read}"


async def test_forgetting_the_product_list_asks_the_server_again(
    client: StorefrontClient, server: Server
) -> None:
    product = {"id": "prod_1", "name": "Latte", "price": "625"}
    server.reply(ok([product]), ok([product, {**product, "id": "prod_2"}]))
    assert len(await client.list_products("loc_1")) == 1
    assert len(await client.list_products("loc_1")) == 1  # kept: one request
    assert client.invalidate("loc_1", "products") == 1
    assert len(await client.list_products("loc_1")) == 2
    assert len(server.requests) == 2


async def test_a_bare_list_of_menus_is_read_as_the_menus(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok([{"id": "m1", "categories": []}, {"id": "m2", "categories": []}]))
    menus = await client.get_menus("loc_1")
    assert [m.id for m in menus.menus] == ["m1", "m2"]


@pytest.mark.parametrize(("amount", "sent"), [(0, "0.00"), (1, "0.01"), (250, "2.50")])
async def test_a_tip_of_any_amount_from_zero_is_sent(
    client: StorefrontClient, server: Server, amount: int, sent: str
) -> None:
    server.reply(ok({"cartId": "cart_1", "cart": spec_cart()}))
    await client.set_tip("loc_1", "cart_1", amount_minor=amount)
    assert server.body() == {"amount": sent}


async def test_a_negative_tip_is_refused_unsent(client: StorefrontClient, server: Server) -> None:
    with pytest.raises(ValueError):
        await client.set_tip("loc_1", "cart_1", amount_minor=-1)
    assert server.requests == []


async def test_a_server_without_a_test_payment_answers_no(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.Response(404, json={"error": "Not found"}))
    assert await client.test_payment_offered() is False


# ---------------------------------------------------------------- kiosk doctor's probe


async def _probe(transport: httpx.MockTransport) -> dict[str, tuple[bool, str]]:
    client = StorefrontClient(
        "https://api.example.com/api/v1", "sk_live_good_key_1234", transport=transport
    )
    try:
        return {a.dialect: (a.speaks, a.detail) for a in await probe_dialects(client, "loc_1")}
    finally:
        await client.aclose()


async def test_an_unreachable_server_answers_no_version() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    answers = await _probe(httpx.MockTransport(refuse))
    for dialect in ("v1", "v2"):
        speaks, detail = answers[dialect]
        assert speaks is False
        assert detail.startswith("unreachable (")


@pytest.mark.parametrize("status", [500, 503])
async def test_a_failing_server_gives_no_usable_answer_with_its_status(status: int) -> None:
    asked: list[httpx.Request] = []

    def fail(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return httpx.Response(status, json={})

    answers = await _probe(httpx.MockTransport(fail))
    assert answers["v1"] == (False, f"no usable answer (HTTP {status})")
    assert answers["v2"] == (False, f"no usable answer (HTTP {status})")
    assert len(asked) == 2  # one try per version: a diagnosis wants a prompt answer


# ---------------------------------------------------------------- product pictures

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def _pictures(server: Server) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=PNG, headers={"content-type": "image/png"})

    server.default = answer


@pytest.mark.parametrize(
    "url",
    [
        "http://img.example.test/latte.png",
        "https://img.example.test/latte.png",
        "/media/latte.png",  # relative: on the API's own origin
    ],
)
async def test_a_picture_at_an_http_or_https_url_is_fetched(
    make_client: ClientFactory, server: Server, url: str
) -> None:
    _pictures(server)
    client = make_client()
    assert await client.get_image(url) == PNG
    sent = server.last
    assert sent.method == "GET" and sent.url.path.endswith("latte.png")
    assert "X-API-Key" not in sent.headers  # a picture never carries the key


@pytest.mark.parametrize(
    "url", ["ftp://img.example.test/latte.png", "file:///etc/passwd", "data:image/png;base64,AA"]
)
async def test_a_picture_at_any_other_scheme_is_refused_unsent(
    make_client: ClientFactory, server: Server, url: str
) -> None:
    _pictures(server)
    client = make_client()
    with pytest.raises(ResponseFormatError):
        await client.get_image(url)
    assert server.requests == []
