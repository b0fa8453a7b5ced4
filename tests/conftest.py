"""Fixtures every test gets.

Each test runs with its own KIOSK_HOME under tmp_path, so that nothing reads or writes the real
platformdirs (config, secrets, state, data, logs) of the machine running the suite, and with every
other KIOSK_* variable of the outer environment removed, so that a developer's KIOSK_API_KEY or
KIOSK_PROFILE cannot change a result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test of a module with an example budget (EXAMPLES, or its BOUNDED settings) is marked
    `fuzz` (`-m fuzz` runs them alone; CI runs them at the full budget)."""
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and (hasattr(module, "EXAMPLES") or hasattr(module, "BOUNDED")):
            item.add_marker(pytest.mark.fuzz)


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
