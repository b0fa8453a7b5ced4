"""Back from paying on the strict 2.0 server, whose cart stays open after its hand-off (the
demo's locks): the same cart is the order, and the code shown before still pays it. A rule the
whole-module mutation run of kiosk/ordering/paying.py showed unasserted (docs/mutation.md,
issue 32 item 8); the scripted machine of test_order_machine.py drives it."""

from __future__ import annotations

from typing import Any

from kiosk.ordering.lifecycle import Phase
from tests.conformance.test_order_machine import Fixed, VisitMachine, play


def test_back_from_paying_keeps_the_open_cart_and_its_code() -> None:
    reopened: list[Any] = []
    seen: dict[str, Any] = {}

    def checked_out(m: VisitMachine) -> None:
        seen["cart_id"] = m.visit.state.cart_id
        seen["url"] = m.visit.state.order.checkout_url

    def back(m: VisitMachine) -> None:
        reopened.append(m.attempt(m.visit.reopen_order()))
        seen["phase"] = m.visit.state.order.phase
        seen["after"] = (m.visit.state.cart_id, m.visit.state.order.checkout_url)
        seen["left"] = m.visit.kept_handoff_seconds_left()
        # Nobody pays with it: watched until it stops working, the order still open.
        seen["watched"] = m.run(m.visit.watch_kept_handoff(every=10))
        seen["left_after"] = m.visit.kept_handoff_seconds_left()

    play(
        lambda m: m.choose_a_way("room_service"),
        lambda m: m.add_a_line(Fixed("prod_jasmine_tea", 1)),
        lambda m: m.checkout(),
        checked_out,
        back,
    )
    assert seen["url"]
    assert reopened and reopened[0] is not None and reopened[0].kept_handoff
    assert not reopened[0].paid
    assert seen["phase"] is Phase.ORDERING
    assert seen["after"] == (seen["cart_id"], seen["url"])
    assert seen["left"] is not None and seen["left"] > 0
    assert seen["watched"] is Phase.ORDERING
    assert seen["left_after"] is not None and seen["left_after"] <= 0
