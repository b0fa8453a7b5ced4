"""What every resource's rules share: the attributes Backend sets, body readers, timestamps."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.demo.catalog import Catalog
from kiosk.demo.errors import validation
from kiosk.demo.store import Store


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _str(
    body: dict[str, Any], name: str, *, required: bool = True, max_len: int = 200
) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise validation(f"{name} is required", name)
        return None
    if not isinstance(value, str):
        raise validation(f"{name} must be a string", name)
    value = value.strip()
    if required and not value:
        raise validation(f"{name} must not be empty", name)
    if len(value) > max_len:
        raise validation(f"{name} must be at most {max_len} characters", name)
    return value


def _int(body: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = body.get(name)
    if value is None:
        raise validation(f"{name} is required", name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation(f"{name} must be a whole number", name)
    if value < lo or value > hi:
        raise validation(f"{name} must be between {lo} and {hi}", name)
    return value


class Core:
    """The state every resource mixin reads; kiosk.demo.backend.Backend.__init__ sets it."""

    clock: Callable[[], float]
    store: Store
    catalog: Catalog
    public_base_url: str | None
    _zones: dict[str, ZoneInfo]
