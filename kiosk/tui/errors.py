"""Every failure, said to a customer: a short message and a way forward. Never a traceback."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from kiosk.i18n import N_, _

log = logging.getLogger("kiosk.tui")

ASK_STAFF = N_("If this keeps happening, please ask a member of staff.")


@dataclass(frozen=True)
class Failure:
    message: str
    hint: str
    retryable: bool
    # The server named a field or a modifier group: the screen shows the message there.
    field: str | None = None
    modifier_group_id: str | None = None
    code: str | None = None


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
        return Failure(
            error.message,
            _("Please check and try again."),
            False,
            field=error.field,
            modifier_group_id=error.modifier_group_id,
            code=error.code,
        )
    log.exception("unexpected error in the kiosk UI", exc_info=error)
    return Failure(_("Something went wrong on this kiosk."), f"{retry} {_(ASK_STAFF)}", True)
