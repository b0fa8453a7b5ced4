"""A baseline for key presses: a DataTable (one column, cursor by row) of the big menu's names."""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from kiosk.demo.data import DOWNTOWN, extra_menu


class Table(App[None]):
    def __init__(self, count: int) -> None:
        super().__init__()
        self.names = [p.name for p in extra_menu(count, DOWNTOWN.id)[0]]

    def compose(self) -> ComposeResult:
        yield Static("DataTable app ready")
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Product")
        table.add_rows([name] for name in self.names)
        table.focus()


if __name__ == "__main__":
    Table(int(sys.argv[1]) if len(sys.argv) > 1 else 5000).run()
