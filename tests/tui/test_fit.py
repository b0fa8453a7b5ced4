"""Text that fits (issue 20): no word or amount is split across lines in any snapshot, and every
footer shows whole keys, the screen's main one among them.

Read from the snapshots (tests/tui/svgscreen.py). A split is what Textual does to a word longer
than its box: it fills the box's line to the edge and goes on at the next line ("A$10.9" / "4"
in a tip button, "Sin" / "propin" / "a"). So: in a box (cells of one background, the same
columns on two lines), a line whose text is one token filling the box, followed by a line that
goes on with a letter or digit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .svgscreen import Screen, is_text, read_svg

SNAPSHOTS = Path(__file__).parent / "__snapshots__"
# Screens whose footer must name their main action, by the snapshot's test name.
MAIN_KEY = {
    "cart": "f2",
    "checkout": "f2",
    "product": "f2",
    "menu": "f4",
}


def all_snapshots() -> list[Path]:
    return sorted(SNAPSHOTS.rglob("*.svg"))


def boxes(screen: Screen, y: int) -> list[tuple[int, int, str | None]]:
    """The runs of one background on line y: (start, end, background)."""
    row = screen.cells[y]
    runs: list[tuple[int, int, str | None]] = []
    start = 0
    for x in range(1, screen.width + 1):
        if x == screen.width or row[x].bg != row[start].bg:
            runs.append((start, x, row[start].bg))
            start = x
    return runs


def text_of(screen: Screen, y: int, a: int, b: int) -> str:
    return "".join(c.char if is_text(c.char) else " " for c in screen.cells[y][a:b])


def splits(screen: Screen) -> list[str]:
    found = []
    for y in range(screen.height - 1):
        below = set(boxes(screen, y + 1))
        for a, b, bg in boxes(screen, y):
            if (a, b, bg) not in below or b - a < 3:
                continue
            line, nxt = text_of(screen, y, a, b).strip(), text_of(screen, y + 1, a, b).strip()
            if not line or not nxt or " " in line:
                continue
            fills = len(line) >= (b - a) - 4
            # The next line goes on with the same token: a word with a lower-case letter, an
            # amount with a digit ("propin" / "a", "$4.7" / "0"; not "propina" / "0,00 US$").
            word = line[-1].isalpha() and nxt[0].islower()
            amount = (line[-1].isdigit() or line[-1] in "$€£.,") and (
                nxt[0].isdigit() or nxt[0] in ".,"
            )
            if fills and (word or amount):
                found.append(f"line {y}, columns {a}-{b}: {line!r} / {nxt!r}")
    return found


def footer_problems(screen: Screen, name: str) -> list[str]:
    footer = screen.line(screen.height - 1)
    if not footer.strip():
        return []
    problems = []
    if is_text(footer[-1]):
        problems.append(f"the footer runs off the screen: {footer.strip()!r}")
    for x in range(1, len(footer)):
        if footer[x] == "▏" and is_text(footer[x - 1]):
            problems.append(f"a key is cut at column {x}: {footer.strip()!r}")
    # The screen: the first of the test's words (or its parameter's) that names one.
    words = name.split("[")[0].removeprefix("test_").split("_") + name.split("[")[-1].split("-")
    screen = next((w.strip("]") for w in words if w.strip("]") in MAIN_KEY), None)
    if screen is not None and "dialog" not in name and "suggestion" not in name:
        key = MAIN_KEY[screen]
        if f"{key} " not in footer:
            problems.append(f"{key} is not in the footer: {footer.strip()!r}")
    return problems


@pytest.mark.parametrize("path", all_snapshots(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_nothing_is_split_or_cut(path: Path) -> None:
    screen = read_svg(path)
    problems = splits(screen) + footer_problems(screen, path.stem)
    assert not problems, "\n".join(problems)


def test_the_reader_finds_a_split_word() -> None:
    """The test's own rule, on a made-up screen: a word broken in a button is found, words
    wrapped at spaces are not."""
    from .svgscreen import Cell

    def screen(lines: list[str]) -> Screen:
        width = max(len(line) for line in lines)
        return Screen(
            width,
            len(lines),
            [[Cell(ch, "#ffffff", "#000000") for ch in line.ljust(width)] for line in lines],
        )

    assert splits(screen([" Sin    ", " propin ", "   a    "]))
    assert splits(screen(["A$10.9", "  4   "]))
    assert not splits(screen([" one two ", " three   "]))
    assert not splits(screen([" Sin      ", " propina  "]))
    assert not splits(screen(["propina", "0,00 US$"]))


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("theme", ["default", "high-contrast"])
async def test_a_choice_list_shows_its_whole_prompt_at_80x24(
    tmp_path: Path, theme: str, language: str
) -> None:
    """A drop-down's prompt that does not fit is not cut by an ellipsis but wrapped onto a line
    its one-line box hides ("Choose a later" with "time" gone, in high contrast, whose bordered
    buttons beside it take two more columns), which no snapshot reading can tell from whole text.
    Measured on the cart's order-time choice as drawn: its words fit its box."""
    from rich.cells import cell_len
    from textual.widgets import Select, Static

    from kiosk.config import Settings
    from kiosk.tui.screens.cart import CartScreen

    from .conftest import make_kiosk, settle
    from .test_snapshots import order_with_items, press

    app = make_kiosk(tmp_path, settings=Settings(theme=theme, language=language)).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await order_with_items(pilot)
        await press("f4")(pilot)
        assert isinstance(app.screen, CartScreen)
        select = app.screen.query_one("#later", Select)
        assert select.display
        label = select.query_one("#label", Static)
        words = str(label.render())
        assert cell_len(words) <= label.size.width and label.size.height == 1, (
            words,
            label.size,
        )
