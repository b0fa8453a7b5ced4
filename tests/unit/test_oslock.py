"""kiosk.oslock: one holder at a time, across threads and processes, gone when the holder dies."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kiosk.oslock import FileLock, LockTimeout


def test_one_holder_at_a_time_then_the_next(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    with FileLock(path) as first:
        assert first.is_locked
        other = FileLock(path)
        with pytest.raises(LockTimeout, match=r"a\.lock is held"):
            other.acquire()
        assert not other.is_locked
    other.acquire()
    assert other.is_locked
    other.release()
    other.release()  # a second release is nothing
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_waiter_gets_the_lock_when_the_holder_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    holder = FileLock(path)
    holder.acquire()
    got = threading.Event()

    def wait_for_it() -> None:
        with FileLock(path, timeout=10):
            got.set()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    assert not got.wait(0.2)  # held: the waiter waits
    holder.release()
    waiter.join(10)
    assert got.is_set()


def test_a_wait_ends_with_a_timeout(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    with FileLock(path):
        started = time.monotonic()
        with pytest.raises(LockTimeout):
            FileLock(path, timeout=0.2).acquire()
        assert time.monotonic() - started >= 0.2


HOLD = """
import sys
from kiosk.oslock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.read()
"""


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        with pytest.raises(LockTimeout):
            FileLock(path).acquire()
        proc.kill()
        proc.wait(10)
        with FileLock(path, timeout=5) as lock:  # the OS released it with the process
            assert lock.is_locked
    finally:
        proc.kill()
        proc.wait()


def test_a_lock_file_removed_while_taking_it_is_not_a_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is removed between our open and our lock (someone clearing the folder, another
    process's cleanup): the lock taken is on a file nobody else will open. It is taken again on
    the file the path names now, so a second process cannot hold "the" lock too."""
    from kiosk import oslock

    path = tmp_path / "a.lock"
    real = oslock._try_lock
    removed: list[bool] = []

    def remove_first(fd: int) -> bool:
        if not removed:
            removed.append(True)
            path.unlink()
        return real(fd)

    monkeypatch.setattr(oslock, "_try_lock", remove_first)
    with FileLock(path):
        monkeypatch.setattr(oslock, "_try_lock", real)
        with pytest.raises(LockTimeout):
            FileLock(path).acquire()
    assert removed
