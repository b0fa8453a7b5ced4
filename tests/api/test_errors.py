"""Error bodies of every shape become typed errors with a short human message."""

from __future__ import annotations

import httpx
import pytest

from kiosk.api import (
    AmbiguousWriteError,
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PaymentDeclinedError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    StorefrontClient,
    StorefrontError,
    UnprocessableError,
)
from kiosk.api.errors import error_from_response, parse_error_body

from .conftest import API_KEY, Server


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, InvalidRequestError),
        (401, AuthenticationError),
        (402, PaymentDeclinedError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, UnprocessableError),
        (429, RateLimitedError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (418, StorefrontError),
    ],
)
def test_status_maps_to_a_class(status: int, cls: type[StorefrontError]) -> None:
    error = error_from_response(status, b"")
    assert type(error) is cls
    assert error.status == status
    assert error.message and len(error.message) < 100


def test_shape_a() -> None:
    error = error_from_response(
        404, b'{"success": false, "message": "Cart not found", "code": "NOT_FOUND"}'
    )
    assert isinstance(error, NotFoundError)
    assert (error.code, error.message, error.server_message) == (
        "NOT_FOUND",
        "Cart not found",
        "Cart not found",
    )


def test_shape_b_with_details_and_retry_after() -> None:
    body = (
        b'{"error": "validation_error", "message": "Email is not valid", "status": 400,'
        b' "details": {"field": "emailAddress", "code": "invalid_format"}}'
    )
    error = error_from_response(400, body)
    assert isinstance(error, InvalidRequestError)
    assert error.code == "VALIDATION_ERROR" and error.field == "emailAddress"
    assert error.details == {"field": "emailAddress", "code": "invalid_format"}
    assert error.message == "Email is not valid"
    assert error.has_code("validation_error")
    limited = error_from_response(
        429, b'{"error": "rate_limit_exceeded", "message": "Slow down", "retryAfter": 42}'
    )
    assert isinstance(limited, RateLimitedError) and limited.retry_after == 42


def test_status_code_variant() -> None:
    error = error_from_response(
        409, b'{"error": "Conflict", "message": "Cart is locked", "statusCode": 409}'
    )
    assert isinstance(error, ConflictError)
    assert error.code == "CONFLICT" and error.message == "Cart is locked"


def test_public_api_codes_with_modifier_group() -> None:
    body = (
        b'{"error": "bad_request", "code": "INVALID_MODIFIER_SELECTION",'
        b' "message": "Choose a size", "modifierGroupId": "g_size"}'
    )
    error = error_from_response(400, body)
    assert error.code == "INVALID_MODIFIER_SELECTION" and error.modifier_group_id == "g_size"
    nested = error_from_response(
        400, b'{"error": "x", "message": "m", "details": {"modifierGroupId": "g2"}}'
    )
    assert nested.modifier_group_id == "g2"
    mismatch = error_from_response(
        403, b'{"error": "forbidden", "code": "LOCATION_MISMATCH", "message": "Wrong location"}'
    )
    assert isinstance(mismatch, PermissionDeniedError) and mismatch.has_code("LOCATION_MISMATCH")


@pytest.mark.parametrize(
    "body",
    [
        b"Service Unavailable",
        b"",
        b"   ",
        b"<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>",
        b"\xff\xfe\x00garbage",
        b"[1, 2]",
        b"null",
        b'"just a string"',
        b'{"message": 12, "code": ["x"], "details": "no", "retryAfter": "soon"}',
        b'{"retryAfter": -5, "status": true}',
    ],
)
def test_odd_bodies_never_crash(body: bytes) -> None:
    error = error_from_response(503, body)
    assert isinstance(error, ServerError)
    assert error.message == ServerError.default_message
    assert error.retry_after is None
    assert "<" not in (error.server_message or "")


def test_plain_text_is_kept_for_staff_but_not_shown_for_5xx() -> None:
    error = error_from_response(503, b"Service Unavailable")
    assert error.server_message == "Service Unavailable"
    assert error.message == ServerError.default_message


def test_server_text_is_one_bounded_line() -> None:
    long = b'{"message": "' + b"a\\nb " * 200 + b'"}'
    error = error_from_response(400, long)
    assert "\n" not in error.message and len(error.message) <= 160


def test_server_text_is_scrubbed_of_secrets() -> None:
    body = b'{"message": "Key sk_live_TOPSECRET_9f8e7d6c5b4a is not valid"}'
    error = error_from_response(400, body, secrets=[API_KEY])
    assert API_KEY not in error.message and API_KEY not in str(error)
    assert "[redacted]" in error.message
    assert parse_error_body(body, [API_KEY])["server_message"].count("[redacted]") == 1


def test_str_and_repr_are_useful() -> None:
    error = error_from_response(
        400, b'{"code": "CART_LOCKED", "message": "Locked", "details": {"field": "cartId"}}'
    )
    assert str(error) == "Locked (HTTP 400, CART_LOCKED, field=cartId)"
    assert repr(error) == "InvalidRequestError('Locked', status=400, code='CART_LOCKED')"


def test_hierarchy() -> None:
    assert issubclass(APITimeoutError, APIConnectionError)
    for cls in (AmbiguousWriteError, RateLimitedError, ServerError, APIConnectionError):
        assert issubclass(cls, StorefrontError)
    cause = APITimeoutError()
    ambiguous = AmbiguousWriteError(cause=cause)
    assert ambiguous.cause is cause and "check your order" in ambiguous.message


# ---------------------------------------------------------------- through the client


async def test_client_raises_the_typed_error_and_remembers_it(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(
        httpx.Response(
            401, json={"success": False, "message": "Invalid API key", "code": "UNAUTHORIZED"}
        )
    )
    with pytest.raises(AuthenticationError) as info:
        await client.get_location("loc_1")
    assert info.value.endpoint == "location" and info.value.code == "UNAUTHORIZED"
    assert client.last_error is info.value and client.last_error_at is not None
    assert len(server.requests) == 1  # a 401 is not retried


async def test_plain_text_503_on_a_read(client: StorefrontClient, server: Server) -> None:
    server.default = httpx.Response(503, text="Service Unavailable")
    with pytest.raises(ServerError) as info:
        await client.get_location("loc_1")
    assert info.value.status == 503 and info.value.server_message == "Service Unavailable"
    assert len(server.requests) == client.retry.max_attempts


async def test_validation_400_names_the_field(client: StorefrontClient, server: Server) -> None:
    server.reply(
        httpx.Response(
            400,
            json={
                "error": "validation_error",
                "message": "Please enter a valid email",
                "details": {"field": "emailAddress", "code": "invalid_format"},
            },
        )
    )
    with pytest.raises(InvalidRequestError) as info:
        await client.update_customer("loc_1", "cart_1", "Ada", "not-an-email")
    assert info.value.field == "emailAddress"
    assert info.value.message == "Please enter a valid email"


async def test_payment_decline_is_typed(client: StorefrontClient, server: Server) -> None:
    from pydantic import SecretStr

    server.reply(
        httpx.Response(
            402,
            json={
                "error": "payment_declined",
                "code": "CARD_DECLINED",
                "message": "Card 4000000000000002 declined for pi_9_secret_z",
            },
        )
    )
    with pytest.raises(PaymentDeclinedError) as info:
        await client.confirm_demo_payment(SecretStr("pi_9_secret_z"), "4000 0000 0000 0002")
    text = f"{info.value} {info.value!r} {info.value.server_message}"
    assert "pi_9_secret_z" not in text and "4000000000000002" not in text


def test_secret_shapes_are_scrubbed_even_when_not_known_by_value() -> None:
    body = (
        b'{"message": "Card 4000-0000-0000-0002 declined for pi_77_secret_abcDEF (order A100,'
        b' total $12.50, phone 212 555 0100)"}'
    )
    error = error_from_response(400, body)
    assert "4000" not in error.message and "pi_77_secret_abcDEF" not in error.message
    assert "[card]" in error.message and "[redacted]" in error.message
    # Ordinary numbers survive.
    assert "A100" in error.message and "$12.50" in error.message and "212 555 0100" in error.message
