"""StorefrontClient: one async method per contract row, over one long-lived httpx.AsyncClient.

Resilience (the rules the rest of the kiosk relies on):
- Reads (GET, and the two idempotent DELETEs and the validate POST: see endpoints.py) retry
  connection errors, timeouts, 429 and 5xx with capped exponential backoff and jitter.
- Any other write is retried only when it certainly never reached the server: a connect error, a
  connect or pool timeout, or a 429 (the server refused it before doing anything). After a read
  timeout, a dropped connection once the request was sent, or a 5xx, the outcome is unknown: the
  client raises AmbiguousWriteError and the caller re-reads the cart: an item is never added twice.
- Waits honour the body's `retryAfter`, the `Retry-After` header (seconds or an HTTP date) and
  `X-RateLimit-Reset`; a wait longer than `max_wait` (or past the call's deadline) is raised as
  RateLimitedError(retry_after=...) instead of slept.
- Each attempt has its own timeout; each call has an overall deadline. Clock, sleep and jitter are
  injectable so tests compute exact waits.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, SecretStr, ValidationError

from kiosk.diskcache import DiskCache

from .cache import DiskReads, MemoryCache, Timed
from .endpoints import ENDPOINTS, Endpoint
from .errors import (
    ResponseFormatError,
    StorefrontError,
    UnsupportedOperationError,
    error_from_response,
)
from .models import (
    Cart,
    CartValidation,
    DeliveryAddress,
    FulfillmentMethod,
    Location,
    MenuProduct,
    MenusResponse,
    Merchant,
    OrderingSession,
    OrderProgress,
    PaymentIntent,
    ProductDetail,
    Readiness,
    Selection,
    TimeIntervals,
    TipSettings,
    validate_as,
)
from .money import to_decimal_string
from .pictures import IMAGE_MAX_BYTES, Pictures
from .sender import (
    RETRY_REASONS,
    ClientStats,
    RateBudget,
    RetryObserver,
    RetryPolicy,
    Sender,
)

__all__ = [
    "RETRY_REASONS",
    "ClientStats",
    "RateBudget",
    "RetryPolicy",
    "StorefrontClient",
    "key_identity",
]

log = logging.getLogger("kiosk.api")

# Request headers whose values are credentials: scrubbed from any server text like the API key.
_SECRET_HEADERS = {"x-api-key", "x-cart-token"}

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def key_identity(api_key: str) -> str:
    """A short, non-reversible identity of an API key (sha256's first 8 hex) for keys and repr."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:8]


# Told of each contract row's outcome: (operation, seconds, None or the error it raised). The
# client knows nothing of who listens (kiosk.metrics, wired by kiosk.runtime).
RequestObserver = Callable[[str, float, StorefrontError | None], None]


class StorefrontClient:
    """The Storefront API, one async method per contract row. Use as an async context manager.

    This is the legacy (v1) dialect: an API key on every request. `kiosk.api.v2` speaks 2.0 behind
    the same methods; the class attributes below are what a dialect changes.
    """

    dialect = "v1"
    # Whether a delivery address must carry its coordinates (2.0 does; the legacy server places
    # the address itself).
    needs_coordinates = False
    # Whether the server sends no X-RateLimit-* headers, so the kiosk counts its own budget.
    counts_own_budget = False
    # Whether creating the payment intent locks the cart and puts the checkout URL on it, so the
    # cart is read after it (the legacy API). 2.0's hand-off answers the URL itself.
    intent_changes_cart = True
    endpoints: Mapping[str, Endpoint] = ENDPOINTS
    base_suffix = "/api/v1"
    needs_key = True

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        retry: RetryPolicy | None = None,
        timeout: float = 10.0,
        deadline: float = 30.0,
        menu_ttl: float = 300.0,
        location_ttl: float = 3600.0,
        slots_ttl: float = 300.0,
        max_wait: float = 30.0,
        rate_limit: int = 200,
        user_agent: str = "kiosk",
        disk_cache: DiskCache | None = None,
        cache_namespace: str = "",
    ) -> None:
        base = base_url.strip().rstrip("/")
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("base_url must be an http(s) URL ending with /api/v1")
        if not parts.path.endswith(self.base_suffix):
            raise ValueError(f"base_url must end with {self.base_suffix} (the API's prefix)")
        if self.needs_key and not api_key:
            raise ValueError("api_key must not be empty")
        self.base_url = base
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._api_key = SecretStr(api_key)
        self.key_id = key_identity(api_key)
        self._clock = clock
        # Durations (what a request took, as logged and counted) from their own clock: a test
        # holds both still for a screen that shows them (the staff screen's snapshot).
        self._timer = timer
        # Spec: menus may be cached 5 to 10 minutes.
        self.menu_ttl = min(600.0, max(300.0, menu_ttl))
        self.location_ttl = location_ttl
        # Order-time slots move with the clock, but an order takes minutes and each re-read costs
        # budget (issue 6); a slot that passed meanwhile is refused by the server, shown at the
        # field (A).
        self.slots_ttl = slots_ttl
        self.rate_budget = RateBudget(rate_limit, clock, self_counted=self.counts_own_budget)
        self.stats = ClientStats()
        self.last_error: StorefrontError | None = None
        self.last_error_at: float | None = None
        self.last_success_at: float | None = None
        # Told of every contract row's outcome (kiosk.metrics, set by the composition root).
        self.observer: RequestObserver | None = None
        # The caches (kiosk/api/cache.py): reads in memory and in flight; the site's shared cache
        # on disk (DISK_KINDS only), where `cache_namespace` names the backend where the base URL
        # does not (the embedded demo's database).
        self.memory = MemoryCache(clock, self.stats)
        self.disk = DiskReads(
            disk_cache,
            clock,
            self.stats,
            ("storefront", self.dialect, base, cache_namespace, self.key_id),
        )
        # Client secrets this client has handled, scrubbed from later server text (bounded).
        self._seen_secrets: deque[str] = deque(maxlen=16)
        # Assumption-A routes this server turned out not to have (remembered per client, which
        # is per server): "validate", "remove_discount".
        self._missing_routes: set[str] = set()
        # Kept so a probe of the other dialect goes over the same wire (kiosk.api.probe).
        self._transport = transport
        self._http = httpx.AsyncClient(
            base_url=base + "/",
            transport=transport,
            timeout=timeout,
            headers={"Accept": "application/json", "User-Agent": user_agent},
            follow_redirects=False,
        )
        self.pictures = Pictures(
            self._http,
            self._origin,
            clock=clock,
            ttl=self.menu_ttl,
            timeout=timeout,
            stats=self.stats,
            budget=self.rate_budget,
        )
        # The retry / 429 / idempotency loop (kiosk/api/sender.py): its rules live there alone.
        self.sender = Sender(
            self._http,
            clock=clock,
            timer=timer,
            sleep=sleep,
            retry=retry or RetryPolicy(),
            timeout=timeout,
            deadline=deadline,
            max_wait=max_wait,
            rate_budget=self.rate_budget,
            stats=self.stats,
        )

    # The sender's settings, read where they were before it had its own class.
    @property
    def retry(self) -> RetryPolicy:
        return self.sender.retry

    @property
    def timeout(self) -> float:
        return self.sender.timeout

    @property
    def deadline(self) -> float:
        return self.sender.deadline

    @property
    def max_wait(self) -> float:
        return self.sender.max_wait

    @property
    def retry_observer(self) -> RetryObserver | None:
        """Told of each retry with its reason (kiosk.metrics wires it)."""
        return self.sender.retry_observer

    @retry_observer.setter
    def retry_observer(self, observer: RetryObserver | None) -> None:
        self.sender.retry_observer = observer

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> StorefrontClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self.memory.close()
        await self._http.aclose()

    @property
    def email_required(self) -> bool:
        """Whether the customer's details need an email: the legacy validate-and-update takes
        customerName and emailAddress, both (its spec, row 15)."""
        return True

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    def __repr__(self) -> str:
        return f"StorefrontClient(base_url={self.base_url!r}, key_id={self.key_id!r})"

    # ------------------------------------------------------------------ cache

    def clear_cache(self) -> None:
        """Forget every cached read (in-flight reads finish but are not stored)."""
        self.memory.clear()

    @property
    def transport(self) -> httpx.AsyncBaseTransport | None:
        """The transport given at construction (None: the network), to probe the same wire."""
        return self._transport

    @property
    def stale_since(self) -> float | None:
        """Since when reads are answered from stale data on disk because the server could not be
        reached (for staff: the health line and the staff screen); None when all is fresh."""
        return self.disk.stale_since

    @stale_since.setter
    def stale_since(self, since: float | None) -> None:
        self.disk.stale_since = since

    def invalidate(self, location_id: str | None = None, kind: str | None = None) -> int:
        """Forget cached reads of one location and/or one kind ("menus", "products", "product",
        "location", "gratuity", "time_intervals", "merchant"). Returns how many entries went.
        Matching reads in flight finish for their waiters but are not stored."""

        def match(key: tuple[Hashable, ...]) -> bool:
            return (location_id is None or key[2] == location_id) and (
                kind is None or key[1] == kind
            )

        return self.memory.invalidate(match)

    async def _cached(
        self,
        kind: str,
        scope: str,
        extra: tuple[Hashable, ...],
        ttl: float,
        fetch: Callable[[], Awaitable[Timed[T]]],
        *,
        fresh: bool = False,
    ) -> T:
        return await self.memory.read((self.key_id, kind, scope, *extra), ttl, fetch, fresh=fresh)

    # ------------------------------------------------------------------ transport

    async def _call(
        self,
        endpoint: Endpoint,
        path_params: Mapping[str, str],
        *,
        body: Any = None,
        query: Mapping[str, str] | None = None,
        secrets: Iterable[str] = (),
        gone_is_done: bool = False,
        etag: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Send one contract row with retries; return the parsed JSON body (None when empty).

        `gone_is_done`: a 404 after an earlier attempt may have landed means that attempt did the
        job (a retried DELETE); it returns None instead of raising.
        `etag`: sent as If-None-Match; a 304 returns NOT_MODIFIED. `meta` receives the answer's
        ETag and Cache-Control, and a 2xx's body as it came (`body`: the disk cache keeps it).
        """
        started = self._timer()
        try:
            result = await self._attempts(
                endpoint, path_params, body, query, tuple(secrets), gone_is_done, etag, meta
            )
        except StorefrontError as exc:
            self.last_error = exc
            self.last_error_at = self._clock()
            self._observed(endpoint.name, started, exc)
            raise
        self.last_success_at = self._clock()
        self._observed(endpoint.name, started, None)
        return result

    @property
    def clock(self) -> Callable[[], float]:
        """The wall clock this client stamps its answers and errors with."""
        return self._clock

    def _observed(self, operation: str, started: float, error: StorefrontError | None) -> None:
        # The whole operation, retries and waits included: what the customer waited for.
        if self.observer is None:
            return
        try:
            self.observer(operation, self._timer() - started, error)
        except Exception:
            log.warning("the request observer failed", exc_info=True)

    async def _attempts(
        self,
        endpoint: Endpoint,
        path_params: Mapping[str, str],
        body: Any,
        query: Mapping[str, str] | None,
        extra_secrets: tuple[str, ...],
        gone_is_done: bool,
        etag: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """The request as this dialect spells it, handed to the sender (which retries it)."""
        path = endpoint.path(**path_params)
        url = self._origin + path if endpoint.outside_base else path.lstrip("/")
        secrets = tuple(
            s for s in (self._api_key.get_secret_value(), *self._seen_secrets, *extra_secrets) if s
        )
        content = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = self._request_headers(endpoint, path_params)
        secrets += tuple(v for k, v in headers.items() if k.lower() in _SECRET_HEADERS)
        shown = path + (("?" + "&".join(f"{k}={v}" for k, v in query.items())) if query else "")

        def on_answer(response: httpx.Response) -> Any:
            data = self._decode(response, endpoint, secrets)
            self._answered(endpoint, path_params, response, data)
            return data

        return await self.sender.send(
            endpoint,
            url,
            on_answer,
            headers=headers,
            content=content,
            query=query,
            secrets=secrets,
            shown=shown,
            gone_is_done=gone_is_done,
            etag=etag,
            meta=meta,
        )

    def cart_access(self, cart_id: str) -> SecretStr | None:
        """What must be kept with a cart id to reach the cart again after a restart (2.0: its
        token); None when the key alone reaches it (v1)."""
        return None

    def restore_cart_access(self, cart_id: str, access: SecretStr) -> None:
        """Give back what cart_access returned before a restart (v1: nothing to do)."""

    def restore_handoff(self, cart_id: str, checkout_url: str) -> None:
        """Give back the checkout hand-off a previous run made for `cart_id` (v1: nothing)."""

    def _request_headers(
        self, endpoint: Endpoint, path_params: Mapping[str, str]
    ) -> dict[str, str]:
        """The dialect's credentials and preconditions for one request (v1: the API key)."""
        return {"X-API-Key": self._api_key.get_secret_value()}

    def _answered(
        self,
        endpoint: Endpoint,
        path_params: Mapping[str, str],
        response: httpx.Response,
        data: Any,
    ) -> None:
        """A 2xx arrived: what the dialect learns from it (v1: nothing)."""

    def _decode(self, response: httpx.Response, endpoint: Endpoint, secrets: Sequence[str]) -> Any:
        content = response.content
        if not content.strip():
            return None
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ResponseFormatError(status=response.status_code, endpoint=endpoint.name) from exc
        # A 2xx that says {success: false} is an error in disguise (tolerated, assumption A).
        if isinstance(data, dict) and data.get("success") is False:
            raise error_from_response(
                response.status_code, content, secrets=secrets, endpoint=endpoint.name
            )
        return data

    def _parse(self, model: type[T], data: Any, endpoint: str) -> T:
        """`data` as `model` (a model, or a lean menu record); bad data is ResponseFormatError."""
        try:
            return validate_as(model, data)
        except ValidationError as exc:
            # Locations and types only: the input may hold a client secret.
            where = [".".join(str(p) for p in e["loc"]) + f": {e['type']}" for e in exc.errors()]
            raise ResponseFormatError(
                endpoint=endpoint, details={"errors": "; ".join(where[:5])}
            ) from None

    def _parse_list(self, model: type[T], data: Any, endpoint: str, key: str) -> list[T]:
        if isinstance(data, dict) and isinstance(data.get(key), list):
            data = data[key]  # tolerated wrapper: {"products": [...]}
        if not isinstance(data, list):
            raise ResponseFormatError(endpoint=endpoint, details={"errors": "expected a list"})
        return [self._parse(model, item, endpoint) for item in data]

    async def _cart_result(self, data: Any, location_id: str, cart_id: str, endpoint: str) -> Cart:
        """A write's cart: `{cartId, cart}` (contract) or a bare Cart; when the body carries no cart
        (tolerated), the cart is read back once."""
        if isinstance(data, dict):
            inner = data.get("cart")
            if isinstance(inner, dict):
                return self._parse(Cart, inner, endpoint)
            if "id" in data and ("items" in data or "status" in data):
                return self._parse(Cart, data, endpoint)
            new_id = data.get("cartId")
            if isinstance(new_id, str) and new_id:
                cart_id = new_id
        return await self.get_cart(location_id, cart_id)

    # ------------------------------------------------------------------ the shared disk cache

    def disk_key(self, kind: str, scope: str, extra: tuple[Hashable, ...] = ()) -> tuple[str, ...]:
        """Where a read is kept on disk: the base URL, the dialect and the backend (namespace), the
        key's identity (never the key), then what was read and for which location."""
        return self.disk.key(kind, scope, extra)

    def _from_store(self, endpoint: Endpoint, path_params: Mapping[str, str], data: Any) -> None:
        """A read answered from the disk cache: what the dialect would have learnt from the
        server's answer (2.0: a location slug's id)."""

    async def _fetch_shared(
        self,
        kind: str,
        scope: str,
        extra: tuple[Hashable, ...],
        ttl: float,
        ep: Endpoint,
        params: Mapping[str, str],
        query: Mapping[str, str] | None,
        parse: Callable[[Any], T],
        *,
        fresh: bool = False,
    ) -> Timed[T]:
        """A cacheable GET of `ep` through the site's disk cache (cache.py `DiskReads`)."""

        async def call(etag: str | None, meta: dict[str, Any] | None) -> Any:
            return await self._call(ep, params, query=query, etag=etag, meta=meta)

        def kept(data: Any) -> None:
            self._from_store(ep, params, data)

        return await self.disk.fetch(kind, scope, extra, ttl, call, parse, kept=kept, fresh=fresh)

    # ------------------------------------------------------------------ rows 1-7: reads

    async def _read_one(
        self,
        kind: str,
        model: type[M],
        params: dict[str, str],
        scope: str,
        ttl: float,
        extra: tuple[Hashable, ...] = (),
        *,
        fresh: bool = False,
    ) -> M:
        """A cached GET of one object: the endpoint named `kind`, parsed as `model`. `fresh`:
        asked of the server, whatever the caches hold (the answer is kept as usual)."""
        ep = ENDPOINTS[kind]

        def parse(data: Any) -> M:
            return self._parse(model, data, ep.name)

        async def fetch() -> Timed[M]:
            return await self._fetch_shared(
                kind, scope, extra, ttl, ep, params, None, parse, fresh=fresh
            )

        return await self._cached(kind, scope, extra, ttl, fetch, fresh=fresh)

    async def get_merchant(self, merchant_slug: str, *, fresh: bool = False) -> Merchant:
        params = {"merchant_slug": merchant_slug}
        return await self._read_one(
            "merchant", Merchant, params, merchant_slug, self.location_ttl, fresh=fresh
        )

    async def get_location(self, location_id: str, *, fresh: bool = False) -> Location:
        params = {"location_id": location_id}
        return await self._read_one(
            "location", Location, params, location_id, self.location_ttl, fresh=fresh
        )

    async def ordering_readiness(
        self, location_id: str, fulfillment_method: FulfillmentMethod | str
    ) -> Readiness | None:
        """Whether the location takes an order for as soon as possible now; None: this dialect
        cannot say (the legacy API has no such read)."""
        return None

    async def get_time_intervals(self, location_id: str, *, fresh: bool = False) -> TimeIntervals:
        params = {"location_id": location_id}
        return await self._read_one(
            "time_intervals", TimeIntervals, params, location_id, self.slots_ttl, fresh=fresh
        )

    async def get_gratuity(self, location_id: str) -> TipSettings:
        # Tip settings are menu-like configuration: the menu TTL (A).
        params = {"location_id": location_id}
        return await self._read_one("gratuity", TipSettings, params, location_id, self.menu_ttl)

    async def get_menus(
        self, location_id: str, order_date: str | None = None, order_time: str | None = None
    ) -> MenusResponse:
        ep = self.endpoints["menus"]
        query = {}
        if order_date:
            query["orderDate"] = order_date
        if order_time:
            query["orderTime"] = order_time

        extra = (order_date or "", order_time or "")

        def parse(data: Any) -> MenusResponse:
            if isinstance(data, list):
                data = {"menus": data}  # tolerated: a bare list of menus
            return self._parse(MenusResponse, data, ep.name)

        async def fetch() -> Timed[MenusResponse]:
            params = {"location_id": location_id}
            return await self._fetch_shared(
                "menus", location_id, extra, self.menu_ttl, ep, params, query or None, parse
            )

        return await self._cached("menus", location_id, extra, self.menu_ttl, fetch)

    async def list_products(self, location_id: str) -> list[MenuProduct]:
        ep = self.endpoints["products"]

        def parse(data: Any) -> list[MenuProduct]:
            return self._parse_list(MenuProduct, data, ep.name, "products")

        async def fetch() -> Timed[list[MenuProduct]]:
            params = {"location_id": location_id}
            return await self._fetch_shared(
                "products", location_id, (), self.menu_ttl, ep, params, None, parse
            )

        products = await self._cached("products", location_id, (), self.menu_ttl, fetch)
        return list(products)

    async def get_product(self, location_id: str, product_id: str) -> ProductDetail:
        params = {"location_id": location_id, "product_id": product_id}
        return await self._read_one(
            "product", ProductDetail, params, location_id, self.menu_ttl, (product_id,)
        )

    # ------------------------------------------------------------------ rows 8-11: cart lifecycle

    async def start_ordering_session(
        self,
        location_id: str,
        fulfillment_method: FulfillmentMethod | str,
        existing_cart_id: str | None = None,
        marketplace_id: str | None = None,
    ) -> OrderingSession:
        """Row 8. The session's `error_message` (e.g. "closed") is returned, not raised."""
        ep = self.endpoints["ordering_session"]
        body: dict[str, Any] = {"fulfillmentMethod": str(fulfillment_method)}
        if existing_cart_id:
            body["existingCartId"] = existing_cart_id
        if marketplace_id:
            body["marketplaceId"] = marketplace_id
        data = await self._call(ep, {"location_id": location_id}, body=body)
        if isinstance(data, dict) and "cartId" not in data and isinstance(data.get("cart"), dict):
            data = {**data, "cartId": data["cart"].get("id", "")}
        return self._parse(OrderingSession, data, ep.name)

    async def resume_cart(
        self, location_id: str, cart_id: str, fulfillment_method: FulfillmentMethod | str | None
    ) -> str:
        """Take up `cart_id` after a restart, as the order it is: `fulfillment_method` is the
        order's own way to order (the server's cart, else what the terminal kept), never a
        default. The legacy API's row 9 keeps the cart's own method, so it is not sent here.
        Returns the cart id the server answered (another id: it would not resume this one)."""
        return await self.create_or_resume_cart(location_id, cart_id)

    async def create_or_resume_cart(self, location_id: str, current_cart_id: str = "") -> str:
        """Row 9: the cart id (`currentCartId` "" means start a new cart)."""
        ep = self.endpoints["create_cart"]
        body = {"marketplaceId": location_id, "currentCartId": current_cart_id}
        data = await self._call(ep, {"location_id": location_id}, body=body)
        if isinstance(data, dict):
            for candidate in (data.get("cartId"), data.get("id")):
                if isinstance(candidate, str) and candidate:
                    return candidate
            inner = data.get("cart")
            if isinstance(inner, dict) and isinstance(inner.get("id"), str) and inner["id"]:
                return str(inner["id"])
        raise ResponseFormatError(endpoint=ep.name, details={"errors": "no cartId in the reply"})

    async def get_cart(self, location_id: str, cart_id: str) -> Cart:
        """Row 10. Never cached: the server's cart is the truth (and revalidates discounts)."""
        ep = self.endpoints["cart"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        if isinstance(data, dict) and isinstance(data.get("cart"), dict) and "id" not in data:
            data = data["cart"]  # tolerated wrapper
        return self._parse(Cart, data, ep.name)

    async def order_progress(self, location_id: str, cart_id: str) -> OrderProgress | None:
        """Where a checked-out cart's payment stands, for an API that has a poll of its own
        (2.0's order-result). None here: the legacy API has none, the cart itself turns
        COMPLETED (read it with get_cart; its `fulfillmentIdentifier` is the number, A)."""
        return None

    async def delete_cart(self, location_id: str, cart_id: str) -> None:
        """Row 11. Idempotent: retried like a read. A 404 on a retry, after an attempt that may have
        landed, counts as deleted; a 404 on the first attempt raises NotFoundError."""
        ep = self.endpoints["delete_cart"]
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, gone_is_done=True)

    # ------------------------------------------------------------------ rows 12-19: cart writes

    async def add_item(
        self,
        location_id: str,
        cart_id: str,
        product_id: str,
        quantity: int,
        modifiers: Sequence[Selection | Mapping[str, Any]] | None = None,
        special_instructions: str | None = None,
    ) -> Cart:
        """Row 12. Never retried once it may have reached the server (AmbiguousWriteError)."""
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise ValueError("quantity must be a positive integer")
        selections = [
            m.to_request() if isinstance(m, Selection) else dict(m) for m in modifiers or ()
        ]
        body = self._item_body(product_id, quantity, selections, special_instructions)
        return await self._cart_write("add_item", location_id, cart_id, body)

    def _item_body(
        self,
        product_id: str,
        quantity: int,
        selections: list[dict[str, Any]],
        special_instructions: str | None,
    ) -> dict[str, Any]:
        """The add-item body as this dialect spells it (v1: `modifiers`)."""
        body: dict[str, Any] = {"productId": product_id, "quantity": quantity}
        if selections:
            body["modifiers"] = selections
        if special_instructions:
            body["specialInstructions"] = special_instructions
        return body

    async def _cart_write(
        self, name: str, location_id: str, cart_id: str, body: Any = None, **params: str
    ) -> Cart:
        """A cart write whose answer is the cart (read back once when the answer has none)."""
        ep = self.endpoints[name]
        path = {"location_id": location_id, "cart_id": cart_id, **params}
        data = await self._call(ep, path, body=body)
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_item_quantity(
        self, location_id: str, cart_id: str, item_id: str, quantity: int
    ) -> Cart:
        """Row 13. Quantity 0 removes the line."""
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 0:
            raise ValueError("quantity must be a non-negative integer")
        return await self._cart_write(
            "item_quantity", location_id, cart_id, {"quantity": quantity}, item_id=item_id
        )

    async def set_order_time(
        self,
        location_id: str,
        cart_id: str,
        pickup_type: str,
        order_date: str,
        order_time: str,
    ) -> Cart | None:
        """Row 14. `pickup_type` is "ASAP" or "LATER". The legacy answer is `{success:true}` (S),
        not the cart: None, and the caller reads the cart (2.0 returns it)."""
        ep = self.endpoints["order_time"]
        body = {"pickupType": pickup_type, "orderDate": order_date, "orderTime": order_time}
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return None

    async def update_customer(
        self, location_id: str, cart_id: str, customer_name: str, email_address: str
    ) -> Cart | None:
        """Row 15 (the singular `cart` path). A 400 names the field (InvalidRequestError.field).
        The legacy answer is `{success:true}` (S): None (2.0 returns the cart)."""
        ep = self.endpoints["customer"]
        body = {"customerName": customer_name, "emailAddress": email_address}
        await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return None

    async def set_tip(
        self,
        location_id: str,
        cart_id: str,
        *,
        percentage: str | None = None,
        amount_minor: int | None = None,
    ) -> Cart:
        """Row 16: a percentage ("18") or a fixed amount in minor units (sent as "5.00")."""
        if (percentage is None) == (amount_minor is None):
            raise ValueError("give exactly one of percentage or amount_minor")
        body: dict[str, str]
        if percentage is not None:
            body = {"percentage": str(percentage)}
        else:
            assert amount_minor is not None
            if amount_minor < 0:
                raise ValueError("a tip amount must not be negative")
            body = {"amount": to_decimal_string(amount_minor)}
        ep = self.endpoints["tip"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id}, body=body)
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_delivery(self, location_id: str, cart_id: str, address: DeliveryAddress) -> Cart:
        """Row 17."""
        ep = self.endpoints["delivery"]
        data = await self._call(
            ep, {"location_id": location_id, "cart_id": cart_id}, body=address.to_request()
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_table(self, location_id: str, cart_id: str, table_number: str) -> Cart:
        """Row 18."""
        ep = self.endpoints["table"]
        data = await self._call(
            ep,
            {"location_id": location_id, "cart_id": cart_id},
            body={"tableNumber": str(table_number)},
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def set_room(
        self, location_id: str, cart_id: str, last_name: str, room_number: str
    ) -> Cart:
        """Row 19."""
        ep = self.endpoints["room"]
        data = await self._call(
            ep,
            {"location_id": location_id, "cart_id": cart_id},
            body={"lastName": last_name, "roomNumber": str(room_number)},
        )
        return await self._cart_result(data, location_id, cart_id, ep.name)

    # ------------------------------------------------------------------ rows 20-24: checkout

    async def distance_miles(self, location_id: str, lat: float, lng: float) -> float:
        """Miles from the location to a point (2.0's distance operation). The legacy contract
        has none: UnsupportedOperationError."""
        raise UnsupportedOperationError(endpoint="distance")

    async def apply_discount(self, location_id: str, cart_id: str, code: str) -> Cart | None:
        """Row 20. A bad code raises InvalidRequestError (code INVALID_DISCOUNT_CODE). The legacy
        answer is `{success:true}` (S), not the cart: None, and the caller reads the cart. (The
        demo backend answers the same; 2.0 returns the cart.)"""
        ep = self.endpoints["apply_discount"]
        await self._call(ep, {"location_id": location_id}, body={"code": code, "cartId": cart_id})
        return None

    def offers(self, operation: str) -> bool:
        """False once this server showed it has no such route (an assumption-A row: "validate",
        "remove_discount"); the screens then hide what needs it."""
        return operation not in self._missing_routes

    async def _optional_route(
        self, name: str, location_id: str, cart_id: str, exc: StorefrontError
    ) -> None:
        """After `exc` from the optional route `name`: re-raise it unless it says the route is
        missing (404/405 that is not about the cart); then remember that, once the cart itself
        is known to be there (a missing cart is found by that read)."""
        if exc.status not in (404, 405) or exc.has_code("CART_NOT_FOUND"):
            raise exc
        await self.get_cart(location_id, cart_id)
        log.info("this server has no %s route (HTTP %s)", name, exc.status)
        self._missing_routes.add(name)

    async def remove_discount(self, location_id: str, cart_id: str) -> Cart:
        """Row 21 (assumption A). Idempotent: retried like a read. A server without the route
        (404/405) is remembered, and UnsupportedOperationError raised: the customer starts over to
        drop a code there."""
        ep = self.endpoints["remove_discount"]
        if ep.name in self._missing_routes:
            raise UnsupportedOperationError(endpoint=ep.name)
        try:
            data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        except StorefrontError as exc:
            await self._optional_route(ep.name, location_id, cart_id, exc)
            raise UnsupportedOperationError(status=exc.status, endpoint=ep.name) from exc
        return await self._cart_result(data, location_id, cart_id, ep.name)

    async def validate_cart(self, location_id: str, cart_id: str) -> CartValidation:
        """Row 22 (assumption A: a real legacy server may have no such route). Only reads, so
        retried like a read. A 404 or 405 there means the server has none: remembered, and the
        cart counts as valid (the payment intent refuses a cart that cannot be paid for)."""
        ep = self.endpoints["validate"]
        if ep.name in self._missing_routes:
            return CartValidation(valid=True)
        try:
            data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        except StorefrontError as exc:
            await self._optional_route(ep.name, location_id, cart_id, exc)
            return CartValidation(valid=True)
        return self._parse(CartValidation, data, ep.name)

    async def cross_sell(self, location_id: str, cart_id: str) -> list[MenuProduct]:
        """Row 23. Depends on the cart, so never cached."""
        ep = self.endpoints["cross_sell"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        return self._parse_list(MenuProduct, data, ep.name, "products")

    async def create_payment_intent(self, location_id: str, cart_id: str) -> PaymentIntent:
        """Row 24. Locks the cart. Never retried once it may have reached the server."""
        ep = self.endpoints["payment_intent"]
        data = await self._call(ep, {"location_id": location_id, "cart_id": cart_id})
        intent = self._parse(PaymentIntent, data, ep.name)
        self._seen_secrets.append(intent.client_secret.get_secret_value())
        return intent

    async def confirm_demo_payment(self, client_secret: SecretStr, card_number: str) -> None:
        """The demo backend's processor (contract, payment section, A): POST on the base URL's
        origin, outside /api/v1. A decline raises PaymentDeclinedError (402) or that status's
        error."""
        ep = self.endpoints["demo_confirm"]
        secret = client_secret.get_secret_value()
        if secret not in self._seen_secrets:
            self._seen_secrets.append(secret)
        await self._call(
            ep,
            {},
            body={"clientSecret": secret, "cardNumber": card_number},
            secrets=(secret, card_number, card_number.replace(" ", "")),
        )

    async def test_payment_offered(self) -> bool:
        """Whether this server has a test payment (docs/api.md, "A test payment"): a 2xx to its
        GET. Any other answer (a 404 from a server that has none, a refusal) is no."""
        try:
            await self._call(self.endpoints["test_payment_offered"], {})
        except StorefrontError:
            return False
        return True

    async def pay_test_order(self, checkout_url: str) -> None:
        """Pay the hand-off at `checkout_url` with the server's test payment (its approving test
        instrument), as a customer would on the checkout page."""
        await self._call(self.endpoints["test_payment"], {}, body={"checkoutUrl": checkout_url})

    # ------------------------------------------------------------------ product pictures

    async def get_image(self, url: str, *, max_bytes: int = IMAGE_MAX_BYTES) -> bytes:
        """A product picture's bytes (`images[0]` of a product), for the screen to draw: see
        pictures.py (not a contract row; no credential; one try; kept for `menu_ttl`)."""
        return await self.pictures.get(url, max_bytes=max_bytes)
