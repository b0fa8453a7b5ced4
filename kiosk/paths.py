"""Where the kiosk keeps things: platformdirs for config/state/data/logs, and the bundled styles."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "kiosk"


def _dirs() -> PlatformDirs:
    return PlatformDirs(APP_NAME, appauthor=False)


def _override(env: str, sub: str, default: str) -> Path:
    # KIOSK_HOME moves every directory at once (tests, several kiosks on one machine).
    if env in os.environ:
        return Path(os.environ[env])
    home = os.environ.get("KIOSK_HOME")
    if home:
        return Path(home) / sub
    return Path(default)


def config_dir() -> Path:
    return _override("KIOSK_CONFIG_DIR", "config", _dirs().user_config_dir)


def state_dir() -> Path:
    return _override("KIOSK_STATE_DIR", "state", _dirs().user_state_dir)


def data_dir() -> Path:
    return _override("KIOSK_DATA_DIR", "data", _dirs().user_data_dir)


def cache_dir() -> Path:
    """The read cache shared by the kiosks of one site (kiosk.diskcache): give several kiosks the
    same KIOSK_CACHE_DIR and the second never re-reads what the first just read."""
    return _override("KIOSK_CACHE_DIR", "cache", _dirs().user_cache_dir)


def log_dir() -> Path:
    return _override("KIOSK_LOG_DIR", "log", _dirs().user_log_dir)


def styles_dir() -> Path:
    """The .tcss sources: `styles/` in a checkout, `kiosk/styles/` in an installed wheel."""
    packaged = Path(__file__).parent / "styles"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).parent.parent / "styles"
    return checkout


def private_dir(path: Path) -> Path:
    """`path` made with every missing folder above it (KIOSK_HOME included) 0700: the kiosk's
    folders hold carts, keys and logs. mkdir's own mode is masked by the umask and given to the
    last folder only (parents=True makes the others 0755), so each folder made here is made and
    chmodded one by one; a folder that was there is left as it is."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by another process: theirs to set
            continue
        os.chmod(folder, 0o700)
    return path


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_CREAT | os.O_APPEND) -> int:
    """os.open of a file this user alone reads (0600 when made, whatever the umask)."""
    fd = os.open(path, flags, 0o600)
    made = os.fstat(fd)
    if os.name == "posix" and made.st_mode & 0o077 and made.st_uid == os.getuid():
        os.fchmod(fd, 0o600)  # made by an older version with the umask's mode
    return fd


def atomic_write(path: Path, data: str | bytes, mode: int = 0o600) -> None:
    """Write `path` whole or not at all: a crash leaves the old file or the new one, never half.

    A temporary file in the same directory (so `os.replace` is a rename on one file system) is
    written, flushed to disk, given `mode` and renamed over `path`; then the directory is synced so
    the rename itself survives a power cut. The directory is created (0700) when missing.
    """
    atomic_write_parts(path, (data.encode("utf-8") if isinstance(data, str) else data,), mode)


def atomic_write_parts(path: Path, parts: Iterable[bytes | memoryview], mode: int = 0o600) -> None:
    """atomic_write of `parts` one after the other: a large file is written from the pieces it is
    made of (the disk cache's envelope around a server's body), never joined into one copy."""
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            for part in parts:
                handle.write(part)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Not every platform can open a directory (Windows): the rename is then as durable as it gets.
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
