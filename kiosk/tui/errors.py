"""Every failure, said to a customer: a short message and a way forward. Never a traceback."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kiosk.i18n import N_, _, language

if TYPE_CHECKING:
    from kiosk.api.errors import StorefrontError

log = logging.getLogger("kiosk.tui")

ASK_STAFF = N_("If this keeps happening, please ask a member of staff.")
SOMETHING = N_("Something in your order needs another look.")
# The one instruction added to the server's own words when they do not say what to do.
CHECK_AGAIN = N_("Please check and try again.")
# The language the server writes its messages in (the vendor's documents and examples are
# English): a customer reading another language gets the kiosk's sentence where it has one.
SERVER_LANGUAGE = "en"

# The vendor's documented error codes (contract section 5), each in the kiosk's own words:
# one sentence, with at most one instruction (a retryable one has none: the hint says how).
# VALIDATION_ERROR is the exception: only the server knows which rule the input broke, so its
# reason comes first where the customer can read it (see refusal_words).
CODE_WORDS: dict[str, str] = {
    "VALIDATION_ERROR": SOMETHING,
    "UNAUTHORIZED": N_(
        "This kiosk is not signed in to the ordering service. Please ask a member of staff."
    ),
    "FORBIDDEN": N_("This kiosk may not take orders here right now. Please ask a member of staff."),
    "NOT_FOUND": N_("We couldn't find that. It may no longer be available."),
    "RATE_LIMITED": N_("We're very busy right now."),
    "CART_CONFLICT": N_("Your order changed in the meantime. Please check it and try again."),
    "RESOURCE_CONFLICT": N_(
        "The delivery address changed in the meantime. Please check it and try again."
    ),
    "CART_IMMUTABLE": N_("This order can no longer be changed. To order again, start over (F9)."),
    "IDEMPOTENCY_KEY_REQUIRED": N_("Something went wrong on this kiosk."),
    "IDEMPOTENCY_KEY_REUSED": N_("Something went wrong on this kiosk."),
    "IDEMPOTENCY_IN_PROGRESS": N_("Your last change is still being made."),
    "DEPENDENCY_UNAVAILABLE": N_("The ordering service is having trouble right now."),
    "INTERNAL_ERROR": N_("The ordering service is having trouble right now."),
}
# Codes of our own demo backend (kiosk/demo: its test card, the A/D keys), not the vendor's: said
# in the customer's language as the documented ones are.
DEMO_CODE_WORDS: dict[str, str] = {
    "CARD_DECLINED": N_("The card was declined. Please try another card."),
}
# The generic sentence for each kind of error, when neither a code nor the server says more.
GENERIC_MESSAGES = {
    "InvalidRequestError": SOMETHING,
    "NotFoundError": CODE_WORDS["NOT_FOUND"],
    "ConflictError": CODE_WORDS["CART_CONFLICT"],
    "UnprocessableError": N_("We can't take that order right now."),
    "PaymentDeclinedError": N_("The payment was declined."),
    "AuthenticationError": CODE_WORDS["UNAUTHORIZED"],
    "PermissionDeniedError": CODE_WORDS["FORBIDDEN"],
    "RateLimitedError": CODE_WORDS["RATE_LIMITED"],
    "ServerError": CODE_WORDS["INTERNAL_ERROR"],
    "APIConnectionError": N_("We can't reach the ordering service."),
    "APITimeoutError": N_("The ordering service is taking too long."),
    "ResponseFormatError": N_("The ordering service sent a reply we couldn't read."),
    "AmbiguousWriteError": N_("We couldn't confirm that change."),
    "UnsupportedOperationError": N_("That isn't possible at this restaurant's kiosk."),
    "StorefrontError": N_("Something went wrong."),
}
# A field the SERVER refused (VALIDATION_ERROR naming it), when its own words cannot be shown:
# the field, never a format rule (a rule is said only for a check the kiosk made itself, and the
# kiosk checks every field against the same schema before sending it: the server's rule is
# another one).
REFUSED_FIELDS = {
    "code": N_("That code can't be used for this order."),
    "emailAddress": N_("That email address wasn't accepted. Please check it."),
    "customerName": N_("That name wasn't accepted. Please check it."),
    "lastName": N_("That name wasn't accepted. Please check it."),
    "phoneNumber": N_("That phone number wasn't accepted. Please check it."),
    "tableNumber": N_("That table number wasn't accepted. Please check it."),
    "roomNumber": N_("That room number wasn't accepted. Please check it."),
    "orderTime": N_("That time can't be chosen now. Please choose another."),
    "orderDate": N_("That time can't be chosen now. Please choose another."),
    "pickupType": N_("That time can't be chosen now. Please choose another."),
    **dict.fromkeys(
        ("street", "streetOptional", "city", "state", "zipCode", "country", "lat", "lng"),
        N_("Please check the delivery address: a part of it is missing or not found."),
    ),
}
# The first word of a sentence that tells the reader what to do (the server's English).
_INSTRUCTION = re.compile(
    r"(?:^|[.!?]\s+)(?:please|add|choose|select|pick|remove|enter|start|ask|call|contact|use|"
    r"check|try|wait|change|update|order|pay|scan|come|go|visit|spend|keep|give)\b"
    r"|\bplease\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Failure:
    message: str
    hint: str
    retryable: bool
    # The server named a field or a modifier group: the screen shows the message there.
    field: str | None = None
    modifier_group_id: str | None = None
    code: str | None = None
    # Seconds until the call goes again by itself (a read refused by the rate limit, see
    # KioskScreen.call): a screen keeps what waits on it (a choice typed meanwhile).
    again_in: float | None = None


# Words a customer must never read: the API's own vocabulary, statuses, machine codes, brackets
# (server text is checked for them before it is shown; tests/tui/test_error_words.py walks every
# text the screens can say).
_JARGON = re.compile(
    r"contract|details|idempoten|http|status|request|header|schema|payload|json|"
    r"(?<![$€£¥\d.,])\b[45][0-9][0-9]\b(?![.,]\d)|[\[\]{}<>]|\b[A-Z]+_[A-Z_]+\b",
    re.IGNORECASE,
)
# An API field name (camelCase: emailAddress, tableNumber), case-sensitive.
_FIELD_NAME = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")


def customer_safe(text: str) -> bool:
    """Whether a text (the server's, say) is fit for a customer: no API words, field names,
    statuses or codes."""
    return not (_JARGON.search(text) or _FIELD_NAME.search(text))


def _limit(error: BaseException, field: str, key: str, default: int) -> int:
    """A limit of the broken rule: the error's own (our schema check), else the vendor's schema
    for that field (a server's refusal names the field only), else `default`."""
    details = getattr(error, "details", {}) or {}
    value = details.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    from kiosk.api.request_schema import field_limit

    found = field_limit(field, key)
    return found if found is not None else default


def field_words(error: BaseException, field: str) -> str | None:
    """A refused field in the customer's words (None: no words for that field). The numbers are
    the vendor schema's."""
    rule = (getattr(error, "details", {}) or {}).get("rule")
    if field == "code":
        return _("That code has letters and digits only, {low} to {high} of them.").format(
            low=_limit(error, field, "minLength", 6), high=_limit(error, field, "maxLength", 24)
        )
    if field == "emailAddress":
        if rule == "maxLength":
            return _("Please keep your email address to {n} characters or fewer.").format(
                n=_limit(error, field, "maxLength", 254)
            )
        return _("That email address doesn't look right (for example: name@example.com).")
    if field == "customerName":
        if rule in (None, "required", "minLength"):
            return _("Please enter your name, so we can call you when your order is ready.")
        return _("Please keep your name to {n} characters or fewer.").format(
            n=_limit(error, field, "maxLength", 100)
        )
    if field == "phoneNumber":
        return _("Please keep the phone number to {n} characters or fewer.").format(
            n=_limit(error, field, "maxLength", 32)
        )
    if field == "tableNumber":
        return _("A table number has digits only, like 7.")
    if field == "roomNumber":
        return _("A room number has digits only, up to {n} of them, like 214.").format(
            n=_limit(error, field, "maxLength", 20)
        )
    if field == "lastName":
        return _("Please enter the last name the room is booked under (up to {n} letters).").format(
            n=_limit(error, field, "maxLength", 100)
        )
    if field == "specialInstructions":
        return _("Please keep special instructions to {n} characters or fewer.").format(
            n=_limit(error, field, "maxLength", 500)
        )
    if field == "quantity":
        return _("You can order up to {n} of one item.").format(
            n=_limit(error, field, "maximum", 99)
        )
    if field in ("street", "streetOptional", "city", "state", "zipCode", "country", "lat", "lng"):
        return _("Please check the delivery address: a part of it is missing or not found.")
    return None


def rate_limit_wait(error: BaseException) -> float | None:
    """Seconds until a request refused by the rate limit may be sent again (the server's
    retryAfter, or the client's wait); None for any other failure."""
    from kiosk.api import errors as api

    if isinstance(error, api.RateLimitedError) and error.retry_after is not None:
        return max(0.0, float(error.retry_after))
    return None


def says_what_to_do(text: str) -> bool:
    """Whether a (server's, English) text already tells the customer what to do ("Add £13.29
    more.", "Please start a new one."): then nothing is added after it."""
    return _INSTRUCTION.search(text) is not None


def _checked_here(error: StorefrontError) -> bool:
    """Refused by the kiosk's own check of the vendor's schema, before anything was sent."""
    return error.details.get("origin") == "kiosk"


def refusal_words(error: StorefrontError) -> tuple[str, bool]:
    """The one sentence a customer reads for `error`, and whether it is the server's own words.

    In this order: input the kiosk checked itself, its rule (at the field, with the vendor
    schema's numbers); the kiosk's own account of a refusal (a conflict told with what changed);
    a documented code, the kiosk's sentence for it in the customer's language, except
    VALIDATION_ERROR, whose reason only the server knows ("Add £13.29 more"): its words where
    the customer reads the server's language, else ours for the field it names; another code,
    the server's words; else the generic sentence for the kind of error. The server's words
    are shown only when fit for a customer (customer_safe), and always as text, never markup.
    """
    field = error.field
    if field and _checked_here(error):
        said = field_words(error, field)
        if said is not None:
            return said, False
    message = error.message
    server = error.server_message
    if message not in (error.default_message, server) and customer_safe(message):
        return message, False  # the kiosk's own words (marked for the catalogue where made)
    code = error.code or ""
    # The server's words, when they are what the error says and fit for a customer.
    said = server if server is not None and message == server and customer_safe(server) else None
    if code == "VALIDATION_ERROR" and not _checked_here(error):
        if said is not None and language() == SERVER_LANGUAGE:
            return said, True
        return _(REFUSED_FIELDS.get(field or "", SOMETHING)), False
    if code in CODE_WORDS:
        return _(CODE_WORDS[code]), False
    if code in DEMO_CODE_WORDS:
        return _(DEMO_CODE_WORDS[code]), False
    if said is not None:
        return said, True
    return _(_generic(error)), False


def _generic(error: StorefrontError) -> str:
    for cls in type(error).__mro__:
        if cls.__name__ in GENERIC_MESSAGES:
            return GENERIC_MESSAGES[cls.__name__]
    return GENERIC_MESSAGES["StorefrontError"]


def describe(error: BaseException, *, retry_key: str = "R") -> Failure:
    """What to tell the customer about `error`, and whether trying again may help. The words
    are refusal_words'; the hint is the one way forward, added only where the words do not
    already give one."""
    # Imported here: kiosk.api pulls in httpx, which the first frame does not need.
    from kiosk.api import errors as api

    retry = _("Press {key} to try again, or Esc to go back.").format(key=retry_key)
    if not isinstance(error, api.StorefrontError):
        log.exception("unexpected error in the kiosk UI", exc_info=error)
        return Failure(_("Something went wrong on this kiosk."), f"{retry} {_(ASK_STAFF)}", True)
    message, servers = refusal_words(error)
    if isinstance(error, api.RateLimitedError):
        if error.retry_after:
            message = _("We're very busy right now (about {seconds} s to wait).").format(
                seconds=int(error.retry_after + 0.999)
            )
        return Failure(message, retry, True, code=error.code)
    if isinstance(error, api.AmbiguousWriteError):
        # What is known is that the change is unconfirmed, whatever the code of the failure.
        message = _(GENERIC_MESSAGES["AmbiguousWriteError"])
        if error.details.get("reloaded"):
            return Failure(
                message, _("Your order has been reloaded: please check it.") + " " + retry, True
            )
        # The check could not be made either: nothing was reloaded, and the next try checks
        # before it sends (the store remembers the unconfirmed write).
        return Failure(
            message, _("We'll check your order before trying again.") + " " + retry, True
        )
    if isinstance(error, api.APIConnectionError | api.ServerError | api.ResponseFormatError):
        return Failure(message, f"{retry} {_(ASK_STAFF)}", True, code=error.code)
    # A refusal: the kiosk's sentences are whole (one instruction at most); the server's get
    # one only when they give none.
    hint = _(CHECK_AGAIN) if servers and not says_what_to_do(message) else ""
    return Failure(
        message,
        hint,
        False,
        field=error.field,
        modifier_group_id=error.modifier_group_id,
        code=error.code,
    )
