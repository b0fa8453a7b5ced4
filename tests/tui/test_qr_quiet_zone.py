"""Every QR code the kiosk draws has a quiet zone of 4 modules on every side, as the screen shows
it, not only as the widget means it: the screen's cells are read back as modules (two to a cell,
by glyph and colour), a QR reader (zxing-cpp) decodes them and says where the code is, and the 4
modules around the code must be light and on the screen. The browser demo (`kiosk serve`) shows
this same screen. Before, the payment column was laid out 4 columns narrower than the code it
held, which cut off the quiet zone on the code's right.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import segno
import zxingcpp
from PIL import Image
from rich.cells import cell_len
from rich.color import Color
from textual.strip import Strip

from kiosk.config import Settings
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.widgets.qr import QUIET_ZONE, QRCode

from .conftest import make_kiosk
from .test_pay_at_counter import _to_payment

PIXELS = 6  # a module's side in the image the reader is given


def _dark(color: Color | None) -> bool:
    if color is None:  # the terminal's own colour: not known to be light
        return True
    r, g, b = color.get_truecolor()
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128


def _modules(strips: list[Strip]) -> list[list[bool]]:
    """The screen as modules (True = dark): a cell is one module wide and two high. Only the
    half-block glyphs and blanks are read by colour; any other character counts as dark (it is
    no quiet zone)."""
    rows: list[list[bool]] = []
    for strip in strips:
        top: list[bool] = []
        bottom: list[bool] = []
        for segment in strip:
            style = segment.style
            fg = style.color if style is not None else None
            bg = style.bgcolor if style is not None else None
            if style is not None and style.reverse:
                fg, bg = bg, fg
            for ch in segment.text:
                fg_dark, bg_dark = _dark(fg), _dark(bg)
                pair = {
                    " ": (bg_dark, bg_dark),
                    "█": (fg_dark, fg_dark),
                    "▀": (fg_dark, bg_dark),
                    "▄": (bg_dark, fg_dark),
                }.get(ch, (True, True))
                for _ in range(cell_len(ch)):
                    top.append(pair[0])
                    bottom.append(pair[1])
        rows += [top, bottom]
    return rows


def _image(modules: list[list[bool]]) -> Image.Image:
    image = Image.new("L", (len(modules[0]) * PIXELS, len(modules) * PIXELS), 255)
    for y, row in enumerate(modules):
        for x, dark in enumerate(row):
            if dark:
                image.paste(0, (x * PIXELS, y * PIXELS, (x + 1) * PIXELS, (y + 1) * PIXELS))
    return image


def _assert_quiet_zone_on_screen(strips: list[Strip], url: str) -> None:
    modules = _modules(strips)
    width = len(modules[0])
    assert all(len(row) == width for row in modules)
    (found,) = [b for b in zxingcpp.read_barcodes(_image(modules)) if b.text == url]
    assert found.format == zxingcpp.BarcodeFormat.QRCode
    # Where the reader found it, snapped to the module whose drawing is exactly the code.
    symbol = [
        [bool(m) for m in row]
        for row in segno.make_qr(url, error="l", boost_error=True).matrix_iter(border=0)
    ]
    n = len(symbol)
    corner = found.position.top_left
    near = [
        (round(corner.y / PIXELS) + dy, round(corner.x / PIXELS) + dx)
        for dy in (0, -1, 1)
        for dx in (0, -1, 1)
    ]
    top, left = next(
        (y, x)
        for y, x in near
        if y >= 0 and x >= 0 and [row[x : x + n] for row in modules[y : y + n]] == symbol
    )
    # 4 light modules on every side, all of them on the screen.
    assert top >= QUIET_ZONE and left >= QUIET_ZONE, (top, left)
    assert top + n + QUIET_ZONE <= len(modules) and left + n + QUIET_ZONE <= width
    for y in range(top - QUIET_ZONE, top + n + QUIET_ZONE):
        for x in range(left - QUIET_ZONE, left + n + QUIET_ZONE):
            if not (top <= y < top + n and left <= x < left + n):
                assert not modules[y][x], f"a dark module in the quiet zone at {x},{y}"


@pytest.mark.parametrize(
    ("size", "settings"),
    [
        ((80, 24), Settings()),
        ((120, 40), Settings()),
        ((80, 24), Settings(large_text=True, theme="high-contrast")),
    ],
    ids=["80x24", "120x40", "large-high-contrast-80x24"],
)
async def test_the_payment_qr_code_has_its_quiet_zone_on_screen(
    tmp_path: Path, size: tuple[int, int], settings: Settings
) -> None:
    k = make_kiosk(tmp_path, settings=settings)
    async with k.app.run_test(size=size) as pilot:
        await _to_payment(pilot, k)
        await pilot.pause()
        screen = k.app.screen
        assert isinstance(screen, PaymentScreen)
        url = screen.query_one(QRCode).data
        strips = screen._compositor.render_strips()
    assert url.startswith("https://pay.lantern.example/demo/checkout/")
    _assert_quiet_zone_on_screen(strips, url)
