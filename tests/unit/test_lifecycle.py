"""The order's lifecycle (kiosk.ordering.lifecycle): the transition table, persistence before
listeners, and the resume file's snapshot."""

from __future__ import annotations

import pytest

from kiosk.ordering.lifecycle import (
    TERMINAL,
    TRANSITIONS,
    Event,
    IllegalTransition,
    Lifecycle,
    OrderSnapshot,
    Phase,
    describe,
)


def test_every_phase_is_reachable_from_ordering_and_every_live_phase_can_end() -> None:
    reachable = {Phase.ORDERING}
    frontier = [Phase.ORDERING]
    while frontier:
        phase = frontier.pop()
        for (source, _event), target in TRANSITIONS.items():
            if source is phase and target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert reachable == set(Phase)
    for phase in set(Phase) - TERMINAL:
        events = {e for (p, e) in TRANSITIONS if p is phase}
        # A payment can land, the cart can go and the customer can leave in every live phase.
        assert {Event.PAID, Event.EXPIRED, Event.CANCELLED} <= events, phase
    for phase in TERMINAL:
        assert not [e for (p, e) in TRANSITIONS if p is phase], phase


def test_a_paid_order_is_never_declined_or_reopened() -> None:
    life = Lifecycle()
    life.fire(Event.CHECKOUT)
    life.fire(Event.HANDED_OFF, checkout_url="https://pay.example/x")
    life.fire(Event.PAID, order_number="R-0044")
    for event in (Event.DECLINED, Event.BACK, Event.CANCELLED, Event.EXPIRED, Event.RETRY):
        assert not life.can(event)
        with pytest.raises(IllegalTransition):
            life.fire(event)
    assert not life.fire_if(Event.DECLINED)
    assert life.phase is Phase.PAID and life.snapshot.order_number == "R-0044"


def test_every_transition_is_persisted_before_listeners_hear_of_it() -> None:
    said: list[str] = []
    life = Lifecycle(persist=lambda snap: said.append(f"persist {snap.phase}"))
    life.subscribe(lambda snap: said.append(f"listen {snap.phase}"))
    life.fire(Event.CHECKOUT)
    life.fire(Event.HANDED_OFF, checkout_url="u", handoff_expires_at="2026-11-26T10:00:00+00:00")
    life.fire(Event.DECLINED, failure_code="PAYMENT_DECLINED")
    assert said == [
        "persist checking_out",
        "listen checking_out",
        "persist awaiting_payment",
        "listen awaiting_payment",
        "persist declined",
        "listen declined",
    ]
    assert life.snapshot.failure_code == "PAYMENT_DECLINED"
    assert life.snapshot.checkout_url == "u"


def test_a_doubt_settles_back_where_it_began() -> None:
    life = Lifecycle()
    life.fire(Event.CHECKOUT)
    life.fire(Event.HANDED_OFF, checkout_url="u")
    life.fire(Event.WRITE_LOST)
    assert life.phase is Phase.IN_DOUBT and life.snapshot.doubt_from is Phase.AWAITING_PAYMENT
    life.fire(Event.WRITE_LOST)  # a second lost answer does not forget where it began
    assert life.snapshot.doubt_from is Phase.AWAITING_PAYMENT
    life.fire(Event.SETTLED)
    assert life.phase is Phase.AWAITING_PAYMENT and life.snapshot.doubt_from is None


def test_the_snapshot_survives_the_resume_file_and_bad_files_are_harmless() -> None:
    snap = OrderSnapshot(
        phase=Phase.DECLINED,
        order_number=None,
        failure_code="PAYMENT_DECLINED",
        checkout_url="https://pay.example/h",
        handoff_expires_at="2026-11-26T10:00:00+00:00",
        at_counter=True,
    )
    assert OrderSnapshot.from_json(snap.to_json()) == snap
    for junk in (None, [], "x", {"phase": "nonsense"}, {"phase": 3, "at_counter": "yes"}):
        assert OrderSnapshot.from_json(junk) == OrderSnapshot()


def test_the_table_prints_every_phase() -> None:
    text = describe()
    for phase in Phase:
        assert f"{phase}:" in text
    assert "awaiting_payment: " in text and "paid -> paid" in text
    assert "paid: (final)" in text
