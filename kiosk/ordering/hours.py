"""Opening hours in the location's own timezone, pure: today's hours, open or closed, next opening.

The location record carries `timezone` (an IANA name) and `hours: [{day, open, close}]` (contract
row 2, tag A). Either may be missing (the vendor's fixture has neither): then the answer is "hours
unknown", never a guess and never a crash. What is tolerated in `hours`:
- `day` as a name ("monday", "Mon", any case) or a number: 1..6 are Monday..Saturday and 0 or 7 is
  Sunday, which reads both the ISO (1..7) and the JavaScript (0..6) conventions the same way;
- `open`/`close` as "HH:MM" (or "H:MM", "HH:MM:SS"); "24:00" closes at midnight;
- `close` at or before `open` means the hours run past midnight (22:00-02:00), except open == close,
  which means open the whole day (00:00-00:00);
- several entries for one day (lunch and dinner); entries that cannot be read are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.i18n import N_, _, language
from kiosk.ordering.clock import clock_text, country_of, zone_of

__all__ = ["DayHours", "OpeningStatus", "opening_status", "parse_hours"]

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# As shown (translated where shown: kiosk.i18n); _DAYS above is for reading the API's names.
_DAY_NAMES = (
    N_("Monday"),
    N_("Tuesday"),
    N_("Wednesday"),
    N_("Thursday"),
    N_("Friday"),
    N_("Saturday"),
    N_("Sunday"),
)


@dataclass(frozen=True, slots=True)
class DayHours:
    """One opening: on `weekday` (0 = Monday) from `opens` for `minutes` (may run past midnight)."""

    weekday: int
    opens: time
    minutes: int

    @property
    def closes(self) -> time:
        end = (self.opens.hour * 60 + self.opens.minute + self.minutes) % (24 * 60)
        return time(end // 60, end % 60)

    @property
    def text(self) -> str:
        return self.span()

    def span(self, country: str | None = None) -> str:
        """ "11:00–14:00" (or "11:00 AM–2:00 PM" in the US: kiosk.ordering.clock.clock_text)."""
        if self.minutes >= 24 * 60 and self.opens == time(0, 0):
            return _("open 24 hours")
        opens, closes = (clock_text(t, language(), country) for t in (self.opens, self.closes))
        return f"{opens}–{closes}"


@dataclass(frozen=True, slots=True)
class OpeningStatus:
    """What the location screen shows. `known` is False when the timezone or hours are missing."""

    known: bool
    is_open: bool | None
    today: tuple[DayHours, ...]
    # When the current opening ends (open) or the next one starts (closed); location-local, aware.
    closes_at: datetime | None
    opens_at: datetime | None
    now: datetime | None
    # The location's country ("" unknown): its times are written its way (clock.clock_text).
    country: str | None = None

    @property
    def today_text(self) -> str:
        """Today's hours: "11:00–14:00, 17:00–22:00", "closed today" or "hours unknown"."""
        if not self.known:
            return _("hours unknown")
        if not self.today:
            return _("closed today")
        return ", ".join(h.span(self.country) for h in self.today)

    @property
    def today_phrase(self) -> str:
        """Today's hours said once: "today 11:00–14:00", "closed today" or "hours unknown" (the
        hours alone read "today closed today" after a "today" of the caller's)."""
        if not self.known or not self.today:
            return self.today_text
        return _("today {hours}").format(hours=self.today_text)

    @property
    def opens_when(self) -> str:
        """When a closed location opens next, as `summary` says it after "opens": "tomorrow at
        11:00", "at 14:00"; "" when unknown."""
        if self.opens_at is None or self.now is None:
            return ""
        return self._when(self.opens_at, at=True)

    @property
    def summary(self) -> str:
        """One line: "Open · until 22:00", "Closed · opens tomorrow at 11:00", "Hours unknown"."""
        if not self.known or self.now is None:
            return _("Hours unknown")
        if self.is_open:
            if self.closes_at is None:
                return _("Open")
            return _("Open · until {when}").format(when=self._when(self.closes_at))
        if self.opens_at is None:
            return _("Closed")
        return _("Closed · opens {when}").format(when=self._when(self.opens_at, at=True))

    def _when(self, moment: datetime, *, at: bool = False) -> str:
        assert self.now is not None
        clock = clock_text(moment, language(), self.country)
        days = (moment.date() - self.now.date()).days
        if days == 0:
            return _("at {time}").format(time=clock) if at else clock
        if days == 1:
            return (_("tomorrow at {time}") if at else _("{time} tomorrow")).format(time=clock)
        day = _(_DAY_NAMES[moment.weekday()])
        return _("{day} at {time}").format(day=day, time=clock)


def _field(entry: Any, name: str) -> Any:
    if isinstance(entry, Mapping):
        return entry.get(name)
    return getattr(entry, name, None)


def _weekday(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit():
            number = int(text)
        else:
            # "mon", "Monday", "TUES", "thurs": the first three letters decide.
            if len(text) >= 3 and text.isalpha():
                for i, name in enumerate(_DAYS):
                    if text[:3] == name[:3]:
                        return i
            return None
    else:
        return None
    if number in (0, 7):
        return 6
    if 1 <= number <= 6:
        return number - 1
    return None


def _minutes(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    parts = value.strip().split(":")
    if len(parts) not in (2, 3) or not all(p.isdigit() and len(p) <= 2 for p in parts):
        return None
    hour, minute = int(parts[0]), int(parts[1])
    if minute > 59 or hour > 24 or (hour == 24 and minute != 0):
        return None
    return hour * 60 + minute


def parse_hours(entries: Iterable[Any] | None) -> list[DayHours]:
    """The readable entries of a location's `hours`, in week order; unreadable ones are skipped."""
    found: list[DayHours] = []
    for entry in entries or ():
        weekday = _weekday(_field(entry, "day"))
        start = _minutes(_field(entry, "open"))
        end = _minutes(_field(entry, "close"))
        if weekday is None or start is None or end is None or start >= 24 * 60:
            continue
        length = end - start
        if length <= 0:
            length += 24 * 60
        found.append(DayHours(weekday, time(start // 60, start % 60), length))
    found.sort(key=lambda h: (h.weekday, h.opens))
    return found


def _utc(wall: datetime, zone: ZoneInfo) -> datetime:
    return wall.replace(tzinfo=zone).astimezone(UTC)


def _intervals(
    hours: list[DayHours], zone: ZoneInfo, around: date
) -> list[tuple[datetime, datetime]]:
    # Concrete openings from the day before (its hours may run past midnight) to a week ahead,
    # merged where one ends as the next begins (22:00-24:00 then 00:00-02:00 is one evening).
    spans: list[tuple[datetime, datetime]] = []
    for offset in range(-1, 8):
        day = around + timedelta(days=offset)
        for h in hours:
            if h.weekday != day.weekday():
                continue
            # Wall-clock arithmetic in the zone (a DST change moves the end as the restaurant's
            # clock does), then UTC: aware datetimes sharing a tzinfo compare by wall time only.
            start = datetime.combine(day, h.opens)
            end = start + timedelta(minutes=h.minutes)
            spans.append((_utc(start, zone), _utc(end, zone)))
    spans.sort()
    merged: list[tuple[datetime, datetime]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def opening_status(location: Any, now: datetime | None = None) -> OpeningStatus:
    """Today's hours and open/closed for `location` (anything with `timezone` and `hours`) at `now`
    (an aware datetime; default: the current time)."""
    zone = zone_of(location)
    hours = parse_hours(_field(location, "hours"))
    if zone is None or not hours:
        return OpeningStatus(False, None, (), None, None, None, country_of(location) or "")
    moment = (now or datetime.now(tz=zone)).astimezone(zone)
    today = tuple(h for h in hours if h.weekday == moment.weekday())
    is_open = False
    closes_at = opens_at = None
    for start, end in _intervals(hours, zone, moment.date()):
        if start <= moment < end:
            is_open, closes_at = True, end.astimezone(zone)
            break
        if start > moment:
            opens_at = start.astimezone(zone)
            break
    if is_open and closes_at is not None and closes_at - moment > timedelta(days=6):
        closes_at = None  # open around the clock: there is no "until"
    country = country_of(location) or ""
    return OpeningStatus(True, is_open, today, closes_at, opens_at, moment, country)
