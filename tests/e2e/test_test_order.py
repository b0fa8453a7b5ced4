"""`kiosk doctor --test-order`: a whole order on the Visit, in both API versions; paid on the demo,
stopped before payment (and its cart deleted) on any other server."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from kiosk import cli
from kiosk.demo import create_app
from kiosk.demo.server import ServerThread


@pytest.fixture
def served() -> Iterator[tuple[object, str]]:
    app = create_app()
    with ServerThread(app) as server:
        yield app.state.backend, server.url
    app.state.backend.close()


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_on_the_demo_the_test_order_is_paid(capsys: pytest.CaptureFixture[str], api: str) -> None:
    argv = ["doctor", "--demo", "--test-order", "--api", api, "--location", "lantern-downtown"]
    code = cli.main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"order number [A-Z]\d{3}", out)
    assert "FAIL" not in out and "the test order PASSED" in out
    assert f", {api}" in out.splitlines()[0]


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_elsewhere_it_stops_before_payment_and_deletes_the_cart(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    served: tuple[object, str],
    api: str,
) -> None:
    backend, url = served
    base = url + ("/api/v1/storefront" if api == "v2" else "/api/v1")
    if api == "v1":
        from kiosk.demo.data import DOWNTOWN

        monkeypatch.setenv("KIOSK_API_KEY", DOWNTOWN.api_key)
    argv = ["--profile", "production", "doctor", "--test-order", "--base-url", base]
    code = cli.main([*argv, "--location", "loc_downtown"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "pay with the demo card" not in out and "the test cart was deleted" in out
    # v1 deletes the cart; 2.0 keeps it, expired, its checkout abandoned.
    left = [backend.carts.raw(i)["status"] for i in backend.carts.ids()]  # type: ignore[attr-defined]
    assert left == ([] if api == "v1" else ["EXPIRED"])


def test_a_failing_step_fails_the_test_order(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["doctor", "--demo", "--test-order", "--location", "nowhere"])
    assert code != 0
