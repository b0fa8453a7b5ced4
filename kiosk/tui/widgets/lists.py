"""Small RowLists whose rows are prepared texts: locations, fulfillment methods, tips,
cross-sell."""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from rich.text import Text

from kiosk.tui.widgets.rowlist import RowList


class TextRow(NamedTuple):
    key: Hashable | None
    text: Text
    # Drawn flush right (a price, a status); the text is cut to leave room for it.
    right: Text | None = None


class TextRowList(RowList[TextRow]):
    """Rows of (key, text); a row with key None is a detail line under the one before."""

    def row_key(self, row: TextRow) -> Hashable | None:
        return row.key

    def row_text(self, row: TextRow, width: int, cursor: bool) -> Text:
        if row.right is not None:
            return two_columns(row.text, row.right, width)
        return row.text.copy()


def two_columns(left: Text, right: Text, width: int) -> Text:
    """`left` cut to leave room for `right`, which ends at the right edge."""
    right_width = right.cell_len
    room = max(width - right_width - 1, 1)
    out = left.copy()
    out.no_wrap = True
    out.truncate(room, overflow="ellipsis", pad=True)
    out.append(" ")
    out.append_text(right)
    return out
