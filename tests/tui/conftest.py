"""The tui tests' fixtures. The kiosk they drive and the waits that settle it live in
tests/support/tui.py (named here too, for the tests that import them from this conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
import textual._doc
import textual.screen

from kiosk.demo.data import DOWNTOWN, WESTSIDE
from tests.support import snapshots
from tests.support.tui import (
    BASE_URL,
    FIXED_NOW,
    LONG_RUNNING,
    PAY_URL,
    CountingSecrets,
    Kiosk,
    freeze_inputs,
    make_kiosk,
    messages_pending,
    no_sleep,
    no_thanks,
    settle,
)

__all__ = [
    "BASE_URL",
    "DOWNTOWN",
    "FIXED_NOW",
    "LONG_RUNNING",
    "PAY_URL",
    "WESTSIDE",
    "CountingSecrets",
    "Kiosk",
    "freeze_inputs",
    "make_kiosk",
    "messages_pending",
    "no_sleep",
    "no_thanks",
    "settle",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    snapshots.learn_groups(items)


@pytest.fixture(autouse=True)
def one_walk_for_sizes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot test's sizes share one walk of the app (tests/support/snapshots.py)."""
    key = snapshots.group_key(request.node)
    if key is None:
        return
    take = snapshots.shared_screenshot(key, textual._doc.take_svg_screenshot)
    if take is not None:
        monkeypatch.setattr(textual._doc, "take_svg_screenshot", take)


@pytest.fixture
def kiosk(tmp_path: Path) -> Kiosk:
    return make_kiosk(tmp_path)


@pytest.fixture
def deterministic_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    from kiosk.demo.domain import carts, items, payments

    # One counter for every module that mints ids, so they come in the order they are made.
    fake = CountingSecrets()
    for module in (carts, items, payments):
        monkeypatch.setattr(module, "secrets", fake)
