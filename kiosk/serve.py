"""`kiosk serve`: the demo in a browser (textual-serve), each browser tab a terminal of its own.

Imported by `kiosk serve` only (aiohttp and textual-serve are the `serve` extra).

- A tab's terminal id survives a reload: the page keeps a tab id (sessionStorage) and the server
  joins it with a random cookie of this browser (HttpOnly, so a page cannot read it, and a guessed
  tab id reaches nobody else's order). The session runs `kiosk demo` as that terminal
  (KIOSK_TERMINAL_ID), which keeps its cart when the browser goes (KioskApp.browser_session), so
  a reload or a dropped connection resumes the order.
- The same tab again (a reload) waits for its previous process to leave first: one kiosk a
  terminal (kiosk.terminal's lock) without a refusal.
- No request leaves the machine: the page uses the font textual-serve ships (kiosk/web), and its
  icon is in the page (a data URI of kiosk/web/favicon.svg; /favicon.ico answers it too).
- Without `--public-url` the page connects back to the address it was loaded from (a tunnel or a
  proxy on another port works); with it, to that URL.
- A session's terminal folder is removed when it ends with no order to resume; folders of
  sessions whose order was never resumed are removed after a day (at the next `kiosk serve`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from kiosk.ordering.recent import RECENT_FILE

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parent / "web"
FAVICON = TEMPLATES / "favicon.svg"
COOKIE = "kiosk_browser"
COOKIE_AGE = 30 * 24 * 3600
_TOKEN = re.compile(r"[0-9a-f]{32}")
# A browser terminal's id: "web-" and a hash of the cookie and the tab (kiosk.config's form).
TERMINAL_PREFIX = "web-"
# Files a kiosk leaves in its terminal folder that hold nothing to come back for.
# What a tab's folder holds besides an order to resume: the lock, and the last number for
# "Missed your order number?" (which a closed tab has nobody left to show to).
_LOCK_FILES = {"kiosk.lock", "kiosk.json", RECENT_FILE}
STALE_AFTER = 24 * 3600.0


def terminal_for(browser: str | None, tab: str | None) -> str:
    """The terminal id of a browser tab; a fresh one when either part is missing or malformed."""
    if browser and tab and _TOKEN.fullmatch(browser) and _TOKEN.fullmatch(tab):
        digest = hashlib.sha256(f"{browser}:{tab}".encode()).hexdigest()[:20]
        return TERMINAL_PREFIX + digest
    return TERMINAL_PREFIX + secrets.token_hex(10)


def forget_if_done(folder: Path) -> bool:
    """Remove a browser terminal's folder unless it holds an order to resume."""
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError:
        return False
    if names - _LOCK_FILES:
        return False  # an order to resume (the resume file), or something else to keep
    shutil.rmtree(folder, ignore_errors=True)
    return True


def prune(terminals: Path, *, now: float | None = None, older_than: float = STALE_AFTER) -> int:
    """Remove browser terminals' folders nobody came back to (their carts expired meanwhile)."""
    now = time.time() if now is None else now
    removed = 0
    for folder in terminals.glob(TERMINAL_PREFIX + "*"):
        try:
            stale = now - folder.stat().st_mtime > older_than
        except OSError:
            continue
        if stale or forget_if_done(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


class _Session(AppService):
    """One tab's `kiosk demo` process, as its terminal."""

    def __init__(self, command: str, terminal_id: str, **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self.terminal_id = terminal_id
        self.ended = asyncio.Event()

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = super()._build_environment(width, height)
        env["KIOSK_TERMINAL_ID"] = self.terminal_id
        return env

    async def stop(self) -> None:
        await super().stop()
        process = self._process
        if process is not None and process.returncode is None:
            # Its lock is the kernel's until the process is gone: wait for that.
            try:
                await asyncio.wait_for(process.wait(), timeout=10)
            except TimeoutError:
                process.kill()
                await process.wait()
        self.ended.set()


class KioskServer(Server):
    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        title: str,
        terminals: Path,
        public_url: str | None = None,
    ) -> None:
        super().__init__(
            command,
            host=host,
            port=port,
            title=title,
            public_url=public_url.rstrip("/") if public_url else None,
            templates_path=TEMPLATES,
        )
        self.explicit_url = public_url is not None
        self.terminals = terminals
        self.sessions: dict[str, _Session] = {}
        self.favicon = FAVICON.read_bytes()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.router.add_get("/ws/{tab}", self.handle_websocket, name="tab-websocket")
        # The page names its icon inline; a browser that asks here anyway gets it, not a 404.
        app.router.add_get("/favicon.ico", self.handle_favicon, name="favicon")
        return app

    async def handle_favicon(self, request: web.Request) -> web.Response:
        return web.Response(
            body=self.favicon,
            content_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    async def on_startup(self, app: web.Application) -> None:
        removed = prune(self.terminals)
        if removed:
            log.info("removed %d browser terminals nobody came back to", removed)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        browser = request.cookies.get(COOKIE, "")
        if self.explicit_url:
            static = f"{self.public_url}/static/"
            scheme = "wss:" if self.public_url.startswith("https") else "ws:"
            websocket = scheme + self.public_url.split(":", 1)[1] + "/ws"
        else:
            static, websocket = "static/", ""  # the page's own address (see the template)
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": websocket,
            "config": {"static": {"url": static}},
            "application": {"name": self.title},
            "favicon": "data:image/svg+xml;base64," + base64.b64encode(self.favicon).decode(),
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        if not _TOKEN.fullmatch(browser):
            response.set_cookie(
                COOKIE,
                secrets.token_hex(16),
                max_age=COOKIE_AGE,
                httponly=True,
                samesite="Strict",
                secure=request.secure,
            )
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        terminal = terminal_for(request.cookies.get(COOKIE), request.match_info.get("tab"))
        previous = self.sessions.get(terminal)
        if previous is not None:
            # The same tab again (a reload, a reconnect): the old session leaves first.
            await previous.stop()
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        session: _Session | None = None
        try:
            await websocket.prepare(request)
            session = _Session(
                self.command,
                terminal,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self.sessions[terminal] = session
            await session.start(width, height)
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception:
            log.exception("browser session %s failed", terminal)
        finally:
            if session is not None:
                await session.stop()
                if self.sessions.get(terminal) is session:
                    del self.sessions[terminal]
                    forget_if_done(self.terminals / terminal)
        return websocket
