"""A small mutation tester for kiosk/ordering and kiosk/api (mutmut's idea, sized for this machine).

Why not mutmut itself: mutmut 3 mutates every function of the tree it copies and runs each mutant's
tests in a fresh fork; over these ~10,000 lines that is thousands of mutants and more time than a
shared two-core machine gives. This runner does the same thing on a reproducible sample:

1. `map`: runs the fast tests once under coverage, recording which test (its node id) ran each line.
2. `run`: lists every mutant of every function in the paths (flip a comparison, and/or, +/-, a
   constant, a return value, drop a call statement), draws a sample with a fixed seed, and for each
   one forks this process, swaps the mutated function's code object in place (`func.__code__`), and
   runs only the tests that cover the mutated line, stopping at the first failure. A failure or a
   timeout kills the mutant; a line no fast test runs is "no tests" (a survivor).

    .venv/bin/python tools/mutate.py map
    .venv/bin/python tools/mutate.py run --sample 150 --seed 32 [--only kiosk/api/v2.py]
    .venv/bin/python tools/mutate.py run --rerun .mutation/results-before.json --name after \
        [--extra tests/new_test_file.py ...]   # tests written since the map, run for every mutant
    .venv/bin/python tools/mutate.py show ID        # the mutant's diff
    .venv/bin/python tools/mutate.py equivalent ID "why nothing observable changes"
    .venv/bin/python tools/mutate.py score .mutation/results-NAME.json  # named equivalents apart
    .venv/bin/python tools/mutate.py check          # every named equivalent still names its mutant

It needs `coverage` in the venv (`uv pip install coverage`); it is not a dependency of the kiosk.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gc
import hashlib
import json
import os
import random
import select
import signal
import sys
import time
import types
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["kiosk/ordering", "kiosk/api"]
# The fast tests: unit, api, conformance (not the TUI, end-to-end or benchmark ones).
TESTS = ["tests/unit", "tests/api", "tests/conformance"]
OUT = ROOT / ".mutation"
MAP_FILE = OUT / "lines.json"
# Survivors judged equivalent, one file per module: `ID | FINGERPRINT | why`. The fingerprint is
# the mutant's diff, so an id that comes to name another mutant (code moved) fails `check`.
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents"
PYTEST_ARGS = ["-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist", "--hypothesis-seed=0"]
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical", "log"}

COMPARE_SWAP: dict[type, type] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
BINOP_SWAP: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}


@dataclass(frozen=True)
class Mutant:
    id: str  # file:qualname:n, n counting the function's mutation points in walk order
    file: str
    qualname: str
    index: int
    line: int
    kind: str
    # Which def of that qualname (0: the first): a property's getter and setter share one
    # qualname. Not in the id while 0, so the ids (and a seeded sample) stay as they were.
    nth: int = 0
    # A default value of the def's signature: it lives in the function's `__defaults__`, not in
    # its code, and its line runs only at import (so the tests of the body are the ones to run).
    in_default: bool = False
    body: tuple[int, int] = (0, 0)


def _files() -> list[Path]:
    out: list[Path] = []
    for p in PATHS:
        out += sorted((ROOT / p).glob("*.py"))
    return out


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Each outermost function with its qualname: module functions and methods of (nested) classes.
    A def inside a function is part of its enclosing function (its code is a constant of it)."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + node.name, node))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(tree.body, "")
    return found


def _points(func: ast.AST) -> list[tuple[ast.AST, str]]:
    """The function's mutation points in a fixed order: (node, kind)."""
    skip: set[int] = set()
    points: list[tuple[ast.AST, str]] = []
    for node in ast.walk(func):
        # Docstrings, f-string pieces, log messages and annotations are not behaviour.
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skip.add(id(body[0].value))
            for sub in ast.walk(node.args) if not isinstance(node, ast.ClassDef) else ():
                if isinstance(sub, ast.arg) and sub.annotation is not None:
                    skip.update(id(n) for n in ast.walk(sub.annotation))
            if not isinstance(node, ast.ClassDef) and node.returns is not None:
                skip.update(id(n) for n in ast.walk(node.returns))
        elif isinstance(node, ast.AnnAssign):
            skip.update(id(n) for n in ast.walk(node.annotation))
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LOG_METHODS
        ):
            skip.update(id(n) for a in node.args for n in ast.walk(a))
    for node in ast.walk(func):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in COMPARE_SWAP:
                    points.append((node, f"compare{i}"))
        elif isinstance(node, ast.BoolOp):
            points.append((node, "boolop"))
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
            points.append((node, "binop"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            points.append((node, "not"))
        elif isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
            if node.value is None or node.value is Ellipsis:
                continue
            points.append((node, "constant"))
        elif isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                points.append((node, "return"))
        elif isinstance(node, ast.Expr):
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if isinstance(value, ast.Call):
                points.append((node, "drop-call"))
    return points


def _apply(node: ast.AST, kind: str) -> None:
    """Mutates one point in place."""
    if kind.startswith("compare"):
        assert isinstance(node, ast.Compare)
        i = int(kind[len("compare") :])
        node.ops[i] = COMPARE_SWAP[type(node.ops[i])]()
    elif kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "binop":
        assert isinstance(node, ast.BinOp)
        node.op = BINOP_SWAP[type(node.op)]()
    elif kind == "not":
        # `not x` -> `x`: the operand stands where the negation stood.
        assert isinstance(node, ast.UnaryOp)
        node.__class__ = ast.Call  # in place: the parent keeps its reference
        node.func = ast.Name(id="bool", ctx=ast.Load())  # type: ignore[attr-defined]
        node.args = [node.operand]  # type: ignore[attr-defined]
        node.keywords = []  # type: ignore[attr-defined]
        del node.op, node.operand
    elif kind == "constant":
        assert isinstance(node, ast.Constant)
        v = node.value
        if isinstance(v, bool):
            node.value = not v
        elif isinstance(v, (int, float)):
            node.value = v + 1
        elif isinstance(v, str):
            node.value = "XX" + v + "XX"
    elif kind == "return":
        assert isinstance(node, ast.Return)
        node.value = ast.Constant(value=None)
    elif kind == "drop-call":
        assert isinstance(node, ast.Expr)
        node.value = ast.Constant(value=None)
    ast.fix_missing_locations(node)


def enumerate_mutants() -> list[Mutant]:
    mutants: list[Mutant] = []
    for path in _files():
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(), filename=str(path))
        seen: dict[str, int] = {}
        for qualname, func in _functions(tree):
            nth = seen[qualname] = seen.get(qualname, -1) + 1
            named = qualname if nth == 0 else f"{qualname}@{nth}"
            defaults = _default_nodes(func)
            body = (func.body[0].lineno, func.end_lineno or func.body[-1].lineno)
            for n, (node, kind) in enumerate(_points(func)):
                line = getattr(node, "lineno", func.lineno)
                mid = f"{rel}:{named}:{n}"
                if id(node) in defaults:
                    mutants.append(Mutant(mid, rel, qualname, n, line, kind, nth, True, body))
                else:
                    mutants.append(Mutant(mid, rel, qualname, n, line, kind, nth))
    return mutants


def _default_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    found = [*func.args.defaults, *(d for d in func.args.kw_defaults if d is not None)]
    return {id(n) for d in found for n in ast.walk(d)}


def _function(tree: ast.Module, m: Mutant) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The mutant's def: the nth of its qualname (a property's setter shares its getter's)."""
    return [f for q, f in _functions(tree) if q == m.qualname][m.nth]


def _first_line(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Where the def's code object starts (`co_firstlineno`): its first decorator, if any."""
    return min([func.lineno, *(d.lineno for d in func.decorator_list)])


def _uses_class_cell(func: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in ("super", "__class__") for n in ast.walk(func))


def mutated_source(m: Mutant) -> tuple[ast.Module, str]:
    path = ROOT / m.file
    tree = ast.parse(path.read_text(), filename=str(path))
    func = _function(tree, m)
    had_class_cell = _uses_class_cell(func)
    node, kind = _points(func)[m.index]
    _apply(node, kind)
    shown = ast.unparse(func)
    if had_class_cell and not _uses_class_cell(func):
        # The mutant dropped the only `super()`: the compiled code would lose the `__class__`
        # cell and could not replace the live function's. A bare `__class__` read at the end
        # keeps the cell and does nothing else (left out of what `show` prints).
        keep = ast.Expr(value=ast.Name(id="__class__", ctx=ast.Load()))
        func.body.append(ast.copy_location(keep, func.body[-1]))
        ast.fix_missing_locations(func)
    return tree, shown


def _find_code(code: types.CodeType, qualname: str, first_line: int) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname and const.co_firstlineno == first_line:
                return const
            found = _find_code(const, qualname, first_line)
            if found is not None:
                return found
    return None


def patch(m: Mutant) -> int:
    """Swaps the mutated code into every live function object of that def (its qualname and
    first line: a property's getter and setter share the qualname); returns how many."""
    tree, _ = mutated_source(m)
    filename = str(ROOT / m.file)
    first_line = _first_line(_function(tree, m))
    new = _find_code(compile(tree, filename, "exec"), m.qualname, first_line)
    if new is None:
        return 0
    patched = 0
    # tests/conftest.py freezes the collector after collection (issue 36): frozen objects are
    # not in gc.get_objects(), so thaw them first (in the fork only: the parent stays frozen).
    gc.unfreeze()
    for obj in gc.get_objects():
        if (
            isinstance(obj, types.FunctionType)
            and obj.__code__.co_filename == filename
            and obj.__code__.co_qualname == m.qualname
            and obj.__code__.co_firstlineno == first_line
        ):
            obj.__code__ = new
            if m.in_default:
                _set_defaults(m, obj, _function(tree, m))
            patched += 1
    return patched


def _set_defaults(
    m: Mutant, obj: types.FunctionType, func: ast.FunctionDef | ast.AsyncFunctionDef
) -> None:
    """The mutated default value onto the live function (a code swap leaves `__defaults__`):
    only the default that differs from the source's is evaluated again, the others kept."""
    path = ROOT / m.file
    before = _function(ast.parse(path.read_text(), filename=str(path)), m)

    def changed(old: ast.expr | None, new: ast.expr | None) -> bool:
        return old is not None and new is not None and ast.dump(old) != ast.dump(new)

    def value(node: ast.expr) -> object:
        code = compile(ast.Expression(node), obj.__code__.co_filename, "eval")
        return eval(code, obj.__globals__)

    if obj.__defaults__:
        obj.__defaults__ = tuple(
            value(new) if changed(old, new) else kept
            for old, new, kept in zip(
                before.args.defaults, func.args.defaults, obj.__defaults__, strict=True
            )
        )
    if obj.__kwdefaults__:
        kw = dict(obj.__kwdefaults__)
        for arg, old, new in zip(
            func.args.kwonlyargs, before.args.kw_defaults, func.args.kw_defaults, strict=True
        ):
            if changed(old, new):
                assert new is not None
                kw[arg.arg] = value(new)
        obj.__kwdefaults__ = kw


# --- coverage map -----------------------------------------------------------------------------


class _ContextPlugin:
    """Names coverage's context after the running test, setup and teardown included."""

    def __init__(self, cov: object) -> None:
        self.cov = cov

    def pytest_runtest_setup(self, item: object) -> None:
        self.cov.switch_context(item.nodeid)  # type: ignore[attr-defined]

    def pytest_runtest_logfinish(self, nodeid: str, location: object) -> None:
        self.cov.switch_context("")  # type: ignore[attr-defined]


def build_map(tests: list[str]) -> None:
    import coverage
    import pytest

    OUT.mkdir(exist_ok=True)
    cov = coverage.Coverage(
        data_file=str(OUT / "coverage"), source=[str(ROOT / p) for p in PATHS], branch=False
    )
    cov.start()
    started = time.monotonic()
    rc = pytest.main([*PYTEST_ARGS, "-p", "no:randomly", *tests], plugins=[_ContextPlugin(cov)])
    cov.stop()
    cov.save()
    data = cov.get_data()
    lines: dict[str, dict[str, list[str]]] = {}
    for filename in data.measured_files():
        rel = str(Path(filename).resolve().relative_to(ROOT))
        by_line = data.contexts_by_lineno(filename)
        lines[rel] = {str(k): sorted(c for c in v if c) for k, v in by_line.items()}
    MAP_FILE.write_text(json.dumps({"tests": tests, "lines": lines}))
    print(f"map: pytest rc={rc} in {time.monotonic() - started:.0f} s -> {MAP_FILE}")


# --- running mutants ------------------------------------------------------------------------


def _run_forked(m: Mutant | None, nodeids: list[str], timeout: float) -> str:
    import pytest

    pid = os.fork()
    if pid == 0:  # the child: mutate, test, report by exit code
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            if m is not None and patch(m) == 0:
                os._exit(77)
            rc = pytest.main([*PYTEST_ARGS, "-p", "no:randomly", *nodeids])
            os._exit(int(rc))
        except BaseException:
            os._exit(78)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        select.select([], [], [], 0.05)
    if code == 0:
        return "survived"
    if code in (77, 78):
        # 77: no live function of that def; 78: the mutated code cannot replace the
        # function's (its free variables differ): not a mutant this runner can test.
        return "unpatchable"
    if code in (1,):
        return "killed"
    return f"error{code}"


def run(args: argparse.Namespace) -> None:
    import pytest

    mapping = json.loads(MAP_FILE.read_text())
    lines: dict[str, dict[str, list[str]]] = mapping["lines"]
    every = enumerate_mutants()
    if args.only:
        every = [m for m in every if any(m.file == o or m.id.startswith(o) for o in args.only)]
    chosen = list(every)
    if args.sample and args.sample < len(chosen):
        chosen = sorted(random.Random(args.seed).sample(chosen, args.sample), key=lambda m: m.id)
    kept: list[dict[str, object]] = []
    if args.rerun:
        # The same sample again after new tests: a killed mutant stays killed (tests were only
        # added), so only the others are run again.
        earlier = json.loads(Path(args.rerun).read_text())
        settled = ("killed",) if args.timeouts_again else ("killed", "timeout")
        again = {r["id"] for r in earlier["results"] if r["outcome"] not in settled}
        chosen = [m for m in every if m.id in again]
        # Everything else keeps its earlier outcome (--only narrows what runs, not the score).
        running = {m.id for m in chosen}
        kept = [r for r in earlier["results"] if r["id"] not in running]
        args.seed = earlier["seed"]
    print(f"{len(every)} mutants in {', '.join(args.only or PATHS)}; running {len(chosen)}")
    # Import everything once in this process (the forks inherit it): the kiosk and the tests.
    for path in _files():
        __import__(str(path.relative_to(ROOT).with_suffix("")).replace("/", "."))
    with open(os.devnull, "w") as quiet:
        saved = sys.stdout
        sys.stdout = quiet
        try:
            pytest.main([*PYTEST_ARGS, "--collect-only", *mapping["tests"]])
        finally:
            sys.stdout = saved
    baseline = _run_forked(None, [t for t in mapping["tests"]], timeout=600)
    print(f"baseline (no mutant, the whole selection): {baseline}")
    if baseline != "survived":
        sys.exit("the tests fail without a mutant: fix that first")
    results: list[dict[str, object]] = list(kept)
    counts: dict[str, int] = {}
    for r in kept:
        counts[str(r["outcome"])] = counts.get(str(r["outcome"]), 0) + 1
    for i, m in enumerate(chosen, 1):
        # A file named beside a node id of its own runs only that node (pytest 8): an extra
        # file stands for all of its tests, so its mapped node ids are left out.
        mapped = lines.get(m.file, {}).get(str(m.line), [])
        if m.in_default:
            # A default's line runs at import: the tests that run the body use the default.
            by_line = lines.get(m.file, {})
            mapped = sorted(
                {t for n in range(m.body[0], m.body[1] + 1) for t in by_line.get(str(n), [])}
            )
        tests = args.extra + [t for t in mapped if t.split("::")[0] not in args.extra]
        started = time.monotonic()
        outcome = _run_forked(m, tests, args.timeout) if tests else "no tests"
        counts[outcome] = counts.get(outcome, 0) + 1
        results.append({**asdict(m), "outcome": outcome, "tests": len(tests)})
        print(
            f"[{i}/{len(chosen)}] {outcome:10} {m.id} ({m.kind}, line {m.line}, "
            f"{len(tests)} tests, {time.monotonic() - started:.1f} s)",
            flush=True,
        )
    out = OUT / f"results-{args.name}.json"
    out.write_text(json.dumps({"seed": args.seed, "counts": counts, "results": results}, indent=1))
    print(f"\n{counts} -> {out}")
    score([str(out)])


def _diff(m: Mutant) -> list[str]:
    tree = ast.parse((ROOT / m.file).read_text())
    before = ast.unparse(_function(tree, m)).splitlines()
    after = mutated_source(m)[1].splitlines()
    return list(difflib.unified_diff(before, after, "before", "after", lineterm="", n=2))


def fingerprint(m: Mutant) -> str:
    """What the mutant changes (its kind, the lines it removes and adds), not where: stable while
    other code moves, different as soon as the id names another change."""
    changed = [ln.strip() for ln in _diff(m)[2:] if ln[:1] in "+-"]
    return hashlib.sha1("\n".join([m.kind, *changed]).encode()).hexdigest()[:10]


def _equivalents_file(m: Mutant) -> Path:
    package, module = Path(m.file).parts[-2], Path(m.file).stem
    return EQUIVALENTS / f"{package}.{module}.txt"


def read_equivalents() -> dict[str, tuple[str, str, str]]:
    """Every named equivalent: id -> (fingerprint, why, the file naming it)."""
    found: dict[str, tuple[str, str, str]] = {}
    for path in sorted(EQUIVALENTS.glob("*.txt")):
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            mid, _, rest = line.partition(" | ")
            mark, _, why = rest.partition(" | ")
            found[mid.strip()] = (mark.strip(), why.strip(), path.name)
    return found


def check_equivalents() -> list[str]:
    """The named equivalents that no longer name their mutant (or give no reason)."""
    mutants = {m.id: m for m in enumerate_mutants()}
    wrong: list[str] = []
    for mid, (mark, why, where) in read_equivalents().items():
        m = mutants.get(mid)
        if m is None:
            wrong.append(f"{where}: {mid}: no such mutant")
        elif fingerprint(m) != mark:
            wrong.append(f"{where}: {mid}: names another change now (fingerprint {fingerprint(m)})")
        elif len(why) < 10:
            wrong.append(f"{where}: {mid}: says no reason")
        elif _equivalents_file(m).name != where:
            wrong.append(f"{where}: {mid}: belongs in {_equivalents_file(m).name}")
    return wrong


def name_equivalent(mid: str, why: str) -> None:
    m = next((m for m in enumerate_mutants() if m.id == mid), None)
    if m is None:
        sys.exit(f"no mutant {mid}")
    if mid in read_equivalents():
        sys.exit(f"{mid} is named already")
    if len(why.strip()) < 10:
        sys.exit("say why nothing observable changes")
    path = _equivalents_file(m)
    EQUIVALENTS.mkdir(exist_ok=True)
    head = f"# Equivalent mutants of {m.file}: ID | FINGERPRINT | why\n"
    text = path.read_text() if path.exists() else head
    path.write_text(text + f"{mid} | {fingerprint(m)} | {' '.join(why.split())}\n")
    print(f"{os.path.relpath(path, ROOT)}: {mid}")


def score(files: list[str]) -> None:
    """Each results file's score, raw and without the survivors named equivalent."""
    named = read_equivalents()
    for name in files:
        results = json.loads(Path(name).read_text())["results"]
        scored = [r for r in results if r["outcome"] != "unpatchable"]
        killed = [r for r in scored if r["outcome"] in ("killed", "timeout")]
        timeouts = sum(1 for r in scored if r["outcome"] == "timeout")
        alive = [r for r in scored if r["outcome"] not in ("killed", "timeout")]
        equivalent = [r for r in alive if r["id"] in named]
        left = len(scored) - len(equivalent)
        print(
            f"{name}: {len(killed)}/{len(scored)} = {100 * len(killed) / max(len(scored), 1):.1f}%;"
            f" without the {len(equivalent)} named equivalents {len(killed)}/{left} ="
            f" {100 * len(killed) / max(left, 1):.1f}% ({timeouts} of the killed by a timeout)"
        )
        for r in alive:
            if r["id"] not in named:
                print(f"    {r['outcome']:9} {r['id']} ({r['kind']}, line {r['line']})")


def show(mid: str) -> None:
    m = next(m for m in enumerate_mutants() if m.id == mid)
    print(f"{m.id} ({m.kind}, line {m.line}, fingerprint {fingerprint(m)})")
    named = read_equivalents().get(mid)
    if named:
        print(f"named equivalent in {named[2]}: {named[1]}")
    print("\n".join(_diff(m)))


def main() -> None:
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_map = sub.add_parser("map")
    p_map.add_argument("tests", nargs="*", default=TESTS)
    p_run = sub.add_parser("run")
    p_run.add_argument("--sample", type=int, default=0)
    p_run.add_argument("--seed", type=int, default=32)
    p_run.add_argument("--only", nargs="*", default=[])
    p_run.add_argument("--timeout", type=float, default=120)
    p_run.add_argument("--name", default="latest")
    p_run.add_argument("--rerun", help="a results file: run its mutants not killed again")
    # A timeout kills a mutant (an endless loop), but on a loaded machine a survivor's many
    # tests can outlast the limit too: run the timeouts again (with a longer --timeout).
    p_run.add_argument("--timeouts-again", action="store_true")
    # Test files newer than the map (run with every mutant, without mapping them again).
    p_run.add_argument("--extra", nargs="*", default=[])
    p_show = sub.add_parser("show")
    p_show.add_argument("id")
    p_equivalent = sub.add_parser("equivalent")
    p_equivalent.add_argument("id")
    p_equivalent.add_argument("why", nargs="+")
    p_score = sub.add_parser("score")
    p_score.add_argument("results", nargs="+")
    sub.add_parser("check")
    sub.add_parser("count")
    args = parser.parse_args()
    if args.cmd == "map":
        build_map(args.tests)
    elif args.cmd == "run":
        run(args)
    elif args.cmd == "show":
        show(args.id)
    elif args.cmd == "equivalent":
        name_equivalent(args.id, " ".join(args.why))
    elif args.cmd == "score":
        score(args.results)
    elif args.cmd == "check":
        wrong = check_equivalents()
        named = len(read_equivalents())
        print("\n".join(wrong) or f"{named} named equivalents, each names its mutant")
        sys.exit(1 if wrong else 0)
    elif args.cmd == "count":
        every = enumerate_mutants()
        by_file: dict[str, int] = {}
        for m in every:
            by_file[m.file] = by_file.get(m.file, 0) + 1
        for f, n in sorted(by_file.items()):
            print(f"{n:6} {f}")
        print(f"{len(every):6} total")


if __name__ == "__main__":
    main()
