"""Every journey of ../shared/journeys.md has its test, through the real TUI on the strict 2.0
server where the journey is a customer's, through the real CLI where it is staff's:

 1-6      tests/journeys/test_paying.py           the order number, declines, restarts, back, speed
 7-10     tests/journeys/test_choices.py          nested choices, typed input, email, later-only
 11-12    tests/journeys/test_waits.py            429 bursts, late writes
 13       tests/tui/test_money_one_currency.py    one currency, English and Spanish
 14-15    tests/e2e/test_doctor_foreign.py        explicit settings; doctor asks only that
 16       tests/tui/test_quit_keeps_order.py      Ctrl+Q keeps the order
 17       tests/e2e/test_doctor_nonsense.py       a server that answers nonsense
 18-19    tests/journeys/test_restarts.py         a restart at checkout keeps the order's way
 20,23,24 tests/journeys/test_ways_and_times.py   a way to order or a time the server refuses
 21,25    tests/journeys/test_server_changes.py   an expired cart, a line sold out at checkout
 22,27,28 tests/journeys/test_payment_session.py  a payment session that always ends
 26,29-31 tests/journeys/test_refusals.py         the server's words, a closed location, an empty
                                                  category

This test keeps the index honest: each journey's number is named by a test there."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
WHERE = {
    **dict.fromkeys(range(1, 7), "journeys/test_paying.py"),
    **dict.fromkeys(range(7, 11), "journeys/test_choices.py"),
    11: "journeys/test_waits.py",
    12: "journeys/test_waits.py",
    13: "tui/test_money_one_currency.py",
    14: "e2e/test_doctor_foreign.py",
    15: "e2e/test_doctor_foreign.py",
    16: "tui/test_quit_keeps_order.py",
    17: "e2e/test_doctor_nonsense.py",
    18: "journeys/test_restarts.py",
    19: "journeys/test_restarts.py",
    **dict.fromkeys((20, 23, 24), "journeys/test_ways_and_times.py"),
    **dict.fromkeys((21, 25), "journeys/test_server_changes.py"),
    **dict.fromkeys((22, 27, 28), "journeys/test_payment_session.py"),
    **dict.fromkeys((26, 29, 30, 31), "journeys/test_refusals.py"),
}


def test_every_journey_has_its_test() -> None:
    missing = []
    for number, where in WHERE.items():
        text = (TESTS / where).read_text(encoding="utf-8")
        named = re.search(rf"(?i)journey[ _]{number}(?!\d)", text)
        if named is None:
            missing.append(f"journey {number} in {where}")
    assert not missing, missing
    assert sorted(WHERE) == list(range(1, 32))
