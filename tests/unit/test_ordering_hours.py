"""Opening hours in the location's timezone (kiosk.ordering.hours)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.api.models import Location
from kiosk.ordering.hours import DayHours, opening_status, parse_hours
from tests.api.conftest import vendor_fixture

NY = ZoneInfo("America/New_York")

WEEKDAYS = [
    {"day": d, "open": "11:00", "close": "22:00"}
    for d in ("monday", "tuesday", "wednesday", "thursday", "friday")
]


def location(tz: str | None = "America/New_York", hours: list[Any] | None = None) -> Location:
    data: dict[str, Any] = {"id": "loc1", "restaurantDisplayName": "Diner"}
    if tz is not None:
        data["timezone"] = tz
    if hours is not None:
        data["hours"] = hours
    return Location.model_validate(data)


def test_missing_timezone_or_hours_is_hours_unknown() -> None:
    for loc in (
        location(tz=None, hours=WEEKDAYS),
        location(hours=None),
        location(hours=[]),
        location(tz="Mars/Olympus_Mons", hours=WEEKDAYS),
        location(hours=[{"day": "someday", "open": "xx", "close": None}]),
    ):
        status = opening_status(loc, datetime(2026, 3, 2, 12, tzinfo=UTC))
        assert not status.known
        assert status.is_open is None
        assert status.today_text == "hours unknown"
        assert status.summary == "Hours unknown"


def test_the_vendor_fixture_location_has_no_hours_and_does_not_crash() -> None:
    loc = Location.model_validate(vendor_fixture("location.json"))
    assert opening_status(loc).summary == "Hours unknown"


def test_open_or_closed_is_decided_in_the_locations_timezone() -> None:
    # Monday 2 March 2026, 15:30 UTC: 10:30 in New York (EST), 00:30 Tuesday in Tokyo.
    instant = datetime(2026, 3, 2, 15, 30, tzinfo=UTC)
    ny = opening_status(location(hours=WEEKDAYS), instant)
    assert ny.known and ny.is_open is False
    assert ny.now is not None and ny.now.hour == 10
    assert ny.today_text == "11:00–22:00"
    assert ny.summary == "Closed · opens at 11:00"
    assert ny.opens_at == datetime(2026, 3, 2, 11, 0, tzinfo=NY)

    tokyo = opening_status(location("Asia/Tokyo", WEEKDAYS), instant)
    assert tokyo.is_open is False and tokyo.summary == "Closed · opens at 11:00"
    assert tokyo.now is not None and tokyo.now.weekday() == 1  # already Tuesday there

    london = opening_status(location("Europe/London", WEEKDAYS), instant)
    assert london.is_open is True
    assert london.summary == "Open · until 22:00"
    assert london.closes_at == datetime(2026, 3, 2, 22, 0, tzinfo=ZoneInfo("Europe/London"))


def test_a_closed_day_says_closed_today_and_when_it_opens_next() -> None:
    sunday = datetime(2026, 3, 1, 12, tzinfo=NY)
    status = opening_status(location(hours=WEEKDAYS), sunday)
    assert status.is_open is False
    assert status.today_text == "closed today"
    # Said once: never "today closed today".
    assert status.today_phrase == "closed today"
    assert status.summary == "Closed · opens tomorrow at 11:00"
    monday = opening_status(location(hours=WEEKDAYS), datetime(2026, 3, 2, 12, tzinfo=NY))
    assert monday.today_phrase == "today 11:00–22:00"
    friday_night = datetime(2026, 3, 6, 23, tzinfo=NY)
    later = opening_status(location(hours=WEEKDAYS), friday_night)
    assert later.summary == "Closed · opens Monday at 11:00"


def test_overnight_hours_run_past_midnight() -> None:
    hours = [
        {"day": "friday", "open": "18:00", "close": "02:00"},
        {"day": "saturday", "open": "12:00", "close": "15:00"},
    ]
    # Saturday 01:30: still Friday's evening.
    status = opening_status(location(hours=hours), datetime(2026, 3, 7, 1, 30, tzinfo=NY))
    assert status.is_open is True
    assert status.closes_at == datetime(2026, 3, 7, 2, 0, tzinfo=NY)
    assert status.summary == "Open · until 02:00"
    # Today's hours are Saturday's own, not Friday's spill-over.
    assert status.today_text == "12:00–15:00"
    # Friday 23:00: open until 02:00 tomorrow.
    friday = opening_status(location(hours=hours), datetime(2026, 3, 6, 23, tzinfo=NY))
    assert friday.summary == "Open · until 02:00 tomorrow"
    assert friday.today_text == "18:00–02:00"
    # Saturday 02:00 exactly: closed, opens at noon.
    closed = opening_status(location(hours=hours), datetime(2026, 3, 7, 2, 0, tzinfo=NY))
    assert closed.is_open is False and closed.summary == "Closed · opens at 12:00"


def test_split_service_and_back_to_back_hours() -> None:
    hours = [
        {"day": "mon", "open": "11:30", "close": "14:00"},
        {"day": "Mon", "open": "17:00", "close": "22:00"},
        # Back to back across midnight: one evening, 20:00 Tuesday to 03:00 Wednesday.
        {"day": "tue", "open": "20:00", "close": "24:00"},
        {"day": "wed", "open": "00:00", "close": "03:00"},
    ]
    lunch_gap = opening_status(location(hours=hours), datetime(2026, 3, 2, 15, tzinfo=NY))
    assert lunch_gap.today_text == "11:30–14:00, 17:00–22:00"
    assert lunch_gap.is_open is False and lunch_gap.summary == "Closed · opens at 17:00"
    late = opening_status(location(hours=hours), datetime(2026, 3, 3, 21, tzinfo=NY))
    assert late.is_open is True
    assert late.closes_at == datetime(2026, 3, 4, 3, 0, tzinfo=NY)
    assert late.today_text == "20:00–00:00"


def test_day_spellings_and_numbers() -> None:
    hours = [
        {"day": 0, "open": "09:00", "close": "10:00"},  # Sunday (JavaScript)
        {"day": 7, "open": "10:00", "close": "11:00"},  # Sunday (ISO)
        {"day": "1", "open": "09:00", "close": "10:00"},  # Monday
        {"day": "TUESDAY", "open": "9:00", "close": "10:00:00"},
        {"day": "Thurs", "open": "09:00", "close": "10:00"},
        {"day": 9, "open": "09:00", "close": "10:00"},  # no such day: skipped
        {"day": "funday", "open": "09:00", "close": "10:00"},
        {"day": "friday", "open": "25:00", "close": "10:00"},
        {"day": "friday", "open": "09:60", "close": "10:00"},
        {"day": "saturday", "open": None, "close": "10:00"},
    ]
    parsed = parse_hours(hours)
    assert [(h.weekday, h.opens) for h in parsed] == [
        (0, time(9)),
        (1, time(9)),
        (3, time(9)),
        (6, time(9)),
        (6, time(10)),
    ]
    sunday = opening_status(location(hours=hours), datetime(2026, 3, 1, 9, 30, tzinfo=NY))
    assert sunday.today_text == "09:00–10:00, 10:00–11:00"
    assert sunday.summary == "Open · until 11:00"  # back-to-back openings merge


def test_plain_dicts_work_as_well_as_models() -> None:
    loc = {"timezone": "America/New_York", "hours": WEEKDAYS}
    assert opening_status(loc, datetime(2026, 3, 2, 12, tzinfo=NY)).is_open is True


def test_open_around_the_clock_has_no_until() -> None:
    always = [
        {"day": d, "open": "00:00", "close": "00:00"}
        for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    ]
    status = opening_status(location(hours=always), datetime(2026, 3, 4, 3, tzinfo=NY))
    assert status.is_open is True
    assert status.summary == "Open"
    assert status.today_text == "open 24 hours"
    assert DayHours(0, time(0), 24 * 60).text == "open 24 hours"


def test_a_location_open_one_day_a_week_opens_next_week() -> None:
    monday_only = [{"day": "monday", "open": "10:00", "close": "11:00"}]
    status = opening_status(location(hours=monday_only), datetime(2026, 3, 2, 12, tzinfo=NY))
    # Monday after closing: next opening is next Monday, seven days on.
    assert status.is_open is False
    assert status.opens_at == datetime(2026, 3, 9, 10, 0, tzinfo=NY)
    assert status.summary == "Closed · opens Monday at 10:00"


def test_daylight_saving_change_moves_the_closing_instant() -> None:
    # 8 March 2026: New York springs forward at 02:00 (to 03:00). Hours 01:00-04:00 last two real
    # hours; at 03:30 EDT the location is open and closes at 04:00 local.
    hours = [{"day": "sunday", "open": "01:00", "close": "04:00"}]
    at = datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT
    status = opening_status(location(hours=hours), at)
    assert status.is_open is True
    assert status.closes_at is not None
    assert status.closes_at.astimezone(UTC) == datetime(2026, 3, 8, 8, 0, tzinfo=UTC)
    before = opening_status(location(hours=hours), datetime(2026, 3, 8, 5, 30, tzinfo=UTC))
    assert before.is_open is False  # 00:30 EST


def test_an_opening_at_midnight_is_written_00_00_and_a_closing_past_it_wraps() -> None:
    hours = [
        {"day": "friday", "open": "24:00", "close": "02:00"},  # not an opening time: skipped
        {"day": "saturday", "open": "23:00", "close": "01:00"},
        {"day": "sunday", "open": "20:00", "close": "24:00"},
        {"day": "monday", "open": "09:00", "close": "09:00"},  # the whole day
    ]
    parsed = parse_hours(hours)
    assert [(h.weekday, h.opens) for h in parsed] == [(0, time(9)), (5, time(23)), (6, time(20))]
    assert [h.minutes for h in parsed] == [24 * 60, 120, 240]
