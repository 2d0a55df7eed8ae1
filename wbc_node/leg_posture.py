"""The legs' posture reference, consistent with the task references (issue #18).

The posture task regularizes every joint towards a reference posture with PD gains. For the
upper body that is the style's curves; for the legs it was the standing posture, which the legs
are not meant to hold while walking: it pulled the swinging foot down (the swing reached 0.78–0.91
of its planned apex) and the bobbing pelvis back towards the stand (bouncy's bob 28 ms late), and
its damping, pulling the joint rates to zero, braked every move. Here the legs' posture is instead
the one the other tasks ask for:

- angles: each sole on its reference pose with the pelvis at its reference height and orientation
  (horizontally where it is: the CoM task places it), by one damped-least-squares step a tick
  warm-started from the previous tick's solution (the targets move little between ticks, so the
  solution tracks them; Wampler's damped least squares, Δq = Jᵀ(JJᵀ + λI)⁻¹ e);
- rates: the joint rates that move each sole at its reference velocity (zero in stance) while the
  pelvis moves at its reference rates, q̇_leg = J_legᵀ(J_leg J_legᵀ + λI)⁻¹ (V_sole − J_base v_base)
  (clipped) — so the posture's damping resists deviations from the planned motion, not the motion.

Measured (README, "Style fidelity"): the walk comes nearer the designed style in every figure, and
far fewer pushes are survived — the standing posture's pull is part of what recovers a pushed
robot. Hence a blend (``leg_posture_from_tasks`` in the WBC gains), 0 in the shipped gains, and
in ``config/wbc_style_first.yaml`` 1 scheduled down to 0 while a push lasts (:mod:`wbc_node.recovery`).
Frames: world (Pinocchio's LOCAL_WORLD_ALIGNED for the sole twists); SI units.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pinocchio as pin

from biped_common.robot_model import SIDES, RobotModel
from biped_common.rotations import quat_to_matrix, quat_wxyz_to_xyzw, quat_xyzw_to_wxyz

DAMPING = 1e-5          # λ of the damped least squares [m², rad²]
MAX_RATE_RAD_S = 10.0   # a leg joint's posture rate at most
MAX_RESIDUAL_M = 0.05   # a solution this far from its sole targets is not a warm start: restart from q


class LegPosture:
    """Replaces the legs' entries of a WBC reference's posture (and rates) by a blend of the
    reference's own (the standing posture) and the IK of its sole and pelvis references: ``blend``
    0 the standing posture (nothing computed), 1 the IK's. Keeps its own Pinocchio data and the
    previous solution."""

    def __init__(self, robot: RobotModel, blend: float = 1.0):
        if not 0.0 <= blend <= 1.0:
            raise ValueError(f"blend must be in [0, 1], got {blend}")
        self.blend = blend
        self.robot = robot
        self.model = robot.pin_model
        self.data = self.model.createData()
        self.joints = {side: robot.leg_joint_indices(side) for side in SIDES}   # robot joint order
        self.frames = {side: self.model.getFrameId(robot.description.feet[side].sole_site) for side in SIDES}
        self._solution: np.ndarray | None = None   # Pinocchio q of the last tick's solution
        self._lower, self._upper = self.model.lowerPositionLimit[7:].copy(), self.model.upperPositionLimit[7:].copy()

    def apply(self, reference, q: np.ndarray, v: np.ndarray):
        """``reference`` (:class:`wbc_node.wbc.WbcReference`) with the legs' posture angles and
        rates replaced, for the measured Pinocchio state (q, v); the reference unchanged when
        ``blend`` is 0 or the solution is not finite (and the warm start dropped)."""
        if self.blend == 0.0:
            return reference
        model, data = self.model, self.data
        solution = (self._solution if self._solution is not None else q).copy()
        solution[:2] = q[:2]  # horizontally where the pelvis is
        solution[2] = reference.pelvis_height_m
        solution[3:7] = quat_wxyz_to_xyzw(reference.pelvis_quat_wxyz)
        # One kinematics pass for both legs (they share no joint), and one batched solve of
        # (J Jᵀ + λI) [x_step, x_rate] = [pose error, sole twist − base-induced twist] per leg, in
        # world-aligned axes: the angles' damped-least-squares step and the rates (module docstring).
        pin.computeJointJacobians(model, data, solution)
        pin.updateFramePlacements(model, data)
        base_velocity = self._base_velocity(reference, q, v)
        gram, rhs, legs = np.empty((2, 6, 6)), np.empty((2, 6, 2)), []
        residual = 0.0
        for k, side in enumerate(SIDES):
            frame, foot = self.frames[side], reference.feet[side]
            placement = data.oMf[frame]
            target = pin.SE3(quat_to_matrix(foot.quat_wxyz), np.asarray(foot.position_m, dtype=float))
            local_error = pin.log6(placement.actInv(target)).vector
            rotation = placement.rotation
            rhs[k, :3, 0], rhs[k, 3:, 0] = rotation @ local_error[:3], rotation @ local_error[3:]
            residual = max(residual, float(np.linalg.norm(local_error[:3])))
            jacobian = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
            rhs[k, :, 1] = -(jacobian[:, :6] @ base_velocity)
            if not foot.in_stance:
                rhs[k, :3, 1] += foot.velocity_m_s
                if foot.angular_velocity_rad_s is not None:
                    rhs[k, 3:, 1] += foot.angular_velocity_rad_s
            leg = jacobian[:, 6 + self.joints[side]]
            gram[k] = leg @ leg.T
            gram[k].flat[::7] += DAMPING
            legs.append(leg)
        solved = np.linalg.solve(gram, rhs)
        posture = np.array(reference.joint_posture_rad, dtype=float)
        rate = (np.zeros(posture.size) if reference.joint_posture_rate_rad_s is None
                else np.array(reference.joint_posture_rate_rad_s, dtype=float))
        for k, side in enumerate(SIDES):
            joints = self.joints[side]
            step_and_rate = legs[k].T @ solved[k]
            solution[7 + joints] += step_and_rate[:, 0]
            # Clipped: near a stretched knee the leg is nearly singular and would ask rates no leg has.
            rate[joints] += self.blend * (np.clip(step_and_rate[:, 1], -MAX_RATE_RAD_S, MAX_RATE_RAD_S) - rate[joints])
        np.clip(solution[7:], self._lower, self._upper, out=solution[7:])
        if not np.all(np.isfinite(solution)) or not np.all(np.isfinite(rate)):
            self._solution = None
            return reference
        self._solution = None if residual > MAX_RESIDUAL_M else solution
        for side in SIDES:
            joints = self.joints[side]
            posture[joints] += self.blend * (solution[7 + joints] - posture[joints])
        return replace(reference, joint_posture_rad=posture, joint_posture_rate_rad_s=rate)

    @staticmethod
    def _base_velocity(reference, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The pelvis's reference motion (6,) in the base axes of the solution, as Pinocchio's free
        flyer takes it: measured horizontally, the reference's vertical rate and angular velocity."""
        linear = quat_to_matrix(quat_xyzw_to_wxyz(q[3:7])) @ v[:3]
        linear[2] = reference.pelvis_height_rate_m_s
        angular = (np.zeros(3) if reference.pelvis_angular_velocity_rad_s is None
                   else np.asarray(reference.pelvis_angular_velocity_rad_s, dtype=float))
        rotation_t = quat_to_matrix(reference.pelvis_quat_wxyz).T
        return np.concatenate([rotation_t @ linear, rotation_t @ angular])
