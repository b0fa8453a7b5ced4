"""Fixtures for journeys (tests/journeys/harness.py): every test that takes `journey` runs at
80x24 and at 120x40."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.journeys.harness import SIZES, JourneyFactory, start_journey
from tests.support.pilot import quick_pilot


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return tuple(request.param)  # type: ignore[return-value]


@pytest.fixture
def journey(tmp_path: Path, size: tuple[int, int]) -> Iterator[JourneyFactory]:
    """`async with journey(**options) as j:` a kiosk at this test's size on a fresh strict
    server (options: start_journey's)."""

    def factory(**options: Any) -> Any:
        options.setdefault("size", size)
        return start_journey(options.pop("tmp_path", tmp_path), **options)

    # Pilot's idle waits in 4 ms steps instead of 20 (the journey waits for what it needs).
    with quick_pilot():
        yield factory
