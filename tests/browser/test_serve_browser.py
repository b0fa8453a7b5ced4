"""`kiosk serve` in a real browser (issue 23): headless Chromium (Debian's package), Playwright.

A real `kiosk serve` on 127.0.0.1, a real page: a whole order by keyboard and one by clicks, a
reload mid-order resumes it, two tabs are two customers, the title, the terminal focused on load
(keys and the footer's keys work without a click), the staff key asks for the PIN, no request
leaves the machine, and no terminal folder is left behind by a finished visit. What the kiosk
draws is read from the page's own websocket (screen_tap.js, injected by the test only); what the
backend holds is read from the demo's database. A screenshot of each step is kept (its path is
printed).

Playwright never downloads a browser here: it drives /usr/bin/chromium (`.ci/run` installs the
package when it is missing). Without it, and without root to install it, the test is skipped.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

# A whole order and more in Chromium; each wait may take WAIT_MS on a loaded machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CHROMIUM = Path(os.environ.get("KIOSK_TEST_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TAP = Path(__file__).with_name("screen_tap.js")
LOCATION = "loc_downtown"
# Resolves when the browser has painted two more frames (a wait on the page, not a sleep).
NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
WAIT_MS = 60_000  # a session starts a Python process on a loaded 2-core machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("KIOSK_TEST_ARTIFACTS") or tmp_path_factory.mktemp("artifacts"))
    folder = folder / "browser"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def playwright_browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's package (apt-get install -y chromium, "
            "as .ci/run does) to run the browser test"
        )
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Serve:
    def __init__(self, home: Path, port: int) -> None:
        self.home = home
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"

    @property
    def terminals(self) -> Path:
        found = list(self.home.glob("**/demo/terminals"))
        return found[0] if found else self.home / "missing"

    def browser_terminals(self) -> list[str]:
        folder = self.terminals
        return sorted(p.name for p in folder.glob("web-*")) if folder.is_dir() else []

    def db(self, sql: str) -> list[tuple[Any, ...]]:
        (path,) = self.home.glob("**/demo.sqlite3")
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return db.execute(sql).fetchall()


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    pytest.importorskip("textual_serve")
    home = tmp_path_factory.mktemp("kiosk-home")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIOSK_")}
    env["KIOSK_HOME"] = str(home)
    log = (home / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk", "serve", "--port", str(port), "--location", LOCATION],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)  # waiting for a server process to listen, not for a UI
        else:
            pytest.fail(f"kiosk serve did not listen: {(home / 'serve.log').read_text()[-2000:]}")
        yield Serve(home, port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _assert_qr_readable_with_quiet_zone(page: Any) -> None:
    """The payment screen's QR code as Chromium drew it: a QR reader (zxing-cpp) decodes the
    checkout page's address from the screenshot, and 4 modules of light surround the code on
    every side (sampled at each module's centre). Before, the code had none on its right."""
    import io

    import segno
    import zxingcpp
    from PIL import Image

    # The terminal's text (what wait_for reads) is there before the browser has painted all of
    # it: a screenshot is taken again after each painted frame until the code is whole, for as
    # long as wait_for would wait.
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        image = Image.open(io.BytesIO(page.locator(".xterm-screen").screenshot())).convert("L")
        codes = zxingcpp.read_barcodes(image)
        if codes or time.monotonic() > deadline:
            break
        page.evaluate(NEXT_FRAMES)
    (found,) = codes
    assert re.fullmatch(r"http://[^/]+/demo/checkout/pi_[0-9a-f]+", found.text), found.text
    n = segno.make_qr(found.text, error="l", boost_error=True).symbol_size(border=0)[0]
    p = found.position
    left = min(p.top_left.x, p.bottom_left.x)
    right = max(p.top_right.x, p.bottom_right.x)
    top = min(p.top_left.y, p.top_right.y)
    bottom = max(p.bottom_left.y, p.bottom_right.y)
    mw, mh = (right - left) / n, (bottom - top) / n  # a module: a cell wide, half a cell high
    dark: list[tuple[str, int, int]] = []
    for i in range(4):
        out_x, out_y = (i + 0.5) * mw, (i + 0.5) * mh
        for k in range(-4, n + 4):
            y = top + (k + 0.5) * mh
            x = left + (k + 0.5) * mw
            for side, (px, py) in {
                "left": (left - out_x, y),
                "right": (right + out_x, y),
                "top": (x, top - out_y),
                "bottom": (x, bottom + out_y),
            }.items():
                inside = 0 <= px < image.width and 0 <= py < image.height
                if not inside or image.getpixel((int(px), int(py))) < 128:
                    dark.append((side, int(px), int(py)))
    assert dark == [], f"not light around the QR code: {dark[:10]}"


class Tab:
    """One browser tab on the kiosk, with the screen as the kiosk drew it."""

    def __init__(self, page: Any, name: str, artifacts: Path, shots: list[str]) -> None:
        self.page = page
        self.name = name
        self.artifacts = artifacts
        self.shots = shots

    def screen(self) -> str:
        return "\n".join(self.page.evaluate("window.__screenLines()"))

    def wait_for(self, text: str, timeout: int = WAIT_MS) -> None:
        try:
            self.page.wait_for_function(
                "t => window.__screenLines && window.__screenLines().join('\\n').includes(t)",
                arg=text,
                timeout=timeout,
            )
        except Exception as exc:
            self.shot(f"timeout-{text[:20]}")
            raise AssertionError(
                f"{self.name}: {text!r} never showed; screen:\n{self.screen()}"
            ) from exc

    def shot(self, step: str) -> None:
        name = f"{len(self.shots) + 1:02d}-{self.name}-{step}.png".replace(" ", "-").replace(
            "/", ""
        )
        self.page.screenshot(path=str(self.artifacts / name))
        self.shots.append(name)

    def press(self, key: str, then: str) -> None:
        self.page.keyboard.press(key)
        self.wait_for(then)

    def type(self, text: str, then: str | None = None) -> None:
        self.page.keyboard.type(text)
        self.wait_for(then or text)

    def click(self, text: str, then: str) -> None:
        """Click the middle of `text` where the kiosk drew it."""
        lines = self.page.evaluate("window.__screenLines()")
        cols, rows = self.page.evaluate("window.__screenSize()")
        found = [(row, line.find(text)) for row, line in enumerate(lines) if text in line]
        if not found:
            raise AssertionError(f"{self.name}: no {text!r} to click; screen:\n{self.screen()}")
        row, col = found[0]
        box = self.page.locator(".xterm-screen").bounding_box()
        x = box["x"] + (col + len(text) / 2) * box["width"] / cols
        y = box["y"] + (row + 0.5) * box["height"] / rows
        self.page.mouse.click(x, y)
        self.wait_for(then)


@pytest.mark.clock_bound(seconds=24)
def test_the_browser_demo(
    serve: Serve, playwright_browser: Any, artifacts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    shots: list[str] = []
    requests: list[str] = []
    refused: list[str] = []

    def guard(route: Any) -> None:
        url = route.request.url
        requests.append(url)
        if _loopback(url):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    context = playwright_browser.new_context(viewport={"width": 1200, "height": 800})
    context.add_init_script(path=str(TAP))
    context.route("**/*", guard)
    sockets: list[str] = []
    failed: list[str] = []  # every answer of 400 or more the page saw: none
    try:
        page = context.new_page()
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
        a = Tab(page, "tab-a", artifacts, shots)
        page.goto(serve.url)
        a.wait_for("Pickup")
        # The title; the terminal has focus with no click, and the footer's keys are there.
        assert page.title() == "Kiosk demo"
        # Its icon is in the page (a headed browser asked for /favicon.ico and got a 404).
        icon = page.evaluate("document.querySelector('link[rel=icon]').href")
        assert icon.startswith("data:image/svg+xml;base64,")
        assert page.evaluate("document.activeElement.className").startswith("xterm-helper")
        a.wait_for("Language")  # the footer's "f3 Language"
        a.shot("welcome")

        # A whole order by keyboard.
        a.press("1", "Desserts")
        a.shot("menu")
        a.type("cookie", "Search: cookie")
        a.press("Enter", "Add to order")
        a.shot("product")
        a.press("F2", "No thanks")
        a.press("n", "1 × Chocolate Chip Cookie")
        a.press("F4", "Your order · Pickup")
        a.shot("cart")
        a.press("F2", "Your name")
        a.type("Ada")
        page.keyboard.press("Tab")
        a.type("ada@example.com")
        a.shot("checkout")
        a.press("F2", "press A to pay")
        a.shot("payment")
        _assert_qr_readable_with_quiet_zone(page)
        a.press("a", "Thank you")
        a.shot("done")
        assert serve.db("SELECT COUNT(*) FROM orders") == [(1,)]

        # The staff key asks for the PIN, as on a counter (none is set: it says how to set one).
        a.press("F12", "kiosk set-pin")
        a.shot("staff-pin")
        a.press("Escape", "Thank you")

        # A new order, then a reload mid-order: the order resumes, nothing is lost or duplicated.
        a.press("Enter", "Pickup")
        a.press("1", "Desserts")
        a.type("cookie", "Search: cookie")
        a.press("Enter", "Add to order")
        a.press("+", "$5.50")
        a.press("F2", "No thanks")
        a.press("n", "2 × Chocolate Chip Cookie")
        open_carts = serve.db("SELECT id FROM carts WHERE status != 'COMPLETED'")
        assert len(open_carts) == 1
        a.shot("before-reload")
        page.reload()
        a.wait_for("Welcome back")
        a.wait_for("2 × Chocolate Chip Cookie")
        a.shot("after-reload")
        assert serve.db("SELECT id FROM carts WHERE status != 'COMPLETED'") == open_carts
        assert len(serve.browser_terminals()) == 1  # the same terminal as before the reload

        # A second tab is a second customer: its own terminal, a fresh order, by clicks.
        page_b = context.new_page()
        page_b.on("websocket", lambda ws: sockets.append(ws.url))
        b = Tab(page_b, "tab-b", artifacts, shots)
        page_b.goto(serve.url)
        b.wait_for("Pickup")
        assert "Welcome back" not in b.screen()
        assert len(serve.browser_terminals()) == 2
        b.click("Pickup", "Desserts")
        b.click("Walnut Brownie", "Add to order")
        b.shot("product-click")
        b.click("Add to order", "No thanks")
        b.click("No thanks", "1 × Walnut Brownie")
        # The order screen's own line: "Checkout" alone is on the menu too now (issue 33).
        b.click("f4 Your order", "Your order · Pickup")
        b.shot("cart-click")
        b.click("Checkout", "Your name")
        b.click("First name is fine", "Your name")
        b.type("Grace")
        b.click("name@example.com", "Grace")
        b.type("grace@example.com")
        b.click("Continue to payment", "press A to pay")
        # The demo processor's approval is a key (or its page on the customer's phone).
        b.press("a", "Thank you")
        b.shot("done-click")
        assert serve.db("SELECT COUNT(*) FROM orders") == [(2,)]
        # Tab A's order is untouched by tab B's.
        assert serve.db("SELECT id FROM carts WHERE status != 'COMPLETED'") == open_carts
        a.wait_for("2 × Chocolate Chip Cookie")

        # Tab B's visit is over: its terminal folder goes with it; tab A's (an open order) stays.
        page_b.close()
        deadline = time.monotonic() + 30
        while len(serve.browser_terminals()) > 1 and time.monotonic() < deadline:
            time.sleep(0.2)  # the server's process for tab B exiting, not a UI
        assert len(serve.browser_terminals()) == 1
    finally:
        context.close()

    # No request left the machine: the page, its script, styles, font and websockets.
    assert requests and not refused, refused
    assert failed == []
    assert sockets and all(_loopback(url) for url in sockets), sockets
    with capsys.disabled():
        print(
            f"\nbrowser test: {len(shots)} screenshots in {artifacts} "
            f"({time.monotonic() - started:.0f} s): {', '.join(shots)}"
        )


PUBLIC = "https://kiosk.example.test:8443/"


def test_public_url_names_where_browsers_connect(serve: Serve) -> None:
    # A proxy or tunnel on another address: the page names it for its assets and websocket.
    import httpx

    env = {k: v for k, v in os.environ.items() if not k.startswith("KIOSK_")}
    env["KIOSK_HOME"] = str(serve.home)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk", "serve", "--port", str(port), "--public-url", PUBLIC],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        page = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)  # waiting for a server process to listen, not for a UI
        assert page is not None and page.status_code == 200
        assert 'data-session-websocket-url="wss://kiosk.example.test:8443/ws"' in page.text
        assert "https://kiosk.example.test:8443/static/js/textual.js" in page.text
        assert "<title>Kiosk demo</title>" in page.text
        assert "googleapis" not in page.text
        cookie = page.headers["set-cookie"]
        assert "kiosk_browser=" in cookie and "HttpOnly" in cookie
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_browser_terminal_ids() -> None:
    from kiosk.serve import terminal_for

    browser, tab = "a" * 32, "b" * 32
    assert terminal_for(browser, tab) == terminal_for(browser, tab)  # a reload: the same terminal
    assert terminal_for(browser, tab) != terminal_for(browser, "c" * 32)  # another tab
    assert terminal_for("d" * 32, tab) != terminal_for(browser, tab)  # another browser
    # A malformed or missing part: a terminal of its own, never someone else's.
    assert terminal_for(None, tab) != terminal_for(None, tab)
    assert terminal_for(browser, "../../etc").startswith("web-")


def test_prune_removes_only_finished_or_stale_browser_terminals(tmp_path: Path) -> None:
    from kiosk.serve import prune

    tmp_path = tmp_path / "terminals"
    tmp_path.mkdir()
    done = tmp_path / "web-done"
    done.mkdir()
    (done / "kiosk.lock").touch()
    open_order = tmp_path / "web-open"
    open_order.mkdir()
    (open_order / "cart.json").touch()
    stale = tmp_path / "web-stale"
    stale.mkdir()
    (stale / "cart.json").touch()
    os.utime(stale, (0, 0))
    counter = tmp_path / "counter-1"
    counter.mkdir()
    assert prune(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter-1", "web-open"]
