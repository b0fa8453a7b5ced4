"""RowList scrolling: a move past the edge of the view scrolls half a page (Textual repaints the
whole view on a scroll, so a line per move would redraw the list on every such move); the cursor
always stays in view, headers above it too; PageUp/PageDown/Home/End land where they should."""

from __future__ import annotations

import itertools
from collections.abc import Hashable

from textual.app import App, ComposeResult

from kiosk.tui.widgets.rowlist import RowList

ROWS = 200
HEIGHT = 20  # the list's height: the app is as tall as that and the list fills it


class Numbers(RowList[int]):
    """Rows 0..ROWS-1; every tenth row is a header the cursor skips."""

    def row_key(self, row: int) -> Hashable | None:
        return None if row % 10 == 0 else row


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Numbers(list(range(ROWS)))

    def on_mount(self) -> None:
        self.query_one(Numbers).focus()


def in_view(rows: Numbers) -> bool:
    assert rows.cursor is not None
    top = round(rows.scroll_y)
    return top <= rows.cursor < top + rows.scrollable_content_region.height


async def test_a_move_past_the_edge_scrolls_half_a_page() -> None:
    app = ListApp()
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        rows = app.query_one(Numbers)
        assert rows.scrollable_content_region.height == HEIGHT
        assert rows.cursor == 1 and round(rows.scroll_y) == 0
        # Down to the last row of the view: no scroll.
        await pilot.press(*["down"] * 17)  # skips the header at 10
        assert rows.cursor == HEIGHT - 1 and round(rows.scroll_y) == 0
        # One more: half a page at once, the cursor in the middle of the view.
        await pilot.press("down")
        await pilot.pause()
        assert rows.cursor == HEIGHT + 1  # 20 is a header
        assert round(rows.scroll_y) == HEIGHT // 2 and in_view(rows)
        # The next moves until the bottom edge repaint two lines each, no scroll.
        scrolls = 0
        last_top = round(rows.scroll_y)
        for _ in range(60):
            rows._repaint_regions.clear()
            rows.action_cursor(1)
            dirty = set(rows._repaint_regions)
            await pilot.pause()
            assert in_view(rows)
            top = round(rows.scroll_y)
            if top != last_top:
                scrolls += 1
                assert top - last_top == HEIGHT // 2
            else:
                assert dirty and all(r.height == 1 for r in dirty) and len(dirty) <= 2
            last_top = top
        # 60 moves (66 rows with the headers) scroll 6 times, not 60.
        assert 5 <= scrolls <= 7, scrolls
        # Up: no scroll until the cursor leaves the top of the view, then half a page up.
        top = round(rows.scroll_y)
        while round(rows.scroll_y) == top:
            rows.action_cursor(-1)
            assert in_view(rows)
        # It scrolled only when the cursor left the view (the row above the old top; or the
        # first row under a header at the old top, which brings the header into view).
        assert rows.cursor is not None and top - 1 <= rows.cursor <= top + 1
        assert round(rows.scroll_y) == top - HEIGHT // 2


async def test_the_header_above_the_cursor_stays_in_view() -> None:
    app = ListApp()
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        rows = app.query_one(Numbers)
        await pilot.press("end")
        await pilot.pause()
        # Up to the first row, one row at a time: whenever the cursor is the first row under a
        # header, that header is in view as well.
        while rows.cursor != 1:
            assert rows.cursor is not None
            top = round(rows.scroll_y)
            rows.action_cursor(-1)
            assert in_view(rows)
            if rows.cursor % 10 == 1:
                assert round(rows.scroll_y) <= rows.cursor - 1
            assert round(rows.scroll_y) <= top
        assert round(rows.scroll_y) == 0


async def test_page_and_edge_keys_keep_the_cursor_in_view() -> None:
    app = ListApp()
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        rows = app.query_one(Numbers)
        seen: list[int] = []
        for _ in range(12):
            await pilot.press("pagedown")
            await pilot.pause()
            assert rows.cursor is not None and in_view(rows)
            seen.append(rows.cursor)
        # A page a press (less the header rows skipped), until the last row.
        for a, b in itertools.pairwise(seen):
            assert b == ROWS - 1 or HEIGHT - 1 <= b - a <= HEIGHT, seen
        assert seen[0] >= HEIGHT - 1 and seen[-1] == ROWS - 1
        await pilot.press("pageup")
        await pilot.pause()
        assert in_view(rows) and rows.cursor is not None and rows.cursor <= ROWS - HEIGHT + 1
        await pilot.press("home")
        await pilot.pause()
        assert rows.cursor == 1 and round(rows.scroll_y) == 0
        await pilot.press("end")
        await pilot.pause()
        assert rows.cursor == ROWS - 1 and in_view(rows)
        assert round(rows.scroll_y) == ROWS - HEIGHT


async def test_moving_to_where_the_cursor_already_is_repaints_nothing() -> None:
    """The menu's category sidebar follows the product cursor: within one category every key
    moved it to the row it was on, and repainted that row a frame later (issue 14)."""
    app = ListApp()
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        rows = app.query_one(Numbers)
        rows.move_to_key(5)
        await pilot.pause()
        refreshed: list[int] = []
        original = rows.refresh_line
        rows.refresh_line = lambda y: refreshed.append(y) or original(y)  # type: ignore[method-assign]
        rows.move_to_key(5)
        rows.move_to_index(5)
        await pilot.pause()
        assert refreshed == [] and rows.cursor == 5
        rows.move_to_key(6)
        assert refreshed == [5, 6]
