"""The first frame: "Starting…" while the services (client, embedded backend) are built."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from kiosk.tui.text import clean


class BootScreen(Screen[None]):
    BINDINGS = [Binding("r,f5", "retry", "Retry")]

    def compose(self) -> ComposeResult:
        # Placed by the screen's own `align` (theme.tcss): no containers to lay out first.
        yield Static(Text("Starting the kiosk…", style="bold"), id="boot-title")
        yield LoadingIndicator(id="boot-loading")
        yield Static("", id="boot-error")

    error: BaseException | None = None

    def failed(self, error: BaseException) -> None:
        """Called from the app's boot worker, possibly before this screen has composed."""
        self.error = error
        self.call_after_refresh(self._show_error)

    def _show_error(self) -> None:
        error = self.error
        if error is None:
            return
        # Configuration errors are written for staff (they name the setting to fix): show them.
        self.query_one("#boot-loading").display = False
        text = Text("The kiosk could not start.\n", style="bold red")
        text.append(clean(str(error) or type(error).__name__, 400))
        text.append("\n\nPress R to try again, or ask a member of staff.")
        self.query_one("#boot-error", Static).update(text)

    def action_retry(self) -> None:
        from kiosk.tui.contract import kiosk_of

        app = kiosk_of(self.app)
        if self.error is not None:
            self.error = None
            self.query_one("#boot-loading").display = True
            self.query_one("#boot-error", Static).update("")
            app.boot(self)
