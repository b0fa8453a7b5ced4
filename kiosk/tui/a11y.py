"""Accessibility (issue 13 F): the high-contrast theme, large text, marks that need no colour.

`Accessibility` is a mixin KioskApp composes, like KioskMode. It keeps three things on the app:
- the theme: the merchant's (`theme` setting: "default" or "high-contrast"), which staff may switch
  on the staff screen; the app carries the class `-high-contrast` while it is on, for the rules in
  styles/theme.tcss that colours alone cannot express (hollow and filled buttons, borders);
- large text (`large_text`): fewer, bigger things (styles/large.tcss, keyed on the app's class
  `-large-text`); each customer may switch it on the welcome screen, and every new order starts
  again from the merchant's setting;
- text marks (`text_marks`): on with the high-contrast theme and whenever colour is off
  (`NO_COLOR`, which Textual honours by drawing in greys), the states colour alone would tell are
  also told in characters: the list cursor (▶, ▷ when the list is not focused), errors (✗),
  confirmations (✓). The theme's rules add the rest (reverse video, underline, strike-through).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.theme import Theme

if TYPE_CHECKING:
    from kiosk.config import Settings

    _Host = App[None]
else:
    _Host = object

BLACK = "#000000"
WHITE = "#FFFFFF"
# The one accent: yellow on black is the strongest pair after white on black.
ACCENT = "#FFE000"

HIGH_CONTRAST = Theme(
    name="kiosk-high-contrast",
    primary=ACCENT,
    secondary=WHITE,
    accent=ACCENT,
    warning=ACCENT,
    error=ACCENT,
    success=WHITE,
    foreground=WHITE,
    background=BLACK,
    surface=BLACK,
    panel=BLACK,
    boost=BLACK,
    dark=True,
    text_alpha=1.0,
    variables={
        "text-muted": "#E0E0E0",
        "text-disabled": "#C0C0C0",
        "foreground-muted": "#E0E0E0",
        "text-error": ACCENT,
        "text-warning": ACCENT,
        "text-success": WHITE,
        "block-cursor-background": ACCENT,
        "block-cursor-foreground": BLACK,
        "block-cursor-text-style": "bold",
        # An unfocused list keeps its place underlined, not tinted.
        "block-cursor-blurred-background": BLACK,
        "block-cursor-blurred-foreground": WHITE,
        "block-cursor-blurred-text-style": "underline",
        "border": ACCENT,
        "border-blurred": WHITE,
        "footer-background": BLACK,
        "footer-foreground": WHITE,
        "footer-key-foreground": ACCENT,
        "footer-description-foreground": WHITE,
        "footer-item-background": BLACK,
        "input-cursor-background": ACCENT,
        "input-cursor-foreground": BLACK,
        "input-selection-background": ACCENT,
        "input-selection-foreground": BLACK,
        "button-focus-text-style": "bold reverse",
        "scrollbar": WHITE,
        "scrollbar-hover": ACCENT,
        "scrollbar-active": ACCENT,
        "scrollbar-background": BLACK,
        "scrollbar-background-hover": BLACK,
        "scrollbar-background-active": BLACK,
    },
)

# The default theme: Textual's dark one with a deeper blue, so that text on the header, the list
# cursor and the primary buttons reads at 4.5:1 or more (textual-dark's #0178D4 gave 3.78:1 and
# its dimmed sub-title 2.46:1, issue 20). tests/tui/test_contrast.py measures every snapshot.
DEFAULT_THEME = Theme(
    name="kiosk-dark",
    primary="#0B5CAD",
    secondary="#004578",
    accent="#FFA62B",
    warning="#FFA62B",
    error="#A8324F",
    success="#4EBF71",
    foreground="#E0E0E0",
    dark=True,
    variables={
        # Placeholders and disabled text: readable, if quieter (textual-dark's were 3.34:1).
        "text-disabled": "#A0A0A0",
        "text-muted": "#B8B8B8",
    },
)

# The setting's values -> Textual theme names.
THEME_NAMES = {"default": DEFAULT_THEME.name, "high-contrast": HIGH_CONTRAST.name}

# The marks (text_marks): the list cursor when its list has focus and when it has not.
CURSOR_MARK = "▶"
CURSOR_MARK_BLURRED = "▷"
KIND_MARKS = {"error": "✗ ", "ok": "✓ ", "info": "› ", "wait": "› "}


def text_marks(app: object) -> bool:
    """Whether `app` (any widget's `self.app`) tells states in characters too."""
    return bool(getattr(app, "text_marks", False))


def large_text(app: object) -> bool:
    """Whether `app` (any widget's `self.app`) is in large-text mode."""
    return bool(getattr(app, "large_text", False))


def kind_mark(app: object, kind: str) -> str:
    """The characters that start a message of `kind` ("error", "ok", "info") when marks are on."""
    return KIND_MARKS.get(kind, "") if text_marks(app) else ""


class Accessibility(_Host):
    """The theme, large text and text marks of KioskApp (see the module docstring). Needs of its
    host: Textual's App, and `kiosk_settings` (KioskMode)."""

    large_text: bool = False

    def setup_accessibility(self) -> None:
        """Register the theme and take the settings known now (call again when they change)."""
        for theme in (DEFAULT_THEME, HIGH_CONTRAST):
            if theme.name not in self.available_themes:
                self.register_theme(theme)
        settings: Settings | None = getattr(self, "kiosk_settings", None)
        if settings is not None:
            self.use_theme(settings.theme)
            self.set_large_text(settings.large_text)
        else:
            self._mark_classes()

    # The theme ------------------------------------------------------------------------------------
    @property
    def high_contrast(self) -> bool:
        return self.theme == HIGH_CONTRAST.name

    @property
    def text_marks(self) -> bool:
        return self.high_contrast or bool(getattr(self, "no_color", False))

    def use_theme(self, choice: str) -> None:
        """ "default" or "high-contrast" (the setting's values)."""
        name = THEME_NAMES.get(choice, THEME_NAMES["default"])
        if self.is_running:
            self.theme = name
        else:
            # Before the app runs, its stylesheets are parsed once, with this theme's variables:
            # set through the reactive, the theme queued a second parse of all of them (~100 ms
            # of CPU on a counter's start; in the suite, at every app). The classes the watcher
            # would set, set here. (Both themes are dark, as Textual's default: the same ANSI
            # colour filter.)
            self.set_reactive(App.theme, name)
            self.stylesheet.set_variables(self.get_css_variables())
            classes = {c: False for c in self.classes if c.startswith("-theme-")}
            classes[f"-theme-{name}"] = True
            dark = self.get_theme(name).dark  # type: ignore[union-attr]
            classes["-dark-mode"] = dark
            classes["-light-mode"] = not dark
            self.update_classes(classes, update=False)
        self._mark_classes()

    def action_toggle_contrast(self) -> None:
        self.use_theme("default" if self.high_contrast else "high-contrast")

    # Large text -----------------------------------------------------------------------------------
    def set_large_text(self, on: bool) -> None:
        self.large_text = on
        self._mark_classes()

    def action_toggle_large_text(self) -> None:
        self.set_large_text(not self.large_text)

    def reset_large_text(self) -> None:
        """Back to the merchant's setting: each new order starts from it."""
        settings: Settings | None = getattr(self, "kiosk_settings", None)
        self.set_large_text(bool(settings is not None and settings.large_text))

    # Both -----------------------------------------------------------------------------------------
    def _mark_classes(self) -> None:
        self.set_class(self.high_contrast, "-high-contrast")
        self.set_class(self.large_text, "-large-text")
        self.set_class(self.text_marks, "-marks")
        if self.is_running:
            # Line-API lists draw their marks and rows themselves: repaint every screen's lists,
            # and lay the screens out again for the rules that hide or grow things.
            for screen in self.screen_stack:
                screen.refresh(layout=True)
                for widget in screen.query("*"):
                    if getattr(widget, "redraws_on_access_change", False):
                        widget.refresh()


def focus_mark(app: Any, focused: bool) -> str:
    """The cursor's mark for a list that is (or is not) focused; "" when marks are off."""
    if not text_marks(app):
        return ""
    return CURSOR_MARK if focused else CURSOR_MARK_BLURRED
