"""No import cycle in kiosk/: every `from kiosk... import` (at the top, inside a function or under
TYPE_CHECKING) counts, so screens and parts reach the app through kiosk.tui.contract, not by
importing kiosk.tui.app back."""

from __future__ import annotations

import ast
from pathlib import Path

KIOSK = Path(__file__).resolve().parents[2] / "kiosk"


def import_graph() -> dict[str, set[str]]:
    modules = {
        ".".join(p.relative_to(KIOSK.parent).with_suffix("").parts): p
        for p in KIOSK.rglob("*.py")
        if p.name != "__init__.py"
    }
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    for target in (f"{node.module}.{alias.name}", node.module):
                        if target in modules:
                            graph[name].add(target)
                            break
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return found


def test_the_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]


def test_kiosk_has_no_import_cycle() -> None:
    graph = import_graph()
    assert graph.get("kiosk.tui.app")
    assert cycles(graph) == []
