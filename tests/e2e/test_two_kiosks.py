"""Two real kiosk processes of one user, one state dir (KIOSK_HOME), one demo server on 127.0.0.1.

- As the same terminal: the second (a counter reconnecting) takes it over; the first leaves within
  seconds keeping its order, which the second resumes. Without a terminal: refused in one line.
- As two SSH sessions with default settings: each is its own terminal, with its own cart and its
  own crash-resume file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kiosk.tui.kiosk_mode import LEFT_FOR_ANOTHER_SESSION
from tests.e2e.test_crash_resume import (
    F2,
    TIMEOUT,
    Terminal,
    demo_server,
    kiosk_env,
    start_kiosk,
    wait_until,
)

__all__ = ["demo_server"]  # the fixture, used by name below

TERMINALS = ("state", "demo", "terminals")


def start_order(kiosk: Terminal) -> None:
    """Location 1, way to order 1: the kiosk opens a cart on the server."""
    kiosk.expect("Lantern Downtown")
    kiosk.send("1")
    kiosk.expect("How would you like your order")
    kiosk.send("1")
    kiosk.expect("Type to search")


def resume_files(home: Path) -> dict[str, str]:
    folder = home.joinpath(*TERMINALS)
    return {p.parent.name: p.read_text() for p in folder.glob("*/open-cart.json")}


def test_a_new_session_takes_the_terminal_over_and_resumes_the_order(
    tmp_path: Path, demo_server: tuple[Any, str]
) -> None:
    """A counter whose link dropped reconnects as the same terminal (issue 23): the kiosk left
    behind leaves within seconds, keeping the order; the new session resumes it. Then a session
    without a terminal is refused in one line, and holds nothing."""
    backend, base_url = demo_server
    home = tmp_path / "home"
    env = kiosk_env(home, KIOSK_TERMINAL_ID="counter-1", KIOSK_KIOSK_MODE="1")
    first = start_kiosk(base_url, env)
    second = None
    try:
        start_order(first)
        files = wait_until("the first kiosk's resume file", lambda: resume_files(home))
        [(terminal_id, saved)] = files.items()
        assert terminal_id == "counter-1"
        cart_id = next(iter(backend.carts.ids()))
        assert cart_id in saved
        first.send("cookie")
        first.expect("Chocolate Chip Cookie")
        first.send("\r")
        first.expect("Add")
        first.send(F2)
        wait_until("the cookie in the cart", lambda: backend.get_cart_json(cart_id)["items"])

        started = time.monotonic()
        second = start_kiosk(base_url, env)
        code = first.proc.wait(timeout=TIMEOUT)
        left_after = time.monotonic() - started
        assert code == LEFT_FOR_ANOTHER_SESSION
        assert left_after < 10, f"the old kiosk took {left_after:.1f} s to leave"
        # The order was kept (not deleted as a quit would) and the new session resumes it.
        second.expect("we kept your order")
        assert cart_id in backend.carts.ids()
        assert cart_id in resume_files(home)[terminal_id]
        info = json.loads(home.joinpath(*TERMINALS, terminal_id, "kiosk.json").read_text())
        assert info["pid"] == second.proc.pid
        assert second.alive()

        # Without a terminal (`ssh -T`, a pipe): one line, exit 2, and the terminal left alone.
        notty = subprocess.run(
            [sys.executable, "-m", "kiosk", "demo", "--server", base_url],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert notty.returncode == 2
        assert notty.stderr.count("\n") == 1 and "no terminal" in notty.stderr
        assert second.alive()
    finally:
        first.close()
        if second is not None:
            second.close()


def test_two_ssh_sessions_keep_their_own_orders(
    tmp_path: Path, demo_server: tuple[Any, str]
) -> None:
    backend, base_url = demo_server
    home = tmp_path / "home"
    sessions = [
        kiosk_env(home, SSH_CONNECTION="192.0.2.10 40001 192.0.2.1 22", SSH_TTY="/dev/pts/7"),
        kiosk_env(home, SSH_CONNECTION="192.0.2.11 40002 192.0.2.1 22", SSH_TTY="/dev/pts/8"),
    ]
    kiosks = [start_kiosk(base_url, env) for env in sessions]
    try:
        for kiosk in kiosks:
            start_order(kiosk)
        wait_until("two resume files", lambda: len(resume_files(home)) == 2)
        saved = resume_files(home)
        carts = list(backend.carts.ids())
        assert len(carts) == 2
        # One terminal a session, each file naming a different cart: no order taken over.
        assert sorted(name.split("-ssh-")[1] for name in saved) == [
            "192.0.2.10-40001-pts-7",
            "192.0.2.11-40002-pts-8",
        ]
        named = [next(c for c in carts if c in text) for text in saved.values()]
        assert sorted(named) == sorted(carts)
        assert all(kiosk.alive() for kiosk in kiosks)
    finally:
        for kiosk in kiosks:
            kiosk.close()
