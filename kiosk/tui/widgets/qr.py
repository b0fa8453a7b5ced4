"""A QR code drawn with half-block characters: dark modules on a light background, with a quiet
zone of 4 modules on every side (the standard's minimum: a phone's reader looks for it).

Two modules stack in one terminal cell ("▀", "▄", "█", " "), so a version-4 code (33 modules) with
its quiet zone takes 41 columns by 21 rows and fits an 80x24 screen. One explicit style (black on
white) keeps the code scannable on dark terminals and in 16 colours. The quiet zone never depends
on the space left: a width that changed with the height made the layout give the code fewer
columns than it drew, which cut off the quiet zone on its right.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

_STYLE = Style(color="#000000", bgcolor="#ffffff")
QUIET_ZONE = 4  # modules of light around the code, on every side
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
    """Draws `data` as a QR code with its quiet zone."""

    DEFAULT_CSS = """
    QRCode { width: auto; height: auto; }
    """

    def __init__(self, data: str, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.data = data
        self._lines: list[str] | None = None

    def show(self, data: str) -> None:
        """Draw other data in place (a renewed hand-off's URL): no remove and mount, which would
        race with the old widget's removal."""
        if data != self.data:
            self.data = data
            self._lines = None
            self.refresh(layout=True)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = qr_lines(qr_matrix(self.data, QUIET_ZONE))
        return self._lines

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return len(self.lines[0])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def render_line(self, y: int) -> Strip:
        lines = self.lines
        if y >= len(lines):
            return Strip.blank(self.size.width)
        line = lines[y]
        return Strip([Segment(line, _STYLE)], len(line)).crop_extend(0, self.size.width, None)
