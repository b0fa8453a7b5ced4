"""The baseline: a bare Textual app with one line of text (startup and memory benchmarks)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("Bare Textual app ready")


if __name__ == "__main__":
    Bare().run()
