"""A counter over a real SSH server (issue 23): sshd on 127.0.0.1 with a throwaway host key and
user key (tmp), the shipped ForceCommand block (kiosk/deploy/sshd_kiosk.conf) for the user running
the tests, the kiosk in kiosk mode on a demo server, and an `ssh -tt` client in a pseudo-terminal.

- A dropped link (no FIN: the client is frozen with SIGSTOP): the counter logs in again, takes
  its terminal over from the kiosk left behind, which leaves within seconds, and the order is
  resumed, the same cart.
- A power-cycled counter (the client killed with SIGKILL; its kernel closes the connection): sshd
  hangs up, the kiosk goes at once, and the order waits in the resume file and on the server.
- A session without a terminal (`ssh -T`): refused in one line, exit status 2.
- A dropped link with no reconnect: the idle reset asks the terminal where its cursor is; a frozen
  client does not answer, so the kiosk leaves and keeps the order.
- Issue 36, two deadlines, each the one the docs give (a bound, not a speed goal): sshd with the
  shipped ClientAlive settings hangs up a frozen client on a still screen within the seconds the
  block says (OpenSSH 9.2: 40 s; the 15 s x 3 shipped before took 120-131 s); and with sshd not
  watching at all, the kiosk asks its terminal on its own clock and leaves within the seconds
  docs/ssh.md says, keeping the order.
The times are printed (run with -s). Skipped, with the reason, where sshd or ssh is missing.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kiosk import cli
from kiosk.demo import create_app
from kiosk.demo.server import ServerThread
from kiosk.terminal import TAKEOVER_WAIT
from tests.bench.pty_run import PtyApp
from tests.e2e.test_crash_resume import F2

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.access("/usr/sbin/sshd", os.X_OK) else None)
SSH = shutil.which("ssh")
SSH_KEYGEN = shutil.which("ssh-keygen")
KIOSK = str(Path(sys.executable).with_name("kiosk"))
ROOT = Path(__file__).resolve().parents[2]
TERMINAL = ("state", "demo", "terminals", "counter-1")

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(what: str, check: Any, timeout: float = 30.0) -> Any:
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie of sshd's is gone for our purpose.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


class Sshd:
    def __init__(
        self,
        tmp: Path,
        base_url: str,
        home: Path,
        *,
        command: str | None = None,
        client_alive: bool = True,
    ) -> None:
        if SSHD is None or SSH is None or SSH_KEYGEN is None:
            pytest.skip("openssh (sshd, ssh, ssh-keygen) is not installed (.ci/run installs it)")
        if not Path("/run/sshd").is_dir():
            pytest.skip("sshd needs /run/sshd (made by .ci/run, as root)")
        self.tmp = tmp
        self.user = getpass.getuser()
        for name in ("host_key", "user_key"):
            subprocess.run(
                [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(tmp / name)], check=True
            )
        (tmp / "authorized_keys").write_text((tmp / "user_key.pub").read_text())
        os.chmod(tmp / "authorized_keys", 0o600)
        self.port = free_port()
        # The shipped block, for this user, running this checkout's kiosk on the demo server.
        block = cli.install_file_text("sshd_kiosk.conf")
        block = block.replace("Match User kiosk", f"Match User {self.user}")
        command = command or f"env KIOSK_HOME={home} {KIOSK} demo --server {base_url} --kiosk"
        block = block.replace("/opt/kiosk/bin/kiosk --kiosk", command)
        if not client_alive:  # sshd never hangs up a silent client: only the kiosk can notice
            block = "\n".join(
                line for line in block.splitlines() if "ClientAlive" not in line.split("#")[0]
            )
        config = tmp / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {tmp / 'host_key'}\n"
            f"PidFile {tmp / 'sshd.pid'}\nUsePAM no\nStrictModes no\n"
            f"AuthorizedKeysFile {tmp / 'authorized_keys'}\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
            f"{block}"
        )
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=open(tmp / "sshd.log", "w"),  # noqa: SIM115 - closed with the process
        )
        wait_until("sshd listening", self._listening, timeout=15)

    def _listening(self) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def client(self, *options: str) -> list[str]:
        assert SSH is not None
        return [
            SSH,
            *("-F", "/dev/null", "-i", str(self.tmp / "user_key"), "-p", str(self.port)),
            *("-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"),
            *("-o", "LogLevel=ERROR", "-o", "BatchMode=yes"),
            *options,
            f"{self.user}@127.0.0.1",
        ]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def counter(tmp_path: Path) -> Iterator[tuple[Any, Sshd, Path]]:
    app = create_app(tmp_path / "demo.sqlite3")
    home = tmp_path / "home"
    home.mkdir()
    with ServerThread(app) as server:
        sshd = Sshd(tmp_path, server.base_url, home)
        try:
            yield app.state.backend, sshd, home
        finally:
            sshd.stop()
    app.state.backend.close()


def holder(home: Path) -> int:
    return int(json.loads(home.joinpath(*TERMINAL, "kiosk.json").read_text())["pid"])


@pytest.mark.clock_bound(seconds=8)
def test_a_counter_over_ssh_survives_the_network(counter: tuple[Any, Sshd, Path]) -> None:
    backend, sshd, home = counter
    env = {"TERM": "xterm-256color"}
    first = PtyApp(sshd.client("-tt"), env=env, columns=100, rows=30).start()
    second = third = None
    try:
        first.wait_for_text("Lantern Downtown", 60)
        first.send("1")
        first.wait_for_text("How would you like", 30)
        first.send("1")
        first.wait_for_text("Type to search", 30)
        cart_id = wait_until("a cart", lambda: next(iter(backend.carts.ids()), None))
        first.send("cookie")
        first.wait_for_text("Chocolate Chip Cookie", 30)
        first.send("\r")
        first.wait_for_text("Add", 30)
        first.send(F2)
        wait_until("the cookie in the cart", lambda: backend.get_cart_json(cart_id)["items"])
        orphan = holder(home)

        # 1. A dropped link: the client frozen, no FIN; the counter logs in again.
        os.kill(first.pid, signal.SIGSTOP)
        started = time.monotonic()
        second = PtyApp(sshd.client("-tt"), env=env, columns=100, rows=30).start()
        request = home.joinpath(*TERMINAL, "takeover.json")
        wait_until("the new session's takeover request", request.exists)
        asked = time.monotonic()
        wait_until("the kiosk left behind to leave", lambda: not alive(orphan))
        orphan_left = time.monotonic() - asked
        second.wait_for_text("we kept your order", 60)
        resumed = time.monotonic() - started
        assert backend.get_cart_json(cart_id)["status"] == "OPEN"
        assert [i["productId"] for i in backend.get_cart_json(cart_id)["items"]] == ["prd_cookie"]
        assert list(backend.carts.ids()) == [cart_id]
        # Asked, it leaves by itself (the new session would end it after TAKEOVER_WAIT s).
        assert orphan_left < TAKEOVER_WAIT
        print(
            f"\ndropped link (SIGSTOP client): the new login asked {asked - started:.1f} s after "
            f"it started; the old kiosk left {orphan_left:.1f} s after the request; the order "
            f"resumed {resumed:.1f} s after the new login started"
        )

        # 2. A power-cycled counter: the client killed; sshd hangs up the session.
        kiosk_pid = wait_until("the new kiosk holds the terminal", lambda: holder(home))
        started = time.monotonic()
        os.kill(second.pid, signal.SIGKILL)
        wait_until("the kiosk to go", lambda: not alive(kiosk_pid))
        gone = time.monotonic() - started
        assert backend.get_cart_json(cart_id)["status"] == "OPEN"
        assert cart_id in home.joinpath(*TERMINAL, "open-cart.json").read_text()
        print(f"power-cycled counter (SIGKILL client): kiosk gone after {gone:.1f} s, order kept")

        # 3. A session without a terminal: one line, exit 2, nothing held.
        started = time.monotonic()
        notty = subprocess.run(sshd.client("-T"), capture_output=True, text=True, timeout=60)
        refused = time.monotonic() - started
        assert notty.returncode == 2, notty.stderr
        assert "no terminal" in notty.stderr and notty.stderr.count("\n") == 1
        print(f"ssh -T: refused in one line, exit 2, after {refused:.1f} s")

        # And the order is still there for the counter's next login.
        third = PtyApp(sshd.client("-tt"), env=env, columns=100, rows=30).start()
        third.wait_for_text("we kept your order", 60)
    finally:
        with_first = first.pid
        if with_first:
            os.kill(with_first, signal.SIGCONT)
        for app in (first, second, third):
            if app is not None and app.pid:
                os.kill(app.pid, signal.SIGKILL)
                os.waitpid(app.pid, 0)
                app.pid = 0


def order_a_cookie(app: PtyApp, backend: Any) -> str:
    app.wait_for_text("Lantern Downtown", 60)
    app.send("1")
    app.wait_for_text("How would you like", 30)
    app.send("1")
    app.wait_for_text("Type to search", 30)
    cart_id: str = wait_until("a cart", lambda: next(iter(backend.carts.ids()), None))
    app.send("cookie")
    app.wait_for_text("Chocolate Chip Cookie", 30)
    app.send("\r")
    app.wait_for_text("Add", 30)
    app.send(F2)
    wait_until("the cookie in the cart", lambda: backend.get_cart_json(cart_id)["items"])
    return cart_id


@pytest.mark.clock_bound(seconds=25)
def test_a_frozen_counter_keeps_its_order_past_the_idle_reset(
    counter: tuple[Any, Sshd, Path],
) -> None:
    backend, sshd, home = counter
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("idle_timeout = 12\nidle_countdown = 4\n")
    client = PtyApp(sshd.client("-tt"), env={"TERM": "xterm-256color"}, columns=80, rows=24)
    client.start()
    try:
        cart_id = order_a_cookie(client, backend)
        kiosk_pid = holder(home)
        client.read_until_quiet(0.5, 5)
        os.kill(client.pid, signal.SIGSTOP)  # the link drops: no FIN, sshd does not know yet
        started = time.monotonic()
        wait_until("the kiosk to leave", lambda: not alive(kiosk_pid), timeout=90)
        left = time.monotonic() - started
        assert backend.get_cart_json(cart_id)["status"] == "OPEN"
        assert cart_id in home.joinpath(*TERMINAL, "open-cart.json").read_text()
        print(
            f"\nfrozen client, no reconnect, idle 12 + 4 s: the kiosk left after {left:.1f} s, "
            "the order kept"
        )
    finally:
        os.kill(client.pid, signal.SIGCONT)
        os.kill(client.pid, signal.SIGKILL)
        os.waitpid(client.pid, 0)
        client.pid = 0


def promised_seconds(text: str, what: str) -> int:
    """The N of "noticed/left within N s" as a shipped file or a document says it."""
    found = re.search(rf"{what} within (\d+) s", " ".join(text.split()))
    assert found, f"no '{what} within N s' in the text"
    return int(found.group(1))


@pytest.mark.clock_bound(seconds=41)
def test_sshd_hangs_up_a_frozen_client_within_what_the_block_says(tmp_path: Path) -> None:
    """The shipped block's ClientAlive settings on this machine's sshd: a frozen client (SIGSTOP,
    no FIN) on a still screen is hung up within the seconds the block's comment and docs/ssh.md
    promise (OpenSSH 9.2 took 120-131 s with the settings that promised 45 s)."""
    block = cli.install_file_text("sshd_kiosk.conf")
    limit = promised_seconds(block, "noticed")
    assert promised_seconds((ROOT / "docs" / "ssh.md").read_text(), "noticed") == limit
    session = tmp_path / "session.pid"
    # A still screen: the session's command writes nothing.
    sshd = Sshd(tmp_path, "", tmp_path, command=f"sh -c 'echo $$ >{session}; exec sleep 600'")
    client = PtyApp(sshd.client("-tt"), env={"TERM": "xterm-256color"}, columns=80, rows=24)
    client.start()
    try:
        pid = wait_until(
            "the session's command",
            lambda: (
                session.exists()
                and session.read_text().strip().isdigit()
                and int(session.read_text())
            ),
        )
        client.read_until_quiet(0.3, 2)
        os.kill(client.pid, signal.SIGSTOP)
        started = time.monotonic()
        wait_until(f"sshd to hang up within {limit} s", lambda: not alive(pid), timeout=limit)
        print(
            f"\nfrozen client, still screen: sshd hung up after {time.monotonic() - started:.1f} s"
        )
    finally:
        os.kill(client.pid, signal.SIGCONT)
        os.kill(client.pid, signal.SIGKILL)
        os.waitpid(client.pid, 0)
        client.pid = 0
        sshd.stop()


@pytest.fixture
def counter_without_client_alive(tmp_path: Path) -> Iterator[tuple[Any, Sshd, Path]]:
    app = create_app(tmp_path / "demo.sqlite3")
    home = tmp_path / "home"
    home.mkdir()
    with ServerThread(app) as server:
        sshd = Sshd(tmp_path, server.base_url, home, client_alive=False)
        try:
            yield app.state.backend, sshd, home
        finally:
            sshd.stop()
    app.state.backend.close()


@pytest.mark.clock_bound(seconds=47)
def test_the_kiosk_leaves_a_dead_terminal_on_its_own_clock(
    counter_without_client_alive: tuple[Any, Sshd, Path],
) -> None:
    """Neither sshd (no ClientAlive lines) nor the idle reset (600 s) can notice the frozen
    client here: the kiosk asks its terminal on its own clock and leaves within the seconds
    docs/ssh.md says, keeping the order."""
    backend, sshd, home = counter_without_client_alive
    limit = promised_seconds((ROOT / "docs" / "ssh.md").read_text(), "left")
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("idle_timeout = 600\n")
    client = PtyApp(sshd.client("-tt"), env={"TERM": "xterm-256color"}, columns=80, rows=24)
    client.start()
    try:
        cart_id = order_a_cookie(client, backend)
        kiosk_pid = holder(home)
        client.read_until_quiet(0.5, 5)
        os.kill(client.pid, signal.SIGSTOP)
        started = time.monotonic()
        wait_until(f"the kiosk to leave within {limit} s", lambda: not alive(kiosk_pid), limit)
        left = time.monotonic() - started
        assert backend.get_cart_json(cart_id)["status"] == "OPEN"
        assert cart_id in home.joinpath(*TERMINAL, "open-cart.json").read_text()
        print(f"\nfrozen client, sshd not watching: the kiosk left after {left:.1f} s, order kept")
    finally:
        os.kill(client.pid, signal.SIGCONT)
        os.kill(client.pid, signal.SIGKILL)
        os.waitpid(client.pid, 0)
        client.pid = 0
