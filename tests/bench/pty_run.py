"""Run a program in a real pseudo-terminal (TERM=xterm-256color, 120x40 by default), as a terminal
emulator would: read everything it writes, send it keys, time it, count its bytes, and collect its
peak memory when it ends. Linux/macOS only (pty, fork).

Peak memory: the child is forked from the (large) benchmark process, and Linux carries the
pre-exec high-water mark into ru_maxrss across execve, so ru_maxrss of a child of pytest reports
pytest's size. The program's own peak is VmHWM in /proc/PID/status (the exec'd image's high-water
mark), read just before the program is asked to quit; ru_maxrss is the fallback elsewhere."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Escape sequences (CSI, OSC, two-byte ESC) removed to find the text a screen shows.
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

KEYS = {
    "down": b"\x1b[B",
    "up": b"\x1b[A",
    "enter": b"\r",
    "escape": b"\x1b",
    "ctrl+q": b"\x11",
    "f4": b"\x1bOS",
}


def visible_text(data: bytes) -> str:
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


def vm_hwm_kib(pid: int | str = "self") -> int | None:
    """A process's peak resident memory (VmHWM, KiB); None once it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


@dataclass
class PtyApp:
    argv: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)
    columns: int = 120
    rows: int = 40
    cwd: str | None = None
    pid: int = 0
    fd: int = -1
    started: float = 0.0
    output: bytearray = field(default_factory=bytearray)
    maxrss_kib: int | None = None
    peak_kib: int | None = None
    exit_status: int | None = None

    def start(self) -> PtyApp:
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "", "LINES": "", **self.env}
        env = {k: v for k, v in env.items() if v != ""}
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal and its stdio
            try:
                winsize = struct.pack("HHHH", self.rows, self.columns, 0, 0)
                fcntl.ioctl(0, termios.TIOCSWINSZ, winsize)
                if self.cwd:
                    os.chdir(self.cwd)
                os.execve(self.argv[0], list(self.argv), env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        return self

    # Reading ------------------------------------------------------------------------------------
    def _read_once(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:  # EIO: the child has gone
            return b""
        self.output += chunk
        return chunk

    def wait_for_text(self, text: str, timeout: float = 30.0) -> float:
        """Read until `text` shows on screen; seconds since start(). Raises TimeoutError."""
        ends = time.perf_counter() + timeout
        seen_at = 0
        while True:
            if text in visible_text(bytes(self.output[max(0, seen_at - 4096) :])):
                return time.perf_counter() - self.started
            seen_at = len(self.output)
            left = ends - time.perf_counter()
            if left <= 0:
                tail = visible_text(bytes(self.output[-2000:]))
                raise TimeoutError(f"{text!r} did not appear in {timeout} s; screen tail: {tail!r}")
            self._read_once(min(left, 0.05))

    def read_until_quiet(self, quiet: float = 0.15, limit: float = 3.0) -> bytes:
        """Everything written until nothing more came for `quiet` seconds (or `limit` passed)."""
        got = bytearray()
        ends = time.perf_counter() + limit
        while time.perf_counter() < ends:
            chunk = self._read_once(quiet)
            if not chunk:
                break
            got += chunk
        return bytes(got)

    def read_answer(self, quiet: float = 0.1, first_within: float = 5.0) -> bytes:
        """What a key drew: from its first byte (waited for up to `first_within` seconds, so a
        slow answer on a busy machine is not read as none and counted with the next key's) until
        nothing more came for `quiet` seconds."""
        first = self._read_once(first_within)
        return first + self.read_until_quiet(quiet) if first else b""

    # Writing -----------------------------------------------------------------------------------
    def send(self, *keys: str) -> None:
        for key in keys:
            os.write(self.fd, KEYS.get(key, key.encode()))

    # Ending ------------------------------------------------------------------------------------
    def stop(self, timeout: float = 10.0) -> None:
        """Ask the app to quit (ctrl+q), then terminate it; collect its exit and peak memory."""
        if self.pid == 0:
            return
        self.peak_kib = vm_hwm_kib(self.pid)
        with contextlib.suppress(OSError):
            self.send("ctrl+q")
        ends = time.perf_counter() + timeout
        signalled = False
        while True:
            self._read_once(0.05)  # keep the pty drained so the child can finish writing
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.exit_status = status
                # Linux reports ru_maxrss in KiB, macOS in bytes.
                rss = usage.ru_maxrss
                self.maxrss_kib = rss // 1024 if sys.platform == "darwin" else rss
                if self.peak_kib is None:
                    self.peak_kib = self.maxrss_kib
                break
            if time.perf_counter() > ends and not signalled:
                os.kill(self.pid, signal.SIGTERM)
                signalled = True
                ends = time.perf_counter() + timeout
            elif time.perf_counter() > ends:
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.pid = 0

    def __enter__(self) -> PtyApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
