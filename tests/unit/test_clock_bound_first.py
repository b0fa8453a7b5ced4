"""The suite's schedule: tests that wait on a real clock go at the head of the first workers'
shares (tests/conftest.py clock_bound_first), not last on one worker."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import clock_bound_first


class Item:
    def __init__(self, name: str, seconds: float | None = None) -> None:
        self.name = name
        self.mark = None if seconds is None else pytest.mark.clock_bound(seconds=seconds).mark

    def get_closest_marker(self, name: str) -> Any:
        return self.mark if name == "clock_bound" else None


def shares(items: list[Any], workers: int) -> list[list[str]]:
    """The contiguous shares xdist's worksteal hands out first: the pending count over the
    workers left."""
    out, left, at = [], len(items), 0
    for worker in range(workers):
        size = left // (workers - worker)
        out.append([i.name for i in items[at : at + size]])
        at, left = at + size, left - size
    return out


def test_clock_bound_tests_head_the_shares_of_the_workers_beyond_the_cores() -> None:
    items = [Item(f"t{n}") for n in range(40)]
    items[30:30] = [Item("ssh47", 47), Item("ssh41", 41), Item("ssh25", 25), Item("pip12", 12)]
    ordered = clock_bound_first(items, workers=4, cores=2)  # type: ignore[arg-type]
    assert sorted(i.name for i in ordered) == sorted(i.name for i in items)  # every test, once
    first = shares(ordered, 4)
    # Two chains of about equal seconds, each at the head of a share; the others start on CPU.
    assert first[0][:2] == ["ssh47", "pip12"] and first[1][:2] == ["ssh41", "ssh25"]
    assert all(name.startswith("t") for share in first[2:] for name in share)
    # The rest keep their collected order.
    rest = [i.name for i in ordered if i.name.startswith("t")]
    assert rest == [f"t{n}" for n in range(40)]


def test_one_chain_when_there_are_no_more_workers_than_cores() -> None:
    items = [Item("a"), Item("slow", 30), Item("b"), Item("slower", 40), Item("c")]
    ordered = clock_bound_first(items, workers=2, cores=2)  # type: ignore[arg-type]
    assert [i.name for i in ordered] == ["slower", "slow", "a", "b", "c"]
