"""Wide terminals use the space (issue 20): at 200x60 each screen's content keeps to a readable
width, centred, so that prices stay near their names; the header and footer still span the
screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.tui.app import KioskApp

from .conftest import make_kiosk, settle

MAX_WIDTH = 140


@pytest.mark.parametrize(
    ("keys", "body"),
    [((), "#location-body"), (("1",), "#welcome-body"), (("1", "1"), "#menu-body")],
)
async def test_content_is_centred_to_a_readable_width(
    tmp_path: Path, keys: tuple[str, ...], body: str
) -> None:
    app: KioskApp = make_kiosk(tmp_path).app
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        region = app.screen.query_one(body).region
        assert region.width == MAX_WIDTH, region
        left, right = region.x, 200 - region.right
        assert abs(left - right) <= 1, region
        assert app.screen.query_one("#header").region.width == 200
