"""`kill -9` of `kiosk demo-server` in the middle of 200 writes loses no acknowledged write.

A real process on 127.0.0.1 with a database file (synchronous=FULL, the default), 200 add-item
writes from a second thread, SIGKILL from a timer while they run, then a new server on the same
file: every write that was answered 2xx is there, and the database is whole.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from kiosk.demo.data import DOWNTOWN

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL"),
]
DT = DOWNTOWN.id
WRITES = 200
CARTS = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(db: Path, home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "KIOSK_HOME": str(home)}
    argv = [sys.executable, "-m", "kiosk", "demo-server", "--port", str(port), "--db", str(db)]
    proc = subprocess.Popen(
        [*argv, "--rate-limit", "off"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    origin = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(origin + "/demo/health", timeout=1).status_code == 200:
                return proc, origin + "/api/v1"
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the demo server did not start")
        time.sleep(0.05)


def test_kill_9_during_writes_loses_no_acknowledged_write(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    proc, base = start_server(db, tmp_path)
    headers = {"X-API-Key": DOWNTOWN.api_key}
    acknowledged: list[tuple[str, str]] = []
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=5) as c:
            carts = [
                c.post(
                    f"/locations/{DT}/ordering-sessions", json={"fulfillmentMethod": "pickup"}
                ).json()["cartId"]
                for _ in range(CARTS)
            ]

        def write_all() -> None:
            with httpx.Client(base_url=base, headers=headers, timeout=5) as c:
                for i in range(WRITES):
                    cart = carts[i % CARTS]
                    note = f"write {i}"
                    body = {"productId": "prd_cookie", "quantity": 1, "specialInstructions": note}
                    try:
                        r = c.post(f"/locations/{DT}/carts/{cart}/cart-item", json=body)
                    except httpx.HTTPError:
                        return  # the server is gone: nothing after this was acknowledged
                    if r.status_code == 200:
                        acknowledged.append((cart, note))

        writer = threading.Thread(target=write_all)
        writer.start()
        # Kill once a good part of the writes is through, while the rest are being sent.
        deadline = time.monotonic() + 60
        while len(acknowledged) < WRITES // 3 and time.monotonic() < deadline:
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        writer.join(timeout=30)
        assert proc.wait(timeout=10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
    assert WRITES // 3 <= len(acknowledged) < WRITES, len(acknowledged)

    again, base = start_server(db, tmp_path)
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=5) as c:
            found: set[tuple[str, str]] = set()
            for cart in carts:
                r = c.get(f"/locations/{DT}/carts/{cart}")
                assert r.status_code == 200, r.text
                for item in r.json()["items"]:
                    found.add((cart, item.get("specialInstructions")))
        missing = [w for w in acknowledged if w not in found]
        assert missing == [], f"{len(missing)} acknowledged writes lost"
    finally:
        again.send_signal(signal.SIGTERM)
        again.wait(timeout=10)
