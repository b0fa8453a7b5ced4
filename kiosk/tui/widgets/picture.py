"""A product's picture on the product screen, drawn in half-block cells.

Each cell is "▀" with the upper pixel as its colour and the lower one as its background, so it
draws on any terminal Textual draws on (over SSH, in a browser through `kiosk serve`, in tests),
in whatever colours the terminal has. textual-image's Sixel and Kitty renderers are not used:
they learn what the terminal supports by querying it on import, which cannot be done once Textual
reads the keyboard, and importing it before the first frame would load Pillow there too.

Pillow (the `pictures` extra) is imported when the first picture arrives, never before the first
frame; without it, or when the picture fails in any way, the widget stays hidden and the screen is
exactly as without pictures. The bytes come through the Visit (the client checks type and size
and caches them): no widget talks HTTP.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

log = logging.getLogger("kiosk.tui")

# Pictures bigger than this are refused before decoding (a small PNG can unpack to gigapixels).
MAX_PIXELS = 4_000_000


def _cells_for(screen_width: int, screen_height: int) -> tuple[int, int]:
    """The picture's size in cells: small at 80×24 (the modifiers need the rows), larger beyond."""
    if screen_width >= 110 and screen_height >= 36:
        return 30, 10
    return 16, 5


def half_blocks(data: bytes, width: int, height: int) -> Text:
    """The picture fitted into `width`×`height` cells, as half blocks. Raises on anything Pillow
    cannot read, or a picture too large to decode."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        if opened.width * opened.height > MAX_PIXELS:
            raise ValueError("picture too large to decode")
        image = opened.convert("RGB")
    # A cell is about twice as tall as wide, and holds two pixels stacked: pixels come out square.
    image.thumbnail((width, height * 2))
    if image.height % 2:
        image = image.crop((0, 0, image.width, image.height - 1))
    pixels = image.load()
    assert pixels is not None
    text = Text(no_wrap=True, overflow="crop")
    for y in range(0, image.height, 2):
        if y:
            text.append("\n")
        for x in range(image.width):
            top: Any = pixels[x, y]
            bottom: Any = pixels[x, y + 1]
            text.append(
                "▀", Style(color=Color.from_rgb(*top[:3]), bgcolor=Color.from_rgb(*bottom[:3]))
            )
    return text


class Picture(Widget):
    """Hidden until a picture has been fetched and drawn."""

    DEFAULT_CSS = """
    Picture { display: none; width: auto; height: auto; margin: 0 1 0 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.drawn: Text | None = None

    def render(self) -> Text:
        return self.drawn or Text("")

    def load(self, product: Any, fetch: Callable[[str], Awaitable[bytes]], settings: Any) -> None:
        """Fetch and draw the product's first picture, when it has one and pictures are on."""
        from kiosk.config import pictures_on

        images = [u for u in (getattr(product, "images", None) or ()) if isinstance(u, str) and u]
        if not images or not pictures_on(settings, os.environ):
            return
        width, height = _cells_for(self.app.size.width, self.app.size.height)
        self.run_worker(
            self._draw(images[0], fetch, width, height), group="picture", exclusive=True
        )

    async def _draw(
        self, url: str, fetch: Callable[[str], Awaitable[bytes]], width: int, height: int
    ) -> None:
        try:
            data = await fetch(url)
            # Decoding is CPU work: off the event loop, so keys stay prompt meanwhile.
            drawn = await asyncio.to_thread(half_blocks, data, width, height)
        except Exception as exc:
            log.info("no picture for this product: %s", type(exc).__name__)
            return
        self.drawn = drawn
        rows = drawn.plain.split("\n")
        self.styles.width, self.styles.height = len(rows[0]), len(rows)
        self.display = True
        self.refresh(layout=True)
