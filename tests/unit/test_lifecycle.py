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
    WayToOrder,
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
        # An ended order only hears the server say so again (it stays, or the server's
        # "completed" wins), or gives way to a new order.
        for (source, event), target in TRANSITIONS.items():
            if source is phase:
                assert target in (phase, Phase.PAID) or event is Event.NEW_ORDER, (phase, event)


def test_every_event_the_table_does_not_list_raises_in_every_phase() -> None:
    """The table is the only door: for every phase and every event, either the row moves the
    record where the table says, or the event raises and nothing changes."""
    for phase in Phase:
        for event in Event:
            if event in (Event.RESTORED, Event.SETTLED):
                continue  # their targets come from the record (tested below)
            life = Lifecycle(OrderSnapshot(phase=phase, doubt_from=None))
            said: list[OrderSnapshot] = []
            life.subscribe(said.append)
            target = TRANSITIONS.get((phase, event))
            if target is None:
                with pytest.raises(IllegalTransition):
                    life.fire(event)
                assert life.phase is phase and said == []
            else:
                life.fire(event)
                assert life.phase is target and len(said) == 1, (phase, event)


def test_a_paid_order_is_never_declined_or_reopened() -> None:
    life = Lifecycle()
    life.fire(Event.CHECKOUT)
    life.fire(Event.HANDED_OFF, checkout_url="https://pay.example/x")
    life.fire(Event.PAID, order_number="R-0044")
    for event in (Event.DECLINED, Event.BACK, Event.RETRY, Event.HANDED_OFF, Event.COUNTER):
        assert not life.can(event)
        with pytest.raises(IllegalTransition):
            life.fire(event)
    # The server saying it again, or the cart going afterwards, leaves the order paid.
    for event in (Event.PAID, Event.CANCELLED, Event.EXPIRED):
        life.fire(event)
    assert life.phase is Phase.PAID and life.snapshot.order_number == "R-0044"


def test_recorded_facts_are_rows_that_write_only_what_they_name() -> None:
    life = Lifecycle()
    life.fire(Event.WAY_CHOSEN, way=WayToOrder("table_service", table_number="8"))
    life.fire(Event.TIME_CHOSEN, order_time=("2026-03-02", "18:30"))
    with pytest.raises(IllegalTransition):
        life.fire(Event.WAY_CHOSEN, order_number="X1")  # a row records what it names only
    life.fire(Event.CHECKOUT)
    life.fire(Event.NAMED, customer_name="Ada")
    with pytest.raises(IllegalTransition):
        life.fire(Event.WAY_CHOSEN, way=WayToOrder("pickup"))  # not while checking out
    life.fire(Event.HANDED_OFF, checkout_url="u")
    life.fire(Event.COUNTER, at_counter=True)
    snap = life.snapshot
    assert snap.way == WayToOrder("table_service", table_number="8")
    assert snap.order_time == ("2026-03-02", "18:30") and snap.customer_name == "Ada"
    assert snap.at_counter and snap.phase is Phase.AWAITING_PAYMENT
    assert OrderSnapshot.from_json(snap.to_json()) == snap


def test_a_restart_restores_the_kept_record_once_and_a_new_order_drops_it() -> None:
    kept = OrderSnapshot(
        phase=Phase.AWAITING_PAYMENT,
        checkout_url="u",
        way=WayToOrder("delivery", delivery={"street": "10 Pitt St"}),
    )
    life = Lifecycle()
    life.fire(Event.RESTORED, snapshot=kept)
    assert life.snapshot == kept
    with pytest.raises(IllegalTransition):
        life.fire(Event.RESTORED, snapshot=kept)  # only over an empty record
    with pytest.raises(IllegalTransition):
        life.fire(Event.NEW_ORDER)  # a live order is ended first (paid, expired, cancelled)
    life.fire(Event.CANCELLED)
    life.fire(Event.NEW_ORDER)
    assert life.snapshot == OrderSnapshot()


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
    assert "restored -> <the restored phase>" in text
    assert "settled -> <where the doubt began>" in text


def test_only_the_owner_touches_the_order_record() -> None:
    """One owner of the order: outside kiosk/ordering/lifecycle.py nothing assigns a record, and
    outside the CartStore nothing reaches the lifecycle or assigns the cart id (the Visit, the
    screens and the store's own helpers, the cart writer, the edits and the payment hand-off, ask
    the store: `store.order`, `store.phase`, `back_to_order()`, `take_up()`, ...). Read from the
    code itself, so a new side door fails here."""
    import ast
    from pathlib import Path

    kiosk = Path(__file__).resolve().parents[2] / "kiosk"
    doors = []
    for path in sorted(kiosk.rglob("*.py")):
        relative = path.relative_to(kiosk).as_posix()
        if relative.startswith("demo/"):
            continue  # the demo backend is another party with carts of its own
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                if node.attr == "lifecycle" and relative != "ordering/cart_store.py":
                    doors.append(f"{relative}:{node.lineno} reaches .lifecycle")
                if (
                    node.attr == "cart_id"
                    and isinstance(node.ctx, ast.Store)
                    and relative != "ordering/cart_store.py"
                ):
                    # The writer, the edits and the hand-off ask the owner (take_up, let_go).
                    doors.append(f"{relative}:{node.lineno} assigns the cart id")
                if (
                    node.attr == "snapshot"
                    and isinstance(node.ctx, ast.Store)
                    and relative != "ordering/lifecycle.py"
                ):
                    doors.append(f"{relative}:{node.lineno} assigns a record")
                inner = node.value
                if (
                    node.attr in ("set", "update", "fire_if")
                    and isinstance(inner, ast.Attribute)
                    and inner.attr == "lifecycle"
                ):
                    doors.append(f"{relative}:{node.lineno} lifecycle.{node.attr}")
    assert not doors, doors
