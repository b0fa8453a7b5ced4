"""Benchmark 13: 1,100 idle half-sent requests against `kiosk demo-server` (issue 21).

Before, they made the server unreachable and its stderr grew by 550 MB in 80 s of logged errors.
Here a real `kiosk demo-server` process on 127.0.0.1 (its stderr to a file; 1,024 open files, a
common default, which 1,100 connections exceed, soft and hard), 1,100 connections that
each send a request's first line and one header and then nothing, held for HOLD_S seconds, while a
real client asks for /demo/health every half second. Printed: the real client's worst wait and its
failures (goal: none, each under 2 s), how many idle connections the server had closed by the end
(the cap evicts the oldest half-sent ones; the header timeout closes the rest), and the bytes
stderr grew (goal: under 64 KB). Bounded: loopback only, HOLD_S seconds, one process.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .conftest import Figures

IDLE = 1100
HOLD_S = 20.0


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _server_files() -> None:
    """The server's open-file limit: 1,024, soft and hard, as on many desktops (this machine's may
    be higher; the server could not raise it)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), min(1024, hard)))


def test_idle_half_sent_connections(figures: Figures, tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < IDLE + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, IDLE + 500), hard))
    port = _port()
    err = tmp_path / "stderr.log"
    env = {**os.environ, "KIOSK_HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "kiosk", "demo-server", "--port", str(port), "--db"]
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [*argv, str(tmp_path / "demo.sqlite3")],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=_server_files,
        )
    url = f"http://127.0.0.1:{port}/demo/health"
    idle: list[socket.socket] = []
    waits: list[float] = []
    failures = 0
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        size_at_start = err.stat().st_size
        for _ in range(IDLE):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(
                b"POST /api/v1/storefront/locations/loc_downtown/ordering-sessions HTTP/1.1\r\n"
            )
            s.sendall(b"Host: 127.0.0.1\r\n")
            idle.append(s)
        ends = time.monotonic() + HOLD_S
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < ends:
                started = time.monotonic()
                try:
                    ok = client.get(url).status_code == 200
                except httpx.HTTPError:
                    ok = False
                waits.append(time.monotonic() - started)
                failures += not ok
                time.sleep(0.5)
        closed = 0
        for s in idle:
            s.settimeout(0.01)
            try:
                closed += s.recv(1) == b""
            except TimeoutError:
                pass
            except OSError:
                closed += 1
        grown = err.stat().st_size - size_at_start
    finally:
        for s in idle:
            s.close()
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()  # (the server before issue 21 did not stop with 1,100 sockets held)
            proc.wait(timeout=15)
    tail = err.read_bytes()[size_at_start:][:600].decode("utf-8", "replace")
    print(f"\nstderr, first of what grew: {tail!r}")
    worst = max(waits)
    figures.add(
        "13",
        f"real client, worst wait during {IDLE:,} idle half-sent requests ({len(waits)} asks)",
        worst * 1000,
        "ms",
        goal="< 2000, 0 failures",
        passed=worst < 2.0 and failures == 0,
        note=f"{failures} failures",
    )
    figures.add(
        "13",
        f"idle connections closed by the server within {HOLD_S:.0f} s",
        closed,
        f"of {IDLE}",
    )
    figures.add(
        "13",
        f"stderr growth over {HOLD_S:.0f} s",
        grown,
        "bytes",
        goal="< 65536",
        passed=grown < 65536,
    )
