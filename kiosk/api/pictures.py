"""Product pictures: a plain GET of the URL the API gave a product, for the screen to draw.

Not a contract row, so not the sender's: one try, no credential, a bounded cache of answers."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

import httpx

from .errors import APIConnectionError, ResponseFormatError, StorefrontError
from .sender import ClientStats, RateBudget, header_int

__all__ = ["IMAGE_CACHE_SIZE", "IMAGE_MAX_BYTES", "IMAGE_TYPES", "Pictures"]

log = logging.getLogger("kiosk.api")

# What a terminal can draw, and no more than a small photo weighs.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
IMAGE_MAX_BYTES = 512 * 1024
IMAGE_CACHE_SIZE = 24


class Pictures:
    """The client's product pictures, over its httpx client (never with the API's credentials)."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        origin: str,
        *,
        clock: Callable[[], float],
        ttl: float,
        timeout: float,
        stats: ClientStats,
        budget: RateBudget,
    ) -> None:
        self._http = http
        self._origin = origin
        self._clock = clock
        self._ttl = ttl
        self._timeout = timeout
        self._stats = stats
        self._budget = budget
        # URL -> (expires at, bytes or the failure), least recently used first.
        self._images: OrderedDict[str, tuple[float, bytes | StorefrontError]] = OrderedDict()

    async def get(self, url: str, *, max_bytes: int = IMAGE_MAX_BYTES) -> bytes:
        """A product picture's bytes (`images[0]` of a product), for the screen to draw.

        Not a contract row: a plain GET of the URL the API gave, relative ones resolved against
        the API's origin. No credential goes with it (the key and cart token belong to the API's
        routes, and a picture may live on a CDN). One try, no retries (a picture is decoration);
        refused unless it answers 200 with an image content type within `max_bytes`.
        The last IMAGE_CACHE_SIZE answers are kept for `ttl`, the client's `menu_ttl` (failures
        too, so a broken picture costs one request per product, not one per opening): bounded, as
        pictures weigh.
        """
        target = httpx.URL(self._origin + "/").join(url.strip())
        if target.scheme not in ("http", "https") or not target.host:
            raise ResponseFormatError(endpoint="image", details={"errors": "not an http(s) URL"})
        key = str(target)
        kept = self._images.get(key)
        if kept is None or kept[0] <= self._clock():
            try:
                value: bytes | StorefrontError = await self._fetch(target, max_bytes)
            except StorefrontError as exc:
                value = exc
            kept = (self._clock() + self._ttl, value)
            self._images[key] = kept
            while len(self._images) > IMAGE_CACHE_SIZE:
                self._images.popitem(last=False)
        else:
            self._stats.cache_hits += 1
        self._images.move_to_end(key)
        if isinstance(kept[1], StorefrontError):
            raise kept[1]
        return kept[1]

    async def _fetch(self, target: httpx.URL, max_bytes: int) -> bytes:
        if target.host == httpx.URL(self._origin).host:
            self._budget.note_sent()  # the API's own host counts against its budget
        self._stats.requests += 1
        self._stats.by_endpoint["image"] += 1
        try:
            async with asyncio.timeout(self._timeout):
                async with self._http.stream(
                    "GET", target, headers={"Accept": "image/png, image/jpeg, image/*;q=0.8"}
                ) as response:
                    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
                    if response.status_code != 200:
                        raise ResponseFormatError(status=response.status_code, endpoint="image")
                    if kind not in IMAGE_TYPES:
                        raise ResponseFormatError(
                            endpoint="image", details={"errors": f"not a picture: {kind[:40]}"}
                        )
                    declared = header_int(response.headers, "content-length")
                    if declared is not None and declared > max_bytes:
                        raise ResponseFormatError(endpoint="image", details={"errors": "too big"})
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > max_bytes:
                            raise ResponseFormatError(
                                endpoint="image", details={"errors": "too big"}
                            )
                    return bytes(body)
        except (httpx.TransportError, TimeoutError) as exc:
            log.info("picture %s -> %s", target.path[:80], type(exc).__name__)
            raise APIConnectionError(endpoint="image") from exc
