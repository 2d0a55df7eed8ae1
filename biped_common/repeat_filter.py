"""Rate-limited logging for controllers (ROS-free): the same message at most once per period."""

from __future__ import annotations

import math
import time
from typing import Callable

MAX_KEYS = 256


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

    def __call__(self, message: str, key: str | None = None) -> None:
        """Log ``message`` unless the same ``key`` (default: the message) was logged within the
        period; a key for a kind of message filters its variants too (values in the text)."""
        key = message if key is None else key
        now = self._clock()
        if now - self._last.get(key, -math.inf) >= self._period_s:
            if len(self._last) >= MAX_KEYS:  # forget what is past its period: memory stays bounded
                self._last = {k: t for k, t in self._last.items() if now - t < self._period_s}
            self._last[key] = now
            self._log(message)
