"""Every text in every snapshot reads at 4.5:1 or more (WCAG 2.1 AA), issue 20.

Measured from the snapshots themselves (tests/tui/svgscreen.py reads each cell's colour and
background back from the SVG), so what is judged is what the customer sees: the default and the
high-contrast theme, large text, Spanish, NO_COLOR's greys. Placeholders and disabled controls
are text too. Borders, scrollbars and other block shapes are not text.

The payment and done screens are being rewritten (the lead's): their snapshots are measured and
reported, and held to the same bar, but only a drop below what they had is a failure there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .svgscreen import read_svg, text_runs

SNAPSHOTS = Path(__file__).parent / "__snapshots__"
AA = 4.5
# Screens being rewritten elsewhere: the floor they had when this test came (issue 20).
# Screens held to a lower floor while they are rewritten: none now.
REWRITING: dict[str, float] = {}


def all_snapshots() -> list[Path]:
    return sorted(SNAPSHOTS.rglob("*.svg"))


def test_the_matrix_is_there() -> None:
    """The matrix (test_snapshots*.py): enough snapshots that a missing directory is noticed."""
    assert len(all_snapshots()) >= 80


@pytest.mark.parametrize("path", all_snapshots(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_text_reads_at_4_5_to_1(path: Path) -> None:
    screen = read_svg(path)
    runs = text_runs(screen)
    assert runs, "no text read from the snapshot"
    floor = REWRITING.get(path.stem.split("[")[0], AA)
    low = [r for r in runs if r.ratio < floor]
    assert not low, "\n".join(
        f"{r.ratio:.2f}:1 {r.fg} on {r.bg} at line {r.y}, column {r.x}: {r.text!r}"
        for r in sorted(low, key=lambda r: r.ratio)
    )


def test_the_contrast_reader_measures_what_it_should() -> None:
    """The reader itself: WCAG's own examples, and a snapshot's known run."""
    from .svgscreen import contrast

    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
