"""The plumbing both dialects share: the httpx client, the sender, the caches, parsing.

`ClientCore` builds the request a dialect spells (its hooks: `_request_headers`, `_answered`,
`_from_store`, `_parse`) and hands it to the sender (sender.py: retries, 429s, idempotency keys);
cacheable reads go through the caches (cache.py). It has no contract row of its own: the rows are
in base.py (those both dialects speak alike), client.py (v1) and v2.py (2.0).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Self, TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, SecretStr, ValidationError

from kiosk.diskcache import DiskCache

from .cache import DiskReads, MemoryCache, Timed
from .endpoints import Endpoint
from .errors import ResponseFormatError, StorefrontError, error_from_response
from .models import validate_as
from .pictures import Pictures
from .sender import ClientStats, RateBudget, RetryObserver, RetryPolicy, Sender

__all__ = ["ClientCore", "RequestObserver", "key_identity"]

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


class ClientCore:
    """The connection to one Storefront server, for a dialect to speak through. Use the client as
    an async context manager. The class attributes are what a dialect sets."""

    dialect: str
    # Whether a delivery address must carry its coordinates (2.0 does; the legacy server places
    # the address itself).
    needs_coordinates: bool
    # Whether the server sends no X-RateLimit-* headers, so the kiosk counts its own budget.
    counts_own_budget: bool
    # Whether creating the payment intent locks the cart and puts the checkout URL on it, so the
    # cart is read after it (the legacy API). 2.0's hand-off answers the URL itself.
    intent_changes_cart: bool
    endpoints: Mapping[str, Endpoint]
    base_suffix: str
    needs_key: bool

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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self.memory.close()
        await self._http.aclose()

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, key_id={self.key_id!r})"

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

    def _request_headers(
        self, endpoint: Endpoint, path_params: Mapping[str, str]
    ) -> dict[str, str]:
        """The dialect's credentials and preconditions for one request."""
        raise NotImplementedError
