"""Real time seen from the robot's side (ROS-free): did each frame's command come back in time?

The real-time bridge publishes frame k at tick k and steps at once with the newest command it
holds, so the command answering frame k is used from tick k + 1 on — if it has come by then. The
bridge is the one place that knows this exactly (a recorder elsewhere sees its own delivery
times), so it keeps the tally and reports it (``/diagnostics``):

- ``deadline_misses``: frames whose command had not come when the next frame was published and
  the bridge stepped on (or never came);
- ``latency_ms``: from a frame's publication to its command's arrival at the bridge (wall time,
  one clock): p50, p99, max over the answered frames;
- ``watchdog_trips``: entries into damping (the command watchdog fired);
- ``sim_over_wall``: sim time over wall time since the simulation started;
- ``late_ticks`` / ``skipped_s``: ticks that ran late and were caught up, wall time given up.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

PENDING_FRAMES = 256      # published frames remembered for their answers (≈ 1.3 s at 200 Hz)
LATENCY_SAMPLES = 60_000  # latencies kept for the percentiles (5 min at 200 Hz)


@dataclass(frozen=True)
class RealtimeSummary:
    """The tally since the simulation started (see the module for each field)."""

    frames: int
    deadline_misses: int
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    watchdog_trips: int
    sim_over_wall: float
    late_ticks: int
    skipped_s: float

    @property
    def deadline_miss_fraction(self) -> float:
        return self.deadline_misses / self.frames if self.frames else float("nan")


class RealtimeMonitor:
    """Counts, frame by frame, what :class:`RealtimeSummary` reports. Times are wall seconds of
    one monotonic clock; stamps are the frames' (integer ns, as the commands carry them back)."""

    def __init__(self, sim_start_s: float, wall_start_s: float):
        self._start = (sim_start_s, wall_start_s)
        self._latest = (sim_start_s, wall_start_s)
        self._published: OrderedDict[int, float] = OrderedDict()  # stamp → wall time, not yet answered
        self._previous_ns: int | None = None
        self._newest_answer_ns = -1
        self._latencies_s: list[float] = []
        self.frames = 0
        self.misses = 0
        self.watchdog_trips = 0
        self.late_ticks = 0
        self.skipped_s = 0.0

    def frame_published(self, stamp_ns: int, wall_s: float, sim_s: float) -> None:
        """Frame ``stamp_ns`` went out at ``wall_s`` (sim time ``sim_s``) and the bridge steps now:
        the previous frame is judged — its command is in, or it missed its deadline."""
        if self._previous_ns is not None:
            self.frames += 1
            if self._newest_answer_ns < self._previous_ns:
                self.misses += 1
        self._previous_ns = stamp_ns
        self._published[stamp_ns] = wall_s
        while len(self._published) > PENDING_FRAMES:
            self._published.popitem(last=False)
        self._latest = (sim_s, wall_s)

    def command_received(self, stamp_ns: int, wall_s: float) -> None:
        """A command answering frame ``stamp_ns`` arrived at ``wall_s``."""
        self._newest_answer_ns = max(self._newest_answer_ns, stamp_ns)
        published = self._published.pop(stamp_ns, None)
        if published is not None and len(self._latencies_s) < LATENCY_SAMPLES:
            self._latencies_s.append(wall_s - published)

    def watchdog_tripped(self) -> None:
        self.watchdog_trips += 1

    def summary(self) -> RealtimeSummary:
        latencies_ms = np.asarray(self._latencies_s) * 1e3
        def pct(q: float) -> float:
            return float(np.percentile(latencies_ms, q)) if latencies_ms.size else float("nan")
        (sim0, wall0), (sim1, wall1) = self._start, self._latest
        return RealtimeSummary(
            frames=self.frames, deadline_misses=self.misses, latency_p50_ms=pct(50), latency_p99_ms=pct(99),
            latency_max_ms=float(latencies_ms.max()) if latencies_ms.size else float("nan"),
            watchdog_trips=self.watchdog_trips,
            sim_over_wall=(sim1 - sim0) / (wall1 - wall0) if wall1 > wall0 else float("nan"),
            late_ticks=self.late_ticks, skipped_s=self.skipped_s)
