"""The log file and its redaction filter."""

from __future__ import annotations

import logging
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk import logs, paths

KEY = "sk_live_Zq8wX2nB5mK7pL0aR4tY"
CLIENT_SECRET = "pi_3Nx9Kd2eZvKYlo2C_secret_Hq2J7vFw8Lm3Nb5Rt1"


@pytest.fixture
def log_path(kiosk_home: Path) -> Iterator[Path]:
    path = logs.setup_logging("DEBUG", secrets=[KEY])
    yield path
    logs.shutdown_logging()


def _flush() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


def test_log_file_is_in_the_log_dir(log_path: Path) -> None:
    assert log_path == paths.log_dir() / "kiosk.log"
    logging.getLogger("kiosk.api").info("GET %s -> %d in %d ms", "/locations/x", 200, 12)
    _flush()
    assert "kiosk.api: GET /locations/x -> 200 in 12 ms" in log_path.read_text()


@pytest.mark.parametrize(
    ("message", "args"),
    [
        ("key is %s", (KEY,)),
        ("headers %r", ({"X-API-Key": KEY},)),
        ("intent %s", ({"clientSecret": CLIENT_SECRET},)),
        ("body %s", ('{"clientSecret": "cs_abcdefghij", "amount": 1250}',)),
        ("query %s", ("confirm?client_secret=whatever123&x=1",)),
        ("plain secret " + CLIENT_SECRET, ()),
        ("an unknown key that looks like one: %s", ("sk_demo_westside_4Hn8Tq1ZsY6eKd3M",)),
        ("authorization: %s", ("Bearer-abcdef",)),
    ],
)
def test_every_record_is_scrubbed(log_path: Path, message: str, args: tuple[object, ...]) -> None:
    logging.getLogger("anything.at.all").warning(message, *args)
    _flush()
    text = log_path.read_text()
    assert "[redacted]" in text
    for leaked in (
        KEY,
        CLIENT_SECRET,
        "cs_abcdefghij",
        "whatever123",
        "4Hn8Tq1Zs",
        "Bearer-abcdef",
    ):
        assert leaked not in text


def test_exceptions_and_stacks_are_scrubbed(log_path: Path) -> None:
    try:
        raise RuntimeError(f"server said {CLIENT_SECRET} for {KEY}")
    except RuntimeError:
        logging.getLogger("kiosk").exception("failed", stack_info=True)
    _flush()
    text = log_path.read_text()
    assert "RuntimeError: server said [redacted]" in text
    assert "Traceback" in text
    assert KEY not in text and CLIENT_SECRET not in text


def test_registered_secret_of_any_shape_is_scrubbed(log_path: Path) -> None:
    odd = "plainlookingtoken42"
    logs.register_secret(odd)
    logging.getLogger("kiosk").info("x %s y", odd)
    _flush()
    assert odd not in log_path.read_text()


def test_ordinary_text_is_kept(log_path: Path) -> None:
    line = "cart crt_123 total 1250 for Ada; keys pressed: F2, Enter"
    logging.getLogger("kiosk").info(line)
    _flush()
    assert line in log_path.read_text()


def test_filter_without_a_handler() -> None:
    f = logs.RedactionFilter([KEY])
    record = logging.LogRecord(
        "n", logging.INFO, __file__, 1, "k=%s s=%s", (KEY, CLIENT_SECRET), None
    )
    assert f.filter(record)
    assert record.args is None
    assert KEY not in record.getMessage() and CLIENT_SECRET not in record.getMessage()


def test_a_broken_format_string_neither_crashes_nor_leaks() -> None:
    f = logs.RedactionFilter()
    record = logging.LogRecord("n", logging.INFO, __file__, 1, "%d %d", (KEY,), None)
    assert f.filter(record)
    assert KEY not in record.getMessage()


def test_nothing_reaches_the_terminal(
    log_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A handler someone added on stderr (basicConfig) would draw over the TUI: setup removes it.
    root = logging.getLogger()
    stray = logging.StreamHandler(sys.stderr)
    root.addHandler(stray)
    logs.setup_logging("DEBUG")
    assert stray not in root.handlers
    logging.getLogger("kiosk").error("to the file only")
    warnings.warn("a library warning", UserWarning, stacklevel=1)
    _flush()
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    text = log_path.read_text()
    assert "to the file only" in text and "a library warning" in text


def test_setup_twice_keeps_one_handler(log_path: Path) -> None:
    logs.setup_logging("INFO")
    ours = [h for h in logging.getLogger().handlers if getattr(h, "_kiosk", False)]
    assert len(ours) == 1


def test_the_file_rotates(kiosk_home: Path) -> None:
    path = logs.setup_logging("INFO", max_bytes=2_000, backup_count=2)
    try:
        for i in range(200):
            logging.getLogger("kiosk").info("line %d %s", i, "x" * 40)
        _flush()
    finally:
        logs.shutdown_logging()
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["kiosk.log", "kiosk.log.1", "kiosk.log.2"]
    assert all(p.stat().st_size <= 2_100 for p in path.parent.iterdir())


def test_shutdown_restores_the_root_level(kiosk_home: Path) -> None:
    root = logging.getLogger()
    before = root.level
    logs.setup_logging("DEBUG")
    assert root.level == logging.DEBUG
    logs.shutdown_logging()
    assert root.level == before
    assert not any(getattr(h, "_kiosk", False) for h in root.handlers)


def test_httpx_repeats_are_quiet_unless_debug(kiosk_home: Path) -> None:
    path = logs.setup_logging("INFO")
    try:
        logging.getLogger("httpx").info("HTTP Request: GET https://x/api/v1/a")
        logging.getLogger("kiosk.api").info("GET /a -> 404 in 3 ms")
        _flush()
        text = path.read_text()
        assert "HTTP Request" not in text and "GET /a -> 404" in text
        logs.setup_logging("DEBUG")
        logging.getLogger("httpx").info("HTTP Request: GET https://x/api/v1/b")
        _flush()
        assert "api/v1/b" in path.read_text()
    finally:
        logs.shutdown_logging()
