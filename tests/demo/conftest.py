"""Fixtures for the demo backend tests: the app in-process, an injected clock, a client per key."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo import create_app
from kiosk.demo.backend import Backend
from kiosk.demo.data import DOWNTOWN, WESTSIDE

from .support import Clock, make_client


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(clock: Clock) -> Starlette:
    return create_app(clock=clock)


@pytest.fixture
def backend(app: Starlette) -> Backend:
    b: Backend = app.state.backend
    return b


@pytest.fixture
async def dt(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """A client with the downtown key."""
    async with make_client(app, DOWNTOWN.api_key) as client:
        yield client


@pytest.fixture
async def ws(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """A client with the westside key."""
    async with make_client(app, WESTSIDE.api_key) as client:
        yield client


@pytest.fixture
async def root(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """A client for /demo/* (no key)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        yield client
