"""What every kiosk screen shares: the frame, background calls with a loading indicator, failures.

A screen never talks to httpx: it calls the CartStore (cart writes, serialised there) or the client
(reads) through `self.call(...)`, which runs the call in a worker of a named group, shows a loading
indicator on the widget that waits, and turns any failure into a message with a way forward (R
retries).

"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Select
from textual.worker import Worker

from kiosk.tui.errors import Failure, describe
from kiosk.tui.widgets.chrome import Banner, KioskHeader

if TYPE_CHECKING:
    from kiosk.api import StorefrontClient
    from kiosk.tui.app import KioskApp

T = TypeVar("T")


class KioskScreen(Screen[Any]):
    """Base of the ordering screens."""

    # Whether the idle reset may fire on this screen (issue 5): never during payment.
    IDLE_RESET: ClassVar[bool] = True
    TITLE: ClassVar[str] = ""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("f5", "retry", "Retry", show=False),
        Binding("r", "retry", "Retry", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._retry: Callable[[], object] | None = None

    @property
    def kiosk(self) -> KioskApp:
        return self.app  # type: ignore[return-value]

    @property
    def client(self) -> StorefrontClient:
        return self.kiosk.client

    # Frame ----------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield KioskHeader(self.header_title(), subtitle=self.header_subtitle())
        yield from self.compose_body()
        yield Banner(id="banner")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def header_title(self) -> str:
        location = self.kiosk.location
        return location.restaurant_display_name if location is not None else "Welcome"

    def header_subtitle(self) -> str:
        return self.TITLE

    @property
    def banner(self) -> Banner:
        return self.query_one("#banner", Banner)

    # Density: bordered inputs and buttons (3 lines each) when there is room, one-line at 80x24.
    COMPACT_BELOW_HEIGHT: ClassVar[int] = 32

    @property
    def compact(self) -> bool:
        return self.app.size.height < self.COMPACT_BELOW_HEIGHT

    def on_resize(self, event: events.Resize) -> None:
        self.apply_density(event.size.height < self.COMPACT_BELOW_HEIGHT)

    def apply_density(self, compact: bool | None = None) -> None:
        """Make every input, button and select compact (or not); call after mounting more."""
        if compact is None:
            compact = self.compact
        self.set_class(compact, "-compact")
        for widget in self.query("Input, Button, Select"):
            if isinstance(widget, Input | Button | Select):
                widget.compact = compact

    # Calls ----------------------------------------------------------------------------------------
    def call(
        self,
        work: Callable[[], Awaitable[T]],
        *,
        group: str,
        done: Callable[[T], object] | None = None,
        failed: Callable[[Failure], object] | None = None,
        busy: Widget | None = None,
        exclusive: bool = False,
        clear_banner: bool = True,
    ) -> Worker[None]:
        """Run `work()` in a worker; `done(result)` on success. On failure the banner says what
        happened and how to go on; R runs the same call again when that may help."""

        def again() -> object:
            return self.call(
                work, group=group, done=done, failed=failed, busy=busy, exclusive=exclusive
            )

        async def job() -> None:
            waiting = busy
            if waiting is not None:
                waiting.loading = True
            try:
                result = await work()
            except Exception as error:
                failure = describe(error, retry_key=self.retry_key)
                self._retry = again if failure.retryable else None
                handled = failed(failure) if failed is not None else None
                if handled is not True:
                    self.show_failure(failure)
                return
            finally:
                if waiting is not None:
                    waiting.loading = False
            self._retry = None
            banner = self._banner()
            if clear_banner and banner is not None:
                banner.clear()
            if done is not None:
                outcome = done(result)
                if inspect.isawaitable(outcome):
                    await outcome

        return self.run_worker(job(), group=group, exclusive=exclusive, exit_on_error=False)

    def _banner(self) -> Banner | None:
        # None once the screen has gone (a worker may finish after its screen was popped).
        banners = self.query("#banner")
        return banners.first(Banner) if banners else None

    def show_failure(self, failure: Failure) -> None:
        banner = self._banner()
        if banner is not None:
            banner.show(failure.message, hint=failure.hint)

    def say(self, message: str, *, kind: str = "info", hint: str = "") -> None:
        banner = self._banner()
        if banner is not None:
            banner.show(message, hint=hint, kind=kind)

    @property
    def retry_key(self) -> str:
        """The key to name in "Press … to try again": R, unless typing would swallow it (a screen
        with inputs, or the menu's type-ahead search); F5 always works."""
        return "F5" if self.TYPE_AHEAD or self.query(Input) else "R"

    TYPE_AHEAD: ClassVar[bool] = False

    # Actions --------------------------------------------------------------------------------------
    def action_retry(self) -> None:
        retry, self._retry = self._retry, None
        if retry is not None:
            self.banner.clear()
            retry()

    def action_back(self) -> None:
        self.dismiss(None)
