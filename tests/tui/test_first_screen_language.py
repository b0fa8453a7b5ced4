"""Issue 33 (item 6): the language is chosen on the first screen (the restaurant list) too, and
the chosen one is marked in every theme, high contrast included (not by the variant's colour,
which high contrast replaces)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button

from kiosk.config import Settings
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.widgets.language import LanguageBar

from .conftest import make_kiosk, settle
from .test_flow import keys


@pytest.mark.parametrize("theme", ["default", "high-contrast"])
async def test_language_on_the_first_screen_marked_in_every_theme(
    tmp_path: Path, theme: str
) -> None:
    app = make_kiosk(tmp_path, settings=Settings(theme=theme)).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        bar = screen.query_one(LanguageBar)
        assert bar.display and bar.region.height > 0
        english, spanish = (
            screen.query_one("#lang-en", Button),
            screen.query_one("#lang-es", Button),
        )
        # Marked by a shape that survives without colour, and drawn apart from the other.
        assert english.has_class("-chosen") and not spanish.has_class("-chosen")
        assert english.styles.background != spanish.styles.background
        await keys(pilot, "f3")
        assert app.screen is screen
        assert "¿Dónde" in str(screen.query_one("#prompt").render())
        spanish = screen.query_one("#lang-es", Button)
        assert spanish.has_class("-chosen")
        assert spanish.styles.background != screen.query_one("#lang-en", Button).styles.background
        # The list is there again, in Spanish, and still chooses.
        await keys(pilot, "1")
        assert type(app.screen).__name__ == "WelcomeScreen"
