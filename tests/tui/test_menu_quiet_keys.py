"""Quiet keys on the menu: a product move repaints the category sidebar only when the category
changes, and then in the same frame as the product list (no message a frame later)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.geometry import Region

from kiosk.tui.menu_model import Header
from kiosk.tui.screens.menu import CategoryList, MenuScreen, ProductList

from .conftest import make_kiosk, settle
from .test_flow import keys


class Repaints:
    """Counts the regions a widget asks to repaint (refresh, refresh_line, scroll)."""

    def __init__(self, widget: Any) -> None:
        self.regions: list[Region] = []
        original = widget.refresh

        def refresh(*regions: Region, **kwargs: Any) -> Any:
            self.regions.append(regions[0] if regions else widget.region)
            return original(*regions, **kwargs)

        widget.refresh = refresh


async def test_sidebar_repaints_only_when_the_category_changes(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one("#products", ProductList)
        cats = screen.query_one("#categories", CategoryList)
        products.focus()
        await settle(pilot)
        rows = products.rows
        # A product with another product of the same category below it, then the category's last.
        key = products.key_at
        first = next(i for i in range(len(rows) - 2) if key(i) and key(i + 1))
        last = next(i for i in range(first, len(rows) - 2) if isinstance(rows[i + 1], Header))
        products._move_to(first, announce=False)
        cats.move_to_key(products.key_at(first)[0], announce=False)  # type: ignore[index]
        await settle(pilot)
        sidebar = Repaints(cats)
        before = cats.cursor

        await pilot.press("down")  # the same category
        await settle(pilot)
        assert products.cursor == first + 1
        assert cats.cursor == before and sidebar.regions == []

        products._move_to(last, announce=False)
        await settle(pilot)
        sidebar.regions.clear()
        products.action_cursor(1)  # past the header: the next category
        # Moved at once, in the handler of the key: not by a message after this frame.
        assert products.key_at(products.cursor)[0] == cats.cursor_key  # type: ignore[index]
        assert cats.cursor == before + 1
        assert sidebar.regions and all(r.height == 1 for r in sidebar.regions)
        await settle(pilot)
        assert cats.cursor == before + 1
