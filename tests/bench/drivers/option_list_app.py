"""The baseline for bytes per cursor move: an OptionList of the big menu's product names."""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from kiosk.demo.data import DOWNTOWN, extra_menu


class Options(App[None]):
    def __init__(self, count: int) -> None:
        super().__init__()
        self.names = [p.name for p in extra_menu(count, DOWNTOWN.id)[0]]

    def compose(self) -> ComposeResult:
        yield Static("OptionList app ready")
        yield OptionList(*self.names)


if __name__ == "__main__":
    Options(int(sys.argv[1]) if len(sys.argv) > 1 else 5000).run()
