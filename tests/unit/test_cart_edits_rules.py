"""Rules of the customer's changes to the order (kiosk.ordering.cart_edits) that the whole-module
mutation run showed untested (docs/mutation.md, issue 32 item 8): a resumed cart the server calls
no cart at all, a resume refused for its way to order, the table kept with the way, a change whose
answer was lost but which landed. Through the store's public methods on the embedded demo backend,
on both dialects unless a rule is one dialect's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kiosk.api import AmbiguousWriteError, Cart, ConflictError
from kiosk.api.errors import AuthenticationError, InvalidRequestError, ServerError
from kiosk.demo.data import WESTSIDE
from kiosk.ordering.cart_edits import WayGoneError
from kiosk.ordering.cart_store import CartStore, load_saved_cart
from kiosk.ordering.lifecycle import OrderSnapshot, WayToOrder
from kiosk.ordering.modifiers import SelectionState
from tests.support.ordering_rig import Rig, cookie_order, demo_rig

pytestmark = pytest.mark.usefixtures("rig_dialect")


def lines(cart: Cart | None) -> list[tuple[str, int]]:
    assert cart is not None
    return [(i.product_id, i.quantity) for i in cart.items]


async def with_cookies(rig: Rig, quantity: int = 1, **kw: Any) -> CartStore:
    store = rig.store(**kw)
    await store.start("pickup")
    await store.add_item("prd_cookie", quantity)
    return store


def failing(client: Any, name: str, error: Exception) -> None:
    """The client's `name` fails with `error` from now on."""

    async def call(*args: Any, **kw: Any) -> Any:
        raise error

    setattr(client, name, call)


def answer_lost_once(client: Any, name: str) -> list[int]:
    """The client's `name` reaches the server, and its first answer is lost on the way back."""
    real = getattr(client, name)
    calls: list[int] = []

    async def call(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        answer = await real(*args, **kw)
        if len(calls) == 1:
            raise AmbiguousWriteError()
        return answer

    setattr(client, name, call)
    return calls


def lost_before_once(client: Any, name: str) -> list[int]:
    """The client's `name` is lost once before it reaches the server (nothing written)."""
    real = getattr(client, name)
    calls: list[int] = []

    async def call(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise AmbiguousWriteError()
        return await real(*args, **kw)

    setattr(client, name, call)
    return calls


# ------------------------------------------------------------------ resuming after a restart


@pytest.mark.parametrize(
    ("error", "kept"),
    [
        # The server says the id is not a cart id at all: nothing to come back to.
        (InvalidRequestError(status=400), False),
        # Our key failed: the cart may well be fine, the next start tries again.
        (AuthenticationError(status=401), True),
    ],
)
async def test_a_saved_cart_the_server_calls_no_cart_is_dropped_one_it_could_not_read_is_kept(
    tmp_path: Path, error: Exception, kept: bool
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        again = rig.store(cart_id_file=path)
        again.take_up(first.cart_id or "", first.cart)  # the resume file names it
        assert load_saved_cart(path) is not None
        failing(again.client, "get_cart", error)
        if kept:
            with pytest.raises(AuthenticationError):
                await again.resume(first.cart_id or "", rig.location_id)
        else:
            assert await again.resume(first.cart_id or "", rig.location_id) is None
        assert again.cart_id is None
        assert (load_saved_cart(path) is not None) is kept


async def test_a_cart_changed_elsewhere_while_resuming_is_said_as_a_conflict() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        again = rig.store()
        failing(again.client, "resume_cart", ConflictError(status=409, code="CART_CONFLICT"))
        with pytest.raises(ConflictError) as said:
            await again.resume(first.cart_id or "", rig.location_id)
        assert not isinstance(said.value, WayGoneError)


@pytest.mark.parametrize(
    "refusal",
    [
        ConflictError(status=409, code="FULFILLMENT_UNAVAILABLE"),
        InvalidRequestError(status=400, code="VALIDATION_ERROR"),
    ],
)
async def test_a_resume_refused_for_its_way_keeps_the_order_and_asks_for_another_way(
    refusal: Exception,
) -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig, 2)
        again = rig.store()
        failing(again.client, "resume_cart", refusal)
        with pytest.raises(WayGoneError):
            await again.resume(first.cart_id or "", rig.location_id)
        # The order stays as the server holds it, lines and all.
        assert again.cart_id == first.cart_id
        assert lines(again.cart) == [("prd_cookie", 2)]


async def test_a_resume_asks_for_the_orders_own_way_when_the_servers_cart_is_silent() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        again = rig.store()
        again.restore(first.cart_id or "", first.order)
        real_get, real_resume = again.client.get_cart, again.client.resume_cart
        asked: list[Any] = []

        async def silent_cart(*args: Any, **kw: Any) -> Cart:
            cart = await real_get(*args, **kw)
            return cart.model_copy(update={"fulfilment_method": None})

        async def resume_cart(location_id: str, cart_id: str, method: Any) -> Any:
            asked.append(method)
            return await real_resume(location_id, cart_id, method)

        again.client.get_cart = silent_cart  # type: ignore[method-assign]
        again.client.resume_cart = resume_cart  # type: ignore[method-assign]
        assert lines(await again.resume(first.cart_id or "", rig.location_id)) == [
            ("prd_cookie", 1)
        ]
        assert asked == ["pickup"]


# ------------------------------------------------------------------ the table, kept with the way


async def test_a_table_number_is_kept_with_the_way_to_order_and_the_cart_shown() -> None:
    async with demo_rig(WESTSIDE) as rig:
        store = rig.store()
        await store.start("table_service")
        await store.add_item("prd_cookie", 1)
        cart = await store.set_table("12")
        assert cart is not None and cart is store.cart and lines(cart) == [("prd_cookie", 1)]
        assert store.order.way == WayToOrder("table_service", table_number="12")


async def test_a_table_number_is_kept_even_when_the_servers_answer_does_not_say_the_way() -> None:
    async with demo_rig(WESTSIDE) as rig:
        store = rig.store()
        await store.start("table_service")
        real = store.client.set_table

        async def set_table(*args: Any, **kw: Any) -> Cart:
            cart = await real(*args, **kw)
            return cart.model_copy(update={"fulfilment_method": None})

        store.client.set_table = set_table  # type: ignore[method-assign]
        await store.set_table("12")
        assert store.order.way == WayToOrder("table_service", table_number="12")


async def test_a_restored_order_whose_record_lost_its_way_takes_it_from_the_servers_cart() -> None:
    async with demo_rig(WESTSIDE) as rig:
        first = rig.store()
        await first.start("table_service")
        store = rig.store()
        store.restore(first.cart_id or "", OrderSnapshot())
        await store.set_table("7")
        assert store.order.way == WayToOrder("table_service", table_number="7")


async def test_a_room_is_kept_with_the_way_to_order_and_the_cart_shown() -> None:
    async with demo_rig(WESTSIDE) as rig:
        store = rig.store()
        await store.start("room_service", room=("Okafor", "304"))
        cart = await store.set_room("Okafor", "305")
        assert cart is not None and cart is store.cart
        assert cart.room_service_info is not None and cart.room_service_info.room_number == "305"
        assert store.order.way == WayToOrder(
            "room_service", room_last_name="Okafor", room_number="305"
        )


# ------------------------------------------------------------------ the time


async def test_choosing_the_time_answers_the_cart_shown() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        cart = await store.set_order_time_asap()
        assert cart is not None and cart is store.cart and lines(cart) == [("prd_cookie", 1)]


# ------------------------------------------------------------------ an answer lost, the change made


async def test_a_removed_line_whose_answer_was_lost_is_not_removed_twice() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.add_item("prd_brownie", 1)
        assert store.cart is not None
        cookie = store.cart.items[0].id
        calls = answer_lost_once(store.client, "set_item_quantity")
        cart = await store.remove_item(cookie)
        assert lines(cart) == [("prd_brownie", 1)]
        assert len(calls) == 1


async def test_a_code_whose_answer_was_lost_is_found_applied_however_it_was_typed() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig, 2)
        calls = answer_lost_once(store.client, "apply_discount")
        cart = await store.apply_discount("  save10 ")
        assert cart is not None and cart.discount_code == "SAVE10"
        assert len(calls) == 1


async def test_an_add_repeated_after_its_outcome_was_unknown_is_not_doubled_however_written() -> (
    None
):
    async with demo_rig() as rig:
        store = rig.store(settle_reads=1)
        await cookie_order(store)
        detail = await rig.client.get_product(rig.location_id, "prd_latte")
        chosen = SelectionState.for_product(detail).select(("grp_drink_size", "opt_size_large"))
        written = chosen.to_request()
        # The same choice with every mapping's keys in the reverse order.
        same = json.loads(json.dumps(written), object_pairs_hook=lambda p: dict(reversed(p)))
        assert same == written and json.dumps(same) != json.dumps(written)
        # The add lands, its answer is lost, and the read that would confirm it fails too.
        answer_lost_once(store.client, "add_item")
        real_get = store.client.get_cart
        failing(store.client, "get_cart", ServerError(status=503))
        with pytest.raises(AmbiguousWriteError):
            await store.add_item("prd_latte", 1, written)
        store.client.get_cart = real_get  # type: ignore[method-assign]
        # The customer tries again, the same choice written in another order: checked, not sent.
        cart = await store.add_item("prd_latte", 1, same)
        assert lines(cart) == [("prd_cookie", 1), ("prd_latte", 1)]


async def test_an_add_to_a_restored_order_that_never_reached_the_server_is_sent_again() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        store = rig.store()
        # After a restart the order's cart is not read yet: the add's "before" is read first.
        store.restore(first.cart_id or "", first.order)
        calls = lost_before_once(store.client, "add_item")
        cart = await store.add_item("prd_cookie", 1)
        assert lines(cart) == [("prd_cookie", 2)]
        assert len(calls) == 2


@pytest.mark.parametrize("code", ["NOPE", "xxxx"])  # whatever the customer types
async def test_a_code_lost_before_it_reached_the_server_is_sent_again_and_its_refusal_told(
    code: str,
) -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        calls = lost_before_once(store.client, "apply_discount")
        with pytest.raises(InvalidRequestError):
            await store.apply_discount(code)
        assert len(calls) == 2
        assert store.cart is not None and store.cart.discount_code is None
