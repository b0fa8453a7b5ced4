"""Other sites: no page of another site can make a browser change the demo's state or open its
staff pages through it, and no answer sends a browser where a request's Host header says.

- **Redirects** are paths, never addresses: the router's own slash redirect (Starlette builds it
  from the Host header, so `Host: evil.example` sent the browser there) is off, and a GET of a
  page with a trailing slash is redirected here to the same path without it (`Location:
  /demo/counter?code=...`), which the browser resolves against the address it already used.
- **Cross-site requests**: a browser says where a request comes from (`Sec-Fetch-Site`; browsers
  without it send `Origin` on every POST). A request to a state-changing `/demo` route (any method
  but GET and HEAD: the loopback-only controls, the checkout page's Pay form) or to a staff page
  (STAFF_PAGES) is refused 403 when it comes from another site, a sandboxed frame (`Origin:
  null`) included: a page in any browser on the kiosk's machine reaches loopback, so "loopback
  only" alone does not keep it out. A request with neither header is no browser's cross-site
  request (the kiosk's own client, curl, the tests) and goes on to the usual checks.
- **Another site under this machine's name** (DNS rebinding: a site whose name comes to resolve
  to 127.0.0.1, so its page's requests are same-origin to the browser): where loopback is the
  credential (a guarded request from this machine), the `Host` header must name this machine: a
  loopback name or address, the address the request came in on, or `public_base_url`'s host.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from kiosk.demo.edge import own_origin

__all__ = ["STAFF_PAGES", "Sites", "from_another_site", "names_this_machine"]

# Pages for staff or the operator, refused to another site even by GET: the counter lists
# customers' names; faults and stats are the loopback controls' reading side.
STAFF_PAGES = frozenset({"/demo/counter", "/demo/faults", "/demo/stats"})
SAFE_METHODS = frozenset({"GET", "HEAD"})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key == name:
            return bytes(value).decode("latin-1").strip()
    return None


def _origin(url: str) -> str:
    """scheme://host[:port] of a URL, lowercase, without a default port."""
    scheme, _, rest = url.strip().partition("://")
    host = rest.split("/", 1)[0].lower()
    scheme = scheme.lower()
    for default in ((":80", "http"), (":443", "https")):
        if scheme == default[1] and host.endswith(default[0]):
            host = host[: -len(default[0])]
    return f"{scheme}://{host}"


def from_another_site(scope: Scope, public_base_url: str | None = None) -> bool:
    """Whether a browser sent this request for a page of another site (see the module)."""
    site = _header(scope, b"sec-fetch-site")
    if site is not None:
        # "none": the user typed the address or opened a bookmark; "same-site" is another origin
        # (another port on this machine, another subdomain): refused like any other site.
        return site.lower() not in ("same-origin", "none")
    origin = _header(scope, b"origin")
    if origin is None:
        return False
    if origin.lower() == "null":
        return True
    ours = {_origin(own_origin(scope))}
    if public_base_url:
        ours.add(_origin(public_base_url))
    host = _header(scope, b"host")
    if host:
        # The Host header may name this server here: a browser sets it from the address it
        # used, and another site's page cannot choose it together with its own Origin.
        ours.add(_origin(f"{scope.get('scheme') or 'http'}://{host}"))
    return _origin(origin) not in ours


def _is_loopback(name: str) -> bool:
    # Names a browser resolves to loopback itself (RFC 6761), so no DNS answer can move them.
    if name in ("localhost", "testclient") or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(authority: str) -> str:
    """The host of a Host header's value (or a URL's authority), lowercase, without its port."""
    return (urlsplit("//" + authority.strip()).hostname or "").lower()


def names_this_machine(scope: Scope, public_base_url: str | None = None) -> bool:
    """Whether the request's Host names this server (see the module); no Host: HTTP/1.0, no
    browser."""
    host = _header(scope, b"host")
    if host is None:
        return True
    try:
        name = _host_name(host)
    except ValueError:
        return False
    server = str((scope.get("server") or ("",))[0]).lower()
    ours = {server}
    if public_base_url:
        ours.add((urlsplit(public_base_url).hostname or "").lower())
    return _is_loopback(name) or name in ours


def _refusal(path: str) -> Response:
    message = "This page does not take requests from other sites"
    if path == "/demo/counter":
        page = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Counter</title>'
            f"</head><body><h1>{message}</h1><p>Open the counter's link itself.</p></body></html>"
        )
        return HTMLResponse(page, status_code=403)
    body = {"error": "forbidden", "message": message, "status": 403, "code": "CROSS_SITE_REQUEST"}
    return JSONResponse(body, status_code=403)


class Sites:
    """The ASGI middleware; `routes` are the app's, for the slash redirect; `public_base_url`
    reads the configured public address (it may be set after the app is made)."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute], backend: Any) -> None:
        self.app = app
        self.routes = routes
        self.backend = backend

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        guarded = path.startswith("/demo/") and (
            method not in SAFE_METHODS or path.rstrip("/") in STAFF_PAGES
        )
        if guarded:
            public = self.backend.public_base_url
            client = str((scope.get("client") or ("",))[0])
            if from_another_site(scope, public) or (
                _is_loopback(client) and not names_this_machine(scope, public)
            ):
                await _refusal(path.rstrip("/"))(scope, receive, send)
                return
        location = self._without_slash(scope) if method in SAFE_METHODS else None
        if location is not None:
            await Response(status_code=307, headers={"Location": location})(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _without_slash(self, scope: Scope) -> str | None:
        """The path to redirect a page asked for with a trailing slash to (with its query), when
        the path without the slash is a page; else None (the router answers)."""
        path: str = scope["path"]
        raw: bytes = scope.get("raw_path") or path.encode()
        if path == "/" or not path.endswith("/") or path.startswith("/api/"):
            return None
        bare = dict(scope, path=path[:-1])
        if not any(route.matches(bare)[0] is Match.FULL for route in self.routes):
            return None
        location = raw[:-1] if raw.endswith(b"/") else raw
        # Never a network-path reference ("//host"): only a path on this server.
        if not location.startswith(b"/") or location.startswith(b"//") or b"\\" in location:
            return None
        query: bytes = scope.get("query_string") or b""
        return (location + (b"?" + query if query else b"")).decode("latin-1")
