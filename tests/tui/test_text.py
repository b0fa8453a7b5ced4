"""Text from the API is drawn as the characters it holds: markup, escape sequences, huge and
RTL/wide names never change how the kiosk looks or behaves.
"""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.product import ProductScreen

from .conftest import make_kiosk, no_thanks, settle
from .test_flow import keys

NAME = "[bold]Esp[/] \x1b[31mRED\x1b[0m [link=http://x]y[/link] ﺳﻼﻡ 漢字 " + "A" * 10_000


def screen_text(svg: str) -> str:
    texts = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    return html.unescape("".join(texts)).replace("\xa0", " ")


async def test_hostile_product_name_is_drawn_literally(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path)
    catalog = kiosk.backend.catalog
    catalog.products["prd_espresso"] = dataclasses.replace(
        catalog.products["prd_espresso"], name=NAME, description="[i]desc[/i]\x1b]0;title\x07"
    )
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "1")
        assert isinstance(app.screen, MenuScreen)
        shown = screen_text(app.export_screenshot())
        # Wrapped to a second row where it is long, its marks kept (issue 33), never parsed: the
        # markup as typed, on whichever row it falls.
        for piece in ("[bold]Esp[/]", "[31mRED[0m", "[link=http://"):
            assert piece in shown, piece
        assert "\x1b" not in shown
        await pilot.press("e", "s", "p", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ProductScreen)
        shown = screen_text(app.export_screenshot())
        assert "[bold]Esp[/]" in shown and "[i]desc[/i]" in shown and "\x07" not in shown
        await pilot.press("f2")
        await settle(pilot)
        await no_thanks(pilot)  # the one suggestion after an add
        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, CartScreen)
        # The server kept the name as sent; the screen shows it literally, cut short.
        assert kiosk.server_cart()["items"][0]["name"] == NAME
        shown = screen_text(app.export_screenshot())
        assert "1 × [bold]Esp[/] [31mRED[0m" in shown
        assert "A" * 300 not in shown
