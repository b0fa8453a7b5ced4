"""The read cache on disk shared by the kiosks of one site (issue 14).

One directory (`paths.cache_dir()`, or a shared folder given as KIOSK_CACHE_DIR) holds one JSON file
an entry: the server's body as it came (not our models, so a new kiosk version reads an old file),
when it expires and its ETag. Several kiosk processes read and write it at once: every write is a
whole-file rename (`paths.atomic_write`), so a reader never sees half a file, and writes take one
OS file lock (filelock) so that an older answer never replaces a newer one.

Why our own small file cache and not hishel's SQLite storage: hishel is not installed, it caches
whole HTTP responses (so the allow-list of what may be kept would live in its policy, not here),
and the first frame must read the last screen without importing httpx. This module imports
neither httpx nor pydantic, nor Textual: the client (kiosk.api) and the TUI's first frame both use
it.

What may be kept is the caller's choice (the client keeps menus, products, locations, the
merchant and tip settings; never a cart, an order, a payment or anything carrying a token), and
entries are keyed by whatever the caller names: the client names the base URL, the dialect, the
backend and the location, so two backends never mix.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk.paths import atomic_write

FORMAT = 1
LOCK_NAME = ".lock"
# How long a writer waits for another process's write (seconds); past it the write is skipped:
# a cache that could not be written costs a later read, never a failure.
LOCK_TIMEOUT = 2.0


@dataclass(frozen=True)
class DiskEntry:
    key: tuple[str, ...]
    data: Any
    stored_at: float
    expires_at: float
    etag: str | None = None

    def fresh(self, now: float) -> bool:
        return self.expires_at > now


class DiskCache:
    """JSON entries in one 0700 directory, files 0600, safe to share between processes."""

    def __init__(self, root: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self._clock = clock
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        # mkdir's mode is masked by the umask and not applied to an existing folder.
        with contextlib.suppress(OSError):
            os.chmod(self.root, 0o700)

    def path_for(self, key: Sequence[str]) -> Path:
        name = hashlib.sha256(json.dumps(list(key)).encode("utf-8")).hexdigest()[:40]
        return self.root / f"{name}.json"

    def get(self, key: Sequence[str]) -> DiskEntry | None:
        """The entry under `key`, fresh or not; None when missing or unreadable."""
        try:
            raw = json.loads(self.path_for(key).read_bytes())
        except (OSError, ValueError):
            return None
        # The key is stored whole and compared: a file never answers for another key.
        if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("key") != list(key):
            return None
        try:
            return DiskEntry(
                key=tuple(key),
                data=raw["data"],
                stored_at=float(raw["stored_at"]),
                expires_at=float(raw["expires_at"]),
                etag=raw.get("etag") if isinstance(raw.get("etag"), str) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: Sequence[str], data: Any, *, ttl: float, etag: str | None = None) -> bool:
        """Keep `data` under `key` for `ttl` seconds. False when another process holds the lock
        too long or the disk refuses (the entry is then simply not kept)."""
        now = self._clock()
        body = {
            "format": FORMAT,
            "key": list(key),
            "stored_at": now,
            "expires_at": now + max(0.0, ttl),
            "etag": etag,
            "data": data,
        }
        return self._write(key, body, now)

    def refresh(self, key: Sequence[str], *, ttl: float) -> DiskEntry | None:
        """The server said the entry has not changed (304): keep it `ttl` seconds more."""
        entry = self.get(key)
        if entry is None:
            return None
        if not self.put(key, entry.data, ttl=ttl, etag=entry.etag):
            return entry
        return self.get(key) or entry

    def _write(self, key: Sequence[str], body: dict[str, Any], now: float) -> bool:
        from filelock import FileLock, Timeout

        path = self.path_for(key)
        try:
            encoded = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            return False
        try:
            lock = FileLock(str(self.root / LOCK_NAME), timeout=LOCK_TIMEOUT, mode=0o600)
            with lock:
                current = self.get(key)
                # Another terminal stored a newer answer meanwhile: it stays.
                if current is not None and current.stored_at > now:
                    return False
                atomic_write(path, encoded)
        except (OSError, Timeout):
            return False
        return True

    def clear(self) -> None:
        for path in self.root.glob("*.json"):
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass(frozen=True)
class DiskSlot:
    """One named entry of a DiskCache kept `ttl` seconds (the last first screen, kiosk.tui)."""

    cache: DiskCache
    key: tuple[str, ...]
    ttl: float

    def read(self) -> Any:
        """The data if still within its TTL, else None."""
        entry = self.cache.get(self.key)
        if entry is None or not entry.fresh(self.cache._clock()):
            return None
        return entry.data

    def write(self, data: Any) -> bool:
        return self.cache.put(self.key, data, ttl=self.ttl)
