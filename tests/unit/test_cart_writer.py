"""The cart writer on its own: driven with a fake owner and a fake client, no CartStore.

It sends; its owner records. A rate limit is waited out with a countdown and the same write goes
again; a write whose answer was lost is settled by reading the cart, the doubt told to the owner
(which alone records it); a refused write on an expired cart is the owner's to record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kiosk.api import RateBudget
from kiosk.api.errors import AmbiguousWriteError, ConflictError, RateLimitedError
from kiosk.api.models import Cart
from kiosk.ordering.cart_writer import CartExpiredError, CartWriter, Landed, StoreStatus


class Owner:
    """A WriteOwner that only notes what it was told."""

    def __init__(self) -> None:
        self.cart: Cart | None = None
        self.cart_id: str | None = "c1"
        self.told: list[str] = []

    def publish(self, cart: Cart | None) -> None:
        self.cart = cart
        self.told.append("publish")

    def cart_gone(self) -> None:
        self.told.append("gone")

    def cart_expired(self) -> bool:
        self.told.append("expired")
        return True

    def write_in_doubt(self) -> None:
        self.told.append("doubt")

    def write_settled(self) -> None:
        self.told.append("settled")


class Client:
    def __init__(self, carts: list[Cart]) -> None:
        self.now = 0.0
        self.rate_budget = RateBudget(100, lambda: self.now)
        self.carts = carts
        self.reads = 0

    async def get_cart(self, location_id: str, cart_id: str) -> Cart:
        self.reads += 1
        return self.carts[min(self.reads, len(self.carts)) - 1]


def cart(quantity: int, **extra: Any) -> Cart:
    items = [{"id": "i1", "productId": "p1", "quantity": quantity}] if quantity else []
    return Cart.model_validate({"id": "c1", "items": items, **extra})


def writer(owner: Owner, client: Client, **options: Any) -> tuple[CartWriter, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        client.now += seconds

    made = CartWriter(
        owner,
        client,
        "loc",
        clock=lambda: client.now,
        sleep=sleep,
        **options,  # type: ignore[arg-type]
    )
    return made, slept


class FailsThen:
    """A write that raises `error()` on its first `times` calls, then answers "done"."""

    def __init__(self, error: Callable[[], Exception], times: int) -> None:
        self.error = error
        self.times = times
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.times:
            raise self.error()
        return "done"


async def sent(send: CartWriter, call: FailsThen, *, answered: bool) -> None:
    """`call` through the writer: "done" when `answered`, else its error raised to the caller."""
    if answered:
        assert await send.run(lambda: send.write(call)) == "done"
    else:
        with pytest.raises(type(call.error())):
            await send.run(lambda: send.write(call))


async def test_a_rate_limited_write_is_waited_out_with_a_countdown_and_sent_again() -> None:
    owner, client = Owner(), Client([cart(0)])
    send, slept = writer(owner, client)
    said: list[StoreStatus] = []
    send.subscribe_status(said.append)
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RateLimitedError(retry_after=3)
        return "done"

    assert await send.run(lambda: send.write(call)) == "done"
    assert calls == 2
    assert slept == [1.0, 1.0, 1.0]
    assert [s.seconds_left for s in said if s.kind == "waiting"] == [3, 2, 1]
    assert send.status.kind == "idle"
    assert owner.told == []  # nothing about the order: the owner was not bothered


async def test_a_lost_answer_is_settled_by_reading_and_the_owner_records_the_doubt() -> None:
    owner, client = Owner(), Client([cart(1)])
    send, _ = writer(owner, client)

    async def call() -> None:
        raise AmbiguousWriteError()

    result = await send.run(lambda: send.write(call, landed=lambda c: bool(c.items)))
    assert isinstance(result, Landed)
    assert owner.told == ["doubt", "publish", "settled"]
    assert owner.cart is not None and owner.cart.items[0].quantity == 1


async def test_a_write_refused_on_an_expired_cart_is_the_owners_to_record() -> None:
    owner, client = Owner(), Client([cart(1, status="EXPIRED")])
    send, _ = writer(owner, client)

    async def call() -> None:
        raise ConflictError(code="CART_LOCKED")

    with pytest.raises(CartExpiredError):
        await send.run(lambda: send.write(call))
    assert owner.told == ["publish", "expired"]
    assert send.status.kind == "error"
