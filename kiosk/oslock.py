"""An exclusive lock on a file between processes, released by the OS when its holder dies.

Two users: the terminal's lock (kiosk.terminal), held while the kiosk runs, and the disk cache's
writes (kiosk.diskcache), held for a write. Both need one kind of lock: exclusive, advisory, taken
at once or within a few seconds, gone with the process that held it (a crash leaves no stale lock).
It was filelock's FileLock; importing filelock (its asyncio, read-write and lease locks) cost
50 ms of the start, before the first frame, for a lock this module takes in a few lines.

A lock is an open file description: two FileLock objects on one path conflict, in one process
(two threads) as in two. POSIX `flock`; on Windows, `msvcrt.locking` of the file's first byte.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from types import TracebackType

__all__ = ["FileLock", "LockTimeout"]


class LockTimeout(TimeoutError):
    """Another holder kept the lock for the whole wait."""


class FileLock:
    """`with FileLock(path, timeout=2):` holds the lock for the block, or raises LockTimeout.
    `timeout=0` tries once. The file is created (with `mode`) and left in place: removing it
    while another process waits on it would let two hold "the" lock."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 0.0, mode: int = 0o600):
        self.path = Path(path)
        self.timeout = timeout
        self.mode = mode
        self._fd: int | None = None

    @property
    def is_locked(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float | None = None, poll_interval: float = 0.05) -> None:
        if self._fd is not None:
            return
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        removed = 0
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, self.mode)
            locked = _try_lock(fd)
            if locked and _still_there(fd, self.path):
                self._fd = fd
                return
            os.close(fd)
            if locked and removed < 3:
                # The file was removed (or replaced) after we opened it: a lock on it holds
                # nothing, since the next process opens the new file. Again at once, a few times.
                removed += 1
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise LockTimeout(f"{self.path.name} is held by another process")
            time.sleep(min(poll_interval, left))

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def _still_there(fd: int, path: Path) -> bool:
    try:
        opened, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
