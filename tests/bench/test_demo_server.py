"""Benchmark 7: requests per second of `kiosk demo-server`, a real process on 127.0.0.1.

2,000 GET menus and 500 add-item writes (8 at a time), against a bare Starlette app on the same
uvicorn answering a fixed JSON body: the baseline of the same run. Writes are measured with
synchronous=FULL (the default: acknowledged means on disk) and NORMAL. Bounded in count and time,
loopback only.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from kiosk.demo.data import DOWNTOWN

from .conftest import Figures

READS = 2000
WRITES = 500
CONCURRENCY = 8
DT = DOWNTOWN.id

BARE = textwrap.dedent(
    """
    import sys, uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    async def menus(request):
        return JSONResponse({"menus": [], "popularProducts": []})
    async def health(request):
        return JSONResponse({"ok": True})
    app = Starlette(routes=[Route("/api/v1/locations/{x}/menus", menus),
                            Route("/demo/health", health)])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    """
)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def _serving(argv: list[str], port: int, home: Path) -> Iterator[str]:
    env = {**os.environ, "KIOSK_HOME": str(home)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    origin = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(origin + "/demo/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        yield origin + "/api/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def _rate(base: str, requests: list[tuple[str, str, dict[str, object] | None]]) -> float:
    """Requests per second, CONCURRENCY at a time; every answer must be a 200."""
    queue = list(reversed(requests))
    headers = {"X-API-Key": DOWNTOWN.api_key}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10) as client:

        async def worker() -> None:
            while queue:
                method, path, body = queue.pop()
                r = await client.request(method, path, json=body)
                assert r.status_code == 200, r.text[:200]

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return len(requests) / (time.perf_counter() - started)


def _reads() -> list[tuple[str, str, dict[str, object] | None]]:
    return [("GET", f"/locations/{DT}/menus", None)] * READS


async def _writes(base: str) -> list[tuple[str, str, dict[str, object] | None]]:
    headers = {"X-API-Key": DOWNTOWN.api_key}
    async with httpx.AsyncClient(base_url=base, headers=headers) as c:
        carts = []
        for _ in range(WRITES // 25):  # a cart holds at most 50 lines
            r = await c.post(
                f"/locations/{DT}/ordering-sessions", json={"fulfillmentMethod": "pickup"}
            )
            carts.append(r.json()["cartId"])
    return [
        (
            "POST",
            f"/locations/{DT}/carts/{carts[i % len(carts)]}/cart-item",
            {"productId": "prd_cookie", "quantity": 1, "specialInstructions": f"n{i}"},
        )
        for i in range(WRITES)
    ]


def test_demo_server_requests_per_second(figures: Figures, tmp_path: Path) -> None:
    port = _port()
    with _serving([sys.executable, "-c", BARE, str(port)], port, tmp_path) as base:
        bare = asyncio.run(_rate(base, _reads()))
    results: dict[str, float] = {}
    for sync in ("full", "normal"):
        port = _port()
        db = tmp_path / f"{sync}.sqlite3"
        argv = [sys.executable, "-m", "kiosk", "demo-server", "--port", str(port), "--db", str(db)]
        argv += ["--rate-limit", "off", "--synchronous", sync]
        with _serving(argv, port, tmp_path) as base:
            if sync == "full":
                results["reads"] = asyncio.run(_rate(base, _reads()))
            results[sync] = asyncio.run(_rate(base, asyncio.run(_writes(base))))
    figures.add(
        "7",
        "demo-server GET menus per second (8 at a time) vs a bare Starlette app",
        results["reads"],
        "req/s",
        baseline=bare,
        note=f"{READS} requests",
    )
    figures.add(
        "7",
        "demo-server add-item writes per second, synchronous=FULL (default)",
        results["full"],
        "req/s",
        note=f"{WRITES} writes",
    )
    figures.add(
        "7",
        "demo-server add-item writes per second, synchronous=NORMAL",
        results["normal"],
        "req/s",
        note=f"{WRITES} writes",
    )
