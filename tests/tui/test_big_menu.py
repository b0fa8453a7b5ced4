"""The menu with 5,000 products: a flat line-API list that filters each key, and a cursor move that
repaints two lines, not the list. How long a key takes is measured by benchmarks 4 and 4t
(tests/bench), not asserted here."""

from __future__ import annotations

from pathlib import Path

from kiosk.tui.menu_model import Header, fold, search_key
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

        # Each key's filter (model filter, new rows, search line) keeps only what matches.
        for query in ("s", "sm", "smo", "smok", "smoky", "smoky t", "smoky ta", "no. 49", ""):
            screen.query_text = query
            screen._refilter()
            shown = [r for r in products.rows if not isinstance(r, Header)]
            assert shown, query
            assert all(fold(query) in search_key(p) for p in shown), query
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
