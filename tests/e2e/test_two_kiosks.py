"""Two real kiosk processes of one user, one state dir (KIOSK_HOME), one demo server on 127.0.0.1.

- As the same terminal: the second refuses at once, naming the first, and writes nothing; the first
  keeps its order.
- As two SSH sessions with default settings: each is its own terminal, with its own cart and its
  own crash-resume file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.test_crash_resume import (
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


def test_the_same_terminal_twice_is_refused(tmp_path: Path, demo_server: tuple[Any, str]) -> None:
    backend, base_url = demo_server
    home = tmp_path / "home"
    env = kiosk_env(home)  # default settings: this machine's own screen, terminal "<host>-local"
    first = start_kiosk(base_url, env)
    try:
        start_order(first)
        files = wait_until("the first kiosk's resume file", lambda: resume_files(home))
        [(terminal_id, saved)] = files.items()
        assert terminal_id.endswith("-local")
        cart_id = next(iter(backend.carts.ids()))
        assert cart_id in saved

        second = subprocess.run(
            [sys.executable, "-m", "kiosk", "demo", "--server", base_url],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert f"another kiosk is running as terminal '{terminal_id}'" in second.stderr
        assert f"process {first.proc.pid}" in second.stderr
        assert "--terminal-id" in second.stderr
        # The first kiosk is untouched: running, its files as they were, its cart the only one.
        assert first.alive()
        assert resume_files(home) == files
        info = json.loads(home.joinpath(*TERMINALS, terminal_id, "kiosk.json").read_text())
        assert info["pid"] == first.proc.pid
        assert list(backend.carts.ids()) == [cart_id]
    finally:
        first.close()


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
            "192.0.2.10-pts-7",
            "192.0.2.11-pts-8",
        ]
        named = [next(c for c in carts if c in text) for text in saved.values()]
        assert sorted(named) == sorted(carts)
        assert all(kiosk.alive() for kiosk in kiosks)
    finally:
        for kiosk in kiosks:
            kiosk.close()
