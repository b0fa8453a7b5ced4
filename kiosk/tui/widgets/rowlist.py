"""A flat list drawn with the line API: only visible rows are rendered, a cursor move repaints two
lines (and a move past the edge scrolls half a page, so only one in height/2 repaints the view).

Used for the menu (thousands of products), modifier options and cart lines. Rows that return `None`
from `row_key` are headers or details: the cursor skips them. Subclasses say how a row looks
(`row_text`); a list whose rows' keys or looks depend on their place overrides `key_at`, `index_of`
and `text_at` instead.

`follow`, when set, is called with each move the customer makes, before this move's frame is
drawn: a list that follows another (the menu's category sidebar) moves in the same frame, not a
frame later through a message.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

from kiosk.tui.a11y import focus_mark

RowT = TypeVar("RowT")


def _bar_lines(bar: ScrollBar) -> list[Segment] | None:
    """A vertical scrollbar's lines as its renderer draws them at its size (None: not a plain
    vertical bar, or not laid out yet)."""
    height, thickness = bar.size.height, bar.size.width
    if height <= 0 or thickness <= 0:
        return None
    bar_render = bar.render()
    if not isinstance(bar_render, ScrollBarRender) or not bar_render.vertical:
        return None
    style = bar.app.console.get_style(bar_render.style)
    if style.bgcolor is None or style.color is None:
        return None
    drawn = bar_render.render_bar(
        size=height,
        virtual_size=bar_render.virtual_size,
        window_size=bar_render.window_size,
        position=bar_render.position,
        thickness=thickness,
        vertical=True,
        back_color=style.bgcolor,
        bar_color=style.color,
    )
    return list(drawn.segments)


class RowList(ScrollView, Generic[RowT], can_focus=True):
    DEFAULT_CSS = """
    RowList {
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
        background: $surface;
        & > .rowlist--cursor { background: $block-cursor-blurred-background; }
        &:focus > .rowlist--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: bold;
        }
    }
    """
    # rowlist--row: every row's own style, set from the stylesheets (large text makes a list's rows
    # bold there, styles/large.tcss): the one hook, so that no list reads the mode itself.
    COMPONENT_CLASSES = {"rowlist--cursor", "rowlist--row"}
    # A list whose rows are filtered as the customer types (the menu's search) keeps a scrollbar it
    # has while its rows change: one that went (a search down to a few rows) and came back would lay
    # out the whole screen twice. The view then scrolls at most one blank line past the last row.
    keeps_scrollbar = False
    # When the cursor's row disappears: stay where it was (True) or go to the first row.
    KEEP_PLACE = False
    # Repainted when the theme or large text changes (kiosk/tui/a11y.py).
    redraws_on_access_change = True
    BINDINGS = [
        # Past the first or last row the key goes on to the screen, which moves to the control
        # before or after the list (KioskScreen.action_move).
        Binding("up", "cursor_or_leave(-1)", "Up", show=False),
        Binding("down", "cursor_or_leave(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Choose", show=False),
    ]

    class Highlighted(Message):
        def __init__(self, rowlist: RowList, index: int, key: Hashable) -> None:
            super().__init__()
            self.rowlist = rowlist
            self.index = index
            self.key = key

        @property
        def control(self) -> RowList:
            return self.rowlist

    class Selected(Highlighted):
        pass

    def __init__(
        self,
        rows: Sequence[RowT] = (),
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._rows: Sequence[RowT] = rows
        self.cursor: int | None = None
        self.follow: Callable[[RowList[RowT], int, Hashable], None] | None = None
        # Drawn on the first line while there are no rows ("Nothing matches ..."): in the list, not
        # a banner, so that saying it lays out nothing.
        self.empty_text: Text | None = None
        self._move_to(self._first_selectable(0, 1), announce=False)

    # What a subclass provides ---------------------------------------------------------------------
    def row_key(self, row: RowT) -> Hashable | None:
        """A key for a selectable row; None for a header or detail row the cursor skips."""
        return row

    def row_text(self, row: RowT, width: int, cursor: bool) -> Text:
        return Text(str(row))

    def key_at(self, index: int) -> Hashable | None:
        """The key of the row at `index` (None: not selectable)."""
        return self.row_key(self._rows[index])

    def index_of(self, key: Hashable) -> int | None:
        """Where the row with `key` is, None when it is not there."""
        return next((i for i in range(len(self._rows)) if self.key_at(i) == key), None)

    def text_at(self, index: int, width: int, cursor: bool) -> Text:
        return self.row_text(self._rows[index], width, cursor)

    def cursor_lines(self, index: int) -> range:
        """The lines the cursor covers when it is on `index`: its row (and, in a list that
        continues a row on detail rows, those too: the menu's wrapped names)."""
        return range(index, index + 1)

    def _refresh_cursor(self, index: int) -> None:
        for line in self.cursor_lines(index):
            self.refresh_line(line)

    # Data -----------------------------------------------------------------------------------------
    @property
    def rows(self) -> Sequence[RowT]:
        return self._rows

    def set_rows(self, rows: Sequence[RowT], *, keep_key: Hashable | None = None) -> None:
        """Replace every row; the cursor goes to `keep_key` (or stays on its key) when it is still
        there."""
        old_key = keep_key if keep_key is not None else self.cursor_key
        old_index = self.cursor
        old_count = len(self._rows)
        self._rows = rows
        self.cursor = None
        target = None
        if old_key is not None:
            target = self.index_of(old_key)
        if target is None and self.KEEP_PLACE and old_index is not None and rows:
            # Its row went (a deleted cart line): the neighbour that took its place, else the one
            # before it, not the first row (the next Del would remove the wrong line).
            at = min(old_index, len(rows) - 1)
            target = self._first_selectable(at, 1)
            if target is None:
                target = self._first_selectable(at, -1)
        if target is None:
            target = self._first_selectable(0, 1)
        self._set_height(len(rows) + self.room_below())
        self._move_to(target, announce=True)
        self._refresh_rows(max(old_count, len(rows)))
        # The new virtual size takes effect at the next layout: scroll to the cursor after it.
        self.call_after_refresh(self._scroll_cursor_visible)
        self._speak()  # the row under the cursor may read otherwise now (chosen, a quantity)

    def room_below(self) -> int:
        """Blank lines the list may scroll into past its last row (none here; see ProductList)."""
        return 0

    def _speak(self) -> None:
        """Tell speech (kiosk.tui.spoken) the cursor's row may have changed; nothing when off."""
        announcer = getattr(self.app, "announcer", None) if self.is_attached else None
        if announcer is not None:
            announcer.poke()

    def _set_height(self, height: int) -> None:
        """A new number of rows. The virtual size is a layout reactive: setting it lays out the
        whole screen and repaints every widget on it (a search keystroke in the menu: ~10 KB
        written). Only a scrollbar that comes or goes changes the layout; otherwise this list's
        scrollbar and lines are all that change."""
        view = self.container_size.height
        if self.keeps_scrollbar and self.virtual_size.height > view > 0:
            height = max(height, view + 1)
        size = Size(self.size.width, height)
        if not self.is_mounted or (self.virtual_size.height > view) != (height > view):
            self.virtual_size = size
            return
        self.set_reactive(RowList.virtual_size, size)
        if not self._update_scrollbar(size):
            self._scroll_update(size)

    def _refresh_rows(self, count: int) -> None:
        """Repaint the lines that showed rows or will show them (`count`, the larger number of
        rows, before or after): the blank lines under both stay as drawn. A search down to a few
        rows repainted and sent the 30 blank lines under them on every key."""
        top = round(self.scroll_y)
        height = self.scrollable_content_region.height
        shown = max(count, 1) - top  # line 0 at least: it may say that nothing matches
        if height <= 0 or shown <= 0 or shown >= height:
            self.refresh()
        else:
            self.refresh_lines(top, shown)

    def _update_scrollbar(self, size: Size) -> bool:
        """What `_scroll_update` does for a new number of rows, repainting only the scrollbar's
        lines that change: Textual repaints the whole bar, ~3.5 ms a type-ahead key at 120x40,
        though most keys move its thumb by a line or two, or not at all. False (nothing done) when
        the bar is not the plain vertical one this knows how to draw."""
        self._refresh_scrollbars()
        if (
            self.show_horizontal_scrollbar
            or not self.show_vertical_scrollbar
            or not self.styles.scrollbar_size_vertical
        ):
            return False
        bar = self.vertical_scrollbar
        before = _bar_lines(bar)
        bar.set_reactive(ScrollBar.window_virtual_size, size.height)
        bar.set_reactive(ScrollBar.window_size, self.container_size.height)
        after = _bar_lines(bar)
        if before is None or after is None or len(before) != len(after):
            bar.refresh()
        else:
            width = bar.size.width
            for y, (old, new) in enumerate(zip(before, after, strict=True)):
                if old != new:
                    bar.refresh(Region(0, y, width, 1))
        self.scroll_x = self.validate_scroll_x(self.scroll_x)
        self.scroll_y = self.validate_scroll_y(self.scroll_y)
        return True

    @property
    def cursor_key(self) -> Hashable | None:
        if self.cursor is None or self.cursor >= len(self._rows):
            return None
        return self.key_at(self.cursor)

    @property
    def cursor_row(self) -> RowT | None:
        if self.cursor is None or self.cursor >= len(self._rows):
            return None
        return self._rows[self.cursor]

    def move_to_key(self, key: Hashable, *, announce: bool = True) -> bool:
        index = self.index_of(key)
        if index is None:
            return False
        self._move_to(index, announce=announce)
        return True

    def move_to_index(self, index: int, *, top: bool = False, announce: bool = True) -> None:
        """Put the cursor on the first selectable row at or after `index` (a header's index
        works)."""
        target = self._first_selectable(index, 1)
        if target is None:
            target = self._first_selectable(index, -1)
        self._move_to(target, announce=announce)
        if top and target is not None:
            self.scroll_to(y=max(index, 0), animate=False, immediate=True)

    # Cursor ---------------------------------------------------------------------------------------
    def _selectable(self, i: int) -> bool:
        return 0 <= i < len(self._rows) and self.key_at(i) is not None

    def _first_selectable(self, start: int, step: int) -> int | None:
        i = start
        while 0 <= i < len(self._rows):
            if self._selectable(i):
                return i
            i += step
        return None

    def _move_to(self, index: int | None, *, announce: bool) -> None:
        old = self.cursor
        self.cursor = index
        if not self.is_mounted:
            return
        if index is not None and index == old:
            # Already there (the sidebar following a product in the same category): nothing to
            # repaint, nothing to announce; only make sure it is in view.
            self._scroll_cursor_visible()
            return
        if old is not None and old != index:
            self._refresh_cursor(old)
        if index is None:
            return
        self._refresh_cursor(index)
        self._scroll_cursor_visible()
        if announce:
            key = self.key_at(index)
            if self.follow is not None:
                self.follow(self, index, key)
            self.post_message(self.Highlighted(self, index, key))
            self._speak()

    def _scroll_cursor_visible(self) -> None:
        """Bring the cursor into view. A move past an edge scrolls by half a page, not a line:
        Textual repaints every visible line on a scroll, so scrolling a line per move would redraw
        the whole list on each move past the edge (~6.7 KB at 120x40); by half a page, one move in
        height/2 redraws the list and the others two lines. A longer jump (PageDown, End) scrolls
        as far as the cursor needs."""
        if self.cursor is None:
            return
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = round(self.scroll_y)
        half = max(height // 2, 1)
        # Keep the header above the cursor in view when the cursor is the first row under it.
        first = self.cursor
        if height > 1 and self.cursor > 0 and not self._selectable(self.cursor - 1):
            first = self.cursor - 1
        if first < top:
            new_top = max(min(top - half, first), 0)
        elif (last := self.cursor_lines(self.cursor)[-1]) >= top + height:
            new_top = max(top + half, last - height + 1)
        else:
            return
        # Now, not after the next refresh: the next move (a held key) must see where this one
        # scrolled to, and move_to_index(top=True) scrolls again after this.
        self.scroll_to(y=new_top, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        if self.cursor is None:
            self._move_to(self._first_selectable(0, 1), announce=True)
            return
        target = self._first_selectable(self.cursor + step, step)
        if target is not None:
            self._move_to(target, announce=True)

    def action_cursor_or_leave(self, step: int) -> None:
        before = self.cursor
        self.action_cursor(step)
        if self.cursor == before:
            raise SkipAction()

    def action_page(self, direction: int) -> None:
        if self.cursor is None:
            return
        height = max(self.scrollable_content_region.height - 1, 1)
        start = min(max(self.cursor + direction * height, 0), len(self._rows) - 1)
        target = self._first_selectable(start, direction)
        if target is None:
            target = self._first_selectable(start, -direction)
        self._move_to(target, announce=True)

    def action_edge(self, direction: int) -> None:
        if direction < 0:
            self._move_to(self._first_selectable(0, 1), announce=True)
        else:
            self._move_to(self._first_selectable(len(self._rows) - 1, -1), announce=True)

    def action_select(self) -> None:
        if self.cursor is not None and self._selectable(self.cursor):
            self.post_message(self.Selected(self, self.cursor, self.key_at(self.cursor)))

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if self._selectable(index):
            self._move_to(index, announce=True)
            self.action_select()

    # Drawing --------------------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(
            self.scrollable_content_region.width, len(self._rows) + self.room_below()
        )
        self._scroll_cursor_visible()

    def on_mount(self) -> None:
        self.virtual_size = Size(
            self.scrollable_content_region.width, len(self._rows) + self.room_below()
        )

    def on_focus(self) -> None:
        if self.cursor is not None:
            self._refresh_cursor(self.cursor)

    def on_blur(self) -> None:
        if self.cursor is not None:
            self._refresh_cursor(self.cursor)

    # What a frame's lines share, read once per frame (render_lines): the styles (read per line, the
    # widget's style, its ancestors' backgrounds, was a quarter of a type-ahead key's drawing) and
    # the width (scrollable_content_region walks the styles too).
    _frame_styles: tuple[Style, Style, Style] | None = None
    _frame_width: int | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_styles = self._read_styles()
        self._frame_width = self.scrollable_content_region.width
        try:
            return super().render_lines(crop)
        finally:
            self._frame_styles = None
            self._frame_width = None

    def _read_styles(self) -> tuple[Style, Style, Style]:
        """(the widget's style, a row's, the cursor's)."""
        return (
            self.rich_style,
            self.get_component_rich_style("rowlist--row", partial=True),
            self.get_component_rich_style("rowlist--cursor"),
        )

    def strip_at(
        self, index: int, width: int, cursor: bool, style: Style, over: Style | None
    ) -> Strip | None:
        """The row at `index` drawn straight to a Strip, or None to draw it from `text_at` (the
        default). `style` is the line's (the widget's plus the row's or the cursor's), `over` what
        the cursor puts over every character (None off the cursor). Called only for a row drawn
        plainly: no focus mark, not bold (large text). Must give the same cells, with the same
        styles, as the Text path (a list's test compares the two)."""
        return None

    def render_line(self, y: int) -> Strip:
        width = self._frame_width
        if width is None:
            width = self.scrollable_content_region.width
        base, row_style, cursor = self._frame_styles or self._read_styles()
        index = round(self.scroll_y) + y
        if index == 0 and not self._rows and self.empty_text is not None and width > 0:
            empty = self.empty_text.copy()
            empty.no_wrap = True
            empty.truncate(width, overflow="ellipsis", pad=True)
            empty.stylize_before(base)
            return Strip(list(empty.render(self.app.console)), width)
        if index >= len(self._rows) or width <= 0:
            return Strip.blank(width, base)
        cursor_at = self.cursor
        is_cursor = cursor_at is not None and index in self.cursor_lines(cursor_at)
        mark = focus_mark(self.app, self.has_focus) if index == cursor_at else ""
        if not mark and not row_style.bold:
            if is_cursor:
                over = Style(color=cursor.color, bgcolor=cursor.bgcolor, dim=False)
                fast = self.strip_at(index, width, True, base + cursor, over)
            else:
                fast = self.strip_at(index, width, False, base + row_style, None)
            if fast is not None:
                return fast
        text = self.text_at(index, width, is_cursor)
        if mark:
            # The cursor told by a character too (no colour, high contrast): in the row's first
            # cell when that is blank, else before it.
            text = Text(mark) + (text[1:] if text.plain.startswith(" ") else Text(" ") + text)
        text.no_wrap = True
        text.truncate(width, overflow="ellipsis", pad=True)
        if row_style.bold:
            # Bold rows (large text) are the row's words: its dimmed parts (a hint, a choice
            # under a cart line) stay light, so that weight still tells what matters.
            light, console = Style(bold=False), self.app.console
            parts = [(text.style, 0, len(text)), *((s.style, s.start, s.end) for s in text.spans)]
            for part, start, end in parts:
                if console.get_style(part, default=Style()).dim:
                    text.stylize(light, start, end)
        style: Style = base + row_style
        if is_cursor:
            style = base + cursor
        text.stylize_before(style)
        if is_cursor:
            # The cursor's colours win over the row's own (a tag's, "Sold out"'s) and nothing on
            # it is dimmed: coloured text on the cursor's fill was unreadable (1.2:1, issue 20).
            text.stylize(Style(color=cursor.color, bgcolor=cursor.bgcolor, dim=False))
        return Strip(list(text.render(self.app.console)), width)
