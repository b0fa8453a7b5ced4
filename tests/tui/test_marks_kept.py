"""Diet and allergen marks are never lost (issue 33, item 2): in large text the menu's rows keep
every mark (N, SE were dropped) and the legend says what each means; a name too long for its row
is cut before its marks are."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from kiosk.config import Settings
from kiosk.i18n import _
from kiosk.tui.menu_model import Header
from kiosk.tui.screens.menu import MenuScreen, ProductList

from .conftest import DOWNTOWN, make_kiosk, settle
from .test_flow import keys, open_menu


async def test_large_text_and_narrow_rows_keep_every_mark(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, settings=Settings(large_text=True)).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one(ProductList)
        marked = 0
        for index, row in enumerate(products.rows):
            if isinstance(row, Header):
                continue
            codes = [code for code, _words in products.marks(row)]
            # The list's own width, and a narrow one where every name is too long for its row.
            for width in (products.size.width, 30):
                text = products.text_at(index, width, False).plain
                for code in codes:
                    assert f" {code}" in text, (row.name, width, text)
            marked += bool(codes)
        assert marked >= 3
        legend = screen.query_one("#mark-legend", Static)
        assert legend.display
        said = str(legend.render())
        assert "N nuts" in said and "VG vegan" in said, said


@pytest.mark.parametrize(
    ("language", "wanted"),
    [
        ("en", ("GL gluten", "E egg", "D dairy", "SO soy", "P peanuts")),
        ("es", ("GL gluten", "H huevo", "L lácteos", "SO soja", "CA cacahuetes")),
    ],
)
async def test_the_legend_says_what_each_allergen_mark_means(
    tmp_path: Path, language: str, wanted: tuple[str, ...]
) -> None:
    """Issue 33: the demo menus mark the 14 major allergens where they apply (a latte has milk, a
    cookie gluten, egg and milk), and the legend under the list says each mark in words."""
    kiosk = make_kiosk(tmp_path, locations=[DOWNTOWN], settings=Settings(language=language))
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one(ProductList)
        latte = next(r for r in products.rows if getattr(r, "id", "") == "prd_latte")
        assert _("D") in [code for code, _words in products.marks(latte)]
        said = str(screen.query_one("#mark-legend", Static).render())
        for words in wanted:
            assert words in said, said
        # Each entry whole on one line: a code is never parted from its words at a line's end.
        lines = said.splitlines()
        for entry in products.legend_entries(screen.shown):
            assert any(entry in line for line in lines), (entry, lines)
