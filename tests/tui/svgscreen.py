"""Read a snapshot SVG (Rich's `export_svg`, as pytest-textual-snapshot stores it) back into a
screen: each cell's character, its text colour and its background. The contrast test and the fit
test read the snapshots with it, so that they judge what the customer sees, not the stylesheet.

Rich draws the background as `<rect fill=… x y width>` per run of cells, and the text as `<text
class=… x textLength clip-path="url(#…-line-N)">` whose class names a fill in the `<style>` block;
a cell is `CELL_W` wide and a line `LINE_H` tall (Rich's fixed metrics for a 20 px font).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

CELL_W = 12.2
LINE_H = 24.4
RECT_TOP = 1.5
SVG = "{http://www.w3.org/2000/svg}"
_CLASS = re.compile(r"\.([\w-]+)\s*\{([^}]*)\}")
_FILL = re.compile(r"fill:\s*(#[0-9a-fA-F]{6})")
_LINE = re.compile(r"-line-(\d+)\)")


@dataclass
class Cell:
    char: str = " "
    fg: str | None = None
    bg: str | None = None
    bold: bool = False


@dataclass
class Screen:
    width: int
    height: int
    cells: list[list[Cell]] = field(default_factory=list)

    def line(self, y: int) -> str:
        return "".join(c.char for c in self.cells[y])

    @property
    def text(self) -> str:
        return "\n".join(self.line(y) for y in range(self.height))


def _cells(width_px: float) -> int:
    return round(width_px / CELL_W)


def read_svg(path: Path) -> Screen:
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    styles: dict[str, tuple[str | None, bool]] = {}
    for style in root.iter(f"{SVG}style"):
        for name, body in _CLASS.findall(style.text or ""):
            fill = _FILL.search(body)
            styles[name] = (fill.group(1).lower() if fill else None, "bold" in body)
    # The terminal area is the group translated under the window's title bar.
    group = next(g for g in root.iter(f"{SVG}g") if g.get("clip-path"))
    clip = next(r for r in root.iter(f"{SVG}rect") if r.get("height") and r.get("y") == "0")
    width = _cells(float(clip.get("width", "0")))
    height = round(float(clip.get("height", "0")) / LINE_H)
    screen = Screen(width, height, [[Cell() for _ in range(width)] for _ in range(height)])
    for rect in group.iter(f"{SVG}rect"):
        y = round((float(rect.get("y", "0")) - RECT_TOP) / LINE_H)
        x0 = _cells(float(rect.get("x", "0")))
        fill = (rect.get("fill") or "").lower()
        if not 0 <= y < height:
            continue
        for x in range(x0, min(width, x0 + _cells(float(rect.get("width", "0"))))):
            screen.cells[y][x].bg = fill
    for text in group.iter(f"{SVG}text"):
        match = _LINE.search(text.get("clip-path", ""))
        if match is None:
            continue
        y = int(match.group(1))
        x0 = _cells(float(text.get("x", "0")))
        fg, bold = styles.get(text.get("class", ""), (None, False))
        content = (text.text or "").replace("\xa0", " ")
        for i, char in enumerate(content):
            if 0 <= y < height and 0 <= x0 + i < width:
                cell = screen.cells[y][x0 + i]
                cell.char, cell.fg, cell.bold = char, fg, bold
    return screen


def luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of "#rrggbb"."""

    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two "#rrggbb" colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def is_text(char: str) -> bool:
    """A character that is read, not drawn: box drawing and block elements (borders, scrollbars,
    the tall fields' edges) are shapes."""
    return not char.isspace() and not 0x2500 <= ord(char) <= 0x259F


@dataclass(frozen=True)
class Run:
    """Consecutive text cells of one line with the same colours, and their ratio."""

    y: int
    x: int
    text: str
    fg: str
    bg: str
    ratio: float


def text_runs(screen: Screen, default_bg: str = "#000000") -> list[Run]:
    """Every run of text on the screen (spaces inside a run keep it going when the background
    does not change)."""
    runs: list[Run] = []
    for y, row in enumerate(screen.cells):
        x = 0
        while x < screen.width:
            cell = row[x]
            if not is_text(cell.char) or cell.fg is None:
                x += 1
                continue
            fg, bg = cell.fg, cell.bg or default_bg
            start = end = x
            while x < screen.width:
                here = row[x]
                if (here.bg or default_bg) != bg:
                    break
                if is_text(here.char):
                    if here.fg != fg:
                        break
                    end = x + 1
                elif not here.char.isspace():
                    break
                x += 1
            x = end
            text = "".join(c.char for c in row[start:end])
            runs.append(Run(y, start, text, fg, bg, contrast(fg, bg)))
    return runs
