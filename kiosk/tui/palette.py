"""The colours text may carry, by what they mean (issue 20): one place that knows the theme.

Screens ask for a role (`tone(app, "ok")`), never a colour name: Rich's "green" or "red" are
the terminal's ANSI colours, whose contrast nobody controls (lime on a yellow cursor was 1.22:1).
Each role has a colour per theme, chosen to read at 4.5:1 or more (WCAG 2.1 AA) on the theme's
backgrounds (background, surface, panel); on a list's cursor row the cursor's own colours win
(widgets/rowlist.py). High contrast, and NO_COLOR (Textual draws in greys), use white and the one
accent only, telling states by weight and marks rather than hue. tests/tui/test_contrast.py
measures every snapshot.
"""

from __future__ import annotations

from kiosk.tui.a11y import ACCENT, WHITE, text_marks

# role -> Rich style. Default theme (backgrounds #121212..#2b2b2b: every one >= 5.7:1).
DEFAULT = {
    "ok": "#5FD38A",  # open, confirmed
    "warn": "#FFC24B",  # closed soon, later orders, needs a choice
    "error": "bold #FF8A80",  # sold out, a refusal
    "tag": "#7FD8EE",  # diet marks
    "muted": "dim",  # secondary text: dim of the foreground on the dark backgrounds is >= 5:1
    "demo": "bold #FFC24B",
}
# High contrast and NO_COLOR: white and the accent, by weight.
PLAIN = {
    "ok": f"bold {WHITE}",
    "warn": f"bold {ACCENT}",
    "error": f"bold {ACCENT}",
    "tag": WHITE,
    "muted": "#E0E0E0",
    "demo": f"bold {ACCENT}",
}


def tone(app: object, role: str) -> str:
    """The Rich style of `role` for `app`'s theme (any widget's `self.app`)."""
    table = PLAIN if text_marks(app) else DEFAULT
    return table[role]
