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


async def test_a_bare_cart_with_lines_but_no_status_is_the_cart(
    client: StorefrontClient, server: Server
) -> None:
    bare = spec_cart(totalQuantity=3)
    del bare["status"]
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
    answers = await _probe(httpx.MockTransport(lambda r: httpx.Response(status, json={})))
    assert answers["v1"] == (False, f"no usable answer (HTTP {status})")
    assert answers["v2"] == (False, f"no usable answer (HTTP {status})")


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
