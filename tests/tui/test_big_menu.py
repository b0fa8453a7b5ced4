"""The menu with 5,000 products stays fast: a flat line-API list, filtering well under 20 ms a key,
and a cursor move that repaints two lines, not the list."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from kiosk.tui.menu_model import Header
from kiosk.tui.screens.menu import MenuScreen, ProductList

from .conftest import make_kiosk, settle
from .test_flow import keys


async def test_5000_products(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path, extra_products=5000)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one(ProductList)
        assert sum(not isinstance(r, Header) for r in products.rows) > 5000

        # Filtering: what one key press costs (model filter, new rows, search line).
        timings = []
        for query in ("s", "sm", "smo", "smok", "smoky", "smoky t", "smoky ta", "no. 49", ""):
            screen.query_text = query
            start = time.perf_counter()
            screen._refilter()
            timings.append(time.perf_counter() - start)
        assert statistics.median(timings) < 0.020, timings
        await pilot.press(*"no. 4999")
        await settle(pilot)
        ids = [r.id for r in products.rows if not isinstance(r, Header)]
        assert ids == ["xp_04999"]
        await pilot.press("escape")
        await settle(pilot)
        # The search is cleared; the cursor stays on that product, and it is in view.
        assert products.cursor_key == ("cat_xp_050", "xp_04999")
        top = round(products.scroll_y)
        assert top <= products.cursor < top + products.scrollable_content_region.height

        # A cursor move marks two lines dirty (the old and the new cursor row), not the widget.
        products.focus()
        await settle(pilot)
        products._repaint_regions.clear()
        products.action_cursor(-1)  # within the view: no scroll
        dirty = products._repaint_regions
        assert dirty and all(region.height == 1 for region in dirty) and len(dirty) <= 2
        await pilot.press("pagedown", "pagedown", "end")
        await settle(pilot)
        assert products.cursor == len(products.rows) - 1
