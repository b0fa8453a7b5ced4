"""Journey 8: no customer screen shows "contract", "details", an API field name, an HTTP status or
"Idempotency-Key". Walks every text an error can become on a screen (kiosk.tui.errors.describe:
the message and the hint), for every error class and field, with the server's worst texts, in
every language."""

from __future__ import annotations

import inspect
import re

import pytest

from kiosk.api import errors as api
from kiosk.api.request_schema import _schemas
from kiosk.i18n import LANGUAGES, set_language
from kiosk.tui.errors import customer_safe, describe, field_words

SERVER_TEXTS = [
    "The request body does not match the contract [see details.fields].",
    "A request with this Idempotency-Key is still running",
    "HTTP 409 CART_CONFLICT",
    "emailAddress must match format email",
    "tableNumber: '7a' does not match '^\\\\d+(?:\\\\.\\\\d+)?$'",
    "Request failed with status code 422",
    None,
]
# An HTTP status is a bare 4xx/5xx (not a limit: "500 characters"); API words in any case;
# a field name in camelCase; a machine code; brackets.
FORBIDDEN = re.compile(
    r"(?i:contract|details|idempotency|http)|\b[45]\d\d\b(?! (?:characters|caracteres))"
    r"|\b[a-z]+[A-Z][a-z]+|\b[A-Z]+_[A-Z]+|\[|\]"
)


def _fields() -> list[str]:
    """Every member of every body the kiosk sends (the vendor's schemas)."""
    data = _schemas()
    names: set[str] = set()
    for schema in [*data["operations"].values(), *data["components"]["schemas"].values()]:
        for branch in [schema, *schema.get("oneOf", [])]:
            names.update(branch.get("properties", {}))
    return sorted(names)


def _error_classes() -> list[type[api.StorefrontError]]:
    return [
        c for _, c in inspect.getmembers(api, inspect.isclass) if issubclass(c, api.StorefrontError)
    ]


@pytest.fixture(params=sorted(LANGUAGES))
def lang(request: pytest.FixtureRequest) -> str:
    set_language(request.param)
    yield request.param
    set_language("en")


def _shown(failure: object) -> str:
    return f"{failure.message} {failure.hint}"  # type: ignore[attr-defined]


def test_the_walk_itself_catches_jargon() -> None:
    for text in SERVER_TEXTS[:-1]:
        assert text is not None
        assert FORBIDDEN.search(text) and not customer_safe(text), text


def test_every_error_class_with_every_server_text(lang: str) -> None:
    for cls in _error_classes():
        for text in SERVER_TEXTS:
            for field in (None, "emailAddress", "unknownThing"):
                error = cls(server_message=text, status=400, code="VALIDATION_ERROR", field=field)
                shown = _shown(describe(error))
                assert not FORBIDDEN.search(shown), (lang, cls.__name__, text, shown)
                assert shown.strip()


@pytest.mark.parametrize("rule", ["required", "minLength", "maxLength", "pattern", "maximum"])
def test_every_field_of_every_body_in_the_customers_words(lang: str, rule: str) -> None:
    for field in _fields():
        error = api.InvalidRequestError(
            code="VALIDATION_ERROR", field=field, details={"rule": rule, "origin": "kiosk"}
        )
        shown = _shown(describe(error))
        assert not FORBIDDEN.search(shown), (lang, field, shown)
        said = field_words(error, field)
        if said is not None:
            assert shown.startswith(said)


def test_the_discount_code_is_said_with_the_documents_numbers(lang: str) -> None:
    # The kiosk's own check (kiosk.api.request_schema.check_body), before anything is sent.
    error = api.InvalidRequestError(
        code="VALIDATION_ERROR", field="code", details={"origin": "kiosk"}
    )
    said = describe(error).message
    assert "6" in said and "24" in said
    if lang == "en":
        assert said == "That code has letters and digits only, 6 to 24 of them."
    if lang == "es":
        assert said == "El código lleva solo letras y números, entre 6 y 24."


def test_a_servers_own_refusal_in_plain_words_is_kept() -> None:
    """ "This code has expired" is the customer's business: shown as the server said it."""
    error = api.InvalidRequestError(
        server_message="This code has expired.", code="INVALID_DISCOUNT_CODE", field="code"
    )
    assert describe(error).message == "This code has expired."


def test_check_and_try_again_is_never_said_twice(lang: str) -> None:
    for cls in _error_classes():
        failure = describe(cls())
        shown = _shown(failure)
        for ask in ("Please check and try again.", "Please check it and try again."):
            assert shown.count(ask) <= 1, shown
        if lang == "en":
            assert shown.count("try again") <= 1 or "Press" in shown, shown
