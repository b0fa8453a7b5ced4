"""Which Storefront API versions a server speaks (`kiosk doctor`).

Only the versions asked for are probed (the doctor asks the one the kiosk speaks; `--probe-all`
both): a strict 2.0 server counts a request to a legacy path as a breach. One location read per
version, each the way that version is spoken: 2.0 anonymously below
`/api/v1/storefront`, the legacy API at `/api/v1` with the location key (or none). No retries and a
short deadline: a diagnosis wants a prompt answer. Where each version lives is `dialect_base`, the
one place that spells the two roots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import StorefrontBase
from .client import RetryPolicy, StorefrontClient
from .errors import (
    APIConnectionError,
    AuthenticationError,
    NotFoundError,
    PermissionDeniedError,
    StorefrontError,
)

__all__ = ["V2_SUFFIX", "DialectAnswer", "dialect_base", "probe_dialects"]

# Storefront 2.0 lives at /api/v1/storefront (there is no /api/v2).
V2_SUFFIX = "/storefront"
_V1_ROOT = "/api/v1"


def dialect_base(base_url: str, dialect: str) -> str:
    """The base URL as the dialect wants it: 2.0 below /api/v1/storefront, v1 at /api/v1."""
    url = base_url.rstrip("/")
    if dialect == "v2" and not url.endswith(V2_SUFFIX):
        return url + V2_SUFFIX
    if dialect == "v1" and url.endswith(_V1_ROOT + V2_SUFFIX):
        return url.removesuffix(V2_SUFFIX)
    return url


@dataclass(frozen=True, slots=True)
class DialectAnswer:
    """What one version's probe found: `speaks` (the server answers that API) and why, in words."""

    dialect: str
    base_url: str
    speaks: bool
    detail: str

    @property
    def name(self) -> str:
        return "2.0" if self.dialect == "v2" else "v1"


def _client(dialect: str, base_url: str, api_key: str, transport: Any) -> StorefrontBase:
    options: dict[str, Any] = {
        "transport": transport,
        "retry": RetryPolicy(max_attempts=1),
        "deadline": 8.0,
        "max_wait": 0.0,
    }
    if dialect == "v2":
        from .v2 import StorefrontClientV2

        return StorefrontClientV2(dialect_base(base_url, "v2"), **options)
    # The legacy client wants a key; without one, a stand-in the server refuses (that refusal,
    # in the legacy envelope, is itself the sign that the legacy API is there).
    return StorefrontClient(dialect_base(base_url, "v1"), api_key or "no-key", **options)


async def _probe_one(
    dialect: str, base_url: str, location_id: str, api_key: str, transport: Any
) -> DialectAnswer:
    client = _client(dialect, base_url, api_key, transport)
    url = client.base_url
    try:
        await client.get_location(location_id)
    except (AuthenticationError, PermissionDeniedError) as exc:
        said = "no location key given" if not api_key else "the location key was refused"
        return DialectAnswer(dialect, url, True, f"answers (HTTP {exc.status}: {said})")
    except NotFoundError:
        # A 404 never means "answers": a 2.0 server's catch-all 404 carries the same envelope
        # (and requestId) for a legacy path as for an unknown location, so nothing here tells
        # the API from its absence. The location check says which, in its own words.
        return DialectAnswer(
            dialect, url, False, f"HTTP 404 (no such API here, or no location {location_id})"
        )
    except APIConnectionError as exc:
        return DialectAnswer(dialect, url, False, f"unreachable ({exc.message})")
    except StorefrontError as exc:
        status = f"HTTP {exc.status}" if exc.status is not None else type(exc).__name__
        return DialectAnswer(dialect, url, False, f"no usable answer ({status})")
    finally:
        await client.aclose()
    return DialectAnswer(dialect, url, True, f"answers (location {location_id} read)")


async def probe_dialects(
    client: StorefrontBase, location_id: str, dialects: Sequence[str] = ("v2", "v1")
) -> list[DialectAnswer]:
    """The `dialects` asked for (default both, 2.0 first) at the server `client` talks to (its
    wire and its key)."""
    key = client._api_key.get_secret_value()  # same package: the key never leaves kiosk.api
    return [
        await _probe_one(d, client.base_url, location_id, key, client.transport) for d in dialects
    ]
