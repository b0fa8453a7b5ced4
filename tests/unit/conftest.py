"""The ordering tests run on both dialects (issue 32: the rig parametrised as tests/tui does).

A test module that drives `demo_rig` (tests/support/ordering_rig.py) declares
`pytestmark = pytest.mark.usefixtures("rig_dialect")`: each of its tests runs once on the legacy
v1 API and once on Storefront 2.0, both served by the same embedded demo backend. A test that is
true of one dialect only says so with `@pytest.mark.only_dialect("v1", reason="...")`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import ordering_rig

DIALECTS = ("v1", "v2")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "rig_dialect" not in metafunc.fixturenames:
        return
    only = metafunc.definition.get_closest_marker("only_dialect")
    if only is not None:
        assert only.kwargs.get("reason"), "only_dialect needs a reason"
    dialects = [only.args[0]] if only is not None else list(DIALECTS)
    metafunc.parametrize("rig_dialect", dialects, indirect=True, ids=dialects)


@pytest.fixture
def rig_dialect(request: pytest.FixtureRequest) -> Iterator[str]:
    """The dialect `demo_rig` builds its client for, during this test."""
    with ordering_rig.rig_dialect(request.param):
        yield request.param
