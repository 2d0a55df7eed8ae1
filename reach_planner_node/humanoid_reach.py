"""Reaching with the humanoid's own 7-DoF arms (Pinocchio), as upper-body joint references.

A reach is planned in the pelvis frame (so the hand keeps its path relative to the body while the
legs walk): a minimum-jerk straight path of the hand site from where it is to the target, the
orientation slerped, each sample solved by damped least squares on the arm's seven joints (003),
warm-started from the previous sample and clamped to the joint limits. The result is a joint
trajectory for the arm, which the walking stack feeds into the whole-body controller's upper-body
channel (:meth:`ReachTrajectory.joint_targets`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from biped_common.joint_trajectory import TimedJointTrajectory
from biped_common.profiles import minimum_jerk
from biped_common.robot_model import RobotModel
from biped_common.rotations import matrix_to_quat, quat_slerp, quat_to_matrix
from reach_planner_node.reach import MEAN_HAND_SPEED_M_S, MIN_DURATION_S, solve_damped_least_squares

ARM_JOINTS = ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_yaw", "wrist_pitch", "wrist_roll")
PREFIX = {"left": "l_", "right": "r_"}


@dataclass(frozen=True)
class ReachTrajectory:
    """A planned reach: the arm's joint trajectory (sim time), the planned hand path in the
    pelvis frame (N, 3) [m] and notes (target not reachable, …)."""

    side: str
    trajectory: TimedJointTrajectory
    hand_path_pelvis: np.ndarray
    notes: tuple[str, ...] = ()

    @property
    def joint_names(self) -> tuple[str, ...]:
        return self.trajectory.joint_names

    @property
    def joints(self) -> np.ndarray:
        return self.trajectory.positions_rad

    @property
    def end_s(self) -> float:
        return self.trajectory.end_s


class HumanoidArms:
    """Forward kinematics and IK of the humanoid's arms with the pelvis fixed (pelvis frame)."""

    def __init__(self, robot: RobotModel):
        self.robot = robot
        self.model = robot.pin_model
        self.data = self.model.createData()
        self.hand_frames = {side: self.model.getFrameId(robot.description.hands[side]) for side in PREFIX}
        self.joint_names = {side: tuple(PREFIX[side] + j for j in ARM_JOINTS) for side in PREFIX}
        self._v_index = {side: np.array([self.model.joints[self.model.getJointId(n)].idx_v for n in names])
                         for side, names in self.joint_names.items()}
        self._q_index = {side: np.array([self.model.joints[self.model.getJointId(n)].idx_q for n in names])
                         for side, names in self.joint_names.items()}
        self.limits = {side: np.column_stack([self.model.lowerPositionLimit[idx], self.model.upperPositionLimit[idx]])
                       for side, idx in self._q_index.items()}

    def _configuration(self, joints_rad: np.ndarray) -> np.ndarray:
        """Pinocchio q with the pelvis at the origin and the given robot-order joint angles."""
        return np.concatenate([np.zeros(3), [0.0, 0.0, 0.0, 1.0], joints_rad])

    def hand_pose(self, side: str, joints_rad: np.ndarray) -> pin.SE3:
        """The hand site's pose in the pelvis frame for all joints (robot order) [rad]."""
        q = self._configuration(joints_rad)
        pin.framesForwardKinematics(self.model, self.data, q)
        return self.data.oMf[self.hand_frames[side]].copy()

    def solve(self, side: str, joints_rad: np.ndarray, position, rotation, iterations: int = 60,
              damping: float = 0.02, tolerance: float = 1e-9, orientation_weight: float = 0.2) -> np.ndarray:
        """All joints (robot order) with the ``side`` arm moved by damped least squares towards the
        hand pose (pelvis frame); the other joints as given. The orientation error is weighted by
        ``orientation_weight`` [m/rad]: the position comes first (a hand reaching a point), the
        orientation is kept as well as the arm allows."""
        joints = np.array(joints_rad, dtype=float)
        columns = self._v_index[side]
        arm = np.array([self.robot.joint_index[n] for n in self.joint_names[side]])
        frame = self.hand_frames[side]

        def kinematics(arm_joints):
            joints[arm] = arm_joints
            q = self._configuration(joints)
            pin.computeJointJacobians(self.model, self.data, q)
            pin.framesForwardKinematics(self.model, self.data, q)
            pose = self.data.oMf[frame]
            jac = pin.getFrameJacobian(self.model, self.data, frame, pin.LOCAL_WORLD_ALIGNED)[:, columns]
            return pose.translation, pose.rotation, jac
        low, high = self.limits[side].T
        joints[arm] = solve_damped_least_squares(kinematics, joints[arm], position, rotation, low, high, damping,
                                                 iterations, tolerance, orientation_weight)
        return joints


def plan_humanoid_reach(arms: HumanoidArms, side: str, joints_rad: np.ndarray, target_position_pelvis,
                        target_rotation_pelvis=None, start_s: float = 0.0, dt_s: float = 0.01,
                        duration_s: float | None = None) -> ReachTrajectory:
    """A reach of the ``side`` hand from the posture ``joints_rad`` (robot order) to the target in
    the pelvis frame; with a target rotation the hand also turns towards it (weighted below the
    position), without one only the position is planned."""
    if side not in PREFIX:
        raise ValueError(f"side must be left or right, got {side!r}")
    target = np.asarray(target_position_pelvis, dtype=float)
    if not np.all(np.isfinite(target)) or target.shape != (3,):
        raise ValueError("target position must be 3 finite numbers")
    start = arms.hand_pose(side, joints_rad)
    rotation = start.rotation if target_rotation_pelvis is None else np.asarray(target_rotation_pelvis, dtype=float)
    distance = float(np.linalg.norm(target - start.translation))
    duration = duration_s if duration_s is not None else max(MIN_DURATION_S, distance / MEAN_HAND_SPEED_M_S)
    times = np.linspace(0.0, duration, max(2, int(round(duration / dt_s)) + 1))
    s = minimum_jerk(times / duration)[0]
    path = start.translation + s[:, None] * (target - start.translation)
    quats = quat_slerp(matrix_to_quat(start.rotation), matrix_to_quat(rotation), s)
    arm = np.array([arms.robot.joint_index[n] for n in arms.joint_names[side]])
    joints = np.empty((times.size, 7))
    current = np.array(joints_rad, dtype=float)
    joints[0] = current[arm]
    notes = []
    for k in range(1, times.size):
        current = arms.solve(side, current, path[k], quat_to_matrix(quats[k]),
                             orientation_weight=0.0 if target_rotation_pelvis is None else 0.2)
        joints[k] = current[arm]
    reached = arms.hand_pose(side, current)
    miss = float(np.linalg.norm(reached.translation - target))
    if miss > 1e-3:
        notes.append(f"target not reachable by the {side} arm within its limits: hand stops {miss * 100:.1f} cm short")
    return ReachTrajectory(side, TimedJointTrajectory(arms.joint_names[side], start_s, times, joints), path, tuple(notes))
