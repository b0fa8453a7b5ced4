"""More rules of the order's owner (CartStore) that the whole-module mutation run showed untested
(docs/mutation.md, issue 32 item 8): its default patience with the server, the location's other
names, the resume file following the cart, the last failure it tells. Through the store's
public methods on the embedded demo backend, on both dialects unless a rule is one dialect's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.api import (
    AmbiguousWriteError,
    Cart,
    ConflictError,
    NotFoundError,
    PaymentDeclinedError,
    RateLimitedError,
)
from kiosk.api.models import OrderProgress
from kiosk.demo.domain.states import CART_TTL
from kiosk.ordering.cart_store import CartStore, NoCartError, load_saved_cart, store_at
from kiosk.ordering.clock import LocationClock
from kiosk.ordering.lifecycle import OrderSnapshot, Phase
from tests.support.ordering_rig import (
    V1_ONLY_LOCK,
    V1_ONLY_POLL,
    V1_ONLY_VALIDATE,
    Rig,
    demo_rig,
)

pytestmark = pytest.mark.usefixtures("rig_dialect")

APPROVE = "4242 4242 4242 4242"
DECLINE = "4000 0000 0000 0002"


def lines(cart: Cart | None) -> list[tuple[str, int]]:
    assert cart is not None
    return [(i.product_id, i.quantity) for i in cart.items]


async def with_cookies(rig: Rig, quantity: int = 1, **kw: Any) -> CartStore:
    store = rig.store(**kw)
    await store.start("pickup")
    await store.add_item("prd_cookie", quantity)
    return store


def failing_first(client: Any, name: str, times: int, error: type[Exception]) -> list[int]:
    """The client's `name` fails `times` times with `error` before the real call answers."""
    real = getattr(client, name)
    calls: list[int] = []

    async def call(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) <= times:
            raise error() if error is not RateLimitedError else RateLimitedError(retry_after=1)
        return await real(*args, **kw)

    setattr(client, name, call)
    return calls


# ------------------------------------------------------------------ patience with the server


@pytest.mark.parametrize(("limited", "sent"), [(20, True), (21, False)])
async def test_a_write_held_back_by_the_rate_limit_is_waited_out_twenty_times_then_told(
    limited: int, sent: bool
) -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)  # the store's own defaults
        calls = failing_first(store.client, "set_tip", limited, RateLimitedError)
        if sent:
            await store.set_tip(percentage="18")
        else:
            with pytest.raises(RateLimitedError):
                await store.set_tip(percentage="18")
        assert len(calls) == min(limited + 1, 21)


@pytest.mark.parametrize(("lost", "sent"), [(3, True), (4, False)])
async def test_a_change_whose_answer_keeps_being_lost_is_sent_four_times_at_most(
    lost: int, sent: bool
) -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)  # the store's own defaults
        calls = failing_first(store.client, "set_tip", lost, AmbiguousWriteError)
        if sent:
            await store.set_tip(percentage="18")
        else:
            with pytest.raises(AmbiguousWriteError):
                await store.set_tip(percentage="18")
        assert len(calls) == min(lost + 1, 4)


async def test_the_store_tells_its_last_failure_until_an_operation_succeeds() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        assert store.last_error is None
        failing_first(store.client, "set_tip", 21, RateLimitedError)
        with pytest.raises(RateLimitedError) as failed:
            await store.set_tip(percentage="18")
        assert store.last_error is failed.value
        await store.refresh()
        assert store.last_error is None


# ------------------------------------------------------------------ the location's names


async def test_a_cart_kept_under_the_locations_slug_is_ours_once_its_record_is_known() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        cart_id = first.cart_id or ""
        # A store that knows the location only by its id, until the location's record arrives.
        bare = CartStore(rig.client, rig.location_id, clock=rig.clock, sleep=rig.clock.sleep)
        assert not bare.is_ours(rig.location.slug)
        bare.know_location([rig.location_id, rig.location.slug, None], None)
        assert bare.is_ours(rig.location.slug) and bare.is_ours(rig.location_id)
        cart = await bare.resume(cart_id, rig.location.slug)
        assert lines(cart) == [("prd_cookie", 1)]
        assert bare.cart_id == cart_id


async def test_a_cart_kept_under_a_name_that_is_not_the_locations_is_let_go() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        bare = CartStore(rig.client, rig.location_id, clock=rig.clock, sleep=rig.clock.sleep)
        assert await bare.resume(first.cart_id or "", rig.location.slug) is None
        assert bare.cart_id is None


# ------------------------------------------------------------------ the resume file


async def test_the_resume_file_follows_the_cart_the_server_answers(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = await with_cookies(rig, cart_id_file=path)
        other = await with_cookies(rig)
        assert other.cart is not None and other.cart_id != store.cart_id
        # The server answered with another cart (a resumed or replaced one): it is followed.
        store.publish(other.cart)
        assert store.cart_id == other.cart_id
        saved = load_saved_cart(path)
        assert saved is not None and saved.cart_id == other.cart_id


# ------------------------------------------------------------------ a restored order


async def test_a_restored_order_switched_to_another_way_shows_its_lines() -> None:
    async with demo_rig() as rig:
        first = await with_cookies(rig, 2)
        # The kiosk restarts: the order as its resume file kept it, then the way is chosen again.
        again = rig.store()
        again.restore(first.cart_id or "", OrderSnapshot())
        cart = await again.start("pickup")
        # The server's cart is read (its fees may have changed with the way), never assumed empty.
        assert lines(cart) == [("prd_cookie", 2)]
        assert lines(again.cart) == [("prd_cookie", 2)]


async def test_a_cart_the_server_says_expired_ends_the_order_and_leaves_nothing_to_resume(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = await with_cookies(rig, cart_id_file=path)
        assert load_saved_cart(path) is not None
        await rig.clock.sleep(CART_TTL.total_seconds() + 1)
        cart = await store.refresh()
        assert cart is not None and cart.is_expired
        assert store.phase is Phase.EXPIRED
        assert load_saved_cart(path) is None
        # The cart stays shown as the server holds it: its lines can be ordered again.
        assert lines(store.cart) == [("prd_cookie", 1)]


# ------------------------------------------------------------------ an order given up


async def test_a_discarded_order_leaves_no_code_to_pay_and_nothing_to_resume(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        store = await with_cookies(rig, cart_id_file=path)
        await store.begin_payment()
        assert store.payment_intent is not None and store.phase is Phase.AWAITING_PAYMENT
        assert await store.discard() is True
        assert store.payment_intent is None and store.payment.seconds_left() is None
        with pytest.raises(NoCartError):
            await store.payment.confirm_demo(APPROVE)
        assert store.cart_id is None and store.cart is None
        assert store.session_message is None
        assert store.phase is Phase.ORDERING and store.order == OrderSnapshot()
        assert load_saved_cart(path) is None


async def test_a_discarded_order_is_heard_as_cancelled_then_as_a_new_order_once_each() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        heard: list[Phase] = []
        store.subscribe_order(lambda order: heard.append(order.phase))
        await store.discard()
        assert heard == [Phase.CANCELLED, Phase.ORDERING]


async def test_a_saved_cart_the_server_no_longer_has_is_not_told_as_an_expired_order() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        heard: list[Phase] = []
        store.subscribe_order(lambda order: heard.append(order.phase))
        assert await store.resume("cart_that_never_was", rig.location_id) is None
        assert store.cart_id is None
        assert Phase.EXPIRED not in heard and store.phase is Phase.ORDERING


@pytest.mark.only_dialect(
    "v1", reason="2.0 refuses a session on an expired cart (it is discarded first)"
)
async def test_a_new_cart_after_an_expired_one_is_paid_with_a_code_of_its_own() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        old = await store.begin_payment()
        old_cart = store.cart_id
        await rig.clock.sleep(CART_TTL.total_seconds() + 1)
        await store.check_payment()
        assert store.phase is Phase.EXPIRED
        await store.start("pickup")
        # The server answered a new cart: the old code is not this order's (nothing is being
        # paid until the new cart is handed off).
        assert store.cart_id != old_cart
        assert store.payment_intent is None
        await store.add_item("prd_cookie", 1)
        intent = await store.begin_payment()
        assert intent is not old
        await store.payment.confirm_demo(APPROVE)
        await store.check_payment()
        assert store.phase is Phase.PAID


@pytest.mark.only_dialect(
    "v1", reason="2.0 refuses a session on an expired cart (it is discarded first)"
)
async def test_the_old_orders_lines_are_never_shown_under_a_new_cart() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await rig.clock.sleep(CART_TTL.total_seconds() + 1)
        await store.refresh()
        assert store.phase is Phase.EXPIRED
        shown: list[tuple[str | None, str | None]] = []
        real = store.client.get_cart

        async def get_cart(location_id: str, cart_id: str) -> Cart:
            # While the new cart is read: the cart shown is this order's, or none yet.
            shown.append((store.cart.id if store.cart else None, store.cart_id))
            return await real(location_id, cart_id)

        store.client.get_cart = get_cart  # type: ignore[method-assign]
        heard: list[Cart | None] = []
        store.subscribe(heard.append)
        await store.start("pickup")
        assert shown and all(cart in (None, cart_id) for cart, cart_id in shown)
        assert heard[0] is None and store.cart is not None and not store.cart.items


async def test_a_resumed_cart_is_kept_for_the_next_restart(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        again = rig.store(cart_id_file=path)
        assert lines(await again.resume(first.cart_id or "", rig.location_id)) == [
            ("prd_cookie", 1)
        ]
        saved = load_saved_cart(path)
        assert saved is not None and saved.cart_id == first.cart_id
        assert saved.location_id == rig.location_id


async def test_ending_a_visit_that_never_reached_its_cart_drops_the_kept_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = await with_cookies(rig)
        await first.begin_payment()
        # A restart whose server could not be asked: the cart was let go, the record restored.
        store = rig.store(cart_id_file=path)
        store.restore(first.cart_id or "", first.order)
        store.let_go()
        assert store.cart_id is None and store.phase is Phase.AWAITING_PAYMENT
        # The visit ends (idle reset): nothing to delete, and the next customer starts clean.
        assert await store.discard() is True
        assert store.order == OrderSnapshot() and store.cart is None
        assert load_saved_cart(path) is None


# ------------------------------------------------------------------ what a look said


@pytest.mark.only_dialect("v2", reason="v1 has no payment poll: its cart never says a decline")
async def test_a_declined_card_is_recorded_with_its_code_once_per_attempt() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.begin_payment()
        with pytest.raises(PaymentDeclinedError):
            await store.payment.confirm_demo(DECLINE)
        await store.check_payment()
        assert store.phase is Phase.DECLINED and store.order.failure_code
        told = store.order.failure_code
        # The same failed attempt said again: the decline stands as it was told.
        await store.check_payment()
        assert store.phase is Phase.DECLINED and store.order.failure_code == told


async def test_a_decline_said_without_a_code_is_recorded_as_failed() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.begin_payment()
        store.heard(OrderProgress("failed"))
        assert store.phase is Phase.DECLINED and store.order.failure_code == "FAILED"


async def test_after_pay_again_the_old_decline_is_not_told_twice_and_a_new_attempt_clears_it() -> (
    None
):
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.begin_payment()
        store.heard(OrderProgress("failed", failure_code="CARD_DECLINED"))
        assert store.phase is Phase.DECLINED
        # The customer tries again on the hosted page: the decline shows until the server decides.
        store.heard(OrderProgress("payment_pending"))
        assert store.phase is Phase.DECLINED and store.order.failure_code == "CARD_DECLINED"
        # "Pay again": a new code; until the new attempt starts the server may still say the old
        # one failed, and that is not a second decline.
        store.want_new_code()
        await store.payment.renew()
        assert store.phase is Phase.AWAITING_PAYMENT
        store.heard(OrderProgress("failed", failure_code="CARD_DECLINED"))
        assert store.phase is Phase.AWAITING_PAYMENT
        assert store.order.failure_code == "CARD_DECLINED"
        # The server says the new attempt is under way: the old decline is cleared.
        heard: list[str | None] = []
        store.subscribe_order(lambda order: heard.append(order.failure_code))
        store.heard(OrderProgress("payment_pending"))
        assert store.phase is Phase.AWAITING_PAYMENT and store.order.failure_code is None
        assert heard == [None]
        # Said again: nothing more is recorded.
        store.heard(OrderProgress("payment_pending"))
        assert heard == [None]
        # A decline of the new attempt is told.
        store.heard(OrderProgress("failed", failure_code="INSUFFICIENT_FUNDS"))
        assert store.phase is Phase.DECLINED
        assert store.order.failure_code == "INSUFFICIENT_FUNDS"


async def test_a_look_that_finds_the_cart_gone_tells_the_order_expired() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        # Back on the order (ORDERING) with a cart the server no longer has.
        store.take_up("cart_the_server_lost")
        heard: list[Phase] = []
        store.subscribe_order(lambda order: heard.append(order.phase))
        with pytest.raises(NotFoundError):
            await store.check_payment()
        assert Phase.EXPIRED in heard
        assert store.cart_id is None and store.phase is Phase.ORDERING


# ------------------------------------------------------------------ a store for a location


async def test_a_store_for_a_location_knows_its_id_and_slug_and_tells_time_on_its_clock() -> None:
    async with demo_rig() as rig:
        location = await rig.client.get_location(rig.location_id)
        slug = location.restaurant_slug
        assert slug and location.timezone
        for key in (location.id, slug):
            store = store_at(
                rig.client,
                key,
                location,
                clock=rig.clock,
                cart_id_file=None,
                options={"sleep": rig.clock.sleep},
            )
            assert store.is_ours(location.id) and store.is_ours(slug)
            # Time of day is the location's (New York: 11:00 at the rig's start), not UTC's.
            assert (
                store.local_clock.date_and_time()
                == LocationClock(location, rig.clock).date_and_time()
            )
            assert (
                store.local_clock.date_and_time()[1]
                != LocationClock(None, rig.clock).date_and_time()[1]
            )
        # A store for another key than the record's takes none of the record's names.
        other = store_at(
            rig.client, "loc_elsewhere", location, clock=rig.clock, cart_id_file=None, options={}
        )
        assert other.is_ours("loc_elsewhere")
        assert not other.is_ours(location.id) and not other.is_ours(slug)


@pytest.mark.only_dialect("v1", reason=V1_ONLY_LOCK)
async def test_a_cart_being_paid_for_is_refused_changes_without_asking_the_server() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.begin_payment()
        assert store.cart is not None and store.cart.is_locked
        rig.reset_counts()
        with pytest.raises(ConflictError) as refused:
            await store.add_item("prd_brownie", 1)
        assert refused.value.code == "CART_LOCKED"
        assert refused.value.message == "Your order is being paid for and can't be changed now."
        assert rig.total() == 0


async def test_the_same_way_to_order_chosen_again_records_nothing_new() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        heard: list[OrderSnapshot] = []
        store.subscribe_order(heard.append)
        await store.start("pickup")
        assert heard == []
        assert store.order.way is not None and store.order.way.method == "pickup"


async def test_a_decline_said_while_back_on_the_order_leaves_the_order_open() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        # Back on the order (a kept code): the old attempt is said to have failed.
        store.heard(OrderProgress("failed", failure_code="CARD_DECLINED"))
        assert store.phase is Phase.ORDERING and store.order.failure_code is None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_POLL)
async def test_a_cart_that_became_an_order_is_never_deleted_when_the_visit_ends() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.begin_payment()
        await store.payment.confirm_demo(APPROVE)
        # Read (the cart says COMPLETED) before any look told the order paid.
        cart = await store.refresh()
        assert cart is not None and cart.is_completed and store.phase is not Phase.PAID
        rig.transport.sent.clear()
        assert await store.discard() is True
        assert not [s for s in rig.transport.sent if s.startswith("DELETE")]


@pytest.mark.only_dialect("v1", reason=V1_ONLY_VALIDATE)
async def test_a_checkout_the_server_finds_invalid_goes_back_to_the_order() -> None:
    async with demo_rig() as rig:
        store = await with_cookies(rig)
        await store.add_item("prd_espresso", 1)
        rig.backend.set_sold_out("prd_cookie", True)
        result = await store.checkout("Ada", "ada@example.com")
        assert result.intent is None and result.unavailable
        assert store.phase is Phase.ORDERING
        # The order can be changed: the sold-out line removed.
        cart = await store.remove_item(result.unavailable[0])
        assert lines(cart) == [("prd_espresso", 1)]
