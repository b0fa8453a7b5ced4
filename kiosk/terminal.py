"""One terminal, one visit: which terminal this kiosk is, and a lock so no two kiosks are one.

A kiosk's crash-resume file belongs to one terminal. Two kiosks of one user (two SSH sessions under
one account, two local terminals, every browser session of `kiosk serve`) share the state dir, so
each needs its own terminal id, and a second kiosk started as a terminal that is already running
must refuse rather than take over the first customer's order.

The id comes from `terminal_id` (config.toml, KIOSK_TERMINAL_ID, --terminal-id); without it, from
the host and the session (`derive_terminal_id`). The lock is an OS file lock (kiosk.oslock): it is
held while the kiosk runs and released by the OS when the process dies, so a crash leaves no stale
lock and the next start on the same terminal resumes the order.

A new session for a terminal that is still held takes it over (issue 23): a counter whose SSH link
dropped without the server noticing leaves a kiosk behind that still holds the lock, and the
counter's reconnect must win. The new kiosk writes a takeover request (`takeover.json`, naming its
pid) in the terminal's folder; the running kiosk looks for it twice a second
(`takeover_requested`) and leaves at once, keeping the order (the cart stays on the server, its id
in the resume file); the new kiosk then holds the lock and resumes the order. A holder that has not
left after `TAKEOVER_WAIT` seconds (stopped, or blocked on a dead terminal) is sent SIGTERM, then
SIGKILL: what it had was already saved on every transition.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import signal
import socket
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kiosk import paths
from kiosk.oslock import FileLock, LockTimeout

if TYPE_CHECKING:
    from kiosk.config import Settings

__all__ = [
    "TerminalBusyError",
    "claim_terminal",
    "derive_terminal_id",
    "over_ssh",
    "takeover_requested",
    "terminal_dir",
    "terminal_id_for",
    "tty_gone",
]

log = logging.getLogger(__name__)

TAKEOVER_FILE = "takeover.json"
# How long a new session waits for the old kiosk to leave by itself, then after SIGTERM.
TAKEOVER_WAIT = 6.0
TERM_WAIT = 3.0

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
    - an SSH session: the client's address and port (SSH_CONNECTION) and the session's tty: one
      login, one id, never reused by a later login (a pseudo-terminal /dev/pts/N is reused, and a
      reconnect comes from a new port), so no one is offered another person's order. Counter
      terminals on SSH that should resume an order after a dropped link set `terminal_id`, e.g.
      `SetEnv KIOSK_TERMINAL_ID=counter-1` in the sshd block;
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
        port = _safe(ssh[1]) if len(ssh) > 1 else "0"
        session = f"ssh-{_safe(ssh[0])}-{port}-{tty_part}"
    else:
        session = "local"
    # The session part is what tells terminals apart: keep it whole and shorten the host instead.
    room = max(1, MAX_ID - len(session) - 1)
    return f"{host[:room]}-{session}"[:MAX_ID].strip("-.")


def over_ssh(env: Mapping[str, str] | None = None) -> bool:
    """Whether this kiosk draws on an SSH session's terminal (not a `kiosk serve` browser session
    started from one, which inherits SSH_CONNECTION but draws in a browser)."""
    env = os.environ if env is None else env
    return bool(env.get("SSH_CONNECTION")) and _WEB_DRIVER_MARK not in env.get("TEXTUAL_DRIVER", "")


def terminal_id_for(settings: Settings, env: Mapping[str, str] | None = None) -> str:
    return settings.terminal_id or derive_terminal_id(env)


def terminal_dir(settings: Settings, terminal_id: str) -> Path:
    """This terminal's state folder: its crash-resume file lives here. One folder a profile, so a
    demo cart is never offered to the production backend."""
    return paths.state_dir() / settings.profile / "terminals" / terminal_id


class TerminalBusyError(Exception):
    """Another running kiosk is this terminal and did not leave. The message is for the person at
    the counter (staff, or a customer reading over their shoulder), not for a developer."""


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


def _holder_pid(info_file: Path) -> int | None:
    try:
        pid = int(json.loads(info_file.read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if pid > 0 and pid != os.getpid() else None


def tty_gone(fd: int) -> bool:
    """Whether the terminal on `fd` has hung up (the SSH link closed, the emulator quit): Linux
    answers a hung-up terminal's ioctls with EIO. A kiosk whose terminal has gone keeps its order
    for the next session instead of resetting it."""
    import errno
    import termios

    try:
        termios.tcgetattr(fd)
    except termios.error as exc:
        return exc.args[0] in (errno.EIO, errno.ENXIO, errno.EBADF)
    except OSError:
        return True
    return False


def takeover_requested(folder: Path, own_pid: int | None = None) -> bool:
    """Whether another session asked for this terminal (see the module docstring)."""
    own_pid = os.getpid() if own_pid is None else own_pid
    try:
        request = json.loads((folder / TAKEOVER_FILE).read_text(encoding="utf-8"))
        return int(request["pid"]) != own_pid
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _take_over(lock: FileLock, folder: Path, wait: float, term_wait: float) -> bool:
    """Ask the holder to leave; wait; then end it. True once this process holds the lock."""
    request = {"pid": os.getpid(), "at": time.time()}
    paths.atomic_write(folder / TAKEOVER_FILE, json.dumps(request))
    holder = _holder_pid(folder / "kiosk.json")
    # Why each signal is sent, for the log: staff reading it after a takeover see which process
    # was ended and that it had been asked first.
    why = {
        signal.SIGTERM: f"it had not left {wait:g} s after it was asked to "
        "(stopped, or blocked on a dead terminal)",
        signal.SIGKILL: f"it still held the terminal {term_wait:g} s after SIGTERM",
    }
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None and holder is not None:
            log.warning(
                "terminal %s taken over: sending %s to the old kiosk, pid %d: %s",
                folder.name,
                sig.name,
                holder,
                why[sig],
            )
            with contextlib.suppress(OSError):
                os.kill(holder, sig)
        try:
            lock.acquire(timeout=wait if sig is None else term_wait, poll_interval=0.1)
        except LockTimeout:
            if holder is None:
                return False
            continue
        log.info(
            "terminal %s taken over from the old kiosk, pid %s, %s",
            folder.name,
            holder if holder is not None else "unknown",
            "which left when asked" if sig is None else f"ended by {sig.name}",
        )
        return True
    return False


@contextmanager
def claim_terminal(
    settings: Settings,
    env: Mapping[str, str] | None = None,
    *,
    take_over: bool = True,
    wait: float = TAKEOVER_WAIT,
    term_wait: float = TERM_WAIT,
) -> Iterator[Terminal]:
    """Hold this terminal for as long as the kiosk runs. If another kiosk holds it, this new
    session takes it over (`take_over`, see the module docstring); TerminalBusyError if that
    fails (or `take_over` is False).

    Nothing but the takeover request is written before the lock is held, so a refused kiosk
    leaves the running one's files as they were.
    """
    terminal_id = terminal_id_for(settings, env)
    folder = terminal_dir(settings, terminal_id)
    paths.private_dir(folder)
    lock = FileLock(folder / "kiosk.lock", timeout=0)
    info_file = folder / "kiosk.json"
    try:
        lock.acquire()
    except LockTimeout:
        holder = _describe_holder(info_file)
        if not (take_over and _take_over(lock, folder, wait, term_wait)):
            with contextlib.suppress(OSError):
                (folder / TAKEOVER_FILE).unlink()
            raise TerminalBusyError(
                f"terminal {terminal_id!r} is still open in another session ({holder}), which "
                "did not close; try again in a minute, or ask staff to close it"
            ) from None
    try:
        with contextlib.suppress(OSError):
            (folder / TAKEOVER_FILE).unlink()
        info = {"pid": os.getpid(), "started": time.time(), "terminal_id": terminal_id}
        paths.atomic_write(info_file, json.dumps(info))
        yield Terminal(terminal_id, folder)
    finally:
        lock.release()
