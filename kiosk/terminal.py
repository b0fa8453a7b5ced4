"""One terminal, one visit: which terminal this kiosk is, and a lock so no two kiosks are one.

A kiosk's crash-resume file belongs to one terminal. Two kiosks of one user (two SSH sessions under
one account, two local terminals, every browser session of `kiosk serve`) share the state dir, so
each needs its own terminal id, and a second kiosk started as a terminal that is already running
must refuse rather than take over the first customer's order.

The id comes from `terminal_id` (config.toml, KIOSK_TERMINAL_ID, --terminal-id); without it, from
the host and the session (`derive_terminal_id`). The lock is an OS file lock (filelock): it is held
while the kiosk runs and released by the OS when the process dies, so a crash leaves no stale lock
and the next start on the same terminal resumes the order.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kiosk import paths

if TYPE_CHECKING:
    from kiosk.config import Settings

__all__ = [
    "TerminalBusyError",
    "claim_terminal",
    "derive_terminal_id",
    "terminal_dir",
    "terminal_id_for",
]

# textual-serve runs one kiosk process per browser session and tells it so through this variable.
_WEB_DRIVER_MARK = "web_driver"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_ID = 64


def _safe(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-.") or "x"


def _tty_name() -> str | None:
    for fd in (0, 1, 2):
        try:
            return os.ttyname(fd)
        except OSError:
            continue
    return None


def derive_terminal_id(
    env: Mapping[str, str] | None = None,
    *,
    host: str | None = None,
    tty: str | None = None,
) -> str:
    """A terminal id from the host and the session, when none is configured.

    - a `kiosk serve` browser session: a fresh random id (each visitor is a terminal of its own);
    - an SSH session: the client's address and the session's tty, so two sessions never share one
      (a reconnect gets a new tty: counter terminals on SSH that should resume an order after a
      dropped link set `terminal_id`, e.g. through `SetEnv KIOSK_TERMINAL_ID=counter-1`);
    - on this machine's own screen: `local`, the same after a crash or a reboot, so the next start
      resumes the order; a second local kiosk is refused until it is given an id of its own.
    """
    env = os.environ if env is None else env
    host = _safe(host if host is not None else socket.gethostname())
    ssh = env.get("SSH_CONNECTION", "").split()
    if _WEB_DRIVER_MARK in env.get("TEXTUAL_DRIVER", ""):
        session = f"serve-{secrets.token_hex(4)}"
    elif ssh:
        tty = tty if tty is not None else (env.get("SSH_TTY") or _tty_name())
        tty_part = _safe(tty.removeprefix("/dev/")) if tty else "notty"
        session = f"ssh-{_safe(ssh[0])}-{tty_part}"
    else:
        session = "local"
    # The session part is what tells terminals apart: keep it whole and shorten the host instead.
    room = max(1, MAX_ID - len(session) - 1)
    return f"{host[:room]}-{session}"[:MAX_ID].strip("-.")


def terminal_id_for(settings: Settings, env: Mapping[str, str] | None = None) -> str:
    return settings.terminal_id or derive_terminal_id(env)


def terminal_dir(settings: Settings, terminal_id: str) -> Path:
    """This terminal's state folder: its crash-resume file lives here. One folder a profile, so a
    demo cart is never offered to the production backend."""
    return paths.state_dir() / settings.profile / "terminals" / terminal_id


class TerminalBusyError(Exception):
    """Another running kiosk is this terminal. The message names it and says what to do."""


@dataclass(frozen=True, slots=True)
class Terminal:
    id: str
    state_dir: Path


def _describe_holder(info_file: Path) -> str:
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
        pid = int(info["pid"])
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info["started"])))
        return f"process {pid}, started {started}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


@contextmanager
def claim_terminal(settings: Settings, env: Mapping[str, str] | None = None) -> Iterator[Terminal]:
    """Hold this terminal for as long as the kiosk runs; TerminalBusyError if another kiosk does.

    Nothing is written before the lock is held, so a refused kiosk leaves the running one's files as
    they were.
    """
    from filelock import FileLock, Timeout

    terminal_id = terminal_id_for(settings, env)
    folder = terminal_dir(settings, terminal_id)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = FileLock(folder / "kiosk.lock", timeout=0)
    info_file = folder / "kiosk.json"
    try:
        lock.acquire()
    except Timeout:
        holder = _describe_holder(info_file)
        raise TerminalBusyError(
            f"another kiosk is running as terminal {terminal_id!r} ({holder}); "
            "stop that one first, or give this one its own id with --terminal-id NAME "
            "(or KIOSK_TERMINAL_ID)"
        ) from None
    try:
        info = {"pid": os.getpid(), "started": time.time(), "terminal_id": terminal_id}
        paths.atomic_write(info_file, json.dumps(info))
        yield Terminal(terminal_id, folder)
    finally:
        lock.release()
