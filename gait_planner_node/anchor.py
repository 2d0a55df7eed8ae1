"""Where the plan starts, and noticing when the robot is no longer where the plan is (ROS-free).

A planner that starts on a robot that already stands somewhere (a respawn, a restart) begins
between its feet, heading where they point. While walking, the planner is open loop: when the
robot stops following it — the whole-body controller stopped in place because the MPC was away
(:mod:`wbc_node.hold`), a foot slipped — the plan walks on without the robot, and a controller
that resumes it would jump to footholds the robot never reached. :class:`FollowWatch` notices:
a foot the plan has in stance is far from the measured sole while the robot stands on both feet.
The planner then starts again from where the robot stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gait_planner_node.planner import SIDES, GaitPlanner, PlannerConfig, Pose2, Reference
from gait_planner_node.style import Style
from biped_common.rotations import quats_yaw, wrap_angle

# A planned stance foot this far from the measured sole: not following. A robot the plan left
# behind (held while the MPC was away, a slip) is tens of centimetres off within a second; in real
# time over DDS a foot lands up to ≈ 5 cm off its planned foothold in normal walking (seen,
# humanoid, 0.3 m/s, 2026-12-03), and restarting the plan from standing under a moving robot
# felled it — so not less than 8 cm.
LEFT_PLAN_POSITION_M = 0.08
# Loose: a stance foot lands up to ≈ 0.17 rad off its planned yaw in normal walking in lockstep
# (bouncy, turning 0.5 rad/s: the swing yaw is not tracked tightly) and 0.37 rad in real time over
# DDS (humanoid neutral, 0.5 rad/s, 2026-12-03: the plan restarted and the turn lost half its
# rate); the plan must not restart for that.
LEFT_PLAN_YAW_RAD = 0.5
BOTH_FEET_DOWN_M = 0.01       # soles within this height of each other: standing on both feet
CONFIRMATIONS = 3             # consecutive checks that agree before re-planning


@dataclass(frozen=True)
class SolePose:
    """A measured sole in the world frame: position [m] and yaw [rad]."""

    x: float
    y: float
    z: float
    yaw: float


def start_between(soles: dict[str, SolePose]) -> tuple[Pose2, dict[str, Pose2]]:
    """The body pose a plan starts from for a robot standing on ``soles``: their midpoint, heading
    their mean yaw (the style's splay is symmetric; the pelvis itself sways and yaws with the
    style, so it is not used), and the feet's planar poses."""
    feet = {side: Pose2(s.x, s.y, s.yaw) for side, s in soles.items()}
    yaw = math.atan2(sum(math.sin(f.yaw) for f in feet.values()), sum(math.cos(f.yaw) for f in feet.values()))
    return Pose2(sum(f.x for f in feet.values()) / 2.0, sum(f.y for f in feet.values()) / 2.0, yaw), feet


def planner_standing_on(soles: dict[str, SolePose], style: Style, config: PlannerConfig, command) -> GaitPlanner:
    """A planner that starts, standing, on the measured ``soles`` (:func:`start_between`) and walks
    ``command`` (body-frame ẋ, ẏ, ω [m/s, m/s, rad/s]) once its clock has ramped up."""
    start, feet = start_between(soles)
    planner = GaitPlanner(style, config, start, feet)
    planner.set_command(command)
    return planner


def stance_mismatch(reference: Reference, soles: dict[str, SolePose]) -> tuple[str, float, float] | None:
    """The planned-stance foot (now: the reference's first row) farthest from its measured sole:
    (side, distance [m], |yaw error| [rad]), or None when the plan has no foot in stance."""
    worst = None
    for side in SIDES:
        if not bool(reference.in_stance[side][0]):
            continue
        planned, measured = reference.foot_position_m[side][0], soles[side]
        planned_yaw = float(quats_yaw(reference.foot_quat_wxyz[side][0]))
        entry = (side, float(np.hypot(planned[0] - measured.x, planned[1] - measured.y)),
                 abs(wrap_angle(planned_yaw - measured.yaw)))
        if worst is None or entry[1] / LEFT_PLAN_POSITION_M + entry[2] / LEFT_PLAN_YAW_RAD > \
                worst[1] / LEFT_PLAN_POSITION_M + worst[2] / LEFT_PLAN_YAW_RAD:
            worst = entry
    return worst


def ticks_between_checks(planning_rate_hz: float, check_rate_hz: float) -> int:
    """Planner ticks between two follow checks at ``check_rate_hz`` (at least every tick)."""
    return max(1, round(planning_rate_hz / check_rate_hz))


class FollowWatch:
    """Decides, check by check, that the robot has stopped following the plan."""

    def __init__(self):
        self._agreeing = 0

    def left_the_plan(self, reference: Reference, soles: dict[str, SolePose]) -> str | None:
        """Why the plan should start again from ``soles`` (a sentence), or None. It says so after
        :data:`CONFIRMATIONS` consecutive checks find a planned-stance foot beyond the tolerances
        while both measured soles are down (never mid-step: a plan that restarts starts in double
        support)."""
        mismatch = stance_mismatch(reference, soles)
        down = abs(soles["left"].z - soles["right"].z) <= BOTH_FEET_DOWN_M
        if mismatch is None or not down or (mismatch[1] <= LEFT_PLAN_POSITION_M and mismatch[2] <= LEFT_PLAN_YAW_RAD):
            self._agreeing = 0
            return None
        self._agreeing += 1
        if self._agreeing < CONFIRMATIONS:
            return None
        self._agreeing = 0
        side, distance, yaw = mismatch
        return (f"the robot is not where the plan is ({side} sole {distance * 100:.0f} cm and {yaw:.2f} rad "
                f"from its planned stance) and stands on both feet")
