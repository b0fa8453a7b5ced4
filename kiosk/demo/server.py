"""Running the demo backend as a real HTTP server (uvicorn): `kiosk demo-server`, and for tests.

run(...)                      blocks, serving until Ctrl-C; prints the base URL and the demo keys.
ServerThread(app)             uvicorn in a thread on a free loopback port (start/stop, or `with`).
serve_in_background(app)      async context manager yielding the base URL (ending in /api/v1).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import uvicorn

from kiosk.demo import data

API_PREFIX = "/api/v1"


def default_db_path() -> Path:
    """The demo database: $KIOSK_DATA_DIR, else $KIOSK_HOME/data, else the platformdirs data dir."""
    env = os.environ.get("KIOSK_DATA_DIR")
    if env:
        return Path(env) / "demo.sqlite3"
    home = os.environ.get("KIOSK_HOME")
    if home:
        return Path(home) / "data" / "demo.sqlite3"
    from platformdirs import user_data_dir

    return Path(user_data_dir("kiosk", appauthor=False)) / "demo.sqlite3"


def banner(
    base_url: str,
    db_path: str | Path,
    out: TextIO = sys.stdout,
    restaurant: data.Restaurant | None = None,
) -> None:
    """What `kiosk demo-server` prints: where it listens and the (documented, demo-only) keys."""
    r = restaurant if restaurant is not None else data.default()
    print(f"Storefront demo backend: {base_url}{API_PREFIX}", file=out)
    print(f"  database: {db_path}", file=out)
    print(f"  menu:     {r.source} ({r.merchant_name})", file=out)
    print(f"  merchant: {r.merchant_slug}", file=out)
    for loc in r.visible_locations:
        print(f"  {loc.id} ({loc.slug}, {loc.timezone}): X-API-Key {loc.api_key}", file=out)
    print(f"  faults:   {base_url}/demo/faults (loopback only)", file=out)
    out.flush()  # a pipe (a test, a supervisor) sees it before uvicorn starts serving


def run(
    host: str = "127.0.0.1",
    port: int = 8765,
    db_path: str | Path | None = None,
    *,
    log_level: str = "warning",
    **app_kwargs: Any,
) -> None:
    """Serve the demo backend until interrupted. app_kwargs go to create_app."""
    from kiosk.demo.app import create_app, quiet_injected_faults

    quiet_injected_faults()
    path = Path(db_path) if db_path is not None else default_db_path()
    display_host = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        display_host = "127.0.0.1"
    base_url = f"http://{display_host}:{port}"
    app_kwargs.setdefault("public_base_url", None)
    # Loaded (and checked) once: the app seeds it, the banner prints its keys.
    restaurant = data.load(app_kwargs.pop("menu", None))
    app = create_app(path, menu=restaurant, **app_kwargs)
    banner(base_url, path, restaurant=restaurant)
    try:
        uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)
    finally:
        app.state.backend.close()


class ServerThread:
    """uvicorn serving `app` from a daemon thread. Port 0 picks a free port.

    with ServerThread(app) as server:
        httpx.get(server.base_url + "/merchant/...")   # base_url ends with /api/v1
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.host = host
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + API_PREFIX

    def start(self, timeout: float = 10.0) -> ServerThread:
        from kiosk.demo.app import quiet_injected_faults

        quiet_injected_faults()
        self._thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": [self._sock]},
            daemon=True,
            name="demo-server",
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the demo server did not start")
            time.sleep(0.005)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@asynccontextmanager
async def serve_in_background(
    app: Any, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[str]:
    """Serve `app` on a real socket for the block; yields the base URL (ending in /api/v1)."""
    import asyncio

    server = ServerThread(app, host, port)
    await asyncio.to_thread(server.start)
    try:
        yield server.base_url
    finally:
        await asyncio.to_thread(server.stop)
