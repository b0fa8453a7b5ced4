"""The resume file: the open order as this terminal keeps it for a restart.

One JSON file, written atomically on every row of the order's lifecycle (the CartStore, the
order's owner, hands it the record; nothing else writes it): the cart id, the location, the
order's record (kiosk.ordering.lifecycle.OrderSnapshot) and, on 2.0, the cart's token. It is
removed when the order ends (completed and shown, expired, discarded). The file is the
terminal's owner's only (0600, kiosk.paths.atomic_write): the token is what reaches the cart.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from kiosk.ordering.lifecycle import OrderSnapshot
from kiosk.paths import atomic_write

__all__ = ["ResumeFile", "SavedCart", "load_saved_cart"]

log = logging.getLogger("kiosk.ordering")


@dataclass(frozen=True, slots=True)
class SavedCart:
    cart_id: str
    location_id: str
    # What reaches the cart besides its id (Storefront 2.0: the cart token); kept out of reprs.
    access: str | None = field(default=None, repr=False)
    # Where the order stood (kiosk.ordering.lifecycle): a restart resumes into the same phase.
    order: OrderSnapshot = field(default_factory=OrderSnapshot)


def load_saved_cart(path: Path | None) -> SavedCart | None:
    """The cart id a previous run left in `path` (None when there is none or it is unreadable)."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    cart_id, location_id = data.get("cartId"), data.get("locationId")
    access = data.get("cartToken")
    if isinstance(cart_id, str) and cart_id and isinstance(location_id, str):
        return SavedCart(
            cart_id,
            location_id,
            access if isinstance(access, str) else None,
            OrderSnapshot.from_json(data.get("order")),
        )
    return None


class ResumeFile:
    """The file at `path` (None: this terminal keeps none). Failures to write or remove it are
    logged, never raised: the order goes on without a resume."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def load(self) -> SavedCart | None:
        return load_saved_cart(self.path)

    def save(
        self,
        cart_id: str,
        location_id: str,
        order: OrderSnapshot,
        access: SecretStr | None = None,
    ) -> None:
        if self.path is None:
            return
        data: dict[str, Any] = {"cartId": cart_id, "locationId": location_id}
        data["order"] = order.to_json()
        if access is not None:
            data["cartToken"] = access.get_secret_value()
        try:
            atomic_write(self.path, json.dumps(data))
        except OSError:
            log.warning("could not keep the cart id for crash resume", exc_info=True)

    def remove(self) -> None:
        if self.path is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            log.warning("could not remove the crash-resume file", exc_info=True)
