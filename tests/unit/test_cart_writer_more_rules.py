"""More rules of the cart writer that the whole-module mutation run showed untested
(docs/mutation.md, issue 32 item 8): the writer's own patience when its owner names none (the
same as the store's), driven with the fake owner and client of tests/unit/test_cart_writer.py,
no server."""

from __future__ import annotations

import asyncio

import pytest

from kiosk.api.errors import AmbiguousWriteError, RateLimitedError
from kiosk.ordering.cart_writer import BUSY, IDLE, StoreStatus
from tests.unit.test_cart_writer import Client, Owner, cart, writer


@pytest.mark.parametrize(("limited", "answered"), [(20, True), (21, False)])
async def test_the_writer_waits_out_twenty_rate_limits_of_one_write_then_tells_it(
    limited: int, answered: bool
) -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)  # its own defaults
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        if calls <= limited:
            raise RateLimitedError(retry_after=1)
        return "done"

    if answered:
        assert await send.run(lambda: send.write(call)) == "done"
    else:
        with pytest.raises(RateLimitedError):
            await send.run(lambda: send.write(call))
    assert calls == min(limited + 1, 21)


@pytest.mark.parametrize(("lost", "answered"), [(3, True), (4, False)])
async def test_the_writer_sends_a_set_whose_answer_is_lost_four_times_at_most(
    lost: int, answered: bool
) -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)  # its own defaults
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        if calls <= lost:
            raise AmbiguousWriteError()
        return "done"

    if answered:
        assert await send.run(lambda: send.write(call)) == "done"
    else:
        with pytest.raises(AmbiguousWriteError):
            await send.run(lambda: send.write(call))
    assert calls == min(lost + 1, 4)


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
    assert told.value.details["reloaded"] is True


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
