"""CartStore against the real embedded backend (kiosk.demo, in-process over httpx.ASGITransport)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from kiosk.api import (
    AmbiguousWriteError,
    Cart,
    ConflictError,
    DeliveryAddress,
    InvalidRequestError,
    NotFoundError,
    StorefrontError,
)
from kiosk.demo.data import DOWNTOWN, WESTSIDE
from kiosk.ordering.cart_store import (
    CartStore,
    NoCartError,
    StoreStatus,
    load_saved_cart,
)
from kiosk.ordering.lifecycle import OrderSnapshot, Phase, WayToOrder
from kiosk.ordering.modifiers import SelectionState
from tests.support.ordering_rig import (
    V1_ONLY_CODES,
    V1_ONLY_DELETE,
    V1_ONLY_DINE,
    V1_ONLY_EMAIL,
    V1_ONLY_FAULT,
    V1_ONLY_FILE,
    V1_ONLY_LOCK,
    V1_ONLY_RATE,
    V1_ONLY_ROUTES,
    V1_ONLY_VALIDATE,
    Rig,
    demo_rig,
)

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")

CART_ITEM = "POST /carts/{cartId}/cart-item"
GET_CART = "GET /carts/{cartId}"


def lines(cart: Cart | None) -> list[tuple[str, int]]:
    assert cart is not None
    return [(i.product_id, i.quantity) for i in cart.items]


def server_lines(rig: Rig, cart_id: str) -> list[tuple[str, int]]:
    cart = rig.server_cart(cart_id)
    assert cart is not None
    return [(i["productId"], i["quantity"]) for i in cart["items"]]


async def started(rig: Rig, **kw: Any) -> CartStore:
    store = rig.store(**kw)
    await store.start("pickup")
    rig.reset_counts()
    return store


# ---------------------------------------------------------------------------------------- basics


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_start_writes_once_and_reads_nothing(tmp_path: Path) -> None:
    async with demo_rig() as rig:
        published: list[Cart | None] = []
        store = rig.store(cart_id_file=tmp_path / "cart.json")
        store.subscribe(published.append)
        assert await store.start("pickup") is None
        assert store.cart_id is not None and re.fullmatch(r"[0-9a-f]{24}", store.cart_id)
        assert rig.requests() == {"POST /ordering-sessions": 1}
        assert rig.server_cart(store.cart_id) is not None
        # The new cart is known to be empty: the first add needs no read before it.
        cart = await store.add_item("prd_cookie", 2)
        assert lines(cart) == [("prd_cookie", 2)]
        assert rig.requests() == {"POST /ordering-sessions": 1, CART_ITEM: 1}
        assert published[-1] is cart and store.cart is cart


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_start_with_table_or_delivery_sends_the_detail_and_publishes_its_cart() -> None:
    async with demo_rig(WESTSIDE) as rig:
        store = rig.store()
        cart = await store.start("table_service", table_number="12")
        assert cart is not None and cart.table_service_info is not None
        assert cart.table_service_info.table_number == "12"
        assert rig.requests() == {"POST /ordering-sessions": 1, "PUT /carts/{cartId}/set-table": 1}
        room = await rig.store().start("room_service", room=("Okafor", "304"))
        assert room is not None and room.room_service_info is not None
        assert room.room_service_info.room_number == "304"
    async with demo_rig(DOWNTOWN) as rig:
        address = DeliveryAddress(
            street="1 Wall St", city="New York", state="NY", zip_code="10005", country="US"
        )
        cart = await rig.store().start("delivery", delivery=address)
        assert cart is not None and cart.delivery_info is not None
        assert "1 Wall St" in (cart.delivery_info.address_string or "")


@pytest.mark.only_dialect("v1", reason=V1_ONLY_DINE)
async def test_starting_again_switches_the_open_carts_method_and_keeps_its_lines() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        first = store.cart_id
        cart = await store.start("dine_in")
        assert store.cart_id == first
        assert cart is not None and str(cart.fulfilment_method) == "dine_in"
        assert lines(cart) == [("prd_cookie", 1)]


async def test_operations_before_a_session_raise_no_cart() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        statuses: list[StoreStatus] = []
        store.subscribe_status(statuses.append)
        with pytest.raises(NoCartError):
            await store.add_item("prd_cookie", 1)
        assert rig.total() == 0
        assert str(statuses[-1]).startswith("error: ")
        assert await store.refresh() is None


# --------------------------------------------------------------------- refresh after each write


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_each_write_refreshes_the_cart_and_reads_only_when_it_must() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        seen: list[Cart | None] = []
        store.subscribe(seen.append)

        async def step(coro: Any) -> dict[str, int]:
            before = rig.requests()
            await coro
            after = rig.requests()
            return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}

        assert await step(store.add_item("prd_orange_juice", 1)) == {CART_ITEM: 1}
        item_id = store.cart.items[0].id  # type: ignore[union-attr]
        assert await step(store.set_quantity(item_id, 3)) == {
            "PATCH /carts/{cartId}/cart-item/{itemId}/quantity": 1
        }
        assert lines(store.cart) == [("prd_orange_juice", 3)]
        assert await step(store.set_tip("18")) == {"PUT /carts/{cartId}/gratuity": 1}
        assert store.cart is not None and store.cart.waiter_tip_total > 0
        # Writes that return no cart are followed by exactly one read.
        assert await step(store.apply_discount("save10")) == {
            "POST /discounts/apply-discount": 1,
            GET_CART: 1,
        }
        assert store.cart is not None and store.cart.discount_code == "SAVE10"
        assert store.cart.discount_total > 0
        slot = (await rig.client.get_time_intervals(rig.location_id)).order_days[1]
        assert await step(store.set_order_time_later(slot.value, slot.intervals[2])) == {
            "PUT /carts/{cartId}/update-order-time": 1,
            GET_CART: 1,
        }
        assert store.cart.order_time == slot.intervals[2]  # type: ignore[union-attr]
        assert store.cart.pickup_type == "LATER"  # type: ignore[union-attr]
        assert await step(store.set_customer("Ada", "ada@example.com")) == {
            "PUT /cart/{cartId}/validate-and-update": 1,
            GET_CART: 1,
        }
        assert await step(store.remove_discount()) == {"DELETE /carts/{cartId}/discount": 1}
        assert store.cart is not None and store.cart.discount_code is None
        assert await step(store.set_no_tip()) == {"PUT /carts/{cartId}/gratuity": 1}
        assert store.cart is not None and store.cart.waiter_tip_total == 0
        assert await step(store.remove_item(item_id)) == {
            "PATCH /carts/{cartId}/cart-item/{itemId}/quantity": 1
        }
        assert store.cart is not None and store.cart.items == []
        # Every write published the server's cart, in order, and no widget copy was needed.
        assert len(seen) == 9 and seen[-1] is store.cart


async def test_no_tip_works_where_only_percentages_are_taken() -> None:
    async with demo_rig(WESTSIDE) as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        await store.set_tip("15")
        assert store.cart is not None and store.cart.waiter_tip_total > 0
        await store.set_no_tip()
        assert store.cart is not None and store.cart.waiter_tip_total == 0
        with pytest.raises(InvalidRequestError):
            await store.set_tip(amount_minor=300)  # Westside: percentages only


async def test_modifier_selection_state_goes_to_the_server_as_the_contract_shape() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        detail = await rig.client.get_product(rig.location_id, "prd_latte")
        state = SelectionState.for_product(detail)
        state = state.select(("grp_drink_size", "opt_size_large"))
        state = state.set_quantity(("grp_extra_shots", "opt_shot_extra"), 2)
        assert state.is_valid
        cart = await store.add_item("prd_latte", 1, state)
        assert cart is not None
        line = cart.items[0]
        # The server's unit price equals the kiosk's preview for the same choice.
        assert line.price == state.preview_unit_price_minor()
        assert line.selections


@pytest.mark.only_dialect("v1", reason=V1_ONLY_CODES)
async def test_a_refused_write_raises_the_typed_error_and_keeps_the_cart() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        cart = await store.add_item("prd_cookie", 1)
        statuses: list[str] = []
        store.subscribe_status(lambda s: statuses.append(str(s)))
        rig.reset_counts()
        with pytest.raises(InvalidRequestError) as refused:
            await store.add_item("prd_no_such_thing", 1)
        assert refused.value.has_code("INVALID_PRODUCT")
        with pytest.raises(InvalidRequestError) as bad_code:
            await store.apply_discount("NOPE")
        assert bad_code.value.has_code("INVALID_DISCOUNT_CODE")
        # Refusals change nothing on the server: no re-read, the cart object is the same one.
        assert rig.requests() == {CART_ITEM: 1, "POST /discounts/apply-discount": 1}
        assert store.cart is cart
        assert statuses[-1].startswith("error: ") and store.status.kind == "error"
        await store.add_item("prd_cookie", 1)
        assert store.status == StoreStatus() and store.last_error is None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_LOCK)
async def test_a_locked_cart_refuses_changes_without_asking_the_server() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        intent = await store.begin_payment()
        assert store.cart is not None and store.cart.is_locked
        assert store.cart.checkout_url and intent.payment_intent_id in store.cart.checkout_url
        rig.reset_counts()
        with pytest.raises(ConflictError) as locked:
            await store.add_item("prd_cookie", 1)
        assert locked.value.has_code("CART_LOCKED")
        assert rig.total() == 0
        # Asking for the payment again reuses the intent (a retry after a decline).
        assert await store.begin_payment() is intent
        assert rig.total() == 0


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_a_conflict_from_the_server_re_reads_the_cart() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        # Another party locks the cart behind the store's back.
        await rig.client.create_payment_intent(rig.location_id, store.cart_id or "")
        rig.reset_counts()
        with pytest.raises(ConflictError):
            await store.add_item("prd_cookie", 1)
        assert rig.requests() == {CART_ITEM: 1, GET_CART: 1}
        assert store.cart is not None and store.cart.is_locked


# -------------------------------------------------------------------------------- serialisation


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_concurrent_adds_are_serialised_in_call_order_and_none_is_lost() -> None:
    products = [
        "prd_cookie",
        "prd_brownie",
        "prd_orange_juice",
        "prd_hummus",
        "prd_mixed_nuts",
        "prd_cheesecake",
        "prd_banana_bread",
        "prd_espresso",
    ]
    async with demo_rig() as rig:
        store = await started(rig)
        published: list[int] = []
        store.subscribe(lambda c: published.append(len(c.items) if c else -1))
        results = await asyncio.gather(*(store.add_item(p, 1) for p in products))
        assert rig.transport.max_in_flight == 1  # never two writes on the wire at once
        assert [pid for pid, _ in server_lines(rig, store.cart_id or "")] == products
        assert lines(store.cart) == [(p, 1) for p in products]
        # Each call got the cart as it stood right after its own write.
        assert [len(c.items) for c in results if c is not None] == list(range(1, 9))
        assert published == list(range(1, 9))
        assert rig.requests() == {CART_ITEM: len(products)}


async def test_mixed_concurrent_writes_keep_their_order() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        item = store.cart.items[0].id  # type: ignore[union-attr]
        await asyncio.gather(
            store.set_quantity(item, 5),
            store.add_item("prd_brownie", 1),
            store.set_quantity(item, 2),
            store.set_tip("20"),
        )
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 2), ("prd_brownie", 1)]
        assert lines(store.cart) == [("prd_cookie", 2), ("prd_brownie", 1)]
        assert store.cart is not None and store.cart.fees.tip_rate is not None


# ------------------------------------------------------------------------- no double writes


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_an_add_committed_but_unanswered_is_not_sent_again() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        rig.reset_counts()
        rig.faults(drop_after_commit_rate=1.0)  # the demo backend's own fault
        cart = await store.add_item("prd_cookie", 2)
        rig.faults(drop_after_commit_rate=0.0)
        # One POST (committed, its answer lost), one GET that shows it landed, no second POST.
        assert rig.requests() == {CART_ITEM: 1, GET_CART: 1}
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 3)]
        assert lines(cart) == [("prd_cookie", 3)] and store.cart is cart


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_an_add_that_never_arrived_is_sent_again_once() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_brownie", 1)
        rig.reset_counts()
        # The connection drops after the request went out but before the server saw it: to the
        # client this looks exactly like the case above (outcome unknown).
        rig.transport.fail_next("POST", "/cart-item", when="before")
        cart = await store.add_item("prd_cookie", 1)
        assert rig.requests() == {CART_ITEM: 1, GET_CART: 1}  # the lost one never counted
        assert server_lines(rig, store.cart_id or "") == [("prd_brownie", 1), ("prd_cookie", 1)]
        assert lines(cart) == [("prd_brownie", 1), ("prd_cookie", 1)]


async def test_a_first_add_with_an_unknown_outcome_compares_against_the_empty_cart() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        rig.transport.fail_next("POST", "/cart-item", when="after")
        cart = await store.add_item("prd_cookie", 1)
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 1)]
        assert lines(cart) == [("prd_cookie", 1)]


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_quantity_change_discount_and_payment_with_unknown_outcomes_apply_once() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        item = store.cart.items[0].id  # type: ignore[union-attr]
        rig.transport.fail_next("PATCH", "/quantity", when="after")
        await store.set_quantity(item, 4)
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 4)]
        rig.transport.fail_next("POST", "/apply-discount", when="after")
        await store.apply_discount("SAVE10")
        assert store.cart is not None and store.cart.discount_code == "SAVE10"
        rig.transport.fail_next("PUT", "/gratuity", when="after")  # a "set": simply repeated
        await store.set_tip("15")
        assert store.cart is not None and store.cart.fees.tip_rate is not None
        rig.transport.fail_next("POST", "/payment-intent", when="after")
        intent = await store.begin_payment()
        assert intent.client_secret.get_secret_value()
        assert store.cart is not None and store.cart.is_locked
        assert rig.backend.intent_by_id(intent.payment_intent_id) is not None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_when_even_the_re_read_fails_the_error_says_the_outcome_is_unknown() -> None:
    async with demo_rig(client_kw={"retry": None}) as rig:
        # One settling read (the store would read again, counting down: tests/unit/
        # test_write_in_doubt.py): here it fails too.
        store = await started(rig, settle_reads=1)
        await store.add_item("prd_cookie", 1)
        before = store.cart
        rig.transport.fail_next("POST", "/cart-item", when="after")
        for _ in range(4):  # the GET is a read: the client retries it, so fail every attempt
            rig.transport.fail_next("GET", f"/carts/{store.cart_id}", when="before")
        with pytest.raises(AmbiguousWriteError) as unsure:
            await store.add_item("prd_cookie", 1)
        assert store.cart is before  # the cart is not lost by an error
        # Nothing was reloaded, and the screen must not say it was (issue 13).
        assert unsure.value.details["reloaded"] is False
        from kiosk.tui.errors import describe

        assert "reloaded" not in describe(unsure.value).hint
        assert "check your order before trying again" in describe(unsure.value).hint
        assert await store.refresh() is not None
        assert lines(store.cart) == [("prd_cookie", 2)]


async def _add_unconfirmed(rig: Rig, store: CartStore, product_id: str) -> None:
    """An add that lands but whose answer is lost, and whose confirming re-read fails too."""
    rig.transport.fail_next("POST", "/cart-item", when="after")
    for _ in range(4):
        rig.transport.fail_next("GET", f"/carts/{store.cart_id}", when="before")
    with pytest.raises(AmbiguousWriteError):
        await store.add_item(product_id, 1)


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_repeating_an_unconfirmed_add_checks_first_and_does_not_double() -> None:
    async with demo_rig(client_kw={"retry": None}) as rig:
        # One settling read (the store would read again, counting down: tests/unit/
        # test_write_in_doubt.py): here it fails too.
        store = await started(rig, settle_reads=1)
        await store.add_item("prd_cookie", 1)
        await _add_unconfirmed(rig, store, "prd_cookie")
        rig.reset_counts()
        # The customer presses "try again": the store re-reads, sees the add landed, sends nothing.
        cart = await store.add_item("prd_cookie", 1)
        assert rig.requests() == {GET_CART: 1}
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 2)]
        assert lines(cart) == [("prd_cookie", 2)]
        # Only that one repeat is absorbed: a further add is a real add.
        await store.add_item("prd_cookie", 1)
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 3)]


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_an_unconfirmed_add_that_did_not_land_is_sent_when_repeated() -> None:
    async with demo_rig(client_kw={"retry": None}) as rig:
        # One settling read (the store would read again, counting down: tests/unit/
        # test_write_in_doubt.py): here it fails too.
        store = await started(rig, settle_reads=1)
        rig.transport.fail_next("POST", "/cart-item", when="before")  # never reached the server
        for _ in range(4):
            rig.transport.fail_next("GET", f"/carts/{store.cart_id}", when="before")
        with pytest.raises(AmbiguousWriteError):
            await store.add_item("prd_cookie", 1)
        cart = await store.add_item("prd_cookie", 1)
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 1)]
        assert lines(cart) == [("prd_cookie", 1)]


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_a_different_add_after_an_unconfirmed_one_is_sent() -> None:
    async with demo_rig(client_kw={"retry": None}) as rig:
        # One settling read (the store would read again, counting down: tests/unit/
        # test_write_in_doubt.py): here it fails too.
        store = await started(rig, settle_reads=1)
        await _add_unconfirmed(rig, store, "prd_cookie")
        await store.add_item("prd_brownie", 1)
        assert server_lines(rig, store.cart_id or "") == [("prd_cookie", 1), ("prd_brownie", 1)]


# ---------------------------------------------------------------------------------- rate limits


@pytest.mark.only_dialect("v1", reason=V1_ONLY_RATE)
async def test_a_429_is_waited_out_with_a_countdown_then_the_write_goes_through() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        statuses: list[str] = []
        store.subscribe_status(lambda s: statuses.append(str(s)))
        # Longer than the client will sleep by itself (max_wait 30 s): the store waits it out.
        rig.faults(burst_429=1, burst_retry_after_s=45)
        t0 = rig.clock()
        cart = await store.add_item("prd_cookie", 1)
        assert lines(cart) == [("prd_cookie", 1)]
        assert rig.clock() - t0 == pytest.approx(45)
        waits = [s for s in statuses if s.startswith("waiting")]
        assert waits[0] == "waiting for rate limit: 45 s"
        assert waits[-1] == "waiting for rate limit: 1 s"
        assert len(waits) == 45
        assert not any(s.startswith("error") for s in statuses)
        assert statuses[-1] == ""  # idle
        assert rig.requests() == {CART_ITEM: 2}  # the refused one and the one that went through


@pytest.mark.only_dialect("v1", reason=V1_ONLY_RATE)
async def test_the_real_limiter_runs_out_and_the_order_resumes_after_the_reset() -> None:
    async with demo_rig(rate_limit=5, rate_window=120.0) as rig:
        store = rig.store()
        await store.start("pickup")  # request 1 of 5
        products = ["prd_cookie", "prd_brownie", "prd_hummus", "prd_mixed_nuts", "prd_espresso"]
        t0 = rig.clock()
        for product in products:
            await store.add_item(product, 1)
        assert lines(store.cart) == [(p, 1) for p in products]
        # Four adds fit the window; the fifth waited for its reset (two minutes).
        assert rig.clock() - t0 >= 119
        assert store.status.kind == "idle"
        assert rig.requests()["POST /carts/{cartId}/cart-item"] <= 7


@pytest.mark.only_dialect("v1", reason=V1_ONLY_RATE)
async def test_an_empty_budget_is_waited_for_before_sending() -> None:
    async with demo_rig(rate_limit=3, rate_window=60.0) as rig:
        store = rig.store()
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        await store.add_item("prd_cookie", 1)
        assert rig.client.rate_budget.remaining == 0
        rig.reset_counts()
        await store.add_item("prd_cookie", 1)
        # The store knew the budget was spent and waited: no 429 was spent on the way.
        assert rig.backend.stats.as_dict()["byStatus"] == {"200": 1}
        assert lines(store.cart) == [("prd_cookie", 3)]


# ------------------------------------------------------------------------------- crash resume


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FILE)
async def test_the_cart_id_file_lives_from_start_to_completion(tmp_path: Path) -> None:
    path = tmp_path / "state" / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        await store.start("pickup")
        saved = load_saved_cart(path)
        assert saved is not None and saved.cart_id == store.cart_id
        assert saved.location_id == rig.location_id
        assert json.loads(path.read_text()) == {
            "cartId": store.cart_id,
            "locationId": rig.location_id,
            # The order's lifecycle (kiosk.ordering.lifecycle): a new cart is being ordered, for
            # pickup (the way a restart asks the server for).
            "order": OrderSnapshot(way=WayToOrder("pickup")).to_json(),
        }
        assert [p.name for p in path.parent.iterdir()] == ["cart.json"]  # no temp file left
        await store.add_item("prd_cookie", 2)

        # The kiosk dies here. A new process, a new client and store, the same file.
        client2 = rig.new_client()
        store2 = CartStore(
            client2, rig.location_id, clock=rig.clock, sleep=rig.clock.sleep, cart_id_file=path
        )
        rig.reset_counts()
        saved = load_saved_cart(path)
        assert saved is not None
        store2.restore(saved.cart_id, saved.order)
        cart = await store2.resume(saved.cart_id, saved.location_id)
        assert cart is not None and lines(cart) == [("prd_cookie", 2)]
        assert store2.cart_id == saved.cart_id
        assert rig.requests() == {GET_CART: 1, "POST /carts": 1}
        assert load_saved_cart(path) == saved

        intent = await store2.begin_payment()
        assert path.exists()  # locked, not yet paid: still worth resuming
        await client2.confirm_demo_payment(intent.client_secret, "4242 4242 4242 4242")
        done = await store2.poll()
        assert done is not None and done.is_completed and done.fulfillment_identifier
        # Paid: the file keeps the order's number until the visit ends (a crash on the done
        # screen shows the number again), then it goes.
        saved_paid = load_saved_cart(path)
        assert saved_paid is not None and saved_paid.order.phase is Phase.PAID
        assert saved_paid.order.order_number == done.fulfillment_identifier  # v1: its number
        await store2.discard()
        assert not path.exists()
        await client2.aclose()

        # A completed cart is not resumed.
        store3 = rig.store(cart_id_file=path)
        assert await store3.resume(saved.cart_id, saved.location_id) is None
        assert store3.cart_id is None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_LOCK)
async def test_a_crash_mid_payment_resumes_the_locked_cart_for_polling(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        await store.begin_payment()
        rig.reset_counts()
        again = rig.store(cart_id_file=path)
        saved = load_saved_cart(path)
        assert saved is not None
        cart = await again.resume(saved.cart_id, saved.location_id)
        assert cart is not None and cart.is_locked and cart.checkout_url
        assert rig.requests() == {GET_CART: 1}  # no create-or-resume on a locked cart


@pytest.mark.only_dialect("v1", reason=V1_ONLY_DELETE)
async def test_discard_deletes_the_server_cart_and_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        published: list[Cart | None] = []
        store.subscribe(published.append)
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        cart_id = store.cart_id or ""
        assert await store.discard() is True
        assert rig.server_cart(cart_id) is None
        assert not path.exists()
        assert store.cart_id is None and store.cart is None and published[-1] is None
        # A deleted cart is forgotten on resume (one read, no new cart made).
        rig.reset_counts()
        _ = path.write_text(json.dumps({"cartId": cart_id, "locationId": rig.location_id}))
        assert await rig.store(cart_id_file=path).resume(cart_id, rig.location_id) is None
        assert not path.exists()
        assert rig.requests() == {GET_CART: 1}


async def test_discard_after_completion_sends_nothing() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        intent = await store.begin_payment()
        await rig.client.confirm_demo_payment(intent.client_secret, "4242424242424242")
        await store.poll()
        rig.reset_counts()
        assert await store.discard() is True
        assert rig.total() == 0


async def test_forgetting_a_cart_whose_file_is_already_gone_warns_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with demo_rig() as rig:
        store = await started(rig, cart_id_file=tmp_path / "open-cart.json")
        (tmp_path / "open-cart.json").unlink()
        with caplog.at_level(logging.WARNING, logger="kiosk.ordering"):
            assert await store.discard() is True
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_cart_of_another_location_is_not_resumed(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig(WESTSIDE) as west:
        other = west.store()
        await other.start("pickup")
        west_cart = other.cart_id or ""
    async with demo_rig(DOWNTOWN) as rig:
        path.write_text(json.dumps({"cartId": west_cart, "locationId": WESTSIDE.id}))
        store = rig.store(cart_id_file=path)
        assert await store.resume(west_cart, WESTSIDE.id) is None
        assert rig.total() == 0 and not path.exists()
        # Same file claiming our location, but the id is unknown here: one read, forgotten.
        path.write_text(json.dumps({"cartId": "cart_elsewhere", "locationId": DOWNTOWN.id}))
        assert await store.resume("cart_elsewhere", DOWNTOWN.id) is None
        assert not path.exists()


async def test_a_resume_that_cannot_reach_the_server_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        saved = load_saved_cart(path)
        assert saved is not None
        again = rig.store(cart_id_file=path)
        rig.faults(error_rate=1.0)
        with pytest.raises(StorefrontError):
            await again.resume(saved.cart_id, saved.location_id)
        assert again.cart_id is None and load_saved_cart(path) == saved
        rig.faults(error_rate=0.0)
        cart = await again.resume(saved.cart_id, saved.location_id)
        assert cart is not None and lines(cart) == [("prd_cookie", 1)]


async def test_an_unreadable_cart_id_file_is_no_saved_cart(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    assert load_saved_cart(None) is None
    assert load_saved_cart(path) is None
    path.write_text("{not json")
    assert load_saved_cart(path) is None
    path.write_text(json.dumps(["cart_1"]))
    assert load_saved_cart(path) is None
    path.write_text(json.dumps({"cartId": "", "locationId": "x"}))
    assert load_saved_cart(path) is None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_DELETE)
async def test_a_cart_gone_on_the_server_is_forgotten_on_refresh(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = rig.store(cart_id_file=path)
        await store.start("pickup")
        await rig.client.delete_cart(rig.location_id, store.cart_id or "")
        with pytest.raises(NotFoundError):
            await store.refresh()
        assert store.cart_id is None and not path.exists()


# ----------------------------------------------------------------------------------- checkout


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_checkout_sends_details_validates_pays_and_reads_once() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        rig.reset_counts()
        result = await store.checkout("Ada Lovelace", "ada@example.com")
        assert result.validation.valid and result.intent is not None
        assert rig.requests() == {
            "PUT /cart/{cartId}/validate-and-update": 1,
            "POST /carts/{cartId}/validate": 1,
            "POST /carts/{cartId}/payment-intent": 1,
            GET_CART: 1,
        }
        assert store.cart is not None and store.cart.is_locked and store.cart.checkout_url
        assert store.payment_intent is result.intent
        secret = result.intent.client_secret.get_secret_value()
        assert secret not in repr(result.intent) and secret not in repr(store)


@pytest.mark.only_dialect("v1", reason=V1_ONLY_EMAIL)
async def test_checkout_with_a_bad_email_stops_at_the_field() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        rig.reset_counts()
        with pytest.raises(InvalidRequestError) as refused:
            await store.checkout("Ada", "not-an-email")
        assert refused.value.field == "emailAddress"
        assert rig.requests() == {"PUT /cart/{cartId}/validate-and-update": 1}
        assert store.cart is not None and not store.cart.is_locked


@pytest.mark.only_dialect("v1", reason=V1_ONLY_VALIDATE)
async def test_checkout_of_a_cart_with_a_sold_out_line_reports_it_and_does_not_lock() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        await store.add_item("prd_cookie", 1)
        rig.backend.set_sold_out("prd_cookie", True)
        result = await store.checkout("Ada", "ada@example.com")
        assert not result.validation.valid and result.intent is None
        assert result.validation.errors[0].item_id == store.cart.items[0].id  # type: ignore[union-attr]
        assert store.cart is not None and not store.cart.is_locked
        assert (await store.validate()).valid is False


# ------------------------------------------------------------------------------ subscriptions


async def test_unsubscribe_and_a_failing_listener_do_not_break_the_store() -> None:
    async with demo_rig() as rig:
        store = await started(rig)
        seen: list[Cart | None] = []

        def broken(_: Cart | None) -> None:
            raise RuntimeError("a widget bug")

        store.subscribe(broken)
        unsubscribe = store.subscribe(seen.append)
        await store.add_item("prd_cookie", 1)
        unsubscribe()
        unsubscribe()  # twice is harmless
        await store.add_item("prd_cookie", 1)
        assert len(seen) == 1
        assert lines(store.cart) == [("prd_cookie", 2)]
