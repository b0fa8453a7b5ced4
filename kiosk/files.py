"""One way to write a file atomically (the crash-resume file, config.toml): a temporary file in the
same folder, flushed to disk, then renamed over the target, so a reader (or a crash) sees the old
file or the new one, never half of one. Pure standard library; imports nothing of the kiosk."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace `path` with `text` (UTF-8). `mode`: the file's permission bits (default: what
    mkstemp gives, 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
