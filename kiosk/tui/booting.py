"""Starting up, mixed into KioskApp: the first frame before the services, then the real screen.

Without services the app first draws the boot screen (the last first screen kept on disk, or
"Starting…") with the theme alone; after that frame the services factory is awaited in a worker,
the other stylesheets are read, and the real first screen replaces the boot screen, carrying out a
choice made on the kept one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from kiosk.paths import styles_dir

if TYPE_CHECKING:
    from kiosk.ordering.services import KioskServices
    from kiosk.ordering.visit import Visit

    _Host = App[None]
else:
    _Host = object

# One stylesheet per screen plus the theme (architecture: styles/ carried into the wheel).
STYLESHEETS = (
    "theme.tcss",
    "location.tcss",
    "welcome.tcss",
    "menu.tcss",
    "product.tcss",
    "cart.tcss",
    "checkout.tcss",
    "payment.tcss",
    "done.tcss",
    # Kiosk mode (kiosk/tui/kiosk_mode.py): staff, the idle prompt, the attract screen.
    "staff.tcss",
    "idle.tcss",
    "attract.tcss",
    # Large text (issue 13 F): last, so that its rules win over each screen's.
    "large.tcss",
)
# What the boot screen's first frame needs ("Starting…" is styled in the theme). The others are
# read once that frame is out: parsing all twelve first cost ~10 ms of `kiosk demo`'s first frame.
BOOT_STYLESHEETS = ("theme.tcss",)


def css_paths(names: tuple[str, ...] = STYLESHEETS) -> list[str]:
    base = styles_dir()
    return [str(base / name) for name in names]


class Booting(_Host):
    """The boot, mixed into KioskApp. Needs of its host: the services factory and what the
    first screen is (`_start_screen`, kiosk.tui.navigation), `visit` and `kiosk_started`."""

    _services_factory: Callable[[], Awaitable[KioskServices]] | None = None
    # Where the last first screen is kept (a kiosk.diskcache.DiskSlot), and what it held.
    _first_screen_slot: Any = None
    _kept_first_screen: Any = None
    # A cold start's first reads, sent before the first screen is built (boot); held here
    # because the loop keeps only weak references to tasks.
    _first_reads: asyncio.Future[Any] | None = None
    if TYPE_CHECKING:

        @property
        def visit(self) -> Visit: ...
        @property
        def services(self) -> KioskServices: ...
        def _services_ready(self, services: KioskServices) -> None: ...
        def _start_screen(self) -> Any: ...
        def kiosk_started(self) -> None: ...

    # How long the kept first screen may wait for its data to be read again before the real screen
    # takes over (and shows its own loading and, if need be, its own failure).
    WARM_START_LIMIT = 5.0

    def _after_first_frame(self, boot_screen: Any) -> None:
        # The factory first: its slow imports run in a thread while the stylesheets are read.
        self.boot(boot_screen)
        self._read_stylesheets()

    def _read_stylesheets(self) -> None:
        """Read the stylesheets the first frame did without and restyle what is mounted. Only
        the new files are parsed (Stylesheet.parse keeps what it parsed before); they come after
        the theme, as in STYLESHEETS, so the cascade is the same as with all of them read first."""
        stylesheet = self.stylesheet
        missing = [p for p in css_paths() if not stylesheet.has_source(os.path.abspath(p))]
        if not missing:
            return
        for path in missing:
            stylesheet.read(path)
        stylesheet.parse()
        stylesheet.update(self)
        # Sizes may change with the new rules (the footer's keys): lay the screens out again.
        for screen in self.screen_stack:
            screen.refresh(layout=True)
        self.css_path = [*self.css_path, *(Path(p) for p in missing)]
        if self.css_monitor is not None:  # `textual run --dev`: watch them too
            self.css_monitor.add_paths(self.css_path)

    def boot(self, boot_screen: Any) -> None:
        """Await the services factory in a worker; the boot screen shows a failure and R retries."""
        factory = self._services_factory
        assert factory is not None

        async def start() -> None:
            try:
                services = await factory()
            except Exception as error:  # shown to staff on the boot screen
                boot_screen.failed(error)
                return
            self._services_ready(services)
            if boot_screen.preview is not None:
                # The kept screen stays up, "updating…", while its data is read again.
                await self._warm_start()
            else:
                # The first screen's reads start now, in flight while that screen is built; the
                # screen's own reads share them (the client's in-flight reads), failures included.
                self._first_reads = asyncio.gather(
                    *self._first_screen_reads(), return_exceptions=True
                )
            screen = self._start_screen()
            await self.switch_screen(screen)
            self.kiosk_started()
            if self._first_screen_slot is not None:
                self.run_worker(
                    self._first_screen_up(screen, boot_screen),
                    group="first-screen",
                    exit_on_error=False,
                )

        self.run_worker(start(), group="boot", exclusive=True, exit_on_error=False)

    async def _warm_start(self) -> None:
        """Read the first screen's locations (from the disk cache while fresh, revalidated when
        not) so that the real screen draws from memory at once; failures are the screen's."""
        import contextlib

        reads = self._first_screen_reads()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.WARM_START_LIMIT):
                await asyncio.gather(*reads, return_exceptions=True)

    def _first_screen_reads(self) -> list[Awaitable[Any]]:
        """What the first screen reads: its locations."""
        visit = self.visit
        return [visit.load_location(i) for i in self.services.location_ids]

    async def _first_screen_up(self, screen: Any, boot_screen: Any) -> None:
        """Once the real first screen has its data: keep what it shows for the next start (when it
        changed) and carry out the choice made on the kept one: made before, or in flight while
        the screens were swapped (a tap read by the kept screen after it had gone)."""
        from kiosk.tui import first_screen
        from kiosk.tui.screens.location import LocationScreen
        from kiosk.tui.screens.welcome import WelcomeScreen

        loading = [w for w in self.workers if w.node is screen and w.group == "location"]
        if loading:  # (an empty list would wait for every worker, this one too)
            await self.workers.wait_for_complete(loading)
        # Laid out with its data first: the rows' places are kept with the texts.
        laid_out = asyncio.Event()
        screen.call_after_refresh(laid_out.set)
        await laid_out.wait()
        if self.screen is not screen or not isinstance(screen, LocationScreen | WelcomeScreen):
            return
        kind = "locations" if isinstance(screen, LocationScreen) else "welcome"
        shown = first_screen.capture(screen, kind, self.services.demo)
        if shown is not None and not shown.same_as(self._kept_first_screen):
            slot, data = self._first_screen_slot, shown.to_json()
            self._kept_first_screen = shown
            self.run_worker(lambda: slot.write(data), thread=True, group="first-screen-write")

        async def carry(chosen: Any) -> None:
            # Only onto the screen the kept one stood for, and only before a choice made there.
            if self.screen is not screen:
                return
            if isinstance(screen, LocationScreen) and str(chosen) in screen.locations:
                screen.pick(chosen)
            elif (
                isinstance(screen, WelcomeScreen)
                and screen.method is None
                and str(chosen) in screen.methods
            ):
                screen.query_one("#methods").move_to_key(chosen)  # type: ignore[attr-defined]
                await screen.choose(chosen)

        if boot_screen.chosen is not None:
            await carry(boot_screen.chosen)
        else:
            boot_screen.carry = carry
