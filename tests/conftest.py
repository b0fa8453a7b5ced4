"""Fixtures every test gets.

Each test runs with its own KIOSK_HOME under tmp_path, so that nothing reads or writes the real
platformdirs (config, secrets, state, data, logs) of the machine running the suite, and with every
other KIOSK_* variable of the outer environment removed, so that a developer's KIOSK_API_KEY or
KIOSK_PROFILE cannot change a result.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def kiosk_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("KIOSK_"):
            monkeypatch.delenv(name)
    home = tmp_path / "kiosk-home"
    home.mkdir()
    monkeypatch.setenv("KIOSK_HOME", str(home))
    return home
