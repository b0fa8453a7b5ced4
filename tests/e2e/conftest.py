"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

import logging
import logging.handlers
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk import logs

# Every logger a secret could travel through, at DEBUG for the secrets tests.
SECRET_WATCH_LOGGERS = (
    "httpx",
    "httpcore",
    "uvicorn",
    "uvicorn.error",
    "asyncio",
    "kiosk",
    "kiosk.api",
    "kiosk.demo",
    "kiosk.tui",
)


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    """The kiosk's own log file (with its redaction filter) plus raw.log, a handler with no filter
    at all: what the code itself hands to logging. Both under tmp_path/logs, every logger at DEBUG.
    """
    directory = tmp_path / "logs"
    logs.setup_logging("DEBUG", log_dir=directory)
    raw = logging.handlers.RotatingFileHandler(directory / "raw.log", encoding="utf-8")
    raw.setFormatter(logging.Formatter(logs.FORMAT + " | %(args)r"))
    root = logging.getLogger()
    # First in line: the kiosk handler's filter rewrites the record it scrubs, so a handler after
    # it would only ever see scrubbed records.
    root.handlers.insert(0, raw)
    for name in SECRET_WATCH_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    yield directory
    root.removeHandler(raw)
    raw.close()
    for name in SECRET_WATCH_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET)
    logs.shutdown_logging()
