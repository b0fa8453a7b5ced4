"""The payment screen's words for each state (kiosk.tui.payment_words): a pure mapping, pinned
here without a screen; the pictures (tests/tui snapshots, -k payment) show them drawn."""

from __future__ import annotations

import pytest

from kiosk.i18n import set_language
from kiosk.tui.payment_words import (
    countdown,
    countdown_text,
    declined_steps,
    demo_hint,
    waiting_words,
)


@pytest.mark.parametrize(
    ("at_counter", "phone_can_pay", "headline", "first_step", "label"),
    [
        (False, True, "Scan to pay", "1. Scan the code", "Pay at the counter (C)"),
        (
            True,
            True,
            "Please pay at the counter",
            "1. Go to the counter",
            "Pay by phone instead (C)",
        ),
        # At the counter, whether a phone could open the page does not matter.
        (
            True,
            False,
            "Please pay at the counter",
            "1. Go to the counter",
            "Pay by phone instead (C)",
        ),
        # A demo whose page no phone can open: the headline says press A, the steps say why.
        (
            False,
            False,
            "Demo: press A to pay",
            "This demo's payment page opens",
            "Pay at the counter (C)",
        ),
    ],
)
def test_waiting_words(
    at_counter: bool, phone_can_pay: bool, headline: str, first_step: str, label: str
) -> None:
    words = waiting_words(at_counter=at_counter, phone_can_pay=phone_can_pay, unreachable=False)
    assert words.headline == headline
    assert words.steps.startswith(first_step)
    assert words.counter_label == label
    # Each way ends where the customer looks for the outcome: this screen.
    assert "order number appears here" in words.steps


@pytest.mark.parametrize("at_counter", [False, True])
def test_out_of_reach_keeps_the_headline_that_says_so(at_counter: bool) -> None:
    words = waiting_words(at_counter=at_counter, phone_can_pay=True, unreachable=True)
    assert words.headline is None
    reachable = waiting_words(at_counter=at_counter, phone_can_pay=True, unreachable=False)
    assert words.steps == reachable.steps  # the steps stay; only the headline is the error's


def test_declined_names_the_counter_only_where_it_is_offered() -> None:
    assert "pay at the counter" in declined_steps(counter_offered=True)
    assert "counter" not in declined_steps(counter_offered=False)
    for offered in (True, False):
        assert declined_steps(counter_offered=offered).startswith("Nothing was charged")


def test_demo_hint_does_not_repeat_press_a_when_the_headline_says_it() -> None:
    assert demo_hint(at_counter=False, phone_can_pay=False) == "Demo: D declines"
    assert demo_hint(at_counter=False, phone_can_pay=True) == "Demo: A pays, D declines"
    assert demo_hint(at_counter=True, phone_can_pay=False) == "Demo: A pays, D declines"


@pytest.mark.parametrize(
    ("seconds", "said"), [(0, "0:00"), (-5, "0:00"), (59, "0:59"), (600, "10:00")]
)
def test_countdown(seconds: int, said: str) -> None:
    assert countdown(seconds) == said


def test_countdown_text_names_the_code_only_when_it_runs_out_first() -> None:
    assert countdown_text(300, None, "dim").plain == "Time left to pay 5:00"
    assert countdown_text(300, 300, "dim").plain == "Time left to pay 5:00"
    assert countdown_text(300, 90, "dim").plain == (
        "Time left to pay 5:00\nThis code works for 1:30; a new one appears by itself."
    )


def test_spanish() -> None:
    set_language("es")
    try:
        words = waiting_words(at_counter=False, phone_can_pay=True, unreachable=False)
        assert words.headline != "Scan to pay"  # translated, from the same catalogue as before
        assert words.counter_label != "Pay at the counter (C)"
    finally:
        set_language("en")
