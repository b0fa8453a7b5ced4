"""Benchmark 7 quiet (issue 23; "7 quiet", not "7": a partial run replaces every row of the ids it
ran, and "7" is the demo server's): a quiet counter. Bytes per second the kiosk writes to its
terminal at rest, on each screen, in kiosk mode, in a real pseudo-terminal (tests/bench/pty_run.py)
at 80x24: what an SSH link carries while nobody touches the counter. Goal: at most 50 B/s on every
screen.

Each screen is reached by keys as a customer (or staff) would, left to settle (nothing written for
SETTLE seconds, or SETTLE_LIMIT passed), then every byte written during WINDOW seconds is counted.
Baseline in the same run: the same kiosk with the staff's health line in words switched on for
every screen (`KIOSK_BENCH_FULL_HEALTH`, read by tests/bench/drivers/quiet_kiosk.py), which is what
kiosk mode showed customers before issue 23. Before issue 23 (the line redrawn every second, with
ages in seconds) this benchmark measured 219 B/s on the welcome screen, 6,057 B/s on the menu (the
line's update laid out and redrew the whole screen) and 8,938 B/s on the staff screen; after, 0.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kiosk.config import hash_pin
from tests.bench.conftest import Figures
from tests.bench.pty_run import PtyApp, visible_text

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(Path(sys.executable))
DRIVER = [PYTHON, "-m", "tests.bench.drivers.quiet_kiosk"]
PIN = "2468"
WINDOW = 4.0
SETTLE = 1.5
SETTLE_LIMIT = 10.0
GOAL = 50.0


def env(home: Path, *, full: bool) -> dict[str, str]:
    values = {
        "KIOSK_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "",
        "KIOSK_STAFF_PIN_HASH": hash_pin(PIN),
        "KIOSK_TERMINAL_ID": "quiet-bench",
        # Long enough that no "Still there?" comes while a screen is measured.
        "KIOSK_IDLE_TIMEOUT": "600",
    }
    if full:
        values["KIOSK_BENCH_FULL_HEALTH"] = "1"
    return values


def at_rest(app: PtyApp) -> float:
    """Bytes per second written during WINDOW s once the screen has settled."""
    app.read_until_quiet(SETTLE, SETTLE_LIMIT)
    started = time.perf_counter()
    count = 0
    while (left := WINDOW - (time.perf_counter() - started)) > 0:
        count += len(app._read_once(min(left, 0.1)))
    return count / WINDOW


# (screen, how to reach it from the previous one)
Step = tuple[str, Callable[[PtyApp], None]]


def wait_new(app: PtyApp, text: str, mark: int, timeout: float = 60.0) -> None:
    """Wait for `text` in what was written after `mark` (not in an earlier screen's bytes)."""
    ends = time.perf_counter() + timeout
    while text not in visible_text(bytes(app.output[mark:])):
        if time.perf_counter() > ends:
            raise TimeoutError(f"{text!r} did not appear in {timeout} s")
        app._read_once(0.05)


def _welcome(app: PtyApp) -> None:
    wait_new(app, "How would you like", 0)


def _menu(app: PtyApp) -> None:
    mark = len(app.output)
    app.send("1")
    wait_new(app, "Type to search the menu", mark)


def _staff(app: PtyApp) -> None:
    mark = len(app.output)
    app.send("\x1b[24~")  # F12
    wait_new(app, "PIN", mark)
    app.read_until_quiet(0.3)
    mark = len(app.output)
    app.send(PIN, "enter")
    wait_new(app, "Back to the kiosk", mark)


STEPS: list[Step] = [("welcome", _welcome), ("menu", _menu), ("staff", _staff)]


def walk(home: Path, *, full: bool) -> dict[str, float]:
    rates: dict[str, float] = {}
    argv = [*DRIVER, "--kiosk", "--location", "lantern-downtown"]
    with PtyApp(argv, env=env(home, full=full), columns=80, rows=24) as app:
        for name, reach in STEPS:
            reach(app)
            rates[name] = at_rest(app)
    return rates


def test_bytes_per_second_at_rest_in_kiosk_mode(figures: Figures, tmp_path: Path) -> None:
    # A home each: a kiosk stopped on the menu leaves its order for the next start to resume.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    before = walk(tmp_path / "a", full=True)
    after = walk(tmp_path / "b", full=False)
    for name, _ in STEPS:
        value = after[name]
        figures.add(
            "7 quiet",
            f"bytes/s at rest, kiosk mode, {name} screen, 80x24 vs the line in words (pty)",
            value,
            "B/s",
            baseline=before[name],
            goal=f"<= {GOAL:.0f} B/s",
            passed=value <= GOAL,
            note=f"{WINDOW:.0f} s window after the screen settled",
        )


if not hasattr(os, "fork"):  # pragma: no cover - the pty benchmarks need a POSIX terminal
    pytestmark = pytest.mark.skip(reason="needs pty/fork")
