"""Opening hours as the location screen says them (kiosk.ordering.hours): which written hours are
read and which are skipped, the exact instant a location opens, an opening at midnight, and how
far ahead an "until" is still said. Found untested by the whole-module mutation run
(tools/mutate.py, issue 32 item 8); builders from tests/unit/test_ordering_hours.py."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from kiosk.ordering.hours import OpeningStatus, opening_status, parse_hours
from tests.unit.test_ordering_hours import NY, location

TOKYO = ZoneInfo("Asia/Tokyo")  # no daylight saving: a day is 24 hours


# -- what is read -------------------------------------------------------------------------------


def test_day_six_is_saturday_as_a_number_or_a_digit() -> None:
    hours = [
        {"day": 6, "open": "09:00", "close": "10:00"},
        {"day": "6", "open": "11:00", "close": "12:00"},
    ]
    assert [(h.weekday, h.opens) for h in parse_hours(hours)] == [(5, time(9)), (5, time(11))]


@pytest.mark.parametrize("day", ["mon-fri", "Mon.", "sat/sun"])
def test_a_day_that_is_not_one_plain_name_is_skipped_not_read_as_its_first_day(day: str) -> None:
    assert parse_hours([{"day": day, "open": "09:00", "close": "17:00"}]) == []


@pytest.mark.parametrize(
    "close", ["11:00:00:00", "1a:00", "ab:cd", "25:00", "24:30", "10:005", "017:00"]
)
def test_a_time_that_is_not_hh_mm_is_skipped(close: str) -> None:
    assert parse_hours([{"day": "monday", "open": "09:00", "close": close}]) == []


def test_the_last_minute_of_an_hour_and_midnight_are_read() -> None:
    hours = [
        {"day": "monday", "open": "09:00", "close": "22:59"},
        {"day": "tuesday", "open": "09:00", "close": "24:00"},
    ]
    assert [h.minutes for h in parse_hours(hours)] == [13 * 60 + 59, 15 * 60]


def test_a_one_minute_opening_lasts_one_minute_not_a_day() -> None:
    hours = [{"day": "monday", "open": "10:00", "close": "10:01"}]
    assert [h.minutes for h in parse_hours(hours)] == [1]
    inside = opening_status(location(hours=hours), datetime(2026, 3, 2, 10, 0, 30, tzinfo=NY))
    assert inside.is_open is True
    after = opening_status(location(hours=hours), datetime(2026, 3, 2, 10, 2, tzinfo=NY))
    assert after.is_open is False and after.summary == "Closed · opens Monday at 10:00"


# -- open or closed -----------------------------------------------------------------------------


def test_a_location_is_open_from_its_opening_instant_on() -> None:
    hours = [{"day": "monday", "open": "11:00", "close": "14:00"}]
    status = opening_status(location(hours=hours), datetime(2026, 3, 2, 11, 0, tzinfo=NY))
    assert status.is_open is True
    assert status.summary == "Open · until 14:00"


def test_when_it_opens_next_is_said_only_while_it_is_closed() -> None:
    hours = [{"day": "monday", "open": "11:00", "close": "14:00"}]
    open_now = opening_status(location(hours=hours), datetime(2026, 3, 2, 12, tzinfo=NY))
    assert open_now.is_open is True and open_now.opens_when == ""
    sunday = opening_status(location(hours=hours), datetime(2026, 3, 1, 12, tzinfo=NY))
    assert sunday.opens_when == "tomorrow at 11:00"


def test_an_opening_at_midnight_is_a_span_and_only_midnight_to_midnight_is_all_day() -> None:
    hours = [
        {"day": "monday", "open": "00:00", "close": "02:00"},
        {"day": "tuesday", "open": "00:00", "close": "24:00"},
    ]
    monday = opening_status(location(hours=hours), datetime(2026, 3, 2, 1, tzinfo=NY))
    assert monday.today_text == "00:00–02:00"
    tuesday = opening_status(location(hours=hours), datetime(2026, 3, 3, 1, tzinfo=NY))
    assert tuesday.today_text == "open 24 hours"


def test_a_status_says_closed_without_a_next_opening_and_unknown_hours_even_with_a_clock() -> None:
    now = datetime(2026, 3, 2, 12, tzinfo=NY)
    assert OpeningStatus(True, False, (), None, None, now).summary == "Closed"
    assert OpeningStatus(False, None, (), None, None, now).summary == "Hours unknown"


# -- how far ahead "until" is said --------------------------------------------------------------

# Open from Monday 00:00 to Sunday 12:00 without a break, then closed until Monday.
MON_TO_SAT = ("mon", "tue", "wed", "thu", "fri", "sat")
ALL_WEEK = [{"day": d, "open": "00:00", "close": "24:00"} for d in MON_TO_SAT] + [
    {"day": "sun", "open": "00:00", "close": "12:00"}
]


def test_a_closing_up_to_six_days_ahead_is_said_and_a_later_one_is_not() -> None:
    sunday_noon = datetime(2026, 3, 8, 12, tzinfo=TOKYO)
    at_six_days = opening_status(location("Asia/Tokyo", ALL_WEEK), sunday_noon - timedelta(days=6))
    assert at_six_days.summary == "Open · until Sunday at 12:00"
    longer = sunday_noon - timedelta(days=6, hours=3)
    assert opening_status(location("Asia/Tokyo", ALL_WEEK), longer).summary == "Open"
    wednesday = opening_status(location("Asia/Tokyo", ALL_WEEK), datetime(2026, 3, 4, tzinfo=UTC))
    assert wednesday.closes_at == sunday_noon


def test_hours_written_in_the_hour_the_clocks_skip_still_join_the_hours_after_it() -> None:
    # 8 March 2026: New York springs forward from 02:00 to 03:00, so 02:30 is read as 03:30 EDT,
    # after 03:00: the openings are ordered by the instant, not by the written time.
    hours = [
        {"day": "sunday", "open": "02:30", "close": "03:00"},
        {"day": "sunday", "open": "03:00", "close": "05:00"},
    ]
    status = opening_status(location(hours=hours), datetime(2026, 3, 8, 7, 15, tzinfo=UTC))
    assert status.is_open is True
    assert status.summary == "Open · until 05:00"


def test_an_opening_written_wholly_inside_the_skipped_hour_is_not_announced_that_night() -> None:
    # 02:30-03:00 on 8 March 2026 in New York does not happen (02:00 jumps to 03:00): at 03:30
    # EDT, the instant 02:30 is read as, the next opening is the week after.
    hours = [{"day": "sunday", "open": "02:30", "close": "03:00"}]
    status = opening_status(location(hours=hours), datetime(2026, 3, 8, 7, 30, tzinfo=UTC))
    assert status.is_open is False
    assert status.opens_at is not None and status.opens_at.date().day == 15
