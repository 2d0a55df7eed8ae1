"""Issue #16's push cases (bar 1, and bar 2's goal): each push alone on the pelvis, walking at
0.3 m/s forward or standing, as scenarios (used by ``bench/push_matrix.py`` and the slow suite).

A case: stand 1 s then walk 0.3 m/s (or stand throughout), the push at t = 5 s (walking) or 3 s
(standing), in the robot's heading frame at its start, then 5 s more."""

from __future__ import annotations

import math

from biped_stack.scenario import Scenario, ScenarioPush, Segment

PUSH_SETS = {
    # name: [(label, duration_s, fx, fy)] in the heading frame
    "paper": [("25N×1s fwd", 1.0, 25.0, 0.0), ("25N×1s back", 1.0, -25.0, 0.0)],
    "sides": [("15N×1s left", 1.0, 0.0, 15.0), ("15N×1s right", 1.0, 0.0, -15.0)],
    "impulses": [(f"150N×0.05s {deg}°", 0.05, 150.0 * math.cos(math.radians(deg)), 150.0 * math.sin(math.radians(deg)))
                 for deg in range(0, 360, 45)],
    "goal": [("50N×1s fwd", 1.0, 50.0, 0.0), ("50N×1s back", 1.0, -50.0, 0.0),
             ("30N×1s left", 1.0, 0.0, 30.0), ("30N×1s right", 1.0, 0.0, -30.0)],
}
WALK_SPEED_M_S = 0.3


def scenario_for(mode: str, label: str, duration_s: float, fx: float, fy: float, delay_s: float = 0.0):
    """The scenario of one case: ``mode`` "walk" or "stand", a push of ``fx``, ``fy`` [N] (heading
    frame) for ``duration_s`` [s] (see the module docstring), ``delay_s`` [s] later than the bars'
    (at another phase of the gait)."""
    if not 0.0 <= delay_s <= 5.0:
        raise ValueError(f"delay_s must be within [0, 5] s, got {delay_s}")
    if mode == "walk":
        start = 5.0 + delay_s
        segments = (Segment("stand", 1.0, (0.0, 0.0, 0.0)),
                    Segment("forward", start + duration_s + 5.0 - 1.0, (WALK_SPEED_M_S, 0.0, 0.0)))
    else:
        start = 3.0 + delay_s
        segments = (Segment("stand", start + duration_s + 5.0, (0.0, 0.0, 0.0)),)
    return Scenario(f"push {label} {mode}", segments, (ScenarioPush(start, duration_s, (fx, fy, 0.0)),))
