"""Times of day in the location's locale (issue 33): one formatter, kiosk.ordering.clock.clock_text,
used by the hours, the closed reason, the order's title and the done screen."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time

import pytest

from kiosk.api.models import Location
from kiosk.ordering import clock
from kiosk.ordering.clock import clock_text, human_moment, set_region
from kiosk.ordering.hours import opening_status


@pytest.fixture(autouse=True)
def _no_region() -> Iterator[None]:
    set_region(None)
    yield
    set_region(None)


def test_a_us_location_writes_a_12_hour_clock_others_keep_theirs() -> None:
    assert clock_text("15:30") == "15:30"  # no country known: the 24-hour clock, as before
    set_region("US")
    assert clock_text("15:30") == "3:30 PM"
    assert clock_text(time(9, 5), "en") == "9:05 AM"
    assert clock_text("15:30", "es") == "3:30 p.m."  # es_US
    assert clock_text("soon") == "soon"
    for country, want in (("GB", "15:30"), ("ES", "15:30"), ("NZ", "3:30 pm")):
        set_region(country)
        assert clock_text("15:30", "en") == want, country
    set_region("NZ")
    assert clock_text("15:30", "es") == "15:30"  # no es_NZ: Spanish's own


def test_the_order_title_and_done_screen_say_the_same_time() -> None:
    today = datetime(2026, 3, 2, 9, tzinfo=UTC)
    set_region("US")
    assert human_moment("2026-03-02", "14:45", today, "en") == "Today 2:45 PM"
    set_region(None)
    assert human_moment("2026-03-02", "14:45", today, "en") == "Today 14:45"


def test_a_us_locations_hours_and_closed_reason_use_its_clock() -> None:
    data = {
        "id": "loc1",
        "restaurantDisplayName": "Diner",
        "timezone": "America/New_York",
        "hours": [{"day": "monday", "open": "11:00", "close": "22:00"}],
        "addressData": {"country": "US"},
    }
    loc = Location.model_validate(data)
    assert clock.country_of(loc) == "US"
    # Monday 08:00 in New York: closed, opens at 11.
    status = opening_status(loc, datetime(2026, 3, 2, 13, tzinfo=UTC))
    assert status.today_text == "11:00 AM–10:00 PM"
    assert status.opens_when == "at 11:00 AM"
    data["addressData"] = {"country": "GB"}
    status = opening_status(Location.model_validate(data), datetime(2026, 3, 2, 13, tzinfo=UTC))
    assert status.today_text == "11:00–22:00"


async def test_the_visit_writes_times_the_way_its_locations_country_does() -> None:
    from tests.support.ordering_rig import demo_rig

    async with demo_rig() as rig:
        visit = rig.visit()
        # Lantern Downtown, New York: its record arrives as the app loads it.
        visit.choose_location(rig.location_id, await visit.load_location(rig.location_id))
        assert clock.time_locale("en") == "en_US"
        assert clock_text("07:00") == "7:00 AM"
