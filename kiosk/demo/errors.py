"""Error bodies of the contract: shape A for 401/404/500, shape B (details.field) for the rest."""

from __future__ import annotations

from typing import Any

SHAPE_A_CODES = {401: "UNAUTHORIZED", 404: "NOT_FOUND", 500: "GENERIC_ERROR"}
SHAPE_B_ERRORS = {
    400: "validation_error",
    402: "payment_declined",
    403: "forbidden",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "unprocessable",
    429: "rate_limit_exceeded",
}


class ApiError(Exception):
    """Raised by the backend's operations; the app turns it into a JSON error response.

    `field` becomes details.field; `extra` members are added at the top level of the body and to
    `details` (e.g. modifierGroupId), so a client finds them wherever it looks.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.extra = extra or {}
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        if self.status in SHAPE_A_CODES:
            return {"success": False, "message": self.message, "code": self.code}
        details: dict[str, Any] = {"code": self.code}
        if self.field is not None:
            details["field"] = self.field
        details.update(self.extra)
        body: dict[str, Any] = {
            "error": SHAPE_B_ERRORS.get(self.status, "error"),
            "message": self.message,
            "status": self.status,
            "code": self.code,
            "details": details,
        }
        body.update(self.extra)
        return body


def validation(message: str, field: str, code: str = "VALIDATION_ERROR", **extra: Any) -> ApiError:
    return ApiError(400, code, message, field=field, extra=extra)


def not_found(message: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", message)


def locked() -> ApiError:
    return ApiError(
        409, "CART_LOCKED", "The cart is locked for payment and cannot be changed", field="cartId"
    )
