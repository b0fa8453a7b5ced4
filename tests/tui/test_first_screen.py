"""Issue 14: the first screen at once, from the site's cache on disk.

The first start draws the real location list and keeps it (kiosk.tui.first_screen); the next start
draws it in its first frame, "updating…", while the transport has not answered yet (it is held
until the test releases it); a choice made on it is carried out once the real screen is up."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api import RetryPolicy
from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.demo.data import LOCATIONS
from kiosk.diskcache import DiskCache, DiskSlot
from kiosk.ordering.services import KioskServices
from kiosk.runtime import FIRST_SCREEN_TTL, StartingFactory, build_demo_services, make_app
from kiosk.tui.health import client_health, clock_time
from kiosk.tui.screens.boot import UPDATING, BootScreen, PreviewList
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import BASE_URL, FIXED_NOW, PAY_URL, no_sleep, settle

# A slow or held server: Pilot's own 20 ms idle steps are part of the timing, and so are the
# frames of the first screen (tests/conftest.py).
pytestmark = [pytest.mark.pilot_idle_20ms, pytest.mark.every_frame]

KEY = ("first-screen", "test")


class HeldTransport(httpx.AsyncBaseTransport):
    """Passes requests on only once `release` is set; counts them."""

    def __init__(self, inner: httpx.AsyncBaseTransport, held: bool) -> None:
        self.inner = inner
        self.release = asyncio.Event()
        if not held:
            self.release.set()
        self.requests: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        await self.release.wait()
        return await self.inner.handle_async_request(request)


class Site:
    """One backend and one cache folder; each start() is a kiosk process starting on them."""

    def __init__(self, tmp_path: Path, location_ids: list[str] | None = None) -> None:
        self.tmp_path = tmp_path
        self.location_ids = location_ids or [loc.id for loc in LOCATIONS]
        self.asgi = create_app(":memory:", clock=lambda: FIXED_NOW, public_base_url=PAY_URL)
        self.cache_dir = tmp_path / "cache"
        self.transports: list[HeldTransport] = []

    def start(self, *, held: bool = False, disk_clock: Any = time.time) -> Any:
        disk = DiskCache(self.cache_dir, clock=disk_clock)
        transports = self.transports

        def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
            transport = HeldTransport(inner, held)
            transports.append(transport)
            return transport

        async def build() -> KioskServices:
            services = build_demo_services(
                Settings(),
                backend_app=self.asgi,
                base_url=BASE_URL,
                location_ids=self.location_ids,
                state_dir=self.tmp_path / "state",
                wrap_transport=wrap,
                client_options={"sleep": no_sleep, "retry": RetryPolicy(max_attempts=2)},
                disk_cache=disk,
            )
            services.merchant_slug = None
            return services

        factory = StartingFactory(build, DiskSlot(disk, KEY, ttl=FIRST_SCREEN_TTL))
        return make_app(Settings(), factory=factory, wall_clock=lambda: FIXED_NOW)


def screen_text(app: Any) -> str:
    return " ".join(str(getattr(w, "content", "")) for w in app.screen.query("Static")) + " ".join(
        str(r.text) for r in app.screen.query_one(PreviewList).rows
    )


async def test_the_next_start_shows_the_kept_screen_in_its_first_frame(tmp_path: Path) -> None:
    site = Site(tmp_path)
    # 1. A first start: nothing kept, then the real list, which is kept.
    first = site.start(disk_clock=lambda: time.time() - 7200)  # its reads are stale by now
    async with first.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(first.screen, LocationScreen)
        await settle(pilot)
    kept = DiskSlot(DiskCache(site.cache_dir), KEY, ttl=FIRST_SCREEN_TTL).read()
    assert kept is not None and "Lantern Downtown" in str(kept)

    # 2. The next start: its server does not answer yet, the list is there anyway.
    second = site.start(held=True)
    async with second.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = second.screen
        assert isinstance(screen, BootScreen) and screen.preview is not None
        shown = screen_text(second)
        assert "Lantern Downtown" in shown and "Lantern Westside" in shown
        assert UPDATING in shown
        held = site.transports[-1]
        # The stale locations are being revalidated; nothing has been answered.
        assert held.requests and all(r.startswith("GET /api/v1/locations/") for r in held.requests)
        # The customer chooses on it at once; the choice waits for the real screen.
        await pilot.press("1")
        assert screen.chosen == "loc_downtown"
        assert isinstance(second.screen, BootScreen)
        held.release.set()
        await settle(pilot)
        await settle(pilot)
        assert isinstance(second.screen, WelcomeScreen)
        assert second.location is not None and second.location.id == "loc_downtown"


async def test_a_cold_start_sends_its_first_reads_before_the_first_screen_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing kept: the locations' reads go out as soon as the services exist, before the first
    screen is mounted, and that screen's own reads share them (one request each)."""
    site = Site(tmp_path)
    app = site.start()
    sent_on: list[tuple[str, bool]] = []
    handle = HeldTransport.handle_async_request

    async def noted(self: HeldTransport, request: httpx.Request) -> httpx.Response:
        sent_on.append((request.url.path, app.screen.is_mounted))
        return await handle(self, request)

    monkeypatch.setattr(HeldTransport, "handle_async_request", noted)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        assert set(screen.locations) == {loc.id for loc in LOCATIONS}
    reads = [(path, mounted) for path, mounted in sent_on if path.startswith("/api/v1/locations/")]
    assert sorted(path for path, _ in reads) == sorted(
        f"/api/v1/locations/{loc.id}" for loc in LOCATIONS
    )
    assert {mounted for _, mounted in reads} == {False}


def test_staff_see_when_saved_menus_stand_in_for_the_server() -> None:
    class Client:
        last_success_at = 100.0
        last_error = None
        last_error_at = None
        rate_budget = None
        stale_since: float | None = None

    client = Client()
    assert "saved menus" not in str(client_health(client, now=160.0))
    client.stale_since = 130.0
    since = clock_time(130.0)
    assert f"showing saved menus (no answer since {since})" in str(client_health(client, now=160.0))


def test_the_start_path_with_its_disk_cache_imports_nothing_heavy() -> None:
    """The CLI, the composition root, the disk cache and the kept first screen: all before the
    first frame, none of them pulls in httpx, pydantic, the client or the demo backend."""
    heavy = ("httpx", "pydantic", "starlette", "uvicorn", "sqlite3", "kiosk.api", "kiosk.demo")
    code = (
        "import sys\n"
        "import kiosk.cli, kiosk.runtime, kiosk.diskcache, kiosk.tui.first_screen\n"
        "import kiosk.tui.app, kiosk.tui.screens.boot\n"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


async def test_a_one_location_kiosk_keeps_its_welcome_and_a_way_to_order_chosen_early_holds(
    tmp_path: Path,
) -> None:
    from kiosk.tui.screens.menu import MenuScreen

    site = Site(tmp_path, ["loc_downtown"])
    first = site.start(disk_clock=lambda: time.time() - 7200)
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(first.screen, WelcomeScreen)
        await settle(pilot)
    second = site.start(held=True)
    async with second.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = second.screen
        assert isinstance(screen, BootScreen) and screen.preview is not None
        assert screen.preview.kind == "welcome"
        shown = screen_text(second)
        assert "Welcome to Lantern Downtown" in shown and "Pickup" in shown
        await pilot.press("1")
        assert screen.chosen == "pickup"
        site.transports[-1].release.set()
        await settle(pilot)
        await settle(pilot)
        assert isinstance(second.screen, MenuScreen)


async def _real_rows(app: Any) -> tuple[int, int]:
    """Where the real welcome's way-to-order list stands: its first row and column."""
    methods = app.screen.query_one("#methods")
    return methods.content_region.y, methods.content_region.x


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("tap_after_swap", [False, True], ids=["on-kept", "on-real"])
async def test_the_kept_welcome_stands_its_rows_where_the_real_one_has_them(
    tmp_path: Path, size: tuple[int, int], tap_after_swap: bool
) -> None:
    """A tap is read by whichever screen is up when it arrives: the kept screen's rows stand in
    the real screen's rows, so the row under the finger is the same row either way (tapped on
    the kept screen, the choice waits for the real one)."""
    from kiosk.tui.screens.menu import MenuScreen

    site = Site(tmp_path, ["loc_downtown"])
    first = site.start(disk_clock=lambda: time.time() - 7200)
    async with first.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(first.screen, WelcomeScreen)
        real_y, _x = await _real_rows(first)
        await settle(pilot)

    app = site.start(held=True)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        boot = app.screen
        assert isinstance(boot, BootScreen)
        rows = boot.query_one(PreviewList)
        assert rows.content_region.y == real_y
        tap = (rows.content_region.x + 4, real_y)
        if tap_after_swap:
            site.transports[-1].release.set()
            await settle(pilot)
            assert isinstance(app.screen, WelcomeScreen)
            assert (await _real_rows(app))[0] == real_y
        await pilot.click(offset=tap)
        site.transports[-1].release.set()
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)


async def test_a_choice_that_reaches_the_kept_screen_after_the_swap_is_carried_out(
    tmp_path: Path,
) -> None:
    """The tap was read by the kept screen, but only after the real one had taken over (the
    swap and the tap in flight together): it is carried out, not lost."""
    from kiosk.tui.screens.menu import MenuScreen

    site = Site(tmp_path, ["loc_downtown"])
    first = site.start(disk_clock=lambda: time.time() - 7200)
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await settle(pilot)
    app = site.start(held=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        boot = app.screen
        assert isinstance(boot, BootScreen)
        site.transports[-1].release.set()
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen) and boot.chosen is None
        boot.choose("pickup")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)


async def test_a_choice_typed_while_the_list_loads_waits_for_it(tmp_path: Path) -> None:
    """A first start (nothing kept) with the server slow to answer: 1 pressed on the location list
    before its restaurants have loaded is made once they are, not refused as "could not be
    loaded" and lost."""
    site = Site(tmp_path)
    app = site.start(held=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()  # not settled: the list's load waits for the server
        screen = app.screen
        assert isinstance(screen, LocationScreen) and not screen.locations
        await pilot.press("1")
        assert app.screen is screen and not screen.banner.display, screen.banner.render()
        site.transports[-1].release.set()
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen), screen.banner.render()
        assert app.visit.state.location_id == site.location_ids[0]
