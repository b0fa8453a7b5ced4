"""`kiosk serve`: a real textual-serve process on 127.0.0.1 that publishes `kiosk demo`."""

from __future__ import annotations

import base64
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _non_loopback_address() -> str | None:
    # A UDP "connect" sends nothing; it only picks the interface a packet would leave by.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = str(s.getsockname()[0])
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.mark.slow
def test_serve_publishes_kiosk_demo_on_loopback(kiosk_home: Path) -> None:
    pytest.importorskip("textual_serve")
    port = _free_port()
    env = {**os.environ, "KIOSK_HOME": str(kiosk_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk", "serve", "--port", str(port), "--kiosk"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    try:
        page = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)  # waiting for a server process to listen, not for a UI
        assert page is not None, "kiosk serve did not start listening"
        assert page.status_code == 200
        # The page connects a websocket (to the address it was loaded from: kiosk/web) that runs
        # `<python> -m kiosk demo --kiosk` per browser tab; tests/browser drives it for real.
        assert 'data-session-websocket-url=""' in page.text
        assert "<title>Kiosk demo</title>" in page.text
        assert "googleapis" not in page.text  # the font is served from this machine
        # An icon in the page itself (before: the browser asked for /favicon.ico and got a 404);
        # one that asks there anyway gets the same icon.
        icon = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)"', page.text)
        assert icon is not None and icon.group(1).startswith("data:image/svg+xml;base64,")
        svg = base64.b64decode(icon.group(1).split(",", 1)[1])
        assert svg.startswith(b"<svg") and b"http://www.w3.org/2000/svg" in svg
        favicon = httpx.get(f"http://127.0.0.1:{port}/favicon.ico", timeout=5)
        assert favicon.status_code == 200 and favicon.content == svg
        assert favicon.headers["content-type"].startswith("image/svg+xml")
        # Only loopback: the server is not reachable on this machine's other address, if any.
        other = _non_loopback_address()
        if other is not None:
            with pytest.raises(OSError), socket.create_connection((other, port), timeout=1):
                pass
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert f"serving `kiosk demo` on http://127.0.0.1:{port}" in out
