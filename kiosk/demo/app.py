"""The Starlette app of the demo backend: /api/v1 (the contract) and /demo/* (faults, processor).

A pure-ASGI gate in front of /api/v1 counts requests, rate-limits per client IP, injects faults and
adds the X-RateLimit-* headers; each endpoint then authenticates, parses a size-capped JSON body and
calls one Backend method.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, Literal, NotRequired

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from typing_extensions import TypedDict

from kiosk.demo import data
from kiosk.demo.backend import Backend
from kiosk.demo.domain.payments import APPROVE_CARD
from kiosk.demo.edge import FORM_MEDIA, Edge, own_origin, parsed_body
from kiosk.demo.errors import SHAPE_A_CODES, ApiError, not_found, validation
from kiosk.demo.money import fmt
from kiosk.demo.openapi import FORM, HTML, JSON, PNG, Api, Doc, DocRoute, Param, serve
from kiosk.demo.sites import Sites
from kiosk.demo.store import V1_CALL, IdempotencyConflict
from kiosk.demo.storefront import errors as v2_errors
from kiosk.demo.storefront.routes import PREFIX as V2_PREFIX
from kiosk.demo.storefront.routes import storefront_routes

log = logging.getLogger("kiosk.demo")

API = "/api/v1"
DROP_MESSAGE = "demo fault: connection dropped after the write was committed"
LOOPBACK = {"127.0.0.1", "::1", "localhost", "testclient"}
DOCUMENTS = {API + "/openapi.json", V2_PREFIX + "/openapi.json"}


@dataclass
class Call:
    """One authenticated API call, as the route table's handlers see it."""

    b: Backend
    loc: dict[str, Any]  # empty for /merchant
    p: dict[str, str]
    body: dict[str, Any]
    request: Request

    @property
    def cart(self) -> str:
        return self.p["cartId"]


Handler = Callable[[Call], Any]


def error_response(exc: ApiError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON object the edge parsed (kiosk.demo.edge: one parse, by content type); {}: none."""
    body = parsed_body(request.scope)
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise validation("The body must be a JSON object", "body")
    return body


def authenticate(backend: Backend, request: Request) -> dict[str, Any] | None:
    """Check X-API-Key against the path's location; return the location (None for /merchant)."""
    key = request.headers.get("x-api-key", "")
    lid = backend.catalog.keys.get(key) if key else None
    if lid is None:
        raise ApiError(401, "UNAUTHORIZED", "Missing or invalid API key")
    key_loc = backend.catalog.locations[lid]
    if not key_loc["subscribed"]:
        raise ApiError(
            403,
            "SUBSCRIPTION_REQUIRED",
            "This merchant's subscription is not active for this location",
        )
    ident = request.path_params.get("locationId")
    if ident is None:
        return None
    loc = backend.location(ident)
    if loc is None:
        raise not_found("Location not found")
    if loc["id"] != lid:
        raise ApiError(403, "LOCATION_MISMATCH", "This API key is not valid for this location")
    return loc


IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9._:-]{16,128}")


def _once(request: Request, payload: dict[str, Any], run: Callable[[], Any]) -> Response:
    """Run a write; with an Idempotency-Key, at most once: a retry gets the first outcome."""
    key = request.headers.get("idempotency-key")
    if key is None or request.method == "GET":
        return JSONResponse(run())
    if not IDEMPOTENCY_KEY.fullmatch(key):
        raise validation("Idempotency-Key must be 16-128 of A-Z a-z 0-9 . _ : -", "Idempotency-Key")
    backend: Backend = request.app.state.backend

    def outcome() -> tuple[int, Any]:
        try:
            return 200, run()
        except ApiError as exc:
            return exc.status, exc.body()

    # Scoped by the credential and the exact path: a key means nothing for another cart or key.
    who = hashlib.sha256(request.headers.get("x-api-key", "").encode()).hexdigest()[:16]
    scope = f"{who} {request.method} {request.url.path}"
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    try:
        status, body = backend.store.idempotent(scope, key, digest, backend.clock(), outcome)
    except IdempotencyConflict as exc:
        message = (
            "This Idempotency-Key was used for another request"
            if exc.code == "IDEMPOTENCY_KEY_REUSED"
            else "The first request with this Idempotency-Key is still running; retry shortly"
        )
        raise ApiError(409, exc.code, message, field="Idempotency-Key") from None
    return JSONResponse(body, status_code=status)


def endpoint(handler: Handler, *, body: bool) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        backend: Backend = request.app.state.backend
        # A v1 key reaches v1 carts only: a 2.0 cart opens with its cart token alone.
        marker = V1_CALL.set(True)
        try:
            loc = authenticate(backend, request)
            payload = await read_json(request) if body else {}
            call = Call(backend, loc or {}, request.path_params, payload, request)
            return _once(request, payload, lambda: handler(call))
        except ApiError as exc:
            return error_response(exc)
        except Exception:
            log.exception(
                "demo backend: unexpected error on %s %s", request.method, request.url.path
            )
            return error_response(ApiError(500, "GENERIC_ERROR", "Unexpected server error"))
        finally:
            V1_CALL.reset(marker)

    return run


def api_routes() -> list[Route]:
    loc = API + "/locations/{locationId}"
    cart = loc + "/carts/{cartId}"
    table: list[tuple[str, str, Handler, bool]] = [
        (
            "GET",
            API + "/merchant/{merchantSlug}",
            lambda c: c.b.merchant_json(c.p["merchantSlug"]),
            False,
        ),
        ("GET", loc, lambda c: c.b.location_json(c.loc), False),
        ("GET", loc + "/time-intervals", lambda c: c.b.time_intervals_json(c.loc), False),
        ("GET", loc + "/gratuity", lambda c: c.b.gratuity_json(c.loc), False),
        ("GET", loc + "/menus", _menus, False),
        ("GET", loc + "/products", lambda c: c.b.products_json(c.loc), False),
        (
            "GET",
            loc + "/products/{productId}",
            lambda c: c.b.product_json(c.loc, c.p["productId"]),
            False,
        ),
        ("POST", loc + "/ordering-sessions", lambda c: c.b.start_session(c.loc, c.body), True),
        ("POST", loc + "/carts", lambda c: c.b.create_or_resume_cart(c.loc, c.body), True),
        ("GET", cart, lambda c: c.b.get_cart(c.loc, c.cart), False),
        ("DELETE", cart, lambda c: c.b.delete_cart(c.loc, c.cart), False),
        ("POST", cart + "/cart-item", lambda c: c.b.add_item(c.loc, c.cart, c.body), True),
        (
            "PATCH",
            cart + "/cart-item/{itemId}/quantity",
            lambda c: c.b.set_quantity(c.loc, c.cart, c.p["itemId"], c.body),
            True,
        ),
        (
            "PUT",
            cart + "/update-order-time",
            lambda c: c.b.update_order_time(c.loc, c.cart, c.body),
            True,
        ),
        (
            "PUT",
            loc + "/cart/{cartId}/validate-and-update",
            lambda c: c.b.validate_and_update(c.loc, c.cart, c.body),
            True,
        ),
        ("PUT", cart + "/gratuity", lambda c: c.b.set_gratuity(c.loc, c.cart, c.body), True),
        ("PUT", cart + "/set-delivery", lambda c: c.b.set_delivery(c.loc, c.cart, c.body), True),
        ("PUT", cart + "/set-table", lambda c: c.b.set_table(c.loc, c.cart, c.body), True),
        ("PUT", cart + "/set-room", lambda c: c.b.set_room(c.loc, c.cart, c.body), True),
        (
            "POST",
            loc + "/discounts/apply-discount",
            lambda c: c.b.apply_discount(c.loc, c.body),
            True,
        ),
        ("DELETE", cart + "/discount", lambda c: c.b.remove_discount(c.loc, c.cart), False),
        ("POST", cart + "/validate", lambda c: c.b.validate_cart(c.loc, c.cart), False),
        ("GET", cart + "/products", lambda c: c.b.cross_sell(c.loc, c.cart), False),
        ("POST", cart + "/payment-intent", _payment_intent, False),
    ]
    return [
        DocRoute(path, endpoint(h, body=body), methods=[method], doc=_v1_doc(method, body))
        for method, path, h, body in table
    ]


def _v1_doc(method: str, body: bool) -> Doc:
    # Every operation authenticates (401/403) and finds its location (404); a change can meet a
    # locked cart or a reused idempotency key (409) and a closed location (422).
    errors = (401, 403, 404, 429, 500) + ((409, 422) if method != "GET" else ())
    return Doc(
        errors=errors,
        # The body's members are the domain's to check (kiosk.demo.backend); an empty body is {}.
        body=dict[str, Any] if body else None,
        body_required=False,
        security=("ApiKey",),
    )


def _menus(c: Call) -> Any:
    q = c.request.query_params
    return c.b.menus_json(c.loc, q.get("orderDate") or None, q.get("orderTime") or None)


def _payment_intent(c: Call) -> Any:
    return c.b.create_payment_intent(c.loc, c.cart, own_origin(c.request.scope))


# --------------------------------------------------------------------------------------------------
# The gate in front of /api/v1


def _dropped_connection() -> Exception:
    # Under ASGITransport the app's exception reaches the client as is: raise what httpx raises when
    # a real peer closes mid-response. Under uvicorn, any exception after the status line cuts the
    # socket.
    try:
        import httpx

        exc: Exception = httpx.RemoteProtocolError(DROP_MESSAGE)
    except ImportError:  # pragma: no cover - httpx is a dependency of the kiosk
        exc = ConnectionResetError(DROP_MESSAGE)
    exc.kiosk_demo_fault = True  # type: ignore[attr-defined]
    return exc


class QuietInjectedFaults(logging.Filter):
    """Keeps uvicorn from logging a traceback for each connection the drop fault cuts on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not getattr(exc, "kiosk_demo_fault", False)


def quiet_injected_faults() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietInjectedFaults) for f in logger.filters):
        logger.addFilter(QuietInjectedFaults())


class Gate:
    def __init__(self, app: ASGIApp, backend: Backend, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.backend = backend
        self.routes = routes

    def _template(self, scope: Scope) -> tuple[str | None, bool, dict[str, Any]]:
        """The matched route's path template, whether a route takes the path with another
        method, and the path's parameters."""
        partial = False
        for route in self.routes:
            match, child = route.matches(scope)
            if match is Match.FULL:
                return getattr(route, "path", None), False, dict(child.get("path_params") or {})
            if match is Match.PARTIAL:
                partial = True
        return None, partial, {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        client = (scope.get("client") or ("unknown", 0))[0]
        if path.startswith("/demo/") and not _demo_public(path) and client not in LOOPBACK:
            body = {
                "error": "forbidden",
                "message": "/demo endpoints answer only on loopback",
                "status": 403,
            }
            await JSONResponse(body, status_code=403)(scope, receive, send)
            return
        if not (path == API or path.startswith(API + "/")) or path in DOCUMENTS:
            # The OpenAPI documents take no key and no part in the limits, stats and faults.
            await self.app(scope, receive, send)
            return
        await self._api(scope, receive, send, client)

    async def _api(self, scope: Scope, receive: Receive, send: Send, client: str) -> None:
        """An API request: counted, delayed, limited or faulted as set, else the app's answer."""
        b = self.backend
        method: str = scope["method"]
        template, partial, params = self._template(scope)
        b.stats.count(client, f"{method} {template or '<unmatched>'}")
        if b.faults.latency_s > 0:
            await asyncio.sleep(b.faults.latency_s)
        v2 = scope["path"].startswith(V2_PREFIX + "/")
        if v2:
            # A cart's 2.0 credential is its token: a missing or wrong one (or a cart that is not
            # there) spends the small allowance for failed authentication, as a wrong v1 key does.
            cart_id = params.get("cartId") if template and "{cartId}" in template else None
            known = cart_id is None or b.token_opens(str(cart_id), _header(scope, b"x-cart-token"))
        else:
            known = _header(scope, b"x-api-key") in b.catalog.keys
        headers, early = self._limit(scope, client, v2, known)
        if early is None:
            early = self._fault_or_no_route(method, template, partial)
        if early is not None:
            await self._refuse(early, v2, headers, scope, receive, send)
            return
        await self._forward(scope, receive, send, headers, v2)

    def _limit(
        self, scope: Scope, client: str, v2: bool, known: bool
    ) -> tuple[dict[str, str], ApiError | None]:
        """The rate-limit headers to answer with, and the 429 if the limit (or a burst) says so."""
        b = self.backend
        faults = b.faults
        # Counted after authentication: a request with a wrong key or cart token (`known` False)
        # spends only the small allowance for failed authentication, never the budget of the IP's
        # real requests. 2.0 sends no rate headers.
        limiter = b.limiter if known else b.auth_limiter
        allowed, remaining, reset, retry = limiter.hit(client)
        headers: dict[str, str] = {}
        # A refused key sees the headers of its own small window (the contract puts them on every
        # answer); with the limit off there are none.
        if limiter.limit is not None and not v2:
            headers = {
                "X-RateLimit-Limit": str(limiter.limit),
                "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(reset),
            }
        if faults.take_burst():
            retry = faults.burst_retry_after_s
            allowed = False
        if allowed:
            return headers, None
        return headers, ApiError(
            429,
            "RATE_LIMIT_EXCEEDED",
            f"Too many requests; retry in {retry} s",
            extra={"retryAfter": retry},
            headers={"Retry-After": str(retry)},
        )

    def _fault_or_no_route(
        self, method: str, template: str | None, partial: bool
    ) -> ApiError | None:
        """An injected server error, or the 405/404 of a path no route takes."""
        faults = self.backend.faults
        if faults.roll(faults.error_rate):
            early = ApiError(500, "GENERIC_ERROR", "Injected fault: the server failed")
            early.status = faults.error_status
            return early
        if template is None and partial:
            return ApiError(405, "METHOD_NOT_ALLOWED", f"{method} is not allowed here")
        if template is None:
            return not_found("No such endpoint")
        return None

    async def _refuse(
        self,
        early: ApiError,
        v2: bool,
        headers: dict[str, str],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """Answer for the app, in the shape of the request's API (counted in the stats)."""
        stats = self.backend.stats
        if v2:
            error = v2_errors.from_domain(early)
            stats.count_status(error.status)
            await v2_errors.response(error)(scope, receive, send)
            return
        stats.count_status(early.status)
        body = early.body()
        if early.status >= 500:
            body = {"success": False, "message": early.message, "code": "GENERIC_ERROR"}
        response = JSONResponse(body, status_code=early.status, headers=headers | early.headers)
        await response(scope, receive, send)

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], v2: bool
    ) -> None:
        """Run the app, then send its answer with the rate headers, or drop or stall it (faults)."""
        b = self.backend
        faults = b.faults
        method: str = scope["method"]
        messages = await self._run_app(scope, receive)
        if not messages or messages[0].get("type") != "http.response.start":
            b.stats.count_status(500)
            if v2:
                failure = v2_errors.V2Error(500, "INTERNAL_ERROR", "Unexpected server error")
                await v2_errors.response(failure)(scope, receive, send)
                return
            # Never a bare 500 page: the contract's shape A, with the rate-limit headers.
            body = {"success": False, "message": "Unexpected server error", "code": "GENERIC_ERROR"}
            await JSONResponse(body, status_code=500, headers=headers)(scope, receive, send)
            return
        start = messages[0]
        status = int(start["status"])
        b.stats.count_status(status)
        raw_headers = list(start.get("headers", []))
        raw_headers += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        start = dict(start) | {"headers": raw_headers}
        if (
            method not in ("GET", "HEAD")
            and status < 400
            and faults.roll(faults.drop_after_commit_rate)
        ):
            await send(start)
            raise _dropped_connection()
        if faults.stall_s > 0:
            await asyncio.sleep(faults.stall_s)
        await send(start)
        for message in messages[1:]:
            await send(message)

    async def _run_app(self, scope: Scope, receive: Receive) -> list[Message]:
        """The app's answer, held back (a fault may still drop or stall it); none if it failed."""
        messages: list[Message] = []

        async def capture(message: Message) -> None:
            messages.append(message)

        try:
            await self.app(scope, receive, capture)
        except Exception:
            log.exception("demo backend: unexpected error on %s %s", scope["method"], scope["path"])
            messages.clear()
        return messages


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def _demo_public(path: str) -> bool:
    # The checkout page and the processor are what a customer's phone reaches.
    # So are the counter's list of orders to pay, from the staff's own device (pay at the counter),
    # and the product pictures: what a kiosk on another machine (`demo --server`) shows.
    return path.startswith(
        ("/demo/checkout/", "/demo/processor/", "/demo/health", "/demo/pictures/")
    ) or (path == COUNTER_PATH)


# --------------------------------------------------------------------------------------------------
# /demo endpoints


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        return await read_json(request)
    except ApiError:
        raise


async def demo_faults(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    if request.method == "POST":
        try:
            values = await _json_body(request)
            backend.faults.update(values)
        except ApiError as exc:
            return error_response(exc)
        except ValueError as exc:
            return error_response(validation(str(exc), "faults"))
    return JSONResponse(backend.faults.as_dict())


async def demo_faults_reset(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    backend.faults.reset()
    return JSONResponse(backend.faults.as_dict())


async def demo_stats(request: Request) -> Response:
    return JSONResponse(request.app.state.backend.stats.as_dict())


async def demo_stats_reset(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    backend.stats.reset()
    return JSONResponse(backend.stats.as_dict())


async def demo_rate_limit_reset(request: Request) -> Response:
    request.app.state.backend.limiter.reset()
    request.app.state.backend.auth_limiter.reset()
    return JSONResponse({"success": True})


async def demo_sold_out(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    try:
        body = await _json_body(request)
        item = body.get("itemId")
        flag = body.get("soldOut", True)
        if not isinstance(item, str):
            raise validation("itemId (a product or option id) is required", "itemId")
        if not isinstance(flag, bool):
            raise validation("soldOut must be true or false", "soldOut")
        try:
            backend.set_sold_out(item, flag)
        except KeyError:
            raise validation(f"unknown product or option {item!r}", "itemId") from None
    except ApiError as exc:
        return error_response(exc)
    return JSONResponse({"itemId": item, "soldOut": flag})


async def demo_health(request: Request) -> Response:
    return JSONResponse({"ok": True, "service": "kiosk demo backend"})


PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}}
input,button{{font-size:1.1rem;padding:.5rem;width:100%;box-sizing:border-box;margin:.3rem 0}}
.note{{color:#555;font-size:.9rem}}</style></head><body>{body}</body></html>"""


# A page that carries a payment's client secret: kept by no cache, and its address (the payment's
# id) sent to no other site.
SECRET_PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(PAGE.format(title=escape(title), body=body), status_code=status)


async def demo_checkout(request: Request) -> Response:
    response = _checkout_page(request)
    response.headers.update(SECRET_PAGE_HEADERS)
    return response


def _checkout_page(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    intent = backend.intent_by_id(request.path_params["paymentIntentId"])
    if intent is None:
        return _page("Payment not found", "<h1>Payment not found</h1>", 404)
    try:
        cart = backend.get_cart_json(intent["cartId"])
    except KeyError:
        cart = None
    if intent["status"] == "canceled" or cart is None:
        return _page("Payment canceled", "<h1>This payment was canceled</h1>", 410)
    if intent["status"] == "expired":
        return _page(
            "Payment link expired",
            "<h1>This payment link has expired</h1><p>Ask the kiosk for a new one.</p>",
            410,
        )
    name = escape(cart["restaurantDisplayName"])
    amount = escape(fmt(int(intent["amount"]), intent["currency"]))
    if intent["status"] == "succeeded":
        number = escape(cart.get("fulfillmentIdentifier") or "")
        return _page(
            "Paid", f"<h1>Paid: {amount}</h1><p>{name}: your order number is <b>{number}</b>.</p>"
        )
    lines = "".join(
        f"<li>{int(i['quantity'])} × {escape(i['name'])} — {escape(i['totalFormatted'])}</li>"
        for i in cart["items"]
    )
    secret = escape(intent["clientSecret"], quote=True)
    body = (
        f"<h1>{name}</h1><ul>{lines}</ul><p><b>Total {amount}</b></p>"
        '<form method="post" action="/demo/processor/confirm">'
        f'<input type="hidden" name="clientSecret" value="{secret}">'
        '<label>Card number <input name="cardNumber" inputmode="numeric" autocomplete="off" '
        'placeholder="4242 4242 4242 4242"></label><button type="submit">Pay</button></form>'
        '<p class="note">Demo processor: 4242 4242 4242 4242 approves, '
        "4000 0000 0000 0002 declines.</p>"
    )
    return _page(f"Pay {amount}", body)


# Pay at the counter: staff open the order's checkout page on their own device (contract, "Pay at
# counter"). They find it here by the code the kiosk shows: the cart id's last 6 characters, in
# capitals (the kiosk's kiosk.ordering.payment.counter_code; the demo shares only that rule).
COUNTER_PATH = "/demo/counter"
COUNTER_CODE_LENGTH = 6


def counter_code(cart_id: str) -> str:
    return cart_id[-COUNTER_CODE_LENGTH:].upper()


def _counter_allowed(backend: Backend, request: Request) -> bool:
    """The counter lists customers' names: this machine, or a device given the token printed at
    start (`kiosk demo-server`'s banner; `backend.counter_token`)."""
    client = request.client.host if request.client else ""
    token = request.query_params.get("token") or ""
    return client in LOOPBACK or hmac.compare_digest(
        token.encode("utf-8", "replace"), backend.counter_token.encode()
    )


async def demo_counter(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    if not _counter_allowed(backend, request):
        return _page("Counter", "<h1>This page needs the counter's link</h1>", 403)
    token = escape(request.query_params.get("token") or "", quote=True)
    wanted = (request.query_params.get("code") or "").strip().upper()
    # A code is looked up among all the payments not made yet; without one, the newest are listed.
    intents = backend.intents_awaiting_payment(code=wanted or None)
    rows = []
    for intent in intents:
        try:
            cart = backend.get_cart_json(intent["cartId"])
        except Exception:
            # One unreadable cart must not take the page down for every other order.
            log.warning("demo counter: cart %s could not be read", intent["cartId"])
            continue
        code = counter_code(intent["cartId"])
        if cart.get("status") != "LOCKED" or (wanted and code != wanted):
            continue
        amount = escape(fmt(int(intent["amount"]), intent["currency"]))
        name = escape(cart.get("customerName") or "")
        link = f"/demo/checkout/{escape(intent['id'], quote=True)}"
        rows.append(
            f'<li><a href="{link}"><b>{escape(code)}</b></a> {amount}'
            f"{' · ' + name if name else ''}</li>"
        )
    listing = "<ul>" + "".join(rows) + "</ul>" if rows else "<p>Nothing to pay right now.</p>"
    if wanted and not rows:
        listing = f"<p>No payment waits under the code {escape(wanted)}.</p>"
    elif not wanted and len(intents) < (waiting := backend.count_awaiting_payment()):
        listing += (
            f'<p class="note">The {len(intents)} newest of {waiting}: find others by code.</p>'
        )
    body = (
        "<h1>Orders to pay at the counter</h1>"
        f'<form method="get"><input type="hidden" name="token" value="{token}">'
        '<label>Code the customer says <input name="code" '
        'autocomplete="off"></label><button type="submit">Find</button></form>'
        f'{listing}<p class="note">Open an order to take its payment on this device.</p>'
    )
    return _page("Pay at the counter", body)


def _secret_of_checkout(backend: Backend, request: Request, url: Any) -> str:
    """Storefront 2.0 gives the kiosk only the checkout page's URL, not the payment's secret: the
    demo's approve/decline keys pay that page. Only from this machine (the kiosk itself), and only
    for a checkout page this backend made."""
    client = request.client.host if request.client else ""
    if client not in LOOPBACK:
        raise ApiError(403, "FORBIDDEN", "Paying by checkout URL is for this machine only")
    if not isinstance(url, str) or "/demo/checkout/" not in url:
        raise validation("checkoutUrl is not a demo checkout page", "checkoutUrl")
    intent = backend.intent_by_id(url.rstrip("/").rsplit("/", 1)[-1])
    if intent is None:
        raise not_found("Payment not found")
    return str(intent["clientSecret"])


async def demo_confirm(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    is_form = request.headers.get("content-type", "").lower().startswith(FORM_MEDIA)
    body: dict[str, Any] = {}
    try:
        body = await read_json(request)
        if "checkoutUrl" in body and "clientSecret" not in body:
            body["clientSecret"] = _secret_of_checkout(backend, request, body.get("checkoutUrl"))
        secret = body.get("clientSecret")
        card = body.get("cardNumber")
        if not isinstance(secret, str) or not secret:
            raise validation("clientSecret is required", "clientSecret")
        if not isinstance(card, str) or not card.strip():
            raise validation("cardNumber is required", "cardNumber")
        result = backend.confirm_payment(secret, card)
    except ApiError as exc:
        if is_form:
            msg = escape(exc.message)
            back = ""
            raw_secret = body.get("clientSecret")
            pid = raw_secret.split("_secret_")[0] if isinstance(raw_secret, str) else ""
            if pid:
                back = f'<p><a href="/demo/checkout/{escape(pid, quote=True)}">Try again</a></p>'
            return _page("Payment failed", f"<h1>Payment failed</h1><p>{msg}</p>{back}", exc.status)
        return error_response(exc)
    if is_form:
        number = escape(str(result["orderNumber"]))
        return _page("Paid", f"<h1>Thank you!</h1><p>Your order number is <b>{number}</b>.</p>")
    return JSONResponse(result)


# A test payment any client can find (docs/api.md, "A test payment"): a GET says this server has
# one, a POST {"checkoutUrl"} pays that checkout page with the approving card, as a customer's
# phone would. `kiosk doctor --test-order` looks for it; nothing of the demo is named there.
TEST_PAYMENT_PATH = "/.well-known/storefront-test-payment"


async def pay_for_test(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    client = request.client.host if request.client else ""
    try:
        # From this machine only, as paying by checkout URL is (_secret_of_checkout).
        if client not in LOOPBACK:
            raise ApiError(403, "FORBIDDEN", "The test payment is for this machine only")
        if request.method == "GET":
            return JSONResponse({"testPayment": True, "pays": "checkoutUrl"})
        body = await read_json(request)
        secret = _secret_of_checkout(backend, request, body.get("checkoutUrl"))
        result = backend.confirm_payment(secret, APPROVE_CARD)
    except ApiError as exc:
        return error_response(exc)
    return JSONResponse(result)


async def demo_picture(request: Request) -> Response:
    """A product's picture (kiosk.demo.pictures), for products that have one in the menu."""
    from kiosk.demo import pictures

    backend: Backend = request.app.state.backend
    product = backend.catalog.products.get(request.path_params["productId"])
    image = pictures.png(product.id) if product is not None and product.picture else None
    if image is None:
        return error_response(not_found("No picture"))
    return Response(image, media_type=PNG, headers={"Cache-Control": "public, max-age=3600"})


async def index(request: Request) -> Response:
    return _page(
        "Kiosk demo backend",
        "<h1>Kiosk demo backend</h1>"
        "<p>The Storefront API is served below <code>/api/v1</code>.</p>",
    )


def demo_routes() -> list[Route]:
    local = Doc(errors=(403,))  # loopback only
    local_body = Doc(errors=(403,), body=dict[str, Any], body_required=False)
    return [
        DocRoute("/", index, methods=["GET"], doc=Doc(media=(HTML,))),
        DocRoute("/demo/health", demo_health, methods=["GET"], doc=Doc()),
        DocRoute("/demo/faults", demo_faults, methods=["GET", "POST"], doc=local_body),
        DocRoute("/demo/faults/reset", demo_faults_reset, methods=["POST"], doc=local),
        DocRoute("/demo/stats", demo_stats, methods=["GET"], doc=local),
        DocRoute("/demo/stats/reset", demo_stats_reset, methods=["POST"], doc=local),
        DocRoute("/demo/rate-limit/reset", demo_rate_limit_reset, methods=["POST"], doc=local),
        DocRoute("/demo/sold-out", demo_sold_out, methods=["POST"], doc=local_body),
        DocRoute(
            COUNTER_PATH,
            demo_counter,
            methods=["GET"],
            doc=Doc(
                media=(HTML,),
                errors=(403,),
                error_media=(HTML,),
                params=(Param("token", "query"), Param("code", "query")),
            ),
        ),
        DocRoute(
            "/demo/pictures/{productId}.png",
            demo_picture,
            methods=["GET"],
            doc=Doc(media=(PNG,), errors=(404,)),
        ),
        DocRoute(
            "/demo/checkout/{paymentIntentId}",
            demo_checkout,
            methods=["GET"],
            doc=Doc(media=(HTML,), errors=(404, 410), error_media=(HTML,)),
        ),
        DocRoute(
            "/demo/processor/confirm",
            demo_confirm,
            methods=["POST"],
            # A form posted by the checkout page answers HTML; JSON answers JSON.
            doc=Doc(
                errors=(400, 402, 403, 404, 409),
                body=dict[str, Any],
                body_media=(JSON, FORM),
                media=(JSON, HTML),
                error_media=(JSON, HTML),
            ),
        ),
        DocRoute(
            TEST_PAYMENT_PATH,
            pay_for_test,
            methods=["GET", "POST"],
            doc=Doc(errors=(400, 403, 404, 409), body=dict[str, Any], body_required=False),
        ),
        DocRoute(
            API + "/openapi.json",
            serve(V1_API),
            methods=["GET"],
            doc=Doc(summary="This document"),
        ),
    ]


class ShapeA(TypedDict):
    """401, 404 and 500."""

    success: Literal[False]
    message: str
    code: str


class ShapeB(TypedDict):
    """Every other error; `code` and `details` on the API's (a /demo refusal has neither)."""

    error: str
    message: str
    status: int
    code: NotRequired[str]
    details: NotRequired[dict[str, Any]]


def _v1_error(status: int) -> Any:
    return ShapeA if status in SHAPE_A_CODES else ShapeB


V1_API = Api(
    title="Storefront API 1 (kiosk demo backend)",
    version="1",
    description=(
        "The legacy Storefront API under /api/v1 and the demo's own /demo routes, as the kiosk's"
        " embedded demo backend serves them; generated from its route table"
        " (kiosk/demo/openapi.py)."
        " Storefront 2.0 has its own document: /api/v1/storefront/openapi.json."
    ),
    base="",
    owns=lambda path: not path.startswith(V2_PREFIX + "/"),
    error_body=_v1_error,
    # The edge refuses a malformed or oversized request before any route (kiosk.demo.edge).
    common_errors=(400, 413),
    security_schemes={"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
)


async def framework_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status >= 500:
        log.error("demo backend: unexpected error on %s %s", request.method, request.url.path)
    path = request.url.path
    if path == V2_PREFIX or path.startswith(V2_PREFIX + "/"):
        legacy = ApiError(status, "", "")
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(status, "INTERNAL_ERROR")
        message = {404: "No such endpoint", 405: f"{request.method} is not allowed here"}
        legacy = ApiError(status, code, message.get(status, "Unexpected server error"))
        return v2_errors.response(v2_errors.from_domain(legacy))
    if status == 404:
        return error_response(not_found("No such endpoint"))
    if status == 405:
        return error_response(
            ApiError(405, "METHOD_NOT_ALLOWED", f"{request.method} is not allowed here")
        )
    if status < 500:
        return error_response(ApiError(status, "BAD_REQUEST", "The request was refused"))
    return error_response(ApiError(500, "GENERIC_ERROR", "Unexpected server error"))


def create_app(
    db_path: str | Path = ":memory:",
    *,
    clock: Callable[[], float] | None = None,
    rate_limit: int | None = 200,
    rate_window: float = 600.0,
    extra_products: int = 0,
    public_base_url: str | None = None,
    seed: bool = True,
    synchronous: str = "NORMAL",
    menu: str | Path | data.Restaurant | None = None,
) -> Starlette:
    """The demo Storefront backend as an ASGI app; `app.state.backend` is the Backend.

    menu: the restaurant to seed: a built-in name ("lantern", the default), a restaurant file's
    path, or a loaded data.Restaurant; a bad file raises menufile.MenuFileError.

    rate_limit: requests per `rate_window` s and IP; None = no limit (load tests).
    public_base_url: where checkout pages are reached (checkoutUrl); None = the request's URL.
    synchronous: "FULL" (what is acknowledged survives a power cut) or "NORMAL" (faster).
    """
    backend = Backend(
        str(db_path),
        clock=clock,
        rate_limit=rate_limit,
        rate_window=rate_window,
        extra_products=extra_products,
        public_base_url=public_base_url,
        seed=seed,
        synchronous=synchronous,
        menu=menu,
    )
    api = [*storefront_routes(), *api_routes()]
    routes = [*api, *demo_routes()]
    app = Starlette(
        routes=routes,
        # The framework's own errors (an unknown path, a method a route does not take, a crash)
        # in the envelope of the API the path belongs to, like every other answer.
        exception_handlers={HTTPException: framework_error, Exception: framework_error},
        # The edge first: nothing malformed reaches the limiter, the faults or a handler.
        # Then other sites (kiosk.demo.sites): refused where they would change state or read a
        # staff page; redirects name a path, never the Host header (the router's are off).
        middleware=[
            Middleware(Edge),
            Middleware(Sites, routes=routes, backend=backend),
            Middleware(Gate, backend=backend, routes=api),
        ],
    )
    app.router.redirect_slashes = False
    app.state.backend = backend
    return app
