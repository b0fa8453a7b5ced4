"""The sender (kiosk/api/sender.py) on its own: retries, exact waits, 429s, deadlines, the rate
budget, keyed writes and the retry observer, driven through httpx's seam, a MockTransport.

What each contract row does with these rules (which rows are writes, which are idempotent) is
tested through the client in test_resilience.py."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from email.utils import formatdate
from typing import Any

import httpx
import pytest

from kiosk.api import (
    ENDPOINTS,
    AmbiguousWriteError,
    APIConnectionError,
    APITimeoutError,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    ServerError,
)
from kiosk.api.sender import NOT_MODIFIED, ClientStats, RateBudget, Sender

from .conftest import BASE, EPOCH, FakeClock, Server, ok

# Failures after which a write's outcome is unknown.
AMBIGUOUS = [httpx.ReadTimeout, httpx.WriteTimeout, httpx.RemoteProtocolError, httpx.ReadError]
# Failures that certainly happened before the request left.
NOT_SENT = [httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout]

READ = ENDPOINTS["location"]
WRITE = ENDPOINTS["add_item"]
DELETE = ENDPOINTS["delete_cart"]

SenderFactory = Callable[..., Sender]


def as_json(response: httpx.Response) -> Any:
    return response.json() if response.content else None


@pytest.fixture
async def make_sender(clock: FakeClock, server: Server) -> AsyncIterator[SenderFactory]:
    made: list[httpx.AsyncClient] = []

    def make(*, rate_limit: int = 200, self_counted: bool = False, **kw: Any) -> Sender:
        http = httpx.AsyncClient(base_url=BASE + "/", transport=httpx.MockTransport(server))
        made.append(http)
        kw.setdefault("clock", clock.time)
        kw.setdefault("timer", clock.time)
        kw.setdefault("sleep", clock.sleep)
        kw.setdefault("retry", RetryPolicy(random=lambda: 0.0))
        kw.setdefault("timeout", 10.0)
        kw.setdefault("deadline", 30.0)
        kw.setdefault("max_wait", 30.0)
        kw.setdefault("rate_budget", RateBudget(rate_limit, kw["clock"], self_counted=self_counted))
        kw.setdefault("stats", ClientStats())
        return Sender(http, **kw)

    yield make
    for http in made:
        await http.aclose()


@pytest.fixture
def sender(make_sender: SenderFactory) -> Sender:
    return make_sender()


async def read(sender: Sender, **kw: Any) -> Any:
    return await sender.send(READ, "locations/l", as_json, headers={}, **kw)


async def write(sender: Sender, *, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return await sender.send(WRITE, "carts/c/items", as_json, headers=headers, content=b"{}")


async def test_read_retries_connection_errors_with_exact_backoff(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.ConnectError, httpx.ReadTimeout, ok({"id": "loc_1"}))
    location = await read(sender)
    assert location == {"id": "loc_1"}
    assert len(server.requests) == 3
    assert clock.sleeps == [0.5, 1.0]
    assert sender.stats.requests == 3 and sender.stats.retries == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_read_retries_5xx(sender: Sender, server: Server, status: int) -> None:
    server.reply(httpx.Response(status), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert len(server.requests) == 2


@pytest.mark.parametrize("failure", [*AMBIGUOUS, *NOT_SENT])
async def test_read_gives_up_after_max_attempts(
    sender: Sender, server: Server, clock: FakeClock, failure: type[Exception]
) -> None:
    server.default = failure
    expected = (
        APITimeoutError if issubclass(failure, httpx.TimeoutException) else APIConnectionError
    )
    with pytest.raises(expected) as info:
        await read(sender)
    assert type(info.value) is expected
    assert info.value.details["cause"] == failure.__name__
    assert len(server.requests) == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]


async def test_backoff_is_capped(make_sender: SenderFactory, server: Server, clock: FakeClock):
    sender = make_sender(
        retry=RetryPolicy(max_attempts=6, base_delay=1.0, max_delay=3.0, random=lambda: 0.0),
        deadline=100,
    )
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await read(sender)
    assert clock.sleeps == [1.0, 2.0, 3.0, 3.0, 3.0]


async def test_jitter_is_injectable(make_sender: SenderFactory, server: Server, clock: FakeClock):
    sender = make_sender(retry=RetryPolicy(jitter=0.25, random=lambda: 1.0))
    server.reply(httpx.ConnectError, httpx.ConnectError, ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [0.375, 0.75]


async def test_seeded_jitter_gives_reproducible_waits(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(retry=RetryPolicy(random=random.Random(7).random))
    server.reply(httpx.ConnectError, httpx.ConnectError, httpx.ConnectError, ok({"id": "l"}))
    await read(sender)
    rng = random.Random(7)
    expected = [d * (1 - 0.25 * rng.random()) for d in (0.5, 1.0, 2.0)]
    assert clock.sleeps == pytest.approx(expected, abs=1e-12)
    assert all(0.75 * d <= w <= d for w, d in zip(clock.sleeps, (0.5, 1.0, 2.0), strict=True))


async def test_a_4xx_is_not_retried(sender: Sender, server: Server, clock: FakeClock):
    server.default = httpx.Response(404, json={"success": False, "code": "NOT_FOUND"})
    with pytest.raises(Exception, match="find"):
        await read(sender)
    assert len(server.requests) == 1 and clock.sleeps == []


async def test_configuration_errors_are_not_retried(sender: Sender, server: Server) -> None:
    server.default = httpx.UnsupportedProtocol
    with pytest.raises(APIConnectionError):
        await read(sender)
    assert len(server.requests) == 1


async def test_5xx_retry_after_header_is_honoured_on_reads(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, headers={"Retry-After": "4"}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [4.0]


async def test_5xx_ignores_the_rate_limit_reset_header(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    # X-RateLimit-Reset comes on every response; on a 5xx it is not a wait the server asked for, so
    # the read is retried on the backoff schedule instead of being raised as a 10-minute wait.
    reset = {"X-RateLimit-Reset": str(int(EPOCH + 600)), "X-RateLimit-Remaining": "150"}
    server.reply(httpx.Response(500, headers=reset), ok({"id": "l"}))
    await read(sender)
    assert len(server.requests) == 2
    assert len(clock.sleeps) == 1 and clock.sleeps[0] <= 0.5


async def test_5xx_retry_after_beyond_max_wait_is_raised(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, headers={"Retry-After": "300"}))
    with pytest.raises(ServerError) as info:
        await read(sender)
    assert info.value.retry_after == 300 and clock.sleeps == []


async def test_429_body_retry_after(sender: Sender, server: Server, clock: FakeClock):
    server.reply(httpx.Response(429, json={"error": "rate_limit_exceeded", "retryAfter": 7}))
    server.reply(ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [7.0]


async def test_429_retry_after_seconds_header(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429, headers={"Retry-After": "3"}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [3.0]


async def test_429_retry_after_http_date(sender: Sender, server: Server, clock: FakeClock) -> None:
    when = formatdate(clock.now + 12, usegmt=True)
    server.reply(httpx.Response(429, headers={"Retry-After": when}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [12.0]


async def test_429_x_ratelimit_reset(sender: Sender, server: Server, clock: FakeClock):
    reset = str(int(clock.now + 20))
    server.reply(httpx.Response(429, headers={"X-RateLimit-Reset": reset}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [20.0]


async def test_429_body_wins_over_headers(sender: Sender, server: Server, clock: FakeClock) -> None:
    server.reply(
        httpx.Response(
            429,
            json={"retryAfter": 2},
            headers={"Retry-After": "9", "X-RateLimit-Reset": str(int(clock.now + 30))},
        ),
        ok({"id": "l"}),
    )
    await read(sender)
    assert clock.sleeps == [2.0]


async def test_429_without_a_hint_backs_off(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429), httpx.Response(429), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [0.5, 1.0]


async def test_429_longer_than_max_wait_is_raised_not_slept(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(429, json={"retryAfter": 120, "message": "Too many"}))
    with pytest.raises(RateLimitedError) as info:
        await read(sender)
    assert info.value.retry_after == 120
    assert clock.sleeps == [] and len(server.requests) == 1
    assert "busy" in info.value.message


async def test_max_wait_is_configurable(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(max_wait=5)
    server.reply(httpx.Response(429, headers={"Retry-After": "6"}))
    with pytest.raises(RateLimitedError) as info:
        await read(sender)
    assert info.value.retry_after == 6 and clock.sleeps == []


async def test_429_retries_run_out(sender: Sender, server: Server, clock: FakeClock):
    server.default = httpx.Response(429, json={"retryAfter": 1})
    with pytest.raises(RateLimitedError) as info:
        await read(sender)
    assert len(server.requests) == 4 and clock.sleeps == [1.0, 1.0, 1.0]
    assert info.value.retry_after == 1


async def test_429_wait_past_the_deadline_is_raised(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=30)
    server.default = httpx.Response(429, json={"retryAfter": 20})
    with pytest.raises(RateLimitedError) as info:
        await read(sender)
    assert clock.sleeps == [20.0] and len(server.requests) == 2
    assert info.value.retry_after == 20


async def test_overall_deadline_stops_retries(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=2.0)
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await read(sender)
    # 0.5 + 1.0 fit in 2 s; the next wait (2.0) would end past the deadline.
    assert clock.sleeps == [0.5, 1.0] and len(server.requests) == 3


async def test_per_attempt_timeout_shrinks_to_the_time_left(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(timeout=10.0, deadline=12.0)
    server.reply(httpx.Response(429, json={"retryAfter": 5}), ok({"id": "l"}))
    await read(sender)
    first, second = (r.extensions["timeout"] for r in server.requests)
    assert first["read"] == 10.0 and first["connect"] == 10.0
    assert second["read"] == pytest.approx(7.0)


async def test_a_hung_read_is_cut_by_the_attempt_timeout(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender(timeout=0.05)

    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        raise AssertionError("not reached")

    server.reply(hang, ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert len(server.requests) == 2


async def test_a_hung_write_is_ambiguous(make_sender: SenderFactory, server: Server) -> None:
    sender = make_sender(timeout=0.05)

    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        raise AssertionError("not reached")

    server.reply(hang)
    with pytest.raises(AmbiguousWriteError) as info:
        await write(sender)
    assert isinstance(info.value.cause, APITimeoutError)
    assert len(server.requests) == 1


async def test_rate_budget_tracks_every_response(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    budget = sender.rate_budget
    assert budget.remaining is None and not budget.is_low and budget.limit == 200
    reset = str(int(clock.now + 300))
    server.reply(
        ok({"id": "l"}, headers={"X-RateLimit-Remaining": "150", "X-RateLimit-Reset": reset})
    )
    await read(sender)
    assert budget.remaining == 150 and not budget.is_low
    assert budget.seconds_until_reset() == 300
    server.reply(
        httpx.Response(404, headers={"X-RateLimit-Remaining": "39", "X-RateLimit-Reset": reset})
    )
    with pytest.raises(Exception, match="find"):
        await read(sender)
    assert budget.remaining == 39 and budget.is_low  # errors count too
    clock.now += 301
    assert budget.remaining == 200 and not budget.is_low  # the window has rolled over
    assert budget.seconds_until_reset() == 0


async def test_rate_budget_reads_a_limit_header_and_a_relative_reset(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(
        ok(
            {"id": "l"},
            headers={
                "X-RateLimit-Limit": "100",
                "X-RateLimit-Remaining": "19",
                "X-RateLimit-Reset": "60",
            },
        )
    )
    await read(sender)
    budget = sender.rate_budget
    assert budget.limit == 100 and budget.remaining == 19 and budget.is_low
    assert budget.reset_at == clock.now + 60


async def test_rate_budget_ignores_garbage_headers(sender: Sender, server: Server) -> None:
    server.reply(
        ok({"id": "l"}, headers={"X-RateLimit-Remaining": "lots", "X-RateLimit-Reset": "nan"})
    )
    await read(sender)
    assert sender.rate_budget.remaining is None and sender.rate_budget.reset_at is None


async def test_a_read_404_after_a_timeout_is_still_raised(sender: Sender, server: Server) -> None:
    server.reply(httpx.ReadTimeout, httpx.Response(404, json={"code": "NOT_FOUND"}))
    with pytest.raises(NotFoundError):
        await read(sender)


async def test_5xx_body_retry_after_is_honoured_on_reads(
    sender: Sender, server: Server, clock: FakeClock
) -> None:
    server.reply(httpx.Response(503, json={"error": "down", "retryAfter": 6}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [6.0]


async def test_a_wait_ending_exactly_at_the_deadline_is_not_taken(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=1.5)
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await read(sender)
    assert clock.sleeps == [0.5] and len(server.requests) == 2


async def test_an_overrunning_sleep_raises_the_last_failure(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    async def slow_sleep(seconds: float) -> None:
        clock.now += seconds + 100  # the machine was suspended

    sender = make_sender(sleep=slow_sleep)
    server.default = httpx.Response(503)
    with pytest.raises(ServerError):
        await read(sender)
    assert len(server.requests) == 1


# ---------------------------------------------------------------- keyed writes


async def test_a_keyed_write_is_resent_with_its_key_until_the_server_answers(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    # More lost answers than the retry policy's attempts: the key makes a resend safe, so the
    # write goes again (the same key each time) until it is answered.
    sender = make_sender(deadline=60.0)
    server.reply(*[httpx.ReadTimeout] * 5, ok({"ok": True}))
    assert await write(sender, key="k-1") == {"ok": True}
    assert len(server.requests) == 6
    assert {r.headers["Idempotency-Key"] for r in server.requests} == {"k-1"}
    assert {r.content for r in server.requests} == {b"{}"}


async def test_a_keyed_write_unanswered_at_the_deadline_is_in_doubt(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=5.0)
    server.default = httpx.ReadTimeout
    with pytest.raises(AmbiguousWriteError) as info:
        await write(sender, key="k-2")
    assert isinstance(info.value.cause, APITimeoutError)
    assert clock.sleeps == [0.5, 1.0, 2.0]  # the next wait would end past the deadline


async def test_a_keyed_write_whose_first_send_still_runs_is_in_doubt_not_looped(
    sender: Sender, server: Server
) -> None:
    busy = {"code": "IDEMPOTENCY_IN_PROGRESS", "message": "still running"}
    server.reply(httpx.ReadTimeout, httpx.Response(409, json=busy), ok({"ok": True}))
    with pytest.raises(AmbiguousWriteError) as info:
        await write(sender, key="k-3")
    assert info.value.code == "IDEMPOTENCY_IN_PROGRESS"
    assert len(server.requests) == 2


async def test_a_keyed_write_5xx_is_resent(sender: Sender, server: Server) -> None:
    server.reply(httpx.Response(503), ok({"ok": True}))
    assert await write(sender, key="k-4") == {"ok": True}
    assert len(server.requests) == 2


@pytest.mark.parametrize("failure", AMBIGUOUS)
async def test_an_unkeyed_write_is_never_sent_twice(
    sender: Sender, server: Server, failure: type[Exception]
) -> None:
    server.reply(failure, ok({"ok": True}))
    with pytest.raises(AmbiguousWriteError):
        await write(sender)
    assert len(server.requests) == 1


@pytest.mark.parametrize("failure", NOT_SENT)
async def test_an_unkeyed_write_that_never_left_is_sent_again(
    sender: Sender, server: Server, failure: type[Exception]
) -> None:
    server.reply(failure, ok({"ok": True}))
    assert await write(sender) == {"ok": True}
    assert len(server.requests) == 2


# ---------------------------------------------------------------- what the sender tells


async def test_each_retry_is_told_to_the_observer_with_its_reason(
    sender: Sender, server: Server
) -> None:
    told: list[tuple[str, str]] = []
    sender.retry_observer = lambda operation, reason: told.append((operation, reason))
    server.reply(
        httpx.ReadTimeout,
        httpx.ConnectError,
        httpx.Response(429, json={"retryAfter": 1}),
        httpx.Response(502),
        ok({"id": "l"}),
    )
    sender.retry = RetryPolicy(max_attempts=5, random=lambda: 0.0)
    await read(sender)
    assert told == [
        ("location", "timeout"),
        ("location", "connection"),
        ("location", "rate_limited"),
        ("location", "server_error"),
    ]
    assert sender.stats.retries == 4


async def test_a_failing_observer_does_not_stop_the_retry(sender: Sender, server: Server) -> None:
    def broken(operation: str, reason: str) -> None:
        raise RuntimeError("metrics down")

    sender.retry_observer = broken
    server.reply(httpx.ConnectError, ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}


async def test_a_304_to_a_conditional_read_is_not_modified_and_meta_is_filled(
    sender: Sender, server: Server
) -> None:
    server.reply(httpx.Response(304, headers={"ETag": '"v1"', "Cache-Control": "max-age=60"}))
    meta: dict[str, Any] = {}
    assert await read(sender, etag='"v1"', meta=meta) is NOT_MODIFIED
    assert server.last.headers["If-None-Match"] == '"v1"'
    assert meta == {"etag": '"v1"', "cache-control": "max-age=60"}
    server.reply(ok({"id": "l"}, headers={"ETag": '"v2"'}))
    meta = {}
    await read(sender, meta=meta)
    assert meta["etag"] == '"v2"' and meta["body"] == b'{"id":"l"}'


async def test_a_404_after_a_send_that_may_have_landed_is_done_only_when_asked(
    sender: Sender, server: Server
) -> None:
    gone = httpx.Response(404, json={"code": "NOT_FOUND"})
    server.reply(httpx.ReadTimeout, gone)
    assert await sender.send(DELETE, "c", as_json, headers={}, gone_is_done=True) is None
    server.reply(httpx.ReadTimeout, gone)
    with pytest.raises(NotFoundError):
        await sender.send(DELETE, "c", as_json, headers={})


async def test_a_bare_429_on_a_self_counted_budget_waits_a_second_while_the_count_has_room(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(self_counted=True)
    server.reply(httpx.Response(429), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [1.0]
    assert sender.rate_budget.remaining == 198  # both sends counted, the refusal's hold is over
