"""The demo's product pictures: a small plate drawn in code for each product that asks for one
(`picture = true` in its restaurant file), so no binary is committed and a merchant's own file
gets pictures too. Drawn with Pillow (the `pictures` extra), imported only when a picture is first
asked for; without Pillow the route answers 404 and the kiosk shows no picture."""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache

SIZE = (96, 64)  # small: a kiosk draws it in a handful of cells, and a link carries it quickly


def path_for(product_id: str) -> str:
    """Where a product's picture is served, relative to the server's origin."""
    return f"/demo/pictures/{product_id}.png"


def _colour(seed: bytes, lo: int, hi: int) -> tuple[int, int, int]:
    return tuple(lo + b * (hi - lo) // 255 for b in seed[:3])  # type: ignore[return-value]


def png(product_id: str) -> bytes | None:
    """A PNG of a plate of food, its colours drawn from the product id (the same every start);
    None without Pillow. Only drawings are kept: a "no Pillow" kept with them outlived Pillow's
    absence (a test that hid it left that product without a picture for the process's life)."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        return None
    return _drawn(product_id)


@lru_cache(maxsize=128)
def _drawn(product_id: str) -> bytes:
    from PIL import Image, ImageDraw

    seed = hashlib.sha256(product_id.encode()).digest()
    width, height = SIZE
    image = Image.new("RGB", SIZE, _colour(seed[0:3], 60, 140))  # the table
    draw = ImageDraw.Draw(image)
    draw.ellipse((8, 4, width - 8, height - 4), fill=(235, 235, 228), outline=(200, 200, 190))
    draw.ellipse((24, 14, width - 24, height - 14), fill=_colour(seed[3:6], 120, 240))  # the dish
    for i in range(5):  # a garnish, placed by the seed
        x = 30 + seed[6 + i] % (width - 60)
        y = 18 + seed[12 + i] % (height - 36)
        draw.ellipse((x, y, x + 6, y + 6), fill=_colour(seed[18 + i :], 30, 200))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
