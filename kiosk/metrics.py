"""Fleet metrics: what a chain's Prometheus scrapes from each terminal, and the staff screen shows.

`FleetMetrics` counts in plain Python (cheap, always on): orders by what happened to them (the
Visit tells it, kiosk.ordering.events), errors by code, retries by reason and the time each
request took (the client tells it, `StorefrontClient.observer` and `retry_observer`), and reads
the clients' rate budget and cache hits when asked. `start_export` publishes it, when the
`metrics` setting asks for it, on an HTTP endpoint on 127.0.0.1 or in a textfile for
node_exporter's textfile collector. Only then is prometheus_client (the `metrics` extra)
imported: a kiosk without metrics never pays for it.

Labels carry nothing personal: the kiosk's version, the terminal id (an SSH client's address in a
derived id is replaced by a hash), location ids, the client's own operation names and the error
codes of a fixed list (ERROR_CODES; anything else is counted as `other`). Never a name, an email
or a token. Every counter and gauge is served from the start, at 0 where nothing happened yet:
a healthy fleet reads 0, not "No data".
"""

from __future__ import annotations

import bisect
import hashlib
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk import __version__
from kiosk.api.client import RETRY_REASONS
from kiosk.clocktime import clock_time
from kiosk.ordering.events import OrderEvent

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.errors import StorefrontError
    from kiosk.config import Settings

log = logging.getLogger(__name__)

# Seconds; a request a customer waits for is 20 ms to a few seconds, retries up to the deadline.
LATENCY_BUCKETS: tuple[float, ...] = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# A textfile is written at most this often (seconds) while things change, and once at close.
TEXTFILE_INTERVAL = 5.0
_SSH_PART = re.compile(r"-ssh-(.+)$")
METRICS_EXTRA_MESSAGE = "metrics need prometheus_client: pip install 'kiosk[metrics]'"

# The `code` label's values (docs/metrics.md): every one is served from the start at 0, so a
# healthy fleet reads 0 failures, not "No data"; anything else is counted as `other`. The
# server's codes the contracts name, the client's own kinds, and the HTTP statuses a code-less
# answer is counted by.
ERROR_CODES: tuple[str, ...] = (
    # the server's codes (Storefront 2.0 and the legacy API)
    "VALIDATION_ERROR",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "NOT_FOUND",
    "RATE_LIMITED",
    "CART_CONFLICT",
    "RESOURCE_CONFLICT",
    "CART_IMMUTABLE",
    "CART_LOCKED",
    "CART_EXPIRED",
    "CART_NOT_FOUND",
    "IDEMPOTENCY_KEY_REQUIRED",
    "IDEMPOTENCY_KEY_REUSED",
    "IDEMPOTENCY_IN_PROGRESS",
    "DEPENDENCY_UNAVAILABLE",
    "INTERNAL_ERROR",
    "GENERIC_ERROR",
    "INVALID_PRODUCT",
    "INVALID_MODIFIER_SELECTION",
    "INVALID_DISCOUNT_CODE",
    "MINIMUM_ORDER_NOT_MET",
    "LOCATION_MISMATCH",
    "CARD_DECLINED",
    "PAYMENT_DECLINED",
    # the client's own kinds: no answer, or one it could not use
    "API_TIMEOUT",
    "API_CONNECTION",
    "AMBIGUOUS_WRITE",
    "RESPONSE_FORMAT",
    "UNSUPPORTED_OPERATION",
    # an answer without a code, by its status
    "HTTP_400",
    "HTTP_401",
    "HTTP_403",
    "HTTP_404",
    "HTTP_409",
    "HTTP_422",
    "HTTP_429",
    "HTTP_500",
    "HTTP_502",
    "HTTP_503",
    "HTTP_504",
    "other",
)
_KNOWN_CODES = frozenset(ERROR_CODES)


def terminal_label(terminal_id: str) -> str:
    """The terminal id as a label: a derived SSH id's client address becomes a short hash (an
    address can point at a person); a configured id is the merchant's own name for the counter."""
    found = _SSH_PART.search(terminal_id)
    if found is None:
        return terminal_id
    digest = hashlib.sha256(found.group(1).encode()).hexdigest()[:8]
    return terminal_id[: found.start()] + "-ssh-" + digest


def error_code(error: StorefrontError) -> str:
    """The label of an error, one of ERROR_CODES: the server's code when it is a known one, else
    the HTTP status, else the kind (timeout, connection), else `other`. Server text never becomes
    a label as it is."""
    code = error.code or ""
    if code in _KNOWN_CODES:
        return code
    if error.status is not None:
        status = f"HTTP_{int(error.status)}"
    else:
        kind = type(error).__name__.removesuffix("Error")
        status = re.sub(r"(?<!^)(?=[A-Z])", "_", kind).upper()
    return status if status in _KNOWN_CODES else "other"


@dataclass
class _Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS) + 1))
    total: float = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.total += seconds

    @property
    def count(self) -> int:
        return sum(self.counts)

    def cumulative(self) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        running = 0
        for bound, n in zip((*LATENCY_BUCKETS, float("inf")), self.counts, strict=True):
            running += n
            out.append(("+Inf" if bound == float("inf") else repr(bound), running))
        return out

    def quantile(self, q: float) -> float | None:
        """The bucket bound under which `q` of the requests fell (what the staff screen shows)."""
        n = self.count
        if n == 0:
            return None
        running = 0
        for bound, c in zip((*LATENCY_BUCKETS, float("inf")), self.counts, strict=True):
            running += c
            if running >= q * n:
                return bound
        return float("inf")


@dataclass(frozen=True)
class FleetSnapshot:
    """The numbers at one moment, for the staff screen (the same the endpoint serves)."""

    orders: Mapping[str, int]
    errors: Mapping[str, int]
    requests: int
    failed: int
    p50: float | None
    p95: float | None
    last_success_at: float | None
    budget: Mapping[str, int | None]
    cache_hits: int
    exporting: str  # where the metrics are published ("off", a URL, a file)
    retries: int = 0  # requests sent again (a failure a retry absorbed is no failed request)


class FleetMetrics:
    """One terminal's counters. Thread-safe: the exporter reads from its own thread."""

    def __init__(
        self,
        terminal_id: str,
        *,
        clients: Mapping[str, StorefrontBase] | None = None,
        version: str = __version__,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.terminal = terminal_label(terminal_id)
        self.version = version
        self.clients: Mapping[str, StorefrontBase] = clients or {}
        self._clock = clock
        self._lock = threading.Lock()
        self.orders: Counter[str] = Counter({e.value: 0 for e in OrderEvent})
        # Every label value from the start, at 0 (a series that is missing reads "No data").
        self.errors: Counter[str] = Counter(dict.fromkeys(ERROR_CODES, 0))
        self.retries: Counter[str] = Counter(dict.fromkeys(RETRY_REASONS, 0))
        self.started_at = clock()
        self.latency: dict[str, _Histogram] = {}
        self.last_success_at: float | None = None
        self.exporting = "off"
        # Help (kiosk.help_call) and out of order (kiosk.out_of_order): served from the start at 0.
        self.help_requests = 0
        self.help_waiting_now = False
        self.out_of_order = False
        # Called after each change (the textfile exporter writes soon after).
        self.on_change: Callable[[], None] | None = None

    # -- told by the Visit and the clients

    def order_event(self, event: OrderEvent) -> None:
        with self._lock:
            self.orders[OrderEvent(event).value] += 1
        self._changed()

    def request_done(self, operation: str, seconds: float, error: StorefrontError | None) -> None:
        with self._lock:
            self.latency.setdefault(operation, _Histogram()).observe(max(0.0, seconds))
            if error is None:
                self.last_success_at = self._clock()
            else:
                self.errors[error_code(error)] += 1
        self._changed()

    def help_requested(self) -> None:
        with self._lock:
            self.help_requests += 1
        self._changed()

    def help_waiting(self, waiting: bool) -> None:
        with self._lock:
            self.help_waiting_now = bool(waiting)
        self._changed()

    def set_out_of_order(self, closed: bool) -> None:
        with self._lock:
            self.out_of_order = bool(closed)
        self._changed()

    def retried(self, operation: str, reason: str) -> None:
        """The client sent a request again (`StorefrontClient.retry_observer`): counted by why,
        also when the retry then succeeded (no error is left to count)."""
        with self._lock:
            self.retries[reason] += 1
        self._changed()

    def summary(self) -> str:
        """The staff screen's lines (staff_summary)."""
        return staff_summary(self)

    def watch(self, clients: Mapping[str, StorefrontBase]) -> None:
        """Count these clients' requests (their observer) and read their budget and cache."""
        self.clients = clients
        for client in clients.values():
            client.observer = self.request_done
            client.retry_observer = self.retried

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # -- read

    def _budget(self) -> dict[str, tuple[int | None, int]]:
        return {
            loc: (c.rate_budget.remaining, c.rate_budget.limit) for loc, c in self.clients.items()
        }

    def _cache_hits(self) -> dict[str, tuple[int, int]]:
        return {loc: (c.stats.cache_hits, c.stats.disk_hits) for loc, c in self.clients.items()}

    def snapshot(self) -> FleetSnapshot:
        with self._lock:
            merged = _Histogram()
            for h in self.latency.values():
                merged.counts = [a + b for a, b in zip(merged.counts, h.counts, strict=True)]
                merged.total += h.total
            orders, errors = dict(self.orders), +self.errors  # `+`: the codes that happened
            retries = sum(self.retries.values())
            last = self.last_success_at
        return FleetSnapshot(
            orders=orders,
            errors=errors,
            requests=merged.count,
            failed=sum(errors.values()),
            p50=merged.quantile(0.5),
            p95=merged.quantile(0.95),
            last_success_at=last,
            budget={loc: left for loc, (left, _limit) in self._budget().items()},
            cache_hits=sum(m + d for m, d in self._cache_hits().values()),
            exporting=self.exporting,
            retries=retries,
        )

    def families(self) -> Iterator[Any]:
        """The metric families, for prometheus_client's registry (imported only here)."""
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        base = ["terminal", "version"]
        ident = [self.terminal, self.version]
        with self._lock:
            orders = dict(self.orders)
            errors = dict(self.errors)
            retries = dict(self.retries)
            latency = {op: (h.cumulative(), h.total) for op, h in self.latency.items()}
            last = self.last_success_at
            help_requests, help_waiting = self.help_requests, self.help_waiting_now
            out_of_order = self.out_of_order

        info = GaugeMetricFamily(
            "kiosk_info", "This kiosk: its version and terminal id", labels=base
        )
        info.add_metric(ident, 1)
        yield info
        fam = CounterMetricFamily(
            "kiosk_orders",
            "Orders by what happened: started, paid, declined, abandoned (idle), reset",
            labels=[*base, "event"],
        )
        for event, n in sorted(orders.items()):
            fam.add_metric([*ident, event], n)
        yield fam
        fam = CounterMetricFamily(
            "kiosk_errors", "Failed API requests by error code", labels=[*base, "code"]
        )
        for code, n in sorted(errors.items()):
            fam.add_metric([*ident, code], n)
        yield fam
        fam = CounterMetricFamily(
            "kiosk_retries",
            "API requests sent again, by why: timeout, connection, rate_limited, server_error",
            labels=[*base, "reason"],
        )
        for reason, n in sorted(retries.items()):
            fam.add_metric([*ident, reason], n)
        yield fam
        hist = HistogramMetricFamily(
            "kiosk_request_duration_seconds",
            "Storefront API requests by operation, retries included",
            labels=[*base, "operation"],
        )
        for op, (buckets, total) in sorted(latency.items()):
            hist.add_metric([*ident, op], buckets, total)
        yield hist
        left = GaugeMetricFamily(
            "kiosk_rate_budget_remaining",
            "Requests left in the rate window (the server's count, or the kiosk's own on 2.0)",
            labels=[*base, "location"],
        )
        limit = GaugeMetricFamily(
            "kiosk_rate_budget_limit", "Requests the rate window allows", labels=[*base, "location"]
        )
        for loc, (remaining, cap) in sorted(self._budget().items()):
            # Before the server's first word on it (the legacy API's headers), the budget is
            # taken as whole: this kiosk has spent none of it.
            left.add_metric([*ident, loc], cap if remaining is None else remaining)
            limit.add_metric([*ident, loc], cap)
        yield left
        yield limit
        hits = CounterMetricFamily(
            "kiosk_cache_hits",
            "Reads answered without a request: memory, or the site's shared disk cache",
            labels=[*base, "location", "cache"],
        )
        for loc, (memory, disk) in sorted(self._cache_hits().items()):
            hits.add_metric([*ident, loc, "memory"], memory)
            hits.add_metric([*ident, loc, "disk"], disk)
        yield hits
        when = GaugeMetricFamily(
            "kiosk_last_success_timestamp_seconds",
            "When the last API request succeeded (Unix time; 0: none yet)",
            labels=base,
        )
        when.add_metric(ident, 0.0 if last is None else last)
        yield when
        fam = CounterMetricFamily(
            "kiosk_help_requests", "Times a customer asked for staff (Help)", labels=base
        )
        fam.add_metric(ident, help_requests)
        yield fam
        gauge = GaugeMetricFamily(
            "kiosk_help_waiting", "1 while a customer's help request waits for staff", labels=base
        )
        gauge.add_metric(ident, 1 if help_waiting else 0)
        yield gauge
        gauge = GaugeMetricFamily(
            "kiosk_out_of_order", "1 while staff have closed this terminal", labels=base
        )
        gauge.add_metric(ident, 1 if out_of_order else 0)
        yield gauge
        start = GaugeMetricFamily(
            "kiosk_start_timestamp_seconds",
            "When this kiosk process started (Unix time)",
            labels=base,
        )
        start.add_metric(ident, self.started_at)
        yield start


# --- publishing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricsTarget:
    kind: str  # "http" or "textfile"
    port: int = 0
    path: Path | None = None

    def describe(self) -> str:
        if self.kind == "http":
            return f"http://127.0.0.1:{self.port}/metrics"
        return str(self.path)


def metrics_target(settings: Settings, terminal_id: str) -> MetricsTarget | None:
    """What the `metrics` setting asks for (config.py has checked its form): None (off), a port on
    127.0.0.1, or a textfile (`{terminal}` in it becomes the terminal id: one file a terminal)."""
    value = settings.metrics
    if value is None:
        return None
    if value.isdigit():
        return MetricsTarget("http", port=int(value))
    return MetricsTarget(
        "textfile", path=Path(value.replace("{terminal}", terminal_id)).expanduser()
    )


class _Collector:
    def __init__(self, metrics: FleetMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        return self.metrics.families()


def _registry(metrics: FleetMetrics) -> Any:
    try:
        from prometheus_client import CollectorRegistry
    except ImportError:
        from kiosk.config import ConfigError

        raise ConfigError(METRICS_EXTRA_MESSAGE) from None
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(metrics))
    return registry


def render(metrics: FleetMetrics) -> str:
    """The exposition text, as the endpoint serves it (tests, `kiosk doctor`)."""
    from prometheus_client import generate_latest

    return generate_latest(_registry(metrics)).decode()


def start_export(metrics: FleetMetrics, target: MetricsTarget) -> Callable[[], None]:
    """Publish `metrics` at `target`; returns what stops it. A port already taken (another kiosk
    on this host) is logged and shown on the staff screen: the counter keeps taking orders."""
    registry = _registry(metrics)
    if target.kind == "http":
        from prometheus_client import start_http_server

        try:
            server, thread = start_http_server(target.port, addr="127.0.0.1", registry=registry)
        except OSError as exc:
            log.warning("metrics: cannot listen on 127.0.0.1:%d (%s)", target.port, exc)
            metrics.exporting = f"off (port {target.port} busy)"
            return lambda: None
        metrics.exporting = target.describe()
        log.info("metrics: serving %s", metrics.exporting)

        def stop() -> None:
            server.shutdown()
            server.server_close()
            thread.join(timeout=2)

        return stop
    assert target.path is not None
    writer = _TextfileWriter(registry, target.path)
    metrics.on_change = writer.soon
    writer.write()
    metrics.exporting = target.describe()
    return writer.close


class _TextfileWriter:
    """Writes the textfile at most every TEXTFILE_INTERVAL seconds while counters change (atomic:
    node_exporter never reads half a file), and once more at close."""

    def __init__(self, registry: Any, path: Path, interval: float = TEXTFILE_INTERVAL) -> None:
        self.registry = registry
        self.path = path
        self.interval = interval
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def write(self) -> None:
        from prometheus_client import write_to_textfile

        with self._lock:
            self._timer = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_to_textfile(str(self.path), self.registry)
        except OSError as exc:
            log.warning("metrics: cannot write %s (%s)", self.path, exc)

    def soon(self) -> None:
        with self._lock:
            if self._timer is not None:
                return
            self._timer = threading.Timer(self.interval, self.write)
            self._timer.daemon = True
            self._timer.start()

    def close(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.write()


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return "over 30 s" if seconds == float("inf") else f"≤{seconds * 1000:g} ms"


def staff_summary(metrics: FleetMetrics) -> str:
    """The staff screen's lines: the same numbers the endpoint serves, in words."""
    snap = metrics.snapshot()
    o = snap.orders
    lines = [
        f"Orders since start: {o.get('started', 0)} started · {o.get('paid', 0)} paid · "
        f"{o.get('declined', 0)} declined · {o.get('abandoned', 0)} abandoned · "
        f"{o.get('reset', 0)} reset",
    ]
    worst = ", ".join(f"{code} {n}" for code, n in Counter(snap.errors).most_common(3))
    requests = (
        f"Requests: {snap.requests} ({snap.failed} failed{': ' + worst if worst else ''}"
        f"{f', {snap.retries} retried' if snap.retries else ''}) · "
        f"median {_ms(snap.p50)} · 95% {_ms(snap.p95)} · cache hits {snap.cache_hits}"
    )
    if snap.last_success_at is not None:
        # A clock time, not an age: an age redrew the staff screen every second (issue 23).
        requests += f" · last success at {clock_time(snap.last_success_at)}"
    lines.append(requests)
    lines.append(f"Metrics for Prometheus: {snap.exporting}")
    return "\n".join(lines)
