"""The two pieces of a simulated robot on the wall clock (ROS-free), shared by the MuJoCo bridge in
real time and by the mock ros2_control robot: the deadline schedule and the gantry.

- :func:`spin_on_deadlines`: tick k is due at start + k·period on the steady clock; between ticks
  the caller's ``wait`` serves its callbacks. A tick that comes late (the process was busy or
  descheduled) runs at once and the next ones follow back to back until the schedule is caught up,
  so simulated time keeps pace with the wall clock as long as the ticks fit on average. Further
  behind than ``max_catch_up_s`` the schedule gives that time up (the robot's world ran slow)
  rather than running a burst of physics the controllers could not follow. A ROS timer instead
  skips late periods silently and shares its thread with the subscriptions.
- :class:`Gantry`: a robot is not let go before its controller runs. It hangs until commands have
  come for ``release_after_s`` of wall time with no pause over ``max_gap_s`` and the latest within
  ``fresh_within_s`` — a controller still starting up (its first calls are slow) would otherwise
  let the watchdog damp the robot from its first steps.
"""

from __future__ import annotations

import time
from typing import Callable


def spin_on_deadlines(period_s: float, tick: Callable[[float], None], wait: Callable[[float], None],
                      running: Callable[[], bool], max_catch_up_s: float,
                      on_late: Callable[[], None] = lambda: None,
                      on_give_up: Callable[[float, float], None] = lambda due_s, behind_s: None,
                      clock: Callable[[], float] = time.monotonic) -> None:
    """Call ``tick(due_s)`` for due times start + k·``period_s`` [s, ``clock``'s] while
    ``running()``; ``wait(timeout_s)`` until the next is due. A tick more than a period late calls
    ``on_late()`` (it is caught up); more than ``max_catch_up_s`` behind, the schedule restarts at
    now and calls ``on_give_up(new_due_s, behind_s)`` first."""
    if not (period_s > 0.0 and max_catch_up_s > 0.0):
        raise ValueError(f"period_s and max_catch_up_s must be > 0, got {period_s}, {max_catch_up_s}")
    due = clock()
    while running():
        now = clock()
        if now < due:
            wait(due - now)
            continue
        behind = now - due
        if behind > max_catch_up_s:
            due = now
            on_give_up(due, behind)
        elif behind > period_s:
            on_late()
        tick(due)
        due += period_s


class Gantry:
    """Holds a robot until its controller answers steadily (see the module). Times are wall
    seconds of one monotonic clock."""

    def __init__(self, release_after_s: float, max_gap_s: float, fresh_within_s: float):
        if not (release_after_s >= 0.0 and max_gap_s > 0.0 and fresh_within_s > 0.0):
            raise ValueError("release_after_s must be >= 0, max_gap_s and fresh_within_s > 0")
        self.release_after_s = release_after_s
        self.max_gap_s = max_gap_s
        self.fresh_within_s = fresh_within_s
        self._steady_since: float | None = None
        self._last_command_s = -float("inf")

    def command_arrived(self, wall_s: float) -> None:
        """A valid command came at ``wall_s``; a pause longer than ``max_gap_s`` restarts the count."""
        if self._steady_since is None or wall_s - self._last_command_s > self.max_gap_s:
            self._steady_since = wall_s
        self._last_command_s = wall_s

    def ready(self, wall_s: float) -> bool:
        """Commands have come steadily for ``release_after_s`` and the latest is fresh."""
        return (self._steady_since is not None and wall_s - self._last_command_s <= self.fresh_within_s
                and wall_s - self._steady_since >= self.release_after_s)
