"""The embedded backend is the `kiosk[demo]` extra (issue 14): without Starlette, `kiosk demo`
says what to install in one line and exits 2, before any UI; a counter terminal never needs it.
A command that needs several extras names them all at once, in the words of the tool that
installed the kiosk (issue 36: pipx inject, uv tool install --with, pip install)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.install import add_extras_command, extra_requirements

DEMO_EXTRA_MESSAGE = "the demo backend needs: pip install 'kiosk[demo]'"

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


@pytest.mark.parametrize(
    ("argv", "hidden", "said"),
    [
        (["demo"], ["starlette", "uvicorn"], DEMO_EXTRA_MESSAGE),
        (["demo-server", "--port", "1"], ["starlette", "uvicorn"], DEMO_EXTRA_MESSAGE),
        (["serve"], ["starlette", "uvicorn"], "kiosk serve needs: pip install 'kiosk[demo]'"),
        # Both of serve's extras missing: both named in one run, not one a run.
        (
            ["serve"],
            ["starlette", "uvicorn", "textual_serve"],
            "kiosk serve needs: pip install 'kiosk[demo,serve]'",
        ),
    ],
)
def test_demo_commands_without_the_extra_say_what_to_install(
    argv: list[str], hidden: list[str], said: str, tmp_path: Path
) -> None:
    done = run_without(hidden, f"from kiosk.cli import main\nsys.exit(main({argv!r}))", tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [f"kiosk: error: {said}"]
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


def test_the_words_of_the_tool_that_installed_the_kiosk(tmp_path: Path) -> None:
    """pipx and uv leave a mark in the venv they make; the command that adds an extra is theirs,
    with the folder that tool needs told (pipx without PIPX_HOME looks in root's own folder)."""
    wanted = [*extra_requirements("demo"), *extra_requirements("serve")]
    assert any(r.startswith("starlette") for r in wanted)
    assert any(r.startswith("textual-serve") for r in wanted)

    pipx_venv = tmp_path / "pipx" / "venvs" / "kiosk"
    pipx_venv.mkdir(parents=True)
    (pipx_venv / "pipx_metadata.json").write_text("{}")
    said = add_extras_command(["demo", "serve"], pipx_venv)
    assert said.startswith(f"PIPX_HOME={tmp_path / 'pipx'} pipx inject kiosk ")
    assert all(f"'{r}'" in said or f" {r}" in said for r in wanted), said

    uv_tool = tmp_path / "tools" / "kiosk"
    uv_tool.mkdir(parents=True)
    (uv_tool / "uv-receipt.toml").write_text(
        "[tool]\n"
        'requirements = [{ name = "kiosk", path = "/srv/kiosk-0.1.0-py3-none-any.whl" }]\n'
        'python = "/usr/bin/python3"\n'
    )
    said = add_extras_command(["demo", "serve"], uv_tool)
    assert said.startswith(
        f"UV_TOOL_DIR={tmp_path / 'tools'} uv tool install --python /usr/bin/python3 "
    )
    assert said.endswith(" /srv/kiosk-0.1.0-py3-none-any.whl")
    assert said.count("--with ") == len(wanted)

    assert add_extras_command(["metrics"], tmp_path) == "pip install 'kiosk[metrics]'"
