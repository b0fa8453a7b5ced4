"""Out of order: staff close one terminal to customers, and open it again.

Set from the staff screen (behind the PIN) or with `kiosk out-of-order on|off`. The state is a file
in the terminal's own folder (kiosk.terminal.terminal_dir), `out-of-order.json`, present while the
terminal is closed: so it survives a restart, and the command line reaches a running kiosk. The
running kiosk looks at the file's stamp on the clock it already has for its terminal (twice a
second, kiosk.tui.kiosk_mode's watch_terminal) and reads it only when the stamp changed.

A file that is there but cannot be read as JSON (edited by hand) still means closed: someone meant
to close the terminal. No Textual here: the command line uses it too.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from kiosk import paths

__all__ = ["OUT_OF_ORDER_FILE", "Closed", "Watch", "read", "set_out_of_order"]

OUT_OF_ORDER_FILE = "out-of-order.json"


@dataclass(frozen=True, slots=True)
class Closed:
    """Why and since when a terminal is closed (`since` None when the file did not say)."""

    since: float | None
    by: str


def read(folder: Path | None) -> Closed | None:
    """The terminal's state: Closed, or None when it is open."""
    if folder is None:
        return None
    try:
        raw = (folder / OUT_OF_ORDER_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError:
        return Closed(None, "unknown")  # there, but unreadable: still closed
    try:
        data = json.loads(raw)
        since = float(data["since"])
        by = str(data.get("by") or "unknown")[:40]
    except (ValueError, KeyError, TypeError):
        return Closed(None, "unknown")
    return Closed(since, by)


def set_out_of_order(folder: Path, on: bool, *, by: str, now: float | None = None) -> bool:
    """Close (`on`) or open the terminal whose folder is `folder`. Returns whether this changed
    anything (closing a closed terminal keeps its first `since`)."""
    if on:
        if read(folder) is not None:
            return False
        stamp = time.time() if now is None else now
        paths.atomic_write(folder / OUT_OF_ORDER_FILE, json.dumps({"since": stamp, "by": by}))
        return True
    try:
        (folder / OUT_OF_ORDER_FILE).unlink()
    except FileNotFoundError:
        return False
    return True


class Watch:
    """Tells whether the file may have changed since the last look, from its stamp alone (one
    stat, no read, on each tick of the kiosk's clock)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._stamp: tuple[int, int, int] | None = None
        self._looked = False

    def _now(self) -> tuple[int, int, int] | None:
        if self.folder is None:
            return None
        with contextlib.suppress(OSError):
            info = (self.folder / OUT_OF_ORDER_FILE).stat()
            return (info.st_ino, info.st_mtime_ns, info.st_size)
        return None

    def changed(self) -> bool:
        """True on the first look and whenever the file came, went or was written again."""
        stamp = self._now()
        if self._looked and stamp == self._stamp:
            return False
        self._looked = True
        self._stamp = stamp
        return True
