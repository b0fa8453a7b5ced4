"""The mutation runner (tools/mutate.py) addresses the def a mutant names: a property's getter and
setter share a qualname, and a mutant that drops the only `super()` still replaces the live code."""

from __future__ import annotations

import gc
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest

from tests.unit import mutate_sample
from tests.unit.mutate_sample import Sample

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path(mutate_sample.__file__)


@pytest.fixture(scope="module")
def mutate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kiosk_mutate_tool", ROOT / "tools/mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def sample_mutants(mutate: ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    monkeypatch.setattr(mutate, "_files", lambda: [SAMPLE])
    return list(mutate.enumerate_mutants())


@pytest.fixture
def restored() -> Iterator[None]:
    """Puts the sample's code back after a test patched it (and the collector as it was)."""
    functions = [
        Sample.size.fget,
        Sample.size.fset,
        Sample.greet,
        Sample.__init__,
        mutate_sample.scaled,
    ]
    codes = [f.__code__ for f in functions]
    frozen = gc.get_freeze_count()
    yield
    for f, code in zip(functions, codes, strict=True):
        assert isinstance(f, FunctionType)
        f.__code__ = code
    if frozen:
        gc.freeze()


def test_getter_and_setter_mutants_have_ids_of_their_own(sample_mutants: list[Any]) -> None:
    ids = [m.id for m in sample_mutants]
    assert len(ids) == len(set(ids))
    rel = str(SAMPLE.relative_to(ROOT))
    # The first def of a name keeps the plain id (the ids of a seeded sample do not move).
    assert f"{rel}:Sample.size:0" in ids
    assert f"{rel}:Sample.size@1:0" in ids


def test_a_getter_mutant_changes_the_getter_and_not_the_setter(
    mutate: ModuleType, sample_mutants: list[Any], restored: None
) -> None:
    getter = next(m for m in sample_mutants if m.qualname == "Sample.size" and m.kind == "binop")
    assert getter.nth == 0
    assert "self._size - 1" in mutate.mutated_source(getter)[1]
    assert mutate.patch(getter) == 1
    sample = Sample()
    assert sample.size == 0  # _size - 1: the getter is the mutant
    sample.size = 5
    assert sample._size == 4  # the setter is untouched


def test_a_setter_mutant_changes_the_setter_and_not_the_getter(
    mutate: ModuleType, sample_mutants: list[Any], restored: None
) -> None:
    setter = next(m for m in sample_mutants if m.qualname == "Sample.size" and m.nth == 1)
    assert setter.kind == "binop"
    assert mutate.patch(setter) == 1
    sample = Sample()
    assert sample.size == 2
    sample.size = 5
    assert sample._size == 6  # value + 1: the setter is the mutant


def test_a_mutant_dropping_the_only_super_is_patched(
    mutate: ModuleType, sample_mutants: list[Any], restored: None
) -> None:
    dropped = next(m for m in sample_mutants if m.qualname == "Sample.greet" and m.kind == "return")
    assert "super()" not in mutate.mutated_source(dropped)[1]
    assert mutate.patch(dropped) == 1
    assert Sample().greet() is None


def test_a_mutant_of_a_default_value_changes_that_default_only(
    mutate: ModuleType, sample_mutants: list[Any], restored: None
) -> None:
    defaults = [m for m in sample_mutants if m.qualname == "scaled" and m.in_default]
    assert [m.kind for m in defaults] == ["constant", "constant"]
    body = mutate_sample.scaled.__code__.co_firstlineno + 1
    assert all(m.body == (body, body) for m in defaults)  # the body's tests are run for it
    results = []
    for mutant in defaults:
        assert mutate.patch(mutant) == 1
        results.append(mutate_sample.scaled(3))
        mutate_sample.scaled.__defaults__ = (2,)
        mutate_sample.scaled.__kwdefaults__ = {"offset": 10}
    assert sorted(results) == [3 * 2 + 11, 3 * 3 + 10]
    assert mutate_sample.scaled(3) == 16


def test_every_named_equivalent_still_names_its_mutant(mutate: ModuleType) -> None:
    """A survivor named equivalent is named by id and by what it changes: when code moves and the id
    comes to name another change, the name stops counting until someone looks again."""
    assert mutate.check_equivalents() == []


def test_a_named_equivalent_that_comes_to_name_another_change_is_caught(
    mutate: ModuleType,
    sample_mutants: list[Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(mutate, "EQUIVALENTS", tmp_path)
    first, second = sample_mutants[0], sample_mutants[1]
    assert mutate.fingerprint(first) != mutate.fingerprint(second)
    mutate.name_equivalent(first.id, "the value is read by nobody")
    assert list(mutate.read_equivalents()) == [first.id]
    assert mutate.check_equivalents() == []
    # The same id now pointing at another change (as if code above it moved): caught.
    registry = next(tmp_path.glob("*.txt"))
    registry.write_text(registry.read_text().replace(mutate.fingerprint(first), "0123456789"))
    assert [w.split(": ")[-1] for w in mutate.check_equivalents()] == [
        f"names another change now (fingerprint {mutate.fingerprint(first)})"
    ]
    with pytest.raises(SystemExit):
        mutate.name_equivalent(second.id, "why?")  # a reason too short to be one


def test_the_score_leaves_out_only_the_survivors_named_equivalent(
    mutate: ModuleType,
    sample_mutants: list[Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(mutate, "EQUIVALENTS", tmp_path)
    a, b, c, d = sample_mutants[:4]
    mutate.name_equivalent(b.id, "the value is read by nobody")
    mutate.name_equivalent(c.id, "a killed mutant named equivalent still counts as killed")
    results = tmp_path / "results.json"
    outcomes = {a.id: "killed", b.id: "survived", c.id: "killed", d.id: "no tests"}
    results.write_text(
        '{"results": ['
        + ",".join(
            f'{{"id": "{mid}", "outcome": "{o}", "kind": "k", "line": 1}}'
            for mid, o in outcomes.items()
        )
        + "]}"
    )
    capsys.readouterr()
    mutate.score([str(results)])
    out = capsys.readouterr().out
    assert "2/4 = 50.0%; without the 1 named equivalents 2/3 = 66.7%" in out
    assert d.id in out and b.id not in out.split("\n", 1)[1]
