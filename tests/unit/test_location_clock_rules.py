"""The location's clock as the menu and the order's time read it (kiosk.ordering.clock): now in the
location's zone, the moment a menu is for, the locale a time is written in and an order time the
server sends with its time of day. Found untested by the whole-module mutation run
(tools/mutate.py, issue 32 item 8)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from kiosk.ordering.clock import (
    LocationClock,
    clock_text,
    country_of,
    human_moment,
    set_region,
    time_locale,
)

NY = ZoneInfo("America/New_York")
# Monday 2 March 2026, 17:30 UTC: 12:30 in New York.
INSTANT = datetime(2026, 3, 2, 17, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_region() -> Iterator[None]:
    set_region(None)
    yield
    set_region(None)


def _clock(timezone: str | None) -> LocationClock:
    return LocationClock(SimpleNamespace(timezone=timezone), wall_clock=INSTANT.timestamp)


def test_now_is_the_locations_own_time_or_unknown_without_its_zone() -> None:
    now = _clock("America/New_York").now()
    assert now == INSTANT and now is not None and now.tzinfo == NY and now.hour == 12
    assert _clock(None).now() is None


def test_a_menu_is_for_the_orders_later_slot_else_for_now_at_the_location() -> None:
    clock = _clock("America/New_York")
    assert clock.menu_moment("2026-03-03", "18:15") == datetime(2026, 3, 3, 18, 15)
    assert clock.menu_moment("2026-03-03", None) == clock.now()
    assert clock.menu_moment(None, "18:15") == clock.now()
    assert clock.menu_moment("3 March", "18:15") is None  # not a date the server writes
    assert _clock(None).menu_moment(None, None) is None


def test_a_locations_country_is_read_from_its_address_too() -> None:
    place = SimpleNamespace(address_data=None, address=SimpleNamespace(country="US"))
    assert country_of(place) == "US"


def test_a_time_is_written_in_the_language_with_the_locations_country() -> None:
    # The language's own region is dropped for the location's, however it is spelled.
    assert time_locale("en-GB", "US") == "en_US"
    assert time_locale("en_GB", "US") == "en_US"
    # Where babel knows no such pair, the language alone (not the 24-hour default).
    assert time_locale("es", "NZ") == "es"
    assert clock_text("15:30", "es", "NZ") == "15:30"
    # A tag with no language part is English.
    assert time_locale("-US", "US") == "en_US"


def test_no_time_at_all_is_shown_as_nothing() -> None:
    assert clock_text(None) == ""


def test_an_order_date_sent_with_its_time_of_day_is_still_today() -> None:
    today = datetime(2026, 3, 2, 12, 30, tzinfo=NY)
    assert human_moment("2026-03-02T18:15:00", "18:15", today, "en") == "Today 18:15"
