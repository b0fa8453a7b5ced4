"""`kiosk demo` for benchmark 7 (tests/bench/test_quiet_counter.py). With KIOSK_BENCH_FULL_HEALTH
set, the staff's switch for the full health line is on from the start on every screen: the
baseline (what kiosk mode showed customers before issue 23)."""

from __future__ import annotations

import os
import sys

from kiosk.cli import main

if os.environ.get("KIOSK_BENCH_FULL_HEALTH"):
    from kiosk.tui.kiosk_mode import KioskMode

    init = KioskMode.__init__

    def full_health(self: KioskMode, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        self.health_line_choice = True

    KioskMode.__init__ = full_health  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(["demo", *sys.argv[1:]]))
