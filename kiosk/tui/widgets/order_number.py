"""The order number: one widget wherever it is shown (done screen, pay at the counter, staff).

Large: every letter and digit of any number format the API gives (K003, R-0042, A100) drawn in
three-row glyphs of the kiosk's own, the biggest thing on the screen; a number wider than the
screen wraps onto a second row of glyphs, never cut. A character with no glyph (a "#" or a
"/") is drawn as it is in the middle row. Not large: bold text on a tinted block. The number is
the server's data: cleaned and drawn as Text, never as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from kiosk.tui.text import clean

# Three rows of three cells each. Letters that could be read as digits differ where they can
# (a slashed 0 beside O); the number is also written plainly beside where that matters.
GLYPHS: dict[str, tuple[str, str, str]] = {
    "0": ("╭─╮", "│╱│", "╰─╯"),
    "1": ("╶┐ ", " │ ", "╶┴╴"),
    "2": ("╶─╮", "╭─╯", "╰─╴"),
    "3": ("╶─╮", " ─┤", "╶─╯"),
    "4": ("╷ ╷", "╰─┤", "  ╵"),
    "5": ("┌─╴", "└─╮", "╶─╯"),
    "6": ("╭─╴", "├─╮", "╰─╯"),
    "7": ("╶─┐", "  │", "  ╵"),
    "8": ("╭─╮", "├─┤", "╰─╯"),
    "9": ("╭─╮", "╰─┤", "╶─╯"),
    "A": ("╭─╮", "├─┤", "╵ ╵"),
    "B": ("┌─╮", "├─┤", "└─╯"),
    "C": ("╭─╴", "│  ", "╰─╴"),
    "D": ("┌─╮", "│ │", "└─╯"),
    "E": ("┌─╴", "├─ ", "└─╴"),
    "F": ("┌─╴", "├─ ", "╵  "),
    "G": ("╭─╴", "│╶┐", "╰─╯"),
    "H": ("╷ ╷", "├─┤", "╵ ╵"),
    "I": ("╶┬╴", " │ ", "╶┴╴"),
    "J": ("  ╷", "  │", "╰─╯"),
    "K": ("│ ╱", "├╴ ", "│ ╲"),
    "L": ("╷  ", "│  ", "└─╴"),
    "M": ("┌┬╮", "│││", "╵╵╵"),
    "N": ("┌─╮", "│ │", "╵ ╵"),
    "O": ("╭─╮", "│ │", "╰─╯"),
    "P": ("┌─╮", "├─╯", "╵  "),
    "Q": ("╭─╮", "│ │", "╰─╲"),
    "R": ("┌─╮", "├┬╯", "╵╰╴"),
    "S": ("╭─╴", "╰─╮", "╶─╯"),
    "T": ("╶┬╴", " │ ", " ╵ "),
    "U": ("╷ ╷", "│ │", "╰─╯"),
    "V": ("╷ ╷", "╲ ╱", " ╵ "),
    "W": ("╷ ╷", "│╷│", "╰┴╯"),
    "X": ("╲ ╱", " ╳ ", "╱ ╲"),
    "Y": ("╲ ╱", " │ ", " ╵ "),
    "Z": ("╶─┐", " ╱ ", "└─╴"),
    "-": ("   ", "╶─╴", "   "),
    " ": ("   ", "   ", "   "),
}
GLYPH_WIDTH = 4  # three cells and a gap


def glyph(char: str) -> tuple[str, str, str]:
    found = GLYPHS.get(char.upper())
    if found is not None:
        return found
    return ("   ", f" {char} ", "   ")


def big_lines(number: str, width: int) -> list[str]:
    """`number` in glyphs, wrapped to `width` cells: three lines per row of glyphs, a blank line
    between rows."""
    per_row = max(1, (width + 1) // GLYPH_WIDTH)
    lines: list[str] = []
    for start in range(0, len(number), per_row):
        if lines:
            lines.append("")
        chunk = [glyph(c) for c in number[start : start + per_row]]
        lines.extend(" ".join(g[row] for g in chunk) for row in range(3))
    return lines


def order_number_text(number: str | None) -> str:
    """The number as shown: cleaned, bounded (long enough for any real format: a long one wraps
    rather than being cut), "—" when there is none."""
    return clean(number or "", 40) or "—"


class BigNumber(Widget):
    """The number in glyphs, wrapped to the width it is given, each row centred."""

    DEFAULT_CSS = "BigNumber { width: 100%; height: auto; text-align: center; }"

    def __init__(self, number: str, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.number = number

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(big_lines(self.number, width))

    def render(self) -> Text:
        return Text("\n".join(big_lines(self.number, self.content_size.width)))


class OrderNumber(Center):
    """The order number, centred; `large` draws it in glyphs (any letters and digits)."""

    DEFAULT_CSS = """
    OrderNumber { height: auto; }
    OrderNumber > .order-number-digits { color: $success; text-style: bold; }
    OrderNumber > .order-number-spelled { width: 100%; text-align: center; }
    OrderNumber > .order-number-text {
        width: auto; text-style: bold; padding: 0 2; background: $success-muted;
    }
    """

    def __init__(
        self,
        number: str | None,
        *,
        large: bool = False,
        spelled: bool = False,
        id: str | None = None,
    ) -> None:
        """`spelled`: the glyphs are followed by the number in plain characters (a glyph can
        be read two ways, and a reader of the screen's text finds it), where the screen does
        not write it plainly elsewhere."""
        super().__init__(id=id, classes="-large" if large else "")
        self.number = order_number_text(number)
        self.large = large
        self.spelled = spelled

    @property
    def drawn_large(self) -> bool:
        return self.large

    @property
    def value(self) -> str:
        """The number as drawn (the glyphs are capitals)."""
        return self.number.upper() if self.drawn_large else self.number

    def compose(self) -> ComposeResult:
        if self.drawn_large:
            yield BigNumber(self.value, classes="order-number-digits")
            if self.spelled:
                yield Static(Text(self.number, style="bold"), classes="order-number-spelled")
        else:
            yield Static(Text(self.number, style="bold"), classes="order-number-text")
