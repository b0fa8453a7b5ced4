"""An Esc followed at once by another key keeps the Esc.

Why it was lost: a terminal sends Alt+key as ESC then the key, so Textual's input parser
(textual._xterm_parser.XTermParser) waits ESCDELAY (100 ms) after an ESC, and an ESC followed
within that time by a character is read as one key: ESC a -> alt+a, ESC 1 -> "¡", ESC Enter ->
enter, ESC Backspace -> ctrl+w. The Esc is gone. Over SSH it happens whenever a customer presses
Esc and then another key quickly, since both often arrive in one read.

The kiosk binds no Alt key, so such a pair is always an Esc and then a key: `install()` makes the
parser report it so. Escape sequences proper (CSI `ESC [`, SS3 `ESC O`, and the string
introducers ESC P, ESC ], ESC ^, ESC _, ESC \\) are left alone: the parser reads on for those.
This reaches into a private method of Textual's (pinned below 9); tests/tui/test_escape_keys.py
fails if that method changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual import events
from textual._xterm_parser import XTermParser

ESC = "\x1b"
# What may follow ESC to begin a longer sequence: never split.
_INTRODUCERS = frozenset("[O]P^_\\")

_Method = Callable[..., Iterable[events.Key]]


def _split(original: _Method) -> _Method:
    def sequence_to_key_events(
        self: XTermParser, sequence: str, alt: bool = False
    ) -> Iterable[events.Key]:
        if len(sequence) == 2 and sequence[0] == ESC and sequence[1] not in _INTRODUCERS:
            yield events.Key("escape", ESC)
            yield from original(self, sequence[1], alt)
            return
        yield from original(self, sequence, alt)

    sequence_to_key_events.kiosk_split = True  # type: ignore[attr-defined]
    return sequence_to_key_events


def install() -> None:
    """Split ESC+key into Esc and the key in every parser from now on (once)."""
    method: Any = XTermParser._sequence_to_key_events
    if getattr(method, "kiosk_split", False):
        return
    XTermParser._sequence_to_key_events = _split(method)  # type: ignore[method-assign]
