"""The last first screen, kept on disk for the next start's first frame (issue 14).

When the kiosk's first screen (the location list, or a one-location kiosk's welcome with its ways
to order) has been drawn from the server's data, what it showed is kept in the site's cache
(kiosk.diskcache, a DiskSlot the runtime names by backend and location). The next start draws it
in its very first frame, marked "updating…", before httpx, pydantic or the backend are loaded; the
real screen replaces it once its data has been read again (revalidated: see kiosk.api's disk
cache). What is kept is the screen's own texts (the server's words among them, drawn as plain
characters again, never markup) and the row keys: no cart, no order, no token.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple

from rich.text import Span, Text
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from kiosk.tui.widgets.chrome import KioskHeader
from kiosk.tui.widgets.lists import TextRow, TextRowList

# 2: where each line and the list stood (Place), so that a tap lands on the same row after the swap.
FORMAT = 2


class Place(NamedTuple):
    """Where a widget stood: its column, its row counted from under the header, its height."""

    x: int
    y: int
    height: int


@dataclass(frozen=True)
class FirstScreen:
    """What a first screen showed: its kind, title, the lines above its list, the list's rows."""

    kind: str
    title: Text
    lines: tuple[Text, ...]
    rows: tuple[TextRow, ...]
    demo: bool = False
    # The terminal's size when captured, and where each line (then the list) stood: the preview
    # stands them in the same rows when the size is the same, so that a row tapped on the preview
    # is the row under the finger when the real screen takes over.
    size: tuple[int, int] | None = None
    places: tuple[Place, ...] = ()

    def places_for(self, size: tuple[int, int]) -> tuple[Place, ...] | None:
        """The lines' places then the list's, when captured at `size` (None otherwise)."""
        if self.size != tuple(size) or len(self.places) != len(self.lines) + 1:
            return None
        return self.places

    def selectable(self) -> list[Hashable]:
        return [row.key for row in self.rows if row.key is not None]

    def same_as(self, other: FirstScreen | None) -> bool:
        return other is not None and self.to_json() == other.to_json()

    # On disk --------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "kind": self.kind,
            "title": _dump(self.title),
            "demo": self.demo,
            "size": None if self.size is None else list(self.size),
            "places": [list(place) for place in self.places],
            "lines": [_dump(t) for t in self.lines],
            "rows": [
                [row.key, _dump(row.text), None if row.right is None else _dump(row.right)]
                for row in self.rows
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> FirstScreen | None:
        """None for anything but a well-formed record of this format (a file is never trusted
        to be what it claims)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            rows = []
            for key, text, right in data["rows"]:
                if key is not None and not isinstance(key, str):
                    return None
                rows.append(TextRow(key, _load(text), None if right is None else _load(right)))
            return cls(
                kind=str(data["kind"]),
                title=_load(data["title"]),
                lines=tuple(_load(t) for t in data["lines"]),
                rows=tuple(rows),
                demo=bool(data.get("demo")),
                size=_size(data.get("size")),
                places=tuple(Place(*(int(n) for n in place)) for place in data["places"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _size(raw: Any) -> tuple[int, int] | None:
    if raw is None:
        return None
    width, height = raw
    return int(width), int(height)


def _dump(text: Text) -> list[Any]:
    return [
        text.plain,
        str(text.style or ""),
        [[span.start, span.end, str(span.style)] for span in text.spans],
    ]


def _load(raw: Any) -> Text:
    plain, style, spans = raw
    if not isinstance(plain, str) or not isinstance(style, str):
        raise TypeError("not a text")
    # Text(...) takes the characters as they are: nothing in them is read as markup.
    return Text(
        plain,
        style=style,
        spans=[Span(int(start), int(end), str(span_style)) for start, end, span_style in spans],
        no_wrap=True,
    )


def capture(screen: Screen[Any], kind: str, demo: bool) -> FirstScreen | None:
    """What `screen` shows now: its visible texts before the list (the header's aside), then the
    list's rows."""
    lists = list(screen.query(TextRowList).results(TextRowList))
    if not lists or not lists[0].rows:
        return None
    listing = lists[0]
    titles = [s.content for s in screen.query("#header-title").results(Static)]
    title = titles[0].copy() if titles and isinstance(titles[0], Text) else Text("")
    headers = list(screen.query(KioskHeader).results(KioskHeader))
    top = headers[0].region.bottom if headers else 0
    lines: list[Text] = []
    places: list[Place] = []

    def place(widget: Widget) -> Place:
        region = widget.content_region
        return Place(region.x, region.y - top, region.height)

    for widget in screen.walk_children(with_self=False):
        if widget is listing:
            break
        if not isinstance(widget, Static) or widget.id == "banner" or not widget.display:
            continue
        if any(isinstance(parent, KioskHeader) for parent in widget.ancestors):
            continue
        content = widget.content
        if isinstance(content, Text) and content.plain.strip():
            lines.append(content.copy())
            places.append(place(widget))
    places.append(place(listing))
    # Places only when they read top to bottom (none overlaps the next): the preview stacks them.
    ordered = all(b.y >= a.y + a.height for a, b in itertools.pairwise(places))
    return FirstScreen(
        kind,
        title,
        tuple(lines),
        tuple(listing.rows),
        demo,
        size=(screen.size.width, screen.size.height) if ordered else None,
        places=tuple(places) if ordered else (),
    )


def read(slot: Any) -> FirstScreen | None:
    """The kept first screen in `slot` (a kiosk.diskcache.DiskSlot), None when there is none."""
    if slot is None:
        return None
    with contextlib.suppress(OSError, ValueError):
        return FirstScreen.from_json(slot.read())
    return None
