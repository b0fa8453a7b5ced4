"""Benchmark 4t: keys in the 5,000-product menu as a customer's terminal sees them, in a real
pseudo-terminal (xterm-256color, 120x40; tests/bench/pty_run.py), beside benchmark 4's in-process
Pilot figures (tests/bench/test_menu_keys.py).

- A cursor move: from writing the key to the last byte the program writes before the terminal is
  quiet (nothing more for QUIET seconds), and the bytes written, median over MOVES moves a round.
  Baselines in the same run, alternating: an OptionList app and a DataTable app of the same 5,000
  names (tests/bench/drivers). Goal: no slower than the OptionList.
- Type-ahead: each printable key and backspace of a few searches, the same way (median and
  slowest). Escape, which clears the search between them, is not timed: alone on a terminal it is
  held by Textual's input parser for ESCDELAY (100 ms) to tell it from an escape sequence, whatever
  the program does with it.

The time includes the wait for the next frame (Textual draws at most 60 frames a second) and a
second frame if anything repaints a frame late; both are what a customer sees.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import pytest

from tests.bench import test_terminal
from tests.bench.conftest import Figures
from tests.bench.pty_run import PtyApp, visible_text
from tests.bench.test_menu_keys import QUERIES
from tests.bench.test_terminal import PRODUCTS, big_menu, env, open_big_menu

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(Path(sys.executable))
ROUNDS = 2
# The same served 5,000-product menu as benchmarks 5 and 6 (a fixture of this module too).
big_server = test_terminal.big_server
MOVES = 60
# Longer than a frame (16.7 ms) and than a repaint posted a frame late (20-40 ms).
QUIET = 0.12
LIMIT = 3.0


def key_until_quiet(app: PtyApp, key: str, expect: str = "") -> tuple[float, int]:
    """(seconds from writing `key` to the last byte before QUIET s of silence, bytes written).
    The first byte (and `expect`, text the key must show) is waited for up to LIMIT s: on a loaded
    machine a key may take longer than QUIET before anything comes."""
    app.read_until_quiet(QUIET)  # nothing of an earlier key left to read
    sent = time.perf_counter()
    app.send(key)
    last, got = sent, bytearray()
    while time.perf_counter() - sent < LIMIT:
        waiting = not got or (expect and expect not in visible_text(bytes(got)))
        chunk = app._read_once(LIMIT if waiting else QUIET)
        if not chunk:
            if waiting and time.perf_counter() - sent < LIMIT:
                continue
            break
        last = time.perf_counter()
        got += chunk
    return last - sent, len(got)


def moves(app: PtyApp, count: int = MOVES) -> list[tuple[float, int]]:
    return [key_until_quiet(app, "down") for _ in range(count)]


def kiosk_moves(home: Path, server: str) -> list[tuple[float, int]]:
    with PtyApp(big_menu(home, server), env=env(home)) as app:
        open_big_menu(app)
        return moves(app)


def baseline_moves(driver: str, ready: str, home: Path) -> list[tuple[float, int]]:
    argv = [PYTHON, str(ROOT / "tests/bench/drivers" / driver), str(PRODUCTS)]
    with PtyApp(argv, env=env(home)) as app:
        app.wait_for_text(ready)
        app.read_until_quiet(0.3)
        return moves(app)


def ms(samples: list[tuple[float, int]]) -> float:
    return statistics.median(s[0] for s in samples) * 1000


def size(samples: list[tuple[float, int]]) -> float:
    return statistics.median(s[1] for s in samples)


def test_cursor_move_until_quiet_in_a_pty(
    figures: Figures, tmp_path: Path, big_server: str
) -> None:
    kiosk: list[tuple[float, int]] = []
    options: list[tuple[float, int]] = []
    table: list[tuple[float, int]] = []
    for _ in range(ROUNDS):
        kiosk += kiosk_moves(tmp_path, big_server)
        options += baseline_moves("option_list_app.py", "OptionList app ready", tmp_path)
        table += baseline_moves("data_table_app.py", "DataTable app ready", tmp_path)
    # Not a timing: every move drew something, or the benchmark measured nothing.
    assert min(s[1] for s in kiosk) > 0 and min(s[1] for s in options) > 0
    assert min(s[1] for s in table) > 0
    value, base = ms(kiosk), ms(options)
    figures.add(
        "4t",
        "cursor move until the terminal is quiet, 5,000-product menu vs OptionList app "
        "(median, pty)",
        value,
        "ms",
        baseline=base,
        goal="ratio <= 1.0",
        passed=value <= base,
        note=f"DataTable app {ms(table):.1f} ms; slowest: kiosk "
        f"{max(s[0] for s in kiosk) * 1000:.0f} ms, OptionList "
        f"{max(s[0] for s in options) * 1000:.0f} ms; {len(kiosk)} moves each",
    )
    figures.add(
        "4t",
        "bytes to the terminal per cursor move, 5,000-product menu vs OptionList app (median, pty)",
        size(kiosk),
        "B",
        baseline=size(options),
        goal="ratio <= 1.0",
        passed=size(kiosk) <= size(options),
        note=f"DataTable app {size(table):.0f} B; kiosk max {max(s[1] for s in kiosk)} B",
    )


def typing(app: PtyApp) -> list[tuple[float, int]]:
    timed = []
    for query in QUERIES:
        for n, character in enumerate(query, 1):
            # The search line shows what was typed: the key's frame has come.
            timed.append(key_until_quiet(app, character, expect=f"Search: {query[:n]}"))
        timed.append(key_until_quiet(app, "\x7f", expect=f"Search: {query[:-1]}▏"))
        app.send("escape")  # clears the search (not timed: see above)
        app.read_until_quiet(0.3)
    return timed


def test_type_ahead_until_quiet_in_a_pty(figures: Figures, tmp_path: Path, big_server: str) -> None:
    typed: list[tuple[float, int]] = []
    for _ in range(ROUNDS):
        with PtyApp(big_menu(tmp_path, big_server), env=env(tmp_path)) as app:
            open_big_menu(app)
            typed += typing(app)
    assert min(s[1] for s in typed) > 0
    median = ms(typed)
    slowest = max(s[0] for s in typed) * 1000
    figures.add(
        "4t",
        "type-ahead key until the terminal is quiet, 5,000 products (median, pty)",
        median,
        "ms",
        goal="< 15 ms",
        passed=median < 15,
        note=f"{len(typed)} keys; bytes per key median {size(typed):.0f} B",
    )
    figures.add(
        "4t",
        "type-ahead key until the terminal is quiet, 5,000 products (slowest, pty)",
        slowest,
        "ms",
        goal="< 50 ms",
        passed=slowest < 50,
    )


if not hasattr(os, "fork"):  # pragma: no cover - the pty benchmarks need a POSIX terminal
    pytestmark = pytest.mark.skip(reason="needs pty/fork")
