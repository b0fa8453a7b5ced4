"""kiosk.terminal: terminal ids, the per-terminal lock and state folder; paths.atomic_write."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from kiosk import paths
from kiosk.config import Settings, load_settings
from kiosk.runtime import state_dir_for
from kiosk.terminal import (
    TerminalBusyError,
    claim_terminal,
    derive_terminal_id,
    takeover_requested,
    terminal_dir,
    terminal_id_for,
    tty_gone,
)

SSH_A = {"SSH_CONNECTION": "203.0.113.7 50000 10.0.0.2 22", "SSH_TTY": "/dev/pts/3"}
SSH_B = {"SSH_CONNECTION": "203.0.113.8 50001 10.0.0.2 22", "SSH_TTY": "/dev/pts/4"}
WEB = {"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KIOSK_HOME", str(tmp_path))
    for name in ("KIOSK_STATE_DIR", "KIOSK_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_local_terminal_id_is_stable_so_a_crash_resumes() -> None:
    first = derive_terminal_id({}, host="till")
    assert first == derive_terminal_id({}, host="till") == "till-local"


def test_ssh_sessions_get_different_ids() -> None:
    a = derive_terminal_id(SSH_A, host="till")
    b = derive_terminal_id(SSH_B, host="till")
    same_client_other_tty = derive_terminal_id({**SSH_A, "SSH_TTY": "/dev/pts/9"}, host="till")
    assert len({a, b, same_client_other_tty, "till-local"}) == 4
    assert a == "till-ssh-203.0.113.7-50000-pts-3"


def test_a_later_login_on_a_reused_pty_is_another_terminal() -> None:
    """/dev/pts/3 is reused by the next login, even from the same client: the client's port
    tells the logins apart, so nobody is offered the previous customer's order (issue 23)."""
    later = {"SSH_CONNECTION": "203.0.113.7 50412 10.0.0.2 22", "SSH_TTY": "/dev/pts/3"}
    assert derive_terminal_id(SSH_A, host="till") != derive_terminal_id(later, host="till")


def test_each_serve_session_is_a_terminal_of_its_own() -> None:
    ids = {derive_terminal_id(WEB, host="till") for _ in range(20)}
    assert len(ids) == 20
    assert all(i.startswith("till-serve-") for i in ids)


@pytest.mark.parametrize(
    "env",
    [
        {},
        SSH_A,
        WEB,
        {"SSH_CONNECTION": "::1 1 ::1 22", "SSH_TTY": "/dev/../../etc/passwd"},
    ],
)
def test_derived_ids_are_valid_setting_values_and_safe_file_names(env: dict[str, str]) -> None:
    terminal_id = derive_terminal_id(env, host="a very/long host name " * 5)
    assert Settings(terminal_id=terminal_id).terminal_id == terminal_id
    assert "/" not in terminal_id and ".." not in terminal_id
    assert len(terminal_id) <= 64


def test_configured_id_wins_and_is_checked() -> None:
    assert terminal_id_for(Settings(terminal_id="counter-1"), SSH_A) == "counter-1"
    loaded = load_settings(env={"KIOSK_TERMINAL_ID": "counter-2"}, config_file=Path("/nonexistent"))
    assert loaded.terminal_id == "counter-2"
    for bad in ("../x", "a/b", "", "-lead", "x" * 65):
        with pytest.raises(ValueError, match="terminal_id"):
            Settings(terminal_id=bad)


def test_state_dir_is_per_profile_and_terminal(home: Path) -> None:
    one = state_dir_for(Settings(profile="demo", terminal_id="counter-1"))
    two = state_dir_for(Settings(profile="demo", terminal_id="counter-2"))
    prod = state_dir_for(Settings(profile="production", terminal_id="counter-1"))
    assert one == home / "state" / "demo" / "terminals" / "counter-1"
    assert len({one, two, prod}) == 3


def test_a_holder_that_does_not_leave_is_named_and_its_files_kept(home: Path) -> None:
    settings = Settings(terminal_id="counter-1")
    with claim_terminal(settings) as terminal:
        info = json.loads((terminal.state_dir / "kiosk.json").read_text())
        assert info["pid"] == os.getpid()
        before = sorted(p.name for p in terminal.state_dir.iterdir())
        # This process holds it, so it cannot be asked to leave: refused after the wait.
        with (
            pytest.raises(TerminalBusyError) as refused,
            claim_terminal(settings, wait=0.2, term_wait=0.1),
        ):
            pytest.fail("a second kiosk got the same terminal")
        message = str(refused.value)
        assert "counter-1" in message and f"process {os.getpid()}" in message
        assert "try again" in message and "Traceback" not in message
        # The takeover request is withdrawn: the files are as they were.
        assert sorted(p.name for p in terminal.state_dir.iterdir()) == before
        # Another terminal id is another terminal: no refusal.
        with claim_terminal(Settings(terminal_id="counter-2")) as other:
            assert other.state_dir != terminal.state_dir
    # Released on exit: the terminal can be claimed again.
    with claim_terminal(settings):
        pass


HOLDER = """
import sys, time
from kiosk.config import Settings
from kiosk.terminal import claim_terminal, takeover_requested
with claim_terminal(Settings(terminal_id="counter-1")) as terminal:
    print("held", flush=True)
    while not takeover_requested(terminal.state_dir):
        time.sleep(0.05)
    print("asked to leave", flush=True)
    if sys.argv[1] == "stay":
        time.sleep(60)
"""


@pytest.mark.parametrize("holder", ["leave", "stay"])
def test_a_new_session_takes_the_terminal_over(
    home: Path, holder: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The kiosk left behind by a dropped link is asked to leave; one that does not (stopped, or
    blocked on a dead terminal) is ended, and the log says which pid and why. The new session
    then holds the terminal."""
    import logging
    import subprocess
    import sys

    caplog.set_level(logging.INFO, logger="kiosk.terminal")

    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, holder], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        settings = Settings(terminal_id="counter-1")
        with claim_terminal(settings, wait=2.0, term_wait=2.0) as terminal:
            assert proc.wait(timeout=10) == (0 if holder == "leave" else -15)
            info = json.loads((terminal.state_dir / "kiosk.json").read_text())
            assert info["pid"] == os.getpid()
            # The request is gone: this kiosk does not take it as meant for itself.
            assert not (terminal.state_dir / "takeover.json").exists()
            assert not takeover_requested(terminal.state_dir)
        assert "asked to leave" in proc.stdout.read()
        said = [(r.levelname, r.getMessage()) for r in caplog.records]
        if holder == "stay":
            assert (
                "WARNING",
                f"terminal counter-1 taken over: sending SIGTERM to the old kiosk, pid {proc.pid}: "
                "it had not left 2 s after it was asked to "
                "(stopped, or blocked on a dead terminal)",
            ) in said, said
            assert (
                "INFO",
                f"terminal counter-1 taken over from the old kiosk, pid {proc.pid}, ended by "
                "SIGTERM",
            ) in said, said
        else:
            assert said == [
                (
                    "INFO",
                    f"terminal counter-1 taken over from the old kiosk, pid {proc.pid}, which "
                    "left when asked",
                )
            ]
    finally:
        proc.kill()
        proc.wait()


def test_a_hung_up_terminal_is_seen(tmp_path: Path) -> None:
    import pty

    master, slave = pty.openpty()
    try:
        assert not tty_gone(slave)
        os.close(master)  # the SSH server (the terminal emulator) has gone
        assert tty_gone(slave)
    finally:
        os.close(slave)
    assert tty_gone(slave)  # closed: no terminal either


def test_terminal_folder_is_private(home: Path) -> None:
    with claim_terminal(Settings(terminal_id="counter-1")) as terminal:
        assert stat.S_IMODE(terminal.state_dir.stat().st_mode) == 0o700
        assert terminal.state_dir == terminal_dir(Settings(terminal_id="counter-1"), "counter-1")


def test_atomic_write_replaces_whole_with_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.json"
    paths.atomic_write(target, '{"a": 1}')
    assert target.read_text() == '{"a": 1}'
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    paths.atomic_write(target, b"new", mode=0o644)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    # No temporary file is left behind.
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]


def test_atomic_write_that_fails_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "own" / "file.txt"
    paths.atomic_write(target, "old")
    with pytest.raises(TypeError):
        paths.atomic_write(target, 12345)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]
