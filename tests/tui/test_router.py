"""The router's decisions (kiosk.tui.router), without an app: which flow screens stand for the
order as published and the step asked for, and where the order's own changes take the customer."""

from __future__ import annotations

import pytest

from kiosk.tui import router
from kiosk.tui.flow import Step
from kiosk.tui.router import PRODUCT, Where, follow, stack_for

# Short names, so that a stack reads as one line: W(elcome), M(enu), OR(der), C(heckout), ...
W, M, OR, C, P, D, L = (
    Step.WELCOME,
    Step.MENU,
    Step.ORDER,
    Step.CHECKOUT,
    Step.PAYMENT,
    Step.DONE,
    Step.LOCATION,
)
ONE = Where(single_location=True, location_chosen=True)
MANY = Where(single_location=False, location_chosen=True)


@pytest.mark.parametrize(
    ("step", "stack"),
    [(W, (W,)), (M, (W, M)), (OR, (W, M, OR)), (C, (W, M, OR, C)), (P, (W, M, OR, C, P))],
)
def test_each_step_stands_on_the_ones_before_it(step: Step, stack: tuple[Step, ...]) -> None:
    assert stack_for(ONE, step) == stack
    assert stack_for(MANY, step) == (L, *stack)


def test_the_menus_checkout_puts_the_order_under_it() -> None:
    # F2 on the menu: Escape on the checkout goes back to the order, as it says.
    assert stack_for(ONE, C) == (W, M, OR, C)


def test_a_paying_order_and_a_resumed_one_land_on_the_same_stack() -> None:
    paying = Where(True, True, phase="awaiting_payment")
    assert stack_for(paying, P) == (W, M, OR, C, P)
    assert stack_for(Where(True, True, phase="declined"), P) == (W, M, OR, C, P)


def test_a_paid_order_shows_its_number_whatever_was_asked() -> None:
    paid = Where(True, True, phase="paid")
    for step in (M, OR, C, P, D):
        assert stack_for(paid, step) == (W, D)
    assert stack_for(Where(False, True, phase="paid"), OR) == (L, D)


def test_a_refused_way_to_order_goes_to_the_welcome() -> None:
    refused = Where(True, True, way_refused="Delivery is not available now.")
    assert stack_for(refused, P) == (W,)
    assert stack_for(Where(False, True, way_refused="no"), M) == (L, W)


def test_an_expired_order_goes_no_further_than_the_order() -> None:
    expired = Where(True, True, phase="expired")
    assert stack_for(expired, C) == (W, M, OR)
    assert stack_for(expired, M) == (W, M)


def test_no_location_chosen_is_the_location_list() -> None:
    assert stack_for(Where(False), M) == (L,)
    assert router.start(Where(False)) == (L,)
    assert router.start(Where(True)) == (W,)


def test_back_from_the_welcome_of_a_one_location_kiosk_stays() -> None:
    assert stack_for(ONE, L) == (W,)


def test_an_order_paid_away_from_the_payment_shows_the_number() -> None:
    before, now = Where(True, True, phase="ordering"), Where(True, True, phase="paid")
    assert follow(before, now, [W, M, OR]) is D
    # The payment and the done screen show it themselves.
    assert follow(before, now, [W, M, OR, C, P]) is None
    assert follow(now, now, [W, M, OR]) is None  # once


def test_an_order_expired_while_choosing_goes_to_the_order() -> None:
    before, now = Where(True, True), Where(True, True, phase="expired")
    assert follow(before, now, [W, M]) is OR
    assert follow(before, now, [W, M, PRODUCT]) is OR
    # The order screen and the payment say it where they stand; a dialog is left alone.
    assert follow(before, now, [W, M, OR]) is None
    assert follow(before, now, [W, M, OR, C, P]) is None
    assert follow(before, now, [W, M, router.OTHER]) is None


def test_a_refusal_of_the_way_goes_to_the_welcome_once() -> None:
    before, now = Where(True, True), Where(True, True, way_refused="Switched off")
    assert follow(before, now, [W, M, OR]) is W
    assert follow(now, now, [W, M, OR]) is None
    assert follow(None, now, []) is W  # a resume: nothing was published before


def test_where_reads_the_visit_state() -> None:
    from kiosk.ordering.lifecycle import OrderSnapshot, Phase
    from kiosk.ordering.visit import VisitState

    state = VisitState(
        location_id="loc-1",
        order=OrderSnapshot(phase=Phase.AWAITING_PAYMENT),
        way_refused="Gone",
    )
    assert Where.of(state, single_location=False) == Where(
        False, True, phase="awaiting_payment", way_refused="Gone"
    )
    assert Where.of(None, single_location=True) == Where(True)
