"""Where the kiosk keeps things: platformdirs for config/state/data/logs, and the bundled styles."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "kiosk"


def _dirs() -> PlatformDirs:
    return PlatformDirs(APP_NAME, appauthor=False)


def _override(env: str, sub: str, default: str) -> Path:
    # KIOSK_HOME moves every directory at once (tests, several kiosks on one machine).
    if env in os.environ:
        return Path(os.environ[env])
    home = os.environ.get("KIOSK_HOME")
    if home:
        return Path(home) / sub
    return Path(default)


def config_dir() -> Path:
    return _override("KIOSK_CONFIG_DIR", "config", _dirs().user_config_dir)


def state_dir() -> Path:
    return _override("KIOSK_STATE_DIR", "state", _dirs().user_state_dir)


def data_dir() -> Path:
    return _override("KIOSK_DATA_DIR", "data", _dirs().user_data_dir)


def log_dir() -> Path:
    return _override("KIOSK_LOG_DIR", "log", _dirs().user_log_dir)


def styles_dir() -> Path:
    """The .tcss sources: `styles/` in a checkout, `kiosk/styles/` in an installed wheel."""
    packaged = Path(__file__).parent / "styles"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).parent.parent / "styles"
    return checkout
