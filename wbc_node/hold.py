"""Stopping in place when the gait reference or the CoM plan goes stale (ROS-free).

A planner or MPC that stops answering (crashed, respawning, starved of CPU) leaves the WBC with a
reference that walks on without it. Switching to the joint-space stand controller mid-stride lets
a walking robot rock on its feet (measured: the biped's pelvis swung 7 cm past its feet and back
at 0.3 m/s, and the robot twisted 0.29 rad on its soles), so a planner that restarts from there
starts from a falling robot. Instead the WBC *finishes the step it is in*: it keeps tracking the
last reference up to its next double support, freezes the feet, pelvis and upper body there, and
brings the CoM to the middle of the two soles with its own PD gains (zero reference velocity).

The hold ends when fresh inputs return whose reference stands where the robot stands: both feet
in stance within :data:`RELEASE_POSITION_M` / :data:`RELEASE_YAW_RAD` of the held feet (a
re-anchored planner starts there; a reference that walked on without the robot does not).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biped_common.com_plan import ComPlan
from biped_common.rotations import quats_yaw, wrap_angle
from wbc_node.reference import ReferenceTable, wbc_reference
from wbc_node.wbc import SIDES, WbcReference

RELEASE_POSITION_M = 0.03  # a fresh reference's feet this close to the held ones: walk it
# The held feet are the old plan's; a re-anchored plan starts on the measured soles, which may sit
# ≈ 0.17 rad off their planned yaw (the planner restarts beyond 0.35 rad: the same bound).
RELEASE_YAW_RAD = 0.35


@dataclass(frozen=True)
class StanceHold:
    """The last reference and plan, frozen at the reference's next double support."""

    table: ReferenceTable
    stamp_s: float            # the table's time origin (sim time [s])
    hold_at_s: float          # absolute sim time [s] of the double support the robot stops in
    plan: ComPlan | None      # the last CoM plan (followed up to hold_at_s when it covers it)
    feet_position_m: dict     # side → (3,) held sole position, world [m]
    feet_quat_wxyz: dict      # side → (4,) held sole orientation
    com_target_m: np.ndarray  # (2,) the middle of the held soles, world [m]

    @classmethod
    def start(cls, table: ReferenceTable, stamp_s: float, now_s: float, plan: ComPlan | None) -> "StanceHold | None":
        """The hold for a reference (``table`` with time origin ``stamp_s``) that went stale at
        ``now_s``: at its first double support at or after ``now_s`` (now, if both feet are
        down). None when the reference has no double support left (the caller falls back)."""
        at = table.first_double_support_s(now_s - stamp_s)
        if at is None:
            return None
        sample = table.sample(np.array([at]))
        feet_position = {side: sample[f"{side}_sole_position_m"][0].copy() for side in SIDES}
        feet_quat = {side: sample[f"{side}_sole_quat_wxyz"][0].copy() for side in SIDES}
        middle = 0.5 * (feet_position["left"][:2] + feet_position["right"][:2])
        return cls(table, stamp_s, stamp_s + at, plan, feet_position, feet_quat, middle)

    def reference(self, now_s: float, joint_posture_rad: np.ndarray, upper_index: np.ndarray) -> WbcReference:
        """The WBC reference at ``now_s``: the last reference until the hold time, then frozen (at
        rest); the CoM on the last plan while it covers the way there, else to the held soles'
        middle."""
        motion = self.table.motion(min(now_s, self.hold_at_s) - self.stamp_s)
        if now_s >= self.hold_at_s:
            motion = motion.frozen()
        if self.plan is not None and now_s < self.hold_at_s and now_s <= self.plan.end_s:
            com = self.plan.at(now_s)
        else:
            com = (self.com_target_m, np.zeros(2), np.zeros(2))
        return wbc_reference(motion, com, joint_posture_rad, upper_index)

    def released_by(self, sample: dict[str, np.ndarray]) -> bool:
        """Whether a fresh reference ``sample`` (one time, :meth:`ReferenceTable.sample`) stands
        on the held feet: both in stance, each within the release tolerances."""
        for side in SIDES:
            if not bool(sample[f"{side}_in_stance"][0]):
                return False
            offset = sample[f"{side}_sole_position_m"][0][:2] - self.feet_position_m[side][:2]
            yaw = float(quats_yaw(sample[f"{side}_sole_quat_wxyz"][0]) - quats_yaw(self.feet_quat_wxyz[side]))
            if np.hypot(*offset) > RELEASE_POSITION_M or abs(wrap_angle(yaw)) > RELEASE_YAW_RAD:
                return False
        return True
