"""The house rules of ../shared/architecture.md that an import graph can check.

The core (api, ordering, config, demo) never imports Textual; the demo backend never imports the
client; the client never imports the demo; the TUI never talks to httpx directly.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kiosk"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _files(sub: str) -> list[Path]:
    target = ROOT / sub
    if target.is_file():
        return [target]
    return sorted(target.rglob("*.py"))


def _offenders(sub: str, banned: tuple[str, ...]) -> list[str]:
    bad = []
    for path in _files(sub):
        for name in _imports(path):
            if any(name == b or name.startswith(b + ".") for b in banned):
                bad.append(f"{path.relative_to(ROOT.parent)} imports {name}")
    return bad


@pytest.mark.parametrize("sub", ["api", "ordering", "demo", "config.py"])
def test_core_never_imports_textual(sub: str) -> None:
    if not (ROOT / sub).exists():
        pytest.skip(f"kiosk/{sub} does not exist yet")
    assert _offenders(sub, ("textual", "rich")) == []


def test_demo_is_another_party() -> None:
    assert _offenders("demo", ("kiosk.api", "kiosk.ordering", "kiosk.tui")) == []


def test_client_never_imports_demo() -> None:
    assert _offenders("api", ("kiosk.demo", "kiosk.ordering", "kiosk.tui")) == []
    assert _offenders("ordering", ("kiosk.demo", "kiosk.tui", "httpx")) == []


def test_tui_never_talks_http() -> None:
    assert _offenders("tui", ("httpx",)) == []


def test_checker_sees_a_planted_import(tmp_path: Path) -> None:
    # The checks above would pass vacuously if _imports saw nothing: prove it sees both forms.
    planted = tmp_path / "m.py"
    planted.write_text("import textual.app\nfrom textual.widgets import Static\n", encoding="utf-8")
    assert _imports(planted) == {"textual.app", "textual.widgets"}
