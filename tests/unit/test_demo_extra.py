"""The embedded backend is the `kiosk[demo]` extra (issue 14): without Starlette, `kiosk demo`
says what to install in one line and exits 2, before any UI; a counter terminal never needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.runtime import DEMO_EXTRA_MESSAGE

ROOT = Path(__file__).resolve().parents[2]


def run_without(modules: list[str], code: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter where importing each of `modules` fails, as when the extra
    is not installed."""
    hide = "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    return subprocess.run(
        [sys.executable, "-c", f"import sys\n{hide}{code}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"KIOSK_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


@pytest.mark.parametrize("argv", [["demo"], ["demo-server", "--port", "1"], ["serve"]])
def test_demo_commands_without_the_extra_say_what_to_install(
    argv: list[str], tmp_path: Path
) -> None:
    done = run_without(
        ["starlette", "uvicorn"],
        f"from kiosk.cli import main\nsys.exit(main({argv!r}))",
        tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [f"kiosk: error: {DEMO_EXTRA_MESSAGE}"]
    assert "Traceback" not in done.stderr


def test_in_process_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)
    assert main(["demo"]) == 2
    assert capsys.readouterr().err == f"kiosk: error: {DEMO_EXTRA_MESSAGE}\n"


def test_a_counter_terminal_starts_without_the_extra(tmp_path: Path) -> None:
    """The kiosk on a real backend builds its services and imports its whole UI without
    Starlette or uvicorn."""
    code = (
        "from kiosk.config import Settings\n"
        "from kiosk.runtime import build_remote_services\n"
        "import kiosk.tui.app, kiosk.tui.screens.location, kiosk.tui.screens.menu\n"
        "s = Settings(profile='production', base_url='https://api.example.com/api/v1/storefront',"
        " location='loc_1')\n"
        "services = build_remote_services(s)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')"
        " and sys.modules[m] is not None))\n"
    )
    done = run_without(["starlette", "uvicorn"], code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
