"""A scrolling column of controls whose arrows belong to the screen."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll


class ControlsScroll(VerticalScroll, inherit_bindings=False):
    """A column that scrolls to whichever of its controls has focus. The arrows are left to the
    screen (KioskScreen.action_move walks the controls): with VerticalScroll's own, a ↓ past the
    last cart line scrolled the column instead of moving on, so two ↓ in a burst did not reach
    the code field and the code typed next went to the list's keys ("e" edits; issue 20).
    Page Up/Down still scroll."""

    BINDINGS = [
        Binding("pageup", "page_up", show=False),
        Binding("pagedown", "page_down", show=False),
    ]
