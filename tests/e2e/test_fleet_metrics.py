"""Fleet metrics (issue 23): a terminal's Prometheus endpoint, scraped through whole orders.

The services are built by the composition root (kiosk.runtime) as the CLI builds them, on the
embedded demo backend; the Visit is given the metrics as the app gives them (its observer). The
endpoint is a real HTTP server on 127.0.0.1, read with a plain GET, as Prometheus reads it.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from kiosk import __version__
from kiosk.api.client import RETRY_REASONS
from kiosk.api.errors import PaymentDeclinedError, StorefrontError
from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.metrics import ERROR_CODES, FleetMetrics, error_code, terminal_label
from kiosk.ordering.events import OrderEvent
from kiosk.ordering.services import KioskServices
from kiosk.ordering.visit import Visit
from kiosk.runtime import build_demo_services

APPROVE = "4242 4242 4242 4242"
DECLINE = "4000 0000 0000 0002"
NAME, EMAIL = "Ada Lovelace", "ada@example.com"
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-kiosk-fleet.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _services(tmp_path: Path, metrics: str | None) -> KioskServices:
    settings = Settings(metrics=metrics, terminal_id="counter-1")
    return build_demo_services(
        settings, backend_app=create_app(":memory:"), state_dir=tmp_path / "state"
    )


def _visit(services: KioskServices) -> Visit:
    # As kiosk.tui.app builds it: the services' metrics are the Visit's observer.
    return Visit(services.client_for, services.location_ids[:1], observer=services.metrics)


async def _page(port: int) -> str:
    async with httpx.AsyncClient(timeout=5) as http:
        return (await http.get(f"http://127.0.0.1:{port}/metrics")).text


async def _scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = await _page(port)
    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def _value(samples: dict, name: str, **labels: str) -> float:
    want = {"terminal": "counter-1", "version": __version__, **labels}
    for (n, have), value in samples.items():
        if n == name and want.items() <= dict(have).items():
            return value
    raise AssertionError(f"no sample {name} {labels}")


async def _order_to_payment(visit: Visit) -> None:
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 2)
    result = await visit.checkout(NAME, EMAIL)
    assert result.validation.valid and result.intent is not None


async def test_the_endpoint_counts_whole_orders(tmp_path: Path) -> None:
    port = _free_port()
    services = _services(tmp_path, str(port))
    try:
        assert services.metrics is not None
        assert services.metrics.exporting == f"http://127.0.0.1:{port}/metrics"
        before = await _scrape(port)
        assert _value(before, "kiosk_info") == 1
        assert _value(before, "kiosk_orders_total", event="started") == 0

        # 1: declined once, then paid.
        visit = _visit(services)
        await _order_to_payment(visit)
        with pytest.raises(PaymentDeclinedError):
            await visit.confirm_demo_payment(DECLINE)
        await visit.confirm_demo_payment(APPROVE)
        cart = await visit.poll()
        assert cart is not None and cart.is_completed
        await visit.end()  # a paid order's end is not a reset
        # 2: the customer starts over. 3: nobody comes back (the idle timeout's end).
        for reason in (OrderEvent.RESET, OrderEvent.ABANDONED):
            await visit.start("pickup")
            await visit.add_item("prd_cookie", 1)
            await visit.end(reason)
        # A bare end with no order counts nothing.
        await visit.end()

        after = await _scrape(port)
        counts = {
            e: _value(after, "kiosk_orders_total", event=e)
            for e in ("started", "paid", "declined", "abandoned", "reset")
        }
        assert counts == {"started": 3, "paid": 1, "declined": 1, "abandoned": 1, "reset": 1}
        assert _value(after, "kiosk_errors_total", code="CARD_DECLINED") == 1
        # Latency by operation, fed from the client's request path.
        adds = _value(after, "kiosk_request_duration_seconds_count", operation="add_item")
        assert adds == 3  # one add in each of the three orders
        assert (
            _value(after, "kiosk_request_duration_seconds_bucket", operation="add_item", le="+Inf")
            == 3
        )
        assert _value(after, "kiosk_request_duration_seconds_sum", operation="add_item") > 0
        loc = services.location_ids[0]
        limit = _value(after, "kiosk_rate_budget_limit", location=loc)
        left = _value(after, "kiosk_rate_budget_remaining", location=loc)
        assert 0 <= left < limit  # this run's requests are spent from it
        assert _value(after, "kiosk_cache_hits_total", location=loc, cache="memory") >= 0
        assert _value(after, "kiosk_last_success_timestamp_seconds") > 1.7e9

        # The staff screen's words are the same numbers.
        summary = services.metrics.summary()
        assert "3 started · 1 paid · 1 declined · 1 abandoned · 1 reset" in summary
        assert "CARD_DECLINED 1" in summary

        # Nothing personal in any label, nor anywhere in the page.
        text = await _page(port)
        for personal in (NAME, "Ada", EMAIL, "ada@"):
            assert personal not in text
        for _name, labels in after:
            for key, value in labels:
                assert key in {
                    "terminal",
                    "version",
                    "event",
                    "code",
                    "operation",
                    "location",
                    "cache",
                    "reason",
                    "le",
                }, key
                assert "@" not in value
    finally:
        await services.aclose()
    # Closed with the services: nothing listens any more.
    with pytest.raises(httpx.TransportError):
        await _page(port)


async def test_a_textfile_for_node_exporter(tmp_path: Path) -> None:
    target = tmp_path / "textfile" / "kiosk-{terminal}.prom"
    services = _services(tmp_path, str(target))
    written = tmp_path / "textfile" / "kiosk-counter-1.prom"
    try:
        assert written.is_file()  # written at once: the terminal shows up before its first order
        visit = _visit(services)
        await visit.start("pickup")
        await visit.end()
    finally:
        await services.aclose()  # the last write, at close
    text = written.read_text()
    assert 'kiosk_orders_total{event="started",terminal="counter-1"' in text
    assert 'event="reset",terminal="counter-1",version="' in text
    assert not list(written.parent.glob("*.tmp*"))  # written atomically, nothing left over


def test_a_busy_port_leaves_the_kiosk_taking_orders(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        services = _services(tmp_path, str(port))
        assert services.metrics is not None
        assert services.metrics.exporting == f"off (port {port} busy)"


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        (None, None),
        ("off", None),
        ("9464", "9464"),
        (9100, "9100"),
        ("/var/x/k.prom", "/var/x/k.prom"),
    ],
)
def test_the_metrics_setting(value: object, stored: str | None) -> None:
    assert Settings(metrics=value).metrics == stored  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["0", "70000", "0.0.0.0:9464", "metrics.txt", "yes", True])
def test_the_metrics_setting_refuses(value: object) -> None:
    with pytest.raises(ValueError, match="metrics"):
        Settings(metrics=value)  # type: ignore[arg-type]


def test_labels_carry_nothing_personal() -> None:
    # A derived SSH terminal id names the client's address: hashed in the label.
    label = terminal_label("till-ssh-203.0.113.9-pts-3")
    assert "203.0.113" not in label and label.startswith("till-ssh-")
    assert terminal_label("counter-1") == "counter-1"
    # Server text is never a label: only what looks like a code.
    assert error_code(StorefrontError("x", status=400, code="cart_locked")) == "CART_LOCKED"
    hostile = StorefrontError("x", status=400, code='ada@example.com"} 1\nevil')
    assert error_code(hostile) == "HTTP_400"
    metrics = FleetMetrics("counter-1")
    metrics.request_done("add_item", 0.02, hostile)
    assert +metrics.errors == {"HTTP_400": 1}
    # A code outside the documented list, or a status outside it, is `other`: the label's values
    # are a fixed set, every one served from the start.
    assert error_code(StorefrontError("x", status=400, code="SOMETHING_NEW")) == "HTTP_400"
    assert error_code(StorefrontError("x", status=418)) == "other"
    assert error_code(StorefrontError("x", code="SOMETHING_NEW")) == "other"


def test_no_prometheus_import_without_the_setting(tmp_path: Path) -> None:
    # The cold start does not pay for prometheus_client: built without `metrics`, never imported.
    code = (
        "import sys\n"
        "from kiosk.config import Settings\n"
        "from kiosk.demo import create_app\n"
        "from kiosk.runtime import build_demo_services\n"
        f"s = build_demo_services(Settings(terminal_id='t'), backend_app=create_app(':memory:'),"
        f" state_dir={str(tmp_path)!r})\n"
        "assert s.metrics is not None\n"
        "print('prometheus_client' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_the_grafana_dashboard_asks_for_what_the_kiosk_serves(tmp_path: Path) -> None:
    import json
    import re

    from kiosk.metrics import render

    services = _services(tmp_path, None)
    try:
        assert services.metrics is not None
        visit = _visit(services)
        await visit.start("pickup")
        services.metrics.request_done("add_item", 0.05, StorefrontError("x", status=500))
        page = render(services.metrics)
    finally:
        await services.aclose()
    served = {s.name for f in text_string_to_metric_families(page) for s in f.samples}
    text = DASHBOARD.read_text()
    json.loads(text)
    asked = set(re.findall(r"kiosk_[a-z_]+", text))
    asked.discard("kiosk_fleet")  # the dashboard's own uid
    assert asked and asked <= served, asked - served


async def test_a_scrape_right_after_start_reads_zero_for_every_series_the_dashboard_names(
    tmp_path: Path,
) -> None:
    """A healthy fleet reads 0, not "No data": every counter and gauge the dashboard reads is
    served before anything has happened, each label value the dashboard groups by at 0."""
    import re

    port = _free_port()
    services = _services(tmp_path, str(port))
    try:
        samples = await _scrape(port)
    finally:
        await services.aclose()
    asked = set(re.findall(r"kiosk_[a-z_]+", DASHBOARD.read_text())) - {"kiosk_fleet"}
    # The latency histogram has no quantile before its first request (no counter, no gauge).
    asked.discard("kiosk_request_duration_seconds_bucket")
    by_name: dict[str, dict[frozenset[tuple[str, str]], float]] = {}
    for (name, labels), value in samples.items():
        by_name.setdefault(name, {})[labels] = value
    assert asked <= set(by_name), asked - set(by_name)

    def values(name: str, label: str) -> dict[str, float]:
        return {dict(labels)[label]: v for labels, v in by_name[name].items()}

    assert values("kiosk_orders_total", "event") == dict.fromkeys(
        ("started", "paid", "declined", "abandoned", "reset"), 0
    )
    assert values("kiosk_errors_total", "code") == dict.fromkeys(ERROR_CODES, 0)
    assert values("kiosk_retries_total", "reason") == dict.fromkeys(RETRY_REASONS, 0)
    loc = services.location_ids[0]
    assert values("kiosk_cache_hits_total", "cache") == {"memory": 0, "disk": 0}
    assert values("kiosk_rate_budget_remaining", "location") == values(
        "kiosk_rate_budget_limit", "location"
    )
    assert values("kiosk_rate_budget_limit", "location")[loc] > 0
    # No request has succeeded yet: 0, and the dashboard counts from the start instead.
    assert _value(samples, "kiosk_last_success_timestamp_seconds") == 0
    assert _value(samples, "kiosk_start_timestamp_seconds") > 1.7e9
