"""House rules the client depends on: no Textual in kiosk.api; API paths live in one table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kiosk.api import ENDPOINTS

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_client_loads_no_textual() -> None:
    # Only textual: httpx's own __init__ imports rich (for its CLI) whenever rich is installed.
    code = (
        "import sys, kiosk.api\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual')\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


# Distinctive pieces of the table's paths; outside kiosk/api/endpoints.py (and the demo backend,
# which serves them) no module of the program may spell one.
_PIECES = sorted(
    {
        piece
        for e in ENDPOINTS.values()
        for piece in re.split(r"\{[a-z_]+\}", e.path_template)
        if len(piece.strip("/")) > 4
    }
)


def test_paths_are_spelled_only_in_the_endpoint_table() -> None:
    assert "/cart-item" in _PIECES and "/validate-and-update" in _PIECES
    offenders = []
    for path in sorted((ROOT / "kiosk").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "kiosk/api/endpoints.py" or rel.startswith("kiosk/demo/"):
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{rel}: {p!r}" for p in _PIECES if f'"{p}' in text or f"'{p}" in text]
    assert offenders == []


def test_the_two_dialects_are_sibling_adapters_of_one_protocol() -> None:
    from kiosk.api import StorefrontBase, StorefrontClient
    from kiosk.api.v2 import StorefrontClientV2

    assert issubclass(StorefrontClient, StorefrontBase)
    assert issubclass(StorefrontClientV2, StorefrontBase)
    assert not issubclass(StorefrontClientV2, StorefrontClient)
    # Every row a dialect speaks its own way is written by both adapters.
    assert not StorefrontClient.__abstractmethods__
    assert not StorefrontClientV2.__abstractmethods__
    assert "create_payment_intent" in StorefrontBase.__abstractmethods__


def test_no_class_over_500_lines_no_function_over_120_in_the_client() -> None:
    import ast

    too_big = []
    for path in sorted((ROOT / "kiosk" / "api").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            size = (
                (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(node, "lineno") else 0
            )
            if isinstance(node, ast.ClassDef) and size > 500:
                too_big.append(f"{path.name} class {node.name}: {size} lines")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and size > 120:
                too_big.append(f"{path.name} {node.name}: {size} lines")
    assert too_big == []
