"""Issue 21, the resources of a real server (uvicorn on 127.0.0.1, started and stopped here):
half-sent requests, framing errors, absolute-form targets, proxy headers, the body read timeout,
logs that cannot fill a disk, and the modes of what `kiosk demo-server` makes."""

from __future__ import annotations

import logging
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from kiosk.demo import create_app, edge
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.server import Limits, RateLimitedLog, ServerThread

DT = DOWNTOWN.id


def raw(port: int, data: bytes, timeout: float = 5.0, *, first: bool = False) -> bytes:
    """What the server answers `data` with (until it closes; `first`: its first response, whole:
    the head and a body may come in separate packets)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
            if first and _whole_response(out):
                break
        return out


def _whole_response(out: bytes) -> bool:
    head, sep, body = out.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return True


def test_half_sent_requests_cannot_lock_a_real_client_out() -> None:
    app = create_app(rate_limit=None)
    limits = Limits(max_connections=20, header_timeout=1.0)
    idle: list[socket.socket] = []
    with ServerThread(app, limits=limits) as server:
        try:
            for _ in range(60):  # three times the cap, each stopping short of the end of its head
                s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                s.sendall(b"GET /demo/health HTTP/1.1\r\nHost: x\r\nX-Slow: 1")
                idle.append(s)
            started = time.monotonic()
            r = httpx.get(server.url + "/demo/health", timeout=5)
            assert r.status_code == 200 and time.monotonic() - started < 2
            time.sleep(limits.header_timeout + 0.5)
            closed = 0
            for s in idle:
                s.settimeout(2)
                try:
                    closed += s.recv(1) == b""
                except OSError:
                    closed += 1
            assert closed == len(idle)  # evicted at the cap, or timed out on their head
        finally:
            for s in idle:
                s.close()
    app.state.backend.close()


def test_bad_framing_and_absolute_form_answer_json() -> None:
    app = create_app(rate_limit=None)
    with ServerThread(app) as server:
        bad = raw(server.port, b"NOT HTTP AT ALL\r\n\r\n")
        head, _, body = bad.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head.lower()
        assert b'"code": "VALIDATION_ERROR"' in body and b"requestId" in body
        absolute = raw(
            server.port,
            f"GET http://elsewhere.example/api/v1/storefront/locations/{DT} HTTP/1.1\r\n"
            "Host: elsewhere.example\r\nConnection: close\r\n\r\n".encode(),
        )
        assert absolute.startswith(b"HTTP/1.1 200"), absolute[:200]
        star = raw(server.port, b"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert star.startswith(b"HTTP/1.1 400") and b"application/json" in star.lower()
        huge = raw(
            server.port,
            b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: "
            + b"a" * 40_000
            + b"\r\n\r\n",
        )
        assert huge.startswith(b"HTTP/1.1 400") and b"VALIDATION_ERROR" in huge
    app.state.backend.close()


@pytest.mark.parametrize(("trusted", "refused"), [(None, True), ("127.0.0.1", False)])
def test_forwarded_for_is_believed_only_from_a_configured_proxy(
    trusted: str | None, refused: bool
) -> None:
    app = create_app(rate_limit=3)
    with ServerThread(app, trusted_proxies=trusted) as server:
        statuses = [
            httpx.get(
                f"{server.base_url}/storefront/locations/{DT}",
                headers={"X-Forwarded-For": f"198.51.100.{i}"},
                timeout=5,
            ).status_code
            for i in range(6)
        ]
    app.state.backend.close()
    assert (429 in statuses) is refused, statuses


def test_a_body_that_never_arrives_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edge, "BODY_TIMEOUT", 0.5)
    app = create_app(rate_limit=None)
    with ServerThread(app) as server:
        started = time.monotonic()
        out = raw(
            server.port,
            f"POST /api/v1/storefront/locations/{DT}/distance HTTP/1.1\r\nHost: x\r\n"
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lat":'.encode(),
            first=True,
        )
        assert out.startswith(b"HTTP/1.1 400"), out[:200]
        assert b"did not arrive in time" in out and time.monotonic() - started < 3
    app.state.backend.close()


def test_a_flood_of_log_records_is_cut_to_a_few_a_minute() -> None:
    logger = logging.getLogger("kiosk.demo.test-flood")
    logger.propagate = False
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger.addHandler(Keep())
    limiter = RateLimitedLog(per_minute=20)
    logger.addFilter(limiter)
    for i in range(10_000):
        logger.warning("Invalid HTTP request received. %d", i)
    assert len(seen) == 20
    limiter._window -= 61  # a minute later
    logger.warning("again")
    assert seen[-1] == "(9980 log records dropped) again"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_demo_server_makes_private_folders_and_files(tmp_path: Path) -> None:
    with ServerThread(create_app()) as probe:
        port = probe.port
    home = tmp_path / "home"
    env = {**os.environ, "KIOSK_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk", "demo-server", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None
            try:
                if httpx.get(f"http://127.0.0.1:{port}/demo/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.05)
        status = Path(f"/proc/{proc.pid}/status").read_text()
        assert "Umask:\t0077" in status
        made = [p for p in home.rglob("*")]
        assert made
        for path in made:
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
