"""The legacy (v1) dialect's rules a customer or the server would notice when broken: which cart a
reply names, and which refusals are the cart's and not a route the server lacks."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import StorefrontClient, StorefrontError
from kiosk.api.errors import NotFoundError, ResponseFormatError

from .conftest import ClientFactory, Server, ok, spec_cart


async def _session_from(client: StorefrontClient, server: Server, reply: dict[str, Any]) -> Any:
    server.reply(ok(reply))
    return await client.start_ordering_session("loc_1", "pickup")


async def test_an_ordering_session_answered_with_the_cart_itself_names_that_cart(
    client: StorefrontClient, server: Server
) -> None:
    session = await _session_from(client, server, {"cart": spec_cart(id="cart_7")})
    assert session.ok and session.cart_id == "cart_7"


async def test_an_ordering_session_names_its_cart_id_over_a_partial_cart(
    client: StorefrontClient, server: Server
) -> None:
    session = await _session_from(client, server, {"cartId": "cart_7", "cart": {"status": "OPEN"}})
    assert session.ok and session.cart_id == "cart_7"


async def test_an_ordering_session_whose_cart_has_no_id_did_not_start(
    client: StorefrontClient, server: Server
) -> None:
    session = await _session_from(client, server, {"cart": {"status": "OPEN"}})
    assert not session.ok and session.cart_id == ""


@pytest.mark.parametrize(
    "reply",
    [
        {"cart": spec_cart(id="cart_9")},
        {"cartId": "", "cart": {"id": "cart_9"}},
        {"id": "cart_9", "status": "OPEN"},
        {"cartId": None, "id": "cart_9"},
    ],
    ids=["wrapped-cart", "empty-cart-id", "bare-cart", "null-cart-id"],
)
async def test_a_new_cart_is_the_one_the_reply_names_in_any_of_its_shapes(
    client: StorefrontClient, server: Server, reply: dict[str, Any]
) -> None:
    server.reply(ok(reply))
    assert await client.create_or_resume_cart("loc_1") == "cart_9"


@pytest.mark.parametrize(
    "reply", [{"cartId": ""}, {"cart": {"id": ""}}, {"cart": {"status": "OPEN"}}, {"cartId": 5}]
)
async def test_a_reply_naming_no_cart_is_not_a_cart(
    client: StorefrontClient, server: Server, reply: dict[str, Any]
) -> None:
    server.reply(ok(reply))
    with pytest.raises(ResponseFormatError):
        await client.create_or_resume_cart("loc_1")


async def test_a_validate_that_says_the_cart_is_gone_is_not_a_missing_route(
    make_client: ClientFactory, server: Server
) -> None:
    client = make_client()
    gone = ok({"message": "Cart not found", "code": "CART_NOT_FOUND"}, status=404)
    # Were the cart read again, it would answer: the refusal itself must be believed.
    server.reply(gone, ok(spec_cart()))
    with pytest.raises(NotFoundError):
        await client.validate_cart("loc_1", "cart_1")
    assert len(server.requests) == 1
    # Not remembered as a route this server lacks: the next checkout asks again.
    assert client.offers("validate")


# A processor's client secret not shaped like "pi_..._secret_...": only its value can scrub it.
PLAIN_SECRET = "cs_live_a1B2c3D4e5F6g7H8"


def _echoing(text: str) -> httpx.Response:
    return ok({"message": f"Refused: {text}", "code": "BAD_REQUEST"}, status=400)


def _shown(exc: StorefrontError) -> str:
    return f"{exc} {exc!r} {exc.message} {exc.server_message} {exc.details}"


async def test_a_client_secret_handed_out_never_shows_in_a_later_refusal(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"clientSecret": PLAIN_SECRET, "amount": 99}), _echoing(PLAIN_SECRET))
    await client.create_payment_intent("loc_1", "cart_1")
    with pytest.raises(StorefrontError) as refused:
        await client.get_cart("loc_1", "cart_1")
    assert PLAIN_SECRET not in _shown(refused.value)


async def test_a_client_secret_paid_with_after_a_restart_never_shows_in_a_later_refusal(
    client: StorefrontClient, server: Server
) -> None:
    # This client never created the intent (the terminal restarted): paying tells it the secret.
    server.reply(ok({"success": True}), _echoing(PLAIN_SECRET))
    await client.confirm_demo_payment(SecretStr(PLAIN_SECRET), "4242 4242 4242 4242")
    with pytest.raises(StorefrontError) as refused:
        await client.get_cart("loc_1", "cart_1")
    assert PLAIN_SECRET not in _shown(refused.value)
