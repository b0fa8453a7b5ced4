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
from pathlib import Path

import pytest

from kiosk import cli

SSHD = shutil.which("sshd") or next(
    (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.access(p, os.X_OK)), None
)
SSH_KEYGEN = shutil.which("ssh-keygen")
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


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
    assert "clientaliveinterval 15" in kiosk and "permittty yes" in kiosk
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
