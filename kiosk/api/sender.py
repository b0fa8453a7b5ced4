"""The sender: one contract row sent over httpx with the house's retry rules.

What it owns (kiosk/api/README.md, "What retries, and what never does"): each attempt's timeout and
the call's deadline; connection errors and timeouts; 5xx; 429 with the server's wait (body
`retryAfter`, `Retry-After`, `X-RateLimit-Reset`) or the kiosk's own `RateBudget`; writes that carry
an `Idempotency-Key` resent until the server answers; every other write raised as
`AmbiguousWriteError` once it may have landed. Each retry is told to `retry_observer`.

It knows nothing of a dialect: the client gives it the request (URL, headers, body) and a function
that reads a 2xx. httpx's own seam is the transport: tests drive it through `httpx.MockTransport`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from .endpoints import Endpoint
from .errors import (
    AmbiguousWriteError,
    APIConnectionError,
    APITimeoutError,
    StorefrontError,
    error_from_response,
)

__all__ = [
    "NOT_MODIFIED",
    "RETRY_REASONS",
    "ClientStats",
    "RateBudget",
    "RetryObserver",
    "RetryPolicy",
    "Sender",
]

log = logging.getLogger("kiosk.api")

# Unix timestamps are above this; a smaller X-RateLimit-Reset is read as "seconds from now"
# (assumption A: the spec says Unix seconds, some gateways send a delta).
_EPOCH_THRESHOLD = 1_000_000_000


class _NotModified:
    """The server's 304 to a conditional read."""


NOT_MODIFIED = _NotModified()


@dataclass(frozen=True)
class RetryPolicy:
    """Capped exponential backoff with jitter.

    Retry number n (1 = the first retry) waits
        min(max_delay, base_delay * multiplier ** (n - 1)) * (1 - jitter * random())
    `random` is injectable (tests pass a constant); `max_attempts` counts the first try.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.25
    random: Callable[[], float] = field(default=random.random, compare=False, repr=False)

    def backoff(self, retry_number: int) -> float:
        delay = min(self.max_delay, self.base_delay * self.multiplier ** max(0, retry_number - 1))
        return max(0.0, delay * (1.0 - self.jitter * self.random()))


class RateBudget:
    """What is left of the rate limit window, from the last response's X-RateLimit-* headers.

    Callers slow polling and defer optional reads when `is_low`. Before any response `remaining` is
    None (unknown); after the window's reset time has passed it reads as the full `limit` again.
    """

    LOW_FRACTION = 0.2

    def __init__(
        self,
        limit: int,
        clock: Callable[[], float],
        *,
        self_counted: bool = False,
        window: float = 600.0,
    ) -> None:
        self.limit = limit
        self._clock = clock
        self._remaining: int | None = None
        self.reset_at: float | None = None
        self.updated_at: float | None = None
        # Storefront 2.0 sends no X-RateLimit-* headers: the kiosk counts what it sent in the
        # window itself (`limit` per `window` seconds, per IP as the service documents), until a
        # header says otherwise.
        self.self_counted = self_counted
        self.window = window
        self._sent: deque[float] = deque()
        self._refused_until: float | None = None

    @property
    def remaining(self) -> int | None:
        if self._remaining is None:
            if not self.self_counted:
                return None
            now = self._clock()
            if self._refused_until is not None and now < self._refused_until:
                return 0  # the server said so (a bare 429), whatever our count says
            self._trim(now)
            return max(0, self.limit - len(self._sent))
        if self.reset_at is not None and self._clock() >= self.reset_at:
            return self.limit
        return self._remaining

    def _trim(self, now: float) -> None:
        while self._sent and self._sent[0] <= now - self.window:
            self._sent.popleft()

    def note_sent(self) -> None:
        """One request sent (counted only when the budget is the kiosk's own count)."""
        if self.self_counted:
            now = self._clock()
            self._sent.append(now)
            self._trim(now)

    def note_refused(self) -> float:
        """A 429 that said nothing of when. Returns the wait in seconds (at least 1).

        When the kiosk's own count is at the limit, the window is spent until its oldest request
        leaves it. When the count says there was room, the refusal is the server's burst (or other
        terminals on the same address), not our window: a second, then the request goes again,
        so that a burst of N refusals costs about N seconds, each counted down by the caller (and
        the store's cap on rate waits bounds it)."""
        now = self._clock()
        self._trim(now)
        spent = (self._sent[0] + self.window - now) if self._sent else self.window
        wait = max(1.0, spent if len(self._sent) >= self.limit else min(spent, 1.0))
        self._refused_until = now + wait
        return wait

    def note_answered(self) -> None:
        """A request was answered (not refused): a refusal's hold on the budget is over."""
        self._refused_until = None

    @property
    def is_low(self) -> bool:
        left = self.remaining
        return left is not None and left < self.limit * self.LOW_FRACTION

    def seconds_until_reset(self) -> float | None:
        if self.reset_at is None:
            if not self.self_counted or self._remaining is not None:
                return None
            now = self._clock()
            if self._refused_until is not None and now < self._refused_until:
                return self._refused_until - now
            self._trim(now)
            return max(0.0, self._sent[0] + self.window - now) if self._sent else None
        return max(0.0, self.reset_at - self._clock())

    def update(self, headers: httpx.Headers) -> None:
        now = self._clock()
        limit = header_int(headers, "x-ratelimit-limit")
        if limit is not None and limit > 0:
            self.limit = limit
        remaining = header_int(headers, "x-ratelimit-remaining")
        if remaining is not None:
            self._remaining = max(0, remaining)
            self.updated_at = now
        reset = header_float(headers, "x-ratelimit-reset")
        if reset is not None:
            self.reset_at = reset if reset >= _EPOCH_THRESHOLD else now + reset

    def __repr__(self) -> str:
        return (
            f"RateBudget(remaining={self.remaining}, limit={self.limit}, reset_at={self.reset_at})"
        )


@dataclass
class ClientStats:
    """Counters for benchmarks and the staff screen. `requests` counts HTTP attempts sent."""

    requests: int = 0
    by_method: Counter[str] = field(default_factory=Counter)
    by_endpoint: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    # The shared cache on disk: fresh entries read (no request), 304s, stale data kept on failure.
    disk_hits: int = 0
    revalidated: int = 0
    stale_served: int = 0
    shared_flights: int = 0

    def reset(self) -> None:
        self.requests = self.retries = self.cache_hits = self.cache_misses = 0
        self.shared_flights = 0
        self.disk_hits = self.revalidated = self.stale_served = 0
        self.by_method.clear()
        self.by_endpoint.clear()


def header_float(headers: httpx.Headers, name: str) -> float | None:
    raw = headers.get(name)
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def header_int(headers: httpx.Headers, name: str) -> int | None:
    value = header_float(headers, name)
    return None if value is None else int(value)


# Told of each retry the client makes: (operation, reason), the reason one of RETRY_REASONS. A
# retry that succeeds leaves no error behind; this is where it is counted (kiosk.metrics).
RetryObserver = Callable[[str, str], None]
# Why a request was sent again: no answer in time, no connection, a 429, a 5xx.
RETRY_REASONS = ("timeout", "connection", "rate_limited", "server_error")

# httpx errors raised before any byte of the request left: safe to retry any request.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass
class _Try:
    """One call's state across its attempts."""

    ends_at: float
    keyed: bool
    retry_safe: bool
    attempt: int = 0
    # 429s have a cap of their own, whatever the write: the retry policy's attempts, and no
    # more than `max_wait` seconds slept in all.
    refused: int = 0
    slept_refused: float = 0.0
    maybe_landed: bool = False  # an earlier attempt may have reached the server
    failure: StorefrontError | None = None


@dataclass(frozen=True)
class _Retry:
    """What the loop does next: sleep `wait`, then send again."""

    wait: float
    number: int  # which retry this is, of at most `cap` (None: until the deadline)
    cap: int | None
    reason: str


class Sender:
    """Sends one request with retries; returns the 2xx's value as `on_answer` reads it.

    `http` is the long-lived httpx.AsyncClient (its transport is the test seam); `clock` stamps
    deadlines and waits, `timer` measures what a request took, `sleep` waits (all injectable so
    tests compute exact waits); `stats` and `rate_budget` are shared with the client that reads
    them."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        clock: Callable[[], float],
        timer: Callable[[], float],
        sleep: Callable[[float], Awaitable[None]],
        retry: RetryPolicy,
        timeout: float,
        deadline: float,
        max_wait: float,
        rate_budget: RateBudget,
        stats: ClientStats,
    ) -> None:
        self.http = http
        self._clock = clock
        self._timer = timer
        self._sleep = sleep
        self.retry = retry
        self.timeout = timeout
        self.deadline = deadline
        self.max_wait = max_wait
        self.rate_budget = rate_budget
        self.stats = stats
        # Told of each retry with its reason (kiosk.metrics, wired by the composition root).
        self.retry_observer: RetryObserver | None = None

    async def send(
        self,
        endpoint: Endpoint,
        url: str,
        on_answer: Callable[[httpx.Response], Any],
        *,
        headers: Mapping[str, str],
        content: bytes | None = None,
        query: Mapping[str, str] | None = None,
        secrets: tuple[str, ...] = (),
        shown: str = "",
        gone_is_done: bool = False,
        etag: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Send `endpoint` to `url` until it is answered or the rules say stop (then raise).

        `on_answer` reads a 2xx (its value is returned). `secrets` are scrubbed from server text.
        `gone_is_done`: a 404 after an attempt that may have landed returns None (a retried
        DELETE). `etag`: sent as If-None-Match; a 304 returns NOT_MODIFIED. `meta` receives the
        answer's ETag and Cache-Control, and a 2xx's body as it came (`body`)."""
        headers = dict(headers)
        if content is not None:
            headers["Content-Type"] = "application/json"
        if etag is not None:
            headers["If-None-Match"] = etag
        shown = shown or url
        # A write that carries an Idempotency-Key may be sent again: the server runs it once. Such a
        # write is sent again until the server answers (within the deadline), never abandoned
        # after a fixed number of tries: its outcome is otherwise unknown.
        keyed = "Idempotency-Key" in headers
        state = _Try(
            ends_at=self._clock() + self.deadline,
            keyed=keyed,
            retry_safe=endpoint.idempotent or keyed,
        )
        while True:
            state.attempt += 1
            left = state.ends_at - self._clock()
            if left <= 0:  # only when the injected sleep overran its wait
                raise state.failure or APITimeoutError(endpoint=endpoint.name)
            per_attempt = min(self.timeout, left)
            request = self.http.build_request(
                endpoint.method,
                url,
                content=content,
                params=query,
                headers=headers,
                timeout=httpx.Timeout(per_attempt),
            )
            self.stats.requests += 1
            self.stats.by_method[endpoint.method] += 1
            self.stats.by_endpoint[endpoint.name] += 1
            self.rate_budget.note_sent()
            started = self._timer()
            try:
                # httpx times each phase; this caps the whole attempt (a trickling body).
                async with asyncio.timeout(per_attempt + min(1.0, per_attempt / 10)):
                    response = await self.http.send(request)
            except (httpx.TransportError, TimeoutError) as exc:
                elapsed = (self._timer() - started) * 1000
                log.warning(
                    "%s %s -> %s after %.0f ms", endpoint.method, shown, type(exc).__name__, elapsed
                )
                step = self._after_no_answer(exc, endpoint, state)
            else:
                elapsed = (self._timer() - started) * 1000
                status = response.status_code
                self.rate_budget.update(response.headers)
                level = logging.INFO if status < 500 else logging.WARNING
                log.log(level, "%s %s -> %d in %.0f ms", endpoint.method, shown, status, elapsed)
                if status != 429:
                    self.rate_budget.note_answered()
                if meta is not None and (status == 304 or 200 <= status < 300):
                    meta["etag"] = response.headers.get("etag")
                    meta["cache-control"] = response.headers.get("cache-control")
                if status == 304 and etag is not None:
                    return NOT_MODIFIED
                if 200 <= status < 300:
                    data = on_answer(response)
                    if meta is not None:
                        meta["body"] = response.content
                    return data
                if status == 404 and gone_is_done and state.maybe_landed:
                    return None
                step = self._after_refusal(response, endpoint, state, secrets, shown)
            await self._pause(step, endpoint, shown)

    def _after_no_answer(
        self, exc: httpx.TransportError | TimeoutError, endpoint: Endpoint, state: _Try
    ) -> _Retry:
        """No answer (a timeout, a connection error): the retry to make, or raise."""
        failure: StorefrontError = (
            APITimeoutError(endpoint=endpoint.name)
            if isinstance(exc, httpx.TimeoutException | TimeoutError)
            else APIConnectionError(endpoint=endpoint.name)
        )
        state.failure = failure
        failure.details["cause"] = type(exc).__name__
        if isinstance(exc, httpx.UnsupportedProtocol | httpx.ProxyError):
            raise failure from exc  # configuration, not weather: retrying will not help
        if not isinstance(exc, _NOT_SENT):
            if not state.retry_safe:
                raise AmbiguousWriteError(cause=failure, endpoint=endpoint.name) from exc
            state.maybe_landed = True
        wait = self.retry.backoff(state.attempt)
        if state.attempt >= self._max_attempts(state) or self._clock() + wait >= state.ends_at:
            if state.maybe_landed and endpoint.is_write and not endpoint.idempotent:
                # A keyed write resent until the deadline: an earlier send may have landed. Not
                # "unreachable": in doubt, for the caller to settle.
                raise AmbiguousWriteError(cause=failure, endpoint=endpoint.name) from exc
            raise failure from exc
        reason = "timeout" if isinstance(failure, APITimeoutError) else "connection"
        return _Retry(wait, state.attempt, self._cap(state), reason)

    def _after_refusal(
        self,
        response: httpx.Response,
        endpoint: Endpoint,
        state: _Try,
        secrets: tuple[str, ...],
        shown: str,
    ) -> _Retry:
        """A non-2xx answer: the retry to make (429, a 5xx a retry may fix), or raise."""
        status = response.status_code
        failure = error_from_response(
            status, response.content, secrets=secrets, endpoint=endpoint.name
        )
        state.failure = failure
        if failure.request_id is not None:
            # What the service's support asks for; for the log and the staff screen only.
            log.info("%s %s: requestId %s", endpoint.method, shown, failure.request_id)
        if status == 429:
            return self._after_rate_limited(response, failure, state)
        if status == 409 and state.maybe_landed and failure.has_code("IDEMPOTENCY_IN_PROGRESS"):
            # The first send of this very write is still running on the server (its answer is
            # late): whether it lands is not known yet. Never looped on (the vendor's notes): the
            # caller settles it by reading the cart.
            raise AmbiguousWriteError(
                cause=failure, status=status, code=failure.code, endpoint=endpoint.name
            ) from failure
        if status >= 500:
            return self._after_server_error(response, failure, endpoint, state)
        raise failure

    def _after_rate_limited(
        self, response: httpx.Response, failure: StorefrontError, state: _Try
    ) -> _Retry:
        """A 429: the server's wait (or the kiosk's own count's), slept only while short. Past
        the cap, RateLimitedError goes up to where the customer sees a countdown (the CartStore,
        the screen), never a silent wait."""
        told = told_wait(response, failure, self._clock)
        if told is None and self.rate_budget.self_counted:
            told = self.rate_budget.note_refused()
        state.refused += 1
        wait = told if told is not None else self.retry.backoff(state.refused)
        failure.retry_after = wait
        if wait > self.max_wait or state.slept_refused + wait >= self.max_wait:
            raise failure  # a second or more in all is the caller's to count down
        if state.refused >= self.retry.max_attempts or state.attempt >= self._max_attempts(state):
            raise failure
        if self._clock() + wait >= state.ends_at:
            raise failure
        state.slept_refused += wait
        return _Retry(wait, state.refused, self.retry.max_attempts - 1, "rate_limited")

    def _after_server_error(
        self, response: httpx.Response, failure: StorefrontError, endpoint: Endpoint, state: _Try
    ) -> _Retry:
        """A 5xx: retried when it is safe to send again, else in doubt (AmbiguousWriteError)."""
        if not state.retry_safe:
            raise AmbiguousWriteError(
                cause=failure, status=failure.status, code=failure.code, endpoint=endpoint.name
            ) from failure
        state.maybe_landed = True
        # X-RateLimit-Reset rides on every response; on a 5xx it says when the budget refills,
        # not when the server recovers, so only an explicit wait is honoured.
        told = told_wait(response, failure, self._clock, rate_reset=False)
        # A longer wait the server asks for is honoured, a shorter one is not: a failing server
        # answering "Retry-After: 0" would otherwise get a keyed write back to back until the
        # deadline (thousands of requests), not the backoff's handful.
        wait = self.retry.backoff(state.attempt)
        if told is not None:
            wait = max(wait, told)
            failure.retry_after = told
        if wait > self.max_wait or state.attempt >= self._max_attempts(state):
            raise failure
        if self._clock() + wait >= state.ends_at:
            raise failure
        return _Retry(wait, state.attempt, self._cap(state), "server_error")

    def _max_attempts(self, state: _Try) -> int:
        # A keyed write is bounded by the deadline alone.
        return 10_000 if state.keyed else self.retry.max_attempts

    def _cap(self, state: _Try) -> int | None:
        return None if state.keyed else self.retry.max_attempts - 1

    async def _pause(self, step: _Retry, endpoint: Endpoint, shown: str) -> None:
        """Sleep before the next attempt; the retry is counted and told to the observer."""
        self.stats.retries += 1
        if self.retry_observer is not None:
            try:
                self.retry_observer(endpoint.name, step.reason)
            except Exception:
                log.warning("the retry observer failed", exc_info=True)
        log.info(
            "%s %s: retry %d/%s in %.2f s",
            endpoint.method,
            shown,
            step.number,
            step.cap if step.cap is not None else "deadline",
            step.wait,
        )
        await self._sleep(step.wait)


def told_wait(
    response: httpx.Response,
    failure: StorefrontError | None,
    clock: Callable[[], float],
    *,
    rate_reset: bool = True,
) -> float | None:
    """Seconds the server asked us to wait: body retryAfter, Retry-After, X-RateLimit-Reset."""
    if failure is not None and failure.retry_after is not None:
        return failure.retry_after
    raw = response.headers.get("retry-after")
    if raw is not None:
        raw = raw.strip()
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            return max(0.0, parsedate_to_datetime(raw).timestamp() - clock())
    reset = header_float(response.headers, "x-ratelimit-reset") if rate_reset else None
    if reset is not None:
        return max(0.0, reset - clock()) if reset >= _EPOCH_THRESHOLD else max(0.0, reset)
    return None
