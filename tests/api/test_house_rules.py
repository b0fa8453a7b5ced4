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
