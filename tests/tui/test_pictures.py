"""Product pictures (issue 13): fetched through the client (type, size, cache, no credentials),
drawn in half blocks on the product screen, off by setting or on a kiosk-mode SSH counter, and a
picture that fails leaves the screen exactly as without pictures. Pillow is not loaded before the
first frame."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot

from kiosk.api import StorefrontClient
from kiosk.api.errors import ResponseFormatError, StorefrontError
from kiosk.config import Settings, pictures_on
from kiosk.demo import create_app
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.widgets.picture import Picture

from .conftest import make_kiosk, settle
from .test_flow import keys, open_menu, type_text

ROOT = Path(__file__).resolve().parents[2]


class Recorder(httpx.AsyncBaseTransport):
    """Every request seen, and picture requests answered with a failure when told."""

    def __init__(self, inner: httpx.AsyncBaseTransport, fail_pictures: bool = False) -> None:
        self.inner = inner
        self.fail_pictures = fail_pictures
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if self.fail_pictures and "/demo/pictures/" in request.url.path:
            return httpx.Response(500, text="broken")
        return await self.inner.handle_async_request(request)

    def pictures(self) -> list[httpx.Request]:
        return [r for r in self.seen if "/demo/pictures/" in r.url.path]


# --------------------------------------------------------------------------- the client


def client(key: str = "k_secret_demo_key", **options: Any) -> tuple[StorefrontClient, Recorder]:
    app = create_app(":memory:")
    recorder = Recorder(httpx.ASGITransport(app=app))
    return StorefrontClient("http://demo.test/api/v1", key, transport=recorder, **options), recorder


async def test_a_picture_comes_through_the_client_without_credentials_and_is_cached() -> None:
    c, recorder = client()
    async with c:
        data = await c.get_image("/demo/pictures/prd_pancakes.png")
        assert data.startswith(b"\x89PNG")
        assert await c.get_image("/demo/pictures/prd_pancakes.png") == data
        (request,) = recorder.pictures()  # the second came from the cache
        assert str(request.url) == "http://demo.test/demo/pictures/prd_pancakes.png"
        assert "x-api-key" not in request.headers and "x-cart-token" not in request.headers
        assert "k_secret_demo_key" not in str(request.headers)


async def test_what_is_not_a_small_picture_is_refused_and_the_refusal_cached() -> None:
    c, recorder = client()
    async with c:
        with pytest.raises(ResponseFormatError):
            await c.get_image("/demo/health")  # JSON, not a picture
        with pytest.raises(ResponseFormatError):
            await c.get_image("/demo/pictures/prd_latte.png", max_bytes=100)
        with pytest.raises(StorefrontError):
            await c.get_image("/demo/pictures/prd_classic_burger.png")  # 404: it has none
        with pytest.raises(ResponseFormatError):
            await c.get_image("file:///etc/passwd")
        sent = len(recorder.seen)
        with pytest.raises(ResponseFormatError):
            await c.get_image("/demo/health")
        assert len(recorder.seen) == sent


def test_the_setting() -> None:
    ssh = {"SSH_CONNECTION": "10.0.0.2 5555 10.0.0.1 22"}
    assert pictures_on(Settings(), {})
    assert pictures_on(Settings(), ssh)  # not a kiosk-mode counter
    assert not pictures_on(Settings(kiosk_mode=True), ssh)
    assert pictures_on(Settings(kiosk_mode=True), {})
    assert pictures_on(Settings(kiosk_mode=True, pictures="auto"), ssh)  # the merchant's choice
    assert not pictures_on(Settings(pictures="off"), {})
    with pytest.raises(ValueError, match="pictures"):
        Settings(pictures="sometimes")


# --------------------------------------------------------------------------- the screen


async def open_product(pilot: Pilot[Any], search: str) -> ProductScreen:
    await open_menu(pilot, "1", "1")
    await type_text(pilot, search)
    await keys(pilot, "enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ProductScreen)
    return screen


def layout(screen: ProductScreen) -> dict[str, Any]:
    return {
        name: screen.query_one(name).region
        for name in ("#product-info", "#modifiers", "#product-help", "#product-bar")
    }


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_product_screen_draws_its_picture(tmp_path: Path, size: tuple[int, int]) -> None:
    recorders: list[Recorder] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        recorders.append(Recorder(inner))
        return recorders[-1]

    k = make_kiosk(tmp_path, wrap_transport=wrap)
    async with k.app.run_test(size=size) as pilot:
        screen = await open_product(pilot, "falafel")
        picture = screen.query_one(Picture)
        assert picture.display and picture.drawn is not None
        rows = picture.drawn.plain.split("\n")
        assert set("".join(rows)) == {"▀"}
        assert len(rows[0]) <= (16 if size[0] == 80 else 30)
        # Two colours per cell, from the picture (a plate on a table: not all one colour).
        colours = {(s.style.color, s.style.bgcolor) for s in picture.drawn.spans}
        assert len(colours) > 3
        assert picture.region.width == len(rows[0]) and picture.region.height == len(rows)
        assert sum(len(r.pictures()) for r in recorders) == 1


async def test_a_picture_that_fails_leaves_the_screen_as_without_pictures(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    off = make_kiosk(tmp_path / "a", settings=Settings(pictures="off"))
    async with off.app.run_test(size=(80, 24)) as pilot:
        screen = await open_product(pilot, "falafel")
        without = layout(screen)
        assert not screen.query_one(Picture).display
    failing: list[Recorder] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        failing.append(Recorder(inner, fail_pictures=True))
        return failing[-1]

    broken = make_kiosk(tmp_path / "b", wrap_transport=wrap)
    async with broken.app.run_test(size=(80, 24)) as pilot:
        screen = await open_product(pilot, "falafel")
        assert sum(len(r.pictures()) for r in failing) == 1  # it was asked for, and failed
        assert not screen.query_one(Picture).display
        assert layout(screen) == without
        await keys(pilot, "f2")  # the product is added as ever
        assert [i["productId"] for i in broken.server_cart()["items"]] == ["prd_falafel_wrap"]


async def test_pictures_off_asks_for_none(tmp_path: Path) -> None:
    recorders: list[Recorder] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        recorders.append(Recorder(inner))
        return recorders[-1]

    k = make_kiosk(tmp_path, settings=Settings(pictures="off"), wrap_transport=wrap)
    async with k.app.run_test(size=(80, 24)) as pilot:
        screen = await open_product(pilot, "falafel")
        assert not screen.query_one(Picture).display
        assert sum(len(r.pictures()) for r in recorders) == 0


async def test_without_pillow_the_product_screen_works_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # `from PIL import Image` now fails
    k = make_kiosk(tmp_path)
    async with k.app.run_test(size=(80, 24)) as pilot:
        screen = await open_product(pilot, "falafel")
        assert not screen.query_one(Picture).display
        await keys(pilot, "f2")
        assert [i["productId"] for i in k.server_cart()["items"]] == ["prd_falafel_wrap"]


def test_a_picture_asked_for_without_pillow_is_drawn_once_pillow_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The demo's pictures keep their drawings, not Pillow's absence: a product asked for while
    Pillow was missing gets its picture once it is there (order-dependent failures before)."""
    from kiosk.demo import pictures

    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "PIL", None)
        assert pictures.png("prd_asked_without_pillow") is None
    drawn = pictures.png("prd_asked_without_pillow")
    assert drawn is not None and drawn.startswith(b"\x89PNG")


def test_pillow_is_not_loaded_before_the_first_frame() -> None:
    """The kiosk's whole UI and its CLI import without Pillow nor textual-image."""
    code = (
        "import sys, kiosk.cli, kiosk.tui.app, kiosk.tui.screens.product, "
        "kiosk.tui.screens.menu, kiosk.tui.widgets.picture, kiosk.runtime; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PIL', 'textual_image')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
