"""The frame every screen shares: a header (title, busy/rate-limit status, the demo mark) and a
banner."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from kiosk.i18n import _
from kiosk.tui.a11y import kind_mark
from kiosk.tui.contract import kiosk_of
from kiosk.tui.text import clean


class DemoMark(Static):
    """Always on screen while the backend is the embedded demo: nobody mistakes it for a real
    order."""

    def __init__(self) -> None:
        super().__init__(Text(" DEMO ", style="bold"), id="demo-mark")


class StatusLine(Static):
    """What the kiosk is waiting for right now (a request, the rate limit); empty when idle."""

    def on_mount(self) -> None:
        self.watch(self.app, "status_text", self._show)

    def _show(self, text: str) -> None:
        self.update(Text(text))
        self.set_class(bool(text), "-active")


class KioskHeader(Horizontal):
    """Title on the left, status and the demo mark on the right. The title may be API text."""

    def __init__(self, title: str, *, subtitle: str = "") -> None:
        super().__init__(id="header")
        self._title = title
        self._subtitle = subtitle

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="header-title")
        yield StatusLine(id="header-status")
        if kiosk_of(self.app).services.demo:
            yield DemoMark()

    def _title_text(self) -> Text:
        text = Text(clean(self._title, 80), style="bold")
        if self._subtitle:
            text.append("  ")
            text.append(clean(self._subtitle, 80), style="dim")
        return text

    def set_title(self, title: str, subtitle: str = "") -> None:
        self._title = title
        self._subtitle = subtitle
        if self.is_mounted:
            self.query_one("#header-title", Static).update(self._title_text())


class KioskFooter(Footer):
    """Textual's footer (the current screen's keys), with the arrows always named first. They are
    the screen's bindings (KioskScreen.action_move), but the focused list or input binds ↑↓ or ←→
    itself, unshown, and Textual's footer would hide the screen's under them."""

    MOVE_KEYS = "↑↓←→"

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        yield FooterKey("down", self.MOVE_KEYS, _("Move"), "move(1)").data_bind(
            compact=Footer.compact
        )
        yield from super().compose()


class Banner(Static):
    """One message with a way forward ("Press R to try again", "Ask staff"); hidden when empty.

    Messages are plain text (they may carry server text): never parsed as markup.
    """

    DEFAULT_CSS = """
    Banner { display: none; }
    Banner.-shown { display: block; }
    """

    _plain = ""

    def show(self, message: str, *, hint: str = "", kind: str = "error") -> None:
        # Without colour (kiosk/tui/a11y.py) the kind is told by a mark: ✗ error, ✓ ok.
        text = Text(kind_mark(self.app, kind) + clean(message, 300), style="bold")
        self._plain = clean(message, 300) + (f"  {hint}" if hint else "")
        if hint:
            text.append("  ")
            text.append(hint)
        # A shown one-line banner that stays one line keeps its size: repaint it without laying
        # out the screen again (type-ahead's "Nothing matches…" changes with every key).
        same_size = (
            self.shown and self.size.height == 1 and text.cell_len <= self.content_region.width
        )
        self.update(text, layout=not same_size)
        self.set_class(kind == "error", "-error")
        # "wait": a live countdown (a rate-limit wait), drawn as information but not a passing
        # message: a key press does not clear it.
        self.set_class(kind in ("info", "wait"), "-info")
        self.set_class(kind == "wait", "-wait")
        self.set_class(kind == "ok", "-ok")
        self.add_class("-shown")

    def clear(self) -> None:
        if not self.shown and not self._plain:
            return  # nothing to take down: no layout of the screen for it (type-ahead keys)
        self._plain = ""
        self.update("")
        self.remove_class("-shown", "-error", "-info", "-ok", "-wait")

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    @property
    def message(self) -> str:
        return self._plain if self.shown else ""


class FieldError(Static):
    """The message under a field (local check or the server's reason); takes no room when empty."""

    DEFAULT_CSS = """
    FieldError { display: none; height: auto; }
    FieldError.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="field-error")
        self.message = ""

    def show(self, message: str | None) -> None:
        self.message = clean(message or "", 300)
        mark = kind_mark(self.app, "error") if self.message else ""
        self.update(Text(mark + self.message))
        self.set_class(bool(self.message), "-shown")


class FullName(Static):
    """Under a list: the highlighted row's whole name when the list had to cut it (a long name at
    80x24), wrapped; takes no room otherwise. The name is API text: drawn as its characters."""

    DEFAULT_CSS = """
    FullName { display: none; height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    FullName.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.name_shown = ""

    def show(self, name: str) -> None:
        if name == self.name_shown:
            return  # most cursor moves: nothing to lay out or repaint
        self.name_shown = name
        self.update(Text(name))
        self.set_class(bool(name), "-shown")
