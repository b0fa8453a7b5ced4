"""One read of the 5,000-product menu through the kiosk's client, with the site's disk cache
(kiosk.diskcache) or without it: the memory bench's figure for the disk cache (test_terminal.py,
bench 5), and by hand.

    python -m tests.bench.drivers.menu_fetch serve N
        a demo backend with N extra products on 127.0.0.1; prints its base URL, serves until
        killed. Its menus carry an ETag and answer a matching If-None-Match with 304.
    python -m tests.bench.drivers.menu_fetch fetch BASE_URL CACHE_DIR|- [--stale] [--trace]
        `-`: no disk cache. With a folder, what it holds decides the case: empty, a cold read (the
        answer is written); a fresh entry, a warm read (no request); with --stale the clocks run an
        hour ahead, so an entry kept is revalidated (304, or 200 and replaced).

`fetch` prints one JSON line: the process's peak resident memory (VmHWM, KiB) once imported and
connected, and after the read; the read's seconds; requests sent, disk hits, revalidations; and
with --trace the traced Python allocations (tracemalloc, which slows everything) held at each
stage's start and at its peak, in KiB. Only the client's own stages are traced: decoding the
body, parsing the models, the disk cache's reads and writes.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import re
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench.pty_run import vm_hwm_kib

HOUR = 3600.0


class MenuETags:
    """ASGI: a 200 to a GET of a menu gets an ETag (a hash of its body); a GET that names it in
    If-None-Match gets 304 instead. The demo backend sends no ETag; a real server may."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/menus"):
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        body = b"".join(chunks)
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        asked = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        headers.append((b"etag", etag.encode()))
        if start["status"] == 200 and asked == etag:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def forget_etags(cache_dir: Path) -> None:
    """Give every entry kept in `cache_dir` an ETag the server never sent, as if the menu had
    changed since: the next revalidation is a 200 that replaces the entry. (The envelope's fields
    come before its data in every file the kiosk writes.)"""
    for path in cache_dir.glob("*.json"):
        raw = path.read_bytes()
        path.write_bytes(
            re.sub(rb'"etag":"[^"\\]*(?:\\.[^"\\]*)*"', rb'"etag":"\\"changed\\""', raw, count=1)
        )


def serve(products: int) -> None:
    from kiosk.demo import create_app
    from kiosk.demo.server import ServerThread

    app = create_app(":memory:", extra_products=products, rate_limit=100_000)
    with ServerThread(MenuETags(app)) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


class Stages:
    """Traced allocations (KiB) at the start and the peak of each outermost traced call."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, int]] = []
        self.depth = 0

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        @functools.wraps(inner)
        def traced(*args: Any, **kwargs: Any) -> Any:
            if self.depth:
                return inner(*args, **kwargs)
            self.depth += 1
            held, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            try:
                return inner(*args, **kwargs)
            finally:
                _, peak = tracemalloc.get_traced_memory()
                self.rows.append((label, held // 1024, peak // 1024))
                self.depth -= 1

        setattr(owner, name, traced)


async def fetch(base_url: str, cache_dir: str, stale: bool, trace: bool) -> dict[str, Any]:
    from kiosk.api import StorefrontClient
    from kiosk.demo.data import DOWNTOWN
    from kiosk.diskcache import DiskCache

    ahead = HOUR if stale else 0.0

    def clock() -> float:
        return time.time() + ahead

    # Only the client's clock runs ahead: every entry on disk looks stale to it, run after run.
    disk = None if cache_dir == "-" else DiskCache(Path(cache_dir))
    client = StorefrontClient(
        base_url, DOWNTOWN.api_key, clock=clock, disk_cache=disk, timeout=60, deadline=120
    )
    stages = Stages()
    try:
        await client.get_location(DOWNTOWN.id)  # connected, and the small reads' modules loaded
        ready = vm_hwm_kib()
        before = (client.stats.requests, client.stats.disk_hits, client.stats.revalidated)
        if trace:
            stages.wrap(StorefrontClient, "_decode", "decode the body (json.loads)")
            stages.wrap(StorefrontClient, "_parse", "parse the models")
            for name in ("head", "get", "put", "put_json", "refresh"):
                if hasattr(DiskCache, name):  # head and put_json: since the body is kept as it came
                    stages.wrap(DiskCache, name, f"disk {name}")
            tracemalloc.start()
        started = time.perf_counter()
        menus = await client.get_menus(DOWNTOWN.id)
        seconds = time.perf_counter() - started
        traced_peak = max((peak for _, _, peak in stages.rows), default=None)
        # The same count whichever way it was read (a read that lost products is no figure).
        products = sum(len(c.products) for m in menus.menus for c in m.categories)
        return {
            "disk": disk is not None,
            "ready_kib": ready,
            "peak_kib": vm_hwm_kib(),
            "seconds": round(seconds, 4),
            "products": products,
            "requests": client.stats.requests - before[0],
            "disk_hits": client.stats.disk_hits - before[1],
            "revalidated": client.stats.revalidated - before[2],
            "stages": stages.rows,
            "traced_peak_kib": traced_peak,
        }
    finally:
        await client.aclose()


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        serve(int(argv[1]))
        return 0
    if argv[:1] == ["fetch"] and len(argv) >= 3:
        result = asyncio.run(fetch(argv[1], argv[2], "--stale" in argv, "--trace" in argv))
        print(json.dumps(result), flush=True)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
