"""The first frame stays light: the app and its first screens import Textual, not httpx, pydantic
or the demo backend (those load after the first paint, in the services factory's thread)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.ordering.services import KioskServices
from kiosk.paths import styles_dir
from kiosk.tui.app import STYLESHEETS, KioskApp

HEAVY = ("httpx", "pydantic", "starlette", "uvicorn", "sqlite3", "segno", "kiosk.api", "kiosk.demo")


def test_first_frame_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "import kiosk.tui.app, kiosk.tui.screens.boot, kiosk.tui.screens.location\n"
        "import kiosk.tui.screens.welcome, kiosk.tui.screens.menu\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_every_stylesheet_exists() -> None:
    for name in STYLESHEETS:
        assert (styles_dir() / name).is_file(), name
    assert len(KioskApp.CSS_PATH) == len(STYLESHEETS)  # type: ignore[arg-type]


async def test_the_app_paints_before_its_services_exist() -> None:
    """With a services factory the boot screen is up while the factory is still waiting."""
    import asyncio

    from kiosk.tui.screens.boot import BootScreen

    release = asyncio.Event()

    async def slow() -> object:
        await release.wait()
        raise RuntimeError("stopped by the test")

    app = KioskApp(services_factory=slow)  # type: ignore[arg-type]
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, BootScreen)
        with pytest.raises(AttributeError):
            _ = app.services
        release.set()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "could not start" in str(app.screen.query_one("#boot-error").render())


async def booted_location_screen(tmp_path: Path, **app_kwargs: object) -> tuple[KioskApp, str]:
    """A kiosk started from a services factory, as `kiosk demo` starts: its first screen."""
    from textual.widgets._footer import FooterKey

    from kiosk.tui.screens.location import LocationScreen

    from .conftest import FIXED_NOW, make_kiosk, settle

    services = make_kiosk(tmp_path).services

    async def factory() -> KioskServices:
        return services

    app = KioskApp(services_factory=factory, wall_clock=lambda: FIXED_NOW, **app_kwargs)
    first = [Path(p).name for p in app.css_path]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        assert [Path(p).name for p in app.css_path] == list(STYLESHEETS)
        # The footer lays out its keys a few frames after the screen (more under load): wait
        # for them, as a customer's eye would, before comparing.
        for _ in range(100):
            keys = app.screen.query(FooterKey)
            if keys and all(k.size.width for k in keys):
                break
            await pilot.pause()
        await pilot.pause()
        return app, " ".join(first) + "\n" + app.export_screenshot()


async def test_the_first_frame_reads_the_theme_alone_and_the_rest_after(tmp_path: Path) -> None:
    """The boot screen's first frame has the theme alone; the other stylesheets are read after
    it. Once booted, the first screen looks exactly as with every stylesheet read at the start."""
    every = [str(styles_dir() / name) for name in STYLESHEETS]
    _, expected = await booted_location_screen(tmp_path / "every", css_path=every)
    _, got = await booted_location_screen(tmp_path / "theme-first")
    first, got = got.split("\n", 1)
    assert first == "theme.tcss"
    assert got == expected.split("\n", 1)[1]
