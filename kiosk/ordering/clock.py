"""The location's clock: the one place that turns the kiosk's wall clock into time of day.

Time of day is always the location's, in its IANA `timezone`, never the machine's: a kiosk in Lisbon
ordering from a restaurant in New York asks for New York's menu and New York's ASAP slot. Opening
hours (`hours.opening_status` takes its zone from here), the menu's "now", the ASAP order time's
date and time and the location screen all ask this module. Without a known timezone the answers say
so (None) rather than guess; the ASAP fallback then uses UTC, which the server corrects to its own
"now" anyway."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "LocationClock",
    "clock_text",
    "country_of",
    "human_moment",
    "set_region",
    "time_locale",
    "zone_of",
]

# The country of the location the kiosk serves now (ISO 3166 alpha-2), set when the visit's
# location changes (Visit._set): a time of day is written the way that country does (issue 33:
# a US location shows "3:30 PM"). None: the 24-hour clock the kiosk always drew.
_region: str | None = None


def set_region(country: str | None) -> None:
    global _region
    code = (country or "").strip().upper()
    _region = code if len(code) == 2 and code.isalpha() else None


def country_of(location: Any) -> str | None:
    """The country a location record names (its address's, or its own field), else None."""
    for holder in (getattr(location, "address_data", None), getattr(location, "address", None)):
        found = getattr(holder, "country", None)
        if isinstance(found, str) and found.strip():
            return found
    found = getattr(location, "country", None)
    return found if isinstance(found, str) and found.strip() else None


def time_locale(language: str | None = None, country: str | None = None) -> str | None:
    """The babel locale a time of day is written in: the language with the location's country
    ("en_US", "es_US", "en_NZ"), the language alone where babel knows no such pair ("es" in New
    Zealand), None where the country is unknown (the 24-hour clock). `country`: another
    location's (the location list), else the one served now."""
    region = (country or "").strip().upper() or _region
    if region is None:
        return None
    from babel import Locale, UnknownLocaleError

    base = (language or "en").replace("-", "_").split("_")[0] or "en"
    try:
        Locale.parse(f"{base}_{region}")
        return f"{base}_{region}"
    except (UnknownLocaleError, ValueError):
        return base


def clock_text(at: Any, language: str | None = None, country: str | None = None) -> str:
    """A time of day (a `time`, a `datetime` or "HH:MM") as the location writes it: "3:30 PM" at a
    US location, "15:30" in Spain, "15:30" where the country is unknown. The one formatter of
    every time a customer reads (the time select, the order's title, the done screen, the hours
    and the closed reason). What cannot be read is shown as sent."""
    from datetime import time as day_time

    if isinstance(at, datetime):
        moment = at.time()
    elif isinstance(at, day_time):
        moment = at
    else:
        text = str(at or "").strip()[:5]
        try:
            moment = day_time.fromisoformat(text)
        except ValueError:
            return text
    locale = time_locale(language, country)
    if locale is None:
        return f"{moment:%H:%M}"
    from babel.dates import format_time

    # CLDR puts a narrow no-break space before "PM": a plain space draws the same in every terminal.
    return format_time(moment, "short", locale=locale).replace("\u202f", " ").replace("\xa0", " ")


def zone_of(location: Any) -> ZoneInfo | None:
    """The location's timezone (anything with a `timezone` attribute or key), None when unknown."""
    if isinstance(location, Mapping):
        name = location.get("timezone")
    else:
        name = getattr(location, "timezone", None)
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


class LocationClock:
    """`wall_clock()` (epoch seconds, injectable) read in `location`'s timezone."""

    def __init__(self, location: Any = None, wall_clock: Callable[[], float] = time.time) -> None:
        self.location = location
        self.wall_clock = wall_clock
        self.zone: ZoneInfo | None = zone_of(location) if location is not None else None

    def utc_now(self) -> datetime:
        return datetime.fromtimestamp(self.wall_clock(), tz=UTC)

    def now(self) -> datetime | None:
        """Now in the location's zone; None when the zone is unknown."""
        return None if self.zone is None else self.utc_now().astimezone(self.zone)

    def local_or_utc(self) -> datetime:
        zone: tzinfo = self.zone if self.zone is not None else UTC
        return self.utc_now().astimezone(zone)

    def date_and_time(self) -> tuple[str, str]:
        """("YYYY-MM-DD", "HH:MM") now at the location (the order-time row's format)."""
        now = self.local_or_utc()
        return f"{now:%Y-%m-%d}", f"{now:%H:%M}"

    def menu_moment(self, order_date: str | None, order_time: str | None) -> datetime | None:
        """The moment a menu is for: the order's later slot (location-local wall time as the
        server lists it), else now at the location; None when neither is known."""
        if order_date and order_time:
            try:
                return datetime.fromisoformat(f"{order_date}T{order_time}")
            except ValueError:
                return None
        return self.now()


def human_moment(
    order_date: str | None, order_time: str | None, today: datetime | None, locale: str | None
) -> str:
    """An order's time as a customer reads it (issue 20), in `locale`'s words: "Today 14:45",
    "Tomorrow 07:00", a weekday within the week ("Thursday 09:30"), else the date ("12 Mar 2026
    09:30"). `today` is now at the location (LocationClock.local_or_utc()); the date and time are
    the server's ("YYYY-MM-DD", "HH:MM"), location-local. What cannot be read is shown as sent.
    For the cart heading and the done screen: every screen says the time the same way."""
    from datetime import date

    from babel.dates import format_date

    from kiosk.i18n import _

    babel_locale = (locale or "en").replace("-", "_")
    shown_time = clock_text(order_time, babel_locale)
    if not order_date:
        return shown_time
    try:
        day = date.fromisoformat(order_date[:10])
    except ValueError:
        return f"{order_date[:10]} {shown_time}".strip()
    days = (day - today.date()).days if today is not None else None
    if days == 0:
        word = _("Today")
    elif days == 1:
        word = _("Tomorrow")
    elif days is not None and 1 < days < 7:
        word = format_date(day, "EEEE", locale=babel_locale)
    else:
        word = format_date(day, "medium", locale=babel_locale)
    return f"{word} {shown_time}".strip()
