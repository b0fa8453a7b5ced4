"""Fixtures every test gets.

Each test runs with its own KIOSK_HOME under tmp_path, so that nothing reads or writes the real
platformdirs (config, secrets, state, data, logs) of the machine running the suite, and with every
other KIOSK_* variable of the outer environment removed, so that a developer's KIOSK_API_KEY or
KIOSK_PROFILE cannot change a result.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).parent / "bench"
# `--cpu-report N`: the CPU time by test file (tests/support/cpu_report.py).
pytest_plugins = ["tests.support.cpu_report"]
# The fuzz and conformance modules' budgets (examples per operation, each module's EXAMPLES): a
# small fixed budget in the default run, the full one in CI (.ci/run sets KIOSK_TEST_BUDGET=full;
# `-m fuzz` selects them alone). A KIOSK_*_EXAMPLES set by hand wins over both. Read
# here, before the test modules are imported (they read their budget at import).
BUDGETS = {  # name: (default run, full)
    "KIOSK_FUZZ_EXAMPLES": ("15", "60"),
    "KIOSK_OPENAPI_EXAMPLES": ("4", "10"),
    "KIOSK_CONFORMANCE_EXAMPLES": ("6", "20"),
    # These two ran their full budget in every run (test_fuzz_by_class 120 a class, the lifecycle
    # machine 25 orders): the two files took 19.2 s of one core, 11.4 s at this budget.
    "KIOSK_FUZZ_CLASS_EXAMPLES": ("30", "120"),
    "KIOSK_LIFECYCLE_EXAMPLES": ("8", "25"),
    # The demo's cart-state machine (tests/demo/test_cart_states.py): runs of 25 steps.
    "KIOSK_CART_STATE_EXAMPLES": ("10", "50"),
    # The Visit against the strict 2.0 server with server-side events and restarts
    # (tests/conformance/test_order_machine.py): runs of 20 steps, about 0.3 s each.
    "KIOSK_ORDER_MACHINE_EXAMPLES": ("25", "150"),
}
_FULL = os.environ.get("KIOSK_TEST_BUDGET") == "full"
for _name, (_quick, _whole) in BUDGETS.items():
    os.environ.setdefault(_name, _whole if _FULL else _quick)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test of a module with an example budget (EXAMPLES, or its BOUNDED settings) is marked
    `fuzz` (`-m fuzz` runs them alone; CI runs them at the full budget). Under xdist, the tests
    that wait on a real clock go first (clock_bound_first)."""
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and (hasattr(module, "EXAMPLES") or hasattr(module, "BOUNDED")):
            item.add_marker(pytest.mark.fuzz)
    workers = getattr(config, "workerinput", {}).get("workercount", 0)
    if workers > 1:
        items[:] = clock_bound_first(items, workers, os.cpu_count() or 1)


def clock_bound_first(items: list[pytest.Item], workers: int, cores: int) -> list[pytest.Item]:
    """The tests marked `clock_bound` (an sshd noticing a frozen link, a browser, pip: ~190 s in
    all, each mostly asleep) at the head of the first workers' shares, in chains of about equal
    seconds. xdist's worksteal gives each worker a contiguous share in collection order (the
    pending count over the workers left) and steals from the end of a share: left where they were
    collected they ran last, one after another on one worker, 70 s after the others had finished.
    One chain per worker beyond the cores, so the other workers keep the cores busy meanwhile.
    The same order in every worker (xdist requires it): it depends on the collection alone."""
    cost = {
        i: float(m.kwargs.get("seconds", 30))
        for i in items
        if (m := i.get_closest_marker("clock_bound"))
    }
    if not cost:
        return items
    rest = [i for i in items if i not in cost]
    chains: list[list[pytest.Item]] = [[] for _ in range(max(1, workers - cores))]
    seconds = [0.0] * len(chains)
    for item in sorted(cost, key=cost.__getitem__, reverse=True):
        chain = seconds.index(min(seconds))
        chains[chain].append(item)
        seconds[chain] += cost[item]
    ordered: list[pytest.Item] = []
    left = len(items)
    for worker in range(workers):
        share = left // (workers - worker)
        head = chains[worker] if worker < len(chains) else []
        ordered += head + rest[: share - len(head)]
        del rest[: share - len(head)]
        left -= share
    return ordered + rest


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's cyclic garbage collector, tuned for a test process: a Textual app leaves ~100,000
    objects a test, many in cycles, and Textual's module caches keep ~300,000 alive, so the
    default thresholds (700, 10, 10) ran a full collection about twice a test, a fifth of a tui
    test file's wall time (test_flow.py + test_snapshots_trust.py, 1 worker: GC 98 s of 537 s,
    68.6 s CPU; with these settings GC 18 s, 58.2 s CPU, peak memory 180 -> 500 MB). What
    collection imported is frozen (never scanned again). Not for the benchmarks' figures."""
    if session.items and all(Path(item.path).is_relative_to(BENCH) for item in session.items):
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


@pytest.fixture(autouse=True)
def quick_idle_waits(request: pytest.FixtureRequest) -> Iterator[None]:
    """Textual's Pilot waits for the app to go idle after every key (twice) and every pause() in
    steps of 20 ms (textual._wait.SLEEP_GRANULARITY), whatever the app has left to do: about a
    third of a tui test's wall time was these waits, not work. Steps of 4 ms (what the journeys
    and the walks already used: tests/support/pilot.py) end each wait as soon as the app is idle.
    Not for the benchmarks, whose figures include Pilot's waits as they were measured, nor for
    tests marked `pilot_idle_20ms`: their server answers 30 ms later or when released, and
    Pilot's 20 ms steps are part of what they model (at 4 ms a step the app looked idle while an
    answer was on its way)."""
    if request.path.is_relative_to(BENCH) or request.node.get_closest_marker("pilot_idle_20ms"):
        yield
        return
    from tests.support.pilot import quick_pilot

    with quick_pilot():
        yield


@pytest.fixture(autouse=True)
def few_frames_drawn(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """An in-process app draws at most four frames a second instead of Textual's sixty. A test
    reads the settled screen; the frames between were CPU nobody looked at (tests/tui: about a
    sixth of its CPU). A test about timing (the first frame, a key's echo, a burst that must be
    drawn as it arrives) is marked `every_frame` and draws as the counter does; so do the
    benchmarks. Processes a test starts (the pty and SSH tests) draw as they always do."""
    if request.path.is_relative_to(BENCH) or request.node.get_closest_marker("every_frame"):
        return
    import textual.screen

    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 0.25)


@pytest.fixture(autouse=True)
def css_parsed_once(request: pytest.FixtureRequest) -> Iterator[None]:
    """The apps of a test process share their parsed CSS (tests/support/css.py). Not for the
    benchmarks: a counter's start parses its CSS, and their figures include it."""
    if request.path.is_relative_to(BENCH):
        yield
        return
    from tests.support.css import css_parsed_once as shared

    with shared():
        yield


@pytest.fixture(autouse=True)
def kiosk_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("KIOSK_"):
            monkeypatch.delenv(name)
    home = tmp_path / "kiosk-home"
    home.mkdir()
    monkeypatch.setenv("KIOSK_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def english_to_begin_with() -> Iterator[None]:
    """The kiosk's language is the process's: each test starts in the default language, whatever
    the test before it in the same worker switched to (a Spanish leak made a later test's
    message come out in Spanish)."""
    from kiosk import i18n

    i18n.set_language(i18n.DEFAULT_LANGUAGE)
    # Likewise the country times are written for (kiosk.ordering.clock): the visit sets it.
    from kiosk.ordering.clock import set_region

    set_region(None)
    yield
    i18n.set_language(i18n.DEFAULT_LANGUAGE)


@pytest.fixture(scope="session", autouse=True)
def no_secret_in_any_log_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """After the whole run: every log file any test wrote (all live under the run's temp dir, see
    kiosk_home) is grepped for the demo API keys (of every built-in restaurant) and for payment
    client secrets."""
    yield
    from kiosk.demo import data

    keys = [
        location.api_key.encode()
        for name in data.builtin_menus()
        for location in data.load(name).locations
    ]
    client_secret = re.compile(rb"pi_[0-9a-f]{8,}_secret_[A-Za-z0-9_-]{6,}")
    found = []
    logs = [p for p in tmp_path_factory.getbasetemp().rglob("*.log*") if p.is_file()]
    for path in logs:
        data = path.read_bytes()
        if any(key in data for key in keys) or client_secret.search(data):
            found.append(str(path))
    assert not found, f"a secret reached these log files: {found}"
