"""More rules of the customer's visit that the whole-module mutation run of kiosk/ordering/visit.py
showed untested by the fast tests (tools/mutate.py, docs/mutation.md, issue 32 item 8): how an
order is counted (kiosk.metrics' observer), what the visit answers about itself before and after a
location is chosen, a kiosk serving several locations, and the customer's details. Through the
Visit's public door on the embedded backend, on both dialects."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from kiosk.api import PaymentDeclinedError
from kiosk.api.errors import StorefrontError
from kiosk.api.models import AddressData
from kiosk.demo.data import WESTSIDE
from kiosk.demo.domain.payments import DECLINE_CARD
from kiosk.ordering.clock import clock_text, set_region
from kiosk.ordering.events import OrderEvent
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.visit import OrderTime, Visit
from tests.support.ordering_rig import Rig, cookie_handed_off, cookie_order, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")

APPROVE = "4242 4242 4242 4242"


class Counter:
    """The metrics' side of the visit: every order event as it is told."""

    def __init__(self) -> None:
        self.events: list[OrderEvent] = []

    def order_event(self, event: OrderEvent) -> None:
        self.events.append(event)


def counted_visit(rig: Rig, counter: Counter, cart_id_file: Path | None = None) -> Visit:
    return Visit(
        lambda _location_id: rig.client,
        [rig.location_id],
        wall_clock=rig.clock,
        cart_id_file=cart_id_file,
        store_options={"sleep": rig.clock.sleep},
        observer=counter,
    )


def two_location_visit(rig: Rig) -> Visit:
    """A kiosk serving two locations (the customer picks one first)."""
    return rig.visit(locations=[rig.location_id, WESTSIDE.id])


# ------------------------------------------------------------------ counting the orders


async def test_an_order_is_counted_started_once_however_often_its_way_changes() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_order(visit)
        await visit.start("pickup")  # the same way chosen again on the welcome screen
        assert counter.events == [OrderEvent.STARTED]


async def test_a_paid_order_is_counted_paid_once_and_a_start_over_after_it_is_no_reset() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_handed_off(visit)
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID
        await visit.check_payment()
        await visit.refresh()
        assert counter.events == [OrderEvent.STARTED, OrderEvent.PAID]
        # The paid order's number is offered again on the first screen for a while.
        assert visit.recent.get() == visit.state.order.order_number
        assert visit.recent.get()
        assert await visit.end() is not None
        assert counter.events == [OrderEvent.STARTED, OrderEvent.PAID]
        # The next customer's order is counted as a new one.
        await visit.start("pickup")
        assert counter.events == [OrderEvent.STARTED, OrderEvent.PAID, OrderEvent.STARTED]


async def test_nothing_is_counted_paid_or_started_before_an_order_is_started() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await visit.end()
        await visit.refresh()
        assert counter.events == []


async def test_each_decline_is_counted_once_and_the_order_then_paid() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_handed_off(visit)
        with pytest.raises(PaymentDeclinedError):
            await visit.confirm_demo_payment(DECLINE_CARD)
        await visit.refresh()
        assert counter.events == [OrderEvent.STARTED, OrderEvent.DECLINED]
        assert visit.recent.get() is None
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID
        assert counter.events == [OrderEvent.STARTED, OrderEvent.DECLINED, OrderEvent.PAID]


@pytest.mark.parametrize("reason", [OrderEvent.RESET, OrderEvent.ABANDONED])
async def test_an_open_order_ended_is_counted_as_its_reason_once(reason: OrderEvent) -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_order(visit)
        assert await visit.end(reason) is True
        assert await visit.end(reason) is True  # nothing open any more: not counted again
        assert counter.events == [OrderEvent.STARTED, reason]


@pytest.mark.parametrize(("paid", "counted"), [(False, [OrderEvent.RESET]), (True, [])])
async def test_an_order_taken_up_after_a_restart_counts_its_end_as_before(
    paid: bool, counted: list[OrderEvent]
) -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await visit.start("pickup")
        counter.events.clear()
        # A resume took up the order a previous run started (and counted already).
        visit.order_resumed(paid=paid)
        await visit.end()
        assert counter.events == counted


async def test_an_order_taken_up_open_is_counted_paid_when_it_is_paid() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_handed_off(visit)
        counter.events.clear()
        visit.order_resumed(paid=False)
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID
        assert counter.events == [OrderEvent.PAID]


# ------------------------------------------------------------------ what the visit answers


async def test_the_visit_answers_its_location_cart_status_and_clock() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        assert visit.location_id == rig.location_id
        assert visit.payment_intent is None
        await cookie_order(visit)
        assert visit.cart is visit.state.cart and visit.cart is not None
        assert visit.cart_id == visit.state.cart_id and visit.cart_id is not None
        assert visit.status is visit.state.status and visit.status.kind == "idle"
        assert repr(visit) == (f"Visit(location_id={rig.location_id!r}, cart_id={visit.cart_id!r})")
        assert visit.clock.utc_now().timestamp() == rig.clock()
        assert visit.client is rig.client and visit.client_for(rig.location_id) is rig.client
        await visit.begin_payment()
        assert visit.payment_intent is not None


async def test_opening_hours_are_the_visits_location_or_the_one_asked_about() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        location = await visit.load_location()
        visit.choose_location(rig.location_id, location)
        here = visit.opening()
        assert here.known and here.is_open is True
        assert here.now is not None and here.now.timestamp() == rig.clock()
        # Another location, asked about by the location list, is read with its own hours.
        other = location.model_copy(update={"timezone": "Asia/Tokyo"})
        there = visit.opening(other)
        assert there.now is not None and str(there.now.tzinfo) == "Asia/Tokyo"
        assert str(here.now.tzinfo) != "Asia/Tokyo"


async def test_a_kiosk_of_several_locations_has_none_chosen_until_the_customer_picks() -> None:
    async with demo_rig() as rig:
        visit = two_location_visit(rig)
        assert not visit.fixed_location
        assert visit.location_id is None
        with pytest.raises(LookupError):
            visit.client  # noqa: B018 (the property raises)
        with pytest.raises(LookupError):
            visit.need_store()
        assert visit.can_remove_discount
        # Nothing started: the reset has nothing to delete and says so at once.
        assert await visit.end() is True
        visit.choose_location(rig.location_id)
        assert visit.location_id == rig.location_id
        await cookie_order(visit)
        cart_id = visit.cart_id
        assert cart_id is not None
        # The next customer of a several-location kiosk chooses the location again.
        assert await visit.end() is True
        assert visit.location_id is None and visit.state.location is None
        assert visit.cart_id is None and not visit.state.paying
        with pytest.raises(LookupError):
            visit.need_store()  # the last customer's store is not the next one's
        assert rig.server_cart(cart_id) is None or rig.dialect == "v2"


async def test_a_resume_that_took_nothing_up_asks_a_several_location_kiosk_for_one_again() -> None:
    async with demo_rig() as rig:
        several = two_location_visit(rig)
        several.choose_location(rig.location_id)
        several.need_store()
        several.abandon_resume()
        assert several.location_id is None and several.state.location is None
        with pytest.raises(LookupError):
            several.need_store()
        fixed = rig.visit()
        fixed.choose_location(rig.location_id)
        store = fixed.need_store()
        fixed.abandon_resume()
        assert fixed.location_id == rig.location_id and fixed.need_store() is store


async def test_a_fixed_kiosk_with_nothing_started_resets_at_once() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        done = visit.end()
        assert await done is True
        assert visit.location_id == rig.location_id


async def test_staff_cannot_leave_a_kiosk_serving_no_location() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        with pytest.raises(ValueError, match="at least one location"):
            visit.serve_locations([])
        assert visit.location_ids == [rig.location_id]


async def test_the_customers_details_are_kept_on_the_visit_and_sent_to_the_cart() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        cart = await visit.set_customer("Ada Okafor", "ada@example.com")
        assert cart is not None
        assert (visit.state.customer_name, visit.state.email_address) == (
            "Ada Okafor",
            "ada@example.com",
        )
        assert cart.id == visit.cart_id
        server = rig.server_cart(cart.id)
        assert server is not None
        assert (server["customerName"], server["emailAddress"]) == ("Ada Okafor", "ada@example.com")


async def test_a_fixed_kiosks_next_customer_writes_through_the_same_store_after_a_reset() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        store = visit.need_store()
        # The next customer's writes queue behind the discard on the same store (its lock).
        assert await visit.reset() is True
        assert visit.need_store() is store
        assert visit.cart_id is None and visit.location_id == rig.location_id


async def test_staff_moving_the_kiosk_to_another_location_orders_there_next() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        assert await visit.serve_locations([WESTSIDE.id]) is True
        assert visit.location_ids == [WESTSIDE.id]
        assert visit.location_id == WESTSIDE.id and visit.fixed_location
        assert [key for key, _ in visit.state.served] == [WESTSIDE.id]
        assert visit.need_store().location_id == WESTSIDE.id
        assert visit.cart_id is None


async def test_a_location_is_known_by_its_id_or_its_slug_once_its_record_is_read() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        assert visit.known_location(rig.location_id) is None
        location = await visit.load_location()
        visit.choose_location(rig.location_id, location)
        assert visit.known_location(rig.location_id) is location
        assert visit.known_location(location.restaurant_slug) is location
        assert visit.known_location(WESTSIDE.id) is None
        # Chosen again without its record (the fixed location at a restart): the record stays.
        visit.choose_location(rig.location_id)
        assert visit.state.location is location


async def test_times_of_day_are_written_the_way_the_locations_country_writes_them() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        location = await visit.load_location()
        set_region(None)
        try:
            us = location.model_copy(update={"address_data": AddressData(country="US")})
            visit.choose_location(rig.location_id, us)
            assert clock_text("15:30") == "3:30 PM"
            spain = us.model_copy(update={"address_data": AddressData(country="ES")})
            visit.choose_location(rig.location_id, spain)
            assert clock_text("15:30") == "15:30"
        finally:
            set_region(None)


async def test_the_last_paid_orders_number_is_still_offered_after_a_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await cookie_handed_off(visit)
        await visit.confirm_demo_payment(APPROVE)
        assert await visit.check_payment() is Phase.PAID
        number = visit.state.order.order_number
        assert number and visit.recent.get() == number
        await visit.quit()
        assert rig.visit(path).recent.get() == number


async def test_an_owners_intent_offered_on_the_visit_answers_what_the_owner_answers() -> None:
    # The Visit's intents are built once, at import, by this helper: built here again, so that
    # what it builds is what is tested (the same helper, the owner's add and refresh).
    from kiosk.ordering.cart_store import CartStore
    from kiosk.ordering.visit import _owner_intent

    add_item = _owner_intent(CartStore.add_item)
    refresh = _owner_intent(CartStore.refresh)
    assert (add_item.__name__, add_item.__doc__) == ("add_item", CartStore.add_item.__doc__)
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        cart = await add_item(visit, "prd_cookie", 2)
        assert cart is not None and cart is visit.state.cart
        assert [(i.product_id, i.quantity) for i in cart.items] == [("prd_cookie", 2)]
        again = await refresh(visit)
        assert again is not None and again.id == cart.id


@pytest.mark.only_dialect("v2", reason="v1 polls the cart, which says nothing of a decline")
async def test_a_decline_on_the_customers_phone_is_counted_once_when_it_is_seen() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        intent = await cookie_handed_off(visit)
        assert intent is not None
        with contextlib.suppress(PaymentDeclinedError):
            await rig.client.confirm_demo_payment(intent.client_secret, DECLINE_CARD)
        assert counter.events == [OrderEvent.STARTED]
        assert await visit.check_payment() is Phase.DECLINED
        assert await visit.check_payment() is Phase.DECLINED
        assert counter.events == [OrderEvent.STARTED, OrderEvent.DECLINED]


@pytest.mark.only_dialect("v2", reason="v1 polls the cart, which says nothing of a decline")
@pytest.mark.xfail(
    strict=True,
    reason="real bug: a decline at the kiosk's demo card terminal is counted by "
    "Paying.confirm_demo_payment and again by Visit._order_moved when the payment is checked "
    "and 2.0's order-result says failed (kiosk.metrics shows two declines for one)",
)
async def test_a_decline_at_the_kiosks_card_terminal_is_counted_once() -> None:
    counter = Counter()
    async with demo_rig() as rig:
        visit = counted_visit(rig, counter)
        await cookie_handed_off(visit)
        with pytest.raises(PaymentDeclinedError):
            await visit.confirm_demo_payment(DECLINE_CARD)
        await visit.check_payment()
        assert counter.events == [OrderEvent.STARTED, OrderEvent.DECLINED]


async def test_a_time_the_server_refuses_has_its_slots_read_again_for_the_customer() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        assert visit.state.slots is None
        with pytest.raises(StorefrontError):
            await visit.set_order_time_later("2020-01-01", "03:00")
        # The screen offers the slots the server holds now, never the one it refused.
        assert visit.state.slots is not None and visit.state.slots.order_days
        assert visit.state.order_time == OrderTime()


async def test_a_customer_who_goes_back_and_picks_another_location_orders_there() -> None:
    async with demo_rig() as rig:
        visit = two_location_visit(rig)
        visit.choose_location(rig.location_id)
        assert visit.need_store().location_id == rig.location_id
        visit.choose_location(WESTSIDE.id)
        assert visit.location_id == WESTSIDE.id
        assert visit.need_store().location_id == WESTSIDE.id
        visit.choose_location(rig.location_id)
        assert visit.need_store().location_id == rig.location_id


async def test_once_the_locations_record_arrives_the_order_knows_its_slug_and_its_zone() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        store = visit.need_store()  # the order began before the record was read
        location = await visit.load_location()
        slug = location.restaurant_slug
        assert slug and not store.is_ours(slug)
        visit.choose_location(rig.location_id, location)
        assert visit.need_store() is store
        assert store.is_ours(slug)
        assert store.local_clock.zone is not None
        assert str(store.local_clock.zone) == location.timezone


async def test_the_next_customer_is_not_told_of_the_last_customers_first_slot() -> None:
    from tests.unit.test_customer_visit_rules import _closed_visit, _ClosedNow

    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, None, closed=False, later_only=True)
        visit = _closed_visit(rig, server)
        await cookie_order(visit)
        assert await visit.schedule_if_required() is not None
        assert visit.scheduled_first is not None
        await visit.reset()
        assert visit.scheduled_first is None and visit.asap_refused is None


async def test_the_welcome_forms_address_is_delivered_to_in_the_locations_country() -> None:
    from kiosk.config import DeliveryZone

    zone = DeliveryZone("Downtown", ("10007",), 40.7128, -74.006)
    async with demo_rig() as rig:
        visit = rig.visit()
        visit.delivery_zones = (zone,)
        location = await visit.load_location()
        assert location.address_data is not None
        abroad = location.address_data.model_copy(update={"country": "AU"})
        visit.choose_location(rig.location_id, location.model_copy(update={"address_data": abroad}))
        form = {"street": "1 Main St", "city": "New York", "state": "NY", "zip": "10007"}
        cart = await visit.start_with_details("delivery", form)
        assert cart is None or cart.id == visit.cart_id
        assert visit.state.fulfillment_method == "delivery"
        delivery = visit.state.delivery
        assert delivery is not None
        assert (delivery.street, delivery.zip_code, delivery.country) == (
            "1 Main St",
            "10007",
            "AU",
        )


async def test_a_checkout_at_a_later_only_location_is_set_to_its_first_slot_first() -> None:
    from tests.unit.test_customer_visit_rules import _closed_visit, _ClosedNow

    async with demo_rig() as rig:
        server = _ClosedNow(rig.client, None, closed=False, later_only=True)
        visit = _closed_visit(rig, server)
        await cookie_order(visit)
        result = await visit.checkout("Ada", "ada@example.com")
        assert result is not None and visit.scheduled_first is not None
        cart = visit.state.cart
        assert cart is not None and (cart.pickup_type or "").upper() == "LATER"
        assert (visit.state.customer_name, visit.state.email_address) == ("Ada", "ada@example.com")


async def test_a_customer_who_picks_another_way_keeps_the_cart_and_its_lines() -> None:
    async with demo_rig(WESTSIDE) as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 2)
        cart_id = visit.cart_id
        cart = await visit.start_with_details("table_service", {"table": "5"})
        assert cart is not None and cart.id == cart_id
        assert [(i.product_id, i.quantity) for i in cart.items] == [("prd_cookie", 2)]
        assert visit.state.table_number == "5"
        again = await visit.start("pickup")
        assert again is not None and again.id == cart_id and again.items


async def test_an_order_set_for_later_goes_back_to_as_soon_as_possible() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        slot = (await visit.time_intervals()).order_days[1]
        later = await visit.set_order_time_later(slot.value, slot.intervals[0])
        assert later is not None and (later.pickup_type or "").upper() == "LATER"
        assert visit.state.order_time == OrderTime(slot.value, slot.intervals[0])
        now = await visit.set_order_time_asap()
        assert now is not None and (now.pickup_type or "").upper() != "LATER"
        assert visit.state.order_time == OrderTime() and visit.state.order_time.is_asap


async def test_whether_delivery_is_offered_is_the_locations_servers_word() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        offer = visit.delivery_offer()
        assert offer == visit.state.abilities.delivery
        # 2.0 needs coordinates, which a kiosk without delivery zones cannot give.
        assert offer.offered is (rig.dialect == "v1")


async def test_no_suggestion_is_offered_when_the_recommendations_cannot_be_read() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        rig.faults(error_rate=1.0)
        assert await visit.suggestion() is None  # an optional extra: the order goes on
        rig.faults(error_rate=0.0)
        assert await visit.suggestion() is not None


async def test_a_way_the_location_does_not_offer_is_refused_and_the_customer_asked_again() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        with pytest.raises(StorefrontError):
            await visit.start("table_service", table_number="3")
        # The welcome screen shows the server's words and the ways it offers now.
        assert visit.state.way_refused and "table_service" in visit.state.way_refused
        assert visit.state.ways is not None
        await visit.start("pickup")
        assert visit.state.way_refused is None
        assert visit.state.fulfillment_method == "pickup"


class _SaysLaterOnly:
    """The rig's client, as a server whose ordering session says something besides the cart
    ("ordering for later only"); everything else is the real client's."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def start_ordering_session(self, *args: Any, **kwargs: Any) -> Any:
        session = await self._client.start_ordering_session(*args, **kwargs)
        return session.model_copy(update={"error_message": "Ordering for later only"})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


async def test_a_fresh_cart_the_server_said_something_about_is_read_once() -> None:
    async with demo_rig() as rig:
        server = _SaysLaterOnly(rig.client)
        visit = Visit(
            lambda _location_id: server,  # type: ignore[arg-type,return-value]
            [rig.location_id],
            wall_clock=rig.clock,
            store_options={"sleep": rig.clock.sleep},
        )
        cart = await visit.start("pickup")
        # The menu depends on the order's time: the cart the server holds now is read.
        assert cart is not None and cart.id == visit.cart_id
        assert visit.state.cart is not None
        assert visit.state.session_message == "Ordering for later only"


async def test_a_refused_time_shows_the_cart_the_server_holds_now() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await cookie_order(visit)
        cart_id = visit.cart_id or ""
        # The cart changed on the server behind this screen's back (another device, staff).
        await rig.client.add_item(rig.location_id, cart_id, "prd_espresso", 1)
        assert [i.product_id for i in visit.cart.items] == ["prd_cookie"]  # type: ignore[union-attr]
        with pytest.raises(StorefrontError):
            await visit.set_order_time_later("2020-01-01", "03:00")
        cart = visit.state.cart
        assert cart is not None
        assert sorted(i.product_id for i in cart.items) == ["prd_cookie", "prd_espresso"]
