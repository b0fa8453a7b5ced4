"""The rest of the snapshot matrix (issue 20): the screens and dialogs test_snapshots.py and
test_snapshots_themes.py do not show, in {default, high contrast} x {80x24, 120x40}, and the
variants that put the ordering screens at risk: Spanish, large text at 120x40 (and in high
contrast at both sizes), NO_COLOR, a closed location. The staff screens too (the PIN and the
staff screen). Payment and done are not here (being rewritten; their snapshots are in the other
files).

The contrast test (test_contrast.py) and the fit test (test_fit.py) read every snapshot of the
three files. Each screen starts where it can from a seeded order (the store), not a replayed one.
Update with `--snapshot-update` on this file after reading the new SVGs.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.color import Color
from textual.filter import Monochrome
from textual.pilot import Pilot

from kiosk.api import RetryPolicy
from kiosk.config import Settings
from kiosk.tui.app import KioskApp

from .conftest import FIXED_NOW, make_kiosk, no_sleep
from .test_snapshots import fill_customer, order_with_items, press, steps

Step = Callable[[Pilot[Any]], Awaitable[None]]

THEMES = [
    pytest.param(theme, size, id=f"{theme}-{size[0]}x{size[1]}")
    for theme in ("default", "high-contrast")
    for size in ((80, 24), (120, 40))
]
LATE = FIXED_NOW + 12 * 3600  # 22:00 in Los Angeles: Westside is closed, Downtown open


def no_color_screenshots(app: KioskApp) -> None:
    """Textual applies NO_COLOR as a filter on what it writes to the terminal, which its SVG
    export skips: this app's screenshots pass through the same filter, so that they show the
    greys the customer sees."""

    def export_screenshot(*, title: str | None = None, simplify: bool = False) -> str:
        width, height = app.size
        console = Console(
            width=width,
            height=height,
            file=io.StringIO(),
            force_terminal=True,
            color_system="truecolor",
            record=True,
            legacy_windows=False,
            safe_box=False,
        )
        render = app.screen._compositor.render_update(
            full=True, screen_stack=app._background_screens, simplify=simplify
        )
        console.print(render)
        buffer = console._record_buffer
        grey = Monochrome().apply
        black = Color(0, 0, 0)
        buffer[:] = [grey([s], black)[0] if s.style is not None else s for s in buffer]
        return console.export_svg(title=title or app.title)

    app.export_screenshot = export_screenshot  # type: ignore[method-assign]


def app_for(
    tmp_path: Path,
    settings: Settings,
    *,
    monkeypatch: pytest.MonkeyPatch | None = None,
    no_color: bool = False,
    late: bool = False,
    **kwargs: Any,
) -> KioskApp:
    if no_color:
        assert monkeypatch is not None
        monkeypatch.setenv("NO_COLOR", "1")
    if late:
        kwargs["wall_clock"] = lambda: LATE
    k = make_kiosk(tmp_path, settings=settings, clock=lambda: 1000.0, **kwargs)
    if late:
        k.backend.set_clock(lambda: LATE)
    if no_color:
        no_color_screenshots(k.app)
    return k.app


def snap(snap_compare: Any, app: KioskApp, size: tuple[int, int], *run: Step) -> bool:
    return bool(snap_compare(app, terminal_size=size, run_before=steps(*run)))


def push_attract(pilot: Pilot[Any]) -> Awaitable[Any]:
    from kiosk.tui.screens.attract import AttractScreen

    return pilot.app.push_screen(AttractScreen())


async def push_still_there(pilot: Pilot[Any]) -> None:
    from kiosk.tui.screens.idle import StillThereDialog

    await pilot.app.push_screen(StillThereDialog(20))


async def push_pin(pilot: Pilot[Any]) -> None:
    from kiosk.tui.screens.staff import PinDialog

    app: Any = pilot.app
    await app.push_screen(PinDialog("x" * 64, app.pin_throttle))


# Screens the other files show in one theme only, or not at all --------------------------------
@pytest.mark.parametrize(("theme", "size"), THEMES[2:])
def test_location(snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    assert snap(snap_compare, app_for(tmp_path, Settings(theme=theme)), size)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_attract(snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    app = app_for(tmp_path, Settings(theme=theme))
    assert snap(snap_compare, app, size, press("1"), push_attract)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_start_over_dialog(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    app = app_for(tmp_path, Settings(theme=theme))
    assert snap(snap_compare, app, size, order_with_items, press("f9"))


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_still_there_dialog(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    app = app_for(tmp_path, Settings(theme=theme))
    assert snap(snap_compare, app, size, order_with_items, push_still_there)


async def push_number_again(pilot: Pilot[Any]) -> None:
    """The first screen's "show my number again", as after an order a moment ago."""
    from kiosk.tui.widgets.recall import NumberDialog

    await pilot.app.push_screen(NumberDialog("A001"))


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_number_again_dialog(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    app = app_for(tmp_path, Settings(theme=theme))
    assert snap(snap_compare, app, size, push_number_again)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_payment_declined(
    snap_compare: Any,
    tmp_path: Path,
    theme: str,
    size: tuple[int, int],
    deterministic_ids: None,
) -> None:
    app = app_for(tmp_path, Settings(theme=theme))
    run = (order_with_items, press("f4", "f2"), fill_customer, press("f2", "d"))
    assert snap(snap_compare, app, size, *run)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_boot_failure(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    async def broken() -> Any:
        raise RuntimeError("no base URL for profile 'production': pass --base-url URL")

    app = KioskApp(services_factory=broken)
    if theme == "high-contrast":
        app.use_theme("high-contrast")
    assert snap(snap_compare, app, size)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_closed_location(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    """Westside at 22:00: orders for later only; the welcome screen says so first."""
    app = app_for(tmp_path, Settings(theme=theme), late=True)
    assert snap(snap_compare, app, size, press("2"))


# The staff's screens ----------------------------------------------------------------------------
@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_staff_pin(snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    assert snap(snap_compare, app_for(tmp_path, Settings(theme=theme)), size, push_pin)


# The staff screen's health lines carry clock times and request durations: its clients stamp
# them with a wall clock and a timer held still here, and the screen reads the app's wall clock.
STILL_CLIENTS = {
    "sleep": no_sleep,
    "retry": RetryPolicy(max_attempts=2, random=lambda: 0.0),
    "clock": lambda: FIXED_NOW,
    "timer": lambda: 0.0,
}


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_staff(snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    app = app_for(tmp_path, Settings(theme=theme), client_options=STILL_CLIENTS)
    assert snap(snap_compare, app, size, press("f12"))  # no PIN set: a developer's kiosk


# Spanish ----------------------------------------------------------------------------------------
SPANISH: dict[str, tuple[Step, ...]] = {
    "welcome": (press("1"),),
    "menu": (order_with_items, press("down", "down")),
    "product": (press("1", "1", "l", "a", "t", "t", "e", "enter"), press("down", "space")),
    "cart": (order_with_items, press("f4")),
    "cart-line-removed": (order_with_items, press("f4", "delete")),
    "checkout": (order_with_items, press("f4", "f2"), fill_customer),
}


@pytest.mark.parametrize("screen", list(SPANISH))
def test_spanish(snap_compare: Any, tmp_path: Path, screen: str) -> None:
    app = app_for(tmp_path, Settings(language="es"))
    assert snap(snap_compare, app, (80, 24), *SPANISH[screen])


@pytest.mark.parametrize("screen", list(SPANISH))
def test_spanish_at_120x40(snap_compare: Any, tmp_path: Path, screen: str) -> None:
    app = app_for(tmp_path, Settings(language="es"))
    assert snap(snap_compare, app, (120, 40), *SPANISH[screen])


# Spanish on the money moments (issue 33: Spanish fits at 80x24): payment, a decline and the
# number, at both sizes. The fit and contrast tests read these pictures as they read the others.
SPANISH_PAYING: dict[str, tuple[Step, ...]] = {
    "payment": (order_with_items, press("f4", "f2"), fill_customer, press("f2")),
    "payment-declined": (order_with_items, press("f4", "f2"), fill_customer, press("f2", "d")),
    "done": (order_with_items, press("f4", "f2"), fill_customer, press("f2", "a")),
}


@pytest.mark.parametrize("screen", list(SPANISH_PAYING))
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_spanish_paying(
    snap_compare: Any, tmp_path: Path, screen: str, size: tuple[int, int], deterministic_ids: None
) -> None:
    app = app_for(tmp_path, Settings(language="es"))
    assert snap(snap_compare, app, size, *SPANISH_PAYING[screen])


# Large text at 120x40 (80x24 is in test_snapshots_themes.py) ------------------------------------
LARGE: dict[str, tuple[Step, ...]] = {
    "location": (),
    "welcome": (press("1"),),
    "menu": (order_with_items, press("down", "down")),
    "product": (press("1", "1", "l", "a", "t", "t", "e", "enter"), press("down", "down", "space")),
    "cart": (order_with_items, press("f4")),
    "checkout": (order_with_items, press("f4", "f2"), fill_customer),
}


@pytest.mark.parametrize("screen", list(LARGE))
def test_large_text(snap_compare: Any, tmp_path: Path, screen: str) -> None:
    app = app_for(tmp_path, Settings(large_text=True))
    assert snap(snap_compare, app, (120, 40), *LARGE[screen])


# Large text in the high-contrast theme, where product, cart and checkout change (issue 20): at
# both sizes (the default theme's 80x24 are in test_snapshots_themes.py).
@pytest.mark.parametrize(
    "screen",
    # The product's groups after a resize are one row off: that walk starts at its own size.
    [pytest.param("product", marks=pytest.mark.own_walk), "cart", "checkout"],
)
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_large_text_high_contrast(
    snap_compare: Any, tmp_path: Path, screen: str, size: tuple[int, int]
) -> None:
    app = app_for(tmp_path, Settings(theme="high-contrast", large_text=True))
    assert snap(snap_compare, app, size, *LARGE[screen])


# NO_COLOR: Textual draws in greys --------------------------------------------------------------
NO_COLOR: dict[str, tuple[Step, ...]] = {
    "welcome": (press("1"),),
    # A sold-out item in view, under the cursor.
    "menu": (order_with_items, press("k", "a", "l")),
    "product": (press("1", "1", "c", "l", "a", "s", "s", "enter"), press("end", "space", "2")),
    "cart": (order_with_items, press("f4")),
    "checkout": (order_with_items, press("f4", "f2"), fill_customer),
}


@pytest.mark.parametrize("screen", list(NO_COLOR))
def test_no_color(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, screen: str
) -> None:
    app = app_for(tmp_path, Settings(), monkeypatch=monkeypatch, no_color=True)
    assert snap(snap_compare, app, (80, 24), *NO_COLOR[screen])
