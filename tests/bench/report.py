"""The benchmark table of docs/benchmarks.md, made from tests/bench/results.json (`./dev bench`).

    .venv/bin/python -m tests.bench.report          print the table
    .venv/bin/python -m tests.bench.report --write  put it in docs/benchmarks.md (between markers)

tests/unit/test_docs.py checks that the page holds the table of the committed results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "bench" / "results.json"
PAGE = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- the table below is made by `python -m tests.bench.report --write`: do not edit it -->"
END = "<!-- end of the generated table -->"


def _number(value: Any) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(round(value)) if abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def measured_at(figure: dict[str, Any], results: dict[str, Any]) -> str:
    """When `figure` was measured: a partial run (`./dev bench -k …`) keeps the other
    benchmarks' figures, each with its own run's date ("< date" for one older than `results`
    whose date was not kept)."""
    if "measured" in figure:
        return str(figure["measured"])
    when = str(results.get("when", "?"))
    return when if figure.get("bench") in results.get("benchmarks_run", []) else f"< {when}"


def table(results: dict[str, Any]) -> str:
    machine = results.get("machine", {})
    runs: dict[str, list[str]] = {}
    for f in results.get("figures", []):
        at = measured_at(f, results)
        if f["bench"] not in runs.setdefault(at, []):
            runs[at].append(f["bench"])
    measured = "; ".join(f"{', '.join(b)} on {at}" for at, b in sorted(runs.items()))
    lines = [
        f"From `{results.get('command', './dev bench')}`, last run {results.get('when', '?')} "
        f"(Python {machine.get('python', '?')}, {machine.get('cpus', '?')} CPUs, "
        f"{results.get('seconds', 0):.0f} s). Benchmarks measured: {measured}.",
        "",
        "| # | figure | value | baseline | ratio | goal | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in results.get("figures", []):
        value = f"{_number(f.get('value'))} {f.get('unit') or ''}".strip()
        ratio = f"{f['ratio']:.2f}x" if isinstance(f.get("ratio"), int | float) else ""
        passed = f.get("passed")
        verdict = "PASS" if passed is True else "**MISS**" if passed is False else ""
        cells = [f["bench"], f["name"], value, _number(f.get("baseline")), ratio]
        cells += [f.get("goal") or "", verdict]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def page_with_table(page: str, results: dict[str, Any]) -> str:
    head, rest = page.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table(results)}\n{END}{tail}"


def main(argv: list[str]) -> int:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    if "--write" in argv:
        PAGE.write_text(page_with_table(PAGE.read_text(encoding="utf-8"), results), "utf-8")
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
