"""Can the robot's legs reach the planner's foot poses? (issue: never emit an unreachable
reference silently.)

Two checks on a :class:`~gait_planner_node.planner.Reference`, with the pelvis placed on the
nominal body path (x, y) at the planned height and orientation — the MPC later shifts it by a few
centimetres, hence the margin:

- :func:`ankle_reach_margin_m` — cheap, for every tick: (max hip-to-ankle distance) minus
  (planned hip-to-ankle distance) per foot and time; negative means out of reach.
- :class:`LegIk` — exact, for validation: damped-least-squares inverse kinematics of each 6-DoF
  leg on Pinocchio (within joint limits), returning the residual pose error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from biped_common.rotations import quat_to_matrix, quats_to_matrices
from gait_planner_node.planner import Reference



@dataclass(frozen=True)
class LegGeometry:
    """Per side: hip centre in the pelvis frame [m], ankle centre in the sole frame [m], and the
    longest hip-to-ankle distance the knee allows [m]."""

    hip_in_pelvis_m: dict[str, np.ndarray]
    ankle_in_sole_m: dict[str, np.ndarray]
    max_reach_m: dict[str, float]

    @classmethod
    def from_robot(cls, robot) -> "LegGeometry":
        model, data = robot.pin_model, robot.pin_model.createData()
        q = pin.neutral(model)
        pin.framesForwardKinematics(model, data, q)
        pelvis = data.oMi[1]
        hips, ankles, reach = {}, {}, {}
        for side, foot in robot.description.feet.items():
            prefix = foot.body.split("_")[0]
            hip = data.oMi[model.getJointId(f"{prefix}_hip_pitch")].translation
            ankle = data.oMi[model.getJointId(f"{prefix}_ankle_pitch")].translation
            sole = data.oMf[model.getFrameId(foot.sole_site)]
            hips[side] = pelvis.actInv(hip).copy()
            ankles[side] = sole.actInv(ankle).copy()
            knee = data.oMi[model.getJointId(f"{prefix}_knee")].translation
            reach[side] = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
        return cls(hips, ankles, reach)


def ankle_reach_margin_m(reference: Reference, legs: LegGeometry) -> dict[str, np.ndarray]:
    """Per foot, (max reach − planned hip-to-ankle distance) [m] at each reference time."""
    margins = {}
    for side in ("left", "right"):
        rotations = quats_to_matrices(reference.pelvis_quat_wxyz)
        pelvis = np.column_stack([reference.body[:, 0], reference.body[:, 1], reference.pelvis_height_m])
        hip = pelvis + rotations @ legs.hip_in_pelvis_m[side]
        sole_rot = quats_to_matrices(reference.foot_quat_wxyz[side])
        ankle = reference.foot_position_m[side] + sole_rot @ legs.ankle_in_sole_m[side]
        margins[side] = legs.max_reach_m[side] - np.linalg.norm(ankle - hip, axis=1)
    return margins


class LegIk:
    """Damped-least-squares IK of one leg (hip to sole) with the pelvis pose given."""

    def __init__(self, robot, damping: float = 1e-3, iterations: int = 60):
        self.robot = robot
        self.model, self.data = robot.pin_model, robot.pin_model.createData()
        self.damping, self.iterations = damping, iterations
        self.frames, self.columns = {}, {}
        for side, foot in robot.description.feet.items():
            self.frames[side] = self.model.getFrameId(foot.sole_site)
            self.columns[side] = 6 + robot.leg_joint_indices(side)

    def solve(self, side: str, pelvis_position, pelvis_quat_wxyz, sole_position, sole_quat_wxyz):
        """(leg joint angles [rad], residual position error [m], residual angle error [rad])."""
        robot, model, data = self.robot, self.model, self.data
        q = robot.pinocchio_configuration(np.asarray(pelvis_position), np.asarray(pelvis_quat_wxyz),
                                          robot.standing_posture_rad.copy())
        target = pin.SE3(quat_to_matrix(sole_quat_wxyz), np.asarray(sole_position, dtype=float))
        cols, frame = self.columns[side], self.frames[side]
        lower = model.lowerPositionLimit[cols + 1]  # q index = v index + 1 past the free flyer
        upper = model.upperPositionLimit[cols + 1]
        for _ in range(self.iterations):
            pin.framesForwardKinematics(model, data, q)
            error = pin.log6(data.oMf[frame].actInv(target)).vector
            if np.linalg.norm(error[:3]) < 1e-5 and np.linalg.norm(error[3:]) < 1e-4:
                break
            jacobian = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL)[:, cols]
            step = jacobian.T @ np.linalg.solve(jacobian @ jacobian.T + self.damping * np.eye(6), error)
            q[cols + 1] = np.clip(q[cols + 1] + step, lower, upper)
        pin.framesForwardKinematics(model, data, q)
        error = pin.log6(data.oMf[frame].actInv(target)).vector
        return q[cols + 1].copy(), float(np.linalg.norm(error[:3])), float(np.linalg.norm(error[3:]))
