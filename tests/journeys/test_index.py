"""Every journey of ../shared/journeys.md has its test (17 of them), through the real TUI on the
strict 2.0 server where the journey is a customer's, through the real CLI where it is staff's:

 1-6   tests/journeys/test_paying.py            the order number, declines, restarts, back, speed
 7-10  tests/journeys/test_choices.py           nested choices, typed input, email, later-only
 11-12 tests/journeys/test_waits.py             429 bursts, late writes
 13    tests/tui/test_money_one_currency.py     one currency, English and Spanish (80x24, 120x40)
 14-15 tests/e2e/test_doctor_foreign.py         explicit settings; doctor asks only what it was told
 16    tests/tui/test_quit_keeps_order.py       Ctrl+Q keeps the order
 17    tests/e2e/test_doctor_nonsense.py        a server that answers nonsense
 21,25 tests/journeys/test_server_changes.py    an expired cart, sold out at checkout

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
    21: "journeys/test_server_changes.py",
    25: "journeys/test_server_changes.py",
}


def test_every_journey_has_its_test() -> None:
    missing = []
    for number, where in WHERE.items():
        text = (TESTS / where).read_text(encoding="utf-8")
        named = re.search(rf"(?i)journey[ _]{number}(?!\d)", text)
        if named is None:
            missing.append(f"journey {number} in {where}")
    assert not missing, missing
    # Journeys 1-17 all named; of 18-31 ("When the world changes under an order") those built.
    assert set(range(1, 18)) <= set(WHERE) <= set(range(1, 32))
