"""Secrets (the API key, a payment clientSecret, a card number) never reach a repr, an exception
or a log line; the request log has one line per request with method, path, status and elapsed ms."""

from __future__ import annotations

import logging
import re
import traceback

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import AmbiguousWriteError, StorefrontClient, StorefrontError

from .conftest import API_KEY, ClientFactory, FakeClock, Server, ok, spec_cart

CLIENT_SECRET = "pi_3Nabc_secret_Zq9xLmTopSecret"
CARD = "4242 4242 4242 4242"
SECRETS = (API_KEY, CLIENT_SECRET, CARD, CARD.replace(" ", ""))


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"a secret leaked into: {text[:200]!r}"


def test_client_repr_and_attributes_hide_the_key(make_client: ClientFactory) -> None:
    client = make_client()
    assert_clean(repr(client))
    assert_clean(str(client))
    assert_clean(repr(vars(client)))
    assert client.key_id in repr(client)


async def test_payment_intent_never_shows_the_client_secret(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"clientSecret": CLIENT_SECRET, "paymentIntentId": "pi_3Nabc", "amount": 99}))
    intent = await client.create_payment_intent("loc_1", "cart_1")
    assert_clean(repr(intent) + str(intent) + intent.model_dump_json())
    assert intent.client_secret.get_secret_value() == CLIENT_SECRET


def _errors_from_every_path() -> list[tuple[str, object]]:
    echo = f"Key {API_KEY} and secret {CLIENT_SECRET} and card {CARD} rejected"
    return [
        ("400 echo", httpx.Response(400, json={"message": echo, "code": "X"})),
        ("401 shape A", httpx.Response(401, json={"success": False, "message": echo})),
        ("402 decline", httpx.Response(402, json={"error": "declined", "message": echo})),
        ("429 long", httpx.Response(429, json={"retryAfter": 999, "message": echo})),
        ("500 text", httpx.Response(500, text=echo)),
        ("read timeout", httpx.ReadTimeout),
        ("connect", httpx.ConnectError),
        ("bad json", httpx.Response(200, text="{not json " + API_KEY)),
        ("bad shape", httpx.Response(200, json={"clientSecret": {"x": CLIENT_SECRET}})),
    ]


@pytest.mark.parametrize(("label", "reply"), _errors_from_every_path())
async def test_exceptions_never_carry_a_secret(
    make_client: ClientFactory, server: Server, label: str, reply: object
) -> None:
    client = make_client()
    server.default = reply  # type: ignore[assignment]
    errors: list[StorefrontError] = []
    for call in (
        lambda: client.confirm_demo_payment(SecretStr(CLIENT_SECRET), CARD),
        lambda: client.create_payment_intent("loc_1", "cart_1"),
        lambda: client.get_location("loc_1"),
    ):
        try:
            await call()
        except StorefrontError as exc:
            errors.append(exc)
    assert errors, label
    for error in errors:
        assert_clean(str(error))
        assert_clean(repr(error))
        assert_clean(error.message)
        assert_clean(error.server_message or "")
        assert_clean(repr(error.details))
        assert_clean("".join(traceback.format_exception(error)))
        if isinstance(error, AmbiguousWriteError):
            assert_clean(repr(error.cause) + str(error.cause))


async def test_log_lines_one_per_request_without_secrets(
    client: StorefrontClient,
    server: Server,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx's included
    server.reply(
        ok({"clientSecret": CLIENT_SECRET, "amount": 5}),
        ok({"success": True}),
        httpx.ConnectError,
        ok(spec_cart()),
        httpx.Response(400, json={"message": f"bad key {API_KEY}"}),
    )
    await client.create_payment_intent("loc_1", "cart_1")
    await client.confirm_demo_payment(SecretStr(CLIENT_SECRET), CARD)
    await client.get_cart("loc_1", "cart_1")
    with pytest.raises(StorefrontError):
        await client.update_customer("loc_1", "cart_1", "Ada", "ada@example.test")
    for record in caplog.records:
        assert_clean(record.getMessage())
        assert_clean(repr(record.args))
    ours = [r.getMessage() for r in caplog.records if r.name == "kiosk.api"]
    request_lines = [m for m in ours if "->" in m]
    assert len(request_lines) == len(server.requests) == 5
    assert re.fullmatch(
        r"POST /locations/loc_1/carts/cart_1/payment-intent -> 200 in \d+ ms", request_lines[0]
    )
    assert re.fullmatch(r"POST /demo/processor/confirm -> 200 in \d+ ms", request_lines[1])
    assert re.fullmatch(r"GET /locations/loc_1/carts/cart_1 -> ConnectError after \d+ ms", ours[2])
    assert any("retry 1/3 in 0.50 s" in m for m in ours)
    assert re.fullmatch(
        r"PUT /locations/loc_1/cart/cart_1/validate-and-update -> 400 in \d+ ms", request_lines[-1]
    )
    # Bodies are never logged (the e-mail address is personal data).
    assert not any("ada@example.test" in r.getMessage() for r in caplog.records)


async def test_the_key_is_sent_only_as_the_header(client: StorefrontClient, server: Server):
    server.reply(ok(spec_cart()))
    await client.get_cart("loc_1", "cart_1")
    request = server.last
    assert request.headers["x-api-key"] == API_KEY
    assert API_KEY not in str(request.url)
    assert API_KEY not in request.content.decode()
