"""An Esc followed at once by another key keeps the Esc (kiosk.tui.escape_keys): the terminal's
bytes fed to Textual's own input parser, as one read (what SSH delivers when keys come fast)."""

from __future__ import annotations

import time

import pytest
from textual._xterm_parser import XTermParser

from kiosk.tui import escape_keys


def keys(data: str) -> list[str]:
    parser = XTermParser()
    found = [e for e in parser.feed(data)]
    time.sleep(0.12)  # longer than ESCDELAY: a lone Esc at the end is reported by a tick
    found += list(parser.tick())
    return [getattr(e, "key", type(e).__name__) for e in found]


@pytest.fixture(autouse=True)
def _installed() -> None:
    escape_keys.install()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("\x1ba", ["escape", "a"]),
        ("\x1b1", ["escape", "1"]),
        ("\x1b\r", ["escape", "enter"]),
        ("\x1b\x7f", ["escape", "backspace"]),
        ("\x1b ", ["escape", "space"]),
        ("\x1b", ["escape"]),
        ("\x1b\x1b[B", ["escape", "down"]),
    ],
)
def test_an_esc_then_a_key_at_once_is_both(data: str, expected: list[str]) -> None:
    assert keys(data) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("\x1b[B", ["down"]),
        ("\x1bOQ", ["f2"]),
        ("\x1b[24~", ["f12"]),
        ("\x1b[1;5A", ["ctrl+up"]),
    ],
)
def test_escape_sequences_are_still_keys(data: str, expected: list[str]) -> None:
    assert keys(data) == expected


def test_install_is_once() -> None:
    method = XTermParser._sequence_to_key_events
    escape_keys.install()
    assert XTermParser._sequence_to_key_events is method
