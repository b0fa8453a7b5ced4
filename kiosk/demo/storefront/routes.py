"""The 2.0 operations a kiosk uses, one short handler each, grouped by resource: catalog, ordering
sessions, carts, items, discount, checkout. Every other operation of the vendor's 51 answers 404
NOT_FOUND in the 2.0 envelope (customer accounts, loyalty, receipts, analytics: listed in
kiosk/demo/README.md).

A handler gets a `Call` (the backend, the location, the path, the body as its bodies.py model
read it) and returns the JSON to send; cart writes return the cart, with its `ETag`. Credentials:
none for the catalog; the cart token (`X-Cart-Token`, stored as a SHA-256 hash, compared in
constant time) for a cart. Writes need an `Idempotency-Key` and, where the vendor says so,
`If-Match: "cart-N"` (428 without it, 409 `CART_CONFLICT` when stale: checked in the write's own
transaction, kiosk.demo.store).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kiosk.demo.backend import Backend
from kiosk.demo.domain.fulfilment import _haversine_miles
from kiosk.demo.edge import own_origin, parsed_body
from kiosk.demo.errors import ApiError
from kiosk.demo.openapi import Api, Doc, DocRoute, Param, serve
from kiosk.demo.store import EXPECTED_REVISION, IdempotencyConflict, RevisionConflict
from kiosk.demo.storefront import answers, bodies, shapes
from kiosk.demo.storefront.errors import V2Error, from_domain, response

PREFIX = "/api/v1/storefront"
HANDOFF_TTL = timedelta(minutes=15)
# A revision has at most 18 digits (it fits SQLite's and JSON's integers); a header's length is
# checked before any pattern or conversion (int() of 5,000 digits raises: it was a 500).
_IF_MATCH = re.compile(r'^(?:W/)?"cart-(0|[1-9][0-9]{0,17})"$')
IF_MATCH_MAX = 32
_KEY = re.compile(r"^[A-Za-z0-9._:-]{16,128}$")
KEY_MAX = 128
IDEMPOTENCY_KEY_SCHEMA = {"type": "string", "pattern": _KEY.pattern}
IF_MATCH_SCHEMA = {"type": "string", "pattern": _IF_MATCH.pattern}


@dataclass
class Call:
    b: Backend
    loc: dict[str, Any]
    p: dict[str, str]
    body: dict[str, Any]
    request: Request
    cart: dict[str, Any] | None = None  # the stored cart, on cart routes

    @property
    def cart_id(self) -> str:
        return self.p["cartId"]


Handler = Callable[[Call], Any]


# --- what every route checks --------------------------------------------------------------------


def _location(b: Backend, ident: str) -> dict[str, Any]:
    loc = b.location(ident)
    if loc is None or not loc.get("subscribed", True):
        raise V2Error(404, "NOT_FOUND", "Location not found")
    return loc


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _stored(b: Backend, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
    """The stored cart as it is now (EXPIRED past its expiresAt: kiosk.demo.domain.states)."""
    with b.store.read() as conn:
        cart = b._own_cart(conn, loc, cart_id)
    if cart is None:
        raise V2Error(404, "NOT_FOUND", "Cart not found")
    return cart


def _authorise(request: Request, cart: dict[str, Any]) -> None:
    token = request.headers.get("x-cart-token")
    if not token:
        raise V2Error(401, "UNAUTHORIZED", "X-Cart-Token is required for this cart")
    if not hmac.compare_digest(token_hash(token), str(cart.get("tokenHash", ""))):
        raise V2Error(403, "FORBIDDEN", "This cart token does not open this cart")


def _revision(request: Request) -> int:
    raw = request.headers.get("if-match")
    if raw is None:
        raise V2Error(428, "PRECONDITION_REQUIRED", 'If-Match: "cart-<revision>" is required')
    match = _IF_MATCH.fullmatch(raw.strip()) if len(raw) <= IF_MATCH_MAX else None
    if match is None:
        raise V2Error(400, "VALIDATION_ERROR", 'If-Match must be "cart-<revision>"')
    return int(match.group(1))


def _etag(body: Any) -> dict[str, str]:
    cart = body.get("cart", body) if isinstance(body, dict) else None
    if isinstance(cart, dict) and isinstance(cart.get("revision"), int) and "items" in cart:
        return {"ETag": f'"cart-{cart["revision"]}"', "Cache-Control": "private, no-store"}
    return {}


# --- the route factory --------------------------------------------------------------------------


def route(
    method: str,
    path: str,
    handler: Handler,
    *,
    body: Any = None,
    body_required: bool = True,
    cart: bool = False,
    write: bool = False,
    if_match: bool = False,
    status: int = 200,
    etag: bool = False,
    answer: Any = answers.AnyObject,
    params: tuple[Param, ...] = (),
    errors: tuple[int, ...] = (),
    token_optional: bool = False,
) -> DocRoute:
    """One 2.0 operation. `body` is the bodies.py type its JSON body is parsed with (None: no
    body); the rest says what it checks and answers, and is also what the OpenAPI document says."""

    async def run(request: Request) -> Response:
        b: Backend = request.app.state.backend
        try:
            loc = _location(b, request.path_params["locationId"]) if "locationId" in path else {}
            parsed = bodies.parse(body, parsed_body(request.scope)) if body is not None else {}
            call = Call(b, loc, request.path_params, parsed, request)
            if cart:
                call.cart = _stored(b, loc, request.path_params["cartId"])
                _authorise(request, call.cart)
            if not write:
                result = _domain(lambda: handler(call))
                return JSONResponse(result, status_code=status, headers=_etag(result))
            return _write(call, handler, if_match=if_match, status=status)
        except V2Error as error:
            return response(error)

    # The statuses each kind of route can answer (the vendor declares the same per operation).
    answered = set(errors)
    headers: list[Param] = []
    if cart:
        answered |= {401, 403}
    if write:
        answered.add(409)
        headers.append(Param("Idempotency-Key", "header", True, IDEMPOTENCY_KEY_SCHEMA))
    if if_match:
        answered.add(428)
        headers.append(Param("If-Match", "header", True, IF_MATCH_SCHEMA))
    doc = Doc(
        status=status,
        errors=tuple(sorted(answered)),
        body=body,
        body_required=body_required,
        response=answer,
        params=(*headers, *params),
        security=("StorefrontCartCapability",) if cart or token_optional else (),
        security_optional=token_optional,
        headers=("ETag", "Cache-Control") if etag else (),
    )
    return DocRoute(PREFIX + path, run, methods=[method], doc=doc)


def _domain(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except ApiError as exc:
        raise from_domain(exc) from None
    except RevisionConflict as exc:
        raise V2Error(
            409,
            "CART_CONFLICT",
            "The cart changed since you last read it; read it again",
            {"currentRevision": exc.current},
        ) from None


def _write(call: Call, handler: Handler, *, if_match: bool, status: int) -> Response:
    request = call.request
    key = request.headers.get("idempotency-key")
    if key is None:
        raise V2Error(400, "IDEMPOTENCY_KEY_REQUIRED", "Idempotency-Key is required")
    if len(key) > KEY_MAX or not _KEY.fullmatch(key):
        raise V2Error(
            400, "VALIDATION_ERROR", "Idempotency-Key must be 16-128 of A-Z a-z 0-9 . _ : -"
        )
    # A malformed If-Match is refused even where none is needed (a new cart), and before a key's
    # stored outcome is replayed.
    sent = request.headers.get("if-match") is not None
    revision = _revision(request) if if_match or sent else None
    expected = revision if if_match else None

    def outcome() -> tuple[int, Any]:
        marker = EXPECTED_REVISION.set(expected)
        try:
            return status, _domain(lambda: handler(call))
        except V2Error as error:
            return error.status, {
                "code": error.code,
                "message": error.message,
                "details": error.details,
            }
        finally:
            EXPECTED_REVISION.reset(marker)

    # A key belongs to one credential and one operation on one resource.
    client = request.client.host if request.client else ""
    token = request.headers.get("x-cart-token")
    who = str((call.cart or {}).get("tokenHash") or (token_hash(token) if token else client))
    scope = f"v2 {who} {request.method} {request.url.path}"
    digest = hashlib.sha256(json.dumps(call.body, sort_keys=True).encode()).hexdigest()
    try:
        code, body = call.b.store.idempotent(scope, key, digest, call.b.clock(), outcome)
    except IdempotencyConflict as exc:
        raise V2Error(409, exc.code, "This Idempotency-Key belongs to another request") from None
    if code >= 400:
        raise V2Error(code, body["code"], body["message"], body.get("details"))
    return JSONResponse(body, status_code=code, headers=_etag(body))


# --- catalog ------------------------------------------------------------------------------------


def _merchant(c: Call) -> Any:
    legacy = c.b.merchant_json(c.p["merchantSlug"])
    locations = [c.b.location_json(c.b.catalog.locations[loc["id"]]) for loc in legacy["locations"]]
    return shapes.merchant(legacy, locations)


def _distance(c: Call) -> Any:
    lat, lng, unit = c.body["lat"], c.body["lng"], c.body["unit"]
    here = c.b.location_json(c.loc)
    address = here["addressData"]
    miles = _haversine_miles(address["lat"], address["lng"], float(lat), float(lng))
    km = miles * 1.609344
    return {
        "locationId": c.loc["id"],
        "location": {
            "id": c.loc["id"],
            "restaurantDisplayName": here["restaurantDisplayName"],
            "addressString": here["addressString"],
            "coordinates": {"lat": address["lat"], "lng": address["lng"]},
        },
        "distance": {
            "value": round(miles if unit == "miles" else km, 3),
            "unit": unit,
            "miles": round(miles, 3),
            "kilometers": round(km, 3),
        },
    }


def _readiness(c: Call) -> Any:
    wanted = c.request.query_params.get("fulfillmentMethod", "takeout")
    if wanted not in shapes.METHOD_FROM_V2:
        raise V2Error(
            400, "VALIDATION_ERROR", "Unknown fulfillmentMethod", {"field": "fulfillmentMethod"}
        )
    offered = shapes.method_from_v2(wanted, c.loc["methods"]) in c.loc["methods"]
    if not offered:
        return {"ready": False, "fulfillmentMethod": wanted, "reason": "not offered here"}
    now = c.b.local_now(c.loc)
    if c.b.is_open(c.loc, now):
        return {
            "ready": True,
            "fulfillmentMethod": wanted,
            "pickupType": "ASAP",
            "orderDate": now.date().isoformat(),
            "orderTime": now.strftime("%H:%M"),
        }
    days = c.b.order_days(c.loc) if c.loc["details"]["scheduled"] else []
    if not days:
        return {"ready": False, "fulfillmentMethod": wanted, "reason": "closed"}
    return {
        "ready": True,
        "fulfillmentMethod": wanted,
        "pickupType": "LATER",
        "orderDate": days[0]["value"],
        "orderTime": days[0]["intervals"][0],
    }


def _menus(c: Call) -> Any:
    q = c.request.query_params
    return shapes.menus(c.b.menus_json(c.loc, q.get("orderDate"), q.get("orderTime")))


def _recommendations(c: Call) -> Any:
    keep = ("id", "name", "price", "description", "availability", "images", "modifierIds")
    return [{k: p[k] for k in keep if k in p} for p in c.b.cross_sell(c.loc, c.cart_id)]


# --- ordering sessions and carts ---------------------------------------------------------------


def _session(c: Call) -> Any:
    method = c.body["fulfillmentMethod"]
    existing = c.body.get("existingCartId")
    if existing is not None:
        stored = _stored(c.b, c.loc, existing)
        _authorise(c.request, stored)
        if _revision(c.request) != int(stored.get("revision", 0)):
            raise V2Error(409, "CART_CONFLICT", "The cart changed since you last read it")
    token = secrets.token_urlsafe(32)
    legacy_body: dict[str, Any] = {
        "fulfillmentMethod": shapes.method_from_v2(method, c.loc["methods"])
    }
    if existing:
        legacy_body["existingCartId"] = existing
    result = c.b.start_session(
        c.loc,
        legacy_body,
        new_cart_fields={"tokenHash": token_hash(token)},
        may_resume=lambda cart: cart["id"] == existing,
    )
    cart_id = result["cartId"]
    out: dict[str, Any] = {"cart": _cart(c.b, c.loc, cart_id)}
    if cart_id != existing:
        out["cartAccessToken"] = token
    return out


def _cart(b: Backend, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
    legacy = b.get_cart(loc, cart_id)
    merchant_id = b.catalog.merchant["id"] if b.catalog.merchant else ""
    return shapes.cart(legacy, _stored(b, loc, cart_id), merchant_id)


def _cart_after(change: Callable[[Call], Any]) -> Handler:
    """A write done through the legacy domain, answered with the cart as it now is."""

    def run(c: Call) -> Any:
        change(c)
        return _cart(c.b, c.loc, c.cart_id)

    return run


def _patch_cart(c: Call) -> None:
    method = c.body.get("fulfillmentMethod")
    note = c.body.get("note")
    legacy = (
        c.b._method(c.loc, {"fulfillmentMethod": shapes.method_from_v2(method, c.loc["methods"])})
        if method
        else None
    )

    def change(cart: dict[str, Any]) -> None:
        if legacy:
            cart["fulfillmentMethod"] = legacy
        if note is not None:
            cart["note"] = note

    c.b._mutate(c.loc, c.cart_id, change)


def _delete_cart(c: Call) -> Any:
    # 2.0 keeps a deleted cart, expired: a retried delete and a late read still find it. A cart in
    # checkout is abandoned with its payment, which can no longer be made.
    c.b.expire_cart(c.loc, c.cart_id)
    return _cart(c.b, c.loc, c.cart_id)


def _customer(c: Call) -> None:
    name = c.body["customerName"]
    email = c.body.get("emailAddress")
    phone = c.body.get("phoneNumber")

    def change(cart: dict[str, Any]) -> None:
        # Validate, then update: a cart that cannot be paid for is refused as it is.
        problems = c.b._problems(c.loc, cart)
        if problems:
            first = problems[0]
            raise V2Error(400, first["code"], first["message"], {"errors": problems})
        cart["customerName"] = name
        if email is not None:
            cart["emailAddress"] = email.strip()
        if phone is not None:
            cart["phoneNumber"] = phone

    c.b._mutate(c.loc, c.cart_id, change)


def _delivery(c: Call) -> None:
    c.b.set_delivery(c.loc, c.cart_id, dict(c.body))


def _table(c: Call) -> None:
    c.b.set_table(c.loc, c.cart_id, c.body)


def _room(c: Call) -> None:
    c.b.set_room(c.loc, c.cart_id, c.body)


# --- items and discount ------------------------------------------------------------------------


def _add_item(c: Call) -> None:
    names = ("productId", "quantity", "specialInstructions")
    legacy: dict[str, Any] = {k: c.body[k] for k in names if k in c.body}
    if c.body.get("selections"):
        legacy["modifiers"] = c.body["selections"]
    c.b.add_item(c.loc, c.cart_id, legacy)


def _item_quantity(c: Call) -> None:
    c.b.set_quantity(c.loc, c.cart_id, c.p["itemId"], {"quantity": c.body["quantity"]})


def _remove_item(c: Call) -> None:
    # A line that is not there is 404, found by the write itself: after the cart's state is checked.
    c.b.set_quantity(c.loc, c.cart_id, c.p["itemId"], {"quantity": 0})


def _discount(c: Call) -> None:
    c.b.apply_discount(c.loc, {"code": c.body["code"], "cartId": c.cart_id})


# --- checkout and the order ---------------------------------------------------------------------


def _handoff(c: Call) -> Any:
    base = own_origin(c.request.scope)
    # Each hand-off renews the payment's expiry; past it the payment is refused.
    ttl = HANDOFF_TTL.total_seconds()
    intent = c.b.create_payment_intent(c.loc, c.cart_id, base, ttl=ttl)
    return {"checkoutUrl": intent["checkoutUrl"], "expiresAt": intent["expiresAt"]}


def _order_result(c: Call) -> Any:
    stored = _stored(c.b, c.loc, c.cart_id)
    status = stored["status"]
    if status == "EXPIRED":
        return {"state": "failed", "code": "CART_EXPIRED"}
    if status != "COMPLETED":
        with c.b.store.read() as conn:
            attempt = conn.execute(
                "SELECT status FROM payment_intents WHERE id = ?",
                (stored.get("paymentIntentId") or "",),
            ).fetchone()
        if attempt is not None and attempt[0] == "declined":
            # The last attempt was declined (the demo processor's 4000… card); a new hand-off
            # starts a new attempt (Payments.create_payment_intent).
            return {"state": "failed", "code": "PAYMENT_DECLINED"}
        return {"state": "payment_pending"}
    with c.b.store.read() as conn:
        row = conn.execute(
            "SELECT created_at FROM orders WHERE cart_id = ? ORDER BY created_at LIMIT 1",
            (c.cart_id,),
        ).fetchone()
    legacy = c.b.get_cart(c.loc, c.cart_id)
    return {
        "state": "completed",
        "order": shapes.order(legacy, stored, float(row[0]) if row else c.b.clock()),
    }


# --- the table ----------------------------------------------------------------------------------

LOC = "/locations/{locationId}"
CART = LOC + "/carts/{cartId}"


def _cart_write(method: str, path: str, change: Callable[[Call], Any], **kw: Any) -> Route:
    kw.setdefault("if_match", True)
    return route(
        method,
        path,
        _cart_after(change),
        cart=True,
        write=True,
        etag=True,
        answer=answers.Cart,
        **kw,
    )


def _query(name: str, schema: dict[str, Any] | None = None) -> Param:
    return Param(name, "query", schema=schema or {"type": "string"})


_METHODS = {"type": "string", "enum": sorted(shapes.METHOD_FROM_V2)}
_EMPTY: dict[str, Any] = {"body": bodies.EmptyBody, "body_required": False}


def _location_routes() -> list[Route]:
    """What a location offers: its record, times, rules and menus (no cart needed)."""
    return [
        route("GET", "/merchant/{merchantSlug}", _merchant),
        route(
            "GET", "/locations/{locationId}", lambda c: shapes.location(c.b.location_json(c.loc))
        ),
        route("POST", LOC + "/distance", _distance, body=bodies.DistanceRequest),
        route("GET", LOC + "/time-intervals", lambda c: c.b.time_intervals_json(c.loc)),
        route(
            "GET",
            LOC + "/ordering-readiness",
            _readiness,
            answer=answers.Readiness,
            params=(_query("fulfillmentMethod", _METHODS),),
        ),
        route("GET", LOC + "/gratuity", lambda c: c.b.gratuity_json(c.loc)),
        route("GET", LOC + "/menus", _menus, params=(_query("orderDate"), _query("orderTime"))),
        route(
            "GET",
            LOC + "/products/{productId}",
            lambda c: c.b.product_json(c.loc, c.p["productId"]),
        ),
    ]


def _cart_routes() -> list[Route]:
    """The ordering session and everything done to its cart, up to the hand-off and the result."""
    return [
        route(
            "POST",
            LOC + "/ordering-sessions",
            _session,
            body=bodies.OrderingSessionRequest,
            write=True,
            status=201,
            etag=True,
            answer=answers.OrderingSession,
            # Resuming a cart takes its token and If-Match (428 without it).
            params=(Param("If-Match", "header", False, IF_MATCH_SCHEMA),),
            errors=(401, 403, 428),
            token_optional=True,
        ),
        route(
            "GET",
            CART,
            lambda c: _cart(c.b, c.loc, c.cart_id),
            cart=True,
            etag=True,
            answer=answers.Cart,
        ),
        _cart_write("PATCH", CART, _patch_cart, body=bodies.CartPatch),
        route(
            "DELETE",
            CART,
            _delete_cart,
            cart=True,
            write=True,
            if_match=True,
            etag=True,
            answer=answers.Cart,
            **_EMPTY,
        ),
        route(
            "GET", CART + "/products", _recommendations, cart=True, answer=answers.Recommendations
        ),
        _cart_write("PUT", CART + "/validate-and-update", _customer, body=bodies.CustomerDetails),
        _cart_write(
            "PUT",
            CART + "/gratuity",
            lambda c: c.b.set_gratuity(c.loc, c.cart_id, c.body),
            body=bodies.GratuityRequest,
        ),
        _cart_write("PUT", CART + "/set-delivery", _delivery, body=bodies.DeliveryAddress),
        _cart_write("PUT", CART + "/set-table", _table, body=bodies.TableRequest),
        _cart_write("PUT", CART + "/set-room", _room, body=bodies.RoomRequest),
        _cart_write(
            "PUT",
            CART + "/update-order-time",
            lambda c: c.b.update_order_time(c.loc, c.cart_id, c.body),
            body=bodies.OrderTimeRequest,
        ),
        _cart_write("POST", CART + "/items", _add_item, body=bodies.AddCartItem),
        _cart_write("PATCH", CART + "/items/{itemId}", _item_quantity, body=bodies.ItemQuantity),
        _cart_write("DELETE", CART + "/items/{itemId}", _remove_item),
        _cart_write("POST", CART + "/discount", _discount, body=bodies.DiscountRequest),
        _cart_write(
            "DELETE",
            CART + "/discount",
            lambda c: c.b.remove_discount(c.loc, c.cart_id),
            **_EMPTY,
        ),
        route(
            "POST",
            CART + "/checkout-handoffs",
            _handoff,
            cart=True,
            write=True,
            status=201,
            answer=answers.CheckoutHandoff,
            **_EMPTY,
        ),
        route("GET", CART + "/order-result", _order_result, cart=True, answer=answers.OrderResult),
    ]


def storefront_routes() -> list[Route]:
    return [
        *_location_routes(),
        *_cart_routes(),
        DocRoute(
            PREFIX + "/openapi.json",
            serve(API),
            methods=["GET"],
            doc=Doc(summary="This document (the demo's own; not a vendor operation)"),
        ),
    ]


def _error_body(status: int) -> Any:
    return answers.ErrorEnvelope


API = Api(
    title="Storefront API 2.0 (kiosk demo backend)",
    version="2.0.0",
    description=(
        "The operations of the vendor's Storefront API 2.0 that the kiosk's embedded demo backend"
        " emulates; generated from its route table and request models (kiosk/demo/openapi.py)."
    ),
    base=PREFIX,
    owns=lambda path: path.startswith(PREFIX + "/"),
    error_body=_error_body,
    # Every 2.0 operation: bad input, unknown resource, rate limit, server and injected faults.
    common_errors=(400, 404, 429, 500, 503),
    error_headers=("X-Request-Id",),
    security_schemes={
        "StorefrontCartCapability": {"type": "apiKey", "in": "header", "name": "X-Cart-Token"}
    },
    header_schemas={"ETag": IF_MATCH_SCHEMA},
)


Endpoint = Callable[[Request], Awaitable[Response]]
