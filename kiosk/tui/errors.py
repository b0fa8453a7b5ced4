"""Every failure, said to a customer: a short message and a way forward. Never a traceback."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from kiosk.i18n import N_, _

log = logging.getLogger("kiosk.tui")

ASK_STAFF = N_("If this keeps happening, please ask a member of staff.")
SOMETHING = N_("Something in your order needs another look.")
# Endings of a message that already asks to check and try again (the hint then says nothing).
ASKS_AGAIN = (
    N_("Please check and try again."),
    N_("Please check it and try again."),
    N_("Please try again."),
)
# The client's own messages (kiosk.api.errors, English), marked here for the catalogue; used when
# the server's text is not fit for a customer.
GENERIC_MESSAGES = {
    "InvalidRequestError": SOMETHING,
    "NotFoundError": N_("We couldn't find that. It may no longer be available."),
    "ConflictError": N_("Your order changed in the meantime. Please check it and try again."),
    "UnprocessableError": N_("We can't take that order right now."),
    "PaymentDeclinedError": N_("The payment was declined."),
    "StorefrontError": N_("Something went wrong. Please try again."),
}


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


def describe(error: BaseException, *, retry_key: str = "R") -> Failure:
    """What to tell the customer about `error`, and whether trying again may help."""
    # Imported here: kiosk.api pulls in httpx, which the first frame does not need.
    from kiosk.api import errors as api

    retry = _("Press {key} to try again, or Esc to go back.").format(key=retry_key)
    if isinstance(error, api.RateLimitedError):
        busy = _("We're very busy right now. Please try again.")
        if error.retry_after:
            busy = _("We're very busy right now. Please try again in about {seconds} s.").format(
                seconds=int(error.retry_after + 0.999)
            )
        return Failure(busy, retry, True, code=error.code)
    if isinstance(error, api.AmbiguousWriteError):
        if error.details.get("reloaded"):
            return Failure(
                error.message,
                _("Your order has been reloaded: please check it.") + " " + retry,
                True,
            )
        # The check could not be made either: nothing was reloaded, and the next try checks
        # before it sends (the store remembers the unconfirmed write).
        return Failure(
            error.message, _("We'll check your order before trying again.") + " " + retry, True
        )
    if isinstance(error, api.APIConnectionError | api.ServerError | api.ResponseFormatError):
        return Failure(error.message, f"{retry} {_(ASK_STAFF)}", True, code=error.code)
    if isinstance(error, api.AuthenticationError | api.PermissionDeniedError):
        return Failure(error.message, _("Please ask a member of staff."), False, code=error.code)
    if isinstance(error, api.StorefrontError):
        message = error.message
        hint = _("Please check and try again.")
        said = field_words(error, error.field) if error.field else None
        if said is not None and (error.has_code("VALIDATION_ERROR") or not customer_safe(message)):
            # A refused field, said in the customer's words at that field.
            message, hint = said, ""
        elif not customer_safe(message):
            message = _(GENERIC_MESSAGES.get(type(error).__name__, SOMETHING))
        elif message == error.default_message:
            message = _(message)
        if hint and any(message.endswith(_(ask)) for ask in ASKS_AGAIN):
            hint = ""  # the message already says so: never twice
        return Failure(
            message,
            hint,
            False,
            field=error.field,
            modifier_group_id=error.modifier_group_id,
            code=error.code,
        )
    log.exception("unexpected error in the kiosk UI", exc_info=error)
    return Failure(_("Something went wrong on this kiosk."), f"{retry} {_(ASK_STAFF)}", True)
