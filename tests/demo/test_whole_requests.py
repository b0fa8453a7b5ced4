"""Issue 35, item 2: a request is whole or it is nothing. Raw sockets against a real server
(uvicorn with the demo-server's protocol and limits, on 127.0.0.1): a cut body commits nothing and
is answered 400 where the client still reads; Content-Length with Transfer-Encoding, or two
Content-Lengths that differ, is 400 and the connection closes (RFC 9112 section 6.1), so bytes
after it never run as a second request; every answer of the HTTP layer is the 2.0 envelope with
`X-Request-Id`."""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.server import HttpGuard, ServerThread

from .support import DT, Clock

KEY = DOWNTOWN.api_key


@pytest.fixture
def server() -> Iterator[ServerThread]:
    app = create_app(clock=Clock(), rate_limit=None)
    with ServerThread(app) as running:
        yield running
    app.state.backend.close()


def new_cart(server: ServerThread) -> str:
    r = httpx.post(
        f"{server.base_url}/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "pickup"},
        headers={"X-API-Key": KEY},
        timeout=5,
    )
    assert r.status_code == 200, r.text
    cart: str = r.json()["cartId"]
    return cart


def items(server: ServerThread, cart: str) -> list[Any]:
    """The cart's lines, once every request the server took has finished (a cut request's
    handler, had it run, would have committed by then)."""
    deadline = time.monotonic() + 5
    while server.server.server_state.tasks and time.monotonic() < deadline:
        time.sleep(0.01)
    r = httpx.get(
        f"{server.base_url}/locations/{DT}/carts/{cart}", headers={"X-API-Key": KEY}, timeout=5
    )
    assert r.status_code == 200, r.text
    lines: list[Any] = r.json()["items"]
    return lines


def add_head(cart: str, *framing: str) -> bytes:
    lines = [
        f"POST /api/v1/locations/{DT}/carts/{cart}/cart-item HTTP/1.1",
        "Host: 127.0.0.1",
        f"X-API-Key: {KEY}",
        "Content-Type: application/json",
        *framing,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


ADD = json.dumps({"productId": "prd_cookie", "quantity": 1}).encode()


def exchange(port: int, data: bytes, *, half_close: bool = False) -> bytes:
    """Everything the server sends back to `data` until it closes the connection (a server that
    kept it open fails the test by the timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def responses(out: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The responses in `out`, each (status, headers, body) (bodies framed by Content-Length)."""
    found = []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        found.append((int(status_line.split()[1]), headers, rest[:length]))
        out = rest[length:]
    return found


def assert_envelope(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    assert headers["content-type"] == "application/json"
    parsed: dict[str, Any] = json.loads(body)
    assert set(parsed) >= {"code", "message", "requestId"}
    assert headers["x-request-id"] == parsed["requestId"]
    return parsed


# --- a cut body -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "framing",
    [
        # The part sent is valid JSON: taken for the whole body, it would add.
        ("Content-Length", lambda cart: add_head(cart, f"Content-Length: {len(ADD) + 9}") + ADD),
        (
            "chunked, no last chunk",
            lambda cart: (
                add_head(cart, "Transfer-Encoding: chunked")
                + f"{len(ADD):x}\r\n".encode()
                + ADD
                + b"\r\n"
            ),
        ),
    ],
    ids=lambda f: f[0],
)
def test_a_body_cut_before_its_end_is_answered_400_and_commits_nothing(
    server: ServerThread, framing: Any
) -> None:
    cart = new_cart(server)
    # The client stops sending (closes its side) but still reads: it gets the refusal.
    out = exchange(server.port, framing[1](cart), half_close=True)
    [(status, headers, body)] = responses(out)
    assert status == 400 and headers["connection"] == "close"
    assert "cut off" in assert_envelope(status, headers, body)["message"]
    assert items(server, cart) == []


def test_a_body_cut_by_a_reset_commits_nothing(server: ServerThread) -> None:
    cart = new_cart(server)
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(add_head(cart, f"Content-Length: {len(ADD) + 9}") + ADD)
    deadline = time.monotonic() + 5
    while not server.server.server_state.tasks and time.monotonic() < deadline:
        time.sleep(0.01)  # until the server has the head and waits for the rest
    assert server.server.server_state.tasks
    # An abortive close (RST): no answer can reach it; the add must still not happen.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    assert items(server, cart) == []


def test_a_whole_request_then_a_half_close_is_answered_and_counts(server: ServerThread) -> None:
    cart = new_cart(server)
    out = exchange(
        server.port, add_head(cart, f"Content-Length: {len(ADD)}") + ADD, half_close=True
    )
    [(status, _, _)] = responses(out)
    assert status == 200
    assert [line["productId"] for line in items(server, cart)] == ["prd_cookie"]


# --- framing that two readers could read two ways -------------------------------------------------


@pytest.mark.parametrize(
    "framing",
    [
        ("Content-Length: 5", "Transfer-Encoding: chunked"),
        ("Transfer-Encoding: chunked", "Content-Length: 5"),
        ("Content-Length: 0", "Content-Length: 5"),
        ("Content-Length: 5, 0",),
    ],
)
def test_ambiguous_framing_is_400_and_closes_the_connection(
    server: ServerThread, framing: tuple[str, ...]
) -> None:
    cart = new_cart(server)
    # Read by its chunks, the first request's body ends at "0"; a proxy reading the length would
    # take the add that follows as part of it: the server must not run that add either.
    chunked = f"{len(ADD):x}\r\n".encode() + ADD + b"\r\n0\r\n\r\n"
    smuggled = add_head(cart, f"Content-Length: {len(ADD)}") + ADD
    out = exchange(server.port, add_head(cart, *framing) + chunked + smuggled)
    [(status, headers, body)] = responses(out)  # one answer, then the connection closed
    assert status == 400 and headers["connection"] == "close"
    assert_envelope(status, headers, body)
    assert items(server, cart) == []


def test_the_same_content_length_twice_is_one_length(server: ServerThread) -> None:
    cart = new_cart(server)
    out = exchange(
        server.port,
        add_head(
            cart, f"Content-Length: {len(ADD)}", f"Content-Length: {len(ADD)}", "Connection: close"
        )
        + ADD,
    )
    [(status, _, _)] = responses(out)
    assert status == 200 and len(items(server, cart)) == 1


# --- every answer of the HTTP layer in the envelope -----------------------------------------------


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",  # no Host
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ids=["not-http", "no-host", "bad-name", "bad-length", "gzip", "bad-chunk"],
)
def test_bad_framing_is_answered_in_the_envelope(
    server: ServerThread, request_bytes: bytes
) -> None:
    [(status, headers, body)] = responses(exchange(server.port, request_bytes))
    assert status == 400
    assert_envelope(status, headers, body)


async def _fails(scope: Any, receive: Any, send: Any) -> None:
    raise RuntimeError("boom")


async def _says_nothing(scope: Any, receive: Any, send: Any) -> None:
    return None


@pytest.mark.parametrize("app", [_fails, _says_nothing])
def test_an_app_that_fails_or_says_nothing_is_answered_500_in_the_envelope(app: Any) -> None:
    with ServerThread(app) as running:
        out = exchange(running.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    [(status, headers, body)] = responses(out)
    assert status == 500 and assert_envelope(status, headers, body)["code"] == "INTERNAL_ERROR"


async def test_past_the_cap_of_requests_at_once_the_answer_is_503_in_the_envelope() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard = HttpGuard(_says_nothing, cap=0)
    await guard({"type": "http", "path": "/"}, None, send)
    start, body = sent
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    assert start["status"] == 503 and headers["retry-after"] == "1"
    assert assert_envelope(503, headers, body["body"])["code"] == "DEPENDENCY_UNAVAILABLE"
