"""Journey 14 (explicit settings are obeyed) and issue 19's done-when line, as a staff member
types it: `kiosk --api v2 --base-url
http://127.0.0.1:PORT/api/v1/storefront --location X doctor --test-order` in the DEFAULT profile
(no --profile, no key) against a local 2.0 server that is not the demo: the strict server of
tests/conformance/vendor_server.py under uvicorn, the real `kiosk` CLI in a subprocess with its own
config/state dirs. Before, a loopback URL without a key in the default profile meant our demo, and
the answer was "the demo has no location X" (exit 2). Also journey 15: doctor on a 2.0 setting asks
no legacy path (the strict server counts one as a breach) unless --probe-all."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette

from tests.conformance.serving import UvicornThread
from tests.conformance.vendor_server import make_vendor_app

LOCATION_SLUG = "harbour-noodles"


@pytest.fixture
def vendor() -> Iterator[tuple[Starlette, str]]:
    app = make_vendor_app()
    with UvicornThread(app) as server:
        yield app, server.url + "/api/v1/storefront"


def _kiosk(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # Nothing of the developer's own kiosk leaks in: no KIOSK_* but the dirs kiosk.paths reads.
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIOSK_")}
    for name, sub in (
        ("KIOSK_CONFIG_DIR", "config"),
        ("KIOSK_STATE_DIR", "state"),
        ("KIOSK_DATA_DIR", "data"),
        ("KIOSK_CACHE_DIR", "cache"),
        ("KIOSK_LOG_DIR", "log"),
    ):
        env[name] = str(home / sub)
    return subprocess.run(
        [sys.executable, "-m", "kiosk", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _legacy_paths(app: Starlette) -> list[str]:
    return [p for _, p, _ in app.state.server.log if not p.startswith("/api/v1/storefront")]


def test_the_issues_command_passes_in_the_default_profile(
    vendor: tuple[Starlette, str], tmp_path: Path
) -> None:
    app, base_url = vendor
    argv = ["--api", "v2", "--base-url", base_url, "--location", LOCATION_SLUG]
    done = _kiosk(tmp_path, *argv, "doctor", "--test-order")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"     test order: the backend at {base_url}, location {LOCATION_SLUG}, v2"
    ), out
    assert "the test order PASSED" in done.stdout and "FAIL" not in done.stdout
    assert "demo" not in out and "Traceback" not in out
    # Journey 13: the total in the location's currency (GBP here), never a guessed dollar.
    assert re.search(r"change the quantity to 2: total £\d+\.\d\d ", done.stdout), out
    # The order really went to that server, without one breach of its document.
    assert app.state.violations == [] and app.state.answer_errors == []
    # Paid through the server's test payment (docs/api.md), its number read and shown.
    (cart,) = app.state.store.carts.values()
    assert cart.status == "COMPLETED" and cart.lines
    assert "OK   pay with the server's test payment: order number H101 (" in done.stdout, out
    assert _legacy_paths(app) == []


def test_doctor_on_a_2_0_setting_asks_only_2_0(
    vendor: tuple[Starlette, str], tmp_path: Path
) -> None:
    app, base_url = vendor
    argv = ["--api", "v2", "--base-url", base_url, "--location", LOCATION_SLUG]
    done = _kiosk(tmp_path, *argv, "doctor")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "this kiosk speaks 2.0 (its setting), which the server answers" in done.stdout
    assert "API v1" not in done.stdout and "all checks passed" in done.stdout
    assert _legacy_paths(app) == [] and app.state.violations == []


def test_probe_all_asks_the_legacy_path_once_and_reads_its_404_as_absent(
    vendor: tuple[Starlette, str], tmp_path: Path
) -> None:
    app, base_url = vendor
    argv = ["--api", "v2", "--base-url", base_url, "--location", LOCATION_SLUG]
    done = _kiosk(tmp_path, *argv, "doctor", "--probe-all")
    assert done.returncode == 0, done.stdout + done.stderr
    (v1,) = [line for line in done.stdout.splitlines() if line.strip().startswith("API v1")]
    # Before: "API v1 ... answers, but location ... is unknown" for this very 404.
    assert "HTTP 404" in v1 and "answers" not in v1
    assert _legacy_paths(app) == [f"/api/v1/locations/{LOCATION_SLUG}"]


def test_nothing_configured_names_the_demo_command(tmp_path: Path) -> None:
    for argv in ([], ["run"], ["doctor"], ["doctor", "--test-order"]):
        done = _kiosk(tmp_path, *argv)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert done.stdout == ""
        (line,) = done.stderr.strip().splitlines()
        assert "`kiosk demo`" in line and "no backend configured" in line


def test_a_scheduled_only_location_passes_with_the_first_slot(tmp_path: Path) -> None:
    # Journey 10's doctor part, on the strict server's own requireScheduledOrders (it refuses
    # ASAP at update-order-time and at the hand-off).
    from dataclasses import replace

    from tests.conformance.vendor_server import harbour_noodles

    seed = harbour_noodles()
    seed.locations[0] = replace(seed.locations[0], require_scheduled=True)
    app = make_vendor_app(seed=seed)
    with UvicornThread(app) as server:
        base_url = server.url + "/api/v1/storefront"
        argv = ["--api", "v2", "--base-url", base_url, "--location", LOCATION_SLUG]
        done = _kiosk(tmp_path, *argv, "doctor", "--test-order")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "the test order PASSED" in done.stdout and "FAIL" not in done.stdout
    first = app.state.store.first_slot(seed.locations[0])
    assert first is not None
    assert f"scheduled orders only: the first slot, {first[0]} {first[1]}" in done.stdout
    assert app.state.violations == []
    (cart,) = app.state.store.carts.values()
    assert (cart.pickup_type, cart.order_date, cart.order_time) == ("LATER", *first)
