"""The composition root (kiosk.runtime) and how the CLI hands its services to the TUI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk import cli, logs, paths, runtime
from kiosk.config import ConfigError, load_settings
from kiosk.demo.data import DOWNTOWN, MERCHANT_SLUG, WESTSIDE
from kiosk.ordering.services import KioskServices
from kiosk.terminal import derive_terminal_id


@pytest.fixture(autouse=True)
def _as_if_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests run the CLI under pytest (no terminal) with a stand-in app; the refusal of a
    session without a terminal has its own tests (test_cli.py, tests/e2e/test_two_kiosks.py)."""
    monkeypatch.setattr(cli, "require_terminal", lambda env=None: None)


KEY = "sk_live_RuntimeKey_abcdef0123"


async def test_embedded_demo_services() -> None:
    services = runtime.build_demo_services(load_settings(env={}))
    try:
        assert services.demo is True
        assert services.location_ids == [DOWNTOWN.id, WESTSIDE.id]
        assert services.merchant_slug == MERCHANT_SLUG
        # One folder a profile and a terminal (kiosk.terminal).
        assert services.state_dir == paths.state_dir() / "demo" / "terminals" / derive_terminal_id()
        # Each location's client carries its own key: both are accepted by the in-process backend.
        for loc in (DOWNTOWN, WESTSIDE):
            location = await services.client_for(loc.id).get_location(loc.id)
            assert location.restaurant_display_name == loc.name
        # The demo database went to the data dir.
        assert (paths.data_dir() / "demo.sqlite3").exists()
    finally:
        await services.aclose()
    assert all(c.is_closed for c in services.clients.values())
    assert services.closers == []


async def test_demo_keys_are_registered_for_redaction() -> None:
    services = runtime.build_demo_services(load_settings(env={}))
    await services.aclose()
    assert logs.REDACTOR.redact(f"x {WESTSIDE.api_key} y") == "x [redacted] y"


@pytest.mark.parametrize("wanted", [WESTSIDE.id, WESTSIDE.slug])
async def test_demo_one_location_by_id_or_slug(wanted: str, tmp_path: Path) -> None:
    services = runtime.build_demo_services(
        load_settings(env={}), location=wanted, db_path=tmp_path / "d.sqlite3"
    )
    try:
        assert services.location_ids == [WESTSIDE.id]
        assert list(services.clients) == [WESTSIDE.id]
        with pytest.raises(LookupError):
            services.client_for(DOWNTOWN.id)
    finally:
        await services.aclose()
    assert (tmp_path / "d.sqlite3").exists()


def test_demo_unknown_location_lists_the_real_ones() -> None:
    with pytest.raises(ConfigError) as info:
        runtime.build_demo_services(load_settings(env={}), location="nowhere")
    assert DOWNTOWN.id in str(info.value) and WESTSIDE.slug in str(info.value)


def test_demo_over_http_refuses_a_remote_plain_http_server() -> None:
    with pytest.raises(ConfigError, match="https"):
        runtime.build_demo_services(load_settings(env={}), base_url="http://10.0.0.9:8765/api/v1")


async def test_remote_services() -> None:
    seen: list[httpx.Request] = []

    def backend(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": "loc_9", "restaurantDisplayName": "Nine"})

    settings = load_settings(
        env={"KIOSK_API_KEY": KEY, "KIOSK_PROFILE": "production"},
        flags={"base_url": "https://api.example.com/api/v1", "location": "loc_9", "merchant": "m"},
    )
    services = runtime.build_remote_services(settings, transport=httpx.MockTransport(backend))
    try:
        assert services.demo is False
        assert services.location_ids == ["loc_9"]
        assert services.merchant_slug == "m"
        assert services.state_dir == (
            paths.state_dir() / "production" / "terminals" / derive_terminal_id()
        )
        await services.client_for("loc_9").get_location("loc_9")
    finally:
        await services.aclose()
    assert str(seen[0].url) == "https://api.example.com/api/v1/locations/loc_9"
    assert seen[0].headers["X-API-Key"] == KEY
    assert KEY not in repr(services)


@pytest.mark.parametrize(
    ("env", "flags", "needle"),
    [
        ({"KIOSK_API_KEY": KEY}, {"location": "l", "profile": "staging"}, "no base URL"),
        (
            {},
            {"location": "l", "base_url": "https://a.example/api/v1", "api_dialect": "v1"},
            "no API key",
        ),
        ({"KIOSK_API_KEY": KEY}, {"base_url": "https://a.example/api/v1"}, "no location"),
    ],
)
def test_remote_services_name_what_is_missing(
    env: dict[str, str], flags: dict[str, object], needle: str
) -> None:
    settings = load_settings(env=env, flags=flags)
    with pytest.raises(ConfigError, match=needle):
        runtime.build_remote_services(settings)
    # The factory says so before any UI starts.
    with pytest.raises(ConfigError, match=needle):
        runtime.services_factory(settings, demo=False)


async def test_the_factory_builds_the_demo() -> None:
    factory = runtime.services_factory(load_settings(env={}), demo=True, location=DOWNTOWN.slug)
    services = await factory()
    try:
        assert services.location_ids == [DOWNTOWN.id]
        await services.client_for(DOWNTOWN.id).get_location(DOWNTOWN.id)
    finally:
        await services.aclose()


def test_runtime_defers_the_heavy_imports() -> None:
    code = (
        "import sys, kiosk.runtime; "
        "names = ('textual', 'httpx', 'starlette', 'kiosk.demo', 'kiosk.api', 'uvicorn'); "
        "print([m for m in names if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


class _Recorder:
    """Stands in for kiosk.tui.app.KioskApp: takes what the CLI gives and awaits the factory, as
    the real app does after its first frame (the real app is exercised by the TUI's tests)."""

    def __init__(self) -> None:
        self.services: KioskServices | None = None

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import asyncio

        import kiosk.tui.app

        recorder = self

        class FakeApp:
            return_code = 0

            def __init__(
                self,
                services: KioskServices | None = None,
                *,
                services_factory: runtime.ServicesFactory | None = None,
                settings: Any = None,
            ) -> None:
                # The settings come first (kiosk mode holds on the boot screen).
                assert settings is not None
                assert services is None, "the CLI should hand the app a factory, not services"
                assert services_factory is not None
                self.factory = services_factory

            def run(self) -> None:
                recorder.services = asyncio.run(self.factory())

            @property
            def services(self) -> KioskServices | None:
                return recorder.services

        monkeypatch.setattr(kiosk.tui.app, "KioskApp", FakeApp)


def test_kiosk_demo_hands_the_app_a_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    assert cli.main(["demo", "--kiosk", "--location", WESTSIDE.slug, "--log-level", "debug"]) == 0
    services = recorder.services
    assert services is not None
    assert services.demo and services.location_ids == [WESTSIDE.id]
    assert services.settings.kiosk_mode is True
    assert services.settings.profile == "demo"
    assert services.settings.log_level == "DEBUG"
    # The CLI closed what the (stand-in) app left open.
    assert services.closers == []
    assert all(c.is_closed for c in services.clients.values())
    assert (paths.log_dir() / "kiosk.log").parent.is_dir()
    logs.shutdown_logging()


@pytest.mark.parametrize("argv", [[], ["run"]])
def test_kiosk_without_config_names_the_demo_command_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # A counter never takes make-believe orders by accident: no backend, no kiosk.
    recorder = _Recorder()
    recorder.install(monkeypatch)
    assert cli.main(argv) == 2
    assert recorder.services is None
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "`kiosk demo`" in lines[0] and "--base-url" in lines[0], err


def test_kiosk_with_a_base_url_runs_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    monkeypatch.setenv("KIOSK_API_KEY", KEY)
    code = cli.main(["--base-url", "https://api.example.com/api/v1", "--location", "loc_9"])
    assert code == 0
    services = recorder.services
    assert services is not None and not services.demo
    assert services.location_ids == ["loc_9"]
    assert services.client_for("loc_9").base_url == "https://api.example.com/api/v1"
    logs.shutdown_logging()


@pytest.mark.parametrize(
    ("url", "spoken"),
    [
        ("http://127.0.0.1:8765/api/v1/storefront", "http://127.0.0.1:8765/api/v1/storefront"),
        # A loopback URL without a key (a tunnel to staging) is no demo-server either.
        ("http://localhost:9000/api/v1", "http://localhost:9000/api/v1/storefront"),
    ],
)
def test_a_loopback_base_url_without_a_key_is_the_server_named(
    monkeypatch: pytest.MonkeyPatch, url: str, spoken: str
) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    monkeypatch.setenv("KIOSK_BASE_URL", url)
    # The default profile, no key: before, this ran the demo ("the demo has no location X").
    assert cli.main(["--location", "X"]) == 0
    services = recorder.services
    assert services is not None and not services.demo and services.demo_backend is None
    assert services.location_ids == ["X"]
    client = services.client_for("X")
    assert client.base_url == spoken and client.dialect == "v2"
    logs.shutdown_logging()


def test_kiosk_demo_server_is_asked_for_with_server(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    assert cli.main(["demo", "--server", "http://127.0.0.1:8765/api/v1"]) == 0
    services = recorder.services
    assert services is not None and services.demo
    assert services.location_ids == [DOWNTOWN.id, WESTSIDE.id]
    assert services.client_for(WESTSIDE.id).base_url == "http://127.0.0.1:8765/api/v1/storefront"
    logs.shutdown_logging()


def test_kiosk_demo_ignores_a_configured_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    monkeypatch.setenv("KIOSK_BASE_URL", "https://api.example.com/api/v1")
    assert cli.main(["demo"]) == 0
    services = recorder.services
    assert services is not None and services.demo
    assert services.settings.base_url is None
    # The embedded backend, spoken to over Storefront 2.0 (the demo's default).
    client = services.client_for(DOWNTOWN.id)
    assert client.base_url == runtime.EMBEDDED_BASE_URL + "/storefront"
    assert client.dialect == "v2"
    logs.shutdown_logging()


def test_kiosk_demo_speaks_v1_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _Recorder()
    recorder.install(monkeypatch)
    assert cli.main(["demo", "--api", "v1"]) == 0
    services = recorder.services
    assert services is not None
    client = services.client_for(DOWNTOWN.id)
    assert client.base_url == runtime.EMBEDDED_BASE_URL and client.dialect == "v1"
    logs.shutdown_logging()
