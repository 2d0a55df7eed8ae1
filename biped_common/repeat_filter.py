"""Rate-limited logging for controllers (ROS-free): the same message at most once per period."""

from __future__ import annotations

import math
import time
from typing import Callable


class RepeatFilter:
    """Log each distinct message at once, but the same message at most once per ``period_s``
    (a flood of identical bad inputs must not drown the log, nor hide a different one). ``clock``
    gives the time in seconds (wall clock by default; sim time for in-process runs)."""

    def __init__(self, log: Callable[[str], None], period_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic):
        self._log = log
        self._period_s = period_s
        self._clock = clock
        self._last: dict[str, float] = {}

    def __call__(self, message: str) -> None:
        now = self._clock()
        if now - self._last.get(message, -math.inf) >= self._period_s:
            self._last[message] = now
            self._log(message)
