"""Issue 32, item 5: the server's words where it has them. One place decides what a customer reads
for a refusal (kiosk.tui.errors.refusal_words): a documented code in the kiosk's own sentence, in
the customer's language; the server's customer-safe message for other codes (and for the reason
of a VALIDATION_ERROR, where the customer reads English); a format rule only for input the kiosk
checked itself; one instruction at most. Tested by class: every documented code, every kind of
error, every language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from kiosk.api import errors as api
from kiosk.i18n import LANGUAGES, catalogue, set_language
from kiosk.tui.errors import (
    CHECK_AGAIN,
    CODE_WORDS,
    DEMO_CODE_WORDS,
    GENERIC_MESSAGES,
    REFUSED_FIELDS,
    describe,
    says_what_to_do,
)
from kiosk.tui.widgets.chrome import Banner, FieldError

FACTS = Path(__file__).resolve().parents[1] / "data" / "vendor-v2" / "openapi-facts.json"
STATUS = {
    "VALIDATION_ERROR": 400,
    "UNAUTHORIZED": 401,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "RATE_LIMITED": 429,
    "CART_CONFLICT": 409,
    "RESOURCE_CONFLICT": 409,
    "CART_IMMUTABLE": 409,
    "IDEMPOTENCY_KEY_REQUIRED": 400,
    "IDEMPOTENCY_KEY_REUSED": 409,
    "IDEMPOTENCY_IN_PROGRESS": 409,
    "DEPENDENCY_UNAVAILABLE": 503,
    "INTERNAL_ERROR": 500,
}
# What servers say: plain words that give an instruction, that give none, and developer text.
SAYS_WHAT_TO_DO = "This order has expired. Please start a new one."
SAYS_WHY_ONLY = "That discount code is not valid here."
DEVELOPERS = "HTTP 409 CART_CONFLICT [see details.fields]"


def documented_codes() -> list[str]:
    """The error codes of the vendor's envelope (CommerceErrorEnvelope.code's enum)."""
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    code = facts["components"]["schemas"]["CommerceErrorEnvelope"]["properties"]["code"]
    (listed,) = [branch["enum"] for branch in code["anyOf"] if "enum" in branch]
    return list(listed)


def refused(code: str, text: str | None, field: str | None = None) -> api.StorefrontError:
    """The client's error for a 2.0 error envelope with `code` and `text` as its message."""
    body = {"code": code, "message": text or "", "requestId": "req-12345678"}
    if field:
        body["details"] = {"field": field}
    return api.error_from_response(STATUS.get(code, 400), json.dumps(body).encode())


@pytest.fixture(params=sorted(LANGUAGES))
def lang(request: pytest.FixtureRequest) -> str:
    set_language(request.param)
    yield request.param
    set_language("en")


def sentences() -> list[str]:
    return sorted(
        {
            *CODE_WORDS.values(),
            *DEMO_CODE_WORDS.values(),
            *GENERIC_MESSAGES.values(),
            *REFUSED_FIELDS.values(),
        }
    )


def test_every_documented_code_has_its_sentence_in_both_catalogues() -> None:
    codes = documented_codes()
    assert len(codes) == 13
    assert sorted(CODE_WORDS) == sorted(codes)
    for language in LANGUAGES:
        if language == "en":
            continue
        for sentence in sentences():
            translated = catalogue(language).gettext(sentence)
            assert translated and translated != sentence, (language, sentence)


def test_a_documented_code_is_said_in_the_kiosks_words_in_every_language(lang: str) -> None:
    for code in documented_codes():
        if code == "VALIDATION_ERROR":
            continue
        for text in (SAYS_WHAT_TO_DO, SAYS_WHY_ONLY, DEVELOPERS, None):
            failure = describe(refused(code, text))
            ours = catalogue(lang).gettext(CODE_WORDS[code])
            if code == "RATE_LIMITED":
                assert failure.message.startswith(ours.rstrip(".")), (code, failure.message)
            else:
                assert failure.message == ours, (lang, code, text, failure.message)


def test_a_validation_error_is_the_servers_reason_where_the_customer_reads_it(lang: str) -> None:
    reason = "This code needs an order of at least £20.00. Add £13.29 more."
    failure = describe(refused("VALIDATION_ERROR", reason, "code"))
    if lang == "en":
        assert failure.message == reason
    else:
        # The server explains in English: the kiosk says it in the customer's language.
        assert failure.message == catalogue(lang).gettext(REFUSED_FIELDS["code"])
        assert "Add" not in failure.message
    # Developer text is never shown; the field is still named, without a rule.
    failure = describe(refused("VALIDATION_ERROR", DEVELOPERS, "code"))
    assert failure.message == catalogue(lang).gettext(REFUSED_FIELDS["code"])


def test_another_code_shows_the_servers_customer_safe_message(lang: str) -> None:
    failure = describe(refused("PROMO_EXPIRED", "This code has expired.", "code"))
    assert failure.message == "This code has expired."
    failure = describe(refused("PROMO_EXPIRED", DEVELOPERS, "code"))
    assert failure.message == catalogue(lang).gettext(GENERIC_MESSAGES["InvalidRequestError"])


def test_a_format_rule_only_for_input_the_kiosk_checked_itself(lang: str) -> None:
    rule = {"en": "letters and digits", "es": "letras y números"}[lang]
    for text in (SAYS_WHY_ONLY, DEVELOPERS, "Minimum spend not met.", None):
        for code in ("VALIDATION_ERROR", "PROMO_NOT_APPLICABLE"):
            shown = describe(refused(code, text, "code"))
            assert rule not in shown.message + shown.hint, (code, text, shown)
    checked = api.InvalidRequestError(
        code="VALIDATION_ERROR", field="code", details={"rule": "pattern", "origin": "kiosk"}
    )
    assert rule in describe(checked).message


def instructions(text: str) -> int:
    """How many sentences of an English text tell the reader what to do."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p]
    return sum(1 for part in parts if says_what_to_do(part))


def test_the_kiosks_sentences_give_one_instruction_at_most() -> None:
    for sentence in sentences():
        assert instructions(sentence) <= 1, sentence


def test_no_sentence_gets_a_second_instruction() -> None:
    texts = (SAYS_WHAT_TO_DO, SAYS_WHY_ONLY, DEVELOPERS, "Add £13.29 more.", None)
    codes = [*documented_codes(), "PROMO_EXPIRED", None]
    for code in codes:
        for text in texts:
            for field in (None, "code", "emailAddress"):
                failure = describe(refused(code or "", text, field))
                if failure.retryable:
                    # The hint is the way forward ("Press R to try again"): the words say why.
                    assert instructions(failure.message) == 0, (code, text, failure)
                elif failure.hint:
                    assert failure.hint == CHECK_AGAIN
                    assert instructions(failure.message) == 0, (code, text, failure)
                shown = f"{failure.message} {failure.hint}"
                assert shown.count("try again") <= 1 or "Press" in shown, shown
    # The server's words that give none get the one instruction; those that give one, none.
    assert describe(refused("PROMO_EXPIRED", SAYS_WHY_ONLY)).hint == CHECK_AGAIN
    assert describe(refused("PROMO_EXPIRED", SAYS_WHAT_TO_DO)).hint == ""


def test_every_kind_of_error_is_said_in_the_customers_language(lang: str) -> None:
    english = []
    for name in GENERIC_MESSAGES:
        cls = getattr(api, name)
        error = cls()
        said = describe(error).message
        assert said == catalogue(lang).gettext(GENERIC_MESSAGES[name]) or name == "RateLimitedError"
        english.append(said)
    if lang != "en":
        assert not set(english) & set(GENERIC_MESSAGES.values())


MARKUP = "Add [bold red]£5.00[/] more, [link=https://example.com]here[/link]."


def test_a_server_message_with_markup_is_not_shown_as_markup() -> None:
    for code in ("PROMO_EXPIRED", "VALIDATION_ERROR"):
        failure = describe(refused(code, MARKUP, "code"))
        assert "[" not in failure.message and "£5.00" not in failure.message, failure


async def test_the_widgets_draw_words_as_data() -> None:
    class Words(App[None]):
        def compose(self) -> ComposeResult:
            yield Banner(id="banner")
            yield FieldError(id="field")

    app = Words()
    async with app.run_test(size=(120, 10)):
        app.query_one(Banner).show(MARKUP, hint="[b]x[/b]")
        app.query_one(FieldError).show(MARKUP)
        for widget in (app.query_one(Banner), app.query_one(FieldError)):
            # Drawn as its characters: the brackets are there to read, nothing is styled by them.
            drawn = widget.render()
            plain = drawn.plain  # type: ignore[union-attr]
            assert "[bold red]£5.00[/]" in plain and "[link=" in plain, plain


def test_the_demo_cards_decline_is_said_in_the_customers_language(lang: str) -> None:
    """The demo's own code (not the vendor's) is said in our words, not the demo's English."""
    failure = describe(refused("CARD_DECLINED", "The card was declined; try another card"))
    assert failure.message == catalogue(lang).gettext(DEMO_CODE_WORDS["CARD_DECLINED"])
