"""One error hierarchy for everything the Storefront client can raise.

Every error has a short, human `message` fit for a customer-facing screen; the server's own text
(when there was one) is kept in `server_message` for staff. Neither ever contains the API key:
server text is scrubbed of the secrets the client knows before it is stored.

Error bodies come in three shapes (contract, "Errors"), all accepted:
  A  {success: false, message, code}
  B  {error, message, status?, details?: {field, code}, retryAfter?}
     {error, message, statusCode}
and anything else (plain text, HTML, empty) is survived, not parsed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "AmbiguousWriteError",
    "AuthenticationError",
    "ConflictError",
    "InvalidRequestError",
    "NotFoundError",
    "PaymentDeclinedError",
    "PermissionDeniedError",
    "RateLimitedError",
    "ResponseFormatError",
    "ServerError",
    "StorefrontError",
    "UnprocessableError",
    "error_from_response",
    "parse_error_body",
    "scrub",
]

_MAX_SERVER_TEXT = 160

# Shapes of secrets the client may not know by value: a card number (13-19 digits, spaces or dashes
# allowed) and a processor client secret ("pi_..._secret_..."). Scrubbed from any server text.
_SECRET_SHAPES = (
    (re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])"), "[card]"),
    (re.compile(r"[A-Za-z0-9]+_secret_[A-Za-z0-9_]+"), "[redacted]"),
)


class StorefrontError(Exception):
    """Base of every client error.

    Attributes: `status` (HTTP status or None), `code` (the body's machine code, upper-cased:
    `NOT_FOUND`, `VALIDATION_ERROR`, `CART_LOCKED`...), `message` (short, human, safe to show),
    `server_message`, `field`, `modifier_group_id`, `retry_after` (seconds), `details` (the body's
    details object), `endpoint` (the contract row's name, when known).
    """

    default_message = "Something went wrong. Please try again."
    # Whether the server's own message is fit to show a customer for this kind of error.
    show_server_message = False
    # What the dialect read of a refusal in its own shapes (StorefrontClientV2._read_refusal):
    # the cart lines and products it names as not available any more (models.unavailable_lines
    # is the one reading of them), and whether it says the cart has expired.
    unavailable_items: tuple[str, ...] = ()
    unavailable_products: tuple[str, ...] = ()
    cart_expired: bool = False

    def __init__(
        self,
        message: str | None = None,
        *,
        status: int | None = None,
        code: str | None = None,
        server_message: str | None = None,
        field: str | None = None,
        modifier_group_id: str | None = None,
        retry_after: float | None = None,
        details: Mapping[str, Any] | None = None,
        endpoint: str | None = None,
    ) -> None:
        if message is None:
            message = server_message if (self.show_server_message and server_message) else None
        self.message: str = message or self.default_message
        self.status = status
        self.code = code.upper() if code else None
        self.server_message = server_message
        self.field = field
        self.modifier_group_id = modifier_group_id
        self.retry_after = retry_after
        self.details: dict[str, Any] = dict(details or {})
        self.endpoint = endpoint
        super().__init__(self.message)

    @property
    def request_id(self) -> str | None:
        """Storefront 2.0's requestId of the failed request: for the log and the staff screen,
        never for a customer."""
        value = self.details.get("requestId")
        return value if isinstance(value, str) else None

    def has_code(self, *codes: str) -> bool:
        return self.code is not None and self.code in {c.upper() for c in codes}

    def __str__(self) -> str:
        extra = [f"HTTP {self.status}"] if self.status is not None else []
        if self.code:
            extra.append(self.code)
        if self.field:
            extra.append(f"field={self.field}")
        return f"{self.message} ({', '.join(extra)})" if extra else self.message

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, status={self.status!r}, code={self.code!r})"
        )


class AuthenticationError(StorefrontError):
    """401: the API key is missing or invalid."""

    default_message = "This kiosk is not signed in to the ordering service. Please ask staff."


class PermissionDeniedError(StorefrontError):
    """403: no subscription, or the key is not valid for this location (`LOCATION_MISMATCH`)."""

    default_message = "This kiosk may not take orders here right now. Please ask staff."


class NotFoundError(StorefrontError):
    """404: the location, cart, product... does not exist."""

    default_message = "We couldn't find that. It may no longer be available."
    show_server_message = True


class InvalidRequestError(StorefrontError):
    """400: the request was refused; `field`, `code` and `modifier_group_id` say what to fix."""

    default_message = "Something in your order needs another look."
    show_server_message = True


class PaymentDeclinedError(StorefrontError):
    """402: the (demo) processor declined the card."""

    default_message = "The payment was declined."
    show_server_message = True


class ConflictError(StorefrontError):
    """409: the cart changed under us (e.g. it is locked for payment). `cart`: the cart as it now
    is, when the client already read it again (2.0's CART_CONFLICT), so nobody reads it twice."""

    default_message = "Your order changed in the meantime. Please check it and try again."
    show_server_message = True
    cart: Any = None


class UnprocessableError(StorefrontError):
    """422: understood but not possible now (e.g. the location is closed)."""

    default_message = "We can't take that order right now."
    show_server_message = True


class RateLimitedError(StorefrontError):
    """429, or a wait the client would not sleep: `retry_after` says how many seconds to wait."""

    default_message = "We're very busy right now. Please try again in a moment."


class ServerError(StorefrontError):
    """5xx from the server."""

    default_message = "The ordering service is having trouble. Please try again."


class APIConnectionError(StorefrontError):
    """The server could not be reached (DNS, refused, reset)."""

    default_message = "We can't reach the ordering service. Please try again."


class APITimeoutError(APIConnectionError):
    """No answer in time (per attempt or the call's overall deadline)."""

    default_message = "The ordering service is taking too long. Please try again."


class ResponseFormatError(StorefrontError):
    """A success response whose body was not the JSON shape the contract describes."""

    default_message = "The ordering service sent a reply we couldn't read. Please try again."


class UnsupportedOperationError(StorefrontError):
    """This server has no such operation (an assumption-A route answered 404 or 405): remembered
    by the client, which then offers it no more (`StorefrontClient.offers`)."""

    default_message = "That isn't possible at this restaurant's kiosk."
    # Our own code (no server sent it): what a screen branches on.
    CODE = "UNSUPPORTED_OPERATION"

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("code", self.CODE)
        super().__init__(message, **kwargs)


class AmbiguousWriteError(StorefrontError):
    """A write whose outcome is unknown: it may or may not have happened on the server.

    Never retried by the client (an item would be added twice). Re-read the cart before retrying.
    `cause` is the underlying error (a timeout, a dropped connection, a ServerError); it is also
    chained as `__cause__`.
    """

    default_message = (
        "We couldn't confirm that change. Please check your order before trying again."
    )

    def __init__(
        self, message: str | None = None, *, cause: BaseException | None = None, **kw: Any
    ):
        super().__init__(message, **kw)
        self.cause = cause


# The class for each status; anything else 4xx is the base class, 5xx is ServerError.
_BY_STATUS: dict[int, type[StorefrontError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: PaymentDeclinedError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableError,
    429: RateLimitedError,
}

# Shape A codes, for a body that says {success:false} on a 2xx (tolerated, assumption A).
_BY_CODE: dict[str, type[StorefrontError]] = {
    "UNAUTHORIZED": AuthenticationError,
    "FORBIDDEN": PermissionDeniedError,
    "LOCATION_MISMATCH": PermissionDeniedError,
    "NOT_FOUND": NotFoundError,
    "GENERIC_ERROR": ServerError,
    "RATE_LIMIT_EXCEEDED": RateLimitedError,
}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace every known secret, and anything shaped like a card number or a client secret, in
    `text` with a marker."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    for pattern, marker in _SECRET_SHAPES:
        text = pattern.sub(marker, text)
    return text


def _clean_text(value: Any, secrets: Iterable[str]) -> str | None:
    if not isinstance(value, str):
        return None
    # One line, printable, bounded: server text may end up on a screen.
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in value).split())
    text = scrub(text, secrets)
    if not text or ("<" in text and ">" in text):
        return None
    if len(text) > _MAX_SERVER_TEXT:
        text = text[: _MAX_SERVER_TEXT - 1].rstrip() + "…"
    return text


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value == value and value >= 0 else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if number == number and 0 <= number < float("inf") else None
    return None


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_REQUIRED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]{0,63})' is a required property")


def _first_segment(path: Any) -> str | None:
    """`emailAddress`, from "emailAddress", "body.emailAddress", "/selections/0", ["code"]."""
    if isinstance(path, list | tuple):
        parts = [str(p) for p in path]
    elif isinstance(path, str):
        parts = re.split(r"[./\[\]]+", path.strip())
    else:
        return None
    for part in parts:
        if part in ("", "body", "(root)", "#"):
            continue
        return part if _NAME.fullmatch(part) else None
    return None


def field_names(details: Mapping[str, Any]) -> list[str]:
    """The request fields an error's `details` names, in order, whatever the shape: `field`;
    2.0's `fields` (an object by name, a list of names, or of {field|path|name|loc: ...}); the
    `problems` lines of a schema check ("emailAddress: 'x' does not match ...")."""
    found: list[str] = []

    def add(name: str | None) -> None:
        if name and name not in found:
            found.append(name)

    add(_first_segment(details.get("field")))
    fields = details.get("fields")
    if isinstance(fields, Mapping):
        for key in fields:
            add(_first_segment(key))
    elif isinstance(fields, list):
        for entry in fields:
            if isinstance(entry, Mapping):
                for key in ("field", "path", "name", "loc", "property", "pointer"):
                    if key in entry:
                        add(_first_segment(entry[key]))
                        break
            else:
                add(_first_segment(entry))
    problems = details.get("problems")
    if isinstance(problems, list):
        for line in problems:
            if not isinstance(line, str):
                continue
            where, _, said = line.partition(":")
            name = _first_segment(where)
            if name is None:
                required = _REQUIRED.search(said)
                name = required.group(1) if required else None
            add(name)
    return found[:8]


_DROP = object()


def _detail(value: Any, secrets: Iterable[str]) -> Any:
    """A `details` member kept: a scalar as it came; a list of short texts (ids a refusal names,
    e.g. 2.0's `itemIds`) as a tuple of them, cleaned; anything else dropped."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list) and len(value) <= 50 and all(isinstance(v, str) for v in value):
        return tuple(t for v in value if (t := _clean_text(v, secrets)) and len(t) <= 64)
    return _DROP


def _text_body(content: bytes, secrets: tuple[str, ...]) -> dict[str, Any]:
    """A body that is not JSON: plain text is kept for staff when it is short and not HTML; it is
    never shown as parsed."""
    try:
        text = content.decode("utf-8", errors="replace")
    except Exception:  # pragma: no cover - decode with "replace" does not raise
        text = ""
    server_message = _clean_text(text, secrets)
    return {"server_message": server_message} if server_message else {}


def _code_of(body: dict[str, Any], details: dict[str, Any]) -> Any:
    """`code`, else shape B's `error`, else `details.code` (any type: the caller checks)."""
    code = body.get("code")
    if isinstance(code, str) and code:
        return code
    error = body.get("error")
    return error if isinstance(error, str) and error else details.get("code")


def parse_error_body(content: bytes, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """What an error body says, as keyword arguments for StorefrontError; {} when it says nothing.

    Never raises: bodies may be JSON of any shape, plain text, HTML or empty.
    """
    secrets = tuple(secrets)
    try:
        body = json.loads(content) if content.strip() else None
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        return _text_body(content, secrets) if body is None else {}
    details = body.get("details")
    details = details if isinstance(details, dict) else {}
    code = _code_of(body, details)
    named = field_names({**details, "field": details.get("field", body.get("field"))})
    field = named[0] if named else None
    group = body.get("modifierGroupId", details.get("modifierGroupId"))
    kwargs: dict[str, Any] = {
        "code": code if isinstance(code, str) and code else None,
        "server_message": _clean_text(body.get("message"), secrets),
        "field": field if isinstance(field, str) else None,
        "modifier_group_id": group if isinstance(group, str) else None,
        "details": {
            k: kept for k, v in details.items() if (kept := _detail(v, secrets)) is not _DROP
        },
        "retry_after": _as_number(body.get("retryAfter")),
    }
    if len(named) > 1 or (named and "fields" in details):
        kwargs["details"]["fields"] = ",".join(named)  # every field named, for the screens
    # 2.0's envelope names the request for the provider's support: kept for logs and staff only.
    request_id = body.get("requestId")
    if isinstance(request_id, str) and request_id:
        kwargs["details"]["requestId"] = _clean_text(request_id, secrets)
    status = body.get("status", body.get("statusCode"))
    if isinstance(status, int) and not isinstance(status, bool):
        kwargs["body_status"] = status
    return kwargs


def error_from_response(
    status: int,
    content: bytes,
    *,
    secrets: Iterable[str] = (),
    endpoint: str | None = None,
) -> StorefrontError:
    """The typed error for a non-2xx response (or a 2xx saying {success: false})."""
    kwargs = parse_error_body(content, secrets)
    body_status = kwargs.pop("body_status", None)
    cls: type[StorefrontError]
    if 200 <= status < 300:
        code = (kwargs.get("code") or "").upper()
        cls = _BY_CODE.get(code, InvalidRequestError)
        # Report the status the body claims, when it claims an error status.
        if isinstance(body_status, int) and body_status >= 400:
            status = body_status
    elif status >= 500:
        cls = ServerError
    else:
        cls = _BY_STATUS.get(status, StorefrontError)
    return cls(status=status, endpoint=endpoint, **kwargs)
