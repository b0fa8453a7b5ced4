"""More rules of the cart writer that the whole-module mutation run showed untested
(docs/mutation.md, issue 32 item 8): the writer's own patience when its owner names none (the
same as the store's), driven with the fake owner and client of tests/unit/test_cart_writer.py,
no server."""

from __future__ import annotations

import asyncio

import pytest

from kiosk.api.errors import (
    AmbiguousWriteError,
    ConflictError,
    NotFoundError,
    RateLimitedError,
    ServerError,
)
from kiosk.api.models import Cart
from kiosk.ordering.cart_writer import BUSY, IDLE, CartWriter, Landed, StoreStatus
from tests.unit.test_cart_writer import Client, FailsThen, Owner, cart, sent, writer


@pytest.mark.parametrize(("limited", "answered"), [(20, True), (21, False)])
async def test_the_writer_waits_out_twenty_rate_limits_of_one_write_then_tells_it(
    limited: int, answered: bool
) -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)  # its own defaults
    call = FailsThen(lambda: RateLimitedError(retry_after=1), limited)
    await sent(send, call, answered=answered)
    assert call.calls == min(limited + 1, 21)


@pytest.mark.parametrize(("lost", "answered"), [(3, True), (4, False)])
async def test_the_writer_sends_a_set_whose_answer_is_lost_four_times_at_most(
    lost: int, answered: bool
) -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)  # its own defaults
    call = FailsThen(AmbiguousWriteError, lost)
    await sent(send, call, answered=answered)
    assert call.calls == min(lost + 1, 4)


async def test_a_write_the_server_still_runs_is_checked_eight_times_two_seconds_apart() -> None:
    owner, client = Owner(), Client([cart(0)])
    send, slept = writer(owner, client)  # its own defaults

    async def call() -> None:
        raise AmbiguousWriteError(code="IDEMPOTENCY_IN_PROGRESS")

    with pytest.raises(AmbiguousWriteError) as told:
        await send.run(lambda: send.write(call, landed=lambda c: bool(c.items), key="add"))
    # Eight reads of the cart, with a pause of two seconds (counted down) between two of them.
    assert client.reads == 8
    assert sum(slept) == 7 * 2.0
    # Every read answered (the write was still running): the cart shown is the server's.
    assert told.value.details["reloaded"] is True and told.value.__cause__ is None


async def test_a_cancelled_operation_leaves_the_status_line_idle_not_busy() -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)

    async def call() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await send.run(lambda: send.write(call))
    assert send.status == IDLE and said == [BUSY, IDLE]
    # The next operation is counted from nothing: idle again once it is done.
    assert await send.run(send.get) == cart(1)
    assert send.status == IDLE


async def test_a_cancelled_operation_leaves_the_line_busy_while_another_waits() -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)
    cancel_it, finish_it = asyncio.Event(), asyncio.Event()

    async def cancelled() -> None:
        await cancel_it.wait()
        raise asyncio.CancelledError

    async def queued() -> str:
        await finish_it.wait()
        return "done"

    first = asyncio.ensure_future(send.run(cancelled))
    second = asyncio.ensure_future(send.run(queued))
    await asyncio.sleep(0)
    cancel_it.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    # The second operation is still on its way: the line says busy, not idle.
    assert send.status == BUSY
    finish_it.set()
    assert await second == "done"
    assert send.status == IDLE


def writer_on(clock: list[float], speed: float) -> tuple[CartWriter, list[float]]:
    """A writer whose sleep moves its clock `speed` times what it slept (0: a clock that stands
    still while it sleeps; 2: one that runs ahead)."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) > 20:
            raise AssertionError("the wait never ended")
        clock[0] += seconds * speed

    made = CartWriter(
        Owner(),
        Client([cart(0)]),  # type: ignore[arg-type]
        "loc",
        clock=lambda: clock[0],
        sleep=sleep,
    )
    return made, slept


async def test_a_wait_counts_down_what_it_slept_when_the_clock_stands_still() -> None:
    send, slept = writer_on([0.0], speed=0)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)
    await send.wait_out(3)
    assert slept == [1.0, 1.0, 1.0]
    assert [s.seconds_left for s in said if s.kind == "waiting"] == [3, 2, 1]


async def test_a_wait_ends_when_the_clock_says_the_time_is_up_and_never_shows_0_s() -> None:
    send, slept = writer_on([0.0], speed=2)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)
    await send.wait_out(4)
    # Each second slept moved the clock two: the four seconds are up after two sleeps.
    assert slept == [1.0, 1.0]
    assert [s.seconds_left for s in said if s.kind == "waiting"] == [4, 2]
    assert send.status == BUSY


async def test_a_rate_limit_that_says_no_time_is_waited_out_five_seconds() -> None:
    owner, client = Owner(), Client([cart(1)])
    send, slept = writer(owner, client)
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RateLimitedError()  # no Retry-After, and the budget knows no reset
        return "done"

    assert await send.run(lambda: send.write(call)) == "done"
    assert sum(slept) == 5.0


async def test_a_set_the_server_still_runs_waits_reads_the_cart_then_goes_again() -> None:
    owner, client = Owner(), Client([cart(1)])
    send, slept = writer(owner, client)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)
    sent: list[int] = []

    async def call() -> str:
        sent.append(client.reads)
        if len(sent) == 1:
            raise AmbiguousWriteError(code="IDEMPOTENCY_IN_PROGRESS")
        return "done"

    assert await send.run(lambda: send.write(call)) == "done"
    # The first send is let finish (a pause said as checking the order, not as a rate limit),
    # the cart read, and only then the same set sent again.
    assert sum(slept) == 2.0
    waiting = [s.message for s in said if s.kind == "waiting"]
    assert waiting == [
        "Checking your order with the restaurant: 2 s",
        "Checking your order with the restaurant: 1 s",
    ]
    assert sent == [0, 1] and owner.cart == cart(1)


@pytest.mark.parametrize("readable", [True, False])
async def test_a_set_given_up_says_whether_the_cart_shown_is_the_servers(readable: bool) -> None:
    owner, client = Owner(), Client([cart(1)])
    if not readable:

        async def unreadable(location_id: str, cart_id: str) -> None:
            raise ServerError()

        client.get_cart = unreadable  # type: ignore[method-assign]
    send, _ = writer(owner, client)

    async def call() -> None:
        raise AmbiguousWriteError()

    with pytest.raises(AmbiguousWriteError) as told:
        await send.run(lambda: send.write(call))
    assert told.value.details["reloaded"] is readable


# ------------------------------------------------------------------ reading the cart after an error


async def test_a_quiet_reread_publishes_the_cart_and_says_the_screen_shows_the_servers() -> None:
    owner, client = Owner(), Client([cart(2)])
    send, _ = writer(owner, client)
    assert await send.reread_quietly() is True
    assert owner.cart == cart(2) and owner.told == ["publish"]


async def test_a_quiet_reread_of_a_cart_gone_tells_the_owner_and_of_no_cart_reads_nothing() -> None:
    owner, client = Owner(), Client([cart(2)])

    async def gone(location_id: str, cart_id: str) -> None:
        raise NotFoundError()

    client.get_cart = gone  # type: ignore[method-assign]
    send, _ = writer(owner, client)
    assert await send.reread_quietly() is True
    assert owner.told == ["gone"]
    owner.cart_id = None
    assert await send.reread_quietly() is True
    assert owner.told == ["gone"]


async def test_a_quiet_reread_that_fails_says_the_screen_may_not_be_the_servers() -> None:
    owner, client = Owner(), Client([cart(2)])

    async def down(location_id: str, cart_id: str) -> None:
        raise ServerError()

    client.get_cart = down  # type: ignore[method-assign]
    send, _ = writer(owner, client)
    assert await send.reread_quietly() is False
    assert owner.told == [] and owner.cart is None


# ------------------------------------------------------------------ a write in doubt


class Reads(Client):
    """A fake client whose cart reads answer in turn: a Cart, or an error raised."""

    def __init__(self, answers: list[Cart | Exception]) -> None:
        super().__init__([])
        self.answers = answers

    async def get_cart(self, location_id: str, cart_id: str) -> Cart:  # type: ignore[override]
        self.reads += 1
        answer = self.answers[min(self.reads, len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer


async def test_a_write_in_doubt_whose_reads_fail_then_show_it_landed_is_landed() -> None:
    owner, client = Owner(), Reads([ServerError(), cart(1)])
    send, slept = writer(owner, client)

    async def call() -> None:
        raise AmbiguousWriteError()

    result = await send.run(lambda: send.write(call, landed=lambda c: bool(c.items), key="add"))
    assert isinstance(result, Landed)
    assert client.reads == 2 and sum(slept) == 2.0
    assert owner.told == ["doubt", "publish", "settled"]


async def test_a_write_in_doubt_whose_reads_all_fail_is_told_unsure_and_checked_before_again() -> (
    None
):
    owner, client = Owner(), Reads([ServerError()])
    owner.cart = cart(0)  # the cart shown before the write
    send, _ = writer(owner, client, settle_reads=3)
    sent = 0

    async def call() -> None:
        nonlocal sent
        sent += 1
        raise AmbiguousWriteError()

    with pytest.raises(AmbiguousWriteError) as told:
        await send.run(lambda: send.write(call, landed=lambda c: bool(c.items), key="add"))
    assert client.reads == 3 and sent == 1
    # Nothing could be read: the screen's cart is not the server's, and the cart is read first.
    assert told.value.details["reloaded"] is False and send.stale is True
    # What failed is the error's cause, chained as its __cause__ too.
    assert isinstance(told.value.cause, ServerError) and told.value.__cause__ is told.value.cause
    assert owner.told == ["doubt", "settled"] and owner.cart == cart(0)
    # The customer repeats it: the cart shown may be old, so the server's is read (and shown):
    # it shows the first one landed, and nothing is sent again.
    client.answers = [cart(1)]
    client.reads = 0

    async def again() -> None:
        nonlocal sent
        sent += 1

    result = await send.run(lambda: send.write(again, landed=lambda c: bool(c.items), key="add"))
    assert isinstance(result, Landed) and sent == 1
    assert client.reads == 1 and owner.cart == cart(1)


async def test_a_write_in_doubt_whose_cart_is_gone_is_not_read_again() -> None:
    owner, client = Owner(), Reads([NotFoundError()])
    send, _ = writer(owner, client)

    async def call() -> None:
        raise AmbiguousWriteError()

    with pytest.raises(NotFoundError):
        await send.run(lambda: send.write(call, landed=lambda c: bool(c.items)))
    assert client.reads == 1
    assert owner.told == ["doubt", "settled"]


async def test_a_write_in_doubt_the_cart_shows_did_not_land_is_sent_again_at_once() -> None:
    owner, client = Owner(), Reads([cart(0), cart(1)])
    send, slept = writer(owner, client)
    sent = 0

    async def call() -> str:
        nonlocal sent
        sent += 1
        if sent == 1:
            raise AmbiguousWriteError()
        return "done"

    assert await send.run(lambda: send.write(call, landed=lambda c: bool(c.items))) == "done"
    assert sent == 2 and client.reads == 1 and slept == []


# ------------------------------------------------------------------ a conflict, retold


async def test_a_conflict_with_nothing_seen_changed_says_the_order_was_updated() -> None:
    owner, client = Owner(), Client([cart(1)])
    owner.cart = cart(1)
    send, _ = writer(owner, client)

    async def call() -> None:
        raise ConflictError(
            code="CART_CONFLICT", status=409, details={"requestId": "r1"}, endpoint="add_item"
        )

    with pytest.raises(ConflictError) as told:
        await send.run(lambda: send.write(call))
    assert told.value.message == (
        "Your order was changed elsewhere (it was updated). Please check it and try again."
    )
    assert told.value.status == 409 and told.value.code == "CART_CONFLICT"
    assert told.value.endpoint == "add_item" and told.value.details["requestId"] == "r1"
    assert told.value.details["changes"] == []
