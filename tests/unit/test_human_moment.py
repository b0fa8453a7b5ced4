"""The order's time in words (issue 20): "Today 14:45", "Tomorrow 07:00", a weekday, a date."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from kiosk.i18n import set_language
from kiosk.ordering.clock import human_moment

# Tuesday 10 March 2026, 13:00 in New York.
NOW = datetime(2026, 3, 10, 13, 0, tzinfo=ZoneInfo("America/New_York"))


@pytest.mark.parametrize(
    ("day", "at", "said"),
    [
        ("2026-03-10", "14:45", "Today 14:45"),
        ("2026-03-11", "07:00", "Tomorrow 07:00"),
        ("2026-03-13", "09:30", "Friday 09:30"),
        ("2026-03-20", "09:30", "Mar 20, 2026 09:30"),
        ("2026-03-10", "14:45:00", "Today 14:45"),
        (None, "14:45", "14:45"),
        ("soon", "14:45", "soon 14:45"),
    ],
)
def test_english(day: str | None, at: str, said: str) -> None:
    assert human_moment(day, at, NOW, "en-US") == said


def test_spanish() -> None:
    set_language("es")
    try:
        assert human_moment("2026-03-10", "14:45", NOW, "es") == "Hoy 14:45"
        assert human_moment("2026-03-11", "07:00", NOW, "es") == "Mañana 07:00"
        assert human_moment("2026-03-13", "09:30", NOW, "es") == "viernes 09:30"
    finally:
        set_language("en")
