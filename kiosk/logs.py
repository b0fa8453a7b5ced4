"""The kiosk's log: a rotating file in the platformdirs log dir; never the terminal, no secrets.

The API client logs one line a request (method, path, status, ms) on the "kiosk.api" logger;
everything lands in `paths.log_dir()/kiosk.log`. The code that logs is meant never to pass a secret,
but the RedactionFilter on the file handler scrubs every record anyway (message, args, exception
text, stack) as a second line of defence: the API keys the kiosk was given, anything shaped like a
payment client secret, an `sk_...` key, and the value after a secret-looking name
(`clientSecret=...`, `"X-API-Key": "..."`).
"""

from __future__ import annotations

import logging
import logging.handlers
import re
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kiosk import paths

LOG_FILE_NAME = "kiosk.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 5
REDACTED = "[redacted]"
FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A payment client secret (`pi_123_secret_456`) or anything else with `_secret_` inside a token.
    (re.compile(r"\b[A-Za-z0-9_]*_secret_[A-Za-z0-9_\-]+"), REDACTED),
    # API keys in the usual `sk_live_...` / `sk_test_...` / `sk_demo_...` shape.
    (re.compile(r"\bsk_[A-Za-z0-9_\-]{6,}"), REDACTED),
    # The value after a secret-looking name, in JSON, headers, query strings or reprs.
    (
        re.compile(
            r"""(?ix)
            (["']?\b(?:client[_-]?secret|secret|api[_-]?key|x-api-key|authorization|password|token)
             ["']?\s*[:=]\s*
             (?:SecretStr\()?["']?)
            ([^"'\s,;&}\])]+)
            """
        ),
        r"\1" + REDACTED,
    ),
)


class RedactionFilter(logging.Filter):
    """Scrubs known secrets and secret-looking text from every record that passes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str | None) -> None:
        # Very short values would scrub ordinary words; keys and client secrets are long.
        if secret and len(secret) >= 6:
            with self._lock:
                self._secrets.add(secret)

    def redact(self, text: str) -> str:
        with self._lock:
            known = sorted(self._secrets, key=len, reverse=True)
        for secret in known:
            if secret in text:
                text = text.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not lose the record, nor leak its args
            message = f"{record.msg!s} (unformattable log arguments dropped)"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        # The formatted text above replaces the live exception, whose str() may hold a secret.
        record.exc_info = None
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


# One filter for the process, so that whoever learns a key (the runtime, the CLI) can register it.
REDACTOR = RedactionFilter()


def register_secret(secret: str | None) -> None:
    """Make `secret` unloggable from now on (the file handler scrubs it from every record)."""
    REDACTOR.add_secret(secret)


_NOISY = ("httpx", "httpcore")

# What setup_logging changed, for shutdown_logging to put back.
_saved: dict[str, Any] = {}


def log_file_path(log_dir: Path | None = None) -> Path:
    return (log_dir if log_dir is not None else paths.log_dir()) / LOG_FILE_NAME


def _is_terminal_handler(handler: logging.Handler) -> bool:
    if not isinstance(handler, logging.StreamHandler) or isinstance(handler, logging.FileHandler):
        return False
    terminals = {id(sys.stderr), id(sys.stdout), id(sys.__stderr__), id(sys.__stdout__)}
    return id(handler.stream) in terminals


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """The kiosk's log, each file made 0600 whatever the umask (it names carts, locations and what
    went wrong); a rotation renames files, so they keep that mode."""

    def _open(self) -> Any:
        fd = paths.open_private(Path(self.baseFilename))
        return open(fd, self.mode, encoding=self.encoding, errors=self.errors)


def setup_logging(
    level: str | int = "INFO",
    *,
    log_dir: Path | None = None,
    secrets: Iterable[str] = (),
    max_bytes: int = MAX_BYTES,
    backup_count: int = BACKUP_COUNT,
) -> Path:
    """Send every log record to the rotating kiosk log, scrubbed; returns the log file's path.

    Idempotent: a second call replaces the kiosk's handler. Handlers that write to the terminal are
    removed from the root logger (they would draw over the TUI), and warnings go to the log too.
    """
    for secret in secrets:
        register_secret(secret)
    path = log_file_path(log_dir)
    paths.private_dir(path.parent)
    root = logging.getLogger()
    if not any(getattr(h, "_kiosk", False) for h in root.handlers):
        _saved.update(level=root.level, last_resort=logging.lastResort)
    for handler in list(root.handlers):
        if getattr(handler, "_kiosk", False) or _is_terminal_handler(handler):
            root.removeHandler(handler)
            handler.close()
    handler = _PrivateRotatingFileHandler(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8", delay=True
    )
    handler._kiosk = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(REDACTOR)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    # httpx repeats every request kiosk.api already logs (with timing): only its warnings, unless
    # the whole log is at DEBUG.
    noisy = logging.DEBUG if root.level <= logging.DEBUG else logging.WARNING
    for name in _NOISY:
        logging.getLogger(name).setLevel(noisy)
    # Without a handler Python would print WARNING records to stderr (logging.lastResort).
    logging.lastResort = None
    logging.captureWarnings(True)
    return path


def shutdown_logging() -> None:
    """Remove the kiosk's handler and undo setup_logging (tests; the end of the process)."""
    root = logging.getLogger()
    found = False
    for handler in list(root.handlers):
        if getattr(handler, "_kiosk", False):
            root.removeHandler(handler)
            handler.close()
            found = True
    if found:
        root.setLevel(_saved.get("level", logging.WARNING))
        for name in _NOISY:
            logging.getLogger(name).setLevel(logging.NOTSET)
        logging.lastResort = _saved.get("last_resort", logging.lastResort)
        logging.captureWarnings(False)
