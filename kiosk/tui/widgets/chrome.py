"""The frame every screen shares: a header (title, busy/rate-limit status, the demo mark) and a
banner."""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
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
    """What the kiosk is waiting for right now (a request, the rate limit); empty when idle.

    Every screen has one, and the status changes twice a request: only the lines a customer can
    see follow it (their screen's or one showing through those above it). Each change of the
    others restyled and laid out a header nobody saw (about 5 % of a journey's CPU); they catch
    up when their screen comes back (KioskScreen._status_lines_catch_up)."""

    def on_mount(self) -> None:
        self.watch(self.app, "status_text", self._show)

    def _show(self, text: str) -> None:
        if self.is_attached and not self._seen():
            return
        self.update(Text(text))
        self.set_class(bool(text), "-active")

    def catch_up(self) -> None:
        self._show(kiosk_of(self.app).status_text)

    def _seen(self) -> bool:
        stack = self.app.screen_stack
        screen = self.screen
        if screen not in stack:
            return False
        above = stack[stack.index(screen) + 1 :]
        return all(s.styles.background.a < 1 for s in above)


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
            # Not dimmed: dim text on the header's fill was 2.46:1 (issue 20).
            text.append(clean(self._subtitle, 80))
        return text

    def set_title(self, title: str, subtitle: str = "") -> None:
        self._title = title
        self._subtitle = subtitle
        if self.is_mounted:
            self.query_one("#header-title", Static).update(self._title_text())


class KioskFooter(Footer):
    """Textual's footer (the current screen's keys), ordered by what matters and never cut.

    The screen's main action (F2, F4) first, then Esc, the screen's other keys, F9, and the
    arrows last: when the line is short (80 columns, Spanish) a key that does not fit whole is
    left out from the end, not cut mid-word ("f9 Star▏", issue 20). The arrows are the screen's
    bindings (KioskScreen.action_move), named once here: the focused list or input binds them
    itself, unshown. The command palette is not offered to customers (kiosk mode also refuses
    its key)."""

    MOVE_KEYS = "↑↓←→"
    # Lower first. Keys not named here rank between Esc and F9. The keys a screen's own hint
    # line names too (F6, Space, Del) come last, after the arrows: the first left out when the
    # line is short. Help (F1) beside Esc: never the one left out.
    RANK = {
        "f2": 0,
        "f4": 0,
        "enter": 0,
        "escape": 1,
        "f1": 1,
        "f9": 3,
        "f6": 5,
        "space": 5,
        "delete": 5,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, show_command_palette=False, **kwargs)
        # What the keys on the line were made from (see recompose).
        self._shown: tuple[_Key, ...] | None = None

    def _choose(self) -> tuple[_Key, ...]:
        """The keys to show, in order, each whole: what `compose` makes its keys from."""
        if not self._bindings_ready:
            return ()
        seen: set[str] = set()
        keys: list[tuple[int, _Key]] = []
        # The screen's main action first, whatever its key (KioskScreen.main_key).
        main_key = getattr(self.screen, "main_key", lambda: None)()
        main = main_key[0] if main_key else None
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            shown = self.app.get_key_display(binding)
            key = _Key(binding.key, shown, binding.description, binding.action, enabled, tooltip)
            first = binding.key.split(",")[0]
            keys.append((-1 if first == main else self.RANK.get(first, 2), key))
            if first == main:
                main = None
        if main_key and main is not None:
            # Not a shown binding of the screen (a list's Enter): named here; a click on it
            # sends the key, as Textual's footer does.
            shown = self.app.get_key_display(Binding(main, ""))
            keys.append((-1, _Key(main, shown, main_key[1], "", True, "")))
        move = _("Move")
        keys.append((4, _Key("down", self.MOVE_KEYS, move, "move(1)", True, "")))
        keys.sort(key=lambda k: k[0])
        room = self.size.width or self.app.size.width
        chosen = []
        for _rank, key in keys:
            if key.width > room:
                continue
            room -= key.width
            chosen.append(key)
        return tuple(chosen)

    def compose(self) -> ComposeResult:
        self._shown = self._choose()
        for key in self._shown:
            widget = FooterKey(
                key.key,
                key.shown,
                key.description,
                key.action,
                disabled=not key.enabled,
                tooltip=key.tooltip,
            )
            # Never compact, like this footer: set before mounting, so that no watcher adds the
            # class and a binding takes it away again (a style update each, for every key).
            widget.set_reactive(FooterKey.compact, False)
            yield widget

    async def recompose(self) -> None:
        # Textual rebuilds the footer whenever the screen's bindings may have changed: each focus
        # move (about 40 times in one order), every key mounted and styled again. Rebuilt here
        # only when what it shows changed.
        if not self.is_attached or self._pruning:
            return
        if self._choose() == self._shown and self.children:
            return
        await super().recompose()

    def on_resize(self) -> None:
        # What fits depends on the width: choose again.
        self.refresh(recompose=True)


class _Key(NamedTuple):
    """One key as the footer shows it."""

    key: str
    shown: str
    description: str
    action: str
    enabled: bool
    tooltip: str

    @property
    def width(self) -> int:
        return cell_len(self.shown) + cell_len(self.description) + 3


def speak(widget: Widget, message: str, kind: str, hint: str = "") -> None:
    """A message shown to the customer, said too when speech is on (kiosk.tui.spoken)."""
    announcer = getattr(widget.app, "announcer", None) if widget.is_attached else None
    if announcer is not None:
        announcer.message(message, kind, hint)


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
        speak(self, message, kind, hint)

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
        if self.message:
            speak(self, self.message, "error")


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
