"""Each line has its own −, + and ✕ for a finger (issue 33, item 4): a tap acts on the line it is
drawn on, not on the highlighted one; ✕ (and − to none) is a removal said with its Undo."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from kiosk.tui.screens.cart import TARGET_CELLS, CartLines
from kiosk.tui.widgets.line_controls import UndoNote

from .conftest import make_kiosk, settle
from .test_cart_typing import latte_cart, server_lines

SIZES = [(80, 24), (120, 40)]


async def tap(pilot: Any, lines: CartLines, line: int, action: str) -> None:
    """A tap in the middle of `action`'s target on the `line`-th item row (0: the first)."""
    index = [i for i in range(len(lines.rows)) if lines.key_at(i) is not None][line]
    region = lines.target_region(index, action)
    assert region is not None, (line, action)
    assert region.width >= TARGET_CELLS
    content = lines.scrollable_content_region.offset - lines.region.offset
    offset = (content.x + region.x + 1, content.y + region.y)
    assert await pilot.click("#lines", offset=offset)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_plus_on_the_second_line_changes_that_line(tmp_path: Path, size: Any) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=size) as pilot:
        screen = await latte_cart(pilot)
        lines = screen.query_one("#lines", CartLines)
        first = lines.cursor_key
        assert first == app.visit.state.cart.items[0].id  # the latte is highlighted
        await tap(pilot, lines, 1, "more")
        assert [q for _, q, _ in server_lines(app)] == [1, 2]
        await tap(pilot, lines, 1, "less")
        assert [q for _, q, _ in server_lines(app)] == [1, 1]
        assert app.screen is screen  # the tap did not open the line to change it


async def test_cross_removes_that_line_with_its_undo(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        lines = screen.query_one("#lines", CartLines)
        await tap(pilot, lines, 1, "remove")
        assert [p for p, _, _ in server_lines(app)] == ["prd_latte"]
        note = screen.query_one("#undo-note", UndoNote)
        assert note.display and note.offered
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert sorted(p for p, _, _ in server_lines(app)) == ["prd_cookie", "prd_latte"]


async def test_minus_to_none_on_a_line_is_a_removal_with_undo(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        lines = screen.query_one("#lines", CartLines)
        await tap(pilot, lines, 1, "less")
        assert [p for p, _, _ in server_lines(app)] == ["prd_latte"]
        assert screen.query_one("#undo-note", UndoNote).offered


async def test_the_targets_are_drawn_apart_on_each_line(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        lines = screen.query_one("#lines", CartLines)
        items = [i for i in range(len(lines.rows)) if lines.key_at(i) is not None]
        for index in items:
            drawn = lines.render_line(index - round(lines.scroll_y)).text
            regions = [lines.target_region(index, a) for a in ("less", "more", "remove")]
            assert all(r is not None for r in regions)
            labels = [drawn[r.x : r.right] for r in regions if r is not None]
            assert labels == [" − ", " + ", " ✕ "], labels
            xs = [r.x for r in regions if r is not None]
            assert all(b - a > TARGET_CELLS for a, b in pairwise(xs))
