"""The `kiosk` command line: usage errors, config path/show, set-pin, refusals. No UI."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk import __version__, cli, paths
from kiosk.config import load_settings, verify_pin

KEY = "sk_live_Qw3rTy8UiOp2AsDf6GhJkL"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse exits on its own for --help, --version, usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    # "kiosk: error: ..." or, from a subcommand's parser, "kiosk demo: error: ..."
    assert lines[0].startswith("kiosk") and ": error: " in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["--bogus"],
        ["frobnicate"],
        ["config"],
        ["config", "delete"],
        ["demo-server", "--port", "eighty"],
        ["--log-level", "loud", "doctor"],
        ["demo", "--kiosk=yes"],
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    _one_line_error(err)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"kiosk {__version__}"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--help")
    assert code == 0
    for command in ("demo", "demo-server", "doctor", "config", "set-pin", "serve"):
        assert command in out


def test_config_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "config", "path")
    assert code == 0
    assert out.strip() == str(paths.config_dir() / "config.toml")


def test_config_show_redacts_the_key_from_env(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KIOSK_API_KEY", KEY)
    monkeypatch.setenv("KIOSK_LOCATION", "loc_1")
    code, out, err = _run(capsys, "config", "show")
    assert code == 0, err
    assert KEY not in out and KEY[3:12] not in out
    key_line = next(line for line in out.splitlines() if line.startswith("api_key"))
    assert "sk_…(redacted)" in key_line
    assert "set (from KIOSK_API_KEY)" in key_line
    assert "loc_1   [KIOSK_LOCATION]" in out


def test_config_show_redacts_the_key_from_the_secrets_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    secrets = paths.config_dir() / "secrets.toml"
    secrets.parent.mkdir(parents=True)
    secrets.write_text(f'api_key = "{KEY}"\n')
    secrets.chmod(0o600)
    code, out, _ = _run(capsys, "config", "show")
    assert code == 0
    assert KEY not in out
    assert f"set (from {secrets})" in out


def test_config_show_without_a_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "config", "show")
    assert code == 0
    assert any(line.startswith("api_key") and "not set" in line for line in out.splitlines())


def test_config_show_shows_flag_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--kiosk", "--log-level", "debug", "config", "show")
    assert code == 0
    assert "kiosk_mode" in out and "True   [command line]" in out
    assert "DEBUG   [command line]" in out


@pytest.mark.parametrize(
    ("argv", "env", "said"),
    [
        # Not set: the version doctor speaks (kiosk.runtime.dialect_for), not "-".
        ([], {}, "v2 (Storefront 2.0), not set: chosen from the base URL and key   [default]"),
        (
            ["--base-url", "https://legacy.example/api/v1"],
            {"KIOSK_API_KEY": KEY},
            "v1 (the legacy API), not set: chosen from the base URL and key   [default]",
        ),
        (["--api", "v1"], {}, "v1 (the legacy API)   [command line]"),
    ],
)
def test_config_show_names_the_dialect_doctor_speaks(
    argv: list[str],
    env: dict[str, str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = _run(capsys, *argv, "config", "show")
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("api_dialect"))
    assert line.split(None, 1)[1] == said


def test_a_world_readable_secrets_file_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    secrets = paths.config_dir() / "secrets.toml"
    secrets.parent.mkdir(parents=True)
    secrets.write_text(f'api_key = "{KEY}"\n')
    secrets.chmod(0o644)
    code, out, err = _run(capsys, "config", "show")
    assert code == 2
    line = _one_line_error(err)
    assert "chmod 600" in line and KEY not in err + out


def test_an_api_key_in_config_toml_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    config = paths.config_dir() / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'api_key = "{KEY}"\n')
    code, _, err = _run(capsys, "doctor")
    assert code == 2
    assert KEY not in _one_line_error(err)


def test_plain_http_to_a_remote_host_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KIOSK_API_KEY", KEY)
    code, _, err = _run(
        capsys, "--base-url", "http://api.example.com/api/v1", "--location", "x", "doctor"
    )
    assert code == 2
    assert "https" in _one_line_error(err)


@pytest.mark.parametrize(
    ("env", "argv", "needle"),
    [
        ({}, ["--profile", "production", "doctor"], "no base URL"),
        (
            {},
            # The legacy API, asked for, needs a location key (2.0, the default, does not).
            [
                "--api",
                "v1",
                "--base-url",
                "https://api.example.com/api/v1",
                "--location",
                "x",
                "doctor",
            ],
            "API key",
        ),
        (
            {"KIOSK_API_KEY": KEY},
            ["--base-url", "https://api.example.com/api/v1", "doctor"],
            "location",
        ),
        ({}, ["--profile", "nope", "config", "show"], "unknown profile"),
        ({}, ["demo", "--server", "http://10.1.2.3:8765/api/v1"], "https"),
    ],
)
def test_missing_configuration_is_named(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    argv: list[str],
    needle: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert needle in _one_line_error(err)


def test_flags_before_or_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    args = cli.build_parser().parse_args(["--profile", "staging", "doctor", "--location", "L"])
    assert (args.profile, args.location, args.command) == ("staging", "L", "doctor")
    args = cli.build_parser().parse_args(["demo", "--profile", "staging", "--kiosk"])
    assert (args.profile, args.kiosk_mode) == ("staging", True)
    # A flag given only before the command is not reset by the command's parser.
    args = cli.build_parser().parse_args(["--kiosk", "demo"])
    assert args.kiosk_mode is True


@pytest.mark.parametrize("command", ["doctor", "config show", "set-pin", "demo-server"])
def test_kiosk_mode_is_refused_where_it_means_nothing(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, _, err = _run(capsys, *command.split(), "--kiosk")
    assert code == 2
    assert "unrecognized arguments: --kiosk" in _one_line_error(err)


@pytest.mark.parametrize("command", [*cli.COMMANDS])
def test_every_command_has_help_with_an_example(
    capsys: pytest.CaptureFixture[str], command: str | None
) -> None:
    code, out, _ = _run(capsys, *([command] if command else []), "--help")
    assert code == 0
    assert "examples:" in out
    assert f"kiosk {command or ''}".strip() in out.split("examples:")[1]


def test_run_is_a_command_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.COMMANDS["run"] is cli.COMMANDS[None]
    args = cli.build_parser().parse_args(["run", "--location", "L", "--terminal-id", "t-1"])
    assert (args.command, args.location, args.terminal_id) == ("run", "L", "t-1")
    _, out, _ = _run(capsys, "--help")
    assert "run the kiosk on the configured backend" in out


@pytest.mark.parametrize("command", ["demo-server", "serve"])
def test_servers_refuse_a_remote_host(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, _, err = _run(capsys, command, "--host", "0.0.0.0")
    assert code == 2
    assert "--allow-remote" in _one_line_error(err)


def test_set_pin_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("97531\n"))
    code, out, _ = _run(capsys, "set-pin", "--stdin")
    assert code == 0
    assert "97531" not in out
    stored = load_settings(env={}).staff_pin_hash
    assert verify_pin("97531", stored)
    assert not verify_pin("97532", stored)
    assert "97531" not in (paths.config_dir() / "config.toml").read_text()


def test_set_pin_interactive_asks_again(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short PIN or two that differ ask again (staff at a counter); three misses end it."""
    answers = iter(["12", "2468", "2469", "2468", "2468"])
    prompts: list[str] = []
    monkeypatch.setattr(
        "getpass.getpass", lambda prompt="": prompts.append(prompt) or next(answers)
    )
    code, _, err = _run(capsys, "set-pin")
    assert code == 0
    assert len(prompts) == 5
    assert "4 to 12 digits; try again" in err and "the two PINs differ; try again" in err
    assert verify_pin("2468", load_settings(env={}).staff_pin_hash)

    answers = iter(["1", "2", "3"])
    code, _, err = _run(capsys, "set-pin")
    assert code == 2
    assert "nothing was changed" in err.strip().splitlines()[-1]
    assert verify_pin("2468", load_settings(env={}).staff_pin_hash)


def test_an_unknown_setting_says_what_was_meant(
    capsys: pytest.CaptureFixture[str], kiosk_home: Path
) -> None:
    config = paths.config_dir() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("kiosk_mod = true\n")
    code, _, err = _run(capsys, "config", "show")
    assert code == 2
    assert "unknown setting 'kiosk_mod'; did you mean 'kiosk_mode'?" in _one_line_error(err)
    config.write_text("zzzz = 1\n")
    code, _, err = _run(capsys, "config", "show")
    assert "did you mean" not in _one_line_error(err)


def test_a_demo_location_that_does_not_exist_fails_before_the_tui(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[object] = []
    monkeypatch.setattr(cli, "_run_tui", lambda *a: started.append(a) or 0)
    code, _, err = _run(capsys, "demo", "--location", "typo")
    assert code == 2 and started == []
    line = _one_line_error(err)
    assert "'typo'" in line and "lantern-downtown" in line
    assert _run(capsys, "demo", "--location", "lantern-downtown")[0] == 0
    assert len(started) == 1


def test_a_session_without_a_terminal_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    claimed: list[object] = []
    monkeypatch.setattr("kiosk.terminal.claim_terminal", lambda *a, **k: claimed.append(a))
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # `ssh -T`: input is not a terminal
    code, _, err = _run(capsys, "demo")
    assert code == 2 and claimed == []  # refused before the terminal's lock is taken
    assert "no terminal" in _one_line_error(err)


def test_every_flag_has_help_and_shows_its_default() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, command in [("kiosk", parser), *sub.choices.items()]:
        for action in command._actions:
            if not action.option_strings or action.dest in ("help", "version"):
                continue
            flag = f"{name} {action.option_strings[0]}"
            if not action.help:
                missing.append(f"{flag}: no help")
            elif action.default not in (None, False, argparse.SUPPRESS) and (
                "default" not in action.help
            ):
                missing.append(f"{flag}: default {action.default!r} not shown")
    assert missing == []


def test_set_pin_refuses_a_bad_pin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n"))
    code, _, err = _run(capsys, "set-pin", "--stdin")
    assert code == 2
    assert "digits" in _one_line_error(err)


def test_a_real_process_prints_one_line_and_no_traceback(kiosk_home: Path) -> None:
    env = {**os.environ, "KIOSK_HOME": str(kiosk_home)}
    done = subprocess.run(
        [sys.executable, "-m", "kiosk", "--profile", "production", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no base URL" in done.stderr


def test_importing_the_cli_stays_light() -> None:
    # `kiosk --help` and the first frame pay for what kiosk.cli imports at module level.
    code = (
        "import sys, kiosk.cli; "
        "names = ('textual', 'httpx', 'pydantic', 'starlette', 'kiosk.demo', 'kiosk.api'); "
        "print([m for m in names if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("command", ["demo-server", "serve"])
def test_a_busy_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str], command: str) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = _run(capsys, command, "--port", str(port))
    assert code == 2
    assert out == ""
    assert f"cannot listen on 127.0.0.1 port {port}" in _one_line_error(err)


def test_dev_alone_prints_its_usage_not_its_code(tmp_path: Path) -> None:
    """`./dev` and `./dev help` list the commands (exit 0); a mistyped command says so (exit 2).
    Run from a copy in an empty folder: were the usage checked after the install step, the missing
    pyproject.toml would fail the run instead of touching any virtualenv."""
    script = tmp_path / "dev"
    script.write_text((Path(__file__).parents[2] / "dev").read_text())
    for argv in ([], ["help"], ["--help"]):
        done = subprocess.run(["bash", str(script), *argv], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "./dev demo" in done.stdout and "./dev kiosk" in done.stdout
        assert "set -euo" not in done.stdout and "#" not in done.stdout
    wrong = subprocess.run(["bash", str(script), "frob"], capture_output=True, text=True)
    assert wrong.returncode == 2
    assert "unknown command 'frob'" in wrong.stderr and "./dev test" in wrong.stderr
    assert "installing" not in wrong.stderr


def _services(*, demo: bool, embedded: bool, profile: str, url: str) -> object:
    from types import SimpleNamespace

    return SimpleNamespace(
        demo_backend=object() if embedded else None,
        clients={"loc": SimpleNamespace(base_url=url)},
        demo=demo,
        settings=SimpleNamespace(profile=profile),
    )


@pytest.mark.parametrize(
    ("demo", "embedded", "profile", "said", "not_said"),
    [
        (True, True, "demo", "the embedded demo backend (in this process)", "server"),
        (True, False, "demo", "the demo server at http://127.0.0.1:8765/api/v1", "embedded"),
        # A real backend under the default profile: not called a demo.
        (False, False, "demo", "the backend at http://127.0.0.1:8765/api/v1", "demo"),
        (False, False, "staging", "(profile staging)", "embedded"),
    ],
)
def test_doctor_names_the_backend_as_it_is(
    demo: bool, embedded: bool, profile: str, said: str, not_said: str
) -> None:
    from kiosk.doctor import _backend_text

    services = _services(
        demo=demo, embedded=embedded, profile=profile, url="http://127.0.0.1:8765/api/v1"
    )
    text = _backend_text(services)  # type: ignore[arg-type]
    assert said in text
    assert not_said not in text.replace("http://127.0.0.1:8765/api/v1", "")


def test_doctor_budget_line_says_what_is_left() -> None:
    from types import SimpleNamespace

    from kiosk.api.client import RateBudget
    from kiosk.doctor import _budget_text

    now = [1000.0]
    budget = RateBudget(200, lambda: now[0], self_counted=True, window=600.0)
    for _ in range(13):
        budget.note_sent()
    fine, text = _budget_text(SimpleNamespace(rate_budget=budget))  # type: ignore[arg-type]
    assert fine
    assert text.startswith("rate budget: 187 of 200 requests still available")
    assert "counted by this kiosk" in text
    # Neither "used", "spent" nor a bare reset countdown: what is left comes first.
    assert "spent" not in text and "used" not in text
    unknown = RateBudget(200, lambda: now[0])
    fine, text = _budget_text(SimpleNamespace(rate_budget=unknown))  # type: ignore[arg-type]
    assert fine and "unknown" in text


def _fake_dev(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A copy of ./dev with a stand-in python whose `-m venv [--without-pip] DIR` makes
    DIR/bin/{python,kiosk}, which log their arguments, and a stand-in uv that logs its own."""
    (tmp_path / "dev").write_text((Path(__file__).parents[2] / "dev").read_text())
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    calls = tmp_path / "calls.log"
    fake = tmp_path / "fake-python"
    fake.write_text(
        "#!/usr/bin/env bash\n"
        # What it says it is (./dev's stamp, line 3): FAKE_ID.
        'if [ "$1" = "-c" ]; then echo "${FAKE_ID:-fake 3.11}"; exit 0; fi\n'
        'if [ "$1 $2" = "-m venv" ]; then\n'
        '  dir="${!#}"\n'
        f'  echo "venv $*" >>{calls}\n'
        '  mkdir -p "$dir/bin"\n'
        "  for tool in python kiosk; do\n"
        f'    printf \'#!/usr/bin/env bash\\necho "%s $*" >>{calls}\\n\' "$tool" \\\n'
        '      >"$dir/bin/$tool"\n'
        '    chmod +x "$dir/bin/$tool"\n'
        "  done\n"
        "fi\n"
    )
    fake.chmod(0o755)
    uv = tmp_path / "fake-uv"
    uv.write_text(f'#!/usr/bin/env bash\necho "uv $*" >>{calls}\n')
    uv.chmod(0o755)
    return fake, uv, calls


def test_dev_installs_only_what_each_command_needs_and_remembers_it(tmp_path: Path) -> None:
    """`./dev demo` installs .[demo] alone; `./dev test` adds .[dev]; neither installs again
    while pyproject.toml is unchanged; a changed pyproject.toml reinstalls every extra there. Run in
    a copy with a stand-in python whose venv records each pip call instead of installing (pip
    only: DEV_UV set empty)."""
    fake, _, calls = _fake_dev(tmp_path)

    def dev(*argv: str) -> list[str]:
        before = calls.read_text().splitlines() if calls.exists() else []
        env = {**os.environ, "PYTHON": str(fake), "DEV_UV": ""}
        done = subprocess.run(
            ["bash", str(tmp_path / "dev"), *argv], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        after = calls.read_text().splitlines()
        return after[len(before) :]

    def installs(lines: list[str]) -> list[str]:
        return [line.split()[-1] for line in lines if "pip install" in line]

    # No terminal here (captured output): pip is quiet.
    first = dev("demo")
    assert installs(first) == [".[demo]"], first
    assert all("--quiet" in line for line in first if "pip install" in line)
    assert first[-1] == "kiosk demo"
    assert installs(dev("demo")) == []
    assert installs(dev("test", "-q")) == [".[demo,dev]"]
    assert installs(dev("demo")) == []
    assert installs(dev("kiosk", "doctor")) == [".[demo,dev,serve]"]
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    assert installs(dev("demo")) == [".[demo,dev,serve]"]


def test_dev_makes_the_venv_again_from_another_interpreter(tmp_path: Path) -> None:
    """The stamp names the interpreter the venv was made from: a venv from another one (the
    system's Python chosen over pyenv's, or PYTHON changed) is made again, and then kept."""
    fake, uv, calls = _fake_dev(tmp_path)

    def dev(made_from: str) -> list[str]:
        calls.unlink(missing_ok=True)
        env = {**os.environ, "PYTHON": str(fake), "DEV_UV": str(uv), "FAKE_ID": made_from}
        done = subprocess.run(
            ["bash", str(tmp_path / "dev"), "demo"], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return calls.read_text().splitlines()

    assert dev("/root/.pyenv/versions/3.11.7 3.11.7")[0].startswith("venv -m venv")
    assert dev("/root/.pyenv/versions/3.11.7 3.11.7") == ["kiosk demo"]
    (tmp_path / ".venv" / "left-over").write_text("")
    again = dev("/usr 3.11.2")
    assert again[0].startswith("venv -m venv") and again[-1] == "kiosk demo"
    assert not (tmp_path / ".venv" / "left-over").exists()  # a new venv, not one patched
    assert (tmp_path / ".venv" / ".installed").read_text().splitlines()[2] == "/usr 3.11.2"
    assert dev("/usr 3.11.2") == ["kiosk demo"]


def test_dev_compiles_the_packages_for_the_tests_not_for_the_demo(tmp_path: Path) -> None:
    """uv compiles nothing unless asked: the demo's first start compiles what it imports; the
    tests' install asks uv to compile (else four workers compiled the same modules at once)."""
    fake, uv, calls = _fake_dev(tmp_path)
    env = {**os.environ, "PYTHON": str(fake), "DEV_UV": str(uv)}

    def uv_line(*argv: str) -> str:
        calls.unlink(missing_ok=True)
        done = subprocess.run(
            ["bash", str(tmp_path / "dev"), *argv], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return next(line for line in calls.read_text().splitlines() if line.startswith("uv "))

    assert "--compile-bytecode" not in uv_line("demo")
    assert "--compile-bytecode" in uv_line("test", "-q")


def test_dev_installs_with_uv_where_it_has_one_and_pip_when_uv_fails(tmp_path: Path) -> None:
    """With a uv (DEV_UV, on PATH, or fetched once into the user's cache) ./dev makes the venv
    without pip (0.1 s, not ensurepip's 7 s) and installs with uv (issue 36: `./dev demo` on a
    fresh clone in 10 s, not 31); a uv that fails leaves the install to pip, pip put in first."""
    fake, uv, calls = _fake_dev(tmp_path)

    def dev(uv_path: str) -> list[str]:
        calls.unlink(missing_ok=True)
        env = {**os.environ, "PYTHON": str(fake), "DEV_UV": uv_path}
        done = subprocess.run(
            ["bash", str(tmp_path / "dev"), "demo"], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return calls.read_text().splitlines()

    lines = dev(str(uv))
    assert lines[0].startswith("venv -m venv --without-pip ")
    assert lines[1].startswith("uv pip install --quiet --python ") and lines[1].endswith(".[demo]")
    assert lines[2:] == ["kiosk demo"]  # no pip at all

    shutil.rmtree(tmp_path / ".venv")
    failing = tmp_path / "failing-uv"
    failing.write_text(f'#!/usr/bin/env bash\necho "uv $*" >>{calls}\nexit 1\n')
    failing.chmod(0o755)
    lines = dev(str(failing))
    assert lines[1].startswith("uv pip install")
    pip = [line for line in lines if "-m pip install" in line]
    assert len(pip) == 1 and pip[0].endswith(".[demo]"), lines
    assert lines[-1] == "kiosk demo"
