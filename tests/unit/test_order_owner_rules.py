"""Rules of the order's owner side (CartStore and its edits, hand-off and payment wait) that the
mutation sample showed untested (docs/mutation.md, issue 32 item 8). Through the store's public
methods on the embedded demo backend, on both dialects unless a rule is one dialect's."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from kiosk.api import AmbiguousWriteError, Cart, DeliveryAddress
from kiosk.api.models import OrderProgress
from kiosk.demo.domain.states import CART_TTL
from kiosk.ordering.cart_edits import CartEdits
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.cart_writer import CartWriter, NoCartError
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.payment import PaymentOutcome, PaymentSession, PollSchedule, watch_kept_handoff
from kiosk.ordering.visit import Visit
from tests.support.ordering_rig import V1_ONLY_COORDS, Rig, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")

V2_ONLY_EXPIRY = "a 2.0 hand-off stops working at its expiresAt; v1's payment intent has none"
APPROVE = "4242 4242 4242 4242"


def lines(cart: Cart | None) -> list[tuple[str, int]]:
    assert cart is not None
    return [(i.product_id, i.quantity) for i in cart.items]


def server_lines(rig: Rig, cart_id: str | None) -> list[tuple[str, int]]:
    cart = rig.server_cart(cart_id or "")
    assert cart is not None
    return [(i["productId"], i["quantity"]) for i in cart["items"]]


def _cart_path(rig: Rig, store: CartStore) -> str:
    """The path of the store's cart (the GET that reads it), in the rig's dialect."""
    base = "/api/v1" if rig.dialect == "v1" else "/api/v1/storefront"
    return f"{base}/locations/{rig.location_id}/carts/{store.cart_id}"


def lose_first_answer(client: Any, name: str, *, reached: bool) -> list[int]:
    """The client's `name` write loses its first answer (AmbiguousWriteError), after the server
    made it (`reached`) or before it got there; later sends are the real client's. Returns the
    sends, counted."""
    real = getattr(client, name)
    calls: list[int] = []

    async def first_answer_lost(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) > 1:
            return await real(*args, **kw)
        if reached:
            await real(*args, **kw)
        raise AmbiguousWriteError(endpoint=name)

    setattr(client, name, first_answer_lost)
    return calls


async def with_cookies(rig: Rig, quantity: int, **kw: Any) -> tuple[CartStore, str]:
    store = rig.store(**kw)
    await store.start("pickup")
    cart = await store.add_item("prd_cookie", quantity)
    assert cart is not None
    return store, cart.items[0].id


# ------------------------------------------------------------------------------------ lines


async def test_removing_a_line_takes_it_off_the_order() -> None:
    async with demo_rig() as rig:
        store, item = await with_cookies(rig, 2)
        await store.add_item("prd_brownie", 1)
        cart = await store.remove_item(item)
        assert lines(cart) == [("prd_brownie", 1)]
        assert server_lines(rig, store.cart_id) == [("prd_brownie", 1)]


@pytest.mark.parametrize("reached", [False, True])
async def test_a_quantity_change_with_its_answer_lost_is_made_once(reached: bool) -> None:
    async with demo_rig() as rig:
        store, item = await with_cookies(rig, 1)
        calls = lose_first_answer(store.client, "set_item_quantity", reached=reached)
        cart = await store.set_quantity(item, 3)
        assert server_lines(rig, store.cart_id) == [("prd_cookie", 3)]
        assert lines(cart) == [("prd_cookie", 3)]
        # Landed: the re-read shows it, nothing is sent again; lost: the re-read shows one
        # cookie still, and the change goes once more.
        assert len(calls) == (1 if reached else 2)


# ----------------------------------------------------------------------------- the discount


@pytest.mark.parametrize("reached", [False, True])
async def test_removing_the_code_with_its_answer_lost_ends_without_the_code(
    reached: bool,
) -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 2)
        await store.apply_discount("SAVE10")
        assert store.cart is not None and store.cart.discount_code
        calls = lose_first_answer(store.client, "remove_discount", reached=reached)
        cart = await store.remove_discount()
        assert cart is not None and not cart.discount_code
        assert store.cart is not None and not store.cart.discount_code
        server = rig.server_cart(store.cart_id or "")
        assert server is not None and not server.get("discountCode")
        assert len(calls) == (1 if reached else 2)


# ------------------------------------------------------------------------ the way to order


@pytest.mark.only_dialect("v1", reason=V1_ONLY_COORDS)
async def test_a_new_delivery_address_is_sent_and_its_cart_answered() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        first = DeliveryAddress(
            street="1 Wall St", city="New York", state="NY", zip_code="10005", country="US"
        )
        await store.start("delivery", delivery=first)
        moved = DeliveryAddress(
            street="2 Broad St", city="New York", state="NY", zip_code="10004", country="US"
        )
        cart = await store.set_delivery(moved)
        assert cart is not None and cart.delivery_info is not None
        assert "2 Broad St" in (cart.delivery_info.address_string or "")
        assert store.order.way is not None and store.order.way.method == "delivery"


async def test_a_resume_answered_with_another_cart_leaves_no_stray_cart_on_the_server() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        old = store.cart_id or ""
        made: list[str] = []

        async def another_cart(location_id: str, cart_id: str, method: Any) -> str:
            session = await rig.client.start_ordering_session(location_id, "pickup")
            made.append(session.cart_id)
            return session.cart_id

        again = rig.store()
        again.client.resume_cart = another_cart  # type: ignore[method-assign]
        assert await again.resume(old, rig.location_id) is None
        assert again.cart_id is None
        assert len(made) == 1 and made[0] != old
        stray = rig.server_cart(made[0])
        # v1 deletes the cart; 2.0's DELETE ends it (the server still answers it, expired).
        assert stray is None or stray["status"] == "EXPIRED", stray


# --------------------------------------------------------------------------------- paying


async def test_going_back_from_paying_reopens_the_order() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        result = await store.checkout("Ana", "ana@example.com")
        assert result.intent is not None and store.phase is Phase.AWAITING_PAYMENT
        store.back_to_order()
        assert store.phase is Phase.ORDERING


@pytest.mark.only_dialect("v2", reason=V2_ONLY_EXPIRY)
@pytest.mark.parametrize(("before_expiry", "reused"), [(0.5, True), (0.0, False)])
async def test_paying_again_reuses_the_hand_off_until_it_stops_working(
    before_expiry: float, reused: bool
) -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        result = await store.checkout("Ana", "ana@example.com")
        first = result.intent
        assert first is not None and first.expires_at is not None
        await rig.clock.sleep(first.expires_at.timestamp() - before_expiry - rig.clock())
        again = await store.begin_payment()
        assert (again is first) is reused
        if not reused:
            assert again.expires_at is not None and again.expires_at > first.expires_at


async def test_a_renewed_hand_off_puts_its_new_page_on_the_cart_shown() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.checkout("Ana", "ana@example.com")
        first = store.cart.checkout_url if store.cart else None
        assert first
        # The demo answers the same page again; the vendor's 2.0 server opens a new page for
        # each hand-off (tests/conformance/vendor_server.py checkout_handoff): as that one.
        real = store.client.create_payment_intent

        async def new_page(location_id: str, cart_id: str) -> Any:
            intent = await real(location_id, cart_id)
            return intent.model_copy(update={"checkout_url": f"{intent.checkout_url}-renewed"})

        store.client.create_payment_intent = new_page  # type: ignore[method-assign]
        renewed = await store.payment.renew()
        assert renewed.checkout_url == f"{first}-renewed"
        assert store.cart is not None and store.cart.checkout_url == renewed.checkout_url
        assert store.order.checkout_url == renewed.checkout_url


async def test_the_edits_remove_a_line_by_setting_it_to_none() -> None:
    async with demo_rig() as rig:
        store, item = await with_cookies(rig, 2)
        await store.add_item("prd_brownie", 1)
        # CartEdits on its own door (the store's remove_item goes through it too).
        edits = CartEdits(
            store,
            CartWriter(store, rig.client, rig.location_id, clock=rig.clock, sleep=rig.clock.sleep),
        )
        cart = await edits.remove_item(item)
        assert lines(cart) == [("prd_brownie", 1)]
        assert server_lines(rig, store.cart_id) == [("prd_brownie", 1)]


async def test_i_have_paid_answers_where_the_payment_stands() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        assert await visit.check_payment() is Phase.AWAITING_PAYMENT
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID


async def test_while_the_order_is_being_placed_the_next_look_comes_sooner() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.begin_payment()
        looked: list[float] = []
        cancel = asyncio.Event()

        async def placing() -> OrderProgress:
            looked.append(rig.clock())
            if len(looked) == 3:
                cancel.set()
            # Paid; the server is placing the order (2.0 order-result "order_pending").
            return OrderProgress("order_pending")

        store.check_payment = placing  # type: ignore[method-assign]
        session = PaymentSession(store, timeout=300, schedule=PollSchedule(intervals=(5.0,)))
        result = await session.run(cancel=cancel)
        assert result.outcome is PaymentOutcome.CANCELLED
        assert [b - a for a, b in itertools.pairwise(looked)] == [1.0, 1.0]


@pytest.mark.only_dialect("v2", reason=V2_ONLY_EXPIRY)
async def test_a_kept_code_is_watched_to_its_last_second() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        result = await store.checkout("Ana", "ana@example.com")
        intent = result.intent
        assert intent is not None and intent.expires_at is not None
        store.back_to_order()
        # Half a second before the kept code stops working, the customer pays with it.
        await rig.clock.sleep(intent.expires_at.timestamp() - 0.5 - rig.clock())
        await rig.client.confirm_demo_payment(intent.client_secret, APPROVE)
        looks = 0

        async def look() -> OrderProgress | None:
            nonlocal looks
            looks += 1
            return await store.check_payment()

        phase = await watch_kept_handoff(store, look, every=10, wall_clock=rig.clock)
        assert looks == 1
        assert phase is Phase.PAID


async def test_a_restart_mid_payment_shows_the_same_code_and_pays_with_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        first = await visit.begin_payment()
        shown = visit.state.cart.checkout_url if visit.state.cart else None
        assert shown
        await visit.quit()
        # The kiosk restarts: a new client that knows nothing but the resume file.
        client = rig.new_client()
        again = Visit(
            lambda _location_id: client,
            [rig.location_id],
            wall_clock=rig.clock,
            cart_id_file=path,
            store_options={"sleep": rig.clock.sleep},
        )
        assert (await again.resume_saved()).kind == "locked"
        assert again.state.cart is not None and again.state.cart.checkout_url == shown
        rig.reset_counts()
        intent = await again.begin_payment()
        # The same hand-off: 2.0 kept it in the resume file and asks for no new page while the
        # shown one works; v1 asks the locked cart's own intent again (the same one).
        assert intent.checkout_url == shown and intent.expires_at == first.expires_at
        if rig.dialect == "v2":
            assert not [k for k in rig.requests() if "checkout" in k]
        await again.confirm_demo_payment(APPROVE)
        assert await again.check_payment() is Phase.PAID


@pytest.mark.only_dialect("v1", reason="a 2.0 hand-off always answers its page (else refused)")
async def test_a_renewal_answered_without_a_page_keeps_the_page_shown() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.checkout("Ana", "ana@example.com")
        shown = store.cart.checkout_url if store.cart else None
        assert shown
        real = store.client.create_payment_intent

        async def no_page(location_id: str, cart_id: str) -> Any:
            # The legacy row 24 need not carry the checkout URL (the cart has it).
            intent = await real(location_id, cart_id)
            return intent.model_copy(update={"checkout_url": None})

        store.client.create_payment_intent = no_page  # type: ignore[method-assign]
        await store.payment.renew()
        assert store.cart is not None and store.cart.checkout_url == shown
        assert store.order.checkout_url == shown


@pytest.mark.only_dialect("v2", reason="v1's payment intent locks the cart: it is read once after")
async def test_a_2_0_hand_off_puts_its_page_on_the_cart_without_reading_it() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        cart_path = f"/carts/{store.cart_id}"
        rig.transport.sent.clear()
        result = await store.checkout("Ana", "ana@example.com")
        assert result.intent is not None and result.intent.checkout_url
        assert store.cart is not None and store.cart.checkout_url == result.intent.checkout_url
        assert store.cart.items and store.cart.id == store.cart_id
        handoff = next(i for i, s in enumerate(rig.transport.sent) if "checkout-handoffs" in s)
        after = rig.transport.sent[handoff + 1 :]
        assert not [s for s in after if s.startswith("GET ") and s.endswith(cart_path)]


async def test_the_demo_processor_pays_only_a_hand_off_that_was_made() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        with pytest.raises(NoCartError):
            await store.payment.confirm_demo(APPROVE)
        await store.begin_payment()
        await store.payment.confirm_demo(APPROVE)
        await store.check_payment()
        assert store.phase is Phase.PAID


async def test_a_look_at_the_payment_answers_what_the_server_said() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.begin_payment()
        progress = await store.check_payment()
        assert progress is not None and not progress.completed
        await store.payment.confirm_demo(APPROVE)
        progress = await store.check_payment()
        assert progress is not None and progress.completed and progress.order_number
        assert store.order.order_number == progress.order_number


async def test_a_cart_that_runs_out_while_paying_is_told_as_expired() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.begin_payment()
        await rig.clock.sleep(CART_TTL.total_seconds() + 1)
        progress = await store.check_payment()
        assert progress is not None and progress.state == "expired"
        assert store.phase is Phase.EXPIRED


async def test_the_last_look_at_a_paid_order_reads_nothing_more_than_its_look() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        await store.begin_payment()
        await store.payment.confirm_demo(APPROVE)
        rig.transport.sent.clear()
        cart = await store.payment.last_look()
        assert store.phase is Phase.PAID
        assert cart is not None and cart is store.cart and lines(cart) == [("prd_cookie", 1)]
        reads = [s for s in rig.transport.sent if s == f"GET {_cart_path(rig, store)}"]
        # v1 has no payment poll: its look is the read; 2.0 asks order-result only, and the
        # order is the cart held (nothing to read again for the receipt).
        assert len(reads) == (1 if rig.dialect == "v1" else 0)


V1_LOOK_READS = "v1's look is the cart itself (it has no payment poll)"


@pytest.mark.only_dialect("v2", reason=V1_LOOK_READS)
async def test_the_last_look_before_leaving_shows_the_servers_cart_as_it_is_now() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        # Another device adds a line; the 2.0 hand-off does not read the cart back.
        await rig.client.add_item(rig.location_id, store.cart_id or "", "prd_brownie", 1)
        await store.begin_payment()
        assert lines(store.cart) == [("prd_cookie", 1)]
        cart = await store.payment.last_look()
        assert lines(cart) == [("prd_cookie", 1), ("prd_brownie", 1)]
        assert lines(store.cart) == [("prd_cookie", 1), ("prd_brownie", 1)]


@pytest.mark.only_dialect("v2", reason=V1_LOOK_READS)
async def test_a_paid_order_that_is_not_the_cart_held_is_read_for_the_receipt() -> None:
    async with demo_rig() as rig:
        store, _ = await with_cookies(rig, 1)
        # Another device adds a line before the hand-off: the order is not the cart held.
        await rig.client.add_item(rig.location_id, store.cart_id or "", "prd_brownie", 1)
        await store.begin_payment()
        assert lines(store.cart) == [("prd_cookie", 1)]
        await store.payment.confirm_demo(APPROVE)
        progress = await store.check_payment()
        assert progress is not None and progress.completed
        assert lines(store.cart) == [("prd_cookie", 1), ("prd_brownie", 1)]


# ------------------------------------------------------------------ back from paying (Visit)


async def test_back_from_paying_reopens_the_same_order_for_changes() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 2)
        old = visit.state.cart_id
        await visit.begin_payment()
        reopened = await visit.reopen_order()
        assert not reopened.paid and reopened.completed is None
        assert visit.state.order.phase is Phase.ORDERING
        assert lines(visit.state.cart) == [("prd_cookie", 2)]
        # The demo locks the cart on its hand-off (both dialects), and a locked cart takes no
        # changes: the same order in a new cart, the old one ended on the server (v1 deletes
        # it; 2.0's DELETE expires it), its code no longer payable.
        assert visit.state.cart_id != old and not reopened.kept_handoff
        ended = rig.server_cart(old or "")
        assert ended is None or ended["status"] == "EXPIRED", ended
        cart = await visit.add_item("prd_brownie", 1)
        assert lines(cart) == [("prd_cookie", 2), ("prd_brownie", 1)]


async def test_a_payment_that_landed_before_going_back_wins() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        await visit.confirm_demo_payment(APPROVE)
        reopened = await visit.reopen_order()
        assert reopened.paid and reopened.order_number
        assert visit.state.order.phase is Phase.PAID


async def test_starting_again_is_only_for_an_expired_order() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        with pytest.raises(RuntimeError):
            await visit.start_again()
        await visit.begin_payment()
        await rig.clock.sleep(CART_TTL.total_seconds() + 1)
        assert await visit.check_payment() is Phase.EXPIRED
        old = visit.state.cart_id
        again = await visit.start_again()
        assert not again.dropped_lines
        assert visit.state.cart_id != old and visit.state.order.phase is Phase.ORDERING
        assert lines(visit.state.cart) == [("prd_cookie", 1)]
