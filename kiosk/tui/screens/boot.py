"""The first frame: "Starting…" while the services (client, embedded backend) are built; or, when
the last first screen was kept on disk (kiosk.tui.first_screen), that screen at once, marked
"updating…", usable: a choice made on it is carried to the real screen once that is up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import LoadingIndicator, Static

from kiosk.tui.first_screen import FirstScreen, Place
from kiosk.tui.palette import tone
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import DemoMark
from kiosk.tui.widgets.lists import TextRowList
from kiosk.tui.widgets.rowlist import RowList

UPDATING = "updating…"


class PreviewList(TextRowList):
    pass


def _stand(widgets: list[Widget], places: tuple[Place, ...]) -> None:
    """Stand each widget where the real screen had it: the same row (so that a tap on the
    preview's row is on the same row of the real screen), the same column."""
    row = 0
    for widget, place in zip(widgets, places, strict=True):
        widget.styles.margin = (max(place.y - row, 0), 0, 0, place.x)
        widget.styles.padding = 0
        if not isinstance(widget, PreviewList):
            # A line beside a taller control was drawn in the middle of its rows.
            widget.styles.height = place.height
            widget.styles.content_align_vertical = "middle"
        row = max(place.y, row) + place.height


class BootScreen(Screen[None]):
    BINDINGS = [Binding("r,f5", "retry", "Retry")]

    def __init__(self, preview: FirstScreen | None = None) -> None:
        super().__init__()
        self.preview = preview
        # What the customer chose on the preview, for the real screen to carry out.
        self.chosen: Hashable | None = None
        # Set once the real screen is up: a choice that reaches this screen after it has gone
        # (a tap in flight during the swap) is carried out at once.
        self.carry: Callable[[Hashable], Awaitable[None]] | None = None

    def compose(self) -> ComposeResult:
        preview = self.preview
        if preview is None:
            # Placed by the screen's own `align` (theme.tcss): no containers to lay out first.
            yield Static(Text("Starting the kiosk…", style="bold"), id="boot-title")
            yield LoadingIndicator(id="boot-loading")
            yield Static("", id="boot-error")
            return
        self.add_class("-preview")
        with Horizontal(id="header"):
            # The header as it was drawn (the API's words in it are plain characters).
            yield Static(preview.title.copy(), id="header-title")
            if preview.demo:
                yield DemoMark()
        places = preview.places_for(self.app.size)
        with Vertical(id="preview-body"):
            lines = [Static(line.copy(), classes="preview-line") for line in preview.lines]
            listing = PreviewList(list(preview.rows), id="preview-rows")
            if places is not None:
                _stand([*lines, listing], places)
            yield from lines
            yield listing
            yield Static("", id="boot-error")
        yield Static(Text(UPDATING, style="dim italic"), id="boot-updating")

    def on_mount(self) -> None:
        if self.preview is not None:
            self.query_one(PreviewList).focus()

    # The preview is usable: a choice waits for the real screen -----------------------------------
    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.choose(event.key)

    def on_key(self, event: events.Key) -> None:
        if self.preview is None or not event.character or not event.character.isdigit():
            return
        keys = self.preview.selectable()
        index = int(event.character) - 1
        if 0 <= index < len(keys):
            event.stop()
            self.query_one(PreviewList).move_to_key(keys[index])
            self.choose(keys[index])

    def choose(self, key: Hashable | None) -> None:
        if key is None or self.error is not None:
            return
        self.chosen = key
        if self.carry is not None:
            self.app.run_worker(self.carry(key), group="first-screen", exit_on_error=False)
            return
        self.query_one("#boot-updating", Static).update(Text("One moment…", style="bold"))

    # Failure --------------------------------------------------------------------------------------
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
        for loading in self.query("#boot-loading"):
            loading.display = False
        self.chosen = None
        # The first line in the theme's error colour (the terminal's red was every line's, and
        # in high contrast, whose text is white and one accent, a red); the reason plain.
        text = Text()
        text.append("The kiosk could not start.", style=tone(self.app, "error"))
        text.append("\n" + clean(str(error) or type(error).__name__, 400))
        text.append("\n\nPress R to try again, or ask a member of staff.")
        self.query_one("#boot-error", Static).update(text)

    def action_retry(self) -> None:
        from kiosk.tui.contract import kiosk_of

        app = kiosk_of(self.app)
        if self.error is not None:
            self.error = None
            for loading in self.query("#boot-loading"):
                loading.display = True
            self.query_one("#boot-error", Static).update("")
            app.boot(self)
