"""The legacy contract's A-tagged validate route is optional: a real legacy server may answer 404 or
405 there (issue 10). The client then re-reads the cart, remembers that this server has no such
route, and checkout goes on (the payment intent refuses a cart that cannot be paid for)."""

from __future__ import annotations

import pytest

from kiosk.api.errors import ConflictError, NotFoundError, UnsupportedOperationError

from .conftest import ClientFactory, Server, ok, spec_cart


@pytest.mark.parametrize("status", [404, 405])
async def test_a_server_without_validate_is_remembered(
    make_client: ClientFactory, server: Server, status: int
) -> None:
    client = make_client()
    cart = spec_cart()
    server.reply(ok({"success": False, "message": "Not Found"}, status=status), ok(cart))
    result = await client.validate_cart("loc_1", cart["id"])
    assert result.valid
    assert [r.method + " " + r.url.path.rsplit("/", 1)[-1] for r in server.requests] == [
        "POST validate",
        "GET " + cart["id"],
    ]
    # Remembered: the next checkout asks nothing.
    before = len(server.requests)
    assert (await client.validate_cart("loc_1", cart["id"])).valid
    assert len(server.requests) == before


async def test_a_missing_cart_is_still_an_error(make_client: ClientFactory, server: Server) -> None:
    client = make_client()
    server.reply(ok({"message": "Not Found"}, status=404), ok({"message": "Not Found"}, status=404))
    with pytest.raises(NotFoundError):
        await client.validate_cart("loc_1", "crt_gone")


@pytest.mark.parametrize("status", [404, 405])
async def test_a_server_without_remove_discount_is_remembered(
    make_client: ClientFactory, server: Server, status: int
) -> None:
    client = make_client()
    cart = spec_cart()
    assert client.offers("remove_discount")
    server.reply(ok({"success": False, "message": "Not Found"}, status=status), ok(cart))
    with pytest.raises(UnsupportedOperationError) as refused:
        await client.remove_discount("loc_1", cart["id"])
    assert refused.value.code == UnsupportedOperationError.CODE
    assert [r.method + " " + r.url.path.rsplit("/", 1)[-1] for r in server.requests] == [
        "DELETE discount",
        "GET " + cart["id"],
    ]
    # Remembered: the screens hide the button, and a second try sends nothing.
    assert not client.offers("remove_discount")
    before = len(server.requests)
    with pytest.raises(UnsupportedOperationError):
        await client.remove_discount("loc_1", cart["id"])
    assert len(server.requests) == before
    assert client.offers("validate")  # one missing route says nothing of another


async def test_a_refused_remove_discount_is_not_a_missing_route(
    make_client: ClientFactory, server: Server
) -> None:
    client = make_client()
    server.reply(ok({"message": "The cart is locked", "code": "CART_LOCKED"}, status=409))
    with pytest.raises(ConflictError):
        await client.remove_discount("loc_1", "crt_1")
    assert client.offers("remove_discount")
