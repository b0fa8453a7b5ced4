"""The 2.0 error envelope, and the legacy domain errors as 2.0 says them.

2.0 answers only 400, 401, 403, 404, 409, 428, 429, 500 and 503 (never 413, 422 or 405): a legacy
status outside that set is mapped here, in one table.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.responses import JSONResponse

from kiosk.demo.errors import ApiError

# Legacy status -> 2.0 status, for the ones 2.0 does not use.
_STATUS = {413: 400, 422: 400, 405: 404, 402: 400}
# Legacy codes whose 2.0 name differs (the notes' list); other codes pass as they are, since 2.0
# clients must accept any code.
_CODE = {
    "CART_LOCKED": "CART_IMMUTABLE",
    "CART_COMPLETED": "CART_IMMUTABLE",
    "CART_EXPIRED": "CART_IMMUTABLE",
    "GENERIC_ERROR": "INTERNAL_ERROR",
    "RATE_LIMIT_EXCEEDED": "RATE_LIMITED",
    "PAYLOAD_TOO_LARGE": "VALIDATION_ERROR",
    "METHOD_NOT_ALLOWED": "NOT_FOUND",
    "LOCATION_MISMATCH": "FORBIDDEN",
    "SUBSCRIPTION_REQUIRED": "FORBIDDEN",
}


class V2Error(Exception):
    def __init__(
        self, status: int, code: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


def from_domain(exc: ApiError) -> V2Error:
    details: dict[str, Any] = {}
    if exc.field is not None:
        details["field"] = exc.field
    details.update({k: v for k, v in exc.extra.items() if k != "retryAfter"})
    status = _STATUS.get(exc.status, exc.status)
    return V2Error(status, _CODE.get(exc.code, exc.code), exc.message, details)


def response(error: V2Error) -> JSONResponse:
    request_id = "req_" + secrets.token_hex(8)
    body: dict[str, Any] = {"code": error.code, "message": error.message, "requestId": request_id}
    if error.details:
        body["details"] = error.details
    return JSONResponse(body, status_code=error.status, headers={"X-Request-Id": request_id})
