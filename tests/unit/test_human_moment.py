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


@pytest.mark.parametrize(
    ("day", "said"),
    [
        ("2026-03-16", "Monday 09:30"),  # six days ahead: still this week
        ("2026-03-17", "Mar 17, 2026 09:30"),  # a week ahead: the date, not "Tuesday"
        ("2026-03-09", "Mar 9, 2026 09:30"),  # yesterday: the date
    ],
)
def test_the_week_ends_before_the_same_weekday_comes_round(day: str, said: str) -> None:
    assert human_moment(day, "09:30", NOW, "en-US") == said


def test_no_locale_is_english() -> None:
    assert human_moment("2026-03-20", "09:30", NOW, None) == "Mar 20, 2026 09:30"
