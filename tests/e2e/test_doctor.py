"""`kiosk doctor` against the demo backend served by a real uvicorn on 127.0.0.1; a dead port."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kiosk import cli
from kiosk.demo.app import create_app
from kiosk.demo.data import AIRPORT, DOWNTOWN, WESTSIDE
from kiosk.demo.server import ServerThread


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    app = create_app(tmp_path_factory.mktemp("demo") / "demo.sqlite3")
    with ServerThread(app) as server:
        yield server
    app.state.backend.close()


def _doctor(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    base_url: str,
    key: str,
    location: str,
) -> tuple[int, str]:
    monkeypatch.setenv("KIOSK_API_KEY", key)
    code = cli.main(["doctor", "--base-url", base_url, "--location", location])
    out, err = capsys.readouterr()
    assert key not in out + err
    return code, out


def _tagged(out: str, tag: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(tag)]


def test_a_good_backend(
    demo_server: ServerThread, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = _doctor(capsys, monkeypatch, demo_server.base_url, DOWNTOWN.api_key, DOWNTOWN.id)
    assert code == 0, out
    assert _tagged(out, "FAIL") == []
    assert len(_tagged(out, "OK")) == 6, out
    assert "this kiosk speaks v1 (its setting), which the server answers" in out
    assert "API key (from KIOSK_API_KEY) is accepted" in out
    assert f"location {DOWNTOWN.id} readable: {DOWNTOWN.name!r}" in out
    products = re.search(r"(\d+) products", out)
    assert products is not None and int(products.group(1)) > 0
    budget = re.search(r"rate budget: (\d+) of (\d+) requests still available", out)
    assert budget is not None and 0 < int(budget.group(1)) < int(budget.group(2))
    # The cart the doctor made is gone from the backend.
    cart = re.search(r"created cart (\S+) and deleted it", out)
    assert cart is not None
    gone = httpx.get(
        f"{demo_server.base_url}/locations/{DOWNTOWN.id}/carts/{cart.group(1)}",
        headers={"X-API-Key": DOWNTOWN.api_key},
    )
    assert gone.status_code == 404


def test_a_slug_works_as_the_location(
    demo_server: ServerThread, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = _doctor(capsys, monkeypatch, demo_server.base_url, WESTSIDE.api_key, WESTSIDE.slug)
    assert code == 0, out


def test_a_wrong_key(
    demo_server: ServerThread, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "sk_demo_downtown_NOT_THE_RIGHT_KEY_000"
    code, out = _doctor(capsys, monkeypatch, demo_server.base_url, wrong, DOWNTOWN.id)
    assert code == 1
    fails = _tagged(out, "FAIL")
    assert len(fails) == 1
    assert "the API key was refused (HTTP 401)" in fails[0]
    # The legacy API is there (its refusal says so); nothing else passed.
    assert _tagged(out, "OK") == [
        "OK   this kiosk speaks v1 (its setting), which the server answers"
    ]


@pytest.mark.parametrize("key", [WESTSIDE.api_key, AIRPORT.api_key], ids=["other", "unsubscribed"])
def test_a_key_not_valid_here(
    demo_server: ServerThread,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    key: str,
) -> None:
    code, out = _doctor(capsys, monkeypatch, demo_server.base_url, key, DOWNTOWN.id)
    assert code == 1
    fails = _tagged(out, "FAIL")
    assert len(fails) == 1 and "HTTP 403" in fails[0], out
    assert "subscription" in fails[0]


def test_an_unreachable_port(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Nothing listens there now.
    base_url = f"http://127.0.0.1:{port}/api/v1"
    code, out = _doctor(capsys, monkeypatch, base_url, DOWNTOWN.api_key, DOWNTOWN.id)
    assert code == 1
    fails = _tagged(out, "FAIL")
    assert len(fails) == 1
    assert f"cannot reach {base_url}" in fails[0]
    assert "ConnectError" in fails[0]


def test_nothing_configured_is_one_line_naming_the_demo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Never "all checks passed" on make-believe: no backend is no backend.
    code = cli.main(["doctor"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "`kiosk demo`" in err
    assert "passed" not in err


def test_the_embedded_demo_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    # --demo: the backend in-process, every demo location checked.
    code = cli.main(["doctor", "--demo"])
    out, _ = capsys.readouterr()
    assert code == 0, out
    assert "the embedded demo backend (in this process), 2 location(s)" in out
    assert len(_tagged(out, "OK")) == 12
    assert "this kiosk speaks 2.0 (its setting)" in out
    for key in (DOWNTOWN.api_key, WESTSIDE.api_key):
        assert key not in out


def test_a_demo_server_is_named_by_its_url_not_embedded(
    demo_server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    # --server: a `kiosk demo-server`, not in-process.
    code = cli.main(["doctor", "--server", demo_server.base_url])
    out, _ = capsys.readouterr()
    assert code == 0, out
    first = out.splitlines()[0]
    assert f"the demo server at {demo_server.base_url}" in first
    assert "embedded" not in first


def test_exit_status_of_a_real_process(demo_server: ServerThread, kiosk_home: Path) -> None:
    base = [sys.executable, "-m", "kiosk", "doctor", "--base-url", demo_server.base_url]
    env = {**os.environ, "KIOSK_HOME": str(kiosk_home)}
    good = subprocess.run(
        [*base, "--location", DOWNTOWN.id],
        env={**env, "KIOSK_API_KEY": DOWNTOWN.api_key},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    bad = subprocess.run(
        [*base, "--location", DOWNTOWN.id],
        env={**env, "KIOSK_API_KEY": "sk_demo_wrong_key_123456"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    assert "FAIL" in bad.stdout and "401" in bad.stdout
    assert "Traceback" not in bad.stderr


def test_a_demo_server_uses_the_demo_keys(
    demo_server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["doctor", "--server", demo_server.base_url])
    out, _ = capsys.readouterr()
    assert code == 0, out
    # Without a key the kiosk speaks 2.0 to a demo server (which answers both versions).
    assert f"backend {demo_server.base_url}/storefront answered" in out
    assert len(_tagged(out, "OK")) == 12
