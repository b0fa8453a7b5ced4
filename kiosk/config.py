"""Settings: one frozen object, built from defaults < TOML file < KIOSK_* env < command-line flags.

This module never imports Textual. The loader (TOML, env, flags, profiles, the secrets file) is filled in by
issue 5; the fields below are the names every other part of the kiosk reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

PaymentMode = Literal["scan", "counter"]


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: str = "demo"
    # None in the demo profile: the kiosk runs the embedded backend in-process.
    base_url: str | None = None
    # The API key never comes from the TOML file: KIOSK_API_KEY or a 0600 secrets file.
    api_key: SecretStr | None = Field(default=None, repr=False)
    location: str | None = None
    merchant: str | None = None

    kiosk_mode: bool = False
    staff_pin_hash: str | None = Field(default=None, repr=False)
    idle_timeout: float = 90.0
    idle_countdown: float = 20.0
    payment_timeout: float = 300.0
    done_timeout: float = 15.0
    payment_mode: PaymentMode = "scan"

    menu_ttl: float = 300.0
    demo_db: Path | None = None
    log_level: str = "INFO"
