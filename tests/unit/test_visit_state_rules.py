"""What a screen shows of the way to order, the time and the name (kiosk.ordering.visit_state),
derived from the server's cart and the record the terminal kept; pure (no server). Found
untested by the whole-module mutation run (tools/mutate.py, issue 32 item 8)."""

from __future__ import annotations

from typing import Any

from kiosk.api.models import Cart, DeliveryAddress
from kiosk.ordering.abilities import Abilities
from kiosk.ordering.lifecycle import OrderSnapshot, WayToOrder
from kiosk.ordering.visit_state import (
    CUSTOMER_FIELDS,
    OrderTime,
    VisitState,
    resumed_fields,
    way_fields,
)

HOME = DeliveryAddress(
    street="1 Main St", city="Springfield", state="IL", zip_code="62701", country="US"
)


def _cart(**fields: Any) -> Cart:
    return Cart.model_validate({"id": "c1", **fields})


def _kept(way: WayToOrder | None = None, **fields: Any) -> OrderSnapshot:
    return OrderSnapshot(way=way, **fields)


def test_before_any_order_there_is_no_way_to_order() -> None:
    assert way_fields(None, _kept()) == {
        "fulfillment_method": None,
        "table_number": None,
        "delivery": None,
        "room": None,
    }


def test_the_servers_cart_names_the_way_when_the_terminal_kept_none() -> None:
    shown = way_fields(_cart(fulfilmentMethod="pickup"), _kept())
    assert shown == {
        "fulfillment_method": "pickup",
        "table_number": None,
        "delivery": None,
        "room": None,
    }
    table = way_fields(
        _cart(fulfilmentMethod="table_service", tableServiceInfo={"tableNumber": "12"}), _kept()
    )
    assert (table["fulfillment_method"], table["table_number"]) == ("table_service", "12")


def test_the_servers_table_wins_over_the_one_kept_and_the_kept_one_fills_a_silent_cart() -> None:
    kept = _kept(WayToOrder("table_service", table_number="7"))
    server = _cart(fulfilmentMethod="table_service", tableServiceInfo={"tableNumber": "12"})
    assert way_fields(server, kept)["table_number"] == "12"
    silent = _cart(fulfilmentMethod="table_service")
    assert way_fields(silent, kept)["table_number"] == "7"
    blank = _cart(fulfilmentMethod="table_service", tableServiceInfo={"tableNumber": ""})
    assert way_fields(blank, kept)["table_number"] == "7"
    # Before the server's cart is read, the record alone says the way and its table.
    assert way_fields(None, kept)["fulfillment_method"] == "table_service"
    assert way_fields(None, kept)["table_number"] == "7"
    assert (
        way_fields(None, _kept(WayToOrder("table_service", table_number="")))["table_number"]
        is None
    )


def test_a_room_is_shown_as_kept_with_its_name_or_none() -> None:
    room = _kept(WayToOrder("room_service", room_last_name="Okafor", room_number="304"))
    shown = way_fields(_cart(fulfilmentMethod="room_service"), room)
    assert shown["fulfillment_method"] == "room_service"
    assert shown["room"] == ("Okafor", "304")
    assert shown["table_number"] is None and shown["delivery"] is None
    nameless = _kept(WayToOrder("room_service", room_number="304"))
    assert way_fields(None, nameless)["room"] == ("", "304")
    numberless = _kept(WayToOrder("room_service", room_last_name="Okafor"))
    assert way_fields(None, numberless)["room"] is None


def test_a_kept_delivery_address_is_shown_and_an_unreadable_one_is_not() -> None:
    delivery = _kept(WayToOrder("delivery", delivery=HOME.model_dump()))
    shown = way_fields(_cart(fulfilmentMethod="delivery"), delivery)
    assert shown["delivery"] == HOME
    assert shown["room"] is None
    broken = _kept(WayToOrder("delivery", delivery={"street": "1 Main St"}))
    assert way_fields(None, broken)["delivery"] is None
    assert way_fields(None, _kept(WayToOrder("delivery", delivery={})))["delivery"] is None
    assert way_fields(None, _kept(WayToOrder("delivery")))["delivery"] is None


def test_an_order_eaten_here_stays_dine_in_though_the_20_cart_says_takeout() -> None:
    kept = _kept(WayToOrder("dine_in", table_number="4"))
    shown = way_fields(_cart(fulfilmentMethod="pickup"), kept)
    assert shown["fulfillment_method"] == "dine_in"
    assert shown["table_number"] == "4"


def test_the_servers_way_wins_over_a_kept_way_it_contradicts() -> None:
    kept = _kept(
        WayToOrder(
            "room_service",
            table_number="9",
            room_last_name="Okafor",
            room_number="304",
            delivery=HOME.model_dump(),
        )
    )
    shown = way_fields(_cart(fulfilmentMethod="pickup"), kept)
    assert shown == {
        "fulfillment_method": "pickup",
        "table_number": None,
        "delivery": None,
        "room": None,
    }


def test_a_restart_brings_back_the_later_time_and_the_name_kept() -> None:
    kept = _kept(order_time=("2026-03-03", "10:00"), customer_name="Ada")
    assert resumed_fields(kept) == {
        "order_time": OrderTime("2026-03-03", "10:00"),
        "customer_name": "Ada",
    }
    assert resumed_fields(_kept()) == {"order_time": OrderTime(), "customer_name": ""}


def test_an_order_time_is_as_soon_as_possible_unless_both_its_date_and_time_are_set() -> None:
    assert OrderTime().is_asap is True
    assert OrderTime("2026-03-03", None).is_asap is True
    assert OrderTime(None, "10:00").is_asap is True
    assert OrderTime("2026-03-03", "10:00").is_asap is False


def test_the_abilities_shown_are_the_chosen_locations_and_an_order_is_a_server_cart() -> None:
    here, there = Abilities(), Abilities(email_required=False, intent_locks_cart=False)
    state = VisitState(location_id="loc_b", served=(("loc_a", here), ("loc_b", there)))
    assert state.abilities == there and state.abilities_at("loc_a") == here
    assert state.abilities_at("loc_c") == Abilities()
    assert VisitState().has_order is False
    assert VisitState(cart_id="c1").has_order is True
    assert CUSTOMER_FIELDS["order_time"] == OrderTime()
