"""The reach node's core (ROS-free): a hand goal (pose in a named frame) → the arm's joint
trajectory for the whole-body controller, with every refusal explained."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biped_common.joint_trajectory import TimedJointTrajectory
from biped_common.robot_model import RobotModel
from biped_common.rotations import quat_to_matrix
from reach_planner_node.humanoid_reach import PREFIX, HumanoidArms, plan_humanoid_reach

WORLD_FRAMES = ("world", "odom", "map")


@dataclass(frozen=True)
class GoalResult:
    """The trajectory to send (None when refused) and what to log."""

    trajectory: TimedJointTrajectory | None
    messages: tuple[str, ...]


class ReachGoals:
    """Plans reaches for one robot from goals in its base frame (``pelvis``) or the world."""

    def __init__(self, robot: RobotModel):
        self.robot = robot
        self.arms = HumanoidArms(robot)
        self.base_frame = robot.description.base_body

    def goal(self, side: str, frame_id: str, position, quat_wxyz, joints_rad, base_position=None,
             base_quat_wxyz=None, now_s: float = 0.0) -> GoalResult:
        """A reach of the ``side`` hand to ``position`` [m] in ``frame_id`` (the base frame, or the
        world with the base pose given); the goal's orientation is ignored when it is the zero
        quaternion (a position-only goal), else the hand turns towards it."""
        if side not in PREFIX:
            return GoalResult(None, (f"unknown arm {side!r} (left or right)",))
        position, quat = np.asarray(position, dtype=float), np.asarray(quat_wxyz, dtype=float)
        if not (np.all(np.isfinite(position)) and np.all(np.isfinite(quat))):
            return GoalResult(None, (f"{side} reach goal refused: non-finite pose",))
        rotation = quat_to_matrix(quat / np.linalg.norm(quat)) if np.linalg.norm(quat) > 1e-9 else None
        if frame_id in ("", self.base_frame):
            target = position
        elif frame_id in WORLD_FRAMES:
            if base_position is None or base_quat_wxyz is None:
                return GoalResult(None, (f"{side} reach goal in {frame_id!r} refused: no base pose yet",))
            base_rotation = quat_to_matrix(np.asarray(base_quat_wxyz, dtype=float))
            target = base_rotation.T @ (position - np.asarray(base_position, dtype=float))
            rotation = None if rotation is None else base_rotation.T @ rotation
        else:
            return GoalResult(None, (f"{side} reach goal refused: unknown frame {frame_id!r} "
                                     f"(use {self.base_frame!r} or one of {', '.join(WORLD_FRAMES)})",))
        plan = plan_humanoid_reach(self.arms, side, np.asarray(joints_rad, dtype=float), target, rotation, start_s=now_s)
        return GoalResult(plan.trajectory, plan.notes)

    def retract(self, side: str, joints_rad, now_s: float = 0.0) -> GoalResult:
        """Back to the standing posture's hand position (cancel)."""
        if side not in PREFIX:
            return GoalResult(None, (f"unknown arm {side!r} (left or right)",))
        home = self.arms.hand_pose(side, np.array(self.robot.standing_posture_rad)).translation
        plan = plan_humanoid_reach(self.arms, side, np.asarray(joints_rad, dtype=float), home, start_s=now_s)
        return GoalResult(plan.trajectory, (f"{side} reach cancelled: retracting",) + plan.notes)
