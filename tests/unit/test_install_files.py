"""The files a counter's install needs (issue 23), shipped in the package (kiosk/deploy) and
printed or written by `kiosk install-files`: the sshd ForceCommand block, checked by the real
`sshd -t`/`sshd -T`, and the systemd unit of a counter with a local screen, checked by
`systemd-analyze verify`. Each check is skipped, with the reason, where the tool is missing
(.ci/run installs openssh-server when it can)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk import cli, install

SSHD = shutil.which("sshd") or next(
    (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.access(p, os.X_OK)), None
)
SSH_KEYGEN = shutil.which("ssh-keygen")
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
REAL_INTERPRETER_PROBLEM = install.interpreter_problem


@pytest.fixture(autouse=True)
def _interpreter_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root on an interpreter under root's home: its warning has a test of its own.
    monkeypatch.setattr(install, "interpreter_problem", lambda: None)


def test_install_files_prints_and_writes_the_shipped_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["install-files"]) == 0
    printed = capsys.readouterr().out
    for name in cli.INSTALL_FILES:
        assert f"# ---- {name} ----" in printed
        assert cli.install_file_text(name) in printed
    assert cli.main(["install-files", "--write", str(tmp_path / "etc")]) == 0
    for name in cli.INSTALL_FILES:
        assert (tmp_path / "etc" / name).read_text() == cli.install_file_text(name)
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert cli.main(["install-files", "--write", str(blocked / "x")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_sshd_block_says_what_a_counter_needs() -> None:
    block = cli.install_file_text("sshd_kiosk.conf")
    lines = [line.strip() for line in block.splitlines() if not line.strip().startswith("#")]
    setenv = [line for line in lines if line.startswith("SetEnv")]
    # One SetEnv line (sshd keeps only the first of a block) carrying both variables.
    assert len(setenv) == 1
    assert "KIOSK_TERMINAL_ID=" in setenv[0] and "KIOSK_KIOSK_MODE=1" in setenv[0]
    assert any(line.startswith("ClientAliveInterval") for line in lines)
    # Colours are the client's: nothing forces TERM or a colour system.
    assert "TEXTUAL_COLOR_SYSTEM" not in block and "TERM=" not in block
    assert any(line.startswith("ForceCommand") and "--kiosk" in line for line in lines)


def sshd_config(tmp_path: Path, block: str) -> Path:
    if SSHD is None or SSH_KEYGEN is None:
        pytest.skip("openssh-server is not installed (.ci/run installs it when run as root)")
    if not Path("/run/sshd").is_dir():
        pytest.skip("sshd -t needs /run/sshd (made by .ci/run, as root)")
    key = tmp_path / "host_key"
    if not key.exists():
        subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    config = tmp_path / "sshd_config"
    config.write_text(
        f"HostKey {key}\nPort 2222\nListenAddress 127.0.0.1\nPidFile {tmp_path / 'pid'}\n"
        f"UsePAM no\n{block}"
    )
    return config


def effective(config: Path, user: str) -> list[str]:
    assert SSHD is not None
    done = subprocess.run(
        [SSHD, "-T", "-f", str(config), "-C", f"user={user},host=counter,addr=192.0.2.7"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_sshd_block_passes_sshd_t(tmp_path: Path) -> None:
    config = sshd_config(tmp_path, cli.install_file_text("sshd_kiosk.conf"))
    assert SSHD is not None
    checked = subprocess.run(
        [SSHD, "-t", "-f", str(config)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    kiosk = effective(config, "kiosk")
    assert "forcecommand /opt/kiosk/bin/kiosk --kiosk" in kiosk
    assert (
        "clientaliveinterval 5" in kiosk
        and "clientalivecountmax 3" in kiosk
        and "permittty yes" in kiosk
    )
    assert "allowtcpforwarding no" in kiosk and "x11forwarding no" in kiosk
    setenv = [line for line in kiosk if line.startswith("setenv ")]
    assert any("KIOSK_TERMINAL_ID=counter-1" in line for line in setenv)
    assert any("KIOSK_KIOSK_MODE=1" in line for line in setenv)
    # Only that user: everyone else logs in as before.
    assert "forcecommand none" in effective(config, "someone-else")


def test_a_second_setenv_line_is_ignored_by_sshd(tmp_path: Path) -> None:
    """Why the block has one SetEnv line: the README's old tip (a second line) did nothing."""
    config = sshd_config(
        tmp_path, "Match User kiosk\n    SetEnv A=1\n    SetEnv KIOSK_TERMINAL_ID=counter-1\n"
    )
    setenv = " ".join(line for line in effective(config, "kiosk") if line.startswith("setenv"))
    assert "A=1" in setenv and "KIOSK_TERMINAL_ID" not in setenv


def test_the_console_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    if SYSTEMD_ANALYZE is None:
        pytest.skip("systemd-analyze is not installed")
    unit = cli.install_file_text("kiosk-console@.service")
    assert "Restart=always" in unit and "TTYPath=/dev/%I" in unit and "--kiosk" in unit
    # verify checks that ExecStart exists: point it at this environment's kiosk for the check.
    kiosk = str(Path(sys.executable).with_name("kiosk"))
    instance = tmp_path / "kiosk-console@tty1.service"
    instance.write_text(unit.replace("/opt/kiosk/bin/kiosk", kiosk))
    done = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", str(instance)], capture_output=True, text=True, timeout=60
    )
    problems = [line for line in done.stderr.splitlines() if instance.name in line]
    assert done.returncode == 0 and problems == [], done.stderr


def test_install_files_warns_as_root_when_others_cannot_run_the_kiosk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(install, "interpreter_problem", lambda: "the interpreter is closed")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert cli.main(["install-files"]) == 0
    assert capsys.readouterr().err == "kiosk: warning: the interpreter is closed\n"
    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # not root: not the one installing
    assert cli.main(["install-files"]) == 0
    assert capsys.readouterr().err == ""


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder every user may enter (pytest's own tmp folders are closed to others)."""
    folder = Path(tempfile.mkdtemp(prefix="kiosk-install-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_what_other_users_cannot_pass(open_tmp: Path) -> None:
    """The interpreter check: a folder on the way closed to other users (a Python under root's
    home), a file they may not run, a package folder they may not list."""
    shared = open_tmp / "shared"
    shared.mkdir(mode=0o755)
    python = shared / "python3"
    python.write_text("")
    python.chmod(0o755)
    private = open_tmp / "private"
    private.mkdir(mode=0o700)
    (private / "python3").write_text("")
    blocked = install._blocked_for_others
    assert blocked(python) is None
    assert blocked(private / "python3") == private
    python.chmod(0o700)
    assert blocked(python) == python
    shared.chmod(0o711)  # enterable but not listable: an import cannot find its modules
    assert blocked(shared) == shared
    if os.access("/usr/bin/python3", os.X_OK):
        assert blocked(Path("/usr/bin/python3")) is None
    problem = REAL_INTERPRETER_PROBLEM()
    assert problem is None or "pipx install --python /usr/bin/python3" in problem


def test_a_second_counter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`install-files --counter counter-2`: its own Match block (user kiosk-counter-2, terminal
    counter-2) and the steps for its user, key, settings (base URL, location), PIN and metrics
    port, which docs/counter.md shows as they are printed."""
    argv = ["--base-url", "https://sf.example/api/v1/storefront", "--location", "downtown"]
    assert cli.main([*argv, "install-files", "--counter", "counter-2"]) == 0
    printed = capsys.readouterr().out
    block = printed.split("# ---- sshd_kiosk-counter-2.conf ----\n")[1].split("\n# Counter")[0]
    assert "Match User kiosk-counter-2\n" in block
    assert "SetEnv KIOSK_TERMINAL_ID=counter-2 KIOSK_KIOSK_MODE=1" in block
    assert "useradd --create-home kiosk-counter-2" in printed
    assert "/home/kiosk-counter-2/.ssh/authorized_keys" in printed
    assert 'base_url = "https://sf.example/api/v1/storefront"' in printed
    assert 'location = "downtown"' in printed and 'metrics = "9465"' in printed
    assert "kiosk set-pin" in printed and "doctor --test-order" in printed
    assert install.counter_metrics_port("counter-1") == 9464
    assert install.counter_metrics_port("bar") == 9464

    assert cli.main(["install-files", "--counter", "counter-2", "--write", str(tmp_path)]) == 0
    written = tmp_path / "sshd_kiosk-counter-2.conf"
    assert written.read_text() == block
    steps = capsys.readouterr().out.split("\n", 2)[2]
    assert f"cat {written} >> /etc/ssh/sshd_config" in steps
    # docs/counter.md shows the steps as printed (the default base URL and location).
    doc = (Path(__file__).parents[2] / "docs" / "counter.md").read_text()
    shown = steps.replace(str(written), "/etc/kiosk/sshd_kiosk-counter-2.conf")
    assert shown in doc

    assert cli.main(["install-files", "--counter", "Counter 2"]) == 2
    assert "lower-case letters" in capsys.readouterr().err


def test_two_counters_blocks_pass_sshd_t(tmp_path: Path) -> None:
    shipped = cli.install_file_text("sshd_kiosk.conf")
    second = install.counter_block(shipped, "counter-2")
    config = sshd_config(tmp_path, shipped + second)
    assert SSHD is not None
    checked = subprocess.run(
        [SSHD, "-t", "-f", str(config)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    first, other = effective(config, "kiosk"), effective(config, "kiosk-counter-2")
    assert any("KIOSK_TERMINAL_ID=counter-1" in line for line in first)
    assert any("KIOSK_TERMINAL_ID=counter-2" in line for line in other)
    assert "forcecommand /opt/kiosk/bin/kiosk --kiosk" in other


def test_one_install_story_for_the_console_unit() -> None:
    """The unit's own comment and the README give the same steps, in the same order."""
    unit = cli.install_file_text("kiosk-console@.service")
    steps = [
        line.removeprefix("#").strip()
        for line in unit.split("Install (as root", 1)[1].splitlines()[1:]
        if line.startswith("#   ")
    ]
    assert len(steps) == 5 and steps[0].endswith("install-files --write /etc/kiosk")
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    said = [line.strip().removeprefix("sudo ") for line in readme.splitlines()]
    found = [said.index(step) for step in steps[1:] if step in said]
    assert len(found) == 4 and found == sorted(found), steps
    assert "sudo /opt/kiosk/bin/kiosk install-files --write /etc/kiosk" in readme
