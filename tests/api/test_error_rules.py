"""The error rules at their edges (kiosk/api/errors.py): which secrets are scrubbed from server
text, what a screen may show of it, how a refusal's code, fields and wait are read whatever the
body's shape, and which class each answer becomes. test_errors.py has the main shapes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kiosk.api.errors import (
    ConflictError,
    NotFoundError,
    StorefrontError,
    error_from_response,
    scrub,
)


def test_an_error_has_only_its_own_code() -> None:
    locked = ConflictError(code="cart_locked")
    assert locked.has_code("CART_LOCKED") and locked.has_code("other", "Cart_Locked")
    assert not locked.has_code("IDEMPOTENCY_IN_PROGRESS")
    assert not StorefrontError().has_code("CART_LOCKED")  # no code: none of them


def test_a_secret_of_four_characters_or_more_is_scrubbed_a_shorter_one_is_not() -> None:
    # A short "secret" (a misconfigured key) would blank out ordinary words of the server's text.
    assert scrub("key abcd refused", ["abcd"]) == "key [redacted] refused"
    assert scrub("the cab was refused", ["cab", ""]) == "the cab was refused"


def test_server_text_is_scrubbed_of_the_secrets_the_client_knows() -> None:
    error = error_from_response(400, b'{"message": "token tok9 expired"}', secrets=("tok9",))
    assert error.server_message == "token [redacted] expired"


def test_server_text_of_160_characters_is_kept_whole_and_longer_text_is_cut_to_160() -> None:
    exact = "a" * 160
    error = error_from_response(400, b'{"message": "' + exact.encode() + b'"}')
    assert error.server_message == exact
    longer = error_from_response(400, b'{"message": "' + b"b" * 161 + b'"}')
    assert longer.server_message == "b" * 159 + "…"


def test_server_text_with_a_comparison_is_kept_and_markup_is_dropped() -> None:
    for said in ("Quantity must be < 10", "Quantity must be > 0"):
        error = error_from_response(400, b'{"message": "' + said.encode() + b'"}')
        assert error.server_message == said and error.message == said
    markup = error_from_response(400, b'{"message": "<b>Closed</b>"}')
    assert markup.server_message is None


def test_server_text_is_one_line_with_single_spaces() -> None:
    error = error_from_response(409, b'{"message": "Cart\\nis\\t\\tlocked\\r\\n"}')
    assert error.server_message == "Cart is locked"


@pytest.mark.parametrize(
    ("said", "wait"),
    [
        ("7", 7.0),
        (" 2.5 ", 2.5),
        ("0", 0.0),
        ("0.5", 0.5),
        (0, 0.0),
        (0.5, 0.5),
        (3, 3.0),
        ("-1", None),
        (-1, None),
        ("nan", None),
        ("inf", None),
        ("soon", None),
        (True, None),
        (None, None),
    ],
)
def test_a_body_wait_is_a_finite_number_of_seconds_not_below_zero(said: Any, wait: Any) -> None:
    body = json.dumps({"error": "rate_limit_exceeded", "retryAfter": said}).encode()
    assert error_from_response(429, body).retry_after == wait


@pytest.mark.parametrize(
    "where", ["/emailAddress", "body.emailAddress", "#/emailAddress", "(root).emailAddress"]
)
def test_a_field_path_names_its_first_member_whatever_its_spelling(where: str) -> None:
    body = json.dumps({"code": "VALIDATION_ERROR", "details": {"field": where}}).encode()
    assert error_from_response(400, body).field == "emailAddress"


def test_at_most_eight_fields_are_named() -> None:
    names = [f"field{n}" for n in range(9)]
    body = json.dumps({"code": "VALIDATION_ERROR", "details": {"fields": names}}).encode()
    assert error_from_response(400, body).details["fields"] == ",".join(names[:8])


@pytest.mark.parametrize("key", ["field", "path", "name", "loc", "property", "pointer"])
def test_a_field_entry_names_its_field_under_any_of_the_usual_keys(key: str) -> None:
    entry = {key: "/tableNumber", "message": "Required"}
    body = json.dumps({"code": "VALIDATION_ERROR", "details": {"fields": [entry]}}).encode()
    error = error_from_response(400, body)
    assert error.field == "tableNumber" and error.details["fields"] == "tableNumber"


def test_a_refusals_details_keep_scalars_and_short_id_lists_and_drop_the_rest() -> None:
    details = {
        "limit": 3,
        "itemIds": ["item_1", " item_2 ", "x" * 64, "y" * 65],
        "nested": {"a": "b"},
        "numbers": [1, 2],
        "many": ["i"] * 51,
        "enough": ["i"] * 50,
    }
    body = json.dumps({"code": "ITEMS_UNAVAILABLE", "details": details}).encode()
    kept = error_from_response(409, body).details
    assert kept["limit"] == 3
    assert kept["itemIds"] == ("item_1", "item_2", "x" * 64)  # an over-long id is no id
    assert kept["enough"] == ("i",) * 50
    assert "nested" not in kept and "numbers" not in kept and "many" not in kept


def test_a_plain_text_body_with_a_stray_byte_still_reaches_staff() -> None:
    error = error_from_response(503, b"Service \xff down")
    assert error.server_message == "Service \ufffd down"


@pytest.mark.parametrize(
    "body",
    [
        {"message": "Locked", "details": {"code": "cart_locked"}},
        {"error": "", "details": {"code": "cart_locked"}},
        {"error": 409, "details": {"code": "cart_locked"}},
        {"code": "", "error": "cart_locked"},
        {"code": 7, "error": "cart_locked"},
    ],
)
def test_a_refusals_code_is_its_code_else_its_error_else_its_details_code(
    body: dict[str, Any],
) -> None:
    error = error_from_response(409, json.dumps(body).encode())
    assert error.code == "CART_LOCKED"


@pytest.mark.parametrize("key", ["status", "statusCode"])
def test_a_success_answer_that_says_it_failed_reports_the_status_its_body_claims(
    key: str,
) -> None:
    body = {"success": False, "code": "NOT_FOUND", "message": "No such cart", key: 404}
    error = error_from_response(200, json.dumps(body).encode())
    assert type(error) is NotFoundError and error.status == 404
    body[key] = 400  # the first error status
    assert error_from_response(200, json.dumps(body).encode()).status == 400
    for claimed in (200, True, "404"):
        body[key] = claimed
        assert error_from_response(200, json.dumps(body).encode()).status == 200


def test_a_request_id_is_kept_only_when_it_is_a_text() -> None:
    for odd in (12345, "", None):
        body = json.dumps({"code": "NOT_FOUND", "requestId": odd}).encode()
        error = error_from_response(404, body)
        assert "requestId" not in error.details and error.request_id is None
    said = error_from_response(404, b'{"code": "NOT_FOUND", "requestId": "req-1"}')
    assert said.request_id == "req-1"


def test_a_field_named_beside_the_message_is_the_refusals_field() -> None:
    body = b'{"code": "VALIDATION_ERROR", "message": "Bad email", "field": "emailAddress"}'
    assert error_from_response(400, body).field == "emailAddress"


@pytest.mark.parametrize("status", [300, 301, 302, 307])
def test_a_redirect_is_a_plain_failure_not_a_problem_with_the_order(status: int) -> None:
    # httpx follows no redirect: a proxy's 3xx is the service's trouble, not the customer's.
    error = error_from_response(status, b"")
    assert type(error) is StorefrontError and error.status == status
    assert error.message == StorefrontError.default_message


def test_the_last_success_status_still_reads_a_body_that_says_it_failed() -> None:
    error = error_from_response(299, b'{"success": false, "code": "NOT_FOUND"}')
    assert type(error) is NotFoundError


def test_a_details_code_that_is_not_a_text_is_no_code() -> None:
    error = error_from_response(400, b'{"message": "Bad", "details": {"code": 5}}')
    assert error.code is None and error.message == "Bad"


def test_every_field_a_schema_check_names_is_listed_for_the_screens() -> None:
    problems = [
        "emailAddress: 'x' does not match '^.+@.+$'",
        "(root): 'customerName' is a required property",
    ]
    body = json.dumps({"code": "VALIDATION_ERROR", "details": {"problems": problems}}).encode()
    error = error_from_response(400, body)
    assert error.field == "emailAddress"
    assert error.details["fields"] == "emailAddress,customerName"
    one = json.dumps({"code": "VALIDATION_ERROR", "details": {"problems": problems[:1]}})
    assert "fields" not in error_from_response(400, one.encode()).details
