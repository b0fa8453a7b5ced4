"""Rules of a restart taking up the order this terminal kept (kiosk.ordering.visit_resume) that
the whole-module mutation run showed untested (tools/mutate.py, issue 32 item 8): a cart for a
location no longer served, a server that cannot be asked, a cart gone meanwhile, a record left
in doubt, the names of a resumed line's choices. Through `Visit.resume_saved()` on the embedded
backend, on both dialects."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from kiosk.api import PaymentDeclinedError
from kiosk.api.errors import InvalidRequestError, StorefrontError
from kiosk.demo.data import WESTSIDE
from kiosk.demo.domain.payments import DECLINE_CARD
from kiosk.ordering.cart_store import load_saved_cart
from kiosk.ordering.events import OrderEvent
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.modifiers import SelectionState
from kiosk.ordering.selections import echoed_name, echoed_options
from kiosk.ordering.visit import Visit
from kiosk.ordering.visit_resume import quietly
from tests.support.ordering_rig import V1_ONLY_LOCK, Rig, cookie_handed_off, cookie_order, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")

APPROVE = "4242 4242 4242 4242"


async def _kept_order(rig: Rig, path: Path, *, paying: bool = False) -> Visit:
    """A visit that left an order in the resume file (a cookie; handed to payment if `paying`)."""
    visit = rig.visit(path)
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 2)
    if paying:
        await visit.begin_payment()
    await visit.quit()
    return visit


def _several(rig: Rig, path: Path) -> Visit:
    return rig.visit(path, locations=[rig.location_id, WESTSIDE.id])


class Counter:
    """The metrics' side of the visit: every order event as it is told."""

    def __init__(self) -> None:
        self.events: list[OrderEvent] = []

    def order_event(self, event: OrderEvent) -> None:
        self.events.append(event)


def _counted(rig: Rig, path: Path, counter: Counter) -> Visit:
    return Visit(
        lambda _location_id: rig.client,
        [rig.location_id],
        wall_clock=rig.clock,
        cart_id_file=path,
        store_options={"sleep": rig.clock.sleep},
        observer=counter,
    )


def _edit_record(path: Path, **order: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["order"] = {**data.get("order", {}), **order}
    path.write_text(json.dumps(data), encoding="utf-8")


async def test_nothing_kept_or_no_resume_file_is_nothing_to_take_up(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        assert (await rig.visit(path).resume_saved()).kind == "none"
        await _kept_order(rig, path)
        # A kiosk run without a resume file takes nothing up, whatever another run kept.
        visit = rig.visit(None)
        outcome = await visit.resume_saved()
        assert outcome.kind == "none" and outcome.cart is None
        assert not visit.state.has_order


async def test_a_kept_cart_of_a_location_no_longer_served_is_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        data = json.loads(path.read_text(encoding="utf-8"))
        data["locationId"] = "loc_closed_down"
        path.write_text(json.dumps(data), encoding="utf-8")
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "gone" and outcome.cart is None
        assert not path.exists() and not visit.state.has_order
        # Forgotten here, not deleted: the server still holds it.
        assert rig.server_cart(kept.cart_id or "") is not None or kept.cart_id is None


async def test_a_restart_whose_server_cannot_be_asked_keeps_the_order_for_the_next(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        saved = load_saved_cart(path)
        rig.faults(error_rate=1.0)
        visit = _several(rig, path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "failed" and outcome.cart is None
        # A kiosk of several locations asks for one again; the file waits for the next start.
        assert visit.location_id is None and not visit.state.has_order
        assert load_saved_cart(path) == saved
        rig.faults(error_rate=0.0)
        again = rig.visit(path)
        outcome = await again.resume_saved()
        assert outcome.kind == "open" and again.cart_id == kept.cart_id
        assert outcome.cart is not None and outcome.cart.items[0].quantity == 2


async def test_a_restart_mid_payment_whose_server_cannot_be_asked_keeps_the_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path, paying=True)
        saved = load_saved_cart(path)
        assert saved is not None and saved.order.phase is Phase.AWAITING_PAYMENT
        rig.faults(error_rate=1.0)
        visit = _several(rig, path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "failed" and outcome.cart is None
        assert visit.location_id is None and visit.cart_id is None
        assert not visit.state.has_order
        assert load_saved_cart(path) == saved
        # A kiosk of one location keeps it, with no order shown: the cart is let go.
        fixed = rig.visit(path)
        assert (await fixed.resume_saved()).kind == "failed"
        assert fixed.location_id == rig.location_id
        assert fixed.cart_id is None and not fixed.state.has_order
        assert load_saved_cart(path) == saved
        rig.faults(error_rate=0.0)
        again = rig.visit(path)
        assert (await again.resume_saved()).kind == "locked"
        assert again.cart_id == kept.cart_id


async def test_a_record_left_in_doubt_without_its_phase_resumes_the_open_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        _edit_record(path, phase="in_doubt", doubt_from=None)
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and visit.cart_id == kept.cart_id
        assert visit.state.order.phase is Phase.ORDERING
        assert outcome.cart is not None and outcome.cart.items[0].quantity == 2


async def test_a_restart_during_checkout_before_the_handoff_is_back_on_the_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        # Details and validation sent, no hand-off made yet, when the kiosk stopped.
        _edit_record(path, phase="checking_out")
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and visit.cart_id == kept.cart_id
        assert visit.state.order.phase is Phase.ORDERING
        cart = await visit.add_item("prd_cookie", 1)
        assert cart is not None and sum(i.quantity for i in cart.items) == 3


async def test_a_kiosk_of_several_locations_takes_up_the_order_at_its_location(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        visit = _several(rig, path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and visit.cart_id == kept.cart_id
        assert visit.location_id == rig.location_id
        assert visit.state.location is not None and visit.state.location.id == rig.location_id


async def test_an_order_is_taken_up_even_when_its_locations_record_cannot_be_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)
        visit = rig.visit(path)
        for _ in range(8):  # the read and every retry of it
            rig.transport.fail_next("GET", f"/locations/{rig.location_id}", when="before")
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and visit.cart_id == kept.cart_id
        assert outcome.cart is not None and outcome.cart.items[0].quantity == 2


async def test_a_record_in_doubt_while_paying_comes_back_to_the_payment(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path, paying=True)
        _edit_record(path, phase="in_doubt", doubt_from="awaiting_payment")
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "locked" and visit.cart_id == kept.cart_id
        assert visit.state.order.phase is Phase.AWAITING_PAYMENT


async def test_a_restart_for_a_way_no_longer_offered_keeps_the_lines_for_another_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cart.json"
    counter = Counter()
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path)

        async def way_switched_off(*_: Any, **__: Any) -> str:
            raise InvalidRequestError(status=400, server_message="Pickup is not offered now")

        monkeypatch.setattr(rig.client, "resume_cart", way_switched_off)
        visit = _counted(rig, path, counter)
        outcome = await visit.resume_saved()
        assert outcome.kind == "way_gone" and visit.cart_id == kept.cart_id
        assert outcome.cart is not None and outcome.cart.items[0].quantity == 2
        assert visit.state.way_refused
        # The customer takes a way the location offers: the same cart, the refusal answered.
        monkeypatch.undo()
        cart = await visit.start("pickup")
        assert visit.state.way_refused is None
        assert visit.cart_id == kept.cart_id and cart is not None and cart.items
        # The order was counted by the run that started it; ended now, it counts as reset.
        await visit.end()
        assert counter.events == [OrderEvent.RESET]


async def test_an_empty_kept_cart_is_dropped_and_a_several_location_kiosk_asks_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = rig.visit(path)
        await first.start("pickup")
        assert load_saved_cart(path) is not None
        visit = _several(rig, path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "gone" and outcome.cart is None
        assert visit.location_id is None and not visit.state.has_order
        assert not path.exists()


@pytest.mark.only_dialect("v1", reason=V1_ONLY_LOCK)
async def test_a_locked_cart_kept_by_an_older_kiosk_comes_back_to_its_payment(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path, paying=True)
        # An older kiosk's file: the cart and the location, no record of the order.
        text = json.dumps({"cartId": kept.cart_id, "locationId": rig.location_id})
        path.write_text(text, encoding="utf-8")
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "locked" and visit.cart_id == kept.cart_id
        assert outcome.cart is not None and outcome.cart.is_locked


async def test_an_order_taken_up_at_its_payment_brings_back_its_name_and_counts_its_end(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    counter = Counter()
    async with demo_rig() as rig:
        first = rig.visit(path)
        await cookie_order(first)
        await first.checkout("Ada", "ada@example.com")
        assert first.state.order.phase is Phase.AWAITING_PAYMENT
        await first.quit()
        visit = _counted(rig, path, counter)
        outcome = await visit.resume_saved()
        assert outcome.kind == "locked" and visit.cart_id == first.cart_id
        assert visit.state.customer_name == "Ada"
        await visit.end()
        assert counter.events == [OrderEvent.RESET]


async def _paid_while_down(rig: Rig, path: Path, card: str) -> Visit:
    """An order handed to payment, then paid (or declined) on the phone while the kiosk was
    down; returns the visit of the run before."""
    first = rig.visit(path)
    intent = await cookie_handed_off(first)
    assert intent is not None
    await first.quit()
    with contextlib.suppress(PaymentDeclinedError):
        await rig.client.confirm_demo_payment(intent.client_secret, card)
    return first


async def test_a_payment_made_while_the_kiosk_was_down_is_shown_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = await _paid_while_down(rig, path, APPROVE)
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "paid" and visit.cart_id == first.cart_id
        assert visit.state.order.phase is Phase.PAID and visit.state.order.order_number


@pytest.mark.only_dialect("v2", reason="v1 polls the cart, which says nothing of a decline")
async def test_a_decline_while_the_kiosk_was_down_is_shown_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = await _paid_while_down(rig, path, DECLINE_CARD)
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "declined" and visit.cart_id == first.cart_id
        assert visit.state.order.phase is Phase.DECLINED


async def test_a_restart_mid_payment_on_a_cart_gone_meanwhile_starts_clean(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path, paying=True)
        await rig.client.delete_cart(rig.location_id, kept.cart_id or "")
        visit = _several(rig, path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "gone" and outcome.cart is None
        assert visit.location_id is None and not visit.state.has_order
        assert load_saved_cart(path) is None


async def test_every_choice_of_a_resumed_line_can_be_shown_by_its_name(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = rig.visit(path)
        await first.start("pickup")
        latte = await first.product("prd_latte")
        await first.add_item("prd_latte", 1, SelectionState.for_product(latte))
        await first.quit()
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and outcome.cart is not None
        chosen = list(echoed_options(outcome.cart.items[0].selections))
        assert chosen
        for _, entry in chosen:
            assert echoed_name(entry) or visit.option_names.get(entry["optionId"])


async def test_a_discard_that_fails_is_told_as_not_confirmed() -> None:
    async def failing() -> bool:
        raise RuntimeError("the connection dropped")

    async def confirmed() -> bool:
        return True

    assert await quietly(failing()) is False
    assert await quietly(confirmed()) is True


@pytest.mark.parametrize("trouble", ["gone", "unreachable"])
async def test_a_restart_mid_payment_that_cannot_go_on_asks_the_server_nothing_more(
    tmp_path: Path, trouble: str
) -> None:
    # The cart gone, or the server not answering: the restart asks where the payment stands (as
    # one look would, retries included) and nothing more: no resume, no new cart, no delete.
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        kept = await _kept_order(rig, path, paying=True)
        saved = load_saved_cart(path)
        assert saved is not None and kept.cart_id
        if trouble == "gone":
            await rig.client.delete_cart(rig.location_id, kept.cart_id)
        else:
            rig.faults(error_rate=1.0)
        look = rig.store()
        look.restore(saved.cart_id, saved.order)
        look.payment.restore(saved.cart_id, saved.order)
        rig.transport.sent.clear()
        with contextlib.suppress(StorefrontError):
            await look.check_payment()
        one_look = [r for r in rig.transport.sent if "/carts/" in r]
        rig.transport.sent.clear()
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == ("gone" if trouble == "gone" else "failed")
        assert [r for r in rig.transport.sent if "/carts/" in r] == one_look
