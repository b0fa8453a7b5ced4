"""KioskApp split by job (issue 32 item 7): no class in kiosk/tui/app.py over 500 lines, and the
navigation the screens once did among themselves lives in the router and its applier."""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "kiosk" / "tui"
LIMIT = 500


def _class_lengths(path: Path) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def test_no_class_in_the_app_module_is_over_500_lines() -> None:
    sizes = _class_lengths(TUI / "app.py")
    assert sizes["KioskApp"] <= LIMIT
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}


def test_no_flow_screen_pushes_another_flow_screen() -> None:
    # The screens ask for a step (kiosk.tui.flow.Wants); only the applier builds flow screens.
    flow = ("LocationScreen", "WelcomeScreen", "MenuScreen", "CartScreen", "CheckoutScreen")
    flow += ("PaymentScreen", "DoneScreen")
    screens = TUI / "screens"
    found = []
    for name in ("location", "welcome", "menu", "cart", "checkout", "payment", "done"):
        tree = ast.parse((screens / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in flow
            ):
                found.append(f"{name}.py:{node.lineno} {node.func.id}()")
    assert found == []
