"""Times shown to staff as wall-clock times ("last ok 10:42:07"), not ages ("13 s ago").

A quiet counter (issue 23): an age changes every second, and its line is redrawn every second
over the counter's SSH link; a clock time is the same every second it is shown. The staff health
line (kiosk/tui/health.py) and the fleet metrics' staff lines (kiosk/metrics.py) both use it.
"""

from __future__ import annotations

import time


def clock_time(at: float) -> str:
    """A wall-clock time (local), the same every second it is shown."""
    return time.strftime("%H:%M:%S", time.localtime(at))
