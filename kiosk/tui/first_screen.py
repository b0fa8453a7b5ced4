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
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from rich.text import Span, Text
from textual.screen import Screen
from textual.widgets import Static

from kiosk.tui.widgets.chrome import KioskHeader
from kiosk.tui.widgets.lists import TextRow, TextRowList

FORMAT = 1


@dataclass(frozen=True)
class FirstScreen:
    """What a first screen showed: its kind, title, the lines above its list, the list's rows."""

    kind: str
    title: Text
    lines: tuple[Text, ...]
    rows: tuple[TextRow, ...]
    demo: bool = False

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
            )
        except (KeyError, TypeError, ValueError):
            return None


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
    lines: list[Text] = []
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
    return FirstScreen(kind, title, tuple(lines), tuple(listing.rows), demo)


def read(slot: Any) -> FirstScreen | None:
    """The kept first screen in `slot` (a kiosk.diskcache.DiskSlot), None when there is none."""
    if slot is None:
        return None
    with contextlib.suppress(OSError, ValueError):
        return FirstScreen.from_json(slot.read())
    return None
