"""Rules of the cart writer that the mutation sample showed untested (docs/mutation.md, issue 32
item 8): driven with the fake owner and client of tests/unit/test_cart_writer.py, no server."""

from __future__ import annotations

import asyncio

import pytest

from kiosk.api.errors import AmbiguousWriteError, ConflictError, RateLimitedError
from kiosk.api.models import Cart
from kiosk.ordering.cart_changes import cart_changes
from kiosk.ordering.cart_writer import BUSY, IDLE, StoreStatus
from tests.unit.test_cart_writer import Client, FailsThen, Owner, cart, sent, writer


@pytest.mark.parametrize(("failures", "answered"), [(3, True), (4, False)])
async def test_a_set_whose_outcome_stays_unknown_goes_again_as_often_as_allowed(
    failures: int, answered: bool
) -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client, max_ambiguous_retries=3)
    call = FailsThen(AmbiguousWriteError, failures)
    await sent(send, call, answered=answered)
    # The first send and up to three repeats, never a fifth.
    assert call.calls == min(failures + 1, 4)


async def test_a_write_cancelled_on_the_wire_leaves_the_cart_to_be_read_before_trusting_it() -> (
    None
):
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)
    assert send.stale is False

    async def call() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await send.run(lambda: send.write(call))
    assert send.stale is True


async def test_a_rate_limit_wait_says_the_write_is_coming_not_that_the_order_is_checked() -> None:
    owner, client = Owner(), Client([cart(0)])
    send, _ = writer(owner, client)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RateLimitedError(retry_after=2)
        return "done"

    assert await send.run(lambda: send.write(call)) == "done"
    waiting = [s.message for s in said if s.kind == "waiting"]
    assert waiting == ["Very busy: sending in 2 s", "Very busy: sending in 1 s"]


def test_the_status_line_says_busy_while_busy_and_nothing_when_idle() -> None:
    assert str(BUSY) == "busy"
    assert str(IDLE) == ""
    assert str(StoreStatus("waiting", seconds_left=4)) == "waiting for rate limit: 4 s"
    assert str(StoreStatus("error", message="No")) == "error: No"


async def test_a_conflict_tells_every_change_made_elsewhere_one_after_the_other() -> None:
    owner, client = Owner(), Client([cart(2)])
    before = Cart.model_validate(
        {
            "id": "c1",
            "items": [
                {"id": "i1", "productId": "p1", "quantity": 1},
                {"id": "i2", "productId": "p2", "quantity": 1},
            ],
        }
    )
    owner.cart = before
    send, _ = writer(owner, client)

    async def call() -> None:
        raise ConflictError(code="CART_CONFLICT")

    with pytest.raises(ConflictError) as told:
        await send.run(lambda: send.write(call))
    changes = cart_changes(before, cart(2))
    assert len(changes) == 2  # p1 re-counted, p2 removed
    assert f"({changes[0]}; {changes[1]})" in told.value.message
    assert told.value.details["changes"] == changes
