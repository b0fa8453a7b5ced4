"""Issue 35, item 4: every folder the kiosk makes, KIOSK_HOME included, is 0700 and every file 0600,
whatever the umask: the tree is walked after a demo order (the doctor's test order as a command,
and the kiosk's own pieces in-process: terminal, read cache, resume file, log, database)."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk import paths
from kiosk.config import Settings
from kiosk.logs import setup_logging, shutdown_logging
from kiosk.runtime import build_demo_services, shared_cache
from kiosk.terminal import claim_terminal


def modes(home: Path) -> dict[str, str]:
    """Each path of the tree (home itself included) whose mode is not the private one."""
    wrong = {}
    for path in (home, *home.rglob("*")):
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode != (0o700 if path.is_dir() else 0o600):
            wrong[str(path.relative_to(home.parent))] = oct(mode)
    return wrong


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_demo_test_order_leaves_a_private_tree(tmp_path: Path) -> None:
    home = tmp_path / "made-by-the-kiosk"  # not there: the kiosk makes it
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIOSK_")}
    env["KIOSK_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-m", "kiosk", "doctor", "--demo", "--test-order"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        umask=0o022,  # the usual one: what the kiosk makes must not depend on it
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "order number A001" in done.stdout
    made = {p.relative_to(home).as_posix() for p in home.rglob("*")}
    assert {"log/kiosk.log", "data/demo.sqlite3", "data/demo.sqlite3.key"} <= made
    assert modes(home) == {}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
async def test_the_kiosks_own_folders_and_files_are_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kiosk.doctor import run_test_order

    home = tmp_path / "made-in-process"
    monkeypatch.setenv("KIOSK_HOME", str(home))
    old = os.umask(0o022)
    try:
        settings = Settings()
        setup_logging("INFO")
        with claim_terminal(settings):
            services = build_demo_services(settings, disk_cache=shared_cache(settings))
            try:
                assert await run_test_order(services, io.StringIO())
            finally:
                await services.aclose()  # type: ignore[attr-defined]
        paths.atomic_write(paths.state_dir() / "deeper" / "still" / "a-file.json", "{}")
    finally:
        os.umask(old)
        shutdown_logging()
    tops = {p.name for p in home.iterdir()}
    assert {"state", "cache", "data", "log"} <= tops, tops
    assert modes(home) == {}
