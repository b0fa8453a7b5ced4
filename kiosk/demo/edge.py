"""The edge: every request is checked here before any handler, database or arithmetic sees it.

A pure ASGI middleware in front of the whole app. What it refuses, with a clear 4xx and nothing
written:
- a body over MAX_BODY bytes: reading stops at the limit (a 4 MiB upload is not read to the end);
- a JSON body nested deeper than MAX_DEPTH (json.loads would recurse until RecursionError), or that
  is not JSON at all, or that carries NaN/Infinity, a float that overflows, or a number with more
  than MAX_DIGITS digits (no handler does arithmetic on numbers it cannot hold);
- any string in the body, keys included, and any path segment that is not valid text: a lone
  surrogate (SQLite and every JSON encoder refuse to write it, so a stored one made its cart
  unreadable forever), NUL, or another control character (tab, newline and carriage return are kept:
  free text has them).
Field-specific rules (a latitude's range, a tip's maximum) stay with the handlers; this only
guarantees that what reaches them is text and finite numbers of a sane size.

One parse for every body, chosen by its content type, never by the route: a body is JSON only when
it says `application/json` (charset utf-8 or none), a form only on the routes that take forms
(FORM_PATHS: the checkout page posts one), and any other body is 415. The value parsed here is
handed to the app in the scope (`BODY_KEY`, read with `parsed_body`): handlers never parse the raw
bytes again, so no header can route a body around these checks. No handler runs before the body
has arrived whole: a body that does not arrive within BODY_TIMEOUT seconds is refused (a client
may not hold a request open forever), and so is one whose client left before its end.

Errors take the shape of the API the path belongs to: the 2.0 envelope `{code, message, requestId,
details}` with `X-Request-Id` under /api/v1/storefront (2.0 never answers 413), the legacy shape
elsewhere. Written by hand: the checks are a few dozen lines, and no maintained ASGI library does
depth, text and number checks together before the body reaches the app.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kiosk.demo.errors import ApiError

__all__ = [
    "BODY_KEY",
    "MAX_BODY",
    "MAX_DEPTH",
    "Edge",
    "EdgeRefusal",
    "bad_text",
    "check_json",
    "parsed_body",
]

MAX_BODY = 64 * 1024
JSON_MEDIA = "application/json"
FORM_MEDIA = "application/x-www-form-urlencoded"
# The routes that take a form (the demo checkout page's "Pay" button); every other body is JSON.
FORM_PATHS = frozenset({"/demo/processor/confirm"})
# Seconds a client has to send the whole body once its headers are in (uvicorn has no such limit).
BODY_TIMEOUT = 10.0
# Bytes of request target and headers (h11 bounds only a head still arriving, not one read whole).
MAX_HEAD = 16 * 1024
# Where the edge leaves the parsed body for the app: None (no body), a JSON value, or a form dict.
BODY_KEY = "kiosk.body"
# The deepest request the API documents is a selection with children inside an item: about 8.
MAX_DEPTH = 32
MAX_DIGITS = 20
V2_PREFIX = "/api/v1/storefront"

# Control characters other than tab, newline and carriage return; and lone surrogates.
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


_ABSOLUTE = re.compile(r"(?i)https?://[^/?#]*(/[^?#]*)?")


class EdgeRefusal(Exception):
    def __init__(self, status: int, code: str, message: str, field: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field


def bad_text(value: str) -> bool:
    """True when `value` is not text a person could have typed (see the module docstring)."""
    return _BAD_CHARS.search(value) is not None


def _depth_over(raw: bytes, limit: int) -> bool:
    """True when brackets outside strings nest deeper than `limit` (checked before parsing)."""
    depth = 0
    in_string = False
    escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


class _OutOfRange(float):
    """A number the edge refuses (NaN, ±Infinity, an overflowing float, too many digits), kept as a
    marker while parsing so that the refusal can name the member that carried it."""


def _parse_int(text: str) -> int | float:
    if len(text.lstrip("-")) > MAX_DIGITS:
        return _OutOfRange("nan")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or len(text) > 64:
        return _OutOfRange("nan")
    return value


def _check(value: Any, where: str) -> None:
    """Every string valid text, every number finite and of a sane size; `where` names the member."""
    if isinstance(value, str):
        if bad_text(value):
            raise EdgeRefusal(
                400, "VALIDATION_ERROR", f"{where} contains characters that are not text", where
            )
    elif isinstance(value, float):
        if isinstance(value, _OutOfRange):
            raise EdgeRefusal(400, "VALIDATION_ERROR", f"{where} is not a number in range", where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check(key, where)
            _check(item, key if where == "body" else f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            _check(item, where)


def check_json(raw: bytes) -> Any:
    """Parse a request body under the edge's rules; raise EdgeRefusal when it breaks one."""
    if _depth_over(raw, MAX_DEPTH):
        raise EdgeRefusal(400, "VALIDATION_ERROR", "The body is nested too deeply", "body")
    try:
        parsed = json.loads(
            raw,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=lambda name: _OutOfRange("nan"),
        )
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise EdgeRefusal(400, "VALIDATION_ERROR", "The body is not valid JSON", "body") from None
    _check(parsed, "body")
    return parsed


def check_form(raw: bytes) -> dict[str, str]:
    """A urlencoded form under the same text rules as JSON (the first value of each name)."""
    try:
        text = raw.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise EdgeRefusal(400, "VALIDATION_ERROR", "The form is not valid", "body") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        form.setdefault(name, value)
    _check(form, "body")
    return form


def _media_type(scope: Scope) -> tuple[str, str] | None:
    """(type/subtype, charset) of the one Content-Type header; None when it is missing, repeated
    or unreadable (a body then cannot say what it is)."""
    values = [v for k, v in scope.get("headers") or [] if k == b"content-type"]
    if len(values) != 1:
        return None
    try:
        text = bytes(values[0]).decode("ascii")
    except UnicodeDecodeError:
        return None
    media, _, params = text.partition(";")
    charset = ""
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return media.strip().lower(), charset


def parse_body(scope: Scope, raw: bytes) -> Any:
    """The body by its content type (see the module docstring); None when there is none."""
    if not raw.strip():
        return None
    media = _media_type(scope)
    if media is not None and media[1] in ("", "utf-8", "utf8"):
        if media[0] == JSON_MEDIA:
            return check_json(raw)
        if media[0] == FORM_MEDIA and scope.get("path") in FORM_PATHS:
            return check_form(raw)
    accepted = JSON_MEDIA + (" or " + FORM_MEDIA if scope.get("path") in FORM_PATHS else "")
    raise EdgeRefusal(415, "UNSUPPORTED_MEDIA_TYPE", f"The body must be {accepted}", "Content-Type")


_NOT_READ = object()


def parsed_body(scope: Scope) -> Any:
    """The body the edge parsed for this request (None: no body). Raises LookupError when the
    request did not come through the edge (a handler must never parse bytes itself)."""
    value = scope.get(BODY_KEY, _NOT_READ)
    if value is _NOT_READ:
        raise LookupError("the request did not pass the edge")
    return value


def v2_error(status: int, code: str, message: str, details: dict[str, Any]) -> JSONResponse:
    request_id = "req_" + secrets.token_hex(8)
    body = {"code": code, "message": message, "requestId": request_id, "details": details}
    return JSONResponse(body, status_code=status, headers={"X-Request-Id": request_id})


def own_origin(scope: Scope) -> str:
    """Where this server was reached, from the socket it answered on, never from the Host header
    (a client's header would choose where a checkout link points); `public_base_url` wins over
    it where one is set (kiosk.demo.domain.payments)."""
    host, port = (scope.get("server") or ("127.0.0.1", None))[:2]
    scheme = str(scope.get("scheme") or "http")
    shown = f"[{host}]" if ":" in str(host) else str(host)
    default = (scheme, port) in (("http", 80), ("https", 443)) or port is None
    return f"{scheme}://{shown}" + ("" if default else f":{port}")


def is_v2(path: str) -> bool:
    return path == V2_PREFIX or path.startswith(V2_PREFIX + "/")


def _error_response(refusal: EdgeRefusal, path: str) -> JSONResponse:
    if is_v2(path):
        # 2.0 has no 413: a refusal of the edge is a validation error there, but for a body of
        # another media type (415, the one status the vendor does not list: see the README).
        status = 415 if refusal.status == 415 else 400
        code = refusal.code if status == 415 else "VALIDATION_ERROR"
        return v2_error(status, code, refusal.message, {"field": refusal.field})
    legacy = ApiError(refusal.status, refusal.code, refusal.message, field=refusal.field)
    return JSONResponse(legacy.body(), status_code=legacy.status)


class Edge:
    """The ASGI middleware; `is_checked(path)` says which paths it guards (default: all)."""

    def __init__(self, app: ASGIApp, is_checked: Callable[[str], bool] = lambda path: True) -> None:
        self.app = app
        self.is_checked = is_checked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.is_checked(scope["path"]):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if not path.startswith("/"):
            # An absolute-form target (`GET http://host/path`): HTTP/1.1 servers must take it; it
            # is routed by its path alone (the server never trusts the host it names).
            match = _ABSOLUTE.fullmatch(path)
            local = (match.group(1) or "/") if match else None
            if local is None or not local.startswith("/"):
                refusal = EdgeRefusal(
                    400, "VALIDATION_ERROR", "The request target is not a path", "path"
                )
                await _error_response(refusal, path)(scope, _empty_receive, send)
                return
            scope = dict(scope)
            scope["path"] = path = local
            scope["raw_path"] = local.encode("utf-8", "surrogateescape")
        try:
            head = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            head += sum(len(k) + len(v) + 4 for k, v in scope.get("headers") or [])
            if head > MAX_HEAD:
                raise EdgeRefusal(
                    400, "VALIDATION_ERROR", f"The headers are over {MAX_HEAD} bytes", "headers"
                )
            if bad_text(path):
                raise EdgeRefusal(
                    400,
                    "VALIDATION_ERROR",
                    "The path contains characters that are not text",
                    "path",
                )
            body, complete = await self._read(receive)
            if not complete:
                raise EdgeRefusal(
                    413, "PAYLOAD_TOO_LARGE", f"The body is over {MAX_BODY} bytes", "body"
                )
            scope[BODY_KEY] = parse_body(scope, body)
        except EdgeRefusal as refusal:
            await _error_response(refusal, path)(scope, _empty_receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    @staticmethod
    async def _read(receive: Receive) -> tuple[bytes, bool]:
        """The body, read no further than MAX_BODY; (what was read, whether it was all)."""
        chunks: list[bytes] = []
        size = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BODY_TIMEOUT
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise EdgeRefusal(
                    400, "VALIDATION_ERROR", "The body did not arrive in time", "body"
                ) from None
            if message["type"] == "http.disconnect":
                # The client left before the body's last byte (its length or its last chunk): a
                # cut body is never taken for a whole one, so nothing of it is committed.
                raise EdgeRefusal(
                    400, "VALIDATION_ERROR", "The body was cut off before its end", "body"
                )
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                return b"", False
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), True


async def _empty_receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then waits on the real one."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
