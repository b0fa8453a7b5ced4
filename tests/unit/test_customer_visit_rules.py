"""Rules of the customer's visit the mutation run showed untested (tools/mutate.py,
docs/mutation.md, issue 32 item 8): the welcome form's table, the price locale, a reset's and a
quit's discard, an order made again, a location closed for now, a restart after the hand-off.
Through the Visit's public intents on the embedded backend, on both dialects."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from kiosk.api.errors import NotFoundError, StorefrontError
from kiosk.api.models import Location, MenusResponse, Readiness
from kiosk.demo.data import WESTSIDE
from kiosk.ordering.catalogue import Catalogue
from kiosk.ordering.reorder import order_again
from kiosk.ordering.visit import OrderTime, Visit, VisitState
from tests.support.ordering_rig import Rig, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


async def test_the_welcome_forms_table_or_room_starts_the_order_there() -> None:
    async with demo_rig(WESTSIDE) as rig:
        visit = rig.visit()
        await visit.start_with_details("table_service", {"table": "12"})
        assert visit.state.cart_id is not None
        assert visit.state.fulfillment_method == "table_service"
        assert visit.state.table_number == "12"
        await visit.start_with_details("room_service", {"last_name": "Okafor", "room": "304"})
        assert visit.state.fulfillment_method == "room_service"
        assert visit.state.room == ("Okafor", "304")


async def test_a_language_choice_sets_the_price_locale_until_it_is_cleared() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        assert visit.locale is None
        visit.locale = "es_US"
        assert visit.locale == "es_US"
        visit.locale = None
        assert visit.locale is None


async def test_a_reset_clears_the_way_to_order_for_the_next_customer() -> None:
    async with demo_rig(WESTSIDE) as rig:
        visit = rig.visit()
        await visit.start("table_service", table_number="7")
        await visit.add_item("prd_cookie", 1)
        assert visit.state.table_number == "7"
        discard = visit.end()
        # From the moment the reset is asked for, no state shows the last customer's table
        # again, not even while the old cart is being deleted.
        seen: list[VisitState] = [visit.state]
        visit.subscribe(seen.append)
        assert await discard is True
        assert seen[-1] is visit.state and visit.state.cart_id is None
        assert {(s.fulfillment_method, s.table_number) for s in seen} == {(None, None)}


async def test_an_old_orders_discard_is_not_shown_as_the_next_visit_working() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        discard = visit.serve_locations([rig.location.id])
        seen: list[VisitState] = []
        visit.subscribe(seen.append)
        assert await discard is True
        assert visit.state.status.kind == "idle"
        assert [s.status.kind for s in seen if s.status.kind != "idle"] == []


async def test_a_quit_waits_for_the_discard_of_the_order_ended_before() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        discard = visit.serve_locations([rig.location.id])
        await visit.quit()
        assert discard.done() and discard.result() is True


async def test_order_again_takes_the_carts_own_way_when_the_visit_names_none() -> None:
    async with demo_rig() as rig:
        first = rig.visit()
        await first.start("pickup")
        cart = await first.add_item("prd_cookie", 2)
        assert cart is not None
        again = rig.visit()
        await order_again(again, cart, VisitState(location_id=rig.location.id))
        assert again.state.fulfillment_method == "pickup"
        assert again.state.cart is not None
        assert [(i.product_id, i.quantity) for i in again.state.cart.items] == [("prd_cookie", 2)]


async def test_order_again_carries_the_code_and_the_later_time_and_asks_for_the_tip() -> None:
    async with demo_rig() as rig:
        first = rig.visit()
        await first.start("pickup")
        await first.add_item("prd_cookie", 2)
        await first.set_tip("18")
        await first.apply_discount("SAVE10")
        slot = (await rig.client.get_time_intervals(rig.location_id)).order_days[1]
        await first.set_order_time_later(slot.value, slot.intervals[2])
        cart = first.state.cart
        assert cart is not None and cart.waiter_tip_total and cart.discount_code == "SAVE10"

        again = rig.visit()
        result = await order_again(again, cart, first.state)
        assert result.dropped == ("the tip (please choose it again)",)
        assert result.dropped_lines == ()
        made = again.state.cart
        assert made is not None and made.id != cart.id
        assert made.discount_code == "SAVE10" and not made.waiter_tip_total
        assert (made.pickup_type, made.order_date, made.order_time) == (
            "LATER",
            slot.value,
            slot.intervals[2],
        )
        assert again.state.order_time == OrderTime(slot.value, slot.intervals[2])


async def test_order_again_names_what_the_server_no_longer_takes() -> None:
    async with demo_rig() as rig:
        first = rig.visit()
        await first.start("pickup")
        cart = await first.add_item("prd_cookie", 1)
        assert cart is not None
        gone = cart.model_copy(update={"discount_code": "NOPE99"})
        past = dataclasses.replace(first.state, order_time=OrderTime("2020-01-01", "03:00"))
        again = rig.visit()
        result = await order_again(again, gone, past)
        assert result.dropped == ("code NOPE99", "the later time")
        assert result.dropped_lines == ()
        assert again.state.cart is not None and again.state.cart.discount_code in (None, "")
        assert again.state.order_time == OrderTime()


async def test_order_again_for_as_soon_as_possible_drops_nothing() -> None:
    async with demo_rig() as rig:
        first = rig.visit()
        await first.start("pickup")
        cart = await first.add_item("prd_cookie", 1)
        assert cart is not None
        result = await order_again(rig.visit(), cart, first.state)
        assert (result.dropped, result.dropped_lines) == ((), ())


async def test_an_edit_that_changes_nothing_writes_nothing() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        cart = await visit.add_item("prd_cookie", 2)
        assert cart is not None
        line = cart.items[0]
        sent = len(rig.transport.sent)
        assert await visit.replace_line(line.id, 2, []) is cart
        assert len(rig.transport.sent) == sent


async def test_editing_a_line_no_longer_in_the_order_says_so() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        with pytest.raises(NotFoundError) as caught:
            await visit.replace_line("line-gone", 1, [])
        assert caught.value.status == 404
        assert caught.value.message == "This line is no longer in your order."


async def test_a_restart_after_the_handoff_shows_the_orders_lines(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 2)
        await visit.begin_payment()
        await visit.quit()
        again = rig.visit(path)
        outcome = await again.resume_saved()
        assert outcome.kind == "locked"
        for cart in (outcome.cart, again.state.cart):
            assert cart is not None
            assert [(i.product_id, i.quantity) for i in cart.items] == [("prd_cookie", 2)]


# -- a location that takes no order for now ---------------------------------------------------


class _ClosedNow:
    """The rig's client, as a server with nothing on its menus served now (every menu inactive
    unless a later slot is asked for; `closed=False`: as the demo serves them) whose readiness
    says `ready` (raises when `ready` is an exception), and that takes orders for later only
    when `later_only`. Records the menus reads and counts the readiness reads."""

    def __init__(
        self,
        client: Any,
        ready: Readiness | Exception | None,
        *,
        closed: bool = True,
        later_only: bool = False,
    ) -> None:
        self._client = client
        self._ready = ready
        self._closed = closed
        self._later_only = later_only
        self.menus_reads: list[tuple[str | None, str | None]] = []
        self.readiness_reads = 0

    async def get_menus(
        self, location_id: str, order_date: str | None = None, order_time: str | None = None
    ) -> MenusResponse:
        self.menus_reads.append((order_date, order_time))
        menus = await self._client.get_menus(location_id, order_date, order_time)
        if order_date or not self._closed:
            return menus
        idle = tuple(dataclasses.replace(m, is_active=False) for m in menus.menus)
        return dataclasses.replace(menus, menus=idle)

    async def get_time_intervals(self, location_id: str, *, fresh: bool = False) -> Any:
        slots = await self._client.get_time_intervals(location_id, fresh=fresh)
        if self._later_only:
            return slots.model_copy(update={"require_scheduled_orders": True})
        return slots

    async def ordering_readiness(self, location_id: str, method: Any) -> Readiness | None:
        self.readiness_reads += 1
        if isinstance(self._ready, Exception):
            raise self._ready
        return self._ready

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def _closed_visit(rig: Rig, server: _ClosedNow) -> Visit:
    return Visit(
        lambda _location_id: server,  # type: ignore[arg-type,return-value]
        [rig.location.id],
        wall_clock=rig.clock,
        store_options={"sleep": rig.clock.sleep},
    )


@pytest.mark.parametrize(
    "ready",
    [
        Readiness(ready=False, reason="Closed until 17:00"),
        StorefrontError("readiness could not be read"),
    ],
    ids=["closed", "unreadable"],
)
async def test_closed_for_now_the_order_is_set_to_the_first_slot_and_its_menus_shown(
    ready: Readiness | Exception,
) -> None:
    # Nothing on the menus is served now and the server does not take an order for now (or
    # cannot say: the menus' word stands): the order goes to the first later slot, said once.
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, ready)
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        menus = await visit.menus()
        cart = visit.state.cart
        assert cart is not None and (cart.pickup_type or "").upper() == "LATER"
        slot = (cart.order_date, cart.order_time)
        assert slot[0] and slot[1]
        assert server.menus_reads == [(None, None), slot]
        assert any(m.is_active for m in menus.menus)
        assert visit.asap_refused == ("" if isinstance(ready, Exception) else "Closed until 17:00")
        assert visit.scheduled_first is not None and visit.scheduled_first[1] == slot[1]


async def test_a_location_ready_for_now_keeps_the_order_for_now_with_one_menus_read() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, Readiness(ready=True))
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.menus()
        cart = visit.state.cart
        assert cart is not None and (cart.pickup_type or "").upper() != "LATER"
        assert server.menus_reads == [(None, None)]
        assert visit.asap_refused is None and visit.scheduled_first is None


# -- the merchant listing --------------------------------------------------------------------


async def test_a_location_record_that_lists_its_ways_is_not_looked_up_in_the_listing() -> None:
    asked: list[str] = []

    class _Listing:
        async def get_merchant(self, slug: str, *, fresh: bool = False) -> Any:
            asked.append(slug)
            raise AssertionError("the merchant listing was read")

    state = VisitState(location_id="loc1")
    catalogue = Catalogue(
        lambda _id: _Listing(),  # type: ignore[arg-type,return-value]
        lambda: state,
        lambda **_: None,
        lambda *_: None,
        merchant_slug="the-diner",
    )
    listed = Location.model_validate({"id": "loc1", "methodsStatus": {"pickup": True}})
    assert await catalogue.merchant_listing(listed) is None
    unlisted = Location.model_validate({"id": "loc1"})
    assert await catalogue.merchant_listing(unlisted) is None  # the read failed: no entry
    assert asked == ["the-diner"]


async def test_a_location_serving_now_is_not_asked_whether_it_takes_an_order_now() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, Readiness(ready=False), closed=False)
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        menus = await visit.menus()
        assert any(m.is_active for m in menus.menus)
        assert server.menus_reads == [(None, None)] and server.readiness_reads == 0
        assert visit.asap_refused is None and visit.scheduled_first is None


async def test_before_any_order_a_closed_location_is_not_asked_nor_an_order_set() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, Readiness(ready=False))
        visit = _closed_visit(rig, server)
        menus = await visit.menus()
        assert menus.menus and not any(m.is_active for m in menus.menus)
        assert server.menus_reads == [(None, None)] and server.readiness_reads == 0
        assert visit.asap_refused is None and visit.scheduled_first is None
        assert visit.state.cart_id is None


async def test_an_order_for_later_reads_the_menus_of_its_slot() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, Readiness(ready=True), closed=False)
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        assert visit.menu_slot() == ("", "")
        slot = (await rig.client.get_time_intervals(rig.location_id)).order_days[1]
        await visit.set_order_time_later(slot.value, slot.intervals[2])
        assert visit.menu_slot() == (slot.value, slot.intervals[2])
        await visit.menus()
        assert server.menus_reads == [(slot.value, slot.intervals[2])]
        assert server.readiness_reads == 0


async def test_a_later_only_location_sets_the_order_to_its_first_slot_once() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, None, closed=False, later_only=True)
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        slots = await rig.client.get_time_intervals(rig.location_id)
        first = slots.first_slot()
        assert first is not None
        day, at = first
        said = await visit.schedule_if_required()
        assert said == (day.label or day.value, at) == visit.scheduled_first
        cart = visit.state.cart
        assert cart is not None and (cart.pickup_type, cart.order_date, cart.order_time) == (
            "LATER",
            day.value,
            at,
        )
        sent = len(rig.transport.sent)
        assert await visit.schedule_if_required() is None  # already for later: left as it is
        assert len(rig.transport.sent) == sent


async def test_a_location_taking_orders_now_leaves_the_order_for_now() -> None:
    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, None, closed=False)
        visit = _closed_visit(rig, server)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        assert await visit.schedule_if_required() is None
        cart = visit.state.cart
        assert cart is not None and (cart.pickup_type or "").upper() != "LATER"
        assert visit.scheduled_first is None


async def test_prices_are_drawn_in_the_locale_the_location_record_names() -> None:
    """A location record that names a locale (an unknown field the models keep) sets the price
    locale; a language chosen on the kiosk wins over it; a record that names none leaves None."""
    async with demo_rig() as rig:
        visit = rig.visit()
        record = (await rig.client.get_location(rig.location.id)).model_dump(by_alias=True)
        visit.choose_location(
            rig.location.id, Location.model_validate({**record, "locale": "en_NZ"})
        )
        assert visit.locale == "en_NZ"
        visit.locale = "es_US"
        assert visit.locale == "es_US"
        visit.locale = None
        assert visit.locale == "en_NZ"
        visit.choose_location(rig.location.id, Location.model_validate({**record, "locale": ""}))
        assert visit.locale is None
