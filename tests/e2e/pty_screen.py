"""The real kiosk in a pseudo-terminal, its screen read by a terminal emulator (pyte).

A PtyApp (tests/bench/pty_run.py: fork onto a pty of a given size, read what the program writes)
whose output is fed to a pyte screen of the same size, so a test reads the screen as a customer
sees it (rows and columns, each field where it is drawn), not the stream of partial repaints.

`burst` writes several keys with ONE os.write, as a laggy SSH link delivers them: the program
reads them in one read. Waits poll the emulated screen with a deadline; nothing sleeps.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyte

from tests.bench.pty_run import PtyApp

ROOT = Path(__file__).resolve().parents[2]

KEYS = {
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "enter": b"\r",
    "tab": b"\t",
    "backspace": b"\x7f",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "f2": b"\x1bOQ",
    "f4": b"\x1bOS",
    "f12": b"\x1b[24~",
}


def kiosk_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a kiosk under test: its own KIOSK_HOME, a known terminal type, nothing
    of the caller's kiosk or Textual settings. No SSH_* either: the terminal id (kiosk.terminal)
    must not depend on how the tests were run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOSK_", "TEXTUAL_", "SSH_"))}
    env.pop("NO_COLOR", None)
    env.update(KIOSK_HOME=str(home), TERM="xterm-256color", PYTHONUNBUFFERED="1", **extra)
    return env


def keys(*names: str) -> bytes:
    """The bytes a terminal sends for `names`: a key name above, or text as it is."""
    return b"".join(KEYS.get(name, name.encode()) for name in names)


class EmulatedTerminal:
    """A program on a pty of columns x rows, its screen kept by pyte as it draws."""

    def __init__(
        self, argv: list[str], env: Mapping[str, str], columns: int = 80, rows: int = 24
    ) -> None:
        # PtyApp lays its env over os.environ and drops empty values: blank what ours removed.
        blanked = {k: "" for k in os.environ if k not in env}
        self.app = PtyApp(argv, env={**blanked, **env}, columns=columns, rows=rows, cwd=str(ROOT))
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)

    def __enter__(self) -> EmulatedTerminal:
        self.app.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the program (SIGKILL: what it saves on a quit is not under test here)."""
        if self.app.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.app.pid, 9)
            self.app.stop(timeout=5)

    # Reading ---------------------------------------------------------------------------------
    def pump(self, timeout: float) -> bool:
        """Read what came within `timeout` s into the screen; whether anything came."""
        chunk = self.app._read_once(timeout)
        if chunk:
            self.stream.feed(chunk)
        return bool(chunk)

    def quiet(self, quiet: float = 0.3, limit: float = 5.0) -> None:
        """Read until nothing more came for `quiet` s (or `limit` passed): the screen as drawn
        once the program has nothing more to draw."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.pump(quiet):
            pass

    @property
    def lines(self) -> list[str]:
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines)

    def wait_until(self, what: str, check: Callable[[], Any], timeout: float = 20.0) -> Any:
        """Read the program's output until check() is true; its value. AssertionError with the
        screen as drawn when `timeout` passes."""
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text}")
            self.pump(min(left, 0.05))

    def wait_for(self, text: str, timeout: float = 20.0) -> None:
        """Until `text` is on the screen (in one row)."""
        self.wait_until(repr(text), lambda: text in self.text, timeout)

    def wait_gone(self, text: str, timeout: float = 20.0) -> None:
        self.wait_until(f"{text!r} to go", lambda: text not in self.text, timeout)

    def row_with(self, text: str) -> int:
        """The first row showing `text` (ValueError if none)."""
        for y, line in enumerate(self.lines):
            if text in line:
                return y
        raise ValueError(f"{text!r} is not on the screen:\n{self.text}")

    def below(self, label: str, rows: int = 1) -> str:
        """The text `rows` rows under the row showing `label` (a field under its label; a
        bordered field's text is on the second row), stripped of borders and blanks."""
        line = self.lines[self.row_with(label) + rows]
        return line.strip(" ▊▎▏▔▁│┃|").strip()

    # Writing ---------------------------------------------------------------------------------
    def burst(self, *names: str) -> None:
        """All of `names` in ONE write: the program gets them in one read."""
        data = keys(*names)
        assert os.write(self.app.fd, data) == len(data)


def kiosk_demo(home: Path, columns: int, rows: int, *flags: str) -> EmulatedTerminal:
    """`kiosk demo` (the embedded backend, its SQLite under `home`) on a pty of columns x rows."""
    argv = [sys.executable, "-m", "kiosk", "demo", *flags]
    return EmulatedTerminal(argv, kiosk_env(home), columns, rows)


def demo_db(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """A read of the embedded demo backend's own SQLite (the server's truth), read-only."""
    (path,) = home.glob("**/demo.sqlite3")
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return db.execute(sql, params).fetchall()
