"""The benchmarks' figures: each test records them with `figures.add(...)`; they are printed as a
table line at once, again as one table at the end, and written to tests/bench/results.json
(overwritten each run) for the table of docs/benchmarks.md (tests/bench/report.py). The table
printed at the end holds every benchmark's latest row, this run's and those kept from earlier runs.

Timings are never asserted: a figure that misses its goal is printed as MISS and the run goes on.
What the benchmarks do assert is correctness (no order lost, the right cart on the server), since a
fast wrong answer is no figure at all.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from tests.bench.report import measured_at, table

RESULTS = Path(__file__).with_name("results.json")


@dataclass
class Figure:
    bench: str  # which benchmark (1-6) and what it measures
    name: str
    value: float
    unit: str
    baseline: float | None = None  # the same measure of the baseline, same run
    ratio: float | None = None  # value / baseline
    goal: str = ""  # e.g. "<= 20", "ratio <= 1.2"
    passed: bool | None = None  # None: informative, no goal
    note: str = ""

    def line(self) -> str:
        verdict = "" if self.passed is None else ("PASS" if self.passed else "MISS")
        base = "" if self.baseline is None else _num(self.baseline)
        ratio = "" if self.ratio is None else f"{self.ratio:.2f}x"
        return (
            f"| {self.bench} | {self.name} | {_num(self.value)} {self.unit} | {base} | {ratio} "
            f"| {self.goal} | {verdict} |"
        )


def _num(value: float) -> str:
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


class Figures:
    def __init__(self) -> None:
        self.items: list[Figure] = []
        self.started = time.time()

    def add(
        self,
        bench: str,
        name: str,
        value: float,
        unit: str = "",
        *,
        baseline: float | None = None,
        goal: str = "",
        passed: bool | None = None,
        note: str = "",
    ) -> Figure:
        ratio = value / baseline if baseline else None
        figure = Figure(bench, name, value, unit, baseline, ratio, goal, passed, note)
        self.items.append(figure)
        print(f"\nBENCH {figure.line()}" + (f"  ({note})" if note else ""), flush=True)
        return figure

    def ordered(self) -> list[Figure]:
        return sorted(self.items, key=lambda f: f.bench)  # stable: each benchmark's own order

    def write(self) -> None:
        """Overwrite results.json. A partial run (`./dev bench -k ...`) replaces only the figures
        of the benchmarks it ran and keeps the others' latest figures."""
        ran = {f.bench for f in self.items}
        when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(self.started))
        kept: list[dict[str, object]] = []
        if RESULTS.exists():
            try:
                previous = json.loads(RESULTS.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                previous = {}
            kept = [
                {**f, "measured": measured_at(f, previous)}
                for f in previous.get("figures", [])
                if isinstance(f, dict) and f.get("bench") not in ran
            ]
        fresh = [{**asdict(f), "measured": when} for f in self.ordered()]
        figures = sorted([*kept, *fresh], key=lambda f: str(f["bench"]))
        data = {
            "command": "./dev bench",
            "when": when,
            "seconds": round(time.time() - self.started, 1),
            "machine": {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
            },
            "benchmarks_run": sorted(ran),
            "figures": figures,
        }
        RESULTS.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@pytest.fixture(scope="session")
def figures() -> Iterator[Figures]:
    collected = Figures()
    yield collected
    collected.write()
    # Every benchmark's row, not only this run's: a partial run keeps the others' latest figures,
    # each with the date it was measured (the line above the table says which).
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    print("\n\nBenchmark figures (tests/bench/results.json):\n" + table(results))
