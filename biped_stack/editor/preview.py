"""What the editor draws of a style at one velocity (issue #17): the gait planner's kinematic
reference walked for a few cycles — sole paths, pelvis height, footprints, the blended timing —
as plain JSON-able data (ROS-free, no physics).

It is the planner itself (:class:`gait_planner_node.planner.GaitPlanner`, through
:func:`biped_stack.style_tools.simulate`), not a re-implementation: what the preview shows is what
the running planner would send the controllers at that command.
"""

from __future__ import annotations

import numpy as np

from gait_planner_node.planner import PlannerConfig
from gait_planner_node.sampler import blend
from gait_planner_node.style import Style
from biped_stack.style_tools import TICK_S, simulate

PREVIEW_CYCLES = 2.0
PREVIEW_SETTLE_S = 1.5   # the planner starts standing; its clock and body path ramp up first


def rounded(array, decimals: int = 5) -> list:
    """``array`` as nested lists of floats rounded to ``decimals`` (what the page is sent)."""
    return np.round(np.asarray(array, dtype=float), decimals).tolist()


def footprint(side: str, pose) -> list:
    """A touch-down as the page draws it: [side, x [m], y [m], yaw [rad]] (world)."""
    return [side, round(pose.x, 5), round(pose.y, 5), round(pose.yaw, 5)]


def foot_outline(config: PlannerConfig) -> dict:
    """The sole's rectangle in the sole frame [m] (x forward), as the page draws footprints."""
    foot = config.foot
    return {"heel_x": foot.heel_x_m, "toe_x": foot.toe_x_m, "half_width": foot.half_width_m}


def preview(style: Style, config: PlannerConfig, velocity) -> dict:
    """The planner's reference for ``style`` walking at ``velocity`` (ẋ [m/s], ẏ [m/s], ω [rad/s],
    body frame; clamped to the style's range) over :data:`PREVIEW_CYCLES` cycles after
    :data:`PREVIEW_SETTLE_S` of settling. World frame, metres, seconds from the preview's start:
    ``time_s``; ``sole_m`` {side: (n, 3)} sole centres; ``in_stance`` {side: (n,)}; ``pelvis_height_m``;
    ``body_m`` (n, 3) the planar body path (x, y, yaw); ``footprints`` [(side, x, y, yaw)] the
    touch-downs; ``apex_m`` {side: highest sole height over its swings}; ``timing`` the blended
    intervals and event times [s]; ``weights`` the samples blended; ``velocity`` the walked one."""
    gait = blend(style, velocity)
    planner, refs, touchdowns = simulate(style, config, gait.velocity, cycles=PREVIEW_CYCLES,
                                         settle_s=PREVIEW_SETTLE_S)
    sole = {side: np.array([r.foot_position_m[side][0] for r in refs]) for side in ("left", "right")}
    stance = {side: np.array([bool(r.in_stance[side][0]) for r in refs]) for side in ("left", "right")}
    apex = {side: float(sole[side][~stance[side], 2].max()) if np.any(~stance[side]) else 0.0
            for side in sole}
    timing = gait.timing
    return {
        "velocity": rounded(gait.velocity),
        "weights": {k: round(w, 4) for k, w in gait.weights.items()},
        "time_s": rounded(np.arange(len(refs)) * TICK_S, 4),
        "sole_m": {side: rounded(xyz) for side, xyz in sole.items()},
        "in_stance": {side: s.tolist() for side, s in stance.items()},
        "pelvis_height_m": rounded([r.pelvis_height_m[0] for r in refs]),
        "body_m": rounded([r.body[0] for r in refs]),
        "footprints": [footprint(side, p) for side, p in touchdowns],
        "foot_outline_m": foot_outline(config),
        "apex_m": {side: round(a, 5) for side, a in apex.items()},
        "timing": {"cycle_s": round(timing.cycle_s, 5), "events_s": rounded(timing.event_times_s()),
                   "double_support_after_right_s": timing.double_support_after_right_s,
                   "left_swing_s": timing.left_swing_s,
                   "double_support_after_left_s": timing.double_support_after_left_s,
                   "right_swing_s": timing.right_swing_s},
    }
