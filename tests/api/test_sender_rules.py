"""The sender's rules at their edges (kiosk/api/sender.py): the rate budget's window and its
refusals, the exact moment a wait or a deadline ends, which failures are resent and which are in
doubt, and what the staff screen's counters say. Each rule is tested on both sides of its boundary;
test_sender.py has the main paths."""

from __future__ import annotations

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
    ConflictError,
    RateLimitedError,
    RetryPolicy,
    ServerError,
)
from kiosk.api.sender import ClientStats, RateBudget, Sender

from .conftest import BASE, EPOCH, FakeClock, Server, ok

READ = ENDPOINTS["location"]


SenderFactory = Callable[..., Sender]


@pytest.fixture
async def make_sender(clock: FakeClock, server: Server) -> AsyncIterator[SenderFactory]:
    """Senders over the recording server, on the fake clock; keywords override their rules."""
    made: list[httpx.AsyncClient] = []

    def make(**kw: Any) -> Sender:
        http = httpx.AsyncClient(base_url=BASE + "/", transport=httpx.MockTransport(server))
        made.append(http)
        kw.setdefault("retry", RetryPolicy(random=lambda: 0.0))
        kw.setdefault("timeout", 10.0)
        kw.setdefault("deadline", 30.0)
        kw.setdefault("max_wait", 30.0)
        kw.setdefault("rate_budget", RateBudget(200, clock.time))
        kw.setdefault("stats", ClientStats())
        kw.setdefault("sleep", clock.sleep)
        return Sender(http, clock=clock.time, timer=clock.time, **kw)

    yield make
    for http in made:
        await http.aclose()


async def read(sender: Sender, **kw: Any) -> Any:
    return await sender.send(READ, "locations/l", _json, headers={}, **kw)


def _json(response: httpx.Response) -> Any:
    return response.json() if response.content else None


def counted(clock: FakeClock, limit: int = 3, window: float = 10.0) -> RateBudget:
    """The kiosk's own count of what it sent (Storefront 2.0 sends no X-RateLimit-* headers)."""
    return RateBudget(limit, clock.time, self_counted=True, window=window)


def send_at(budget: RateBudget, clock: FakeClock, *times: float) -> None:
    for at in times:
        clock.now = EPOCH + at
        budget.note_sent()


# ---------------------------------------------------------------- the kiosk's own count


def test_a_request_leaves_the_window_exactly_when_the_window_has_passed() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=3, window=10.0)
    send_at(budget, clock, 0.0, 4.0)
    clock.now = EPOCH + 9.999
    assert budget.remaining == 1
    clock.now = EPOCH + 10.0  # the first request was sent a whole window ago
    assert budget.remaining == 2
    clock.now = EPOCH + 14.0
    assert budget.remaining == 3


def test_the_seconds_until_the_count_frees_up_follow_the_oldest_request() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=3, window=10.0)
    assert budget.seconds_until_reset() is None  # nothing sent: nothing to wait for
    send_at(budget, clock, 0.0, 4.0)
    clock.now = EPOCH + 6.0
    assert budget.seconds_until_reset() == 4.0
    clock.now = EPOCH + 10.0
    assert budget.seconds_until_reset() == 4.0  # the first has left; the second leaves at 14
    clock.now = EPOCH + 13.5
    assert budget.seconds_until_reset() == 0.5
    clock.now = EPOCH + 14.0
    assert budget.seconds_until_reset() is None


def test_once_the_server_counts_the_kiosks_own_count_is_set_aside() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=3, window=10.0)
    send_at(budget, clock, 0.0, 1.0)
    budget.update(_headers(remaining="50"))
    assert budget.remaining == 50
    assert budget.seconds_until_reset() is None  # the server said no reset time


def test_a_bare_refusal_holds_the_budget_at_nothing_for_its_wait_and_no_longer() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=3, window=10.0)
    send_at(budget, clock, 0.0)
    wait = budget.note_refused()
    assert wait == 1.0  # the count had room: the server's burst, a second
    assert budget.remaining == 0 and budget.is_low
    assert budget.seconds_until_reset() == 1.0
    clock.now += 0.5
    assert budget.remaining == 0 and budget.seconds_until_reset() == 0.5
    clock.now += 0.5  # the wait is over: the count speaks again
    assert budget.remaining == 2
    assert budget.seconds_until_reset() == 9.0


def test_an_answer_ends_a_refusals_hold() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=3, window=10.0)
    send_at(budget, clock, 0.0)
    budget.note_refused()
    budget.note_answered()
    assert budget.remaining == 2


def test_a_refusal_on_a_full_window_waits_for_the_oldest_request_still_in_it() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=2, window=10.0)
    send_at(budget, clock, 0.0, 5.0, 6.0)
    clock.now = EPOCH + 10.5  # the first has left the window; the two left fill it
    assert budget.note_refused() == 4.5  # until the one sent at 5 leaves
    assert budget.remaining == 0


def test_a_refusal_with_nothing_counted_waits_a_second() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=2, window=10.0)
    assert budget.note_refused() == 1.0


def test_a_refusal_on_a_full_window_whose_oldest_is_leaving_waits_at_least_a_second() -> None:
    clock = FakeClock()
    budget = counted(clock, limit=2, window=10.0)
    send_at(budget, clock, 0.0, 1.0)
    clock.now = EPOCH + 9.75
    assert budget.note_refused() == 1.0


async def test_an_answer_before_a_refusals_wait_is_over_frees_the_budget_at_once(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    budget = counted(clock, limit=10, window=600.0)
    sender = make_sender(rate_budget=budget, max_wait=0.5)
    server.reply(httpx.Response(429))
    with pytest.raises(RateLimitedError) as info:
        await read(sender)  # a second's wait: more than this sender sleeps, so raised
    assert info.value.retry_after == 1.0 and budget.remaining == 0
    server.reply(httpx.Response(429, headers={"Retry-After": "3"}))
    with pytest.raises(RateLimitedError):
        await read(sender)  # another refusal does not end the hold, whatever wait it names
    assert budget.remaining == 0
    server.reply(ok({"id": "l"}))
    await read(sender)  # answered within that second: the server has room after all
    assert budget.remaining == 7


# ---------------------------------------------------------------- the server's headers


def test_the_servers_window_is_full_again_exactly_at_its_reset_time() -> None:
    clock = FakeClock()
    budget = RateBudget(100, clock.time)
    budget.update(_headers(remaining="5", reset=str(int(EPOCH + 60))))
    clock.now = EPOCH + 59.5
    assert budget.remaining == 5 and budget.is_low
    clock.now = EPOCH + 60
    assert budget.remaining == 100 and not budget.is_low


def _headers(**values: str) -> Any:
    return httpx.Headers({f"x-ratelimit-{k}": v for k, v in values.items()})


def test_the_budget_is_low_below_a_fifth_of_the_limit_not_at_it() -> None:
    clock = FakeClock()
    budget = RateBudget(100, clock.time)
    budget.update(_headers(remaining="20"))
    assert not budget.is_low
    budget.update(_headers(remaining="19"))
    assert budget.is_low


def test_a_limit_header_of_one_is_read_and_of_zero_is_not() -> None:
    clock = FakeClock()
    budget = RateBudget(100, clock.time)
    budget.update(_headers(limit="0"))
    assert budget.limit == 100
    budget.update(_headers(limit="1"))
    assert budget.limit == 1


def test_a_reset_from_the_epoch_threshold_on_is_a_unix_time_below_it_seconds_from_now() -> None:
    clock = FakeClock()
    budget = RateBudget(100, clock.time)
    budget.update(_headers(reset="1000000000"))
    assert budget.reset_at == 1_000_000_000
    budget.update(_headers(reset="999999999"))
    assert budget.reset_at == EPOCH + 999_999_999


# ---------------------------------------------------------------- what the staff screen counts


def test_the_counters_start_from_nothing_again_after_a_reset() -> None:
    stats = ClientStats()
    for name in ClientStats.__dataclass_fields__:
        value = getattr(stats, name)
        if isinstance(value, int):
            setattr(stats, name, 7)
        else:
            value["GET"] += 3
    stats.reset()
    assert stats == ClientStats()


# ---------------------------------------------------------------- the waits the server asks for


@pytest.mark.parametrize(
    ("headers", "slept"),
    [
        ({"Retry-After": "0"}, 0.0),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": " 2.5 "}, 2.5),
        ({"X-RateLimit-Reset": "4"}, 4.0),  # a gateway's seconds from now
        ({"X-RateLimit-Reset": "-4"}, 0.0),
        ({"X-RateLimit-Reset": "1000000000"}, 0.0),  # a Unix time, long past
        ({"Retry-After": "soon", "X-RateLimit-Reset": "6"}, 6.0),
    ],
)
async def test_a_429s_wait_is_what_the_server_said_never_below_zero(
    make_sender: SenderFactory,
    server: Server,
    clock: FakeClock,
    headers: dict[str, str],
    slept: float,
) -> None:
    sender = make_sender()
    server.reply(httpx.Response(429, headers=headers), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert clock.sleeps == [slept]


async def test_a_retry_after_date_already_past_is_no_wait(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender()
    past = formatdate(clock.now - 30, usegmt=True)
    server.reply(httpx.Response(429, headers={"Retry-After": past}), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [0.0]


async def test_a_reset_time_already_past_is_no_wait(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender()
    reset = {"X-RateLimit-Reset": str(int(clock.now - 30))}
    server.reply(httpx.Response(429, headers=reset), ok({"id": "l"}))
    await read(sender)
    assert clock.sleeps == [0.0]


async def test_the_waits_slept_for_429s_stay_below_max_wait_in_all(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(max_wait=5.0, retry=RetryPolicy(max_attempts=10, random=lambda: 0.0))
    server.default = httpx.Response(429, json={"retryAfter": 2})
    with pytest.raises(RateLimitedError) as info:
        await read(sender)
    assert clock.sleeps == [2.0, 2.0]  # a third would make 6 s slept
    assert info.value.retry_after == 2.0


async def test_a_429_wait_that_would_reach_max_wait_is_not_slept(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(max_wait=5.0, retry=RetryPolicy(max_attempts=10, random=lambda: 0.0))
    server.default = httpx.Response(429, json={"retryAfter": 2.5})
    with pytest.raises(RateLimitedError):
        await read(sender)
    assert clock.sleeps == [2.5]
    clock.sleeps.clear()
    server.default = httpx.Response(429, json={"retryAfter": 5})
    with pytest.raises(RateLimitedError):
        await read(sender)
    assert clock.sleeps == []


# ---------------------------------------------------------------- 5xx, lost answers and doubt

WRITE = ENDPOINTS["add_item"]
DELETE = ENDPOINTS["delete_cart"]


async def write(sender: Sender, *, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return await sender.send(WRITE, "carts/c/items", _json, headers=headers, content=b"{}")


async def test_a_5xx_wait_of_exactly_max_wait_is_slept(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(max_wait=4.0)
    server.reply(httpx.Response(503, headers={"Retry-After": "4"}), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert clock.sleeps == [4.0]


async def test_a_5xx_wait_ending_exactly_at_the_deadline_is_not_taken(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=4.0)
    server.reply(httpx.Response(503, headers={"Retry-After": "4"}))
    with pytest.raises(ServerError) as info:
        await read(sender)
    assert clock.sleeps == [] and info.value.retry_after == 4.0
    server.reply(httpx.Response(503, headers={"Retry-After": "3.5"}), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert clock.sleeps == [3.5]


async def test_a_failing_server_asking_for_no_wait_still_gets_the_backoff_not_a_flood(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    # A keyed write is bounded by the deadline alone: "Retry-After: 0" on every 503 sent it back
    # to back until the deadline (10,000 tries). A shorter wait than the backoff's is not taken;
    # a longer one still is.
    sender = make_sender(deadline=10.0)
    server.default = httpx.Response(503, headers={"Retry-After": "0"})
    with pytest.raises(ServerError):
        await write(sender, key="k-0")
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0] and len(server.requests) == 5
    server.reply(httpx.Response(503, headers={"Retry-After": "0.2"}), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert clock.sleeps[-1] == 0.5


async def test_a_5xx_given_up_names_no_wait_the_server_did_not_ask_for(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender()
    server.default = httpx.Response(502)
    with pytest.raises(ServerError) as info:
        await read(sender)
    assert info.value.retry_after is None
    assert clock.sleeps == [0.5, 1.0, 2.0] and len(server.requests) == 4


async def test_an_unkeyed_write_answered_5xx_is_in_doubt_with_the_servers_status_and_code(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender()
    server.reply(httpx.Response(500, json={"code": "GENERIC_ERROR", "message": "oops"}))
    with pytest.raises(AmbiguousWriteError) as info:
        await write(sender)
    assert info.value.status == 500 and info.value.code == "GENERIC_ERROR"
    assert isinstance(info.value.cause, ServerError) and len(server.requests) == 1


async def test_a_keyed_write_that_never_left_is_unreachable_at_the_deadline_not_in_doubt(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=5.0)
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError) as info:
        await write(sender, key="k-1")
    assert not isinstance(info.value, AmbiguousWriteError)
    assert len(server.requests) == 4 and clock.sleeps == [0.5, 1.0, 2.0]


async def test_a_delete_lost_on_every_try_is_a_timeout_not_a_doubt(
    make_sender: SenderFactory, server: Server
) -> None:
    # Deleting twice leaves the same state: a lost answer is resent, and in the end it is only
    # a timeout, never "check your order".
    sender = make_sender()
    server.default = httpx.ReadTimeout
    with pytest.raises(APITimeoutError) as info:
        await sender.send(DELETE, "carts/c", _json, headers={})
    assert not isinstance(info.value, AmbiguousWriteError)
    assert len(server.requests) == 4


async def test_a_write_still_running_is_a_conflict_on_its_first_send(
    make_sender: SenderFactory, server: Server
) -> None:
    # IDEMPOTENCY_IN_PROGRESS after no earlier send of ours: another terminal's write, not a doubt.
    sender = make_sender()
    busy = {"code": "IDEMPOTENCY_IN_PROGRESS", "message": "still running"}
    server.reply(httpx.Response(409, json=busy))
    with pytest.raises(ConflictError) as info:
        await write(sender, key="k-5")
    assert not isinstance(info.value, AmbiguousWriteError)


async def test_another_conflict_after_a_lost_answer_is_raised_as_it_came(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender()
    locked = {"code": "CART_LOCKED", "message": "Locked for payment"}
    server.reply(httpx.ReadTimeout, httpx.Response(409, json=locked))
    with pytest.raises(ConflictError) as info:
        await write(sender, key="k-6")
    assert info.value.code == "CART_LOCKED"
    assert not isinstance(info.value, AmbiguousWriteError)


@pytest.mark.parametrize("failure", [httpx.UnsupportedProtocol, httpx.ProxyError])
async def test_a_configuration_error_is_raised_at_once(
    make_sender: SenderFactory, server: Server, failure: type[Exception]
) -> None:
    sender = make_sender()
    server.default = failure
    with pytest.raises(APIConnectionError) as info:
        await write(sender, key="k-7")
    assert info.value.details["cause"] == failure.__name__ and len(server.requests) == 1


# ---------------------------------------------------------------- what goes out, what is counted


async def test_a_body_goes_out_as_json_and_a_bare_request_says_no_type(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender()
    server.default = ok({"ok": True})
    await write(sender, key="k-8")
    assert server.last.headers["Content-Type"] == "application/json"
    assert server.last.headers["Idempotency-Key"] == "k-8"
    await read(sender)
    assert "Content-Type" not in server.last.headers
    assert "If-None-Match" not in server.last.headers


async def test_every_attempt_is_counted_by_method_and_row(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender()
    server.reply(httpx.ConnectError, ok({"id": "l"}), ok({"ok": True}))
    await read(sender)
    await write(sender)
    stats = sender.stats
    assert stats.requests == 3 and stats.retries == 1
    assert stats.by_method == {"GET": 2, "POST": 1}
    assert stats.by_endpoint == {"location": 2, "add_item": 1}


async def test_no_attempt_goes_out_once_the_deadline_is_reached(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    async def overrunning_sleep(seconds: float) -> None:
        clock.now += 10.0  # asked for 4 s, woke exactly at the call's deadline

    sender = make_sender(deadline=10.0, sleep=overrunning_sleep)
    server.reply(httpx.Response(503, headers={"Retry-After": "4"}), ok({"id": "l"}))
    with pytest.raises(ServerError):
        await read(sender)
    assert len(server.requests) == 1


async def test_a_429_wait_ending_exactly_at_the_deadline_is_not_slept(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender(deadline=4.0)
    server.reply(httpx.Response(429, json={"retryAfter": 4}))
    with pytest.raises(RateLimitedError):
        await read(sender)
    assert clock.sleeps == [] and len(server.requests) == 1
    server.reply(httpx.Response(429, json={"retryAfter": 3.5}), ok({"id": "l"}))
    assert await read(sender) == {"id": "l"}
    assert clock.sleeps == [3.5]


async def test_a_429_on_the_last_attempt_is_raised_whatever_came_before(
    make_sender: SenderFactory, server: Server, clock: FakeClock
) -> None:
    sender = make_sender()
    server.reply(
        httpx.ConnectError,
        httpx.ConnectError,
        httpx.ConnectError,
        httpx.Response(429, json={"retryAfter": 1}),
        ok({"id": "l"}),
    )
    with pytest.raises(RateLimitedError):
        await read(sender)
    assert len(server.requests) == 4 and clock.sleeps == [0.5, 1.0, 2.0]


async def test_a_delete_answered_5xx_then_gone_is_done(
    make_sender: SenderFactory, server: Server
) -> None:
    # The 5xx may have deleted it: the 404 that follows is the delete done, not a failure.
    sender = make_sender()
    server.reply(httpx.Response(503), httpx.Response(404, json={"code": "NOT_FOUND"}))
    assert await sender.send(DELETE, "carts/c", _json, headers={}, gone_is_done=True) is None
    assert len(server.requests) == 2


async def test_a_keyed_write_answered_5xx_then_still_running_is_in_doubt(
    make_sender: SenderFactory, server: Server
) -> None:
    sender = make_sender()
    busy = {"code": "IDEMPOTENCY_IN_PROGRESS", "message": "still running"}
    server.reply(httpx.Response(502), httpx.Response(409, json=busy))
    with pytest.raises(AmbiguousWriteError) as info:
        await write(sender, key="k-9")
    assert info.value.code == "IDEMPOTENCY_IN_PROGRESS" and info.value.status == 409
