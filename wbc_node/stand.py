"""Safe stand controller: joint PD to the standing posture plus gravity compensation.

Gravity compensation for a floating base standing on both feet (Pinocchio): at rest the equations
of motion reduce to g(q) = Sᵀτ + J_cᵀ f, with f the two sole wrenches. Its six base rows,
J_c,baseᵀ f = g_base, fix the contact wrenches (minimum-norm solution: weight shared between the
feet); the joint rows then give τ = g_joints − J_c,jointsᵀ f. Without the contact term, a PD with
"fixed-base" gravity compensation would pull the legs as if they hung from the pelvis.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from biped_common.robot_model import RobotModel
from biped_common.state import JointCommand, SensorFrame


class StandController:
    """Holds the robot in its standing posture (``robot.standing_posture_rad``, gains from the
    robot description), compensating gravity for the measured posture and base attitude."""

    def __init__(self, robot: RobotModel):
        self.robot = robot
        self._data = robot.pin_model.createData()
        self._sole_frames = [robot.pin_model.getFrameId(f.sole_site)
                             for f in robot.description.feet.values()]
        self._zero = np.zeros(robot.n_joints)

    def gravity_compensation(self, base_orientation_wxyz: np.ndarray,
                             q_joints_rad: np.ndarray) -> np.ndarray:
        """Joint torques [N·m] that hold ``q_joints_rad`` statically with both soles loaded."""
        model, data = self.robot.pin_model, self._data
        q = self.robot.pinocchio_configuration(np.zeros(3), base_orientation_wxyz, q_joints_rad)
        gravity = pin.computeGeneralizedGravity(model, data, q)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        contact_jacobian = np.vstack([pin.getFrameJacobian(model, data, f, pin.LOCAL)
                                      for f in self._sole_frames])
        wrenches = np.linalg.lstsq(contact_jacobian[:, :6].T, gravity[:6], rcond=None)[0]
        return gravity[6:] - contact_jacobian[:, 6:].T @ wrenches

    def command(self, frame: SensorFrame) -> JointCommand:
        """The joint command answering ``frame`` (base attitude taken from its IMU, which sits on
        the base with the base's axes in the shipped robots). ValueError when the frame's joints are
        not the robot's."""
        q_joints = self.robot.joint_vector(frame.joint_names, frame.position_rad)
        tau = self.gravity_compensation(frame.imu.orientation_wxyz, q_joints)
        return JointCommand(
            stamp_s=frame.stamp_s, joint_names=self.robot.joint_names,
            position_rad=self.robot.standing_posture_rad, velocity_rad_s=self._zero,
            effort_nm=tau, kp=self.robot.kp, kd=self.robot.kd)
