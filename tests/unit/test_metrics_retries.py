"""Retries counted by why (kiosk.metrics through `StorefrontClient.retry_observer`): a failure
that a retry absorbed leaves no error behind, so it is counted where the client retries."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from kiosk.api import RetryPolicy, StorefrontClient
from kiosk.api.client import RETRY_REASONS
from kiosk.metrics import ERROR_CODES, FleetMetrics, render
from tests.api.conftest import API_KEY, BASE, FakeClock, Server, ok, spec_cart


def _counts(metrics: FleetMetrics, name: str, label: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(render(metrics)):
        for sample in family.samples:
            if sample.name == name:
                out[sample.labels[label]] = sample.value
    return out


@pytest.mark.parametrize(
    ("first", "reason"),
    [
        (httpx.Response(503), "server_error"),
        (httpx.Response(500, json={"error": "INTERNAL_ERROR", "message": "x"}), "server_error"),
        (httpx.Response(429, headers={"Retry-After": "0.5"}), "rate_limited"),
        (httpx.ReadTimeout, "timeout"),
        (httpx.ConnectError, "connection"),
    ],
)
async def test_a_retried_failure_is_counted_by_its_reason(
    first: httpx.Response | type[Exception], reason: str
) -> None:
    server = Server().reply(first, ok(spec_cart()))
    clock = FakeClock()
    client = StorefrontClient(
        BASE,
        API_KEY,
        transport=httpx.MockTransport(server),
        clock=clock.time,
        sleep=clock.sleep,
        retry=RetryPolicy(random=lambda: 0.0),
    )
    metrics = FleetMetrics("counter-1", clock=clock.time)
    metrics.watch({"loc_1": client})
    try:
        await client.get_cart("loc_1", "cart_1")
    finally:
        await client.aclose()
    assert len(server.requests) == 2
    assert _counts(metrics, "kiosk_retries_total", "reason") == {
        r: (1 if r == reason else 0) for r in RETRY_REASONS
    }
    # The retry absorbed it: no failed request, every error code still at 0.
    assert _counts(metrics, "kiosk_errors_total", "code") == dict.fromkeys(ERROR_CODES, 0)
    # The staff screen says so in words.
    assert "Requests: 1 (0 failed, 1 retried) · " in metrics.summary()


def test_the_client_counts_through_its_seam_and_imports_no_metrics() -> None:
    # The seam is the client's own attribute (set by the composition root): kiosk/api imports
    # nothing of kiosk.metrics or prometheus_client.
    import ast
    from pathlib import Path

    import kiosk.api

    for path in Path(kiosk.api.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        assert not any("metrics" in n or "prometheus" in n for n in names), path
