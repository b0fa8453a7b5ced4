"""A long name wraps to a second line rather than being cut before its marks (issue 33, item 2):
its price and every mark stay on its first line, the rest of the name is on the line under it,
and the cursor covers both lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.config import Settings
from kiosk.tui.menu_model import Header
from kiosk.tui.screens.menu import MenuScreen, NameMore, ProductList, product_name

from .conftest import FIXED_NOW, make_kiosk, settle
from .test_flow import keys

DAN_DAN = "prd_kw_dan_dan"
# Lunchtime in Wellington (Kōwhai is open).
LUNCH = FIXED_NOW - 17.5 * 3600


def _lines(products: ProductList) -> list[str]:
    return [products.render_line(y).text for y in range(products.size.height)]


@pytest.mark.parametrize(
    ("size", "large"), [((80, 24), False), ((80, 24), True), ((120, 40), False)]
)
async def test_a_long_name_wraps_and_keeps_its_marks(
    tmp_path: Path, size: tuple[int, int], large: bool
) -> None:
    kiosk = make_kiosk(
        tmp_path, menu="kowhai", settings=Settings(large_text=large), wall_clock=lambda: LUNCH
    )
    app = kiosk.app
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one(ProductList)
        # In its own category (it is under Popular too, where the cursor starts).
        at = [
            i
            for i, row in enumerate(products.rows)
            if getattr(row, "id", "") == DAN_DAN and not isinstance(row, Header)
        ][-1]
        assert products.cursor != at  # the whole-name line under the list shows another one
        products.scroll_to(y=at - 1, animate=False, immediate=True)
        await settle(pilot)
        lines = _lines(products)
        row = products.rows[at]
        name = product_name(row)
        first, second = lines[1], lines[2]
        # Its first line: the name's start, every mark and the price, nothing cut.
        assert first.strip().startswith("Dan Dan Noodles with"), first
        assert "…" not in first, first
        for code, _words in products.marks(row):
            assert f" {code}" in first, (code, first)
        assert "24.50" in first, first
        # The rest on the line under it, word-wrapped: together they say the name (up to "…").
        assert isinstance(products.rows[at + 1], NameMore)
        marks = " " + " ".join(code for code, _words in products.marks(row))
        head = first.split(marks)[0].split()
        rest = second.split()
        if rest[-1].endswith("…"):
            rest[-1] = rest[-1].removesuffix("…")
            assert name.split()[: len(head) + len(rest)][-1].startswith(rest[-1])
            rest = rest[:-1]
        assert head + rest == name.split()[: len(head) + len(rest)], (first, second)
        if large:
            # The list is wide enough (78 cells): the whole name, no "…".
            assert head + rest == name.split(), (first, second)
        # The cursor on it covers both lines.
        products.move_to_key(products.key_at(at))
        await settle(pilot)
        assert products.cursor_lines(at) == range(at, at + 2)
        top = round(products.scroll_y)
        cursor_bg = products.get_component_rich_style("rowlist--cursor").bgcolor
        for line in (at, at + 1):
            strip = products.render_line(line - top)
            assert any(seg.style and seg.style.bgcolor == cursor_bg for seg in strip), line


async def test_the_name_wraps_again_when_the_list_changes_width(tmp_path: Path) -> None:
    """A resize wraps the names again for the new width (the splits are kept per width)."""
    kiosk = make_kiosk(tmp_path, menu="kowhai", wall_clock=lambda: LUNCH)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        products = app.screen.query_one(ProductList)

        def second_line() -> str:
            at = [i for i, r in enumerate(products.rows) if getattr(r, "id", "") == DAN_DAN][-1]
            more = products.rows[at + 1]
            assert isinstance(more, NameMore)
            return more.text

        wide = second_line()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await settle(pilot)
        narrow = second_line()
        assert narrow != wide, products.size
        assert products._wrapped_width == products.scrollable_content_region.width
