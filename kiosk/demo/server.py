"""Running the demo backend as a real HTTP server (uvicorn): `kiosk demo-server`, and for tests.

run(...)                      blocks, serving until Ctrl-C; prints the base URL and the demo keys.
ServerThread(app)             uvicorn in a thread on a free loopback port (start/stop, or `with`).
serve_in_background(app)      async context manager yielding the base URL (ending in /api/v1).

Limits on every resource a client can hold (`Limits`, `server_config`): open connections (at the
cap, the oldest connection still sending its headers is closed to make room: idle half-sent
requests cannot lock a real client out), a header read timeout (uvicorn has none:
`DemoH11Protocol`), the keep-alive, the size of a request's head (h11) and body (kiosk.demo.edge,
with its read timeout), and logs that cannot fill a disk (`RateLimitedLog`). Framing as RFC 9112
wants it (`FramingConnection`, `DemoH11Protocol.eof_received`): a request framed two ways is
refused and its connection closed, a cut body is refused; what this layer answers itself is the 2.0
envelope with `X-Request-Id` (`HttpGuard` for the 500 and 503 uvicorn would send as text).
X-Forwarded-For is believed only from the proxies named in `trusted_proxies` (none by default: a
client's own header would pick its rate-limit bucket). `kiosk demo-server` also sets umask 077:
every file and folder it makes is private.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from kiosk.demo import data

API_PREFIX = "/api/v1"


@dataclass(frozen=True)
class Limits:
    """What one server lets its clients hold. The defaults are the demo-server's."""

    max_connections: int = 512  # open at once; at the cap the oldest still-sending one is closed
    header_timeout: float = 10.0  # seconds to send a request's head, from its first byte
    keep_alive: float = 5.0  # an idle kept-alive connection is closed after this
    max_head: int = 16 * 1024  # bytes of request line and headers
    log_per_minute: int = 20  # records of one logger per minute; the rest are counted


def _envelope(status: int, code: str, message: str) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """The 2.0 error envelope and its headers (`X-Request-Id`, `Connection: close`), for what the
    HTTP layer answers itself: bad framing (no path is known then), a cut body, a busy or failed
    server. The connection closes after it: what follows on it cannot be trusted."""
    request_id = "req_" + secrets.token_hex(8)
    body = json.dumps(
        {"code": code, "message": message, "requestId": request_id, "details": {}}
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"x-request-id", request_id.encode()),
        (b"connection", b"close"),
        (b"content-length", str(len(body)).encode()),
    ]
    if status == 503:
        headers.append((b"retry-after", b"1"))
    return body, headers


BOTH_FRAMINGS = "Content-Length and Transfer-Encoding together are refused"
TWO_LENGTHS = "The request's Content-Length headers disagree"
CUT_BODY = "The body was cut off before its end"
NOT_HTTP = "The request is not valid HTTP"


class FramingConnection(h11.Connection):
    """h11 with RFC 9112 section 6.1 kept: a request that carries both Content-Length and
    Transfer-Encoding is refused (h11 alone reads it by its chunks and keeps the connection open,
    so bytes after it run as a second request: request smuggling behind a proxy that reads the
    length). Two differing Content-Lengths h11 refuses itself. `refusal` says why, for the 400."""

    refusal = ""

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            self.refusal = TWO_LENGTHS if "conflicting Content-Length" in str(exc) else NOT_HTTP
            raise
        if isinstance(event, h11.Request):
            names = {name for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                self.refusal = BOTH_FRAMINGS
                raise h11.RemoteProtocolError(BOTH_FRAMINGS, error_status_hint=400)
        return event


class DemoH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a connection cap, a header read timeout, RFC 9112's framing
    rules (`FramingConnection`), a cut body answered 400, and every error of its own in the 2.0
    envelope with `X-Request-Id`."""

    limits = Limits()
    conn: FramingConnection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = FramingConnection(h11.SERVER, self.limits.max_head)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        waiting = _waiting(self.server_state)
        if len(self.connections) > self.limits.max_connections:
            # Make room: the oldest connection that has not finished sending its headers goes.
            if waiting:
                oldest, _ = waiting.popitem(last=False)
                oldest.transport.close()
            else:
                self.transport.close()
                return
        self._await_head()

    def _await_head(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(
                self.limits.header_timeout, self._head_too_slow
            )
            _waiting(self.server_state)[self] = None

    def _head_done(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        _waiting(self.server_state).pop(self, None)

    def _head_too_slow(self) -> None:
        self._header_timer = None
        _waiting(self.server_state).pop(self, None)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing():
            self._head_done()
        elif self.conn.their_state is h11.IDLE:
            self._await_head()  # (the next request of a kept-alive connection began)
        else:
            self._head_done()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)

    # asyncio.Protocol's own signature: True keeps the transport open for the answer.
    def eof_received(self) -> bool | None:  # type: ignore[override]
        """The client closed its side. Between requests the connection just closes (uvicorn's
        way). Before the end of a body, the request is cut: the app is told the client left (the
        edge then commits nothing) and a client that still reads gets a 400. After a whole
        request, its answer is still owed: sent, then the connection closes."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return None
        if self.conn.their_state is h11.SEND_BODY and not cycle.response_started:
            cycle.disconnected = True
            cycle.message_event.set()
            self.conn.refusal = CUT_BODY
            self.send_400_response(CUT_BODY)
            return None
        cycle.keep_alive = False
        return True

    def send_400_response(self, msg: str) -> None:
        # The same envelope as every other error (uvicorn's is plain text), saying what was wrong
        # with the framing where it is known.
        body, headers = _envelope(400, "VALIDATION_ERROR", self.conn.refusal or NOT_HTTP)
        self.conn.refusal = ""
        try:
            for event in (
                h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:
            pass  # a response had begun: nothing more can be said
        self.transport.close()


class HttpGuard:
    """What the HTTP layer would answer in plain text, answered in the envelope instead: 503 past
    `cap` requests in the app at once (uvicorn's own cap is left off), and 500 when the app fails
    or ends before it answered."""

    def __init__(self, app: Any, cap: int) -> None:
        self.app = app
        self.cap = cap
        self.running = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.running >= self.cap:
            await self._answer(send, 503, "DEPENDENCY_UNAVAILABLE", "The server is busy; retry")
            return
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        self.running += 1
        try:
            await self.app(scope, receive, watched)
        except Exception:
            if started:
                raise  # uvicorn cuts the connection: a half-sent answer cannot be mended
            logging.getLogger("kiosk.demo").exception("demo backend: the app failed")
        finally:
            self.running -= 1
        if not started:
            await self._answer(send, 500, "INTERNAL_ERROR", "Unexpected server error")

    @staticmethod
    async def _answer(send: Any, status: int, code: str, message: str) -> None:
        body, headers = _envelope(status, code, message)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})


def _waiting(state: Any) -> OrderedDict[DemoH11Protocol, None]:
    """The connections of one server still sending their request head, oldest first."""
    waiting: OrderedDict[DemoH11Protocol, None] | None = getattr(state, "kiosk_waiting", None)
    if waiting is None:
        waiting = OrderedDict()
        state.kiosk_waiting = waiting
    return waiting


class RateLimitedLog(logging.Filter):
    """At most `per_minute` records a minute pass (per logger it is attached to); the first one
    after a quiet spell says how many were dropped. A flood of bad requests cannot fill a disk."""

    def __init__(self, per_minute: int) -> None:
        super().__init__()
        self.per_minute = per_minute
        self._window = 0.0
        self._passed = 0
        self._dropped = 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        with self._lock:
            if now - self._window >= 60.0:
                self._window, self._passed = now, 0
                if self._dropped:
                    record.msg = f"({self._dropped} log records dropped) {record.getMessage()}"
                    record.args = ()
                    self._dropped = 0
            if self._passed >= self.per_minute:
                self._dropped += 1
                return False
            self._passed += 1
            return True


NOISY_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "asyncio", "kiosk.demo")


def limit_logs(per_minute: int) -> None:
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimitedLog) for f in logger.filters):
            logger.addFilter(RateLimitedLog(per_minute))


def server_config(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    limits: Limits | None = None,
    trusted_proxies: str | None = None,
    log_level: str = "warning",
    lifespan: Literal["auto", "on", "off"] = "auto",
) -> uvicorn.Config:
    """The uvicorn settings of every demo server: the limits above, proxies trusted only when
    named (`trusted_proxies`: uvicorn's forwarded_allow_ips, e.g. "10.0.0.5"; None: no one)."""
    limits = limits or Limits()
    protocol = type("BoundDemoH11Protocol", (DemoH11Protocol,), {"limits": limits})
    limit_logs(limits.log_per_minute)
    return uvicorn.Config(
        HttpGuard(app, limits.max_connections + 16),
        host=host,
        port=port,
        http=protocol,
        ws="none",
        lifespan=lifespan,
        log_level=log_level,
        access_log=False,
        proxy_headers=trusted_proxies is not None,
        forwarded_allow_ips=trusted_proxies or "",
        server_header=False,
        timeout_keep_alive=int(max(1, limits.keep_alive)),
        h11_max_incomplete_event_size=limits.max_head,
        # No limit_concurrency: uvicorn's 503 is plain text; HttpGuard's cap answers the envelope.
        # Sockets accepted in one burst before the cap above can act: cap + backlog stays under a
        # 1,024 open-file limit (an accept past it fails, and asyncio logs each failure).
        backlog=128,
        timeout_graceful_shutdown=5,
    )


def _process_limits() -> None:
    """Room for the connection cap under the open-file limit (raised to its hard maximum, up to
    8,192), and a log handler that fails (no file descriptor, a full disk) stays silent instead of
    printing a traceback to stderr per record."""
    logging.raiseExceptions = False
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ImportError, ValueError, OSError):  # Windows, or a limit we may not raise
        pass


def _private_files(db_path: Path) -> None:
    """umask 077 for this process (the log's rotations, SQLite's -wal and -shm, anything later),
    and the log files and folders already there made private (an older start left them 0644)."""
    os.umask(0o077)
    for handler in logging.getLogger().handlers:
        name = getattr(handler, "baseFilename", None)
        if not name:
            continue
        log_path = Path(name)
        for path in (log_path.parent, *log_path.parent.glob(log_path.name + "*")):
            try:
                if path.exists() and path.stat().st_uid == os.getuid():
                    path.chmod(0o700 if path.is_dir() else 0o600)
            except OSError:
                pass
    if db_path.parent.exists() and db_path.parent.stat().st_uid == os.getuid():
        db_path.parent.chmod(0o700)


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
    counter_token: str | None = None,
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
    if counter_token:
        # Staff open it on their own device: the one secret this server prints.
        print(f"  counter:  {base_url}/demo/counter?token={counter_token}", file=out)
    out.flush()  # a pipe (a test, a supervisor) sees it before uvicorn starts serving


def run(
    host: str = "127.0.0.1",
    port: int = 8765,
    db_path: str | Path | None = None,
    *,
    log_level: str = "warning",
    limits: Limits | None = None,
    trusted_proxies: str | None = None,
    **app_kwargs: Any,
) -> None:
    """Serve the demo backend until interrupted. app_kwargs go to create_app.

    trusted_proxies: the proxies whose X-Forwarded-For is believed (default: the environment's
    KIOSK_DEMO_TRUSTED_PROXIES, else none)."""
    from kiosk.demo.app import create_app, quiet_injected_faults

    quiet_injected_faults()
    path = Path(db_path) if db_path is not None else default_db_path()
    _private_files(path)
    _process_limits()
    if trusted_proxies is None:
        trusted_proxies = os.environ.get("KIOSK_DEMO_TRUSTED_PROXIES") or None
    display_host = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        display_host = "127.0.0.1"
    base_url = f"http://{display_host}:{port}"
    app_kwargs.setdefault("public_base_url", None)
    # Loaded (and checked) once: the app seeds it, the banner prints its keys.
    restaurant = data.load(app_kwargs.pop("menu", None))
    app = create_app(path, menu=restaurant, **app_kwargs)
    banner(base_url, path, restaurant=restaurant, counter_token=app.state.backend.counter_token)
    config = server_config(
        app,
        host,
        port,
        limits=limits,
        trusted_proxies=trusted_proxies,
        log_level=log_level,
        lifespan="off",
    )
    try:
        uvicorn.Server(config).run()
    finally:
        app.state.backend.close()


class ServerThread:
    """uvicorn serving `app` from a daemon thread. Port 0 picks a free port.

    with ServerThread(app) as server:
        httpx.get(server.base_url + "/merchant/...")   # base_url ends with /api/v1
    """

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        limits: Limits | None = None,
        trusted_proxies: str | None = None,
    ) -> None:
        self.app = app
        self.host = host
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        config = server_config(
            app, host, self.port, limits=limits, trusted_proxies=trusted_proxies, lifespan="off"
        )
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
