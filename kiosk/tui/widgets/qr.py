"""A QR code drawn with half-block characters: dark modules on a light background, with a quiet
zone.

Two modules stack in one terminal cell ("▀", "▄", "█", " "), so a version-4 code (33 modules) with a
2-module quiet zone takes 37 columns by 19 rows and fits an 80x24 screen. One explicit style (black
on white) keeps the code scannable on dark terminals and in 16 colours.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

_STYLE = Style(color="#000000", bgcolor="#ffffff")
_GLYPH = {(False, False): " ", (True, True): "█", (True, False): "▀", (False, True): "▄"}


def qr_matrix(data: str, border: int) -> list[list[bool]]:
    """Rows of modules (True = dark), quiet zone included."""
    import segno  # only the payment screen pays for it

    # Level L keeps a checkout URL of up to 78 characters at version 4 (fits 80x24); segno raises
    # the level when that costs no extra size. A screen is not a crumpled sticker: L scans well.
    qr = segno.make_qr(data, error="l", boost_error=True)
    return [[bool(m) for m in row] for row in qr.matrix_iter(scale=1, border=border)]


def qr_lines(matrix: list[list[bool]]) -> list[str]:
    """Half-block text lines for a module matrix: row pairs become one line."""
    lines = []
    for y in range(0, len(matrix), 2):
        top = matrix[y]
        bottom = matrix[y + 1] if y + 1 < len(matrix) else [False] * len(top)
        lines.append("".join(_GLYPH[(t, b)] for t, b in zip(top, bottom, strict=True)))
    return lines


class QRCode(Widget):
    """Draws `data` as a QR code; the quiet zone is 4 modules when the space allows, else 2."""

    DEFAULT_CSS = """
    QRCode { width: auto; height: auto; }
    """

    def __init__(self, data: str, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.data = data
        self._lines: dict[int, list[str]] = {}

    def show(self, data: str) -> None:
        """Draw other data in place (a renewed hand-off's URL): no remove and mount, which would
        race with the old widget's removal."""
        if data != self.data:
            self.data = data
            self._lines.clear()
            self.refresh(layout=True)

    def lines_for(self, border: int) -> list[str]:
        if border not in self._lines:
            self._lines[border] = qr_lines(qr_matrix(self.data, border))
        return self._lines[border]

    def _border_for(self, height: int) -> int:
        return 4 if len(self.lines_for(4)) <= height else 2

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return len(self.lines_for(self._border_for(container.height))[0])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines_for(self._border_for(container.height)))

    def render_line(self, y: int) -> Strip:
        lines = self.lines_for(self._border_for(self.size.height))
        if y >= len(lines):
            return Strip.blank(self.size.width)
        line = lines[y]
        return Strip([Segment(line, _STYLE)], len(line)).crop_extend(0, self.size.width, None)
