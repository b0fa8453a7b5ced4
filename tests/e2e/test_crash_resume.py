"""Real processes in a pseudo-terminal against a demo server on 127.0.0.1.

- Crash resume: `kiosk demo --server URL` is driven by keys until a cookie is in the cart, killed
  with SIGKILL, and started again with the same KIOSK_HOME: it resumes the same cart (the backend
  shows the same cart, still open, with its line, and no other; the new process says so).
- Kiosk mode on a real terminal: Ctrl+C, Ctrl+Q, Ctrl+Z, Ctrl+\\ and Ctrl+P, and SIGINT, SIGQUIT and
  SIGTSTP sent to the process, neither end nor stop it; staff leave with F12 and the PIN.

Waits poll the backend or the screen bytes with a bounded timeout; nothing sleeps blindly.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kiosk.config import hash_pin
from kiosk.demo import create_app
from kiosk.demo.server import ServerThread
from tests.e2e.pty_screen import kiosk_env

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0
F2 = "\x1bOQ"
F12 = "\x1b[24~"
# Escape sequences (CSI, OSC, charset, keypad modes): removed to read the screen's words.
ANSI = re.compile(
    rb"\x1b\[[0-9;?<=>]*[ -/]*[@-~]"
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|\x1b[()][A-Z0-9]"
    rb"|\x1b[=>NOMP78]"
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def wait_until(what: str, check: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Terminal:
    """A process on a pty of `size`; everything it writes is kept in `output`."""

    def __init__(self, argv: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.master = master
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()
        self.mark = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._chunks.append(data)

    @property
    def output(self) -> bytes:
        with self._lock:
            return b"".join(self._chunks)

    def text(self, since: int = 0) -> str:
        plain = ANSI.sub(b"", self.output[since:])
        return plain.decode("utf-8", "replace")

    def expect(self, needle: str, timeout: float = TIMEOUT) -> None:
        """Wait until `needle` appears in what was drawn since the last `send`."""
        since = self.mark
        try:
            wait_until(repr(needle), lambda: needle in self.text(since), timeout)
        except AssertionError:
            tail = self.text(since)[-1500:]
            raise AssertionError(f"{needle!r} never appeared; the screen said:\n{tail}") from None

    def send(self, data: str) -> None:
        self.mark = len(self.output)
        os.write(self.master, data.encode())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> int:
        if self.alive():
            os.kill(self.proc.pid, sig)
        code = self.proc.wait(timeout=TIMEOUT)
        return code

    def close(self) -> None:
        if self.alive():
            self.kill()
        os.close(self.master)
        self._reader.join(timeout=5)


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    app = create_app(tmp_path / "demo.sqlite3")
    with ServerThread(app) as server:
        yield app.state.backend, server.base_url
    app.state.backend.close()


def start_kiosk(base_url: str, env: dict[str, str], *flags: str) -> Terminal:
    argv = [sys.executable, "-m", "kiosk", "demo", "--server", base_url, *flags]
    return Terminal(argv, env, (100, 30))


def test_resume_after_sigkill(tmp_path: Path, demo_server: tuple[Any, str]) -> None:
    backend, base_url = demo_server
    home = tmp_path / "home"
    env = kiosk_env(home, KIOSK_TERMINAL_ID="counter-1")

    first = start_kiosk(base_url, env)
    try:
        first.expect("Lantern Downtown")
        first.send("1")
        first.expect("How would you like your order")
        first.send("1")
        cart_id = wait_until("a cart on the server", lambda: next(iter(backend.carts.ids()), None))
        first.expect("Type to search")
        first.send("cookie")
        first.expect("Chocolate Chip Cookie")
        first.send("\r")
        first.expect("Add")
        first.send(F2)
        wait_until(
            "the cookie in the server cart",
            lambda: backend.get_cart_json(cart_id)["items"],
        )
        assert first.kill(signal.SIGKILL) == -signal.SIGKILL
    finally:
        first.close()

    # Killed mid-order: the cart is open on the server, and its id is on disk.
    saved = home / "state" / "demo" / "terminals" / "counter-1" / "open-cart.json"
    assert cart_id in saved.read_text()
    assert backend.get_cart_json(cart_id)["status"] == "OPEN"

    second = start_kiosk(base_url, env)
    try:
        second.expect("we kept your order")
        # The cart bar (100 columns is the narrow layout): the resumed cart's one line.
        second.expect("Your order: 1 item")
        cart = backend.get_cart_json(cart_id)
        assert cart["status"] == "OPEN"
        assert [i["productId"] for i in cart["items"]] == ["prd_cookie"]
        # Resumed, not replaced: no other cart was made.
        assert list(backend.carts.ids()) == [cart_id]
    finally:
        second.close()


def test_kiosk_mode_on_a_real_terminal(tmp_path: Path, demo_server: tuple[Any, str]) -> None:
    _, base_url = demo_server
    env = kiosk_env(tmp_path / "home", KIOSK_STAFF_PIN_HASH=hash_pin("2468"))
    term = start_kiosk(base_url, env, "--kiosk")
    try:
        term.expect("Lantern Downtown")
        # Ctrl+C, Ctrl+Q, Ctrl+Z, Ctrl+\, Ctrl+P: then "1" still chooses the first location, so the
        # app is alive, was not suspended, and no command palette took the key.
        term.send("\x03\x11\x1a\x1c\x10")
        term.send("1")
        term.expect("How would you like your order")
        assert term.alive()
        # The same signals sent to the process: ignored in kiosk mode.
        for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP):
            os.kill(term.proc.pid, sig)
        term.send("\x1b")  # Escape: back to the locations
        term.expect("Choose a restaurant")
        assert term.alive()

        # Staff leave with F12 and the PIN.
        term.send(F12)
        term.expect("enter the PIN")
        term.send("2468\r")
        term.expect("Exit the kiosk app")
        term.send("\x1b[F")  # End: the last action, Exit
        term.send("\r")
        term.expect("Exit the kiosk app?")
        term.send("y")
        assert wait_until("the app to exit", lambda: term.proc.poll() is not None) is not None
        assert term.proc.returncode == 0
    finally:
        term.close()


SGR = re.compile(rb"\x1b\[([0-9;]*)m")


def colours(output: bytes) -> list[list[int]]:
    """Every colour an SGR sequence sets, as [38|48, 5, n] or [38|48, 2, r, g, b] or [code]."""
    found: list[list[int]] = []
    for match in SGR.finditer(output):
        parts = [int(p) if p else 0 for p in match.group(1).split(b";")]
        i = 0
        while i < len(parts):
            code = parts[i]
            if code in (38, 48) and i + 1 < len(parts):
                size = 3 if parts[i + 1] == 5 else 5
                found.append(parts[i : i + size])
                i += size
                continue
            if 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                found.append([code])
            i += 1
    return found


@pytest.mark.parametrize("mode", ["16 colours", "NO_COLOR"])
def test_remote_terminal_80x24_colours(
    tmp_path: Path, demo_server: tuple[Any, str], mode: str
) -> None:
    _, base_url = demo_server
    extra = {"TEXTUAL_COLOR_SYSTEM": "standard"} if mode == "16 colours" else {"NO_COLOR": "1"}
    env = kiosk_env(tmp_path / "home", **extra)
    term = Terminal(
        [sys.executable, "-m", "kiosk", "demo", "--server", base_url, "--kiosk"], env, (80, 24)
    )
    try:
        term.expect("Lantern Downtown")
        # The demo mark and (kiosk mode) the health line's status mark are on screen at 80x24.
        term.expect("DEMO")
        term.expect("●")
        used = colours(term.output)
        assert used, "no colour codes at all: the check would be vacuous"
        if mode == "16 colours":
            assert all(len(c) == 1 for c in used), [c for c in used if len(c) > 1][:5]
        else:
            # Textual's NO_COLOR: shades of grey only (the 256-colour grey ramp, the colour
            # cube's six greys from black to white, or r = g = b).
            def grey(c: list[int]) -> bool:
                if len(c) == 3:
                    return c[2] >= 232 or c[2] in (0, 7, 8, 15, 16, 59, 102, 145, 188, 231)
                if len(c) == 5:
                    return c[2] == c[3] == c[4]
                return c[0] in (30, 37, 40, 47, 90, 97, 100, 107)

            assert all(grey(c) for c in used), [c for c in used if not grey(c)][:5]
    finally:
        term.close()
