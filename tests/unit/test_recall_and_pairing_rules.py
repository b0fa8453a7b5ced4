"""Two small rules of the order's edges: the last order's number kept on the terminal for "Missed
your order number?" (kiosk.ordering.recent), and what the menu calls a drink
(kiosk.ordering.pairing). Found untested by the whole-module mutation run (tools/mutate.py, issue
32 item 8)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from kiosk.ordering.pairing import drink_ids
from kiosk.ordering.recent import RECALL_WINDOW, RecentNumber


class Wall:
    def __init__(self, at: float = 1_000_000.0) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


# -- the last order's number --------------------------------------------------------------------


def test_the_next_customers_number_replaces_the_last_within_the_window() -> None:
    wall = Wall()
    recent = RecentNumber(clock=wall)
    recent.remember("41")
    wall.at += 60
    recent.remember("42")
    assert recent.get() == "42"
    assert recent.remaining() == RECALL_WINDOW


def test_the_window_runs_from_the_payment_and_a_number_told_after_it_starts_anew() -> None:
    wall = Wall()
    recent = RecentNumber(clock=wall)
    recent.remember("42")
    wall.at += 100
    recent.remember("42")  # heard again (another session said PAID): the same window
    assert recent.remaining() == RECALL_WINDOW - 100
    wall.at += RECALL_WINDOW
    assert recent.get() is None
    recent.remember("42")
    assert recent.get() == "42" and recent.remaining() == RECALL_WINDOW


def test_the_number_is_offered_to_the_last_moment_of_its_window() -> None:
    wall = Wall()
    recent = RecentNumber(clock=wall)
    recent.remember("42")
    wall.at += RECALL_WINDOW - 0.5
    assert recent.get() == "42"
    recent.remember("42")
    assert recent.remaining() == 0.5


def test_no_number_leaves_the_last_one_offered() -> None:
    recent = RecentNumber(clock=Wall())
    recent.remember("42")
    recent.remember(None)
    recent.remember("")
    assert recent.get() == "42"


@pytest.mark.parametrize("number", ["7", "A" * 64])
def test_a_number_of_one_to_64_characters_is_offered_again_after_a_restart(
    tmp_path: Path, number: str
) -> None:
    wall = Wall()
    RecentNumber(tmp_path / "recent.json", clock=wall).remember(number)
    wall.at += 10
    assert RecentNumber(tmp_path / "recent.json", clock=wall).get() == number


@pytest.mark.parametrize(
    "kept",
    [
        {"number": "", "at": 1_000_000.0},
        {"number": "A" * 65, "at": 1_000_000.0},
        {"number": None, "at": 1_000_000.0},
        {"number": 42, "at": 1_000_000.0},
        {"number": "42", "at": "yesterday"},
        {"number": "42"},
    ],
)
def test_a_kept_number_that_is_not_ours_is_not_offered(tmp_path: Path, kept: object) -> None:
    path = tmp_path / "recent.json"
    path.write_text(json.dumps(kept), encoding="utf-8")
    recent = RecentNumber(path, clock=Wall(1_000_010.0))
    assert recent.get() is None
    assert recent.remaining() == 0.0


# -- what the menu calls a drink ------------------------------------------------------------------


def test_a_product_tagged_as_a_drink_is_one_in_any_category() -> None:
    lemonade = SimpleNamespace(id="lemonade", tags=["Beverage"])
    fries = SimpleNamespace(id="fries", tags=["side"])
    plain = SimpleNamespace(id="plain", tags=None)
    specials = SimpleNamespace(name="Specials", products=[lemonade, fries, plain])
    unnamed = SimpleNamespace(name=None, products=[SimpleNamespace(id="mystery", tags=[])])
    menus = SimpleNamespace(menus=[SimpleNamespace(categories=[specials, unnamed])])
    assert drink_ids(menus) == {"lemonade"}
