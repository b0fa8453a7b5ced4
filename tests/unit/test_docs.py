"""docs/: the benchmark table is the committed results', and the README's links lead somewhere."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from tests.bench.report import BEGIN, END, PAGE, RESULTS, table

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_page_holds_the_table_of_the_committed_results() -> None:
    page = PAGE.read_text(encoding="utf-8")
    block = page.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert block == table(results), "run: .venv/bin/python -m tests.bench.report --write"
    # Every figure is in it, its verdict shown.
    for figure in results["figures"]:
        assert figure["name"].replace("|", "\\|") in block


def test_links_in_the_readme_and_docs_lead_to_files() -> None:
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (doc.parent / unquote(target)).exists(), f"{doc.name}: {target}"
