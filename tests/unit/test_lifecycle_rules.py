"""Rules of the order's lifecycle (kiosk.ordering.lifecycle) that the mutation runs showed
untested (docs/mutation.md, issue 32 item 8): what the table allows, the record a row makes, the
record kept in the resume file and read back, the listeners, and the printed table."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kiosk.ordering.lifecycle import (
    TRANSITIONS,
    Event,
    Lifecycle,
    OrderSnapshot,
    Phase,
    WayToOrder,
    describe,
)


def test_the_table_says_which_events_each_phase_takes() -> None:
    for phase in Phase:
        life = Lifecycle(OrderSnapshot(phase=phase))
        for event in Event:
            assert life.can(event) is ((phase, event) in TRANSITIONS), (phase, event)


def test_a_fired_row_answers_the_record_it_made() -> None:
    life = Lifecycle()
    made = life.fire(Event.CHECKOUT)
    assert made is life.snapshot and made.phase is Phase.CHECKING_OUT
    made = life.fire(Event.HANDED_OFF, checkout_url="https://pay.example/x")
    assert made is life.snapshot and made.checkout_url == "https://pay.example/x"


def test_a_payment_that_lands_while_a_write_is_in_doubt_leaves_no_doubt_behind() -> None:
    life = Lifecycle()
    life.fire(Event.CHECKOUT)
    life.fire(Event.HANDED_OFF, checkout_url="https://pay.example/x")
    life.fire(Event.WRITE_LOST)
    assert life.snapshot.doubt_from is Phase.AWAITING_PAYMENT
    life.fire(Event.PAID, order_number="R-0044")
    assert life.phase is Phase.PAID and life.snapshot.doubt_from is None


@pytest.mark.parametrize(
    "way",
    [
        WayToOrder("room_service", room_last_name="Okafor", room_number="304"),
        WayToOrder("table_service", table_number="8"),
        WayToOrder("delivery", delivery={"street": "1 Wall St", "city": "New York"}),
    ],
    ids=["room", "table", "delivery"],
)
def test_the_way_to_order_and_a_doubt_survive_a_restart(way: WayToOrder) -> None:
    kept = OrderSnapshot(
        phase=Phase.IN_DOUBT,
        doubt_from=Phase.AWAITING_PAYMENT,
        checkout_url="https://pay.example/h",
        way=way,
        order_time=("2026-03-02", "18:30"),
        customer_name="Ana",
    )
    assert OrderSnapshot.from_json(kept.to_json()) == kept


def test_a_damaged_records_fields_that_are_not_text_are_dropped() -> None:
    read = OrderSnapshot.from_json(
        {"order_number": "", "failure_code": 42, "customer_name": ["Ana"], "checkout_url": "u"}
    )
    assert read.order_number is None and read.failure_code is None
    assert read.customer_name is None and read.checkout_url == "u"
    way = WayToOrder.from_json({"method": "room_service", "room_number": "", "room_last_name": 7})
    assert way == WayToOrder("room_service")


def test_the_kept_hand_offs_expiry_is_read_back_when_it_is_a_time() -> None:
    at = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)
    assert OrderSnapshot(handoff_expires_at=at.isoformat()).handoff_expires() == at
    assert OrderSnapshot().handoff_expires() is None
    assert OrderSnapshot(handoff_expires_at="soon").handoff_expires() is None


def test_a_listener_that_stopped_hears_nothing_more() -> None:
    life = Lifecycle()
    heard: list[Phase] = []
    stop = life.subscribe(lambda snapshot: heard.append(snapshot.phase))
    life.fire(Event.CHECKOUT)
    stop()
    life.fire(Event.REFUSED)
    assert heard == [Phase.CHECKING_OUT]
    stop()  # a second stop is harmless


def test_the_printed_table_has_one_line_a_phase_with_that_phases_rows() -> None:
    lines = describe().split("\n")
    assert len(lines) == len(Phase)
    for phase, line in zip(Phase, lines, strict=True):
        said, rows = line.split(": ", 1)
        assert said == f"{phase}"
        events = [row.split(" -> ")[0] for row in rows.split(", ")]
        assert events == [f"{e}" for (p, e) in TRANSITIONS if p is phase]
